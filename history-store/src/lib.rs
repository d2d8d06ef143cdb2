//! notesoup's history on disk: the local session corpus of every harness (Claude Code, Pi,
//! Codex) and the persistent index that lets a Claude transcript be decoded incrementally.
//!
//! The decoders (`notesoup-history-claude`, `-pi`, `-codex`) are pure: they take bytes.
//! This crate does the file IO they need and nothing else:
//!
//! - [`Corpus`] finds every session of every harness by file name (the caller's
//!   [`Roots`], then each harness's own environment variables, passed in as values, then
//!   the defaults), resolves `<harness>:<id-or-prefix>` selectors to a session's latest file
//!   ([`Corpus::resolve`]), reads a whole session across its ancestor files
//!   ([`Corpus::load`]: Pi's `parentSession` chain, Codex's `history_base` chain), and
//!   lists the recent sessions reading only the start of the files shown
//!   ([`Corpus::recent`]). With notesoup's vault ([`Corpus::with_vault`]) it also finds
//!   and reads the session files the harnesses deleted, exactly as they were kept, a piece
//!   of the copy at a time for a decoder that reads line by line (Claude's, Pi's).
//! - [`read_transcript`] decodes a Claude transcript through its index in a [`Cache`]
//!   folder, so a call decodes only the lines appended since the index was written; the
//!   answer is always the one a fresh decode gives. [`read_history`] gives the history
//!   tools the same transcript with the indexed rows' bodies left in the file, decoded only
//!   where an answer shows them or a search may find its query. A long-lived process keeps
//!   such histories in a [`Kept`] (bounded by the index cache's budget, keyed by the file's
//!   identity), so a later question on the same session is a search, not a decode
//!   ([`Corpus::history`]).
//! - [`Corpus::history`] of a Pi or Codex session leaves each body of
//!   [`LEFT_IN_FILE_BYTES`] or more in the harness's file (the decoder notes where, and
//!   whether it holds the search's literal) and reads its line again where an answer shows
//!   it, through the handle the decode read, the line found again by its fingerprint: a
//!   decode holds the session's small texts, never its large ones.
//!
//! # Invariants
//!
//! - **Hostile files are refused, not waited on.** Every file the history side reads
//!   (transcripts, indexes, Pi and Codex session files, Pi's `settings.json`) is opened
//!   through `notesoup-safe-fs`: without blocking, regular files only (`not_regular`), and
//!   within a documented cap (`too_large`): a Claude transcript line [`LINE_MAX_BYTES`], a
//!   Pi or Codex session file [`SESSION_FILE_MAX_BYTES`], an index the cache's budget.
//! - A file is read up to its size when the call opened it; a writer appending meanwhile
//!   does not move what the call answers.
//! - **An index never changes an answer.** A saved decoder state is resumed only over a
//!   prefix byte-identical to the one it was made from: same device and inode, and either
//!   unchanged since it was indexed (size and times, with a margin against a racy write)
//!   or the covered prefix hashing to the recorded value. Anything else is decoded from
//!   byte 0, so an answer is always the one a fresh decode gives.
//! - **The cache stays in the home and never fails a call.** Its folder is opened from the
//!   home down without following a link, and every index read, write and removal is
//!   relative to that handle. Cache trouble is never an error of a read, and the cache is
//!   safe to delete at any time; [`Cache::forget_session`] (a person's `history forget`)
//!   refuses an index of the session it cannot remove rather than pass over it.
//! - A Pi fork's `parentSession` is followed only inside the Pi sessions folders.
//! - A body left in its file is read again only from the file the decode read (a file
//!   replaced since is not read), and a line changed in place is refused, never shown as
//!   another.
//! - It reads no environment: the caller passes the variables it names as values.
//!
//! Every refusal is a [`StoreError`] with a stable [`StoreError::code`] and a one-line
//! message naming the file or selector at fault.
//!
//! ```
//! use notesoup_history_store::{Corpus, Roots};
//!
//! let empty = std::env::temp_dir().join("notesoup-history-store-doc-empty");
//! let corpus = Corpus::new(Roots::default(), |name| {
//!     (name == "HOME").then(|| empty.display().to_string())
//! });
//! let (sessions, total) = corpus.recent(None, 20);
//! assert!(sessions.is_empty() && total == 0);
//! let err = corpus.resolve("claude:abc").unwrap_err();
//! assert_eq!(err.code(), "not_found");
//! ```

#![forbid(unsafe_code)]

use std::path::PathBuf;

use notesoup_history_claude::DecodeError;
use notesoup_history_codex::CodexError;
use notesoup_history_core::{HistoryError, SelectorError};
use notesoup_history_pi::PiError;
use notesoup_safe_fs::FsError;
use notesoup_window::Host;

mod corpus;
mod kept;
mod named;
mod transcript_index;

pub use corpus::{
    Corpus, Found, LEFT_IN_FILE_BYTES, RawNeedle, Roots, Scan, TAIL_MAX_BYTES, VARS, describe,
    describe_copy, session_of_vault_name,
};
pub use kept::{INDEX_KEEP, INDEX_MAX_BYTES, Kept};
pub use named::{Named, main_only, named};
pub use transcript_index::{Cache, read_history, read_transcript};

/// Longest line of a Claude transcript, in bytes: a longer one (or a file of no newlines,
/// like `/dev/zero` would be) is refused with `too_large` after buffering one byte past it.
pub const LINE_MAX_BYTES: usize = 64 * 1024 * 1024;
/// Largest Pi or Codex session file read whole (a `.jsonl.zst` counts its compressed
/// bytes; its decompressed bytes are capped by
/// [`notesoup_history_codex::DECOMPRESSED_MAX_BYTES`]), in bytes: `too_large` over it.
pub const SESSION_FILE_MAX_BYTES: u64 = 128 * 1024 * 1024;

