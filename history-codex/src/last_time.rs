//! When a Codex rollout was last active: the time its newest line records.

use notesoup_window::parse_moment;
use serde_json::Value;

/// The time (milliseconds since the Unix epoch) of the newest line of `tail` (whole lines of
/// a plain rollout's end) that records one: Codex CLI 0.171.0 writes an ISO 8601
/// `timestamp` at the top of every rollout line, beside its `type` and `payload`. A line cut
/// by a write under way is passed over. (A `.jsonl.zst` rollout has no readable tail: the
/// store does not ask.)
///
/// ```
/// use notesoup_history_codex::last_time;
///
/// let tail = concat!(
///     r#"{"timestamp":"2026-12-02T15:18:59.283Z","type":"event_msg","payload":{"type":"task_complete"}}"#, "\n",
///     r#"{"timestamp":"2026-12-02T15:19:"#,
/// );
/// assert_eq!(last_time(tail.as_bytes()), Some(1_796_224_739_283));
/// ```
pub fn last_time(tail: &[u8]) -> Option<u64> {
    notesoup_history_core::last_line_time(tail, |line| {
        let line: Value = serde_json::from_slice(line).ok()?;
        line.get("timestamp")?.as_str().and_then(parse_moment)
    })
}
