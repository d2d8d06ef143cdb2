//! The tools and commands notesoup offers a host, defined once, and the one function that
//! answers a tool call for any host.
//!
//! [`specs`] lists the nine tools (name, description, JSON Schema of the input) every host
//! registers, their limits taken from the crates that enforce them; [`commands`] lists the
//! slash commands of hosts that have them. [`call`] answers one tool call: it holds the
//! model's arguments to the tool's schema (a field the schema does not declare is
//! refused), adds what the host knows ([`Binding`]: the session folder, the bound
//! transcript and head, a subagent's id, the session folders setting), calls the tool's
//! typed function ([`Tool`]: [`crate::notes`], [`crate::history`]) and returns the text
//! the model reads. The model can never set `roots`,
//! `transcript_path`, `head` or `agent_id`: those come from the binding alone.
//!
//! ```
//! use notesoup_app::Context;
//! use notesoup_app::tools::{Binding, call, specs};
//! use serde_json::json;
//!
//! assert_eq!(specs().len(), 9);
//! let ctx = Context::from_vars([("HOME", "/nonexistent")]);
//! let binding = Binding::new("/tmp/project");
//! // A history call of a host without a bound transcript: refused, saying what is missing.
//! let answer = call("history_list", &json!({"query": "x"}), &binding, &ctx);
//! assert!(answer.is_error);
//! assert!(answer.text.starts_with("notesoup history_unavailable: "));
//! ```

use std::time::Duration;

use notesoup_history_core::{
    ANSWER_LIMIT, DEFAULT_LIMIT, ListArgs, MAX_LIMIT, Order, ReadArgs, Role, SESSIONS_DEFAULT,
    SESSIONS_MAX,
};
use notesoup_history_store::Roots;
use notesoup_window::Host;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::history::{self, Answered, LiveSession, SessionSource};
use crate::{AppError, Context, notes};

/// One tool as a host registers it (Claude Code shows it as `mcp__notesoup__<name>`, an
/// MCP client as `<name>`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The tool's name, also the helper op that answers it (`empty_brain`: op `tool`, which steps the session's reset flow).
    pub name: &'static str,
    /// What the model reads about the tool.
    pub description: String,
    /// The JSON Schema of the tool's input (an object schema, `additionalProperties:
    /// false`).
    pub input_schema: Value,
    /// True for `empty_brain`: it ends the window, which only a host that runs notesoup's
    /// reset flow can do (op `tool` steps the session's flow), so [`call`] does not answer
    /// it and a host without one does not offer it.
    pub reset_flow: bool,
}

/// One slash command of a host that has them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandSpec {
    /// The command without its slash.
    pub name: &'static str,
    /// The line the host's command menu shows.
    pub description: &'static str,
    /// The arguments' hint, when it takes any.
    pub argument_hint: Option<&'static str>,
}

/// What the host knows of the call, beyond the model's arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Binding {
    /// The session's working folder: it picks the brain the notes tools use.
    pub cwd: String,
    /// The current session's transcript, when the host has bound one (Claude Code).
    pub transcript_path: Option<String>,
    /// The uuid of the current session's latest main append (Claude Code).
    pub head: Option<String>,
    /// Set when a subagent calls.
    pub agent_id: Option<String>,
    /// The notesoup setting naming each harness's session folder.
    pub roots: Option<Roots>,
}

impl Binding {
    /// A binding with only the session folder (a host that binds no transcript).
    pub fn new(cwd: impl Into<String>) -> Self {
        Self {
            cwd: cwd.into(),
            ..Self::default()
        }
    }
}

/// What the model reads back from a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolAnswer {
    /// The text of the answer, or of the refusal (`notesoup <code>: <message>`).
    pub text: String,
    /// True when the call was refused (the host shows it as a tool error).
    pub is_error: bool,
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// `{"type":"object","properties":...,"additionalProperties":false}` with `required`
/// when any field is.
fn object(properties: Value, required: &[&str]) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

fn tool(name: &'static str, description: &str, input_schema: Value) -> ToolSpec {
    ToolSpec {
        name,
        description: description.to_owned(),
        input_schema,
        reset_flow: false,
    }
}

