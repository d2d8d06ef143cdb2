//! notesoup's history vault: a compressed copy of every session file notesoup reads, kept
//! after the harness deletes the original (Claude Code removes transcripts older than
//! `cleanupPeriodDays`, 30 by default).
//!
//! A session's copy grows as its file does: each [`Vault::keep`] compresses only the bytes
//! added since the last one into new pieces (zstd frames of at most [`PIECE_MAX`] raw
//! bytes) and records them; [`Vault::keep_up_to`] adds at most a budget per call (a hook's
//! share). A file rewritten (it no longer continues the kept bytes) is kept as a new
//! version, never merged into the old one; a file cut shorter that the kept bytes begin
//! with is not (the vault holds all of it already, and what was cut). [`Vault::read`] gives the newest version's bytes back,
//! exactly; [`Vault::reader`] gives them a piece at a time, each checked before it is given
//! (what a decoder that reads line by line holds is a piece, never the copy). [`Vault::forget`] removes a session for good and leaves a tombstone so a stale
//! original is not vaulted again.
//!
//! A vault opened [`Vault::describing`] also records, as it keeps a version, the [`Facts`]
//! a listing of sessions shows of it (its last recorded time, its start, folder and first
//! prompt), worked out from the original by whoever reads the harness's lines;
//! [`Vault::facts`] reads them back without decompressing the copy, and only when they
//! are of all the bytes the version holds (a version kept without them has none, until
//! [`Vault::fill_facts`] records them from the copy itself: a [`KeptCopy`] read a range at
//! a time, only the pieces that hold the range decompressed).
//!
//! ```
//! use notesoup_vault_store::Vault;
//!
//! let dir = std::env::temp_dir().join(format!("notesoup-vault-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let original = dir.join("s.jsonl");
//! std::fs::write(&original, "{\"a\":1}\n")?;
//! let vault = Vault::open(&dir.join("vault"))?;
//! vault.keep("claude", "s", &original)?;
//! std::fs::write(&original, "{\"a\":1}\n{\"b\":2}\n")?; // the transcript grew
//! let kept = vault.keep("claude", "s", &original)?;
//! assert_eq!((kept.version, kept.added), (1, 8));
//! std::fs::remove_file(&original)?; // the harness deleted it
//! assert_eq!(vault.read("claude", "s")?.unwrap(), b"{\"a\":1}\n{\"b\":2}\n");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # On disk
//!
//! ```text
//! <vault>/                        0700
//! ├── swept                       its time: when the hooks last swept every session in
//! └── <harness>/                  claude, pi, codex
//!     ├── <id>/                   one session; flocked while it changes
//!     │   ├── v<N>.record         "notesoup-vault 2", then "<raw bytes> <dev>:<inode>" of
//!     │   │                       the original, then one "<raw> <stored> <xxh64>" per piece
//!     │   ├── v<N>.<k>.zst        piece k of version N: one zstd frame
//!     │   └── v<N>.facts          "notesoup-vault-facts 1", the raw bytes they are of,
//!     │                           "last <ms>" (or "last -"), then "summary" and its
//!     │                           "started|cwd|prompt|parent <text>" (\\, \n, \r escaped),
//!     │                           then "xxh64 <hash of the lines before>" (not synced)
//!     └── <id>.forgotten          tombstone: never vaulted again
//! ```
//!
//! # Invariants
//!
//! - A version's bytes are read back exactly or refused ([`VaultError::Damaged`]): every
//!   piece's length and hash are checked, decompression is bounded by the piece's recorded
//!   size, and nothing past [`MAX_RAW`] is ever produced.
//! - Nothing is lost or duplicated: a piece is written whole before the record that names
//!   it replaces the old one (atomically), under the session folder's lock; a piece no
//!   record names (a killed writer's) is overwritten by the next keep, which also removes its
//!   temp files.
//! - A version's facts are used only when they are of all its bytes (the record's size),
//!   and are written after its record: facts of fewer bytes (an earlier notesoup's keep, a
//!   keep killed in between) or that do not parse are not used, never misread. They are
//!   a summary, never the copy: a read of the version still checks every piece.
//! - An original that no longer continues the kept bytes starts a new version; the old one
//!   stays until forgotten. A keep reads at most one piece of what it kept before: the
//!   last piece is checked when the original is the file it was kept from (same device and
//!   inode: transcripts are appended to), every piece when the file was replaced.
//! - Below the configured vault folder nothing is opened through a link, only regular
//!   files are read, nothing blocks (`notesoup-safe-fs`).

