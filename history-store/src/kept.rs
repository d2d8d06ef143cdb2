//! The histories a long-lived process keeps ([`Kept`]): a server that answers many questions
//! on one session (`notesoup mcp`) decodes it once, then answers each question with a
//! search of that history.
//!
//! **Bounded.** At most [`INDEX_KEEP`] histories and [`INDEX_MAX_BYTES`] bytes of the
//! files they were read from (the index cache's own budget, [`Cache::new`](crate::Cache::new)),
//! the least recently used going first; the newest is always kept, as the index cache keeps
//! its newest index. Nothing is process-global: a [`Kept`] belongs to the value that made it
//! (a server's state), and is freed with it.
//!
//! **Never stale.** A history is kept under its file's path, device, inode, size and
//! modification time as a stat before its read found them, and only when a stat after the
//! read finds the same: a file that grew or was replaced while it was read is not kept. A
//! later call uses it only when the file's stat is still that key (a grown transcript is
//! read again, through its index: only the appended lines are decoded), and the keeper of
//! a path drops its other histories when it keeps a new one. Its bodies are read back from
//! the handle the read opened, each checked against what its decode fingerprinted (the
//! index's row for a Claude transcript, the line for a Pi or Codex body left in its file).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use notesoup_history_core::History;

use crate::StoreError;

/// How many indexes the index cache keeps, and how many histories a [`Kept`] does.
pub const INDEX_KEEP: usize = 64;
/// How many bytes of indexes the index cache keeps, and how many bytes of the files its
/// histories were read from a [`Kept`] does (an index, like a decoded history's structure,
/// is under the size of its transcript).
pub const INDEX_MAX_BYTES: u64 = 512 << 20;

/// Decoded histories kept for later calls, by their file's identity (see the module docs).
pub struct Kept {
    /// At most this many histories.
    entries: usize,
    /// And at most this many bytes of the files they were read from (the newest always).
    bytes: u64,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Least recently used first.
    held: Vec<(Key, Arc<History>)>,
    /// How many histories were read (a call that found none kept).
    reads: u64,
}

/// What a kept history was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    path: PathBuf,
    dev: u64,
    ino: u64,
    size: u64,
    modified: i128,
}

impl Key {
    /// The key of the file at `path` now; `None` when it cannot be stat'ed.
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Self::from_meta(path, &meta))
    }

    #[cfg(unix)]
    fn from_meta(path: &Path, meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            path: path.to_owned(),
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.len(),
            modified: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }

    #[cfg(not(unix))]
    fn from_meta(path: &Path, meta: &std::fs::Metadata) -> Self {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX));
        Self {
            path: path.to_owned(),
            dev: 0,
            ino: 0,
            size: meta.len(),
            modified,
        }
    }
}

impl Default for Kept {
    /// The index cache's budget: [`INDEX_KEEP`] histories, [`INDEX_MAX_BYTES`] of files.
    fn default() -> Self {
        Self::new(INDEX_KEEP, INDEX_MAX_BYTES)
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("entries", &self.entries)
            .field("bytes", &self.bytes)
            .field("held", &self.len())
            .finish_non_exhaustive()
    }
}

impl Kept {
    /// A keeper of at most `entries` histories and `bytes` bytes of the files they were read
    /// from (the newest one always kept).
    pub fn new(entries: usize, bytes: u64) -> Self {
        Self {
            entries: entries.max(1),
            bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The history of the file at `path`: the one kept for it when the file is still what
    /// it was read from, else `read()`'s (kept when the file did not change while it was
    /// read). `read` must depend on nothing but the file (the same call on the same bytes
    /// gives the same history).
    ///
    /// # Errors
    /// `read`'s error (a refusal is never kept).
    pub fn history(
        &self,
        path: &Path,
        read: impl FnOnce() -> Result<History, StoreError>,
    ) -> Result<Arc<History>, StoreError> {
        let before = Key::of(path);
        if let Some(key) = &before
            && let Some(history) = self.lookup(key)
        {
            return Ok(history);
        }
        let history = Arc::new(read()?);
        let mut inner = self.lock();
        inner.reads += 1;
        if let Some(key) = before.filter(|key| Key::of(path).as_ref() == Some(key)) {
            inner.held.retain(|(held, _)| held.path != key.path);
            inner.held.push((key, Arc::clone(&history)));
            self.evict(&mut inner);
        }
        Ok(history)
    }

    /// How many histories this keeper has read (calls that found none kept for their file).
    pub fn reads(&self) -> u64 {
        self.lock().reads
    }

    /// How many histories it holds.
    pub fn len(&self) -> usize {
        self.lock().held.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The history kept under `key`, now the most recently used.
    fn lookup(&self, key: &Key) -> Option<Arc<History>> {
        let mut inner = self.lock();
        let at = inner.held.iter().position(|(held, _)| held == key)?;
        let entry = inner.held.remove(at);
        let history = Arc::clone(&entry.1);
        inner.held.push(entry);
        Some(history)
    }

    /// Drops the least recently used histories until both budgets hold (the newest stays).
    fn evict(&self, inner: &mut Inner) {
        let mut total: u64 = inner.held.iter().map(|(key, _)| key.size).sum();
        while inner.held.len() > 1 && (inner.held.len() > self.entries || total > self.bytes) {
            let (key, _) = inner.held.remove(0);
            total -= key.size;
        }
    }
}

#[cfg(test)]
mod tests;
