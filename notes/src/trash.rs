//! The trash, seen from outside: [`Brain::trash`] lists what it holds, [`Brain::restore`]
//! brings a note back; and [`Brain::create`], a write that expects no note of that name.
//!
//! A trash entry is `trash/<unix ms, 13 digits>~<name with / as ~>.md`. Names never hold
//! `~` (see [`check_name`]), so an entry's name reads back exactly; two deletes of one name
//! in the same millisecond take the next free millisecond. (Stores written before this
//! rule may hold `…~<name>~<n>.md` for such a collision; it lists as the name `<name>/<n>`.)
//!
//! Restore works under the brain's lock and writes through the same atomic path as a write:
//! the note first (temp file, sync, rename), and only then is the trash entry removed, so a
//! crash in between leaves the text in both places, never in neither. A note of that name
//! that exists is newer than the deleted one: restore refuses ([`NotesError::Exists`])
//! unless forced, and then that note's text goes to the trash first.

use std::path::PathBuf;
use std::rc::Rc;
use std::time::SystemTime;

use notesoup_safe_fs::{Dir, Kind};

use crate::layout::{Undo, first_line, read_note};
use crate::{Brain, MAX_BRAIN_BYTES, MAX_NOTE_BYTES, NotesError, Version, Written, check_name};

/// One deleted note the trash keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Trashed {
    /// The note's name.
    pub name: String,
    /// When it was deleted, in milliseconds since the Unix epoch.
    pub deleted_ms: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its first line (as [`crate::NoteInfo::first_line`]); empty when it cannot be read.
    pub first_line: String,
    /// The trash file holding its text.
    pub file: PathBuf,
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Restored {
    /// The note's name.
    pub name: String,
    /// Its version now (the version it had when deleted).
    pub version: Version,
    /// Its size in bytes.
    pub bytes: u64,
    /// When the restored copy had been deleted, in milliseconds since the Unix epoch.
    pub deleted_ms: u64,
    /// With `force`, where the note it replaced now lies in the trash.
    pub replaced: Option<PathBuf>,
}

impl Brain {
    /// What the trash holds, newest first (at most [`crate::TRASH_KEEP`] entries).
    pub fn trash(&self) -> Result<Vec<Trashed>, NotesError> {
        let Some(brain) = self.open_brain()? else {
            return Ok(Vec::new());
        };
        let Some(trash) = brain.open_dir("trash")? else {
            return Ok(Vec::new());
        };
        Self::trash_in(&trash)
    }

    /// [`Brain::trash`] of an open `trash/`.
    fn trash_in(trash: &Dir) -> Result<Vec<Trashed>, NotesError> {
        let mut out = Vec::new();
        // Regular files only: a link or folder here is not an entry this store made.
        for entry in trash
            .entries()?
            .into_iter()
            .filter(|e| e.kind == Kind::File)
        {
            let Some(file) = entry.name.to_str() else {
                continue;
            };
            let Some((deleted_ms, name)) = parse_entry(file) else {
                continue;
            };
            let Ok(Some(meta)) = trash.metadata(file) else {
                continue;
            };
            let first_line = if meta.len <= MAX_NOTE_BYTES {
                read_note(trash, file)
                    .ok()
                    .flatten()
                    .map_or_else(String::new, |(text, _)| first_line(&text))
            } else {
                String::new()
            };
            out.push(Trashed {
                name,
                deleted_ms,
                bytes: meta.len,
                first_line,
                file: trash.child_path(file),
            });
        }
        out.sort_by(|a, b| {
            b.deleted_ms
                .cmp(&a.deleted_ms)
                .then_with(|| a.name.cmp(&b.name))
        });
        Ok(out)
    }

    /// Bring the newest deleted copy of `name` back from the trash. Refused with
    /// [`NotesError::Exists`] when a note of that name exists, unless `force`: then that
    /// note is moved to the trash first. [`NotesError::NotInTrash`] when the trash holds no
    /// copy. A refusal changes nothing.
    pub fn restore(&self, name: &str, force: bool) -> Result<Restored, NotesError> {
        self.restore_at(name, force, SystemTime::now())
    }

