//! [`AppError`]: why a typed call of this library refused, with the input at fault.

use notesoup_boot::BootError;
use notesoup_history_core::{HistoryError, QueryError, SessionsLimit};
use notesoup_history_store::StoreError;
use notesoup_notes::NotesError;
use notesoup_thresholds::ThresholdError;
use notesoup_window::{UnknownHost, WindowIdError};
use notesoup_window_store::WindowStoreError;

/// Why a call refused. Each variant carries the input at fault; [`AppError::code`] is the
/// stable `snake_case` code the helper's replies carry.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// The history store refused: no such session, an ambiguous prefix, an unreadable
    /// transcript, a subagent's call, no bound transcript, ...
    #[error(transparent)]
    History(#[from] StoreError),
    /// The decoded transcript does not make a history (a bug of the decoder: seqs out of
    /// order).
    #[error(transparent)]
    Decoded(#[from] HistoryError),
    /// The notes store refused: a bad name, no such note, too large, a version conflict,
    /// no notes home, ...
    #[error(transparent)]
    Notes(#[from] NotesError),
    /// A harness name none of the harnesses has.
    #[error("`harness`: {0}")]
    Harness(#[source] UnknownHost),
    /// A session listing's `limit` out of range.
    #[error(transparent)]
    SessionsLimit(#[from] SessionsLimit),
    /// The head's window has no ordinal: its ancestry stops at a missing record.
    #[error(
        "the head's window is {window}: its ancestry stops at a missing record, so its ordinal cannot be known"
    )]
    WindowUnknown {
        /// The head's window id.
        window: String,
    },
    /// A boot's window id is not `<host>:<session>:<ordinal>`.
    #[error(transparent)]
    BadWindow(#[from] WindowIdError),
    /// A boot for a host notesoup does not know.
    #[error(transparent)]
    Boot(#[from] BootError),
    /// A boot's `reset` is none of `normal`, `forced`.
    #[error("{0}")]
    BadReset(String),
    /// The arguments do not fit the session (a window or seq it does not hold), or an
    /// event of it cannot be read.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The budget policy cannot be resolved: a bad cap, no room for the margins.
    #[error(transparent)]
    Limits(#[from] ThresholdError),
    /// A session's kept flow could not be read or written.
    #[error(transparent)]
    WindowStore(#[from] WindowStoreError),
    /// A request that could not be understood: a front end could not parse it, or it lacks
    /// what the call needs (a tool that steps the flow, with no session).
    #[error("{0}")]
    Request(String),
    /// The hooks module is of another notesoup version than this library: the two came
    /// from different installs, and neither can know what the other's wire means.
    #[error(
        "the plugin's hooks module is notesoup {theirs} but this notesoup-helper is notesoup {}: they come from different installs; reinstall notesoup so both come from one (notesoup doctor names how)",
        crate::VERSION
    )]
    VersionMismatch {
        /// The hooks module's version.
        theirs: String,
    },
    /// The history vault refused (a forgotten session, a damaged copy, a link in it).
    #[error(transparent)]
    Vault(#[from] notesoup_vault_store::VaultError),
    /// A session named by only the start of its id where its whole id is needed (forgetting
    /// it for good).
    #[error("`{given}` is only the start of the session {whole}: give its whole id to forget it")]
    PartialId {
        /// The session as given.
        given: String,
        /// The session it names, whole.
        whole: String,
    },
    /// A bug: the flow did not serialize, a step panicked after an answer.
    #[error("{0}")]
    Internal(String),
}

impl AppError {
    /// The stable `snake_case` code of this refusal (the helper's `error.code`).
    pub fn code(&self) -> &str {
        match self {
            Self::History(err) => err.code(),
            Self::Decoded(_) | Self::Internal(_) => "internal",
            Self::Notes(err) => err.code(),
            Self::Harness(_) | Self::SessionsLimit(_) | Self::BadReset(_) | Self::Request(_) => {
                "bad_request"
            }
            Self::WindowUnknown { .. } => "window_unknown",
            Self::BadWindow(_) => "bad_window",
            Self::Boot(_) => "unknown_host",
            Self::Query(err) => err.code(),
            Self::Limits(err) => err.code(),
            Self::WindowStore(_) => "window_store",
            Self::VersionMismatch { .. } => "version_mismatch",
            Self::Vault(_) => "vault",
            Self::PartialId { .. } => "partial_id",
        }
    }

    /// True when notesoup cannot work in this session at all: the shell is of another
    /// version, or the session's state cannot be kept (the notes home is missing, or the
    /// filesystem refuses its folders). A host shell turns notesoup off for the session on
    /// such a refusal and says why once, rather than offer tools that all fail.
    pub fn turns_off(&self) -> bool {
        matches!(
            self,
            Self::VersionMismatch { .. }
                | Self::WindowStore(WindowStoreError::Fs(_))
                | Self::Notes(NotesError::NoHome { .. })
        )
    }

    /// What a person does about a refusal that turns notesoup off, when its message does
    /// not say it already (another version's message names the reinstall).
    pub fn off_fix(&self) -> Option<&'static str> {
        match self {
            Self::WindowStore(WindowStoreError::Fs(_)) | Self::Notes(NotesError::NoHome { .. }) => {
                Some(
                    "notesoup keeps each session's state under its notes home: set NOTESOUP_HOME to a folder you can write (notesoup doctor checks it)",
                )
            }
            _ => None,
        }
    }

    /// True when the refusal is of the request's shape rather than of the world (the
    /// helper's exit status 2).
    pub fn malformed(&self) -> bool {
        matches!(
            self,
            Self::Harness(_) | Self::SessionsLimit(_) | Self::BadReset(_) | Self::Request(_)
        )
    }
}
