//! notesoup's decoder of Codex CLI rollout files (Codex 0.171.0), plain `.jsonl` or the
//! `.jsonl.zst` Codex writes for cold sessions.
//!
//! A Codex thread is a chain of files. A plain session is one
//! `rollout-<time>-<threadId>.jsonl`. A TUI rewind starts a segment file
//! `rollout-<time>-<threadId>_<segmentId>.jsonl` whose `session_meta.history_base` names
//! the base file and the byte length of it that still counts; a fork
//! (`codex fork`) starts a new thread whose file holds only its own suffix, its
//! `history_base` naming the file (base or segment) it was forked from. [`decode`] (or
//! [`decode_from`], over readers) takes the chain oldest first and reads it as one log:
//!
//! - **Seqs** are allocated in log order: one per user, assistant or injected-context
//!   message (developer instructions take none), per tool call (`function_call`,
//!   `custom_tool_call`, `local_shell_call`) and per tool output, and one per `compacted`
//!   line. Reasoning, turn contexts, token counts and the live `event_msg` copies of items
//!   take none. A payload repeated under the same id allocates nothing.
//! - **Windows** are `codex:<threadId>:<ordinal>`: each `compacted` line opens the next
//!   (its summary is the window's first event); a retained notesoup boot in a user
//!   message names its ordinal. When the oldest file given still names a `history_base`,
//!   that base is reported missing and the ordinals are unknown
//!   (`codex:<threadId>:unknown:<baseId>`).
//! - **Roles**: a user message is [`Role::User`] when its recorded provenance is the user
//!   (older files: when it is not one of the harness's wrapper tags), otherwise
//!   [`Role::Attachment`]; `thread_rolled_back` drops the last turns from the selection.
//!
//! Refusals ([`CodexError`]): malformed committed lines, invalid UTF-8, a missing
//! `session_meta`, invalid schemas of the items that carry conversation, conflicting
//! duplicates, a file whose meta id differs from its name, a broken `history_base` link,
//! and corrupt or oversized zstd data.
//!
//! # Invariants
//!
//! - An ancestor is never read past the byte length its successor's `history_base` names,
//!   and a broken link is refused (`history_link`), never stitched.
//! - [`decompress`] streams, verifies each frame's checksum (when it has one), and refuses
//!   more than [`DECOMPRESSED_MAX_BYTES`] (`too_large`), so a zstd bomb costs bounded
//!   memory.
//! - Every refusal names the file, the line (where there is one) and the reason; only an
//!   unterminated last line that is not yet whole JSON (a write in progress) is skipped.
//! - The decoder holds one line of a file at a time: [`decode_from`] reads each file of
//!   the chain once, from a reader ([`CodexSource`]; a `.jsonl.zst` through an [`Inflate`]),
//!   line by line, and keeps only what each line yields, and for a payload with an id,
//!   where it lies and a 128-bit fingerprint of it, which a repeat must match. Never a
//!   file's bytes, nor its parsed lines. [`decode`] is [`decode_from`] over bytes.
//! - A body [`decode_leaving`] leaves in its line (a placeholder in the transcript, and
//!   where the line lies; never in a compressed file) is what [`line_bodies`] decodes
//!   from that line: both read an item by the one rule, so it reads back as the decode
//!   made it.
//!
//! [`Role::User`]: notesoup_history_core::Role::User
//! [`Role::Attachment`]: notesoup_history_core::Role::Attachment
//!
//! ```
//! use notesoup_history_core::{History, ListArgs, Role};
//! use notesoup_history_codex::{CodexFile, decode};
//!
//! let rollout = concat!(
//!     r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"th1","timestamp":"t0","cwd":"/w"}}"#, "\n",
//!     r#"{"timestamp":"t1","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}}"#, "\n",
//!     r#"{"timestamp":"t2","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"ls\"}","call_id":"c1"}}"#, "\n",
//!     r#"{"timestamp":"t3","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Cargo.toml\n"}}"#, "\n",
//!     r#"{"timestamp":"t4","type":"compacted","payload":{"message":"Summary: listed files."}}"#, "\n",
//! );
//! let transcript = decode(&[CodexFile { name: "rollout.jsonl", bytes: rollout.as_bytes() }])?;
//! let roles: Vec<Role> = transcript.events.iter().map(|e| e.role).collect();
//! assert_eq!(roles, [Role::User, Role::Tool, Role::Tool, Role::Summary]);
//!
//! let history = History::new(transcript)?;
//! assert_eq!(history.head_window_id(), "codex:th1:1");
//! let page = history.list(&ListArgs { query: Some("Cargo".into()), ..ListArgs::default() })?;
//! assert_eq!(page.shown, vec![2]); // the call stands for its output
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod decode;
mod fingerprint;
mod items;
mod last_time;
mod lines;
mod zst;

