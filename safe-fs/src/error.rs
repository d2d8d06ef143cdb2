//! [`FsError`]: every refusal of this crate, each naming the path it refused.

use std::io;
use std::path::{Path, PathBuf};

/// Most characters of a name an error quotes (a hostile name must not make a huge message).
const QUOTE_MAX: usize = 200;

/// Why a file operation was refused or failed. Every variant carries the path at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// A path component is a symbolic link; this crate never follows one.
    #[error("`{}` is a symbolic link; notesoup never follows links here", path.display())]
    Link {
        /// The link.
        path: PathBuf,
    },
    /// A file that must be a regular file is something else (a FIFO, a device, a folder...).
    #[error("`{}` is {kind}, not a regular file; refused", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is instead, e.g. `a FIFO`.
        kind: &'static str,
    },
    /// A path that must be a folder is something else.
    #[error("`{}` is {kind}, not a folder; refused", path.display())]
    NotDir {
        /// The path.
        path: PathBuf,
        /// What it is instead, e.g. `a regular file`.
        kind: &'static str,
    },
    /// A bounded read found more than its limit.
    #[error("`{}` holds more than {limit} bytes; refused rather than read whole", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A name that is not one plain path component (empty, `.`, `..`, a `/`, a NUL).
    #[error("bad file name {name:?}: {reason}")]
    BadName {
        /// The name (clipped to 200 characters).
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A lock another holder kept past the wait allowed for it.
    #[error(
        "`{}` is held by another notesoup process for more than {} ms; refused rather than waited on",
        path.display(),
        waited.as_millis()
    )]
    Busy {
        /// The lock file (or the locked folder).
        path: PathBuf,
        /// How long this call waited.
        waited: std::time::Duration,
    },
    /// The system refused (permissions, disk full, read-only filesystem, ...).
    #[error("{action} `{}`: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// To which path.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: io::Error,
    },
}

impl FsError {
    /// True when the path does not exist (only [`FsError::Io`] with `NotFound`).
    pub fn is_not_found(&self) -> bool {
        self.io_kind() == io::ErrorKind::NotFound
    }

    /// The closest [`io::ErrorKind`]: links and non-regular files are `InvalidInput`,
    /// [`FsError::TooLarge`] is `FileTooLarge`.
    pub fn io_kind(&self) -> io::ErrorKind {
        match self {
            Self::Link { .. } | Self::NotRegular { .. } | Self::BadName { .. } => {
                io::ErrorKind::InvalidInput
            }
            Self::NotDir { .. } => io::ErrorKind::NotADirectory,
            Self::TooLarge { .. } => io::ErrorKind::FileTooLarge,
            Self::Busy { .. } => io::ErrorKind::WouldBlock,
            Self::Io { source, .. } => source.kind(),
        }
    }

    /// The protocol code of a hostile file's refusal: `link`, `not_regular` (a FIFO, a
    /// device, a socket, or a folder where a file belongs, or the reverse), `too_large`,
    /// `bad_name`; `None` for [`FsError::Io`] (each caller has its own code for the
    /// system's errors).
    pub fn refusal_code(&self) -> Option<&'static str> {
        match self {
            Self::Link { .. } => Some("link"),
            Self::NotRegular { .. } | Self::NotDir { .. } => Some("not_regular"),
            Self::TooLarge { .. } => Some("too_large"),
            Self::BadName { .. } => Some("bad_name"),
            Self::Busy { .. } => Some("busy"),
            Self::Io { .. } => None,
        }
    }

    /// The path at fault (`None` for [`FsError::BadName`]).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Link { path }
            | Self::NotRegular { path, .. }
            | Self::NotDir { path, .. }
            | Self::TooLarge { path, .. }
            | Self::Busy { path, .. }
            | Self::Io { path, .. } => Some(path),
            Self::BadName { .. } => None,
        }
    }

    pub(crate) fn io(action: &'static str, path: PathBuf, err: impl Into<io::Error>) -> Self {
        Self::Io {
            action,
            path,
            source: err.into(),
        }
    }

    pub(crate) fn bad_name(name: &str, reason: &'static str) -> Self {
        let mut clipped: String = name.chars().take(QUOTE_MAX).collect();
        if clipped.len() < name.len() {
            clipped.push('…');
        }
        Self::BadName {
            name: clipped,
            reason,
        }
    }
}

impl From<FsError> for io::Error {
    fn from(err: FsError) -> Self {
        io::Error::new(err.io_kind(), err)
    }
}