#![forbid(unsafe_code)]

mod error;
mod facts;
mod fill;
mod reader;
mod record;

use std::hash::Hasher as _;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use notesoup_safe_fs::{Dir, Kind};
use twox_hash::XxHash64;

pub use error::VaultError;
pub use facts::{Describe, Facts, Summary};
pub use fill::KeptCopy;
pub use reader::{Refusal, VaultReader};
use record::{Piece, Record};

/// The most raw bytes a version holds (4 GiB): over any transcript a harness writes (a
/// Claude transcript has no size cap of its own: the history readers read one of any size,
/// a line at a time), so a record claiming more is damaged. A copy is read a piece at a
/// time ([`Vault::reader`], [`Vault::check`]), never held whole for its size.
pub const MAX_RAW: u64 = 4 * 1024 * 1024 * 1024;
/// The zstd level of every piece.
pub const LEVEL: i32 = 3;
/// The file in the vault whose time says when a sweep last ran ([`Vault::mark_swept`]).
const SWEPT: &str = "swept";
/// The most raw bytes in one piece: a keep of more is cut into pieces of this size, so
/// checking that an original still continues what was kept reads at most one piece of it.
pub const PIECE_MAX: u64 = 4 * 1024 * 1024;

/// The vault folder.
#[derive(Debug, Clone)]
pub struct Vault {
    root: PathBuf,
    /// What works out a kept version's [`Facts`] (`None`: none are recorded).
    describe: Option<Describe>,
}

/// What one [`Vault::keep`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The version now newest (from 1).
    pub version: u32,
    /// Its raw bytes.
    pub raw: u64,
    /// Raw bytes this call added (0: the copy was up to date).
    pub added: u64,
    /// True when this call started the version (a new session, or a rewritten original).
    pub new_version: bool,
    /// Bytes of the original not kept yet ([`Vault::keep_up_to`] stopped at its budget).
    pub behind: u64,
    /// The original is shorter than the copy, which begins with its bytes: it was cut
    /// after it was kept. Nothing changed; the copy keeps what was cut.
    pub cut: bool,
}

impl Kept {
    /// A keep that added nothing to version `version` (of `raw` bytes), `behind` bytes of
    /// the original left for a later one.
    fn as_it_was(version: u32, raw: u64, behind: u64) -> Self {
        Self {
            version,
            raw,
            added: 0,
            new_version: false,
            behind,
            cut: false,
        }
    }
}

/// One vaulted session, as [`Vault::sessions`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vaulted {
    /// Its harness (`claude`, `pi`, `codex`).
    pub harness: String,
    /// Its id.
    pub id: String,
    /// How many versions are kept.
    pub versions: u32,
    /// The newest version's raw bytes.
    pub raw: u64,
    /// The bytes all its versions take on disk: its folder's and files' blocks, as `du`
    /// counts them.
    pub stored: u64,
    /// When its original was last written, as of the last keep that changed the copy.
    pub kept: std::time::SystemTime,
}

/// One vaulted session's newest version, as [`Vault::held`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// Its harness (`claude`, `pi`, `codex`).
    pub harness: String,
    /// Its id.
    pub id: String,
    /// Its newest version (from 1).
    pub version: u32,
    /// That version's raw bytes.
    pub raw: u64,
    /// Whether that version has a facts file (`v<N>.facts`), seen in the listing of its
    /// folder (not read: facts of fewer bytes than the record, or that do not parse, are
    /// not [`Vault::facts`]). A version without one was kept by an earlier notesoup.
    pub facts: bool,
}

impl Vault {
    /// The vault at `root`, created (0700) when missing.
    pub fn open(root: &Path) -> Result<Self, VaultError> {
        let (_, created) = Dir::create_all(root)?;
        if !created.is_empty() {
            set_private(root)?;
        }
        Ok(Self {
            root: root.to_path_buf(),
            describe: None,
        })
    }

    /// This vault, recording each version's [`Facts`] as `describe` works them out from
    /// the original whenever a keep changes the copy (and when a keep finds a copy up to
    /// date without them), so [`Vault::facts`] reads them without decompressing the copy.
    #[must_use]
    pub fn describing(mut self, describe: Describe) -> Self {
        self.describe = Some(describe);
        self
    }