    pub(crate) fn restore_at(
        &self,
        name: &str,
        force: bool,
        now: SystemTime,
    ) -> Result<Restored, NotesError> {
        check_name(name)?;
        // Answer a trash without this name before taking the lock (a brain that never had
        // a delete has nothing to create either); checked again under the lock.
        if !self.trash()?.iter().any(|t| t.name == name) {
            return Err(NotesError::NotInTrash {
                name: name.to_owned(),
            });
        }
        let mut undo = Undo::default();
        let done = self.restore_locked(name, force, now, &mut undo);
        if done.is_err() {
            undo.rollback();
        }
        done
    }

    fn restore_locked(
        &self,
        name: &str,
        force: bool,
        now: SystemTime,
        undo: &mut Undo,
    ) -> Result<Restored, NotesError> {
        let not_in_trash = || NotesError::NotInTrash {
            name: name.to_owned(),
        };
        let opened = self.create_brain(undo)?;
        let _lock = opened.brain.lock_within(self.lock_wait)?;
        Self::clean_tmp(&opened.tmp);
        let trash = opened.brain.open_dir("trash")?.ok_or_else(not_in_trash)?;
        let entry = Self::trash_in(&trash)?
            .into_iter()
            .find(|t| t.name == name)
            .ok_or_else(not_in_trash)?;
        let bytes = entry.bytes;
        if bytes > MAX_NOTE_BYTES {
            return Err(NotesError::TooLarge {
                what: format!("note `{name}` in the trash ({})", entry.file.display()),
                size: bytes,
                limit: MAX_NOTE_BYTES,
            });
        }
        let entry_file = entry
            .file
            .file_name()
            .and_then(|f| f.to_str())
            .ok_or_else(not_in_trash)?
            .to_owned();
        let (text, _) = read_note(&trash, &entry_file)?.ok_or_else(not_in_trash)?;
        let current = Self::read_at(Rc::clone(&opened.notes), name)?.map(|(text, _)| text);
        if let Some(current) = &current
            && !force
        {
            return Err(NotesError::Exists {
                name: name.to_owned(),
                version: Version::of(current).to_string(),
            });
        }
        let others: u64 = Self::list_in(Rc::clone(&opened.notes), "")?
            .iter()
            .filter(|n| n.name != name)
            .map(|n| n.bytes)
            .sum();
        let bytes = text.len() as u64;
        if others + bytes > MAX_BRAIN_BYTES {
            return Err(NotesError::BrainFull {
                size: others + bytes,
            });
        }
        // The note being replaced goes to the trash as a new entry, written in full before
        // the note is replaced: no instant without the note, no instant without its text.
        let replaced = match &current {
            Some(current) => {
                let slot = Self::trash_slot(&trash, name, now)?;
                trash.replace_via(&opened.tmp, &slot, current.as_bytes())?;
                Some(trash.child_path(&slot))
            }
            None => None,
        };
        Self::write_note(&opened, name, &text, undo)?;
        trash.remove_file(&entry_file)?;
        trash.sync()?;
        Self::prune_trash(&trash, now);
        Ok(Restored {
            name: name.to_owned(),
            version: Version::of(&text),
            bytes,
            deleted_ms: entry.deleted_ms,
            replaced,
        })
    }

    /// Create a note that must not exist yet: refused with [`NotesError::Exists`] when a
    /// note of that name exists, checked under the lock (so a concurrent create between a
    /// caller's read and this write is a refusal, not an overwrite).
    pub fn create(&self, name: &str, text: &str) -> Result<Written, NotesError> {
        self.change(name, None, false, |current| match current {
            Some(current) => Err(NotesError::Exists {
                name: name.to_owned(),
                version: Version::of(current).to_string(),
            }),
            None => Ok(text.to_owned()),
        })
    }
}

/// `<millis>~<flat name>.md` → (millis, name), `None` for anything else.
fn parse_entry(file: &str) -> Option<(u64, String)> {
    let (millis, flat) = file.strip_suffix(".md")?.split_once('~')?;
    if millis.is_empty() || !millis.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let name = flat.replace('~', "/");
    check_name(&name).ok()?;
    Some((millis.parse().ok()?, name))
}
