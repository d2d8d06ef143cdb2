//! notesoup's decoder of Codex CLI rollout files (Codex 0.171.0), plain `.jsonl` or the
//! `.jsonl.zst` Codex writes for cold sessions.
//!
//! A Codex thread is a chain of files. A plain session is one
//! `rollout-<time>-<threadId>.jsonl`. A TUI rewind starts a segment file
//! `rollout-<time>-<threadId>_<segmentId>.jsonl` whose `session_meta.history_base` names
//! the base file and the byte length of it that still counts; a fork
//! (`codex fork`) starts a new thread whose file holds only its own suffix, its
//! `history_base` naming the file (base or segment) it was forked from. [`decode`] takes
//! the chain oldest first and reads it as one log:
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
//! - A line's JSON lives only while the line is read: [`decode`] keeps what each line
//!   yields and where a payload with an id lies (a repeat parses both payloads again),
//!   never the chain's parsed lines.
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
mod items;
mod lines;

pub use decode::{decode, meta, summary};
pub use lines::{FileIds, HistoryBase, Meta, file_ids};

use notesoup_history_core::{LineError, SessionFile};

/// One rollout file's (decompressed) bytes. A rollout file name is checked against the
/// thread id in its `session_meta`, and gives a segment file its segment id.
pub type CodexFile<'a> = SessionFile<'a>;

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

/// Most bytes one `.jsonl.zst` rollout may decompress to: 128 MiB. Decompression streams
/// and stops one byte past it ([`CodexError::TooLarge`]), so a zstd bomb costs at most this
/// much memory plus the decoder's window (which `ruzstd` caps at 100 MiB).
pub const DECOMPRESSED_MAX_BYTES: u64 = 128 * 1024 * 1024;

/// The JSONL inside a `.jsonl.zst` rollout (one or more zstd frames, as Codex writes
/// them), verifying each frame's checksum when it has one; more than
/// [`DECOMPRESSED_MAX_BYTES`] is refused with [`CodexError::TooLarge`].
pub fn decompress(name: &str, bytes: &[u8]) -> Result<Vec<u8>, CodexError> {
    decompress_from(name, bytes, DECOMPRESSED_MAX_BYTES)
}

/// [`decompress`] streaming from `compressed` (an open file, say), refusing more than
/// `limit` decompressed bytes after producing at most one byte past it.
///
/// ```
/// use notesoup_history_codex::{CodexError, decompress_from, decompress_head};
///
/// // A hand-made frame: one RLE block repeating `x` 100 000 times.
/// let size: u32 = 100_000;
/// let header = 1 | (1 << 1) | (size << 3); // last block, RLE, its size
/// let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]; // magic, no size, 128 KiB window
/// zst.extend_from_slice(&header.to_le_bytes()[..3]);
/// zst.push(b'x');
///
/// assert_eq!(decompress_from("a.jsonl.zst", &zst[..], 1 << 20)?.len(), 100_000);
/// let err = decompress_from("a.jsonl.zst", &zst[..], 1000).unwrap_err();
/// assert!(matches!(err, CodexError::TooLarge { limit: 1000, .. }));
/// // A listing needs only the head: decoding stops there.
/// assert_eq!(decompress_head("a.jsonl.zst", &zst[..], 64)?, vec![b'x'; 64]);
/// # Ok::<(), CodexError>(())
/// ```
pub fn decompress_from(
    name: &str,
    compressed: impl std::io::Read,
    limit: u64,
) -> Result<Vec<u8>, CodexError> {
    let (out, over) = inflate(name, compressed, limit)?;
    if over {
        return Err(CodexError::TooLarge {
            file: name.to_owned(),
            limit,
        });
    }
    Ok(out)
}

/// The first `max` decompressed bytes of `compressed` (all of it when shorter): what a
/// session listing shows. Decoding stops there, so a huge or hostile file costs no more.
pub fn decompress_head(
    name: &str,
    compressed: impl std::io::Read,
    max: u64,
) -> Result<Vec<u8>, CodexError> {
    let (mut out, _) = inflate(name, compressed, max)?;
    out.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Ok(out)
}

/// Decompress frame after frame until the input ends or more than `limit` bytes came out;
/// the flag says the latter (the bytes then hold `limit + 1`, the last frame unchecked).
fn inflate(
    name: &str,
    compressed: impl std::io::Read,
    limit: u64,
) -> Result<(Vec<u8>, bool), CodexError> {
    use std::io::{BufRead as _, Read as _};
    let zstd = |message: String| CodexError::Zstd {
        file: name.to_owned(),
        message,
    };
    let mut input = std::io::BufReader::new(compressed);
    let mut out = Vec::new();
    while !input
        .fill_buf()
        .map_err(|err| zstd(err.to_string()))?
        .is_empty()
    {
        let mut decoder =
            ruzstd::StreamingDecoder::new(&mut input).map_err(|err| zstd(err.to_string()))?;
        let room = limit - out.len() as u64;
        (&mut decoder)
            .take(room + 1)
            .read_to_end(&mut out)
            .map_err(|err| zstd(err.to_string()))?;
        if out.len() as u64 > limit {
            return Ok((out, true));
        }
        let frame = decoder.into_frame_decoder();
        if let (Some(stored), Some(computed)) = (
            frame.get_checksum_from_data(),
            frame.get_calculated_checksum(),
        ) && stored != computed
        {
            return Err(zstd(format!(
                "content checksum {computed:#010x} differs from the stored {stored:#010x}"
            )));
        }
    }
    Ok((out, false))
}

#[cfg(test)]
mod tests;
