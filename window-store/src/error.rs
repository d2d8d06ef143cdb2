//! [`WindowStoreError`]: every refusal of the window store, each carrying the input at
//! fault.

use std::path::PathBuf;

use notesoup_safe_fs::FsError;
use notesoup_window::Host;

use crate::{VERSION, clip};

/// Why a window record could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WindowStoreError {
    /// The session id cannot name a record (see `SessionKey::new`).
    #[error("bad {harness} session id `{session}` for a window record: {reason}")]
    BadKey {
        /// The harness.
        harness: Host,
        /// The session id as given (clipped to 200 characters).
        session: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The record was written in another format version.
    #[error(
        "window record `{}` has version {found}, this notesoup reads version {VERSION}; refused (rebuild it from the transcript)",
        path.display()
    )]
    Version {
        /// The record.
        path: PathBuf,
        /// The `v` it holds, as JSON (clipped).
        found: String,
    },
    /// The record claims this version but is not one.
    #[error("window record `{}` is malformed: {reason}; refused (rebuild it from the transcript)", path.display())]
    Malformed {
        /// The record.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The record names another session than its file name (a copied file).
    #[error("window record `{}` belongs to `{found}`, not `{expected}`; refused (rebuild it from the transcript)", path.display())]
    OtherSession {
        /// The record.
        path: PathBuf,
        /// The `harness:session` it names (clipped).
        found: String,
        /// The `harness:session` its file name says.
        expected: String,
    },
    /// The record is larger than any this crate writes.
    #[error("window record `{}` holds more than {limit} bytes; refused unread (rebuild it from the transcript)", path.display())]
    TooLarge {
        /// The record.
        path: PathBuf,
        /// The limit, `RECORD_MAX`.
        limit: u64,
    },
    /// The state to write would make a record over the limit; nothing was written.
    #[error("window state for `{}` would be a {bytes}-byte record, over the {limit}-byte limit; not written", path.display())]
    StateTooLarge {
        /// The record that was not written.
        path: PathBuf,
        /// The size the record would have had.
        bytes: usize,
        /// The limit, `RECORD_MAX`.
        limit: u64,
    },
    /// The filesystem refused: a link or a FIFO in a folder's or the record's place, a
    /// permission, a full disk... Nothing was written.
    #[error(transparent)]
    Fs(#[from] FsError),
}

impl WindowStoreError {
    /// True for a record that exists but must not be read: another version, malformed,
    /// another session's, too large. The caller rebuilds the state (from the transcript)
    /// and writes it over; every other error is a refusal to act at all.
    pub fn is_stale_record(&self) -> bool {
        matches!(
            self,
            Self::Version { .. }
                | Self::Malformed { .. }
                | Self::OtherSession { .. }
                | Self::TooLarge { .. }
        )
    }

    pub(crate) fn bad_key(harness: Host, session: &str, reason: &str) -> Self {
        Self::BadKey {
            harness,
            session: clip(session),
            reason: reason.to_owned(),
        }
    }
}