    /// Brings the copy of `harness:id` up to date with `original`: the bytes added since
    /// the last keep become new pieces; an original that no longer continues the kept
    /// bytes becomes a new version. Refused for a forgotten session.
    pub fn keep(&self, harness: &str, id: &str, original: &Path) -> Result<Kept, VaultError> {
        self.keep_up_to(harness, id, original, 0..=MAX_RAW)
    }

    /// [`Vault::keep`] within `budget`: nothing is added while fewer than its start bytes
    /// are new (a copy kept in pieces too small compresses worse), and at most its end
    /// bytes, cut after the last whole line within it when the original holds more
    /// ([`Kept::behind`] says how much is left): what a hook calls, so no call pays for a
    /// large backlog at once. A new version is always started.
    pub fn keep_up_to(
        &self,
        harness: &str,
        id: &str,
        original: &Path,
        budget: std::ops::RangeInclusive<u64>,
    ) -> Result<Kept, VaultError> {
        self.keep_inner(harness, id, original, budget, false)
    }

    /// Keeps `original` whole as a new version of `harness:id`, whatever the vault held:
    /// what replaces a copy [`Vault::read`] refused as damaged while the original is
    /// still there (the damaged version stays until forgotten; it is never read again).
    pub fn renew(&self, harness: &str, id: &str, original: &Path) -> Result<Kept, VaultError> {
        self.keep_inner(harness, id, original, 0..=MAX_RAW, true)
    }

    fn keep_inner(
        &self,
        harness: &str,
        id: &str,
        original: &Path,
        budget: std::ops::RangeInclusive<u64>,
        renew: bool,
    ) -> Result<Kept, VaultError> {
        use std::os::unix::fs::MetadataExt as _;
        check_name(harness)?;
        check_name(id)?;
        let root = Dir::open(&self.root)?;
        let (folder, _) = root.create_dir(harness)?;
        if folder.metadata(format!("{id}.forgotten"))?.is_some() {
            return Err(VaultError::Forgotten {
                harness: harness.into(),
                id: id.into(),
            });
        }
        // The original first: a file that cannot be read leaves nothing behind.
        let (mut file, _) = notesoup_safe_fs::open_regular(original)?;
        let (session, _) = folder.create_dir(id)?;
        let _lock = session.lock()?;
        // Its size now, under the lock: another keep may have kept more meanwhile, and the
        // file only grew (a size taken before the lock would look like a shorter original).
        let meta = file.metadata().map_err(|source| io(original, source))?;
        let len = meta.len();
        let written = meta.modified().ok();
        let identity = Some((meta.dev(), meta.ino()));
        // Checked again under the lock: a forget that ran meanwhile wins.
        if folder.metadata(format!("{id}.forgotten"))?.is_some() {
            return Err(VaultError::Forgotten {
                harness: harness.into(),
                id: id.into(),
            });
        }
        if len > MAX_RAW {
            return Err(VaultError::TooLarge {
                path: original.to_path_buf(),
                bytes: len,
                limit: MAX_RAW,
            });
        }
        // A killed keeper's temp files: no writer of this session runs while the lock is held.
        for entry in session.entries()? {
            if entry.kind == Kind::File && notesoup_safe_fs::temp_target(&entry.name).is_some() {
                session.remove_file(&entry.name)?;
            }
        }
        let newest = newest_version(&session)?;
        let current = newest.and_then(|n| Record::load(&session, n).ok().map(|r| (n, r)));
        if !renew
            && let Some(kept) =
                self.cut_shorter(harness, id, current.as_ref(), (&mut file, len), original)?
        {
            return Ok(kept);
        }
        let (version, record, new_version) = match current {
            Some((n, record))
                if !renew
                    && len >= record.raw
                    && continues(&mut file, &record, identity, original)? =>
            {
                (n, record, false)
            }
            // A new session, a rewritten or shorter original, or a damaged record: a new
            // version from the original's first byte.
            _ => (newest.map_or(1, |n| n + 1), Record::default(), true),
        };
        let from = record.raw;
        if !new_version && len - from < *budget.start() {
            return Ok(Kept::as_it_was(version, from, len - from));
        }
        let to = len.min(from.saturating_add(*budget.end()));
        // Cut by the budget: up to the last whole line before it (as before, the whole
        // range when it holds no line end at all).
        let end = if to < len {
            last_line_end(&file, from, to).map_err(|source| io(original, source))?
        } else {
            to
        };
        if end == from && !new_version {
            self.describe_missing(&session, (harness, version, record.raw), original, &file);
            return Ok(Kept::as_it_was(version, record.raw, len - record.raw));
        }
        file.seek(SeekFrom::Start(from))
            .map_err(|source| io(original, source))?;
        let raw_before = record.raw;
        let record = Self::add_pieces(
            &session,
            version,
            record,
            (&mut file).take(end - from),
            original,
            identity,
        )?;
        self.describe(&session, (harness, version, record.raw), original, &file);
        stamp(&session, version, written);
        Ok(Kept {
            version,
            raw: record.raw,
            added: record.raw - raw_before,
            new_version,
            behind: len.saturating_sub(record.raw),
            cut: false,
        })
    }