pub use decode::{decode, decode_from, decode_leaving, line_bodies, meta, meta_from, summary};
pub use last_time::last_time;
pub use lines::{FileIds, HistoryBase, Meta, file_ids};
pub use zst::{DECOMPRESSED_MAX_BYTES, Inflate, decompress, decompress_from, decompress_head};

use notesoup_history_core::{LineError, SessionFile};

/// One rollout file's (decompressed) bytes. A rollout file name is checked against the
/// thread id in its `session_meta`, and gives a segment file its segment id.
pub type CodexFile<'a> = SessionFile<'a>;

/// One rollout file as a reader, for [`decode_from`]: its name (checked as a
/// [`CodexFile`]'s is, and named in every refusal) and its bytes, read once, line by line
/// (an open file behind a `BufReader`, say, or a `&[u8]`). The decoder reads it to its end,
/// or, for a file a later one continues, up to the `end_byte_offset` that file names.
pub struct CodexSource<'a> {
    /// The file's path or name.
    pub name: &'a str,
    /// Its bytes, from the start.
    pub reader: &'a mut dyn std::io::BufRead,
    /// True when the bytes are a `.jsonl.zst`'s zstd frames: the decoder decompresses them
    /// as it reads (an [`Inflate`] capped at [`DECOMPRESSED_MAX_BYTES`]), and a corrupt or
    /// oversized stream is refused as [`decompress`] refuses it.
    pub compressed: bool,
}

/// Why a Codex thread cannot be read. Each names the file and, where there is one, the
/// line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodexError {
    /// No file was given.
    #[error("no rollout file was given")]
    EmptyChain,
    /// The zstd data of a `.jsonl.zst` is corrupt or truncated.
    #[error("{file}: the zstd data cannot be decompressed ({message})")]
    Zstd {
        /// The file.
        file: String,
        /// The decoder's account.
        message: String,
    },
    /// A committed line is not valid UTF-8 or not JSON.
    #[error(transparent)]
    Malformed(#[from] LineError),
    /// The first line is not a valid `session_meta`.
    #[error("{file}:{line}: not a Codex rollout: {reason}")]
    Meta {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A line's schema is invalid.
    #[error("{file}:{line}: invalid rollout line: {reason}")]
    Line {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Two different payloads share an id.
    #[error("{file}:{line}: item id `{id}` was already used by a different item at {first}")]
    Duplicate {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The id.
        id: String,
        /// Where it first appeared (`file:line`).
        first: String,
    },
    /// The meta's thread id is not the one in the file name.
    #[error("{file}: session_meta names thread `{meta}` but the file name names `{name}`")]
    SessionMismatch {
        /// The file.
        file: String,
        /// The id in `session_meta`.
        meta: String,
        /// The id in the file name.
        name: String,
    },
    /// A `.jsonl.zst` decompresses to more than the limit (see [`DECOMPRESSED_MAX_BYTES`]).
    #[error("{file}: decompresses to more than {limit} bytes; refused rather than read whole")]
    TooLarge {
        /// The file.
        file: String,
        /// The limit, in decompressed bytes.
        limit: u64,
    },
    /// A `history_base` link does not hold.
    #[error("{file}: broken history_base: {reason}")]
    HistoryBase {
        /// The file whose `history_base` is wrong.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

impl CodexError {
    /// A stable `snake_case` code for replies, in the classes the Claude decoder uses.
    pub fn code(&self) -> &'static str {
        match self {
            CodexError::EmptyChain => "not_found",
            CodexError::Zstd { .. } => "transcript_malformed",
            CodexError::Malformed(err) => err.code(),
            CodexError::Meta { .. } | CodexError::Line { .. } => "transcript_schema",
            CodexError::Duplicate { .. } => "transcript_conflict",
            CodexError::SessionMismatch { .. } => "session_mismatch",
            CodexError::HistoryBase { .. } => "history_link",
            CodexError::TooLarge { .. } => "too_large",
        }
    }
}

#[cfg(test)]
mod tests;
