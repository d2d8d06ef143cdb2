//! A rollout line's JSON to what it contributes to the log: events, a compaction, a
//! rollback, or nothing.

use serde_json::{Map, Value};

use notesoup_history_core::{Body, Role};
use notesoup_window::marker::boot_marker;

use crate::lines::{optional_str, required_str, shown, take_str};

/// What one rollout line contributes.
pub(crate) enum Item {
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

/// What a rollout line holds; `Err` is a schema refusal reason. The texts it keeps are
/// moved out of the line's JSON, not copied.
pub(crate) fn item(object: &mut Map<String, Value>) -> Result<Item, String> {
    let kind = required_str(object, "type")?;
    let payload = match object.get_mut("payload") {
        Some(Value::Object(payload)) => Ok(payload),
        Some(other) => Err(format!("`payload` must be an object, got {}", shown(other))),
        None => Err("`payload` is missing".to_owned()),
    };
    match kind.as_str() {
        "response_item" => response_item(payload?),
        "compacted" => {
            let text = take_str(payload?, "message")?;
            Ok(Item::Compacted { text })
        }
        "event_msg" => {
            let payload = payload?;
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

fn response_item(payload: &mut Map<String, Value>) -> Result<Item, String> {
    let kind = required_str(payload, "type").map_err(|r| format!("payload: {r}"))?;
    let record = optional_str(payload, "id").ok().flatten();
    match kind.as_str() {
        "message" => message(payload, record),
        "function_call" => {
            let id = required_str(payload, "call_id")?;
            let name = required_str(payload, "name")?;
            let arguments = take_str(payload, "arguments")?;
            let input =
                serde_json::from_str::<Value>(&arguments).map_or(arguments, |v| v.to_string());
            let record = record.unwrap_or_else(|| id.clone());
            Ok(tool(record, Body::ToolCall { id, name, input }))
        }
        "custom_tool_call" => {
            let id = required_str(payload, "call_id")?;
            let name = required_str(payload, "name")?;
            let input = take_str(payload, "input")?;
            let record = record.unwrap_or_else(|| id.clone());
            Ok(tool(record, Body::ToolCall { id, name, input }))
        }
        "local_shell_call" => {
            let id = required_str(payload, "call_id")?;
            let input = payload
                .get("action")
                .ok_or("`action` is missing")?
                .to_string();
            let record = record.unwrap_or_else(|| id.clone());
            let name = "local_shell".into();
            Ok(tool(record, Body::ToolCall { id, name, input }))
        }
        "function_call_output" | "custom_tool_call_output" => {
            let id = required_str(payload, "call_id")?;
            let (text, is_error) = output(payload.get_mut("output"))?;
            let record = record.unwrap_or_else(|| format!("{id}:output"));
            Ok(tool(record, Body::ToolResult { id, text, is_error }))
        }
        // Reasoning (never visible), encrypted compactions, web searches and newer types.
        _ => Ok(Item::Nothing),
    }
}

/// A tool call's or result's one event, under its record id.
fn tool(record: String, body: Body) -> Item {
    Item::Events {
        record: Some(record),
        events: vec![(Role::Tool, body)],
        prompt: false,
        boot: None,
    }
}

fn message(payload: &mut Map<String, Value>, record: Option<String>) -> Result<Item, String> {
    let role = required_str(payload, "role")?;
    let Some(Value::Array(content)) = payload.get_mut("content") else {
        return Err("a message needs a `content` array".into());
    };
    let mut text = String::new();
    for (index, part) in content.iter_mut().enumerate() {
        let Value::Object(part) = part else {
            return Err(format!("content[{index}] is not an object"));
        };
        let kind = required_str(part, "type").map_err(|r| format!("content[{index}]: {r}"))?;
        if matches!(kind.as_str(), "input_text" | "output_text" | "text") {
            let piece = take_str(part, "text").map_err(|r| format!("content[{index}]: {r}"))?;
            if text.is_empty() {
                text = piece;
            } else if !piece.is_empty() {
                text.push('\n');
                text.push_str(&piece);
            }
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

/// A tool output's text and error flag: a string, content items, or `{content, success}`
/// (a string is moved out of the line's JSON).
fn output(output: Option<&mut Value>) -> Result<(String, bool), String> {
    match output {
        Some(Value::String(text)) => Ok((std::mem::take(text), false)),
        Some(Value::Array(items)) => Ok((items_text(items), false)),
        Some(Value::Object(object)) => {
            let is_error = object.get("success").and_then(Value::as_bool) == Some(false);
            let text = match object.get_mut("content") {
                Some(Value::String(text)) => std::mem::take(text),
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