    /// Writes what `bytes` gives as the next pieces of `version` (at most [`PIECE_MAX`]
    /// each, one held at a time: a copy of gigabytes is kept in a few MiB) and then the
    /// record naming them.
    fn add_pieces(
        session: &Dir,
        version: u32,
        mut record: Record,
        mut bytes: impl std::io::Read,
        original: &Path,
        file: Option<(u64, u64)>,
    ) -> Result<Record, VaultError> {
        let piece_max = usize::try_from(PIECE_MAX).unwrap_or(usize::MAX);
        let mut buf = Vec::with_capacity(piece_max);
        loop {
            buf.clear();
            (&mut bytes)
                .take(PIECE_MAX)
                .read_to_end(&mut buf)
                .map_err(|source| io(original, source))?;
            if buf.is_empty() {
                break;
            }
            let chunk = buf.as_slice();
            let name = format!("v{version}.{}.zst", record.pieces.len());
            let packed = zstd::bulk::compress(chunk, LEVEL).map_err(|source| VaultError::Zstd {
                path: session.child_path(&name),
                source,
            })?;
            // A piece of this name that no record names is a killed writer's: replaced.
            session.replace(&name, &packed)?;
            record.pieces.push(Piece {
                raw: chunk.len() as u64,
                stored: packed.len() as u64,
                hash: xxh64(chunk),
            });
            record.raw += chunk.len() as u64;
        }
        record.file = file;
        session.replace(format!("v{version}.record"), record.to_text().as_bytes())?;
        Ok(record)
    }

    /// Records the facts of `version` (its first `raw` bytes are `file`'s), when this vault
    /// works them out ([`Vault::describing`]). Best effort and not synced (they are a
    /// summary whose hash is checked): facts that cannot be written are not there, and a
    /// listing reads the copy instead.
    fn describe(
        &self,
        session: &Dir,
        (harness, version, raw): (&str, u32, u64),
        original: &Path,
        file: &std::fs::File,
    ) {
        if let Some(describe) = self.describe {
            facts::write(
                session,
                version,
                raw,
                &describe(harness, original, file, raw),
            );
        }
    }

    /// [`Vault::describe`] of a version kept up to date whose facts are not recorded (an
    /// earlier notesoup kept it): recorded now, from the original it continues.
    fn describe_missing(
        &self,
        session: &Dir,
        (harness, version, raw): (&str, u32, u64),
        original: &Path,
        file: &std::fs::File,
    ) {
        if self.describe.is_some() && facts::load(session, version, raw).is_none() {
            self.describe(session, (harness, version, raw), original, file);
        }
    }

    /// The [`Facts`] recorded for the newest version of `harness:id`, read without
    /// decompressing the copy; `None` when it is not vaulted or they are not recorded for all
    /// its bytes (it was kept by an earlier notesoup, or by a keep that recorded none). A
    /// record that does not parse is refused ([`VaultError::Damaged`]), as a read refuses it.
    pub fn facts(&self, harness: &str, id: &str) -> Result<Option<Facts>, VaultError> {
        let Some((session, version, record)) = self.newest(harness, id)? else {
            return Ok(None);
        };
        Ok(facts::load(&session, version, record.raw))
    }

