//! notesoup's one way to open files: directory handles, and every open relative to one.
//!
//! The notes store, the window records and the history readers all meet files that a
//! hostile model, a confused person or another program may have replaced with a link, a
//! FIFO, a device or a file far larger than any notesoup writes. This crate is where those
//! are refused, once. A [`Dir`] is an open folder; [`Dir::open_dir`], [`Dir::open_file`],
//! [`Dir::create_dir`] and the rest take one plain name and open it relative to that
//! handle.
//!
//! # Invariants
//!
//! - **No link is followed** below the folder a caller configured: every name is opened
//!   with `O_NOFOLLOW` (and `O_DIRECTORY` for folders), so a link is refused
//!   ([`FsError::Link`]), never resolved. Only [`Dir::open`] and [`open_regular`], which
//!   take the path a person configured (a notesoup home, a harness's transcript), resolve
//!   the links in it.
//! - **Regular files only, checked on the open handle** (`fstat`), so nothing can be
//!   swapped in between a check and the open ([`FsError::NotRegular`]).
//! - **Nothing blocks:** files are opened with `O_NONBLOCK`, so a FIFO or a device in a
//!   file's place is refused at once instead of hanging the process.
//! - **Reads are bounded:** [`read_capped`] refuses a file over its limit
//!   ([`FsError::TooLarge`]) after reading at most one byte past it.
//! - **A replace is atomic:** [`Dir::replace`] writes a temp file (created with `O_EXCL`),
//!   syncs it, renames it over the target and syncs the folder; on any failure (including
//!   `ENOSPC`, `EROFS`, `EDQUOT`) it removes the temp file, so a refusal changes nothing.
//! - Every error is an [`FsError`] naming the path, a hostile name clipped.
//!
//! # Why rustix
//!
//! Built on [`rustix`]'s `openat` family: it gives the exact flags (`O_NOFOLLOW`,
//! `O_DIRECTORY`, `O_NONBLOCK`, `O_EXCL`, `AT_SYMLINK_NOFOLLOW`) with no `unsafe` in our
//! code. `cap-std` was the other candidate; it resolves links that stay inside the
//! directory, which is not "never follow a link", and hides the flags this crate exists to
//! choose.
//!
//! ```
//! use notesoup_safe_fs::{Dir, FsError};
//!
//! # fn main() -> Result<(), FsError> {
//! # let tmp = std::env::temp_dir().join(format!("notesoup-safe-fs-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&tmp);
//! let (root, _created) = Dir::create_all(&tmp)?;
//! let (notes, _) = root.create_dir("notes")?;
//! notes.replace("today.md", b"1. fix the parser\n")?;
//! assert_eq!(notes.read("today.md", 1024)?.as_deref(), Some(&b"1. fix the parser\n"[..]));
//!
//! // A link in the store's place is refused, never followed.
//! std::os::unix::fs::symlink("/etc", tmp.join("elsewhere")).unwrap();
//! assert!(matches!(root.open_dir("elsewhere"), Err(FsError::Link { .. })));
//!
//! // A read over its limit is refused.
//! assert!(matches!(notes.read("today.md", 4), Err(FsError::TooLarge { .. })));
//! # std::fs::remove_dir_all(&tmp).unwrap();
//! # Ok(())
//! # }
//! ```

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, Stat};
use rustix::io::Errno;

mod error;

pub use error::FsError;

/// What a path is, as `lstat` sees it (a link is a link, never what it points to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Symlink,
    /// Anything else: a FIFO, a device, a socket.
    Special,
}

/// A file's kind, size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// What it is.
    pub kind: Kind,
    /// Its size in bytes.
    pub len: u64,
    /// The bytes the file system gives it on disk (its blocks, as `du` counts them).
    pub allocated: u64,
    /// When its content last changed.
    pub modified: SystemTime,
}

impl Meta {
    fn of(stat: &Stat) -> Self {
        let kind = match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Special,
        };
        let secs = u64::try_from(stat.st_mtime).unwrap_or(0);
        let nanos = u32::try_from(stat.st_mtime_nsec).unwrap_or(0);
        Self {
            kind,
            len: u64::try_from(stat.st_size).unwrap_or(0),
            // st_blocks counts 512-byte units on every Unix (POSIX leaves the unit open;
            // Linux, the BSDs and macOS use 512).
            allocated: u64::try_from(stat.st_blocks)
                .unwrap_or(0)
                .saturating_mul(512),
            modified: UNIX_EPOCH + Duration::new(secs, nanos.min(999_999_999)),
        }
    }
}

