//! notesoup's brain store: the agent's notes, the only memory that survives a cleared window.
//!
//! A [`Brain`] is the set of notes of one *domain*: the project a session works in (the git
//! root of the session's working folder, else that folder itself, see [`domain_of`]). Every
//! host (Claude Code today, Pi and others later) and every session, main agent or subagent,
//! on that domain shares it. A note is a [name](check_name) and UTF-8 text; five operations
//! act on it: [`Brain::list`], [`Brain::read`], [`Brain::write`], [`Brain::edit`] and
//! [`Brain::delete`]. Every one reports a [`Version`], an opaque string; a write, edit or
//! delete that carries the version its caller read is refused with
//! [`NotesError::VersionConflict`] when the note changed since, so no update is lost.
//! Deleted notes wait in the trash: [`Brain::trash`] lists them and [`Brain::restore`]
//! brings one back; [`Brain::create`] is a write that expects no note of that name.
//!
//! ```
//! use notesoup_notes::{Brain, Edit, NotesError};
//!
//! # fn main() -> Result<(), NotesError> {
//! # let tmp = std::env::temp_dir().join(format!("notesoup-notes-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&tmp);
//! # std::fs::create_dir_all(tmp.join("project")).unwrap();
//! let store = notesoup_notes::store_root(Some(tmp.join("home").to_str().unwrap()), None, None)?;
//! let brain = Brain::open(&store, &tmp.join("project"))?;
//!
//! let first = brain.write("plans/today", "1. fix the parser\n", None)?;
//! let read = brain.read("plans/today")?;
//! assert_eq!(read.version, first.version);
//!
//! // An edit carrying the version it read succeeds and yields a new version...
//! let second = brain.edit("plans/today", &Edit::Append("2. ship\n".into()), Some(&read.version))?;
//! assert_eq!(brain.read("plans/today")?.text, "1. fix the parser\n2. ship\n");
//!
//! // ...and a second edit from the same stale read is refused: no lost update.
//! let stale = brain.edit("plans/today", &Edit::Append("3. lost?\n".into()), Some(&read.version));
//! assert_eq!(stale.unwrap_err().code(), "version_conflict");
//! assert_ne!(second.version, first.version);
//! # std::fs::remove_dir_all(&tmp).unwrap();
//! # Ok(())
//! # }
//! ```
//!
//! # Invariants
//!
//! - A note is always its old text or its new one, never a mix, whoever writes and
//!   whenever a writer dies.
//! - No update is lost: a change carrying a version is applied only if the note is still at
//!   that version ([`NotesError::VersionConflict`]).
//! - A refusal changes nothing on disk, a full disk included.
//! - A change never leaves a note blank (empty or only whitespace,
//!   [`NotesError::Empty`]): deleting a note is [`Brain::delete`], which keeps it.
//! - The store never leaves itself: a name is `a-z 0-9 - _` segments joined by `/`, and
//!   below the store root nothing is opened through a link, only regular files are read,
//!   nothing blocks, and at most [`MAX_BRAIN_BYTES`] is read per note file.
//! - Nothing is lost by a delete or a restore: a deleted note goes to the trash, and
//!   [`Brain::restore`] overwrites a note only with `force`, after moving it to the trash.
//!
//! # On disk
//!
//! ```text
//! <store root>/                         NOTESOUP_HOME, else $XDG_DATA_HOME/notesoup,
//! │                                     else $HOME/.local/share/notesoup (see store_root)
//! └── brains/
//!     └── <last folder of the domain>-<16 hex digits: FNV-1a 64 of the domain path>/
//!         ├── domain                    the domain's absolute path, one line (for people)
//!         ├── notes/<name>.md           one file per note; `a/b` is notes/a/b.md
//!         ├── trash/<unix ms>~<name with / as ~>.md
//!         │                             deleted notes, newest TRASH_KEEP kept, none
//!         │                             older than TRASH_DAYS
//!         └── tmp/                      temp files of writes in flight
//! ```
//!
//! # Design: durability and concurrency
//!
//! Every change happens while holding an exclusive `flock` on the brain folder's own handle
//! (no lock file that could be swapped for a link), so writers in any number of processes
//! are serialized; the kernel releases the lock when a holder dies, so there is no stale lock
//! to clean up. A change waits at most [`LOCK_WAIT`] for another holder (one stopped or
//! hung), then is refused as `busy`. A new text is written to a temp file in `tmp/`, synced, renamed over the
//! note, and the folder is synced. Readers take no lock. Temp files a killed writer left
//! behind are removed by the next writer (it holds the lock, so none is in flight).
//! A change that fails removes the folders and files it created.
//!
//! # Design: the store never leaves itself
//!
//! Only the store root is a configured path (links in it are resolved). Below it, every
//! folder and file (`brains/`, the brain folder, `notes/`, `tmp/`, `trash/`, `domain`, note
//! folders and files) is opened through [`notesoup_safe_fs`] handles, one name at a time:
//! a link is refused (`link`, or `bad_name` when the link is part of a note's name), a FIFO
//! or a device at once (`not_regular`), a file over [`MAX_BRAIN_BYTES`] unread
//! (`too_large`).
//!
//! A [`Version`] is a 64-bit FNV-1a hash of the text: it needs no bookkeeping that a crash
//! could tear, and it is the same in every process; the cost is that writing a note back
//! to an earlier text brings back the earlier version, which is harmless since the text
//! a stale writer read is then exactly the text it would change.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

