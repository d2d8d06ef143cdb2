//! One Pi session file to checked entries: the header, then one [`Entry`] per line with the
//! events it yields. Schemas are checked for the entry types that carry conversation;
//! other entry types only need their tree fields (`id`, `parentId`).

use std::io::BufRead;

use serde_json::{Map, Value};

use notesoup_history_core::{Body, LeaveOut, LeftOut, LineAt, LineReader, Role, line_fingerprint};
use notesoup_window::marker::boot_marker;

use crate::{PiError, PiFile};

/// The header line of a session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) id: String,
    pub(crate) timestamp: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) parent_session: Option<String>,
}

/// One tree entry: what its line yields (the line itself is not kept).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// 1-based line number in its file.
    pub(crate) line: usize,
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    pub(crate) timestamp: Option<String>,
    /// The events the entry yields, in order (each takes one seq).
    pub(crate) events: Vec<(Role, Body)>,
    /// Where each of `events` whose body was left in the file lies (empty when none was).
    pub(crate) left: Vec<Option<LeftOut>>,
    /// A `compaction` entry: its summary opens a new window.
    pub(crate) compaction: bool,
    /// The ordinal a retained notesoup boot in a user message names, when it names one.
    pub(crate) boot: Option<u64>,
    /// The xxh3-128 of the line as the file holds it, to tell a repeated entry from a
    /// conflicting one (the 128-bit rule the Claude decoder's repeats follow).
    pub(crate) fingerprint: u128,
}

/// A parsed file: its header and entries in append order.
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    pub(crate) header: Header,
    pub(crate) entries: Vec<Entry>,
}

/// The session versions this decoder reads (3 is Pi 1.6.0's; 2 differs only by the
/// `hookMessage` role name).
const VERSIONS: [u64; 2] = [2, 3];

/// The committed lines of the file (1-based numbers) with their JSON, read as [`parse`]
/// reads them.
pub(crate) fn lines<'a>(
    file: &PiFile<'a>,
) -> impl Iterator<Item = Result<(usize, Value), PiError>> + 'a {
    let name = file.name;
    let mut reader = LineReader::new(name, file.bytes);
    std::iter::from_fn(move || {
        next_line(&mut reader, name).map(|line| line.map(|(at, value)| (at.number, value)))
    })
}

/// The next committed line [`LineReader`] reads from the file `name` (a final unterminated
/// line that is not JSON is a write in progress, and ends the lines): its number, the
/// fingerprint of its text and where that lies, and its JSON.
fn next_line<R: BufRead>(
    reader: &mut LineReader<R>,
    name: &str,
) -> Option<Result<(LineAt, Value), PiError>> {
    let line = match reader.next_line()? {
        Ok(line) => line,
        Err(err) => return Some(Err(err.into())),
    };
    match json_value(line.text) {
        Ok(value) => {
            let at = LineAt {
                span: line.span.clone(),
                number: line.number,
                fingerprint: line_fingerprint(line.text),
            };
            Some(Ok((at, value)))
        }
        Err(err) => line.not_json(name, err).map(|err| Err(err.into())),
    }
}

/// Parses a whole file, one line at a time: header first, then entries; duplicates of an
/// id must be identical. The file is number `file` of the decode, whose bodies `leave`
/// (when given) leaves in their lines.
pub(crate) fn parse<R: BufRead>(
    reader: &mut LineReader<R>,
    file: usize,
    leave: Option<&LeaveOut<'_>>,
) -> Result<Parsed, PiError> {
    let mut header = None;
    let mut entries: Vec<Entry> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let name = reader.name().to_owned();
    while let Some(item) = next_line(reader, &name) {
        let (at, value) = item?;
        let (line, fingerprint) = (at.number, at.fingerprint);
        let bad = |reason: String| PiError::Entry {
            file: name.clone(),
            line,
            reason,
        };
        let Value::Object(mut object) = value else {
            return Err(bad("the line is not a JSON object".into()));
        };
        if header.is_none() {
            header = Some(header_of(&name, line, &mut object)?);
            continue;
        }
        let mut entry = read_entry(line, fingerprint, &mut object).map_err(bad)?;
        drop(object);
        if let Some(leave) = leave.filter(|l| l.may_take(file, at.span.len())) {
            entry.left = leave.leave_in(&mut entry.events, file, &at);
        }
        if let Some(&first) = seen.get(&entry.id) {
            if entries[first].fingerprint == entry.fingerprint {
                continue; // the same entry written twice allocates nothing
            }
            return Err(PiError::Duplicate {
                file: name,
                id: entry.id,
                first_line: entries[first].line,
                line,
            });
        }
        seen.insert(entry.id.clone(), entries.len());
        entries.push(entry);
    }
    let header = header.ok_or_else(|| PiError::Header {
        file: name,
        reason: "the file has no header line".into(),
    })?;
    Ok(Parsed { header, entries })
}

