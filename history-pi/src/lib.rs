//! notesoup's decoder of Pi coding agent session files (Pi 1.6.0, session format v3).
//!
//! A Pi session is one JSONL file: a `session` header, then tree entries linked by
//! `id`/`parentId`. [`decode`] selects the branch Pi itself would resume (the path from the
//! last entry of the file up to a root) and turns it into a
//! [`notesoup_history_core::Transcript`]:
//!
//! - **Seqs** are allocated over every entry of the file in append order, before branch
//!   filtering: a user message, a tool result, a compaction or branch summary, an
//!   extension message or a `!command` takes one; an assistant message takes one for its
//!   text (empty when it only called tools or thought) plus one per tool call. Model and
//!   thinking changes, labels, session names, extension state, system checkpoints and
//!   unknown entry types take none. An entry written twice identically allocates nothing.
//! - **Windows** are `pi:<sessionId>:<ordinal>`: ordinal 0 at the root, one more at each
//!   `compaction` entry on the path (its summary opens the new window; entries it kept
//!   keep their own window); a retained notesoup boot in a user message names its ordinal.
//!   Above a missing parent the ordinal is unknown: `pi:<sessionId>:unknown:<missingId>`.
//! - **Compaction loses nothing**: the path still holds every entry before the compaction,
//!   so old turns stay readable beside the summary. A `/tree` switch shows its
//!   `branch_summary`; the abandoned branch itself is not on the selected path.
//! - **Forks**: Pi 1.6.0 copies the forked path (same entry ids) into the new file and names
//!   the original in the header's `parentSession`. [`decode`] takes the ancestor files too
//!   (nearest first) and looks up there any parent the file itself lacks, so a fork reads
//!   whole even when only its suffix is on disk. Entries found in ancestors take seqs
//!   before the file's own entries.
//!
//! Refusals ([`PiError`]): malformed committed lines, invalid UTF-8, a missing or
//! unsupported header, invalid schemas of the entry types that carry conversation,
//! conflicting duplicates of an id, cycles, a file whose header id differs from its name,
//! and ancestors that are not the session's parent.
//!
//! # Invariants
//!
//! - Seqs cover every entry of the file in append order, abandoned branches included, so
//!   they never move when the file grows.
//! - Every refusal names the file, the line and the reason; only an unterminated last line
//!   that is not yet whole JSON (a write in progress) is skipped.
//! - A decode holds one line of a file at a time ([`decode_from`] reads each file once,
//!   line by line; a repeat is told from a conflict by its line's 128-bit fingerprint), and
//!   each event's text is held once: it moves into the transcript.
//! - A body [`decode_leaving`] leaves in its line (a placeholder in the transcript, and
//!   where the line lies) is what [`line_bodies`] decodes from that line: both read an
//!   entry by the one rule, so it reads back as the decode made it.
//!
//! ```
//! use notesoup_history_core::{Body, History, ListArgs, Role};
//! use notesoup_history_pi::{PiFile, decode};
//!
//! let file = concat!(
//!     r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-12-02T15:00:00.000Z","cwd":"/w"}"#, "\n",
//!     r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t1","message":{"role":"user","content":"list files"}}"#, "\n",
//!     r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"t2","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}]}}"#, "\n",
//!     r#"{"type":"message","id":"a3","parentId":"a2","timestamp":"t3","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"Cargo.toml"}],"isError":false}}"#, "\n",
//!     r#"{"type":"compaction","id":"a4","parentId":"a3","timestamp":"t4","summary":"Listed the files.","firstKeptEntryId":"a3","tokensBefore":900}"#, "\n",
//! );
//! let transcript = decode(&PiFile { name: "s.jsonl", bytes: file.as_bytes() }, &[])?;
//! let roles: Vec<Role> = transcript.events.iter().map(|e| e.role).collect();
//! assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::Tool, Role::Summary]);
//! assert!(matches!(&transcript.events[2].body, Body::ToolCall { name, .. } if name == "bash"));
//!
//! let history = History::new(transcript)?;
//! assert_eq!(history.head_window_id(), "pi:s1:1"); // the compaction opened window 1
//! let page = history.list(&ListArgs { query: Some("Cargo".into()), ..ListArgs::default() })?;
//! assert_eq!(page.shown, vec![3]); // the call stands for its result
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod decode;
mod entries;
mod last_time;

use notesoup_history_core::{LineError, SessionFile};

pub use last_time::last_time;

pub use decode::{
    decode, decode_from, decode_leaving, line_bodies, parent_session, session_id_from_file_name,
    summary,
};

/// One Pi session file, as read by the caller. Its file name is checked against the
/// header's session id when it has Pi's `<time>_<id>.jsonl` shape.
pub type PiFile<'a> = SessionFile<'a>;

/// Why a Pi session cannot be read. Each names the file and, where there is one, the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PiError {
    /// A committed line is not valid UTF-8 or not JSON.
    #[error(transparent)]
    Malformed(#[from] LineError),
    /// The header is missing or invalid.
    #[error("{file}: not a Pi session header: {reason}")]
    Header {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// A session format this decoder does not read.
    #[error(
        "{file}: Pi session format version {version} is not supported (versions 2 and 3 are; Pi rewrites older files when it opens them)"
    )]
    Version {
        /// The file.
        file: String,
        /// The version found.
        version: String,
    },
    /// An entry's schema is invalid.
    #[error("{file}:{line}: invalid entry: {reason}")]
    Entry {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Two different entries share an id.
    #[error(
        "{file}:{line}: entry id `{id}` was already used by a different entry on line {first_line}"
    )]
    Duplicate {
        /// The file.
        file: String,
        /// The id.
        id: String,
        /// Where it first appeared.
        first_line: usize,
        /// Where it appeared again, different.
        line: usize,
    },
    /// The parent links loop.
    #[error("{file}: the parent links of entry `{id}` form a cycle")]
    Cycle {
        /// The file.
        file: String,
        /// An entry on the cycle.
        id: String,
    },
    /// The header's id is not the id in the file name.
    #[error("{file}: the header names session `{header}` but the file name names `{name}`")]
    SessionMismatch {
        /// The file.
        file: String,
        /// The id in the header.
        header: String,
        /// The id in the file name.
        name: String,
    },
    /// An ancestor file is not the parent the session names.
    #[error(
        "{file}: given as the parent of `{child}`, whose header names {expected} as its parent"
    )]
    ParentMismatch {
        /// The ancestor file given.
        file: String,
        /// The session (file) it was given for.
        child: String,
        /// What the child's header names (`no parent` when none).
        expected: String,
    },
}

impl PiError {
    /// A stable `snake_case` code for replies, in the classes the Claude decoder uses.
    pub fn code(&self) -> &'static str {
        match self {
            PiError::Malformed(err) => err.code(),
            PiError::Header { .. } | PiError::Version { .. } | PiError::Entry { .. } => {
                "transcript_schema"
            }
            PiError::Duplicate { .. } => "transcript_conflict",
            PiError::Cycle { .. } => "transcript_cycle",
            PiError::SessionMismatch { .. } => "session_mismatch",
            PiError::ParentMismatch { .. } => "history_link",
        }
    }
}

#[cfg(test)]
mod tests;
