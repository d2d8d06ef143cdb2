//! [`VaultError`]: why the vault refused, with the session or file at fault.

use std::path::PathBuf;

/// Why a vault operation did not happen. Each variant carries the input at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VaultError {
    /// A harness or session id that cannot name a vault folder.
    #[error("`{name}` cannot name a vaulted session: {reason}")]
    BadName {
        /// The name as given.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// The session was forgotten: it is not vaulted again.
    #[error("session {harness}:{id} was forgotten; it is not vaulted again")]
    Forgotten {
        /// Its harness.
        harness: String,
        /// Its id.
        id: String,
    },
    /// The original is larger than the history readers read.
    #[error("{} is {bytes} bytes, over the {limit} bytes the history readers read", path.display())]
    TooLarge {
        /// The original.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// The most kept.
        limit: u64,
    },
    /// A vault file does not hold what its record says: refused, never misread.
    #[error("the vault's copy of {harness}:{id} is damaged ({reason}); it is not read")]
    Damaged {
        /// Its harness.
        harness: String,
        /// Its id.
        id: String,
        /// What does not match.
        reason: String,
    },
    /// A file or folder could not be opened, read or written (a link, a FIFO, a full disk).
    #[error(transparent)]
    File(#[from] notesoup_safe_fs::FsError),
    /// Compression or decompression failed.
    #[error("zstd on {}: {source}", path.display())]
    Zstd {
        /// The file.
        path: PathBuf,
        /// The library's account.
        source: std::io::Error,
    },
}
