//! [`Brain`]: the notes of one domain and the five operations on them.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::layout::{read_note, sync_dir};
use crate::{
    Deleted, Edit, MAX_BRAIN_BYTES, MAX_NOTE_BYTES, Note, NoteInfo, NotesError, Version, Written,
    check_folder, check_name, domain_of, fnv1a64,
};

/// The notes of one domain.
#[derive(Debug, Clone)]
pub struct Brain {
    pub(crate) dir: PathBuf,
    pub(crate) domain: PathBuf,
}

impl Brain {
    /// The brain of the domain of `cwd` (see [`domain_of`]) under `store_root`. Nothing is
    /// created until the first write.
    pub fn open(store_root: &Path, cwd: &Path) -> Result<Self, NotesError> {
        let domain = domain_of(cwd)?;
        let label: String = domain
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(40)
            .collect();
        let hash = fnv1a64(domain.as_os_str().as_encoded_bytes());
        let dir = store_root.join("brains").join(format!(
            "{}-{hash:016x}",
            if label.is_empty() { "root" } else { &label }
        ));
        Ok(Self { dir, domain })
    }

    /// The brain's own folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The domain (project folder) this brain belongs to.
    pub fn domain(&self) -> &Path {
        &self.domain
    }

    /// Every note under `folder` (`""` for all), sorted by name.
    pub fn list(&self, folder: &str) -> Result<Vec<NoteInfo>, NotesError> {
        let folder = check_folder(folder)?;
        let mut out = Vec::new();
        let (start, prefix) = if folder.is_empty() {
            (self.notes_dir(), String::new())
        } else {
            self.check_no_symlinks(folder, false)?;
            (self.notes_dir().join(folder), format!("{folder}/"))
        };
        Self::walk(&start, &prefix, &mut out)?;
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Every note with its whole text, sorted by name (what a boot shows).
    pub fn snapshot(&self) -> Result<Vec<Note>, NotesError> {
        self.list("")?
            .into_iter()
            .filter_map(|info| match self.read(&info.name) {
                // A note deleted between list and read is simply gone.
                Err(NotesError::NotFound { .. }) => None,
                other => Some(other),
            })
            .collect()
    }

    /// One note.
    pub fn read(&self, name: &str) -> Result<Note, NotesError> {
        check_name(name)?;
        let path = self.note_path(name);
        self.check_no_symlinks(name, true)?;
        let (text, updated) = read_note(&path)?.ok_or_else(|| NotesError::NotFound {
            name: name.to_owned(),
        })?;
        Ok(Note {
            name: name.to_owned(),
            version: Version::of(&text),
            text,
            updated,
        })
    }

    /// Create or replace a whole note. With `expected`, refused unless the note exists at
    /// that version.
    pub fn write(
        &self,
        name: &str,
        text: &str,
        expected: Option<&Version>,
    ) -> Result<Written, NotesError> {
        self.change(name, expected, |_| Ok(text.to_owned()))
    }

    /// Edit a note in place (see [`Edit`]). With `expected`, refused unless the note exists
    /// at that version.
    pub fn edit(
        &self,
        name: &str,
        edit: &Edit,
        expected: Option<&Version>,
    ) -> Result<Written, NotesError> {
        match edit {
            Edit::Replace { old, .. } if old.is_empty() => {
                return Err(NotesError::BadEdit {
                    name: name.to_owned(),
                    reason: "`old` is empty; give the exact text to replace, or use `append`"
                        .into(),
                });
            }
            Edit::Append(more) if more.is_empty() => {
                return Err(NotesError::BadEdit {
                    name: name.to_owned(),
                    reason: "`append` is empty; nothing to add".into(),
                });
            }
            _ => {}
        }
        self.change(name, expected, |current| match (edit, current) {
            (Edit::Append(more), None) => Ok(more.clone()),
            (Edit::Append(more), Some(text)) => Ok(format!("{text}{more}")),
            (Edit::Replace { .. }, None) => Err(NotesError::NotFound {
                name: name.to_owned(),
            }),
            (Edit::Replace { old, new }, Some(text)) => match text.matches(old.as_str()).count() {
                1 => Ok(text.replacen(old.as_str(), new, 1)),
                0 => Err(NotesError::NoMatch {
                    name: name.to_owned(),
                    old: old.clone(),
                }),
                count => Err(NotesError::Ambiguous {
                    name: name.to_owned(),
                    old: old.clone(),
                    count,
                }),
            },
        })
    }

    /// Delete a note, moving its text to the trash. With `expected`, refused unless the
    /// note is at that version.
    pub fn delete(&self, name: &str, expected: Option<&Version>) -> Result<Deleted, NotesError> {
        self.delete_at(name, expected, SystemTime::now())
    }

    pub(crate) fn delete_at(
        &self,
        name: &str,
        expected: Option<&Version>,
        now: SystemTime,
    ) -> Result<Deleted, NotesError> {
        check_name(name)?;
        self.check_no_symlinks(name, true)?;
        let path = self.note_path(name);
        if !path.exists() {
            return Err(match expected {
                Some(v) => NotesError::VersionConflict {
                    name: name.to_owned(),
                    expected: v.to_string(),
                    current: None,
                },
                None => NotesError::NotFound {
                    name: name.to_owned(),
                },
            });
        }
        let _lock = self.lock()?;
        let Some((text, _)) = read_note(&path)? else {
            // Deleted by someone else between the check above and the lock.
            check_expected(name, expected, None)?;
            return Err(NotesError::NotFound {
                name: name.to_owned(),
            });
        };
        let version = Version::of(&text);
        check_expected(name, expected, Some(&version))?;
        let trash = self.trash_slot(name, now)?;
        let trash_dir = self.dir.join("trash");
        fs::rename(&path, &trash).map_err(NotesError::io("move to the trash", &path))?;
        sync_dir(&trash_dir)?;
        if let Some(parent) = path.parent() {
            sync_dir(parent)?;
            self.remove_empty_folders(parent);
        }
        self.prune_trash(now);
        Ok(Deleted {
            name: name.to_owned(),
            version,
            trash,
        })
    }

    /// The core of write and edit: under the lock, read the current text, check the
    /// version, compute the new text, check the limits, replace atomically.
    pub(crate) fn change(
        &self,
        name: &str,
        expected: Option<&Version>,
        new_text: impl Fn(Option<&str>) -> Result<String, NotesError>,
    ) -> Result<Written, NotesError> {
        check_name(name)?;
        self.check_no_symlinks(name, true)?;
        let path = self.note_path(name);
        // A refusal must change nothing: before creating the brain's folders and lock, answer
        // without the lock what can be answered from the note as it stands (it is checked
        // again under the lock).
        let current = read_note(&path)?.map(|(text, _)| text);
        check_expected(name, expected, current.as_deref().map(Version::of).as_ref())?;
        check_note_size(name, &new_text(current.as_deref())?)?;
        self.ensure()?;
        let _lock = self.lock()?;
        self.clean_tmp();
        let current = read_note(&path)?.map(|(text, _)| text);
        let current_version = current.as_deref().map(Version::of);
        check_expected(name, expected, current_version.as_ref())?;
        let text = new_text(current.as_deref())?;
        let bytes = check_note_size(name, &text)?;
        let others: u64 = self
            .list("")?
            .iter()
            .filter(|n| n.name != name)
            .map(|n| n.bytes)
            .sum();
        if others + bytes > MAX_BRAIN_BYTES {
            return Err(NotesError::TooLarge {
                what: "the brain".into(),
                size: others + bytes,
                limit: MAX_BRAIN_BYTES,
            });
        }
        self.replace_atomically(name, &path, &text)?;
        Ok(Written {
            name: name.to_owned(),
            version: Version::of(&text),
            bytes,
            created: current.is_none(),
        })
    }
}

/// The text's size in bytes, or `TooLarge` over [`MAX_NOTE_BYTES`].
fn check_note_size(name: &str, text: &str) -> Result<u64, NotesError> {
    let bytes = text.len() as u64;
    if bytes > MAX_NOTE_BYTES {
        return Err(NotesError::TooLarge {
            what: format!("note `{name}`"),
            size: bytes,
            limit: MAX_NOTE_BYTES,
        });
    }
    Ok(bytes)
}

fn check_expected(
    name: &str,
    expected: Option<&Version>,
    current: Option<&Version>,
) -> Result<(), NotesError> {
    match expected {
        Some(want) if Some(want) != current => Err(NotesError::VersionConflict {
            name: name.to_owned(),
            expected: want.to_string(),
            current: current.map(ToString::to_string),
        }),
        _ => Ok(()),
    }
}