/// Why a session cannot be found or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The selector is malformed or names no single session.
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// Claude or Pi keep one file per session: two files with one id are two sessions, and
    /// which one is meant cannot be told.
    #[error(
        "session {harness}:{id} is in {} files ({}); which one is meant cannot be told: move the one that is not this session out of the harness's folders",
        files.len(),
        files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    Duplicate {
        /// The harness.
        harness: Host,
        /// The session id.
        id: String,
        /// The files that carry it.
        files: Vec<PathBuf>,
    },
    /// The resolved session has no file (it went away between the scan and the read).
    #[error("no file of session {harness}:{id}")]
    NoFile {
        /// The harness.
        harness: Host,
        /// The session id.
        id: String,
    },
    /// Pi files naming each other as parents.
    #[error("pi session files name each other as parents: {}", path.display())]
    PiCycle {
        /// The file met twice.
        path: PathBuf,
    },
    /// Codex `history_base` links that loop (or a chain longer than any real one).
    #[error("codex history_base links loop at {}", path.display())]
    CodexCycle {
        /// The file met twice.
        path: PathBuf,
    },
    /// A Pi or Codex session file could not be read.
    #[error("session file {}: {source}", path.display())]
    SessionFile {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// A Claude transcript could not be read.
    #[error("transcript {}: {source}", path.display())]
    Transcript {
        /// The transcript.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// A file that is not a regular file (a FIFO, a device...), or larger than its cap;
    /// refused on the open handle, never waited on or read whole.
    #[error(transparent)]
    File(#[from] FsError),
    /// A transcript line longer than [`LINE_MAX_BYTES`].
    #[error("transcript {}: a line is longer than {limit} bytes; refused rather than buffered", path.display())]
    LineTooLong {
        /// The transcript.
        path: PathBuf,
        /// The limit, in bytes.
        limit: usize,
    },
    /// A Pi fork's `parentSession` names a file outside the Pi sessions folders.
    #[error("{}: parentSession `{}` is outside the Pi sessions folders; not followed", child.display(), parent.display())]
    ParentOutside {
        /// The session file naming the parent.
        child: PathBuf,
        /// The parent as named.
        parent: PathBuf,
    },
    /// The Claude decoder refused the transcript.
    #[error("transcript {}: {source}", path.display())]
    Claude {
        /// The transcript.
        path: PathBuf,
        /// The decoder's refusal.
        source: DecodeError,
    },
    /// The Pi decoder refused a session file.
    #[error(transparent)]
    Pi(#[from] PiError),
    /// The Codex decoder refused a rollout.
    #[error(transparent)]
    Codex(#[from] CodexError),
    /// A decoded transcript the history model refused (a decoder bug, never input).
    #[error(transparent)]
    Model(#[from] HistoryError),
    /// The vault's copy of a session the harness deleted could not be read (damaged: it is
    /// refused, never misread).
    #[error(transparent)]
    Vault(#[from] notesoup_vault_store::VaultError),
    /// A subagent asked for history ([`named`]): it belongs to the main conversation.
    #[error(
        "`{op}` is not available to subagents (agent {agent}): history belongs to the main conversation"
    )]
    Subagent {
        /// The history tool asked.
        op: String,
        /// The subagent's id.
        agent: String,
    },
    /// Neither a session nor a bound live transcript ([`named`]).
    #[error(
        "`{op}` needs `session`: no current session is bound here. Name one as <harness>:<sessionId> (claude, pi or codex; a unique id prefix is enough); history_sessions lists them"
    )]
    Unbound {
        /// The history tool asked.
        op: String,
    },
    /// The live session with no head recorded yet ([`named`]).
    #[error(
        "`{op}` on the current session needs `head`, the uuid of the latest main session.append result; none has been recorded yet"
    )]
    NoHead {
        /// The history tool asked.
        op: String,
    },
}

impl StoreError {
    /// A stable `snake_case` code for replies: the selector's or decoder's own code,
    /// `ambiguous_session`, `not_found`, `history_cycle`, `history_link`, `not_regular`,
    /// `too_large`, `io_error`, `vault_damaged`, `subagent`, `history_unavailable` or `no_head`.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Selector(err) => err.code(),
            StoreError::Duplicate { .. } => "duplicate_session",
            StoreError::NoFile { .. } => "not_found",
            StoreError::PiCycle { .. } | StoreError::CodexCycle { .. } => "history_cycle",
            StoreError::SessionFile { source, .. } | StoreError::Transcript { source, .. } => {
                if source.kind() == std::io::ErrorKind::NotFound {
                    "not_found"
                } else {
                    "io_error"
                }
            }
            StoreError::File(err) => err.refusal_code().unwrap_or(if err.is_not_found() {
                "not_found"
            } else {
                "io_error"
            }),
            StoreError::LineTooLong { .. } => "too_large",
            StoreError::ParentOutside { .. } => "history_link",
            StoreError::Claude { source, .. } => source.code(),
            StoreError::Pi(err) => err.code(),
            StoreError::Codex(err) => err.code(),
            StoreError::Model(_) => "internal",
            StoreError::Vault(notesoup_vault_store::VaultError::Damaged { .. }) => "vault_damaged",
            StoreError::Vault(notesoup_vault_store::VaultError::File(err)) => {
                err.refusal_code().unwrap_or("io_error")
            }
            StoreError::Vault(_) => "io_error",
            StoreError::Subagent { .. } => "subagent",
            StoreError::Unbound { .. } => "history_unavailable",
            StoreError::NoHead { .. } => "no_head",
        }
    }
}
