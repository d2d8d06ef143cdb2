//! When a Claude transcript was last active: the time its newest row records.

use std::borrow::Cow;

use notesoup_window::parse_moment;
use serde::Deserialize;

/// A row's time: Claude Code writes an ISO 8601 `timestamp` at the top of its user,
/// assistant, system and attachment rows (the rest of the row is passed over unread).
#[derive(Deserialize)]
struct Stamped<'a> {
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
}

/// The time (milliseconds since the Unix epoch) of the newest row of `tail` (whole lines of a
/// transcript's end) that records one; rows without one (`summary`, `file-history-snapshot`,
/// `last-prompt`) and a row cut by a write under way are passed over.
///
/// ```
/// use notesoup_history_claude::last_time;
///
/// let tail = concat!(
///     r#"{"type":"user","timestamp":"2026-12-02T15:18:58.139Z","message":{"content":"hi"}}"#, "\n",
///     r#"{"type":"last-prompt","lastPrompt":"hi"}"#, "\n",
///     r#"{"type":"assistant","timestamp":"2026-12-02T15:19"#,
/// );
/// assert_eq!(last_time(tail.as_bytes()), Some(1_796_224_738_139));
/// ```
pub fn last_time(tail: &[u8]) -> Option<u64> {
    notesoup_history_core::last_line_time(tail, |line| {
        let row: Stamped<'_> = serde_json::from_slice(line).ok()?;
        row.timestamp.as_deref().and_then(parse_moment)
    })
}