mod brain;
mod brains;
mod error;
mod layout;
mod name;
mod near;
mod text;
mod trash;

pub use brain::{Brain, LOCK_WAIT};
pub use brains::{BrainInfo, brains, left_behind};
pub use error::{NotesError, QUOTE_MAX_CHARS};
pub use name::{MAX_DEPTH, MAX_SEGMENT_BYTES, check_folder, check_name};
pub use near::{NEAR_MAX, near_names};
pub use text::{render_delete, render_list, render_read, render_written};
pub use trash::{Restored, Trashed};

/// Largest note, in bytes of UTF-8.
pub const MAX_NOTE_BYTES: u64 = 64 * 1024;
/// Largest brain (all notes together, trash excluded), in bytes.
pub const MAX_BRAIN_BYTES: u64 = 512 * 1024;
/// How many deleted notes the trash keeps at most.
pub const TRASH_KEEP: usize = 50;
/// How long the trash keeps a deleted note, in days.
pub const TRASH_DAYS: u64 = 30;

/// A note's version: an opaque string, equal for equal texts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version(String);

impl Version {
    /// The version of this text.
    pub fn of(text: &str) -> Self {
        Self(format!("{:016x}", fnv1a64(text.as_bytes())))
    }

    /// A version as a caller sent it back (any string; one that no note has simply never
    /// matches).
    pub fn from_string(version: String) -> Self {
        Self(version)
    }

    /// The version as the string callers see and send back.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One note as `list` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteInfo {
    /// The note's name.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// When it was last written, in seconds since the Unix epoch.
    pub updated: u64,
    /// Its version.
    pub version: Version,
    /// Its first line (at most 120 bytes, cut at a character boundary).
    pub first_line: String,
}

/// One note as `read` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The note's name.
    pub name: String,
    /// Its whole text.
    pub text: String,
    /// Its version.
    pub version: Version,
    /// When it was last written, in seconds since the Unix epoch.
    pub updated: u64,
}

/// What a write or edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The note's name.
    pub name: String,
    /// Its new version.
    pub version: Version,
    /// Its new size in bytes.
    pub bytes: u64,
    /// True when the note did not exist before.
    pub created: bool,
    /// Where the text it replaced was kept in the trash ([`Brain::write_keeping`]), when
    /// there was one and it differed.
    pub kept_old: Option<PathBuf>,
}

/// What a delete did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deleted {
    /// The note's name.
    pub name: String,
    /// The version it had when deleted.
    pub version: Version,
    /// Where its text now lies in the trash.
    pub trash: PathBuf,
}

/// An edit of one note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Replace the one exact occurrence of `old` with `new`.
    Replace {
        /// Text that must occur exactly once.
        old: String,
        /// Its replacement.
        new: String,
    },
    /// Append this text (a note that does not exist yet is created).
    Append(String),
}

