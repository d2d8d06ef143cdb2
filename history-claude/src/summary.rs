//! A Claude transcript's recent-sessions listing line, read from the start of its file.

use notesoup_history_core::SessionSummary;
use notesoup_window::Host;
use serde_json::Value;

/// The listing line of session `id` from the first bytes of its transcript (the first
/// 64 KiB are enough): the start time and cwd of its first row, and the first prompt a
/// person typed (a user row that is not meta, not a compact summary, not a plugin's prompt,
/// and whose text does not start with `<`, as command and hook echoes do); for a session
/// begun with a command and never prompted, that command. A start cut mid-line is passed
/// over; a whole line (ended by its line break) that is not JSON makes the session
/// `unreadable`, as its decode refuses it (a file of random bytes is not an empty session).
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
    let mut command = None;
    let whole_lines = memchr::memchr_iter(b'\n', start).count();
    for (n, line) in start.split(|&b| b == b'\n').enumerate() {
        let Ok(row) = serde_json::from_str::<Value>(&String::from_utf8_lossy(line)) else {
            if n < whole_lines && !line.iter().all(u8::is_ascii_whitespace) {
                summary.unreadable = Some(format!("line {}: not a transcript record", n + 1));
                break;
            }
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
        if row.get("type").and_then(Value::as_str) != Some("user") {
            continue;
        }
        let is_prompt = row.get("isMeta").and_then(Value::as_bool) != Some(true)
            && row.get("isCompactSummary").and_then(Value::as_bool) != Some(true)
            // A plugin's prompt (notesoup's continuation, a fork's first row) is not typed.
            && row.pointer("/origin/kind").and_then(Value::as_str) != Some("plugin");
        let text = match row.pointer("/message/content") {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .and_then(|b| b.get("text").and_then(Value::as_str))
                .map(str::to_owned),
            _ => None,
        };
        let Some(text) = text else {
            continue;
        };
        if !text.starts_with('<') {
            if is_prompt {
                summary.first_prompt = Some(text);
                break;
            }
        } else if command.is_none() {
            command = slash_command(&text);
        }
    }
    // A session a person began with a command and never prompted: the command, as typed.
    if summary.first_prompt.is_none() {
        summary.first_prompt = command;
    }
    summary
}

/// The command a command echo names (`<command-name>/empty</command-name>…`), with its
/// arguments when it has any.
fn slash_command(echo: &str) -> Option<String> {
    let between = |open: &str, close: &str| {
        let start = echo.find(open)? + open.len();
        let len = echo[start..].find(close)?;
        Some(echo[start..start + len].trim().to_owned())
    };
    let name = between("<command-name>", "</command-name>").filter(|n| n.starts_with('/'))?;
    match between("<command-args>", "</command-args>").filter(|a| !a.is_empty()) {
        Some(args) => Some(format!("{name} {args}")),
        None => Some(name),
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    fn listed(rows: &[&str]) -> Option<String> {
        summary("s1", rows.join("\n").as_bytes()).first_prompt
    }

    /// A fork's first row is notesoup's continuation, a plugin's prompt (`origin.kind`
    /// `plugin`): the listing shows the person's prompt after it.
    #[test]
    fn a_plugins_prompt_is_not_the_first_prompt() {
        let plugin = r#"{"type":"user","origin":{"kind":"plugin","name":"notesoup"},"message":{"role":"user","content":"The notesoup plugin sent a message:\nFresh window."}}"#;
        let person = r#"{"type":"user","message":{"role":"user","content":"Forked: what now?"}}"#;
        assert_eq!(
            listed(&[plugin, person]).as_deref(),
            Some("Forked: what now?")
        );
        assert_eq!(listed(&[plugin]), None);
    }

    /// A whole line that is not JSON makes the session unreadable (its decode refuses it); a
    /// start cut mid-line does not.
    #[test]
    fn a_line_that_is_no_record_is_unreadable_and_a_cut_one_is_not() {
        let person = r#"{"type":"user","message":{"role":"user","content":"list the files"}}"#;
        let random = summary("s1", b"\x8f\x01garbage\n\x02more");
        assert_eq!(
            random.unreadable.as_deref(),
            Some("line 1: not a transcript record")
        );
        let cut = summary("s1", format!("{person}\n{{\"type\":\"assi").as_bytes());
        assert_eq!(cut.unreadable, None);
        assert_eq!(cut.first_prompt.as_deref(), Some("list the files"));
    }

    /// A session begun with a command and never prompted lists the command; a prompt after
    /// the command is the first prompt.
    #[test]
    fn a_session_begun_with_a_command_lists_it() {
        let empty = r#"{"type":"user","message":{"role":"user","content":"<command-name>/empty</command-name>\n<command-message>empty</command-message>\n<command-args></command-args>"}}"#;
        let cap = r#"{"type":"user","message":{"role":"user","content":"<command-name>/notesoup</command-name>\n<command-args>cap 100k</command-args>"}}"#;
        let hook = r#"{"type":"user","message":{"role":"user","content":"<local-command-stdout>done</local-command-stdout>"}}"#;
        let person = r#"{"type":"user","message":{"role":"user","content":"list the files"}}"#;
        assert_eq!(listed(&[empty, hook]).as_deref(), Some("/empty"));
        assert_eq!(listed(&[cap, empty]).as_deref(), Some("/notesoup cap 100k"));
        assert_eq!(listed(&[empty, person]).as_deref(), Some("list the files"));
        assert_eq!(listed(&[hook]), None);
    }
}
