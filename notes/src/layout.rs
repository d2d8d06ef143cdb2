//! The brain's folders on disk: atomic replace, the writer lock, the trash, the walk.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::{Brain, NoteInfo, NotesError, TRASH_DAYS, TRASH_KEEP, Version, check_name};

impl Brain {
    pub(crate) fn replace_atomically(
        &self,
        name: &str,
        path: &Path,
        text: &str,
    ) -> Result<(), NotesError> {
        let parent = path.parent().unwrap_or(&self.dir);
        let new_folder = !parent.is_dir();
        create_dir(parent)?;
        let tmp = self.dir.join("tmp").join(format!(
            "{}.{}.tmp",
            name.replace('/', "~"),
            std::process::id()
        ));
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(NotesError::io("create a temp file", &tmp))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(NotesError::io("write a temp file", &tmp))?;
        drop(file);
        fs::rename(&tmp, path).map_err(NotesError::io("replace", path))?;
        // Sync the note's folder; when this write created it, every folder up to `notes/`,
        // since a new folder must itself be durable for the note to be.
        let notes = self.notes_dir();
        let depth = if new_folder { usize::MAX } else { 1 };
        for dir in parent
            .ancestors()
            .take_while(|d| d.starts_with(&notes))
            .take(depth)
        {
            sync_dir(dir)?;
        }
        Ok(())
    }

    /// Create the brain's folders and its `domain` file.
    pub(crate) fn ensure(&self) -> Result<(), NotesError> {
        for sub in ["notes", "trash", "tmp"] {
            create_dir(&self.dir.join(sub))?;
        }
        let domain_file = self.dir.join("domain");
        if !domain_file.exists() {
            let line = format!("{}\n", self.domain.display());
            fs::write(&domain_file, line).map_err(NotesError::io("write", &domain_file))?;
        }
        Ok(())
    }

    pub(crate) fn lock(&self) -> Result<File, NotesError> {
        let path = self.dir.join("lock");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(NotesError::io("open the lock", &path))?;
        file.lock()
            .map_err(NotesError::io("take the lock", &path))?;
        Ok(file)
    }

    /// Remove temp files left by killed writers. Only called under the lock, when no write
    /// is in flight. Failures are harmless (a leftover is retried next time).
    pub(crate) fn clean_tmp(&self) {
        if let Ok(entries) = fs::read_dir(self.dir.join("tmp")) {
            for entry in entries.flatten() {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Keep the newest [`TRASH_KEEP`] trash entries, none older than [`TRASH_DAYS`].
    pub(crate) fn prune_trash(&self, now: SystemTime) {
        let Ok(entries) = fs::read_dir(self.dir.join("trash")) else {
            return;
        };
        let mut stamped: Vec<(u128, PathBuf)> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let millis = name.split('~').next()?.parse().ok()?;
                Some((millis, e.path()))
            })
            .collect();
        stamped.sort_by_key(|s| std::cmp::Reverse(s.0));
        let now_ms = now
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let max_age = Duration::from_secs(TRASH_DAYS * 86_400).as_millis();
        for (i, (millis, path)) in stamped.iter().enumerate() {
            if i >= TRASH_KEEP || now_ms.saturating_sub(*millis) > max_age {
                let _ = fs::remove_file(path);
            }
        }
    }

    /// Remove folders left empty by a delete, from `dir` up to (not including) `notes/`.
    pub(crate) fn remove_empty_folders(&self, dir: &Path) {
        let notes = self.notes_dir();
        for d in dir
            .ancestors()
            .take_while(|d| *d != notes && d.starts_with(&notes))
        {
            if fs::remove_dir(d).is_err() {
                break;
            }
        }
    }

    pub(crate) fn notes_dir(&self) -> PathBuf {
        self.dir.join("notes")
    }

    pub(crate) fn note_path(&self, name: &str) -> PathBuf {
        self.notes_dir().join(format!("{name}.md"))
    }

    /// Refuse a name whose folders (or, with `is_note`, whose file) are symlinks or are not
    /// what they should be. Parts that do not exist yet are fine.
    pub(crate) fn check_no_symlinks(&self, name: &str, is_note: bool) -> Result<(), NotesError> {
        let mut path = self.notes_dir();
        let segments: Vec<&str> = name.split('/').collect();
        let mut parts = vec![(path.clone(), true)];
        for (i, seg) in segments.iter().enumerate() {
            let last = i + 1 == segments.len();
            if last && is_note {
                path = path.join(format!("{seg}.md"));
                parts.push((path.clone(), false));
            } else {
                path = path.join(seg);
                parts.push((path.clone(), true));
            }
        }
        for (part, want_dir) in parts {
            let Ok(meta) = part.symlink_metadata() else {
                continue;
            };
            if meta.file_type().is_symlink() {
                return Err(NotesError::bad_name(
                    name,
                    format!("`{}` is a symlink; symlinks are refused", part.display()),
                ));
            }
            if meta.is_dir() != want_dir {
                return Err(NotesError::bad_name(
                    name,
                    format!(
                        "`{}` is not a {}",
                        part.display(),
                        if want_dir { "folder" } else { "note file" }
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn walk(
        dir: &Path,
        prefix: &str,
        out: &mut Vec<NoteInfo>,
    ) -> Result<(), NotesError> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
            Err(err) => return Err(NotesError::io("list", dir)(err)),
        };
        for entry in entries {
            let entry = entry.map_err(NotesError::io("list", dir))?;
            let Ok(file_name) = entry.file_name().into_string() else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let sub = format!("{prefix}{file_name}");
                if check_name(&sub).is_ok() {
                    Self::walk(&entry.path(), &format!("{sub}/"), out)?;
                }
            } else if kind.is_file()
                && let Some(stem) = file_name.strip_suffix(".md")
            {
                let name = format!("{prefix}{stem}");
                if check_name(&name).is_err() {
                    continue;
                }
                let (text, updated) = match read_note(&entry.path()) {
                    Ok(Some(note)) => note,
                    // Vanished between read_dir and read: a concurrent delete.
                    Ok(None) => continue,
                    // Not UTF-8: not a note this store wrote; `read` names the problem.
                    Err(NotesError::Io { source, .. })
                        if source.kind() == ErrorKind::InvalidData =>
                    {
                        continue;
                    }
                    Err(err) => return Err(err),
                };
                out.push(NoteInfo {
                    name,
                    bytes: text.len() as u64,
                    updated,
                    version: Version::of(&text),
                    first_line: first_line(&text),
                });
            }
        }
        Ok(())
    }
}

/// A note's text and modification time, `None` when it does not exist.
pub(crate) fn read_note(path: &Path) -> Result<Option<(String, u64)>, NotesError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(NotesError::io("read", path)(err)),
    };
    let updated = fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let text = String::from_utf8(bytes).map_err(|err| {
        NotesError::io("read", path)(std::io::Error::new(
            ErrorKind::InvalidData,
            format!("not UTF-8 ({err}); fix or remove the file"),
        ))
    })?;
    Ok(Some((text, updated)))
}

pub(crate) fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut end = line.len().min(120);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_owned()
}

pub(crate) fn create_dir(dir: &Path) -> Result<(), NotesError> {
    fs::create_dir_all(dir).map_err(NotesError::io("create the folder", dir))
}

pub(crate) fn sync_dir(dir: &Path) -> Result<(), NotesError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(NotesError::io("sync the folder", dir))
}