    /// The newest version of `harness:id`'s bytes, exactly as kept; `None` when it is not
    /// vaulted. [`Vault::reader`] read to its end.
    pub fn read(&self, harness: &str, id: &str) -> Result<Option<Vec<u8>>, VaultError> {
        let Some(mut reader) = self.reader(harness, id)? else {
            return Ok(None);
        };
        // The record's size sizes the copy; a record claiming more than can be had is
        // refused as damaged, never an abort.
        let mut out = Vec::new();
        usize::try_from(reader.len())
            .ok()
            .and_then(|raw| out.try_reserve_exact(raw).ok())
            .ok_or_else(|| VaultError::Damaged {
                harness: harness.into(),
                id: id.into(),
                reason: format!("its record claims {} bytes", reader.len()),
            })?;
        if let Err(err) = reader.read_to_end(&mut out) {
            return Err(reader.take_failure().unwrap_or_else(|| VaultError::Zstd {
                path: self.path_of(harness, id),
                source: err,
            }));
        }
        Ok(Some(out))
    }

    /// Reads the newest version of `harness:id` through, a piece at a time, checking each
    /// ([`VaultError::Damaged`] when one does not hold what its record says); false when
    /// it is not vaulted.
    pub fn check(&self, harness: &str, id: &str) -> Result<bool, VaultError> {
        let Some(mut reader) = self.reader(harness, id)? else {
            return Ok(false);
        };
        match std::io::copy(&mut reader, &mut std::io::sink()) {
            Ok(_) => Ok(true),
            Err(err) => Err(reader.take_failure().unwrap_or_else(|| VaultError::Zstd {
                path: self.path_of(harness, id),
                source: err,
            })),
        }
    }

    /// The newest version of `harness:id`'s bytes as a reader that holds one piece at a
    /// time ([`VaultReader`]: each piece checked before its bytes are given); `None` when
    /// it is not vaulted.
    pub fn reader(&self, harness: &str, id: &str) -> Result<Option<VaultReader>, VaultError> {
        let Some((session, version, record)) = self.newest(harness, id)? else {
            return Ok(None);
        };
        Ok(Some(VaultReader::new(
            session, harness, id, version, record,
        )))
    }

    /// Every vaulted session, by harness then id.
    pub fn sessions(&self) -> Result<Vec<Vaulted>, VaultError> {
        Ok(self.list(true)?.into_iter().map(|(v, _)| v).collect())
    }

    /// Every vaulted session's newest version and its raw bytes, by harness then id: what a
    /// sweep compares the harnesses' files with. Unlike [`Vault::sessions`] no piece is
    /// looked at (only each session's newest record).
    pub fn held(&self) -> Result<Vec<Held>, VaultError> {
        Ok(self
            .list(false)?
            .into_iter()
            .map(|(v, facts)| Held {
                harness: v.harness,
                id: v.id,
                version: v.versions,
                raw: v.raw,
                facts,
            })
            .collect())
    }

    /// The listing, each session with whether its newest version has a facts file;
    /// `stored`: each session's pieces are looked at for their size on disk.
    fn list(&self, stored: bool) -> Result<Vec<(Vaulted, bool)>, VaultError> {
        let root = Dir::open(&self.root)?;
        let mut out = Vec::new();
        for harness in root.entries()? {
            let (Kind::Dir, Ok(harness_name)) = (harness.kind, harness.name.into_string()) else {
                continue;
            };
            let Some(folder) = root.open_dir(&harness_name)? else {
                continue;
            };
            each_session(&folder, &mut |id, session, version, kept, facts| {
                let raw = Record::load(session, version).map_or(0, |r| r.raw);
                // What its folder and files take on disk, as `du` counts them: a copy
                // of a small session takes a few blocks more than its compressed bytes.
                let stored = if stored {
                    let own = folder
                        .metadata(&id)
                        .ok()
                        .flatten()
                        .map_or(0, |m| m.allocated);
                    own + session
                        .entries()?
                        .iter()
                        .filter(|e| e.kind == Kind::File)
                        .filter_map(|e| session.metadata(&e.name).ok().flatten())
                        .map(|m| m.allocated)
                        .sum::<u64>()
                } else {
                    0
                };
                out.push((
                    Vaulted {
                        harness: harness_name.clone(),
                        id,
                        versions: version,
                        raw,
                        stored,
                        kept,
                    },
                    facts,
                ));
                Ok(())
            })?;
        }
        out.sort_by(|(a, _), (b, _)| (&a.harness, &a.id).cmp(&(&b.harness, &b.id)));
        Ok(out)
    }

