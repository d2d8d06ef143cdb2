//! The history chain (base files cut at `history_base`), then items to events.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::{Map, Value};

use notesoup_history_core::{
    Body, Event, Role, Seq, SessionRef, SessionSummary, Transcript, Window,
};
use notesoup_window::Host;
use notesoup_window::marker::boot_marker;

use crate::lines::{
    HistoryBase, Line, Meta, each_line, file_ids, line_at, lines, meta_of, optional_str,
    required_str, shown,
};
use crate::{CodexError, CodexFile};

/// What one rollout line contributes.
enum Item {
    /// Events (one seq each), from a payload with this record id.
    Events {
        record: Option<String>,
        events: Vec<(Role, Body)>,
        /// Set for a real user prompt: it starts a turn.
        prompt: bool,
        /// Set for a user message carrying a numbered notesoup boot.
        boot: Option<u64>,
    },
    /// A `compacted` line: its summary opens a new window.
    Compacted { text: String },
    /// `thread_rolled_back`: the last `turns` user turns leave the history.
    Rollback { turns: usize },
    /// Metadata, reasoning, duplicated live events, and types newer than this decoder.
    Nothing,
}

/// One rollout line after the `session_meta`, converted as it is read: what the decode
/// needs of it, its JSON dropped.
struct Step {
    at: At,
    timestamp: Option<String>,
    /// What it contributes; `Err` is a schema refusal, raised when the decode reaches it
    /// (after the chain's checks).
    item: Result<Item, String>,
}

/// Where a line lies: its 1-based number, its bytes in its file, and its ordinal.
struct At {
    number: usize,
    span: Range<usize>,
    ordinal: Option<u64>,
}

/// One file of the chain, read up to the length that belongs to the history.
struct Part {
    meta: Meta,
    /// The lines that contribute something (or are refused), in order.
    steps: Vec<Step>,
    /// The ordinals of its first and last lines.
    first_ordinal: Option<u64>,
    last_ordinal: Option<u64>,
}

/// Reads `file[..limit]`: every line parsed and converted in turn, then its `session_meta`.
fn read_part(file: &CodexFile<'_>, limit: usize) -> Result<Part, CodexError> {
    let mut first: Option<Line> = None;
    let mut steps = Vec::new();
    let mut last_ordinal = None;
    for line in each_line(file, limit) {
        let line = line?;
        let ordinal = line.object.get("ordinal").and_then(Value::as_u64);
        last_ordinal = ordinal;
        if first.is_none() {
            first = Some(line);
            continue;
        }
        let item = item(&line.object);
        if matches!(item, Ok(Item::Nothing)) {
            continue;
        }
        steps.push(Step {
            at: At {
                number: line.number,
                span: line.span,
                ordinal,
            },
            timestamp: line
                .object
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_owned),
            item,
        });
    }
    let meta = meta_of(file, first.as_ref())?;
    let first_ordinal = first
        .as_ref()
        .and_then(|l| l.object.get("ordinal"))
        .and_then(Value::as_u64);
    Ok(Part {
        meta,
        steps,
        first_ordinal,
        last_ordinal,
    })
}