/// One entry of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name in the folder.
    pub name: OsString,
    /// What it is (never resolved through a link).
    pub kind: Kind,
}

/// The mode of every folder this crate creates: its owner's alone (notes, flows, indexes
/// and copies of transcripts are nobody else's to read), as the XDG base directory spec
/// asks of a data folder it makes.
pub const NEW_DIR_MODE: u32 = 0o700;

/// An open folder: every operation takes one plain name and acts relative to this handle,
/// never following a link.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// An exclusive `flock` on a lock file of a [`Dir`] ([`Dir::lock_file`]), released when
/// dropped (or when the process dies).
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.file, FlockOperation::Unlock);
    }
}

/// How often [`Dir::lock_file`] asks again while another holder keeps the lock.
const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// A lock file: opened or created for writing, never through a link, without blocking.
const LOCK_FLAGS: OFlags = OFlags::WRONLY
    .union(OFlags::CREATE)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NONBLOCK);

/// An exclusive `flock` on a [`Dir`], released when dropped (or when the process dies).
#[derive(Debug)]
pub struct DirLock<'a> {
    dir: &'a Dir,
}

impl Drop for DirLock<'_> {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.dir.fd, FlockOperation::Unlock);
    }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NONBLOCK);
const READ_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY);
/// A new file, never one already there (`O_EXCL`: a link included): temp files and
/// `create_new`.
const CREATE_FLAGS: OFlags = OFlags::WRONLY
    .union(OFlags::CREATE)
    .union(OFlags::EXCL)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NONBLOCK);

/// Temp file names made by this process: `<target>.<pid>.<n>.tmp`.
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

impl Dir {
    /// Open the folder at `path`, resolving any link in `path` itself: this is the path a
    /// person configured (a notesoup home, a sessions folder). Everything opened through
    /// the returned handle is then opened without following links.
    pub fn open(path: &Path) -> Result<Self, FsError> {
        match rustix::fs::open(path, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => Ok(Self {
                fd,
                path: path.to_path_buf(),
            }),
            Err(Errno::NOTDIR) => Err(FsError::NotDir {
                path: path.to_path_buf(),
                kind: std::fs::metadata(path)
                    .map_or("not a folder", |m| kind_name(m.file_type().into())),
            }),
            Err(err) => Err(FsError::io("open the folder", path.to_path_buf(), err)),
        }
    }

    /// Open the folder at `path`, creating it and its missing parents first, each private
    /// ([`NEW_DIR_MODE`]). Returns the folders this call created, outermost first, so a
    /// caller whose later step fails can remove them again with [`remove_created`].
    pub fn create_all(path: &Path) -> Result<(Self, Vec<PathBuf>), FsError> {
        let mut missing: Vec<&Path> = path
            .ancestors()
            .take_while(|p| !p.as_os_str().is_empty() && p.symlink_metadata().is_err())
            .collect();
        missing.reverse();
        let mut created = Vec::new();
        for dir in missing {
            let made = {
                use std::os::unix::fs::DirBuilderExt as _;
                std::fs::DirBuilder::new().mode(NEW_DIR_MODE).create(dir)
            };
            match made {
                Ok(()) => created.push(dir.to_path_buf()),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(err) => {
                    remove_created(&created);
                    return Err(FsError::io("create the folder", dir.to_path_buf(), err));
                }
            }
        }
        match Self::open(path) {
            Ok(dir) => Ok((dir, created)),
            Err(err) => {
                remove_created(&created);
                Err(err)
            }
        }
    }

    /// The path this handle was opened at (for messages; operations use the handle).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` in this folder (for messages).
    pub fn child_path(&self, name: impl AsRef<OsStr>) -> PathBuf {
        self.path.join(name.as_ref())
    }