    /// The sessions of `harness` the vault holds a version of, by name, each with when its
    /// original was last written ([`Vaulted::kept`]): a listing that reads no piece and no
    /// record's text (a vault that does not exist holds none).
    pub fn names(&self, harness: &str) -> Result<Vec<(String, std::time::SystemTime)>, VaultError> {
        let Some(folder) = self.harness_folder(harness)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        each_session(&folder, &mut |id, _, _, kept, _| {
            out.push((id, kept));
            Ok(())
        })?;
        out.sort();
        Ok(out)
    }

    /// Removes `harness:id` from the vault for good, leaving a tombstone so it is never
    /// vaulted again. False when no version was vaulted (the tombstone is left all the same).
    pub fn forget(&self, harness: &str, id: &str) -> Result<bool, VaultError> {
        check_name(harness)?;
        check_name(id)?;
        let root = Dir::open(&self.root)?;
        let (folder, _) = root.create_dir(harness)?;
        let tombstone = format!("{id}.forgotten");
        if folder.metadata(&tombstone)?.is_none() {
            folder.create_new(&tombstone, b"")?;
        }
        let Some(session) = folder.open_dir(id)? else {
            return Ok(false);
        };
        let lock = session.lock()?;
        let held = newest_version(&session)?.is_some();
        for entry in session.entries()? {
            if entry.kind == Kind::File {
                session.remove_file(&entry.name)?;
            }
        }
        drop(lock);
        folder.remove_dir(id)?;
        Ok(held)
    }

