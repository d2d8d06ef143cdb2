//! The brain's folders on disk, every one opened through `safe-fs` handles: the store root
//! is the one configured path (links in it resolved); below it, `brains/`, the brain
//! folder, `notes/`, `tmp/`, `trash/`, `domain` and every note file and folder are opened
//! relative to their parent's handle, never through a link, regular files only, without
//! blocking. A change that fails removes what it created ([`Undo`]), so a refusal (a
//! full disk included) leaves nothing behind.

use std::ffi::OsString;
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use notesoup_safe_fs::{Dir, FsError, Kind, remove_created};

use crate::{
    Brain, MAX_BRAIN_BYTES, NoteInfo, NotesError, TRASH_DAYS, TRASH_KEEP, Version, check_name,
};

/// The largest file read as a note: one note can never exceed the whole brain's limit, so
/// a bigger file in a note's place is refused (`too_large`) rather than read.
pub(crate) const NOTE_FILE_MAX_BYTES: u64 = MAX_BRAIN_BYTES;

/// What a failing change created, removed again in reverse order (folders only when
/// empty), so a refusal changes nothing on disk.
#[derive(Default)]
pub(crate) struct Undo {
    root: Vec<std::path::PathBuf>,
    made: Vec<(Rc<Dir>, OsString, bool)>,
}

impl Undo {
    /// The sub-folder `name` of `parent`, created when missing (and then recorded).
    pub(crate) fn dir(&mut self, parent: &Rc<Dir>, name: &str) -> Result<Rc<Dir>, NotesError> {
        let (dir, created) = parent.create_dir(name)?;
        if created {
            self.made.push((Rc::clone(parent), name.into(), true));
        }
        Ok(Rc::new(dir))
    }

    /// Record a file this change created in `parent`.
    pub(crate) fn file(&mut self, parent: &Rc<Dir>, name: &str) {
        self.made.push((Rc::clone(parent), name.into(), false));
    }

    /// Remove everything recorded, newest first.
    pub(crate) fn rollback(self) {
        for (parent, name, is_dir) in self.made.into_iter().rev() {
            let _ = if is_dir {
                parent.remove_dir(&name)
            } else {
                parent.remove_file(&name)
            };
        }
        remove_created(&self.root);
    }
}

/// A note's place: the folder handles from `notes/` down (outermost first) and its file
/// name (`<last segment>.md`).
pub(crate) struct Place {
    pub(crate) folders: Vec<Rc<Dir>>,
    pub(crate) file: String,
}

impl Place {
    /// The folder holding the note file.
    pub(crate) fn dir(&self) -> &Rc<Dir> {
        self.folders.last().expect("a place starts at notes/")
    }
}

/// The brain's handles for a change: the brain folder and its `notes/`, `tmp/`.
pub(crate) struct Opened {
    pub(crate) brain: Rc<Dir>,
    pub(crate) notes: Rc<Dir>,
    pub(crate) tmp: Rc<Dir>,
}