    /// The sub-folder `name`, `None` when it does not exist; a link is [`FsError::Link`],
    /// anything else [`FsError::NotDir`].
    pub fn open_dir(&self, name: impl AsRef<OsStr>) -> Result<Option<Self>, FsError> {
        let name = check(name.as_ref())?;
        match rustix::fs::openat(&self.fd, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => Ok(Some(Self {
                fd,
                path: self.child_path(name),
            })),
            Err(Errno::NOENT) => Ok(None),
            Err(err @ (Errno::LOOP | Errno::NOTDIR)) => Err(self.misfit(name, err, true)),
            Err(err) => Err(FsError::io("open the folder", self.child_path(name), err)),
        }
    }

    /// The sub-folder `name`, created (private: [`NEW_DIR_MODE`]) when missing; the flag
    /// says whether this call created it.
    pub fn create_dir(&self, name: impl AsRef<OsStr>) -> Result<(Self, bool), FsError> {
        let name = check(name.as_ref())?;
        let created = match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(NEW_DIR_MODE)) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(err) => return Err(FsError::io("create the folder", self.child_path(name), err)),
        };
        match self.open_dir(name)? {
            Some(dir) => Ok((dir, created)),
            None => Err(FsError::io(
                "open the folder",
                self.child_path(name),
                Errno::NOENT,
            )),
        }
    }

    /// The regular file `name`, open for reading, `None` when it does not exist. Opened
    /// without following a link and without blocking; anything but a regular file is
    /// refused, checked on the open handle.
    pub fn open_file(&self, name: impl AsRef<OsStr>) -> Result<Option<(File, Meta)>, FsError> {
        let name = check(name.as_ref())?;
        match rustix::fs::openat(&self.fd, name, READ_FLAGS, Mode::empty()) {
            Ok(fd) => regular(fd, self.child_path(name)).map(Some),
            Err(Errno::NOENT) => Ok(None),
            Err(err @ Errno::LOOP) => Err(self.misfit(name, err, false)),
            Err(err) => Err(FsError::io("open", self.child_path(name), err)),
        }
    }

    /// The whole content of the regular file `name` (see [`Dir::open_file`]), `None` when
    /// it does not exist; over `limit` bytes is [`FsError::TooLarge`].
    pub fn read(&self, name: impl AsRef<OsStr>, limit: u64) -> Result<Option<Vec<u8>>, FsError> {
        let name = name.as_ref();
        let Some((mut file, meta)) = self.open_file(name)? else {
            return Ok(None);
        };
        read_capped(&mut file, meta.len, limit, &self.child_path(name)).map(Some)
    }

    /// What `name` is, without following a link; `None` when it does not exist.
    pub fn metadata(&self, name: impl AsRef<OsStr>) -> Result<Option<Meta>, FsError> {
        let name = check(name.as_ref())?;
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(Meta::of(&stat))),
            Err(Errno::NOENT) => Ok(None),
            Err(err) => Err(FsError::io("inspect", self.child_path(name), err)),
        }
    }

    /// This folder's entries (without `.` and `..`), in the order the system gives them.
    pub fn entries(&self) -> Result<Vec<Entry>, FsError> {
        let listing = rustix::fs::Dir::read_from(&self.fd)
            .map_err(|err| FsError::io("list", self.path.clone(), err))?;
        let mut out = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|err| FsError::io("list", self.path.clone(), err))?;
            let bytes = entry.file_name().to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            let name = OsStr::from_bytes(bytes).to_os_string();
            let kind = match entry.file_type() {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                FileType::Symlink => Kind::Symlink,
                FileType::Unknown => match self.metadata(&name) {
                    Ok(Some(meta)) => meta.kind,
                    // Gone since the listing: skip it.
                    Ok(None) => continue,
                    Err(err) => return Err(err),
                },
                _ => Kind::Special,
            };
            out.push(Entry { name, kind });
        }
        Ok(out)
    }

    /// Replace (or create) the file `name` with `bytes` atomically, the temp file in this
    /// same folder. See [`Dir::replace_via`].
    pub fn replace(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), FsError> {
        self.replace_via(self, name, bytes)
    }

    /// Replace (or create) the file `name` in this folder with `bytes` atomically: write a
    /// new temp file in `tmp` (on the same filesystem), sync it, rename it over `name`,
    /// sync this folder. A reader, or a crash at any instant, sees the old content or the
    /// new. On any failure the temp file is removed, so a refusal changes nothing. A link
    /// or a folder at `name` is refused, not replaced.
    pub fn replace_via(
        &self,
        tmp: &Dir,
        name: impl AsRef<OsStr>,
        bytes: &[u8],
    ) -> Result<(), FsError> {
        self.stage(tmp, name.as_ref(), |file| {
            file.write_all(bytes)?;
            file.sync_all()
        })?;
        self.sync()
    }

    /// Replace (or create) the file `name` in this folder with what `write` writes,
    /// streamed into a new temp file in this folder (`O_EXCL`, named as
    /// [`temp_target`] reads) and renamed over `name`, so a reader sees the whole old
    /// content or the whole new. On any failure, `write`'s included, the temp file is
    /// removed. A link or a folder at `name` is refused, not replaced. Nothing is synced
    /// to disk: for a cache whose reader checks what it reads (a crash may leave the old
    /// content, or a new one a checksum refuses); use [`Dir::replace`] for data.
    pub fn replace_with(
        &self,
        name: impl AsRef<OsStr>,
        write: impl FnOnce(&mut File) -> std::io::Result<()>,
    ) -> Result<(), FsError> {
        self.stage(self, name.as_ref(), write)
    }

    /// Writes a temp file in `tmp` with `write` and renames it over `name` in this folder;
    /// the temp file is removed on any failure.
    fn stage(
        &self,
        tmp: &Dir,
        name: &OsStr,
        write: impl FnOnce(&mut File) -> std::io::Result<()>,
    ) -> Result<(), FsError> {
        let name = check(name)?;
        match self.metadata(name)? {
            Some(Meta {
                kind: Kind::Symlink,
                ..
            }) => {
                return Err(FsError::Link {
                    path: self.child_path(name),
                });
            }
            Some(meta) if meta.kind != Kind::File => {
                return Err(FsError::NotRegular {
                    path: self.child_path(name),
                    kind: kind_name(meta.kind),
                });
            }
            _ => {}
        }
        let (mut staged, staged_name) = tmp.create_temp(name)?;
        let done = write(&mut staged)
            .map_err(|err| FsError::io("write", tmp.child_path(&staged_name), err))
            .and_then(|()| {
                drop(staged);
                rustix::fs::renameat(&tmp.fd, &staged_name, &self.fd, name)
                    .map_err(|err| FsError::io("replace", self.child_path(name), err))
            });
        if let Err(err) = done {
            let _ = rustix::fs::unlinkat(&tmp.fd, &staged_name, AtFlags::empty());
            return Err(err);
        }
        Ok(())
    }

    /// A new, empty file with a fresh name derived from `target`, created with `O_EXCL`
    /// (so nothing already there, a link included, is ever opened).
    fn create_temp(&self, target: &OsStr) -> Result<(File, OsString), FsError> {
        loop {
            let seq = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
            let mut temp = OsString::from(".");
            temp.push(target);
            temp.push(format!(".{}.{seq}.tmp", std::process::id()));
            match rustix::fs::openat(&self.fd, &temp, CREATE_FLAGS, Mode::from_raw_mode(0o666)) {
                Ok(fd) => return Ok((File::from(fd), temp)),
                Err(Errno::EXIST) => {}
                Err(err) => {
                    return Err(FsError::io(
                        "create a temp file",
                        self.child_path(&temp),
                        err,
                    ));
                }
            }
        }
    }

    /// Create the file `name` with `bytes`, refusing when anything (a link included)
    /// already has that name (`O_EXCL`); on a failed write the new file is removed.
    pub fn create_new(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), FsError> {
        let name = check(name.as_ref())?;
        let fd = rustix::fs::openat(&self.fd, name, CREATE_FLAGS, Mode::from_raw_mode(0o666))
            .map_err(|err| FsError::io("create", self.child_path(name), err))?;
        if let Err(err) = write_all_synced(File::from(fd), bytes) {
            let _ = rustix::fs::unlinkat(&self.fd, name, AtFlags::empty());
            return Err(FsError::io("write", self.child_path(name), err));
        }
        self.sync()
    }

    /// Sets the modification time of the regular file `name` to the kernel's now, creating
    /// it empty (`O_EXCL`) when it does not exist. Nothing is written and no temp file is
    /// made, so a process killed meanwhile leaves nothing behind. A link or anything but a
    /// regular file in its place is refused, never written through.
    pub fn touch(&self, name: impl AsRef<OsStr>) -> Result<(), FsError> {
        let name = check(name.as_ref())?;
        let fd = match self.open_file(name)? {
            Some((file, _)) => OwnedFd::from(file),
            None => {
                match rustix::fs::openat(&self.fd, name, CREATE_FLAGS, Mode::from_raw_mode(0o666)) {
                    Ok(fd) => fd,
                    // Made meanwhile by another: set its time.
                    Err(Errno::EXIST) => match self.open_file(name)? {
                        Some((file, _)) => OwnedFd::from(file),
                        None => {
                            return Err(FsError::io("touch", self.child_path(name), Errno::NOENT));
                        }
                    },
                    Err(err) => return Err(FsError::io("create", self.child_path(name), err)),
                }
            }
        };
        let now = rustix::fs::Timespec {
            tv_sec: 0,
            tv_nsec: rustix::fs::UTIME_NOW,
        };
        let omit = rustix::fs::Timespec {
            tv_sec: 0,
            tv_nsec: rustix::fs::UTIME_OMIT,
        };
        let times = rustix::fs::Timestamps {
            last_access: omit,
            last_modification: now,
        };
        rustix::fs::futimens(&fd, &times)
            .map_err(|err| FsError::io("touch", self.child_path(name), err))
    }

    /// Remove the file (or link) `name`; `false` when it did not exist. Never follows a
    /// link: a link is removed itself.
    pub fn remove_file(&self, name: impl AsRef<OsStr>) -> Result<bool, FsError> {
        let name = check(name.as_ref())?;
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(err) => Err(FsError::io("remove", self.child_path(name), err)),
        }
    }

    /// Remove the empty folder `name`; `false` when it did not exist.
    pub fn remove_dir(&self, name: impl AsRef<OsStr>) -> Result<bool, FsError> {
        let name = check(name.as_ref())?;
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(err) => Err(FsError::io("remove the folder", self.child_path(name), err)),
        }
    }

    /// Rename `from` in this folder to `to` in folder `to_dir` (same filesystem), replacing
    /// a file already there. Links are moved as links, never followed.
    pub fn rename(
        &self,
        from: impl AsRef<OsStr>,
        to_dir: &Dir,
        to: impl AsRef<OsStr>,
    ) -> Result<(), FsError> {
        let (from, to) = (check(from.as_ref())?, check(to.as_ref())?);
        rustix::fs::renameat(&self.fd, from, &to_dir.fd, to)
            .map_err(|err| FsError::io("move", self.child_path(from), err))
    }

    /// Flush this folder's entries to disk (after a create, rename or remove in it).
    pub fn sync(&self) -> Result<(), FsError> {
        rustix::fs::fsync(&self.fd).map_err(|err| FsError::io("sync", self.path.clone(), err))
    }

    /// Take an exclusive `flock` on this folder, waiting for other holders; released when
    /// the guard drops or the process dies (so no stale lock is ever left behind).
    pub fn lock(&self) -> Result<DirLock<'_>, FsError> {
        rustix::fs::flock(&self.fd, FlockOperation::LockExclusive)
            .map_err(|err| FsError::io("lock", self.path.clone(), err))?;
        Ok(DirLock { dir: self })
    }

    /// Take an exclusive `flock` on this folder, waiting at most `wait` for another holder:
    /// past it, [`FsError::Busy`], so a stopped or hung holder costs a bounded wait, never a
    /// hang. Released when the guard drops or the process dies.
    pub fn lock_within(&self, wait: std::time::Duration) -> Result<DirLock<'_>, FsError> {
        let start = std::time::Instant::now();
        loop {
            match rustix::fs::flock(&self.fd, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(DirLock { dir: self }),
                Err(Errno::WOULDBLOCK | Errno::INTR) => {}
                Err(err) => return Err(FsError::io("lock", self.path.clone(), err)),
            }
            let waited = start.elapsed();
            if waited >= wait {
                return Err(FsError::Busy {
                    path: self.path.clone(),
                    waited,
                });
            }
            std::thread::sleep(LOCK_POLL.min(wait.saturating_sub(waited)));
        }
    }

    /// Take an exclusive `flock` on the lock file `name` (created empty when missing, a
    /// regular file never reached through a link), waiting at most `wait` for another
    /// holder: past it, [`FsError::Busy`], so a stopped or hung holder costs a bounded wait,
    /// never a hang. Released when the guard drops or the process dies. A lock taken on a
    /// file whose name was removed (or replaced) meanwhile is not kept: the name is opened
    /// and locked again, so a holder that removes the lock file's name before it lets go
    /// never leaves two holders.
    pub fn lock_file(
        &self,
        name: impl AsRef<OsStr>,
        wait: std::time::Duration,
    ) -> Result<FileLock, FsError> {
        let name = check(name.as_ref())?;
        let path = self.child_path(name);
        let start = std::time::Instant::now();
        'open: loop {
            let fd =
                match rustix::fs::openat(&self.fd, name, LOCK_FLAGS, Mode::from_raw_mode(0o600)) {
                    Ok(fd) => fd,
                    Err(err @ Errno::LOOP) => return Err(self.misfit(name, err, false)),
                    Err(err) => return Err(FsError::io("open", path, err)),
                };
            let (file, _) = regular(fd, path.clone())?;
            loop {
                match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
                    // The name was removed (or replaced) while this call waited: the lock is
                    // on a file nobody else will open again, so it is taken on the name anew.
                    Ok(()) if !self.names(name, &file) => {
                        let _ = rustix::fs::flock(&file, FlockOperation::Unlock);
                        let waited = start.elapsed();
                        if waited >= wait {
                            return Err(FsError::Busy { path, waited });
                        }
                        continue 'open;
                    }
                    Ok(()) => {
                        // Its time says when it was last held: a lock file untouched for long
                        // is an ended session's, and upkeep may remove it.
                        let _ = file.set_modified(std::time::SystemTime::now());
                        return Ok(FileLock { file });
                    }
                    Err(Errno::WOULDBLOCK | Errno::INTR) => {}
                    Err(err) => return Err(FsError::io("lock", path, err)),
                }
                let waited = start.elapsed();
                if waited >= wait {
                    return Err(FsError::Busy { path, waited });
                }
                std::thread::sleep(LOCK_POLL.min(wait.saturating_sub(waited)));
            }
        }
    }

    /// Whether `name` in this folder is still the open `file` (same device and inode).
    fn names(&self, name: &OsStr, file: &File) -> bool {
        let (Ok(named), Ok(open)) = (
            rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW),
            rustix::fs::fstat(file),
        ) else {
            return false;
        };
        (named.st_dev, named.st_ino) == (open.st_dev, open.st_ino)
    }

    /// Explain why `name` could not be opened as a folder (`want_dir`) or a file: it is a
    /// link, or something else than asked.
    fn misfit(&self, name: &OsStr, err: Errno, want_dir: bool) -> FsError {
        let path = self.child_path(name);
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if Meta::of(&stat).kind == Kind::Symlink => FsError::Link { path },
            Ok(stat) if want_dir => FsError::NotDir {
                path,
                kind: kind_name(Meta::of(&stat).kind),
            },
            _ => FsError::io("open", path, err),
        }
    }
}