    /// The names of `harness`'s forgotten files ([`Vault::forget`]: their tombstones), sorted.
    pub fn forgotten(&self, harness: &str) -> Result<Vec<String>, VaultError> {
        let Some(folder) = self.harness_folder(harness)? else {
            return Ok(Vec::new());
        };
        let mut names: Vec<String> = folder
            .entries()?
            .into_iter()
            .filter(|e| e.kind == Kind::File)
            .filter_map(|e| e.name.into_string().ok())
            .filter_map(|name| name.strip_suffix(".forgotten").map(str::to_owned))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Whether `harness:id` was forgotten ([`Vault::forget`]): its tombstone is there, so it
    /// is never kept again.
    pub fn is_forgotten(&self, harness: &str, id: &str) -> Result<bool, VaultError> {
        check_name(id)?;
        let Some(folder) = self.harness_folder(harness)? else {
            return Ok(false);
        };
        Ok(folder.metadata(format!("{id}.forgotten"))?.is_some())
    }

    /// The folder of `harness`, `None` while nothing of it (or the vault) exists: looking
    /// makes nothing.
    fn harness_folder(&self, harness: &str) -> Result<Option<Dir>, VaultError> {
        check_name(harness)?;
        let root = match Dir::open(&self.root) {
            Ok(root) => root,
            Err(err) if err.is_not_found() => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        Ok(root.open_dir(harness)?)
    }

    /// When [`Vault::mark_swept`] last ran (`None`: never), read from the vault's `swept`
    /// file without following a link.
    pub fn last_swept(&self) -> Result<Option<std::time::SystemTime>, VaultError> {
        Ok(Dir::open(&self.root)?.metadata(SWEPT)?.map(|m| m.modified))
    }

    /// Records that the harnesses' files were swept in now: the `swept` file's time is set
    /// (it is made when missing; a link in its place is refused, never written through).
    /// No temp file is made, so a hook killed meanwhile leaves none in the vault's root; one
    /// an earlier version left there (it replaced the file) is removed.
    pub fn mark_swept(&self) -> Result<(), VaultError> {
        let root = Dir::open(&self.root)?;
        root.touch(SWEPT)?;
        for entry in root.entries()? {
            let left = notesoup_safe_fs::temp_target(&entry.name)
                .is_some_and(|(target, _)| target == std::ffi::OsStr::new(SWEPT));
            if entry.kind == Kind::File && left {
                root.remove_file(&entry.name)?;
            }
        }
        Ok(())
    }

    /// Where `harness:id`'s copy is (or would be) kept: its folder in the vault.
    pub fn path_of(&self, harness: &str, id: &str) -> PathBuf {
        self.root.join(harness).join(id)
    }

    /// An original cut shorter whose bytes the kept version (`current`) begins with, a
    /// truncation: the vault already holds all of it, and more. A new version would hide
    /// what was cut, for every tool reads the newest; so the kept one stays newest, and
    /// this is what the keep did. `None` for any other original. The two are compared a
    /// block at a time as the version is read back (each of its pieces checked); a version
    /// that cannot be read back does not begin with it. `len`: the original's size, as the
    /// keep took it under the session's lock.
    fn cut_shorter(
        &self,
        harness: &str,
        id: &str,
        current: Option<&(u32, Record)>,
        (file, len): (&mut std::fs::File, u64),
        path: &Path,
    ) -> Result<Option<Kept>, VaultError> {
        const BLOCK: usize = 64 * 1024;
        let Some((n, record)) = current.filter(|(_, record)| len < record.raw) else {
            return Ok(None);
        };
        let Some(session) = self.session(harness, id)? else {
            return Ok(None);
        };
        let unchanged = Kept {
            version: *n,
            raw: record.raw,
            added: 0,
            new_version: false,
            behind: 0,
            cut: true,
        };
        let mut kept = VaultReader::new(session, harness, id, *n, record.clone()).take(len);
        file.seek(SeekFrom::Start(0))
            .map_err(|source| io(path, source))?;
        let mut original = (&mut *file).take(len);
        let (mut a, mut b) = (vec![0; BLOCK], vec![0; BLOCK]);
        loop {
            let got = read_full(&mut original, &mut a).map_err(|source| io(path, source))?;
            if got == 0 {
                return Ok(Some(unchanged));
            }
            match read_full(&mut kept, &mut b[..got]) {
                Ok(same) if same == got && a[..got] == b[..got] => {}
                _ => return Ok(None),
            }
        }
    }

    /// The folder, number and record of `harness:id`'s newest version; `None` when it is
    /// not vaulted. A record that does not parse is refused ([`VaultError::Damaged`]).
    fn newest(&self, harness: &str, id: &str) -> Result<Option<(Dir, u32, Record)>, VaultError> {
        check_name(harness)?;
        check_name(id)?;
        let Some(session) = self.session(harness, id)? else {
            return Ok(None);
        };
        let Some(version) = newest_version(&session)? else {
            return Ok(None);
        };
        let record = Record::load(&session, version).map_err(|reason| VaultError::Damaged {
            harness: harness.into(),
            id: id.into(),
            reason,
        })?;
        Ok(Some((session, version, record)))
    }

    fn session(&self, harness: &str, id: &str) -> Result<Option<Dir>, VaultError> {
        let root = match Dir::open(&self.root) {
            Ok(root) => root,
            Err(err) if err.is_not_found() => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let Some(folder) = root.open_dir(harness)? else {
            return Ok(None);
        };
        Ok(folder.open_dir(id)?)
    }
}

/// The name a session file is kept under: its file name without `.jsonl` or `.jsonl.zst`
/// (a compressed Codex rollout and its plain twin are one session file).
pub fn vault_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".jsonl.zst")
        .or_else(|| name.strip_suffix(".jsonl"))
        .unwrap_or(name);
    Some(stem.to_owned())
}

/// What [`each_session`] calls: a session's id, folder, newest version, time, and whether
/// that version has a facts file.
type EachSession<'a> =
    dyn FnMut(String, &Dir, u32, std::time::SystemTime, bool) -> Result<(), VaultError> + 'a;

/// Calls `f` with each session of a harness folder that holds a version: its id, its
/// folder, its newest version, when that version's original was last written, and whether
/// a facts file of that version is in the folder (seen in the one listing that finds the
/// version: no more is read).
fn each_session(folder: &Dir, f: &mut EachSession<'_>) -> Result<(), VaultError> {
    for entry in folder.entries()? {
        let (Kind::Dir, Ok(id)) = (entry.kind, entry.name.into_string()) else {
            continue;
        };
        let Some(session) = folder.open_dir(&id)? else {
            continue;
        };
        let names: Vec<String> = session
            .entries()?
            .into_iter()
            .filter_map(|e| e.name.into_string().ok())
            .collect();
        let Some(version) = newest_in(&names) else {
            continue;
        };
        let facts = names.contains(&facts::name(version));
        let kept = session
            .metadata(format!("v{version}.record"))?
            .map_or(std::time::UNIX_EPOCH, |m| m.modified);
        f(id, &session, version, kept, facts)?;
    }
    Ok(())
}

/// Gives `version`'s record the time its original was last written, so a listing of what
/// only the vault holds orders it as the harness's file was ordered. Best effort: a record
/// that cannot be stamped keeps the time it was written.
fn stamp(session: &Dir, version: u32, written: Option<std::time::SystemTime>) {
    if let (Some(time), Ok(Some((file, _)))) =
        (written, session.open_file(format!("v{version}.record")))
    {
        let _ = file.set_modified(time);
    }
}

/// The highest `N` with a `v<N>.record`.
fn newest_version(session: &Dir) -> Result<Option<u32>, VaultError> {
    let names: Vec<String> = session
        .entries()?
        .into_iter()
        .filter_map(|e| e.name.into_string().ok())
        .collect();
    Ok(newest_in(&names))
}

/// The highest `N` of a `v<N>.record` among a session folder's file `names`.
fn newest_in(names: &[String]) -> Option<u32> {
    names
        .iter()
        .filter_map(|n| n.strip_prefix('v')?.strip_suffix(".record")?.parse().ok())
        .max()
}

/// Whether `file` still starts with the bytes `record` kept: the last piece's bytes are
/// checked when the original is the file they were kept from (same device and inode), every
/// piece's when it is another (a file replaced by a rename) or that is not known.
fn continues(
    file: &mut std::fs::File,
    record: &Record,
    identity: Option<(u64, u64)>,
    path: &Path,
) -> Result<bool, VaultError> {
    let same_file = identity.is_some() && record.file == identity;
    let last = record.pieces.len().saturating_sub(1);
    let mut at = 0u64;
    for (k, piece) in record.pieces.iter().enumerate() {
        if !same_file || k == last {
            file.seek(SeekFrom::Start(at))
                .map_err(|source| io(path, source))?;
            let mut bytes = Vec::new();
            (&mut *file)
                .take(piece.raw)
                .read_to_end(&mut bytes)
                .map_err(|source| io(path, source))?;
            if bytes.len() as u64 != piece.raw || xxh64(&bytes) != piece.hash {
                return Ok(false);
            }
        }
        at += piece.raw;
    }
    Ok(true)
}

/// Reads from `from` until `buf` is full or it ends: how many bytes it read.
fn read_full(from: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match from.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(got)
}

/// The xxh64 (seed 0) of `bytes`.
fn xxh64(bytes: &[u8]) -> u64 {
    let mut hasher = XxHash64::with_seed(0);
    hasher.write(bytes);
    hasher.finish()
}

fn io(path: &Path, source: std::io::Error) -> VaultError {
    VaultError::Zstd {
        path: path.to_path_buf(),
        source,
    }
}

/// Where the last whole line of `file`'s bytes `[from, to)` ends (just past its `\n`),
/// read back from `to` a block at a time; `to` itself when the range holds no `\n`.
fn last_line_end(file: &std::fs::File, from: u64, to: u64) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt as _;
    const BLOCK: u64 = 64 * 1024;
    let mut block = vec![0; usize::try_from(BLOCK).unwrap_or(65_536)];
    let mut hi = to;
    while hi > from {
        let lo = hi.saturating_sub(BLOCK).max(from);
        let n = usize::try_from(hi - lo).unwrap_or(block.len());
        file.read_exact_at(&mut block[..n], lo)?;
        if let Some(at) = block[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(lo + at as u64 + 1);
        }
        hi = lo;
    }
    Ok(to)
}

/// A harness or id usable as one folder name: 1 to 128 of `A-Z a-z 0-9 . _ -`, not
/// starting with a dot.
fn check_name(name: &str) -> Result<(), VaultError> {
    let bad = |reason| {
        Err(VaultError::BadName {
            name: name.chars().take(200).collect(),
            reason,
        })
    };
    if name.is_empty() || name.len() > 128 {
        return bad("it must be 1 to 128 characters");
    }
    if name.starts_with('.') {
        return bad("it must not start with a dot");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return bad("only A-Z a-z 0-9 . _ - are allowed");
    }
    Ok(())
}

fn set_private(path: &Path) -> Result<(), VaultError> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
        .map_err(|source| io(path, source))
}

#[cfg(test)]
mod tests;
