//! Where indexes are kept ([`Cache`]): the folder, opened as a handle from the notesoup home
//! down and never through a link, the index files in it (read and written in
//! `notesoup-history-claude`'s format) and their eviction.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use notesoup_history_claude::index::{Covered, Index, indexed_transcript, read_index, write_index};
use notesoup_history_claude::{Decoder, Options};
use notesoup_safe_fs::Dir;
use twox_hash::xxh3;

/// Where indexes are kept, and how many.
#[derive(Debug, Clone)]
pub struct Cache {
    /// The folder (created on the first write).
    pub dir: PathBuf,
    /// Transcripts with fewer committed bytes get no index (they decode in a few ms).
    pub min_bytes: u64,
    /// At most this many indexes are kept; the least recently used go first.
    pub keep: usize,
    /// And at most this many bytes of them in all (the newest one is always kept): an
    /// index is about 0.6x its transcript, so a count alone could grow the cache to gigabytes.
    pub max_bytes: u64,
    /// Set by [`Cache::in_home`]: the notesoup home `dir` lies in, as `cache/history`.
    pub(super) home: Option<PathBuf>,
}

impl Cache {
    /// The cache notesoup keeps: `dir`, indexes for transcripts of 1 MiB and more, the 64
    /// most recently used within 512 MiB in all. `dir` is a path its caller configured:
    /// links in it are followed once, when it is opened; nothing below it ever is.
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            min_bytes: 1 << 20,
            keep: crate::INDEX_KEEP,
            max_bytes: crate::INDEX_MAX_BYTES,
            home: None,
        }
    }

    /// The cache notesoup keeps under its home `home`: `cache/history`. Each call opens it
    /// once, as a folder handle, from the home down, never through a link: a `cache` or
    /// `cache/history` that is a link or anything but a folder means no index is read or
    /// written, and every create, replace and removal of an index is made relative to that
    /// handle, so a link swapped in while a call runs never moves one outside the home.
    pub fn in_home(home: &Path) -> Self {
        Self {
            home: Some(home.to_owned()),
            ..Self::new(home.join("cache").join("history"))
        }
    }

    /// The cache folder as an open handle, `None` when it cannot be opened (missing, a
    /// link, not a folder); with `create`, missing folders are made first.
    pub(super) fn open(&self, create: bool) -> Option<Dir> {
        let Some(home) = &self.home else {
            return if create {
                Dir::create_all(&self.dir).ok().map(|(dir, _)| dir)
            } else {
                Dir::open(&self.dir).ok()
            };
        };
        let mut dir = if create {
            Dir::create_all(home).ok()?.0
        } else {
            Dir::open(home).ok()?
        };
        for name in ["cache", "history"] {
            dir = if create {
                dir.create_dir(name).ok()?.0
            } else {
                dir.open_dir(name).ok()??
            };
        }
        Some(dir)
    }
}

impl Cache {
    /// Removes every index in the cache made of a transcript of `harness`'s session `id`
    /// (any case, as ids are compared; only Claude transcripts are indexed, so another
    /// harness's session has none): each index names its transcript in its header,
    /// whose file name names the session, so an index outlives neither a moved transcript
    /// nor one Claude deleted. A temporary file a writer of one left is removed too. Only
    /// the index files are touched, relative to the cache's handle (never through a link);
    /// the transcripts never. Returns the files removed; a cache that cannot be opened
    /// holds no index any call uses, and removes nothing. Unlike reading the cache, this
    /// is asked for by a person: an index of the session that cannot be removed is an
    /// error, never passed over.
    pub fn forget_session(
        &self,
        harness: notesoup_window::Host,
        id: &str,
    ) -> Result<Vec<PathBuf>, crate::StoreError> {
        if harness != notesoup_window::Host::Claude {
            return Ok(Vec::new());
        }
        let Some(dir) = self.open(false) else {
            return Ok(Vec::new());
        };
        let mut removed = Vec::new();
        for entry in dir.entries()? {
            if entry.kind != notesoup_safe_fs::Kind::File || !is_index_or_temp(&entry.name) {
                continue;
            }
            // One that cannot be opened is no index any call reads either.
            let Ok(Some((file, meta))) = dir.open_file(&entry.name) else {
                continue;
            };
            let Some(transcript) = indexed_transcript(std::io::BufReader::new(file), meta.len)
            else {
                continue;
            };
            let named = Path::new(std::ffi::OsStr::from_bytes(&transcript))
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(notesoup_history_claude::session_id_from_file_name)
                .is_some_and(|of| of.eq_ignore_ascii_case(id));
            if named && dir.remove_file(&entry.name)? {
                removed.push(dir.child_path(&entry.name));
            }
        }
        Ok(removed)
    }
}