impl AsFd for Dir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Open the regular file at `path` for reading, resolving links in `path` (a path a
/// harness or person named: a transcript, a session file), without blocking, and refusing
/// anything but a regular file, checked on the open handle.
pub fn open_regular(path: &Path) -> Result<(File, Meta), FsError> {
    let flags = READ_FLAGS.difference(OFlags::NOFOLLOW);
    let fd = rustix::fs::open(path, flags, Mode::empty())
        .map_err(|err| FsError::io("open", path.to_path_buf(), err))?;
    regular(fd, path.to_path_buf())
}

/// Read all of `file` (whose size the caller saw as `hint`), refusing more than `limit`
/// bytes with [`FsError::TooLarge`]: at once when `hint` is over it, else after reading at
/// most `limit + 1` (a file that grows while read).
pub fn read_capped(
    file: &mut File,
    hint: u64,
    limit: u64,
    path: &Path,
) -> Result<Vec<u8>, FsError> {
    if hint > limit {
        // The size the caller saw is already over: refused without reading.
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    let mut out = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|err| FsError::io("read", path.to_path_buf(), err))?;
    if out.len() as u64 > limit {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(out)
}

/// Remove folders a failed step created (as [`Dir::create_all`] reports them), innermost
/// first; a folder that is no longer empty stays.
pub fn remove_created(created: &[PathBuf]) {
    for dir in created.iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Check an opened descriptor is a regular file.
fn regular(fd: OwnedFd, path: PathBuf) -> Result<(File, Meta), FsError> {
    let stat = rustix::fs::fstat(&fd).map_err(|err| FsError::io("inspect", path.clone(), err))?;
    let meta = Meta::of(&stat);
    if meta.kind != Kind::File {
        return Err(FsError::NotRegular {
            path,
            kind: special_name(&stat),
        });
    }
    Ok((File::from(fd), meta))
}

fn write_all_synced(mut file: File, bytes: &[u8]) -> std::io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()
}

/// The target and the writer's process id of a temp file name this crate makes
/// (`.<target>.<pid>.<n>.tmp`, see [`Dir::replace`]), `None` for any other name. A writer
/// killed mid-write leaves one behind: its owner can tell it by this, e.g. to sweep it.
///
/// ```
/// use std::ffi::OsStr;
/// use notesoup_safe_fs::temp_target;
///
/// assert_eq!(temp_target(OsStr::new(".s1.json.4242.7.tmp")), Some((OsStr::new("s1.json"), 4242)));
/// assert_eq!(temp_target(OsStr::new("s1.json")), None);
/// assert_eq!(temp_target(OsStr::new(".s1.json.x.7.tmp")), None);
/// ```
pub fn temp_target(name: &OsStr) -> Option<(&OsStr, u32)> {
    let rest = name.as_bytes().strip_prefix(b".")?.strip_suffix(b".tmp")?;
    let last_dot = |b: &[u8]| b.iter().rposition(|c| *c == b'.');
    let at = last_dot(rest)?;
    let (rest, seq) = (&rest[..at], &rest[at + 1..]);
    let at = last_dot(rest)?;
    let (target, pid) = (&rest[..at], &rest[at + 1..]);
    let digits = |b: &[u8]| !b.is_empty() && b.iter().all(u8::is_ascii_digit);
    if target.is_empty() || !digits(seq) || !digits(pid) {
        return None;
    }
    let pid = std::str::from_utf8(pid).ok()?.parse().ok()?;
    Some((OsStr::from_bytes(target), pid))
}

/// `name` as one plain path component, or [`FsError::BadName`].
fn check(name: &OsStr) -> Result<&OsStr, FsError> {
    let bytes = name.as_bytes();
    let reason = if bytes.is_empty() {
        "empty"
    } else if bytes == b"." || bytes == b".." {
        "`.` and `..` are refused"
    } else if bytes.contains(&b'/') {
        "a `/` in a name; open each folder in turn"
    } else if bytes.contains(&0) {
        "a NUL byte"
    } else if bytes.len() > 255 {
        "longer than 255 bytes"
    } else {
        return Ok(name);
    };
    Err(FsError::bad_name(&name.to_string_lossy(), reason))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "a regular file",
        Kind::Dir => "a folder",
        Kind::Symlink => "a symbolic link",
        Kind::Special => "a special file",
    }
}

/// The precise name of a special file's kind (`a FIFO`, `a character device`, ...).
fn special_name(stat: &Stat) -> &'static str {
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Fifo => "a FIFO",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Socket => "a socket",
        FileType::Directory => "a folder",
        _ => "a special file",
    }
}

impl From<std::fs::FileType> for Kind {
    fn from(kind: std::fs::FileType) -> Self {
        if kind.is_file() {
            Self::File
        } else if kind.is_dir() {
            Self::Dir
        } else if kind.is_symlink() {
            Self::Symlink
        } else {
            Self::Special
        }
    }
}

#[cfg(test)]
mod tests;