impl Edit {
    /// The edit of note `name` its three optional fields ask for, as the `notes_edit` tool
    /// takes them: `old` and `new` together (a replacement) or `append` alone; any other mix
    /// is refused ([`NotesError::BadEdit`]).
    ///
    /// ```
    /// use notesoup_notes::Edit;
    /// let some = |s: &str| Some(s.to_owned());
    /// assert_eq!(Edit::from_fields("plan", None, None, some("b"))?, Edit::Append("b".into()));
    /// assert_eq!(
    ///     Edit::from_fields("plan", some("a"), some("b"), None)?,
    ///     Edit::Replace { old: "a".into(), new: "b".into() }
    /// );
    /// let mixed = Edit::from_fields("plan", some("a"), None, some("b")).unwrap_err();
    /// assert_eq!(mixed.code(), "bad_edit");
    /// # Ok::<(), notesoup_notes::NotesError>(())
    /// ```
    pub fn from_fields(
        name: &str,
        old: Option<String>,
        new: Option<String>,
        append: Option<String>,
    ) -> Result<Self, NotesError> {
        match (old, new, append) {
            (Some(old), Some(new), None) => Ok(Edit::Replace { old, new }),
            (None, None, Some(more)) => Ok(Edit::Append(more)),
            _ => Err(NotesError::BadEdit {
                name: name.to_owned(),
                reason: "give either `old` and `new` (replace one exact passage) or `append` alone"
                    .into(),
            }),
        }
    }
}

/// The store root: `notesoup_home` if set and not empty, else `xdg_data_home/notesoup` (when
/// absolute), else `home/.local/share/notesoup`. The caller passes the environment in; this
/// crate reads none.
pub fn store_root(
    notesoup_home: Option<&str>,
    xdg_data_home: Option<&str>,
    home: Option<&str>,
) -> Result<PathBuf, NotesError> {
    let set = |v: Option<&str>| v.filter(|s| !s.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(notesoup_home) {
        // A relative home would name another folder from every working folder: one
        // project's brain written from its root and not found from `src/`.
        if dir.is_relative() {
            return Err(NotesError::NoHome {
                reason: format!(
                    "NOTESOUP_HOME `{}` is a relative path, so each folder would have its own; set it to an absolute path (e.g. NOTESOUP_HOME=\"$HOME/notes\")",
                    dir.display()
                ),
            });
        }
        return Ok(dir);
    }
    if let Some(dir) = set(xdg_data_home).filter(|d| d.is_absolute()) {
        return Ok(dir.join("notesoup"));
    }
    match set(home) {
        Some(dir) if dir.is_absolute() => Ok(dir.join(".local/share/notesoup")),
        Some(dir) => Err(NotesError::NoHome {
            reason: format!(
                "HOME `{}` is not an absolute path; set NOTESOUP_HOME",
                dir.display()
            ),
        }),
        None => Err(NotesError::NoHome {
            reason: "none of NOTESOUP_HOME, XDG_DATA_HOME and HOME is set".into(),
        }),
    }
}

/// The domain of a session's working folder: the nearest ancestor (itself included) holding
/// `.git` (a folder, or a file as in worktrees), else the folder itself; symlinks resolved.
pub fn domain_of(cwd: &Path) -> Result<PathBuf, NotesError> {
    let bad = |reason: String| NotesError::BadCwd {
        path: cwd.to_path_buf(),
        reason,
    };
    if !cwd.is_absolute() {
        return Err(bad("not an absolute path".into()));
    }
    let cwd = fs::canonicalize(cwd).map_err(|err| {
        bad(match err.kind() {
            std::io::ErrorKind::NotFound => "no such folder".into(),
            std::io::ErrorKind::PermissionDenied => "permission denied".into(),
            std::io::ErrorKind::NotADirectory => "not a folder".into(),
            _ => err.to_string(),
        })
    })?;
    if !cwd.is_dir() {
        return Err(bad("not a folder".into()));
    }
    Ok(cwd
        .ancestors()
        .find(|dir| dir.join(".git").symlink_metadata().is_ok())
        .unwrap_or(&cwd)
        .to_path_buf())
}

/// 64-bit FNV-1a: small, stable across Rust versions and processes.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
