//! When a Pi session was last active: the time its newest entry records.

use notesoup_window::parse_moment;
use serde_json::Value;

/// The time (milliseconds since the Unix epoch) of the newest entry of `tail` (whole lines
/// of a session file's end) that records one: Pi 1.6.0 writes an ISO 8601 `timestamp` at
/// the top of every entry, the session header included (a message's own numeric
/// `message.timestamp` is not read). A line cut by a write under way is passed over.
///
/// ```
/// use notesoup_history_pi::last_time;
///
/// let tail = concat!(
///     r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-02T15:17:22.820Z","message":{"role":"user","content":"hi","timestamp":1}}"#, "\n",
///     r#"{"type":"message","id":"a2","#,
/// );
/// assert_eq!(last_time(tail.as_bytes()), Some(1_796_224_642_820));
/// ```
pub fn last_time(tail: &[u8]) -> Option<u64> {
    notesoup_history_core::last_line_time(tail, |line| {
        let entry: Value = serde_json::from_slice(line).ok()?;
        entry.get("timestamp")?.as_str().and_then(parse_moment)
    })
}
