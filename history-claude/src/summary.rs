//! A Claude transcript's recent-sessions listing line, read from the start of its file.

use notesoup_history_core::SessionSummary;
use notesoup_window::Host;
use serde_json::Value;

/// The listing line of session `id` from the first bytes of its transcript (the first
/// 64 KiB are enough): the start time and cwd of its first row, and the first prompt a
/// person typed (a user row that is not meta, not a compact summary, and whose text does
/// not start with `<`, as command and hook echoes do). Lines that are not JSON (a start cut
/// mid-line) are passed over; nothing here is refused.
///
/// ```
/// use notesoup_history_claude::summary;
///
/// let start = concat!(
///     r#"{"type":"user","timestamp":"2026-12-02T15:00:00Z","cwd":"/w","isMeta":true,"message":{"content":"<command-name>/clear</command-name>"}}"#, "\n",
///     r#"{"type":"user","message":{"content":[{"type":"text","text":"list the files"}]}}"#, "\n",
///     r#"{"type":"assistant","mes"#,
/// );
/// let line = summary("s1", start.as_bytes());
/// assert_eq!(line.started.as_deref(), Some("2026-12-02T15:00:00Z"));
/// assert_eq!(line.cwd.as_deref(), Some("/w"));
/// assert_eq!(line.first_prompt.as_deref(), Some("list the files"));
/// ```
pub fn summary(id: &str, start: &[u8]) -> SessionSummary {
    let mut summary = SessionSummary::new(Host::Claude, id);
    for line in start.split(|&b| b == b'\n') {
        let Ok(row) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if summary.started.is_none() {
            summary.started = row
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if summary.cwd.is_none() {
            summary.cwd = row.get("cwd").and_then(Value::as_str).map(str::to_owned);
        }
        let is_prompt = row.get("type").and_then(Value::as_str) == Some("user")
            && row.get("isMeta").and_then(Value::as_bool) != Some(true)
            && row.get("isCompactSummary").and_then(Value::as_bool) != Some(true);
        if !is_prompt {
            continue;
        }
        let text = match row.pointer("/message/content") {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .and_then(|b| b.get("text").and_then(Value::as_str))
                .map(str::to_owned),
            _ => None,
        };
        if let Some(text) = text.filter(|t| !t.starts_with('<')) {
            summary.first_prompt = Some(text);
            break;
        }
    }
    summary
}