/// Decodes one Codex thread from its history chain: `chain[0]` is the oldest file, each
/// next file's `session_meta.history_base` names the previous one (a rewind segment names
/// its base, a fork names the file it was forked from), and the last file is the selected
/// session. Files are already decompressed (see [`crate::decompress`]). Ancestors are read
/// only up to the `end_byte_offset` their successor names.
pub fn decode(chain: &[CodexFile<'_>]) -> Result<Transcript, CodexError> {
    let Some(selected) = chain.last() else {
        return Err(CodexError::EmptyChain);
    };
    // Walk back from the selected file: each file's meta says how much of the previous
    // file belongs to this history.
    let mut parts: Vec<Part> = Vec::with_capacity(chain.len());
    let mut limit = selected.bytes.len();
    let mut successor: Option<(&CodexFile<'_>, HistoryBase, Option<u64>)> = None;
    for (index, file) in chain.iter().enumerate().rev() {
        let part = read_part(file, limit)?;
        let meta = &part.meta;
        check_name(file, meta)?;
        if let Some((next, base, next_first)) = successor.take() {
            check_link(file, meta, part.last_ordinal, next, &base, next_first)?;
        }
        match (&meta.history_base, index) {
            (Some(base), i) if i > 0 => {
                let previous = &chain[i - 1];
                let named = file_ids(previous.name).map(|ids| ids.segment.unwrap_or(ids.thread));
                if named.is_some_and(|id| id != base.thread_id) {
                    return Err(CodexError::HistoryBase {
                        file: file.name.to_owned(),
                        reason: format!(
                            "its history_base names `{}`, not {}",
                            base.thread_id, previous.name
                        ),
                    });
                }
                if base.end_byte_offset > previous.bytes.len()
                    || (base.end_byte_offset > 0
                        && previous.bytes[base.end_byte_offset - 1] != b'\n')
                {
                    return Err(CodexError::HistoryBase {
                        file: file.name.to_owned(),
                        reason: format!(
                            "end_byte_offset {} is not a line end of {} ({} bytes)",
                            base.end_byte_offset,
                            previous.name,
                            previous.bytes.len()
                        ),
                    });
                }
                limit = base.end_byte_offset;
                successor = Some((file, base.clone(), part.first_ordinal));
            }
            (None, i) if i > 0 => {
                return Err(CodexError::HistoryBase {
                    file: file.name.to_owned(),
                    reason: format!(
                        "it has no history_base, yet {} was given as its base",
                        chain[i - 1].name
                    ),
                });
            }
            _ => {}
        }
        parts.push(part);
    }
    parts.reverse();

    let missing: Vec<String> = parts[0]
        .meta
        .history_base
        .iter()
        .map(|b| b.thread_id.clone())
        .collect();
    let session = SessionRef {
        harness: Host::Codex,
        id: parts[parts.len() - 1].meta.id.clone(),
    };
    let mut state = State {
        window: match missing.first() {
            Some(id) => Window::Unknown {
                missing: id.clone(),
            },
            None => Window::Numbered(0),
        },
        next: 1,
        events: Vec::new(),
        turns: Vec::new(),
        seen: HashMap::new(),
    };
    for (index, (part, file)) in parts.into_iter().zip(chain).enumerate() {
        for step in part.steps {
            let item = step.item.map_err(|reason| CodexError::Line {
                file: file.name.to_owned(),
                line: step.at.number,
                reason,
            })?;
            state.apply(chain, index, &step.at, step.timestamp, item)?;
        }
    }
    Ok(Transcript {
        session,
        events: state.events,
        missing,
        head_window: state.window,
    })
}

/// The running decode: window, next seq, selected events and where each turn starts.
struct State {
    window: Window,
    next: Seq,
    events: Vec<Event>,
    /// Index in `events` of each real user prompt, in order.
    turns: Vec<usize>,
    /// Payload id → where it was first seen (file index in the chain, line, bytes), to
    /// spot repeats.
    seen: HashMap<String, (usize, usize, Range<usize>)>,
}

impl State {
    fn apply(
        &mut self,
        chain: &[CodexFile<'_>],
        file: usize,
        at: &At,
        timestamp: Option<String>,
        item: Item,
    ) -> Result<(), CodexError> {
        let record_of = |id: Option<String>| {
            id.unwrap_or_else(|| match at.ordinal {
                Some(ordinal) => format!("ordinal:{ordinal}"),
                None => format!("line:{}", at.number),
            })
        };
        match item {
            Item::Nothing => {}
            Item::Rollback { turns } => {
                let keep = self.turns.len().saturating_sub(turns);
                if let Some(&cut) = self.turns.get(keep) {
                    self.events.truncate(cut);
                }
                self.turns.truncate(keep);
            }
            Item::Compacted { text } => {
                if let Window::Numbered(n) = self.window {
                    self.window = Window::Numbered(n + 1);
                }
                self.push(
                    Role::Summary,
                    Body::Text { text },
                    record_of(None),
                    timestamp,
                );
            }
            Item::Events {
                record,
                events,
                prompt,
                boot,
            } => {
                if let Some(id) = &record
                    && self.repeated(chain, file, at, id)?
                {
                    return Ok(());
                }
                if let Some(ordinal) = boot {
                    self.window = Window::Numbered(ordinal);
                }
                if prompt {
                    self.turns.push(self.events.len());
                }
                let record = record_of(record);
                for (role, body) in events {
                    self.push(role, body, record.clone(), timestamp.clone());
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, role: Role, body: Body, record: String, timestamp: Option<String>) {
        self.events.push(Event {
            seq: self.next,
            role,
            window: self.window.clone(),
            body,
            record,
            timestamp,
        });
        self.next += 1;
    }

    /// True when this payload id was already seen with the same payload (it allocates
    /// nothing); a different payload under the same id is refused. Only where the first
    /// payload lies is kept: a repeat (rare) reads both payloads again.
    fn repeated(
        &mut self,
        chain: &[CodexFile<'_>],
        file: usize,
        at: &At,
        id: &str,
    ) -> Result<bool, CodexError> {
        let Some((first_file, first_line, first_span)) = self.seen.get(id) else {
            self.seen
                .insert(id.to_owned(), (file, at.number, at.span.clone()));
            return Ok(false);
        };
        let first = payload(&chain[*first_file], *first_line, first_span.clone())?;
        if first == payload(&chain[file], at.number, at.span.clone())? {
            return Ok(true);
        }
        Err(CodexError::Duplicate {
            file: chain[file].name.to_owned(),
            line: at.number,
            id: id.to_owned(),
            first: format!("{}:{first_line}", chain[*first_file].name),
        })
    }
}

/// The payload of the line at `span`, without the metadata a repeat may change.
fn payload(file: &CodexFile<'_>, line: usize, span: Range<usize>) -> Result<Value, CodexError> {
    let mut payload = match line_at(file, line, span)? {
        Value::Object(mut object) => object.remove("payload").unwrap_or(Value::Null),
        _ => Value::Null,
    };
    if let Value::Object(map) = &mut payload {
        map.remove("internal_chat_message_metadata_passthrough");
        map.remove("status");
    }
    Ok(payload)
}

fn check_name(file: &CodexFile<'_>, meta: &Meta) -> Result<(), CodexError> {
    match file_ids(file.name) {
        Some(ids) if ids.thread != meta.id => Err(CodexError::SessionMismatch {
            file: file.name.to_owned(),
            meta: meta.id.clone(),
            name: ids.thread.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// The id a `history_base.thread_id` names this file by: its segment id for a segment
/// file, else its thread id.
fn history_id<'a>(file: &'a CodexFile<'_>, meta: &'a Meta) -> &'a str {
    file_ids(file.name)
        .and_then(|ids| ids.segment)
        .unwrap_or(meta.id.as_str())
}

/// Checks that `next`'s `history_base` (`base`) names `file` and that the ordinals join:
/// `last` is the ordinal of `file`'s last line read, `next_first` that of `next`'s first.
fn check_link(
    file: &CodexFile<'_>,
    meta: &Meta,
    last: Option<u64>,
    next: &CodexFile<'_>,
    base: &HistoryBase,
    next_first: Option<u64>,
) -> Result<(), CodexError> {
    let bad = |reason: String| CodexError::HistoryBase {
        file: next.name.to_owned(),
        reason,
    };
    let id = history_id(file, meta);
    if base.thread_id != id {
        return Err(bad(format!(
            "its history_base names `{}`, not {} (`{id}`)",
            base.thread_id, file.name
        )));
    }
    if let Some(end) = base.end_ordinal_exclusive
        && (last.is_some_and(|last| last >= end) || next_first.is_some_and(|first| first != end))
    {
        return Err(bad(format!(
            "end_ordinal_exclusive {end} does not join {} (last ordinal {}) to this file (first ordinal {})",
            file.name,
            last.map_or_else(|| "none".into(), |n| n.to_string()),
            next_first.map_or_else(|| "none".into(), |n| n.to_string()),
        )));
    }
    Ok(())
}

/// What a rollout line holds; `Err` is a schema refusal reason.
fn item(object: &Map<String, Value>) -> Result<Item, String> {
    let kind = required_str(object, "type")?;
    let payload = || match object.get("payload") {
        Some(Value::Object(payload)) => Ok(payload),
        Some(other) => Err(format!("`payload` must be an object, got {}", shown(other))),
        None => Err("`payload` is missing".to_owned()),
    };
    match kind.as_str() {
        "response_item" => response_item(payload()?),
        "compacted" => {
            let text = required_str(payload()?, "message")?;
            Ok(Item::Compacted { text })
        }
        "event_msg" => {
            let payload = payload()?;
            if payload.get("type").and_then(Value::as_str) == Some("thread_rolled_back") {
                let turns = payload
                    .get("num_turns")
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or("thread_rolled_back needs a non-negative integer `num_turns`")?;
                return Ok(Item::Rollback { turns });
            }
            Ok(Item::Nothing)
        }
        _ => Ok(Item::Nothing),
    }
}

fn response_item(payload: &Map<String, Value>) -> Result<Item, String> {
    let kind = required_str(payload, "type").map_err(|r| format!("payload: {r}"))?;
    let record = optional_str(payload, "id").ok().flatten();
    match kind.as_str() {
        "message" => message(payload, record),
        "function_call" => {
            let id = required_str(payload, "call_id")?;
            let name = required_str(payload, "name")?;
            let arguments = required_str(payload, "arguments")?;
            let input =
                serde_json::from_str::<Value>(&arguments).map_or(arguments, |v| v.to_string());
            Ok(Item::Events {
                record: Some(record.unwrap_or_else(|| id.clone())),
                events: vec![(Role::Tool, Body::ToolCall { id, name, input })],
                prompt: false,
                boot: None,
            })
        }
        "custom_tool_call" => {
            let id = required_str(payload, "call_id")?;
            let name = required_str(payload, "name")?;
            let input = required_str(payload, "input")?;
            Ok(Item::Events {
                record: Some(record.unwrap_or_else(|| id.clone())),
                events: vec![(Role::Tool, Body::ToolCall { id, name, input })],
                prompt: false,
                boot: None,
            })
        }
        "local_shell_call" => {
            let id = required_str(payload, "call_id")?;
            let input = payload
                .get("action")
                .ok_or("`action` is missing")?
                .to_string();
            Ok(Item::Events {
                record: Some(record.unwrap_or_else(|| id.clone())),
                events: vec![(
                    Role::Tool,
                    Body::ToolCall {
                        id,
                        name: "local_shell".into(),
                        input,
                    },
                )],
                prompt: false,
                boot: None,
            })
        }
        "function_call_output" | "custom_tool_call_output" => {
            let id = required_str(payload, "call_id")?;
            let (text, is_error) = output(payload.get("output"))?;
            Ok(Item::Events {
                record: Some(record.unwrap_or_else(|| format!("{id}:output"))),
                events: vec![(Role::Tool, Body::ToolResult { id, text, is_error })],
                prompt: false,
                boot: None,
            })
        }
        // Reasoning (never visible), encrypted compactions, web searches and newer types.
        _ => Ok(Item::Nothing),
    }
}

fn message(payload: &Map<String, Value>, record: Option<String>) -> Result<Item, String> {
    let role = required_str(payload, "role")?;
    let Some(Value::Array(content)) = payload.get("content") else {
        return Err("a message needs a `content` array".into());
    };
    let mut text = String::new();
    for (index, part) in content.iter().enumerate() {
        let Value::Object(part) = part else {
            return Err(format!("content[{index}] is not an object"));
        };
        let kind = required_str(part, "type").map_err(|r| format!("content[{index}]: {r}"))?;
        if matches!(kind.as_str(), "input_text" | "output_text" | "text") {
            let piece = required_str(part, "text").map_err(|r| format!("content[{index}]: {r}"))?;
            if !text.is_empty() && !piece.is_empty() {
                text.push('\n');
            }
            text.push_str(&piece);
        }
    }
    let role = match role.as_str() {
        "assistant" => Role::Assistant,
        "user" if typed_by_user(payload, &text) => Role::User,
        "user" => Role::Attachment,
        // Developer and system instructions are the harness's prompt, not conversation.
        _ => return Ok(Item::Nothing),
    };
    let prompt = role == Role::User;
    let boot = if prompt {
        boot_marker(&text).and_then(|(_, n)| n)
    } else {
        None
    };
    Ok(Item::Events {
        record,
        events: vec![(role, Body::Text { text })],
        prompt,
        boot,
    })
}

/// The wrapper tags Codex puts around context it sends with the user role.
const INJECTED: [&str; 6] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
    "<user_shell_command>",
    "<skill>",
];

/// Whether a user-role message is a person's prompt (not context the harness injected):
/// by its recorded provenance when there is one, else by the harness's wrapper tags.
fn typed_by_user(payload: &Map<String, Value>, text: &str) -> bool {
    let provenance = payload
        .get("internal_chat_message_metadata_passthrough")
        .and_then(|m| m.get("content_item_metadata"))
        .and_then(Value::as_array);
    if let Some(items) = provenance {
        return items.iter().any(|item| {
            item.get("provenance")
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                == Some("user")
        });
    }
    let start = text.trim_start();
    !INJECTED.iter().any(|tag| start.starts_with(tag))
}

/// A tool output's text and error flag: a string, content items, or `{content, success}`.
fn output(output: Option<&Value>) -> Result<(String, bool), String> {
    match output {
        Some(Value::String(text)) => Ok((text.clone(), false)),
        Some(Value::Array(items)) => Ok((items_text(items), false)),
        Some(Value::Object(object)) => {
            let is_error = object.get("success").and_then(Value::as_bool) == Some(false);
            let text = match object.get("content") {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Array(items)) => items_text(items),
                _ => return Err("`output.content` must be a string or an array".into()),
            };
            Ok((text, is_error))
        }
        Some(other) => Err(format!(
            "`output` must be a string, an array or an object, got {}",
            shown(other)
        )),
        None => Err("`output` is missing".into()),
    }
}

fn items_text(items: &[Value]) -> String {
    items
        .iter()
        .filter_map(|item| item.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The listing line of a session from its file (the first few KiB are enough for a plain
/// file): id, start, cwd, the thread it was forked from, and the first prompt a person
/// typed. Only the `session_meta` line must be valid.
pub fn summary(file: &CodexFile<'_>) -> Result<SessionSummary, CodexError> {
    // A file start cut mid-line ends in an unterminated line, which `lines` skips; a bad line
    // after the meta only ends the search for the first prompt.
    let all = match lines(file, file.bytes.len()) {
        Ok(all) => all,
        Err(err) => {
            let line = match &err {
                CodexError::Malformed(err) => err.line(),
                CodexError::Line { line, .. } => *line,
                _ => 0,
            };
            if line <= 1 {
                return Err(err);
            }
            let cut = line_start(file.bytes, line);
            lines(file, cut)?
        }
    };
    let meta = meta_of(file, all.first())?;
    check_name(file, &meta)?;
    let first_prompt = all
        .iter()
        .skip(1)
        .find_map(|line| match item(&line.object) {
            Ok(Item::Events {
                events,
                prompt: true,
                ..
            }) => events.into_iter().find_map(|(_, body)| match body {
                Body::Text { text } => Some(text),
                _ => None,
            }),
            _ => None,
        });
    Ok(SessionSummary {
        harness: Host::Codex,
        id: meta.id,
        started: meta.timestamp,
        cwd: meta.cwd,
        first_prompt,
        parent: meta.forked_from_id.map(|id| format!("codex:{id}")),
        unreadable: None,
        vault_only: false,
    })
}

/// The byte offset where 1-based line `line` starts.
fn line_start(bytes: &[u8], line: usize) -> usize {
    bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(line.saturating_sub(2))
        .map_or(0, |(at, _)| at + 1)
}

/// The `session_meta` of a rollout (its first line; the first 64 KiB of the file are
/// enough unless the instructions in it are longer).
pub fn meta(file: &CodexFile<'_>) -> Result<Meta, CodexError> {
    let end = file
        .bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(file.bytes.len(), |at| at + 1);
    let first = lines(file, end)?;
    let meta = meta_of(file, first.first())?;
    check_name(file, &meta)?;
    Ok(meta)
}