/// Whether `name` is an index's (`claude-<hash>.idx`).
fn is_index(name: &str) -> bool {
    // The names are the ones `index_name` gives, in its case.
    name.strip_prefix("claude-")
        .is_some_and(|rest| rest.strip_suffix(".idx").is_some())
}

/// Whether `name` is an index's, or a temporary file written on the way to one.
fn is_index_or_temp(name: &std::ffi::OsStr) -> bool {
    is_index(&name.to_string_lossy())
        || notesoup_safe_fs::temp_target(name)
            .is_some_and(|(target, _)| is_index(&target.to_string_lossy()))
}

/// The name of `transcript`'s index in the cache folder.
pub(super) fn index_name(transcript: &Path) -> String {
    let key = xxh3::hash64(transcript.as_os_str().as_encoded_bytes());
    format!("claude-{key:016x}.idx")
}

/// The index at `index_file` in the cache folder `dir`, when it is a regular file (never
/// through a link) within `limit` bytes, whole, of this format and of this transcript
/// ([`read_index`]; `on_header` sees what it vouches for as soon as that is read).
pub(super) fn load_index(
    dir: &Dir,
    index_file: &str,
    transcript: &Path,
    options: &Options,
    limit: u64,
    on_header: impl FnOnce(&Covered),
) -> Option<Index> {
    let (file, meta) = dir.open_file(index_file).ok()??;
    if meta.len > limit {
        return None;
    }
    let path = transcript.as_os_str().as_encoded_bytes();
    read_index(file, meta.len, path, options, on_header)
}

/// Writes the index atomically in the cache folder `dir` (a new temporary file, streamed,
/// renamed over it, all relative to the handle); true when it was written (failures are
/// otherwise ignored).
pub(super) fn save_index(
    dir: &Dir,
    index_file: &str,
    transcript: &Path,
    covered: &Covered,
    decoder: &Decoder,
    starts: &[u64],
) -> bool {
    let path = transcript.as_os_str().as_encoded_bytes();
    dir.replace_with(index_file, |file| {
        write_index(file, path, covered, starts, decoder).map(drop)
    })
    .is_ok()
}

/// Marks the index at `index_file` as used now: its time decides what eviction keeps.
pub(super) fn touch(dir: &Dir, index_file: &str) {
    if let Ok(Some((file, _))) = dir.open_file(index_file) {
        let _ = file.set_modified(std::time::SystemTime::now());
    }
}

/// How old a temporary file in the cache must be before eviction removes it (a writer
/// still streaming an index is never that slow; one that was killed left it behind).
pub(super) const STALE_TEMP_SECS: u64 = 600;

/// Keeps the most recently used indexes in the cache folder `dir`, at most `cache.keep` of
/// them and `cache.max_bytes` in all (the newest always), and removes temporary files a
/// helper left behind (older than ten minutes). Everything is listed, inspected and
/// removed relative to the handle, never through a link (a link in the folder is left
/// alone); failures are ignored.
pub(super) fn evict(dir: &Dir, cache: &Cache) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    let now = std::time::SystemTime::now();
    let mut indexes = Vec::new();
    for entry in entries {
        if entry.kind != notesoup_safe_fs::Kind::File {
            continue;
        }
        let Ok(Some(meta)) = dir.metadata(&entry.name) else {
            continue;
        };
        let name = entry.name.to_string_lossy();
        let temp = notesoup_safe_fs::temp_target(&entry.name)
            .is_some_and(|(target, _)| target.to_string_lossy().starts_with("claude-"))
            // The name an earlier version gave its temporary files.
            || (name.starts_with("claude-") && name.contains(".tmp."));
        if temp {
            if now
                .duration_since(meta.modified)
                .is_ok_and(|age| age.as_secs() > STALE_TEMP_SECS)
            {
                let _ = dir.remove_file(&entry.name);
            }
        } else if is_index(&name) {
            indexes.push((meta.modified, meta.len, entry.name));
        }
    }
    // Newest first; keep while both budgets hold.
    indexes.sort_by(|a, b| b.cmp(a));
    let mut total = 0_u64;
    for (n, (_, len, name)) in indexes.iter().enumerate() {
        total = total.saturating_add(*len);
        if n > 0 && (n >= cache.keep || total > cache.max_bytes) {
            let _ = dir.remove_file(name);
        }
    }
}