/// The nine tools, in the order hosts list them: the five notes tools, the three history
/// tools, `empty_brain`.
pub fn specs() -> Vec<ToolSpec> {
    let mut specs = notes_tools();
    specs.extend(history_tools());
    specs.push(empty_brain());
    specs
}

fn notes_tools() -> Vec<ToolSpec> {
    let version = string(
        "The version a read or list reported; refused with version_conflict when the note changed since.",
    );
    vec![
        tool(
            "notes_list",
            "List the notes in your brain: names, sizes, updated times, versions and first lines, optionally under one folder.",
            object(
                json!({"folder": string("Only notes under this folder, e.g. \"project\".")}),
                &[],
            ),
        ),
        tool(
            "notes_read",
            "Read one note and its version. Use offset and limit (in lines) to page through a long note.",
            object(
                json!({
                    "name": string("The note name, e.g. \"plan\" or \"project/decisions\"."),
                    "offset": {"type": "integer", "minimum": 1, "description": "The first line to read (1-based)."},
                    "limit": {"type": "integer", "minimum": 1, "description": "Read at most this many lines."},
                }),
                &["name"],
            ),
        ),
        tool(
            "notes_write",
            "Create a note or replace a whole note. Pass the version you last read to avoid overwriting a change made since.",
            object(
                json!({
                    "name": string("The note name (lowercase letters, digits, -, _ and / for folders)."),
                    "text": string("The whole new text of the note."),
                    "version": version,
                }),
                &["name", "text"],
            ),
        ),
        tool(
            "notes_edit",
            "Edit a note in place: replace one exact, unique occurrence of `old` with `new`, or add text at the end with `append`.",
            object(
                json!({
                    "name": string("The note name."),
                    "old": string("The exact text to replace; it must occur exactly once."),
                    "new": string("The replacement text."),
                    "append": string("Text to add at the end of the note (instead of old/new)."),
                    "version": version,
                }),
                &["name"],
            ),
        ),
        tool(
            "notes_delete",
            "Delete a note. Deleted notes are kept in a trash folder for a while, so a mistake can be undone.",
            object(
                json!({"name": string("The note name."), "version": version}),
                &["name"],
            ),
        ),
    ]
}

