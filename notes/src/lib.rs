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
//! # On disk
//!
//! ```text
//! <store root>/                         NOTESOUP_HOME, else $XDG_DATA_HOME/notesoup,
//! │                                     else $HOME/.local/share/notesoup (see store_root)
//! └── brains/
//!     └── <last folder of the domain>-<16 hex digits: FNV-1a 64 of the domain path>/
//!         ├── domain                    the domain's absolute path, one line (for people)
//!         ├── lock                      empty; writers hold an exclusive flock on it
//!         ├── notes/<name>.md           one file per note; `a/b` is notes/a/b.md
//!         ├── trash/<unix ms>~<name with / as ~>.md
//!         │                             deleted notes, newest TRASH_KEEP kept, none
//!         │                             older than TRASH_DAYS
//!         └── tmp/                      temp files of writes in flight
//! ```
//!
//! # Design: durability and concurrency
//!
//! Every change happens while holding an exclusive lock (`flock` through
//! [`std::fs::File::lock`]) on `lock`, so writers in any number of processes are
//! serialized; the kernel releases the lock when a holder dies, so there is no stale lock
//! to clean up. A new text is written to a temp file in `tmp/`, synced, renamed over the
//! note, and the folder is synced: a reader, or a crash at any instant, sees the old text
//! or the new one, never a mix. Readers take no lock. Temp files a killed writer left
//! behind are removed by the next writer (it holds the lock, so none is in flight).
//! A [`Version`] is a 64-bit FNV-1a hash of the text: it needs no bookkeeping that a crash
//! could tear, and it is the same in every process; the cost is that writing a note back
//! to an earlier text brings back the earlier version, which is harmless since the text
//! a stale writer read is then exactly the text it would change.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

mod error;
mod name;
mod text;

pub use error::NotesError;
pub use name::{MAX_DEPTH, MAX_SEGMENT_BYTES, check_folder, check_name};
pub use text::{format_utc, render_delete, render_list, render_read, render_written};

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
    let cwd = fs::canonicalize(cwd).map_err(|err| bad(err.to_string()))?;
    if !cwd.is_dir() {
        return Err(bad("not a folder".into()));
    }
    Ok(cwd
        .ancestors()
        .find(|dir| dir.join(".git").symlink_metadata().is_ok())
        .unwrap_or(&cwd)
        .to_path_buf())
}

/// The notes of one domain.
#[derive(Debug, Clone)]
pub struct Brain {
    dir: PathBuf,
    domain: PathBuf,
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

    fn delete_at(
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
        let trash_dir = self.dir.join("trash");
        create_dir(&trash_dir)?;
        let millis = now
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let flat = name.replace('/', "~");
        let mut trash = trash_dir.join(format!("{millis:013}~{flat}.md"));
        for n in 1.. {
            if !trash.exists() {
                break;
            }
            trash = trash_dir.join(format!("{millis:013}~{flat}~{n}.md"));
        }
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
    fn change(
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

    fn replace_atomically(&self, name: &str, path: &Path, text: &str) -> Result<(), NotesError> {
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
    fn ensure(&self) -> Result<(), NotesError> {
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

    fn lock(&self) -> Result<File, NotesError> {
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
    fn clean_tmp(&self) {
        if let Ok(entries) = fs::read_dir(self.dir.join("tmp")) {
            for entry in entries.flatten() {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Keep the newest [`TRASH_KEEP`] trash entries, none older than [`TRASH_DAYS`].
    fn prune_trash(&self, now: SystemTime) {
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
    fn remove_empty_folders(&self, dir: &Path) {
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

    fn notes_dir(&self) -> PathBuf {
        self.dir.join("notes")
    }

    fn note_path(&self, name: &str) -> PathBuf {
        self.notes_dir().join(format!("{name}.md"))
    }

    /// Refuse a name whose folders (or, with `is_note`, whose file) are symlinks or are not
    /// what they should be. Parts that do not exist yet are fine.
    fn check_no_symlinks(&self, name: &str, is_note: bool) -> Result<(), NotesError> {
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

    fn walk(dir: &Path, prefix: &str, out: &mut Vec<NoteInfo>) -> Result<(), NotesError> {
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

/// A note's text and modification time, `None` when it does not exist.
fn read_note(path: &Path) -> Result<Option<(String, u64)>, NotesError> {
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

fn first_line(text: &str) -> String {
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

fn create_dir(dir: &Path) -> Result<(), NotesError> {
    fs::create_dir_all(dir).map_err(NotesError::io("create the folder", dir))
}

fn sync_dir(dir: &Path) -> Result<(), NotesError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(NotesError::io("sync the folder", dir))
}

/// 64-bit FNV-1a: small, stable across Rust versions and processes.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
