//! TEMPORARY: the shape of `notesoup_helper_bin::tools` (`specs()`, `call()`, `Binding`,
//! `ToolAnswer`) over the helper's existing ops, until that module lands; then this file is
//! replaced by a re-export and the schemas below (a copy of the plugin's `spec.ts`) go away.

use std::path::PathBuf;

use notesoup_helper_bin::{Context, run};
use serde_json::{Value, json};

/// One tool as a host registers it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolSpec {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) input_schema: Value,
}

/// What the host knows besides the model's arguments. An MCP server knows only its folder:
/// no transcript of its own, no head, no agent.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) cwd: PathBuf,
}

/// A tool's answer: the text the model reads and whether it is a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolAnswer {
    pub(crate) text: String,
    pub(crate) is_error: bool,
}

fn s(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub(crate) fn specs() -> Vec<ToolSpec> {
    let version = s(
        "The version a read or list reported; refused with version_conflict when the note changed since.",
    );
    let session = s(
        "Another session to read: <harness>:<sessionId> (claude, pi or codex; a unique id prefix is enough; history_sessions lists them); default: this session.",
    );
    vec![
        ToolSpec {
            name: "notes_list",
            description: "List the notes in your brain: names, sizes, updated times, versions and first lines, optionally under one folder.",
            input_schema: json!({"type": "object", "properties": {"folder": s("Only notes under this folder, e.g. \"project\".")}, "additionalProperties": false}),
        },
        ToolSpec {
            name: "notes_read",
            description: "Read one note and its version. Use offset and limit (in lines) to page through a long note.",
            input_schema: json!({"type": "object", "properties": {
                "name": s("The note name, e.g. \"plan\" or \"project/decisions\"."),
                "offset": {"type": "integer", "minimum": 1, "description": "The first line to read (1-based)."},
                "limit": {"type": "integer", "minimum": 1, "description": "Read at most this many lines."}},
                "required": ["name"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "notes_write",
            description: "Create a note or replace a whole note. Pass the version you last read to avoid overwriting a change made since.",
            input_schema: json!({"type": "object", "properties": {
                "name": s("The note name (lowercase letters, digits, -, _ and / for folders)."),
                "text": s("The whole new text of the note."), "version": version},
                "required": ["name", "text"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "notes_edit",
            description: "Edit a note in place: replace one exact, unique occurrence of `old` with `new`, or add text at the end with `append`.",
            input_schema: json!({"type": "object", "properties": {
                "name": s("The note name."),
                "old": s("The exact text to replace; it must occur exactly once."),
                "new": s("The replacement text."),
                "append": s("Text to add at the end of the note (instead of old/new)."),
                "version": version},
                "required": ["name"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "notes_delete",
            description: "Delete a note. Deleted notes are kept in a trash folder for a while, so a mistake can be undone.",
            input_schema: json!({"type": "object", "properties": {"name": s("The note name."), "version": version}, "required": ["name"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "history_list",
            description: "Page and search your own persisted history across windows and sessions: one folded line per event with its seq address, newest first, grouped by window. The answer fits 32 KiB; pass its cursor for the next page.",
            input_schema: json!({"type": "object", "additionalProperties": false, "properties": {
                "query": s("Literal, case-sensitive text to find."),
                "roles": {"type": "array", "items": {"enum": ["user", "assistant", "tool", "attachment", "notice", "summary"]}, "description": "Only these roles; default: every role but attachment."},
                "window": s("A window id, or its ordinal / unknown:<id> part."),
                "cursor": s("The cursor the previous page named."),
                "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 40},
                "order": {"enum": ["newest", "oldest"], "default": "newest"},
                "session": session}}),
        },
        ToolSpec {
            name: "history_read",
            description: "Read whole history events by seq (one, or a range), with their window and time; a tool call shows its result. The answer fits 32 KiB; a cut event ends with the exact arguments that continue it.",
            input_schema: json!({"type": "object", "additionalProperties": false, "properties": {
                "seq": {"type": "integer", "minimum": 1, "description": "One event."},
                "from": {"type": "integer", "minimum": 1, "description": "First seq of a range."},
                "to": {"type": "integer", "minimum": 1, "description": "Last seq of a range (inclusive)."},
                "offset": {"type": "integer", "minimum": 0, "description": "Bytes of the first event's text already read."},
                "session": session}}),
        },
        ToolSpec {
            name: "history_sessions",
            description: "List recent sessions of every coding agent on this machine (Claude Code, Pi, Codex), newest first: harness:id, start time, cwd and first prompt. Pass one as `session` to history_list or history_read to read it.",
            input_schema: json!({"type": "object", "additionalProperties": false, "properties": {
                "harness": {"enum": ["claude", "pi", "codex"], "description": "Only this harness."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 20}}}),
        },
    ]
}

pub(crate) fn call(name: &str, args: Value, binding: &Binding, ctx: &Context) -> ToolAnswer {
    let request = match name {
        n if n.starts_with("notes_") => {
            json!({"cwd": binding.cwd.to_string_lossy(), "args": args})
        }
        "history_list" | "history_read" if args.get("session").is_none() => {
            return ToolAnswer {
                text: format!(
                    "`{name}` needs `session`: this host binds no current session. Name one as <harness>:<sessionId> (claude, pi or codex; a unique id prefix is enough); history_sessions lists them."
                ),
                is_error: true,
            };
        }
        _ => args,
    };
    let out = run(Some(name), request.to_string().as_bytes(), ctx);
    if out.reply["ok"] == true {
        ToolAnswer {
            text: out.reply["text"].as_str().unwrap_or_default().to_owned(),
            is_error: false,
        }
    } else {
        ToolAnswer {
            text: out.reply["error"]["message"]
                .as_str()
                .unwrap_or("notesoup: no answer")
                .to_owned(),
            is_error: true,
        }
    }
}

/// The boot text of the brain of `cwd`, as the boot resource serves it.
pub(crate) fn boot(cwd: &std::path::Path, ctx: &Context) -> Result<String, String> {
    let request = json!({"cwd": cwd.to_string_lossy(), "host": "claude", "session": "mcp", "ordinal": 0, "history": true});
    let out = run(Some("boot"), request.to_string().as_bytes(), ctx);
    match out.reply["text"].as_str() {
        Some(text) if out.reply["ok"] == true => Ok(text.to_owned()),
        _ => Err(out.reply["error"]["message"]
            .as_str()
            .unwrap_or("notesoup: no boot")
            .to_owned()),
    }
}
