//! The strict decoder of Claude Code 2.1.319's persisted JSONL transcripts into
//! `notesoup-history-core`'s model.
//!
//! This crate is pure: it takes the transcript's bytes (whole, or line by line through
//! [`Decoder`]) and does no IO; `notesoup-history-store` reads the file. It decodes one
//! session file at a time:
//!
//! - **Seqs** are allocated over first-occurrence append order, before branch filtering:
//!   one per `user`/`assistant`/`system`/`attachment` row (a message, attachment or
//!   notice), plus one per tool use and one per tool result block. A repeated uuid
//!   allocates nothing (and must not conflict); other record types are ignored and
//!   allocate nothing.
//! - **The selected tree** follows the latest `parentUuid` links from the head; a compact
//!   boundary also joins its `logicalParentUuid` and its recorded preserved uuids, so old
//!   events stay readable. Preserved uuids that were never persisted are skipped. Tool
//!   results written as siblings of the selected branch (parallel tool calls) join it when
//!   they answer a selected call.
//! - **Windows** are `claude:<sessionId>:<ordinal>`: 0 at a root, each compact boundary
//!   advances it, a complete retained notesoup boot block (`<notesoup-boot
//!   window="claude:<id>:<n>">` … `</notesoup-boot>` in a user text or an attachment
//!   rendering) names it (re-anchoring it; it does not advance it again). A duplicated
//!   row keeps the window of its first occurrence.
//! - **Refusals** ([`DecodeError`], each with its line): malformed committed lines,
//!   invalid schemas of the four supported types, conflicting duplicates, session or
//!   sidechain mismatches, `parentUuid` cycles.
//! - **One pass per line**: a line is parsed once, its message in place; a line that
//!   parse is not sure of (another shape, not UTF-8, a row that does not check) is decided
//!   field by field, the path every refusal and its reason come from.
//! - **Skimming**: [`Decoder::feed_skimmed`] checks every row by the same one-pass parse
//!   but keeps it as a structure-only state keeps it (placeholders, the whole bodies'
//!   fingerprint), its texts read where they lie in the line and never copied unless
//!   escaped (a cold history read). [`Decoder::feed_picking`] skims every row too and
//!   notes the events whose texts its caller picks (a cold search counts them unread).
//! - **Resuming**: [`Decoder::snapshot`] serializes the state after the lines fed so far,
//!   and [`Decoder::resume`] continues from it, so a caller that keeps the state of a
//!   file's committed prefix decodes only the lines appended since (every line is still
//!   checked exactly once).
//! - **The index's format**: [`index`] writes and reads a transcript's index (what it
//!   vouches for, where each covered line starts, the snapshot, a checksum) to and from
//!   the streams its caller opens; [`RawQuery`] is the raw search of covered lines for a
//!   literal (JSON-escape aware, with the rows' [`TextSpan`]s), so a search of rows whose
//!   bodies stay in the file decodes only the lines that may hold it.
//! - **Window facts**: [`window_facts()`] reads a decoded transcript for the reset flow of a
//!   process that has no window record: the current window (never below an ordinal a
//!   retained boot named), the newest boot, the compactions since, and whether that boot is
//!   another session's (a fork).
//!
//! # Invariants
//!
//! - Seqs are allocated before any branch filtering, so they never move when the file grows.
//! - A window ordinal is never invented: ancestry that stops at a missing record gives
//!   `claude:<sessionId>:unknown:<missingUuid>`.
//! - Anything it cannot read strictly is refused with its line and reason; only an
//!   unterminated final line that does not parse (a write in progress) is ignored. A torn
//!   write that a resumed session wrote past is refused too, although Claude Code skips
//!   it: the spec refuses every malformed committed line, so no history is handed over
//!   with a hole nobody was told of. A lone surrogate escape (`\ud83d`: a string cut
//!   inside an emoji, as JavaScript writes it) is valid JSON and reads as U+FFFD.
//! - The one-pass parse accepts nothing the field-by-field one refuses and makes the same
//!   row (a test holds the two to that on every real line and thousands of mutations).
//! - A state that does not read back exactly is refused by [`Decoder::resume`], never
//!   patched; the caller must vouch that the prefix it covers is byte-identical.
//!
//! ```
//! use notesoup_history_claude::{decode, Head, Options};
//!
//! let jsonl = concat!(
//!     r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"s1","#,
//!     r#""message":{"role":"user","content":"list the files"}}"#, "\n",
//!     r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":false,"sessionId":"s1","#,
//!     r#""message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#, "\n",
//!     r#"{"type":"user","uuid":"u2","parentUuid":"a1","isSidechain":false,"sessionId":"s1","#,
//!     r#""message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Cargo.toml"}]}}"#, "\n",
//!     r#"{"type":"user","uuid":"u3","parentUuid":"u2","isSidechain":false,"sessionId":"s1","mes"#,
//! );
//! let transcript = decode(jsonl.as_bytes(), &Options::default(), &Head::Leaf)?;
//! // u1 → 1; a1 → 2 (+ tool use 3); u2 → 4 (+ tool result 5); the torn last line is ignored.
//! let seqs: Vec<u64> = transcript.events.iter().map(|e| e.seq).collect();
//! assert_eq!(seqs, [1, 2, 3, 4, 5]);
//! assert_eq!(transcript.session.window_id(&transcript.head_window), "claude:s1:0");
//! # Ok::<(), notesoup_history_claude::DecodeError>(())
//! ```

#![forbid(unsafe_code)]

mod decoder;
mod elided;
mod errors;
mod graph;
pub mod index;
mod last_time;
mod raw_folded;
mod raw_search;
mod rows;
mod spans;
mod state;
mod summary;
#[cfg(test)]
mod tests;
mod uuids;
mod window_facts;

pub use decoder::{Decoder, ElidedRow, FEED_LINES, Head, Options, Skeleton, decode, decode_from};
pub use errors::DecodeError;
pub use last_time::last_time;
pub use raw_folded::FoldedQuery;
pub use raw_search::RawQuery;

/// The session id a Claude Code transcript's file name holds: Claude names a session's
/// transcript `<session id>.jsonl` (a subagent's `agent-<id>.jsonl`). `None` for a name
/// that is not a transcript's.
///
/// ```
/// use notesoup_history_claude::session_id_from_file_name;
/// assert_eq!(session_id_from_file_name("da56055c.jsonl"), Some("da56055c"));
/// assert_eq!(session_id_from_file_name("shadow"), None);
/// ```
pub fn session_id_from_file_name(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl").filter(|id| !id.is_empty())
}
pub use rows::UUID_MAX_BYTES;
pub use spans::{TextSpan, short_escaped};
pub use state::StateError;
pub use summary::summary;
pub use window_facts::{WindowFacts, WindowFactsError, window_facts};
