//! [`Brain`]: the notes of one domain and the five operations on them.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::SystemTime;

use notesoup_safe_fs::Dir;

use crate::error::quote;
use crate::layout::{Opened, Place, Undo, read_note};
use crate::{
    Deleted, Edit, MAX_BRAIN_BYTES, MAX_NOTE_BYTES, Note, NoteInfo, NotesError, Version, Written,
    check_folder, check_name, domain_of, fnv1a64,
};

/// The notes of one domain.
#[derive(Debug, Clone)]
pub struct Brain {
    pub(crate) dir: PathBuf,
    pub(crate) domain: PathBuf,
    /// The configured store root (the one path whose links are resolved).
    pub(crate) root: PathBuf,
    /// The brain folder's name under `brains/`.
    pub(crate) label: String,
    /// How long a change waits for another writer's lock ([`LOCK_WAIT`]).
    pub(crate) lock_wait: std::time::Duration,
}

/// How long a change waits for the brain's lock: another writer holds it for one note's
/// write, so a wait this long is a holder that was stopped (Ctrl-Z) or hung; past it the
/// change is refused (`busy`), never waited on for ever.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

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
        let label = format!(
            "{}-{hash:016x}",
            if label.is_empty() { "root" } else { &label }
        );
        Ok(Self {
            dir: store_root.join("brains").join(&label),
            domain,
            root: store_root.to_path_buf(),
            label,
            lock_wait: LOCK_WAIT,
        })
    }

    /// The same brain, a change waiting at most `wait` for another writer's lock (default
    /// [`LOCK_WAIT`]).
    #[must_use]
    pub fn with_lock_wait(mut self, wait: std::time::Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// The brain's own folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The domain (project folder) this brain belongs to.
    pub fn domain(&self) -> &Path {
        &self.domain
    }

    /// Whether the domain is a git repository's root (its `.git` a folder, or a file as in
    /// worktrees): false when the folder itself is the domain, so moving or renaming it
    /// starts a new brain.
    pub fn keyed_on_git(&self) -> bool {
        self.domain.join(".git").symlink_metadata().is_ok()
    }

    /// Every note under `folder` (`""` for all), sorted by name.
    pub fn list(&self, folder: &str) -> Result<Vec<NoteInfo>, NotesError> {
        let folder = check_folder(folder)?;
        let Some(notes) = self.open_notes()? else {
            return Ok(Vec::new());
        };
        Self::list_in(notes, folder)
    }

    /// [`Brain::list`] under an open `notes/`.
    pub(crate) fn list_in(notes: Rc<Dir>, folder: &str) -> Result<Vec<NoteInfo>, NotesError> {
        let mut out = Vec::new();
        if folder.is_empty() {
            Self::walk(&notes, "", &mut out)?;
        } else {
            // The folder as if it were a note's: its own segment is a folder too.
            let Some(place) = Self::find(notes, &format!("{folder}/x"))? else {
                return Ok(Vec::new());
            };
            Self::walk(place.dir(), &format!("{folder}/"), &mut out)?;
        }
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
        let not_found = || NotesError::NotFound {
            name: name.to_owned(),
        };
        let notes = self.open_notes()?.ok_or_else(not_found)?;
        let (text, updated) = Self::read_at(notes, name)?.ok_or_else(not_found)?;
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
        self.change(name, expected, false, |_| Ok(text.to_owned()))
    }

    /// [`Brain::write`], the text it replaces (if any, and different) kept in the trash as a
    /// delete keeps it, so [`Brain::restore`] with `force` brings it back: a person's
    /// `notes write` (one slip for `append` loses nothing). The agent's writes replace in
    /// place: it rewrites its notes all day, which would push deleted notes out of the trash.
    pub fn write_keeping(
        &self,
        name: &str,
        text: &str,
        expected: Option<&Version>,
    ) -> Result<Written, NotesError> {
        self.change(name, expected, true, |_| Ok(text.to_owned()))
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
        self.change(name, expected, false, |current| match (edit, current) {
            (Edit::Append(more), None) => Ok(more.clone()),
            (Edit::Append(more), Some(text)) => Ok(format!("{text}{more}")),
            (Edit::Replace { .. }, None) => Err(NotesError::NotFound {
                name: name.to_owned(),
            }),
            (Edit::Replace { old, new }, Some(text)) => match text.matches(old.as_str()).count() {
                1 => Ok(text.replacen(old.as_str(), new, 1)),
                0 => Err(NotesError::NoMatch {
                    name: name.to_owned(),
                    old: quote(old),
                }),
                count => Err(NotesError::Ambiguous {
                    name: name.to_owned(),
                    old: quote(old),
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
        let missing = || match expected {
            Some(v) => NotesError::VersionConflict {
                name: name.to_owned(),
                expected: v.to_string(),
                current: None,
            },
            None => NotesError::NotFound {
                name: name.to_owned(),
            },
        };
        let brain = self.open_brain()?.ok_or_else(missing)?;
        let notes = brain.open_dir("notes")?.map(Rc::new).ok_or_else(missing)?;
        let place = Self::find(notes, name)?.ok_or_else(missing)?;
        if Self::read_at_place(&place, name)?.is_none() {
            return Err(missing());
        }
        let _lock = brain.lock_within(self.lock_wait)?;
        let Some((text, _)) = Self::read_at_place(&place, name)? else {
            // Deleted by someone else between the check above and the lock.
            return Err(missing());
        };
        let version = Version::of(&text);
        check_expected(name, expected, Some(&version))?;
        let (trash, _) = brain.create_dir("trash")?;
        let slot = Self::trash_slot(&trash, name, now)?;
        place.dir().rename(&place.file, &trash, &slot)?;
        trash.sync()?;
        place.dir().sync()?;
        // Folders left empty, from the note's up to (not including) `notes/`.
        for pair in place.folders.windows(2).rev() {
            if pair[0]
                .remove_dir(pair[1].path().file_name().unwrap_or_default())
                .is_err()
            {
                break;
            }
        }
        Self::prune_trash(&trash, now);
        Ok(Deleted {
            name: name.to_owned(),
            version,
            trash: trash.child_path(&slot),
        })
    }

    /// A note's text at its place (links and misplaced kinds refused naming the note).
    pub(crate) fn read_at_place(
        place: &Place,
        name: &str,
    ) -> Result<Option<(String, u64)>, NotesError> {
        read_note(place.dir(), &place.file).map_err(|err| match err {
            NotesError::File(notesoup_safe_fs::FsError::Link { path }) => NotesError::bad_name(
                name,
                format!("`{}` is a symlink; symlinks are refused", path.display()),
            ),
            NotesError::File(notesoup_safe_fs::FsError::NotRegular {
                path,
                kind: "a folder",
            }) => NotesError::bad_name(name, format!("`{}` is not a note file", path.display())),
            other => other,
        })
    }

    /// The core of write and edit: under the lock, read the current text, check the
    /// version, compute the new text, check the limits, replace atomically. Whatever fails
    /// removes the folders and files this call created.
    /// With `keep_old`, the text replaced goes to the trash first ([`Brain::write_keeping`]).
    pub(crate) fn change(
        &self,
        name: &str,
        expected: Option<&Version>,
        keep_old: bool,
        new_text: impl Fn(Option<&str>) -> Result<String, NotesError>,
    ) -> Result<Written, NotesError> {
        check_name(name)?;
        // A refusal must change nothing: before creating the brain's folders, answer
        // without the lock what can be answered from the note as it stands (it is checked
        // again under the lock).
        let current = match self.open_notes()? {
            Some(notes) => Self::read_at(notes, name)?.map(|(text, _)| text),
            None => None,
        };
        check_expected(name, expected, current.as_deref().map(Version::of).as_ref())?;
        check_note_text(name, &new_text(current.as_deref())?)?;
        let mut undo = Undo::default();
        let done = self.change_locked(name, expected, keep_old, &new_text, &mut undo);
        if done.is_err() {
            undo.rollback();
        }
        done
    }

    fn change_locked(
        &self,
        name: &str,
        expected: Option<&Version>,
        keep_old: bool,
        new_text: &impl Fn(Option<&str>) -> Result<String, NotesError>,
        undo: &mut Undo,
    ) -> Result<Written, NotesError> {
        let opened = self.create_brain(undo)?;
        let _lock = opened.brain.lock_within(self.lock_wait)?;
        Self::clean_tmp(&opened.tmp);
        let current = Self::read_at(Rc::clone(&opened.notes), name)?.map(|(text, _)| text);
        let current_version = current.as_deref().map(Version::of);
        check_expected(name, expected, current_version.as_ref())?;
        let text = new_text(current.as_deref())?;
        let bytes = check_note_text(name, &text)?;
        let others: u64 = Self::list_in(Rc::clone(&opened.notes), "")?
            .iter()
            .filter(|n| n.name != name)
            .map(|n| n.bytes)
            .sum();
        if others + bytes > MAX_BRAIN_BYTES {
            return Err(NotesError::BrainFull {
                size: others + bytes,
            });
        }
        let kept_old = match current.as_deref() {
            Some(old) if keep_old && old != text => Some(Self::keep_in_trash(&opened, name, old)?),
            _ => None,
        };
        Self::write_note(&opened, name, &text, undo)?;
        Ok(Written {
            name: name.to_owned(),
            version: Version::of(&text),
            bytes,
            created: current.is_none(),
            kept_old,
        })
    }

    /// A copy of `text`, note `name`'s, in the trash (written atomically, the trash pruned
    /// as a delete prunes it): where it lies.
    fn keep_in_trash(opened: &Opened, name: &str, text: &str) -> Result<PathBuf, NotesError> {
        let now = SystemTime::now();
        let (trash, _) = opened.brain.create_dir("trash")?;
        let slot = Self::trash_slot(&trash, name, now)?;
        trash.replace_via(&opened.tmp, &slot, text.as_bytes())?;
        trash.sync()?;
        Self::prune_trash(&trash, now);
        Ok(trash.child_path(&slot))
    }

    /// Write note `name` atomically (its folders created, recorded in `undo`), syncing
    /// every folder it created.
    pub(crate) fn write_note(
        opened: &Opened,
        name: &str,
        text: &str,
        undo: &mut Undo,
    ) -> Result<(), NotesError> {
        let place = Self::make_place(&opened.notes, name, undo)?;
        place
            .dir()
            .replace_via(&opened.tmp, &place.file, text.as_bytes())
            .map_err(|err| match err {
                notesoup_safe_fs::FsError::Link { path } => NotesError::bad_name(
                    name,
                    format!("`{}` is a symlink; symlinks are refused", path.display()),
                ),
                other => other.into(),
            })?;
        // A new folder must itself be durable for the note to be.
        for dir in place.folders.iter().rev().skip(1) {
            dir.sync()?;
        }
        opened.brain.sync()?;
        Ok(())
    }
}

/// A note's text as the store keeps it: not blank, and at most [`MAX_NOTE_BYTES`]; its size.
fn check_note_text(name: &str, text: &str) -> Result<u64, NotesError> {
    if text.trim().is_empty() {
        return Err(NotesError::Empty {
            name: name.to_owned(),
        });
    }
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