/// A line's JSON value; a lone surrogate escape (Pi writes with `JSON.stringify`, which
/// writes a string cut inside an emoji that way) is read as U+FFFD, where a Rust string
/// cannot hold it.
fn json_value(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(text).or_else(|err| match notesoup_history_core::lone_surrogates_replaced(
        text.as_bytes(),
    ) {
        Some(replaced) => serde_json::from_slice(&replaced),
        None => Err(err),
    })
}

/// The bodies of the events the entry on a Pi session file's line yields, decoded again
/// from the line's text (`number`: its 1-based number, for refusals), exactly as a decode
/// of the file made them: what reads a body left in its line.
pub(crate) fn line_bodies(text: &str, number: usize) -> Result<Vec<Body>, String> {
    let value = json_value(text).map_err(|err| err.to_string())?;
    let Value::Object(mut object) = value else {
        return Err("the line is not a JSON object".into());
    };
    let entry = read_entry(number, 0, &mut object)?;
    Ok(entry.events.into_iter().map(|(_, body)| body).collect())
}

/// The header of the file `name`, its line `line`.
pub(crate) fn header_of(
    name: &str,
    line: usize,
    object: &mut Map<String, Value>,
) -> Result<Header, PiError> {
    let bad = |reason: String| PiError::Header {
        file: name.to_owned(),
        reason: format!("line {line}: {reason}"),
    };
    if object.get("type").and_then(Value::as_str) != Some("session") {
        return Err(bad("the first line is not a `session` header".into()));
    }
    match object.get("version") {
        // Version 1 files have no tree; Pi rewrites them when it opens them.
        Some(Value::Number(n)) if n.as_u64().is_some_and(|v| VERSIONS.contains(&v)) => {}
        Some(other) => {
            return Err(PiError::Version {
                file: name.to_owned(),
                version: shown(other),
            });
        }
        None => {
            return Err(PiError::Version {
                file: name.to_owned(),
                version: "none (version 1)".into(),
            });
        }
    }
    let id = required_str(object, "id").map_err(bad)?;
    Ok(Header {
        id,
        timestamp: optional_str(object, "timestamp").map_err(bad)?,
        cwd: optional_str(object, "cwd").map_err(bad)?,
        parent_session: optional_str(object, "parentSession").map_err(bad)?,
    })
}

fn read_entry(
    line: usize,
    fingerprint: u128,
    object: &mut Map<String, Value>,
) -> Result<Entry, String> {
    let kind = required_str(object, "type")?;
    let id = required_str(object, "id")?;
    if id.is_empty() {
        return Err("the entry's `id` is empty".into());
    }
    let parent = match object.get_mut("parentId") {
        Some(Value::Null) => None,
        Some(Value::String(parent)) => Some(std::mem::take(parent)),
        Some(other) => {
            return Err(format!(
                "`parentId` must be a string or null, got {}",
                shown(other)
            ));
        }
        None => return Err("the entry has no `parentId`".into()),
    };
    let timestamp = optional_str(object, "timestamp")?;
    let mut entry = Entry {
        line,
        id,
        parent,
        timestamp,
        events: Vec::new(),
        left: Vec::new(),
        compaction: false,
        boot: None,
        fingerprint,
    };
    match kind.as_str() {
        "message" => {
            let Some(Value::Object(message)) = object.get_mut("message") else {
                return Err("a `message` entry needs a `message` object".into());
            };
            read_message(message, &mut entry)?;
        }
        "compaction" => {
            let summary = required_str(object, "summary")?;
            required_str(object, "firstKeptEntryId")?;
            entry.compaction = true;
            entry
                .events
                .push((Role::Summary, Body::Text { text: summary }));
        }
        "branch_summary" => {
            let summary = required_str(object, "summary")?;
            required_str(object, "fromId")?;
            entry
                .events
                .push((Role::Summary, Body::Text { text: summary }));
        }
        "custom_message" => {
            let text = content_text(object.get_mut("content"), "content")?;
            entry.events.push((Role::Attachment, Body::Text { text }));
        }
        // Not conversation: model and thinking changes, labels, names, extension state,
        // usage, context edits, and types newer than this decoder.
        _ => {}
    }
    Ok(entry)
}