impl Brain {
    /// The brain folder, `None` when it does not exist yet.
    pub(crate) fn open_brain(&self) -> Result<Option<Dir>, NotesError> {
        let root = match Dir::open(&self.root) {
            Ok(root) => root,
            Err(err) if err.is_not_found() => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let Some(brains) = root.open_dir("brains")? else {
            return Ok(None);
        };
        Ok(brains.open_dir(&self.label)?)
    }

    /// The brain folder with `notes/`, `tmp/`, `trash/` and `domain`, created when missing
    /// (recorded in `undo`).
    pub(crate) fn create_brain(&self, undo: &mut Undo) -> Result<Opened, NotesError> {
        let (root, created) = Dir::create_all(&self.root)?;
        undo.root = created;
        let root = Rc::new(root);
        let brains = undo.dir(&root, "brains")?;
        let brain = undo.dir(&brains, &self.label)?;
        let notes = undo.dir(&brain, "notes")?;
        let tmp = undo.dir(&brain, "tmp")?;
        undo.dir(&brain, "trash")?;
        if brain.metadata("domain")?.is_none() {
            // The path's own bytes (a folder's name need not be UTF-8), then a newline.
            let mut line = self.domain.as_os_str().as_encoded_bytes().to_vec();
            line.push(b'\n');
            match brain.create_new("domain", &line) {
                Ok(()) => undo.file(&brain, "domain"),
                // Written by a concurrent first write: theirs is the same line.
                Err(err) if err.io_kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(err.into()),
            }
        }
        Ok(Opened { brain, notes, tmp })
    }

    /// The place of note `name` under `notes`, `None` when a folder of it does not exist;
    /// a link or a file where a folder belongs is refused naming the note.
    pub(crate) fn find(notes: Rc<Dir>, name: &str) -> Result<Option<Place>, NotesError> {
        let (folders, file) = split(name);
        let mut place = Place {
            folders: vec![notes],
            file,
        };
        for seg in folders {
            match place.dir().open_dir(seg).map_err(in_name(name))? {
                Some(dir) => place.folders.push(Rc::new(dir)),
                None => return Ok(None),
            }
        }
        Ok(Some(place))
    }

    /// The place of note `name` under `notes`, its folders created (recorded in `undo`).
    pub(crate) fn make_place(
        notes: &Rc<Dir>,
        name: &str,
        undo: &mut Undo,
    ) -> Result<Place, NotesError> {
        let (folders, file) = split(name);
        let mut place = Place {
            folders: vec![Rc::clone(notes)],
            file,
        };
        for seg in folders {
            let dir = undo.dir(place.dir(), seg).map_err(|err| match err {
                NotesError::File(fs) => in_name(name)(fs),
                other => other,
            })?;
            place.folders.push(dir);
        }
        Ok(place)
    }

    /// The text of note `name` and its modification time, `None` when it does not exist.
    pub(crate) fn read_at(notes: Rc<Dir>, name: &str) -> Result<Option<(String, u64)>, NotesError> {
        match Self::find(notes, name)? {
            Some(place) => read_note(place.dir(), &place.file).map_err(|err| match err {
                NotesError::File(fs) => in_name(name)(fs),
                other => other,
            }),
            None => Ok(None),
        }
    }

    /// `notes/` of an existing brain, `None` when there is none yet.
    pub(crate) fn open_notes(&self) -> Result<Option<Rc<Dir>>, NotesError> {
        let Some(brain) = self.open_brain()? else {
            return Ok(None);
        };
        Ok(brain.open_dir("notes")?.map(Rc::new))
    }

    /// Every note under `dir` (whose names start with `prefix`) into `out`.
    pub(crate) fn walk(dir: &Dir, prefix: &str, out: &mut Vec<NoteInfo>) -> Result<(), NotesError> {
        for entry in dir.entries()? {
            let Ok(file_name) = entry.name.into_string() else {
                continue;
            };
            match entry.kind {
                Kind::Dir => {
                    let sub = format!("{prefix}{file_name}");
                    if check_name(&sub).is_err() {
                        continue;
                    }
                    match dir.open_dir(&file_name) {
                        Ok(Some(inner)) => Self::walk(&inner, &format!("{sub}/"), out)?,
                        // Gone, or swapped for a link since the listing: not followed.
                        Ok(None) | Err(FsError::Link { .. } | FsError::NotDir { .. }) => {}
                        Err(err) => return Err(err.into()),
                    }
                }
                Kind::File => {
                    let Some(stem) = file_name.strip_suffix(".md") else {
                        continue;
                    };
                    let name = format!("{prefix}{stem}");
                    if check_name(&name).is_err() {
                        continue;
                    }
                    let (text, updated) = match read_note(dir, &file_name) {
                        Ok(Some(note)) => note,
                        // Vanished since the listing: a concurrent delete.
                        Ok(None) => continue,
                        // Not UTF-8, too large, swapped for a link or a FIFO: not a note this
                        // store wrote; `read` names the problem.
                        Err(NotesError::Io { source, .. })
                            if source.kind() == std::io::ErrorKind::InvalidData =>
                        {
                            continue;
                        }
                        Err(NotesError::File(err)) if err.refusal_code().is_some() => continue,
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
                // Links and special files are never notes.
                _ => {}
            }
        }
        Ok(())
    }

    /// Remove temp files left by killed writers. Only called under the lock, when no write
    /// is in flight. Failures are harmless (a leftover is retried next time).
    pub(crate) fn clean_tmp(tmp: &Dir) {
        if let Ok(entries) = tmp.entries() {
            for entry in entries.into_iter().filter(|e| e.kind != Kind::Dir) {
                let _ = tmp.remove_file(&entry.name);
            }
        }
    }

    /// Keep the newest [`TRASH_KEEP`] trash entries, none older than [`TRASH_DAYS`].
    pub(crate) fn prune_trash(trash: &Dir, now: SystemTime) {
        let Ok(entries) = trash.entries() else {
            return;
        };
        let mut stamped: Vec<(u128, OsString)> = entries
            .into_iter()
            .filter(|e| e.kind == Kind::File)
            .filter_map(|e| {
                let millis = e.name.to_str()?.split('~').next()?.parse().ok()?;
                Some((millis, e.name))
            })
            .collect();
        stamped.sort_by_key(|s| std::cmp::Reverse(s.0));
        let now_ms = millis(now);
        let max_age = Duration::from_secs(TRASH_DAYS * 86_400).as_millis();
        for (i, (stamp, name)) in stamped.iter().enumerate() {
            if i >= TRASH_KEEP || now_ms.saturating_sub(*stamp) > max_age {
                let _ = trash.remove_file(name);
            }
        }
    }

    /// A free trash entry name for `name` deleted at `now` (the next free millisecond when
    /// taken). Only called under the lock.
    pub(crate) fn trash_slot(
        trash: &Dir,
        name: &str,
        now: SystemTime,
    ) -> Result<String, NotesError> {
        let mut stamp = millis(now);
        let flat = name.replace('/', "~");
        loop {
            let slot = format!("{stamp:013}~{flat}.md");
            if trash.metadata(&slot)?.is_none() {
                return Ok(slot);
            }
            stamp += 1;
        }
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn millis(at: SystemTime) -> u128 {
    at.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis()
}

/// A note name's folders and its file name.
fn split(name: &str) -> (Vec<&str>, String) {
    let mut segs: Vec<&str> = name.split('/').collect();
    let last = segs.pop().unwrap_or_default();
    (segs, format!("{last}.md"))
}

/// A refusal met on the way to note `name`: a link or a misplaced kind is the name's fault.
fn in_name(name: &str) -> impl Fn(FsError) -> NotesError + '_ {
    move |err| match &err {
        FsError::Link { path } => NotesError::bad_name(
            name,
            format!("`{}` is a symlink; symlinks are refused", path.display()),
        ),
        FsError::NotDir { path, .. } => {
            NotesError::bad_name(name, format!("`{}` is not a folder", path.display()))
        }
        FsError::NotRegular {
            path,
            kind: "a folder",
        } => NotesError::bad_name(name, format!("`{}` is not a note file", path.display())),
        _ => err.into(),
    }
}

/// A note's text and modification time from `dir`, `None` when it does not exist: a
/// regular file only (a link, a FIFO, a device refused on the open handle), at most
/// [`NOTE_FILE_MAX_BYTES`], UTF-8.
pub(crate) fn read_note(dir: &Dir, file: &str) -> Result<Option<(String, u64)>, NotesError> {
    let Some((mut handle, meta)) = dir.open_file(file)? else {
        return Ok(None);
    };
    let path = dir.child_path(file);
    let bytes = notesoup_safe_fs::read_capped(&mut handle, meta.len, NOTE_FILE_MAX_BYTES, &path)?;
    let updated = meta
        .modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let text = String::from_utf8(bytes).map_err(|err| {
        NotesError::io("read", &path)(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
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