/// The history tools: their limits are history-core's.
fn history_tools() -> Vec<ToolSpec> {
    let session = string(
        "Another session to read: <harness>:<sessionId> (claude, pi or codex; a unique id prefix is enough; history_sessions lists them); default: this session.",
    );
    let kib = ANSWER_LIMIT / 1024;
    let roles: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
    let orders = [Order::Newest, Order::Oldest].map(|o| json!(o));
    vec![
        tool(
            "history_list",
            &format!(
                "Page and search your own persisted history across windows and sessions: one folded line per event with its seq address, newest first, grouped by window. The answer fits {kib} KiB; pass its cursor for the next page."
            ),
            object(
                json!({
                    "query": string("Literal, case-sensitive text to find."),
                    "roles": {
                        "type": "array",
                        "items": {"enum": roles},
                        "description": "Only these roles; default: every role but attachment.",
                    },
                    "window": string("A window id, or its ordinal / unknown:<id> part."),
                    "cursor": string("The cursor the previous page named."),
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
                    "order": {"enum": orders, "default": Order::default()},
                    "session": session,
                }),
                &[],
            ),
        ),
        tool(
            "history_read",
            &format!(
                "Read whole history events by seq (one, or a range), with their window and time; a tool call shows its result. The answer fits {kib} KiB; a cut event ends with the exact arguments that continue it."
            ),
            object(
                json!({
                    "seq": {"type": "integer", "minimum": 1, "description": "One event."},
                    "from": {"type": "integer", "minimum": 1, "description": "First seq of a range."},
                    "to": {"type": "integer", "minimum": 1, "description": "Last seq of a range (inclusive)."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Bytes of the first event's text already read."},
                    "session": session,
                }),
                &[],
            ),
        ),
        tool(
            "history_sessions",
            "List recent sessions of every coding agent on this machine (Claude Code, Pi, Codex), newest first: harness:id, start time, cwd and first prompt. Pass one as `session` to history_list or history_read to read it.",
            object(
                json!({
                    "harness": {"enum": Host::HARNESSES, "description": "Only this harness."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": SESSIONS_MAX, "default": SESSIONS_DEFAULT},
                }),
                &[],
            ),
        ),
    ]
}

/// `empty_brain`, answered by a host's reset flow.
fn empty_brain() -> ToolSpec {
    ToolSpec {
        reset_flow: true,
        ..tool(
            "empty_brain",
            "Clear this context window once your notes hold everything the next window needs. The conversation is replaced by a fresh window that boots from your notes. Every tool call in this response still finishes first.",
            object(
                json!({
                    "last_word": string("An optional sticky note shown once at the top of the next window."),
                    "terminate": {"type": "boolean", "description": "true: stop after the clear instead of continuing the work in the fresh window. Default false."},
                }),
                &[],
            ),
        )
    }
}

/// The slash commands: `/notesoup` (status and the runtime cap), `/empty` and
/// `/fresh-window` (the same reset).
pub fn commands() -> Vec<CommandSpec> {
    vec![
        CommandSpec {
            name: "notesoup",
            description: "notesoup status; `/notesoup cap 100k` sets a runtime context cap, `cap off` removes it",
            argument_hint: Some("[cap [<tokens>|off]]"),
        },
        CommandSpec {
            name: "empty",
            description: "Let the agent save its notes, then clear this window and boot a fresh one from the notes",
            argument_hint: None,
        },
        CommandSpec {
            name: "fresh-window",
            description: "Save notes and start a fresh window (the same reset as /empty)",
            argument_hint: None,
        },
    ]
}

/// How many times a history call whose head is not in the transcript yet is asked again
/// (Claude writes the row a little after it reports it), waiting 50 ms more each time.
const HEAD_RETRIES: u32 = 6;

/// The tool `name` names (`history_list`, or the full `mcp__notesoup__history_list` a host
/// shows the model), or the refusal the model reads.
pub(crate) fn spec_of(name: &str) -> Result<ToolSpec, ToolAnswer> {
    let short = name.strip_prefix("mcp__notesoup__").unwrap_or(name);
    specs()
        .into_iter()
        .find(|s| s.name == short)
        .ok_or_else(|| {
            refuse(
                "unknown_tool",
                &format!(
                    "notesoup has no tool `{name}`; tools: {}",
                    specs()
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
}

/// A refusal as the model reads it: `notesoup <code>: <message>`, the message folded onto
/// one clipped line (whatever input it quotes).
pub(crate) fn refuse(code: &str, message: &str) -> ToolAnswer {
    ToolAnswer {
        text: format!("notesoup {code}: {}", crate::one_line(message)),
        is_error: true,
    }
}

/// The nine tools, as [`call`] dispatches them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `notes_list`.
    NotesList,
    /// `notes_read`.
    NotesRead,
    /// `notes_write`.
    NotesWrite,
    /// `notes_edit`.
    NotesEdit,
    /// `notes_delete`.
    NotesDelete,
    /// `history_list`.
    HistoryList,
    /// `history_read`.
    HistoryRead,
    /// `history_sessions`.
    HistorySessions,
    /// `empty_brain` (a host's reset flow answers it).
    EmptyBrain,
}

impl Tool {
    /// Every tool, in the order [`specs`] lists them.
    pub const ALL: [Tool; 9] = [
        Tool::NotesList,
        Tool::NotesRead,
        Tool::NotesWrite,
        Tool::NotesEdit,
        Tool::NotesDelete,
        Tool::HistoryList,
        Tool::HistoryRead,
        Tool::HistorySessions,
        Tool::EmptyBrain,
    ];

    /// The tool's name, as the model calls it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::NotesList => "notes_list",
            Tool::NotesRead => "notes_read",
            Tool::NotesWrite => "notes_write",
            Tool::NotesEdit => "notes_edit",
            Tool::NotesDelete => "notes_delete",
            Tool::HistoryList => "history_list",
            Tool::HistoryRead => "history_read",
            Tool::HistorySessions => "history_sessions",
            Tool::EmptyBrain => "empty_brain",
        }
    }

    /// The tool of this name, if any.
    pub fn named(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|tool| tool.name() == name)
    }
}

/// Answers the model's call of tool `name` with arguments `args`, for a host that knows
/// `binding`. The arguments are checked against the tool's schema (`specs`, the one source): a field
/// the schema does not declare is refused, so the model can never set what the binding
/// carries. A history call whose head Claude has not written yet is asked again a few
/// times. A refusal reads `notesoup <code>: <message>`.
pub fn call(name: &str, args: &Value, binding: &Binding, ctx: &Context) -> ToolAnswer {
    let spec = match spec_of(name) {
        Ok(spec) => spec,
        Err(refusal) => return refusal,
    };
    if spec.reset_flow {
        return refuse(
            "unsupported",
            &format!(
                "`{}` ends the window, which only a host running notesoup's reset flow can do (the `tool` op answers it there)",
                spec.name
            ),
        );
    }
    let args = match arguments(&spec, args) {
        Ok(args) => args,
        Err(refusal) => return refusal,
    };
    let Some(tool) = Tool::named(spec.name) else {
        return refuse("internal", &format!("`{}` has no typed call", spec.name));
    };
    match dispatch(tool, args, binding, ctx) {
        Ok(text) => ToolAnswer {
            text,
            is_error: false,
        },
        Err(refusal) => refusal,
    }
}

/// The model's checked arguments of `tool` as its typed arguments (the schema already
/// holds them to their fields and types; a refusal here is of a rule serde adds).
fn typed<A: serde::de::DeserializeOwned>(
    tool: Tool,
    args: Map<String, Value>,
) -> Result<A, ToolAnswer> {
    serde_json::from_value(Value::Object(args)).map_err(|err| {
        refuse(
            "bad_request",
            &format!("`{}` arguments: {err}", tool.name()),
        )
    })
}

/// A typed call's refusal as the model reads it.
fn refused(err: &AppError) -> ToolAnswer {
    refuse(err.code(), &err.to_string())
}

/// Runs `tool` on its checked arguments: the text the model reads.
fn dispatch(
    tool: Tool,
    mut args: Map<String, Value>,
    binding: &Binding,
    ctx: &Context,
) -> Result<String, ToolAnswer> {
    let cwd = binding.cwd.as_str();
    let text = match tool {
        Tool::NotesList => notes::list(ctx, cwd, &typed(tool, args)?).map(|a| a.text),
        Tool::NotesRead => notes::read(ctx, cwd, &typed(tool, args)?).map(|a| a.text),
        Tool::NotesWrite => notes::write(ctx, cwd, &typed(tool, args)?).map(|a| a.text),
        Tool::NotesEdit => notes::edit(ctx, cwd, &typed(tool, args)?).map(|a| a.text),
        Tool::NotesDelete => notes::delete(ctx, cwd, &typed(tool, args)?).map(|a| a.text),
        Tool::HistorySessions => {
            let args = history::SessionsArgs {
                roots: binding.roots.clone(),
                ..typed(tool, args)?
            };
            history::sessions(ctx, &args).map(|a| a.text)
        }
        Tool::HistoryList | Tool::HistoryRead => {
            let selector = match args.remove("session") {
                Some(Value::String(selector)) => Some(selector),
                _ => None,
            };
            let source = SessionSource {
                live: binding
                    .transcript_path
                    .clone()
                    .map(|transcript_path| LiveSession {
                        transcript_path,
                        head: binding.head.clone(),
                    }),
                selector,
                agent_id: binding.agent_id.clone(),
                roots: binding.roots.clone().unwrap_or_default(),
            };
            let not_yet = |err: &AppError| err.code() == "head_not_written";
            if tool == Tool::HistoryList {
                let args: ListArgs = typed(tool, args)?;
                retrying(
                    || history::list(ctx, &source, &args),
                    not_yet,
                    std::thread::sleep,
                )
                .map(|answered| match answered {
                    Answered::Answer(page) => page.text,
                    Answered::Refused(refusal) => refusal.text,
                })
            } else {
                let args: ReadArgs = typed(tool, args)?;
                retrying(
                    || history::read(ctx, &source, &args),
                    not_yet,
                    std::thread::sleep,
                )
                .map(|answered| match answered {
                    Answered::Answer(page) => page.text,
                    Answered::Refused(refusal) => refusal.text,
                })
            }
        }
        Tool::EmptyBrain => {
            return Err(refuse(
                "unsupported",
                "`empty_brain` ends the window, which only a host running notesoup's reset flow can do",
            ));
        }
    };
    text.map_err(|err| refused(&err))
}

/// Asks `ask` once, and again after a pause of 50 ms more each time while it refuses as
/// `not_yet` says (Claude writes the head's row a little after it reports it), at most
/// [`HEAD_RETRIES`] times more; the last result.
fn retrying<T, E>(
    mut ask: impl FnMut() -> Result<T, E>,
    not_yet: impl Fn(&E) -> bool,
    mut sleep: impl FnMut(Duration),
) -> Result<T, E> {
    let mut result = ask();
    for attempt in 1..=HEAD_RETRIES {
        if !result.as_ref().is_err_and(&not_yet) {
            break;
        }
        sleep(Duration::from_millis(50 * u64::from(attempt)));
        result = ask();
    }
    result
}

/// The model's arguments checked against the tool's schema, the one source of what a tool
/// takes: an object (`null` counts as no arguments) holding only declared fields, every
/// required one, each of its declared type, within its enum and its bounds. Anything else
/// is refused as `bad_request`, naming the field and what the tool takes, so the model can
/// correct the call; a field the schema does not declare (a `transcript_path`, a `roots`)
/// is refused rather than dropped, so it never reaches the op and a misspelt argument is
/// never silently ignored.
pub(crate) fn arguments(spec: &ToolSpec, args: &Value) -> Result<Map<String, Value>, ToolAnswer> {
    let name = spec.name;
    let bad = |message: String| refuse("bad_request", &message);
    let args = match args {
        Value::Null => Map::new(),
        Value::Object(args) => args.clone(),
        other => {
            return Err(bad(format!(
                "`{name}` arguments must be a JSON object, got {}",
                crate::kind(other)
            )));
        }
    };
    let empty = Map::new();
    let properties = spec.input_schema["properties"]
        .as_object()
        .unwrap_or(&empty);
    let takes = || {
        if properties.is_empty() {
            "no arguments".to_owned()
        } else {
            format!(
                "only `{}`",
                properties
                    .keys()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join("`, `")
            )
        }
    };
    if let Some(field) = args
        .keys()
        .find(|key| !properties.contains_key(key.as_str()))
    {
        return Err(bad(format!(
            "`{name}` takes no argument `{}`; it takes {}",
            notesoup_history_core::clip(field.clone(), 100),
            takes()
        )));
    }
    for required in spec.input_schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !args.contains_key(required) {
            return Err(bad(format!("`{name}` needs `{required}`")));
        }
    }
    for (field, value) in &args {
        if let Err(why) = fits(&properties[field.as_str()], value) {
            return Err(bad(format!("`{name}` argument `{field}`: {why}")));
        }
    }
    Ok(args)
}

/// Whether `value` fits one property schema of the kinds [`specs`] writes (a type, an
/// enum, an array of an enum, integer bounds); why not, in words.
fn fits(schema: &Value, value: &Value) -> Result<(), String> {
    if let Some(values) = schema["enum"].as_array() {
        return if values.contains(value) {
            Ok(())
        } else {
            Err(format!("must be one of {}", Value::Array(values.clone())))
        };
    }
    let kind = schema["type"].as_str().unwrap_or_default();
    let fits = match kind {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "array" => match value.as_array() {
            Some(items) => {
                for item in items {
                    fits(&schema["items"], item).map_err(|why| format!("an item {why}"))?;
                }
                true
            }
            None => false,
        },
        _ => true,
    };
    if !fits {
        return Err(format!("must be {}, got {}", an(kind), crate::kind(value)));
    }
    if let Some(n) = value.as_i64().or_else(|| value.as_u64().map(|_| i64::MAX)) {
        if let Some(min) = schema["minimum"].as_i64().filter(|min| n < *min) {
            return Err(format!("must be at least {min}, got {value}"));
        }
        if let Some(max) = schema["maximum"].as_i64().filter(|max| n > *max) {
            return Err(format!("must be at most {max}, got {value}"));
        }
    }
    Ok(())
}

/// A JSON Schema type name with its article, as the refusals say it.
fn an(kind: &str) -> String {
    match kind {
        "integer" | "array" => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

#[cfg(test)]
mod tests;