fn read_message(message: &mut Map<String, Value>, entry: &mut Entry) -> Result<(), String> {
    let role = required_str(message, "role")?;
    match role.as_str() {
        "user" => {
            let text = content_text(message.get_mut("content"), "message.content")?;
            entry.boot = boot_marker(&text).and_then(|(_, ordinal)| ordinal);
            entry.events.push((Role::User, Body::Text { text }));
        }
        "assistant" => {
            let Some(Value::Array(blocks)) = message.get_mut("content") else {
                return Err("an assistant message needs a `content` array".into());
            };
            let mut text = String::new();
            let mut calls = Vec::new();
            for (index, block) in blocks.iter_mut().enumerate() {
                let Value::Object(block) = block else {
                    return Err(format!("message.content[{index}] is not an object"));
                };
                let kind = required_str(block, "type")
                    .map_err(|e| format!("message.content[{index}]: {e}"))?;
                match kind.as_str() {
                    "text" => {
                        let piece = required_str(block, "text")
                            .map_err(|e| format!("message.content[{index}]: {e}"))?;
                        push_paragraph(&mut text, piece);
                    }
                    "toolCall" => {
                        let id = required_str(block, "id")
                            .map_err(|e| format!("message.content[{index}]: {e}"))?;
                        let name = required_str(block, "name")
                            .map_err(|e| format!("message.content[{index}]: {e}"))?;
                        let input = match block.get("arguments") {
                            Some(arguments) => arguments.to_string(),
                            None => {
                                return Err(format!(
                                    "message.content[{index}]: a toolCall needs `arguments`"
                                ));
                            }
                        };
                        calls.push((Role::Tool, Body::ToolCall { id, name, input }));
                    }
                    // Thinking is never visible; images have no text.
                    _ => {}
                }
            }
            entry.events.push((Role::Assistant, Body::Text { text }));
            entry.events.extend(calls);
        }
        "toolResult" => {
            let id = required_str(message, "toolCallId")?;
            let text = content_text(message.get_mut("content"), "message.content")?;
            let is_error = match message.get("isError") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(format!("`isError` must be a boolean, got {}", shown(other)));
                }
            };
            entry
                .events
                .push((Role::Tool, Body::ToolResult { id, text, is_error }));
        }
        "bashExecution" => {
            let command = required_str(message, "command")?;
            let output = optional_str(message, "output")?.unwrap_or_default();
            let mut text = format!("!{command}");
            if !output.is_empty() {
                text.push('\n');
                text.push_str(&output);
            }
            entry.events.push((Role::Notice, Body::Text { text }));
        }
        "custom" | "hookMessage" => {
            let text = content_text(message.get_mut("content"), "message.content")?;
            entry.events.push((Role::Attachment, Body::Text { text }));
        }
        "branchSummary" | "compactionSummary" => {
            let text = required_str(message, "summary")?;
            entry.events.push((Role::Summary, Body::Text { text }));
        }
        // The prompt and tool checkpoint, and roles an extension added: no conversation.
        _ => {}
    }
    Ok(())
}

/// The visible text of a content field: a string, or the text blocks of an array (the
/// strings are moved out of the line's JSON, not copied).
fn content_text(content: Option<&mut Value>, field: &str) -> Result<String, String> {
    match content {
        Some(Value::String(text)) => Ok(std::mem::take(text)),
        Some(Value::Array(blocks)) => {
            let mut text = String::new();
            for (index, block) in blocks.iter_mut().enumerate() {
                let Value::Object(block) = block else {
                    return Err(format!("{field}[{index}] is not an object"));
                };
                let kind =
                    required_str(block, "type").map_err(|e| format!("{field}[{index}]: {e}"))?;
                if kind == "text" {
                    let piece = required_str(block, "text")
                        .map_err(|e| format!("{field}[{index}]: {e}"))?;
                    push_paragraph(&mut text, piece);
                }
            }
            Ok(text)
        }
        Some(other) => Err(format!(
            "`{field}` must be a string or an array, got {}",
            shown(other)
        )),
        None => Err(format!("`{field}` is missing")),
    }
}

/// Adds a text block to a message's text, a line break between two that are not empty
/// (the first block is moved in, not copied).
fn push_paragraph(text: &mut String, piece: String) {
    if text.is_empty() {
        *text = piece;
        return;
    }
    if !piece.is_empty() {
        text.push('\n');
    }
    text.push_str(&piece);
}

/// The string at `key`, moved out of the line's JSON (each key is read once).
fn required_str(object: &mut Map<String, Value>, key: &str) -> Result<String, String> {
    match object.get_mut(key) {
        Some(Value::String(s)) => Ok(std::mem::take(s)),
        Some(other) => Err(format!("`{key}` must be a string, got {}", shown(other))),
        None => Err(format!("`{key}` is missing")),
    }
}

/// The string at `key` if there is one, moved out of the line's JSON.
fn optional_str(object: &mut Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match object.get_mut(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(std::mem::take(s))),
        Some(other) => Err(format!("`{key}` must be a string, got {}", shown(other))),
    }
}

/// The text of a `message` entry with role `user`, when the object is one.
pub(crate) fn user_text(object: &mut Map<String, Value>) -> Option<String> {
    if object.get("type").and_then(Value::as_str) != Some("message") {
        return None;
    }
    let Some(Value::Object(message)) = object.get_mut("message") else {
        return None;
    };
    if message.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    content_text(message.get_mut("content"), "content").ok()
}

/// A JSON value for an error message, cut to 60 characters.
fn shown(value: &Value) -> String {
    notesoup_history_core::clip(value.to_string(), 60)
}
