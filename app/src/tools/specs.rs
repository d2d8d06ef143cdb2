//! The tools and commands notesoup offers a host, defined once: [`specs`] (name,
//! description, JSON Schema of the input, their limits taken from the crates that enforce
//! them) and [`commands`] (the slash commands of hosts that have them).

use notesoup_history_core::{
    ANSWER_LIMIT, DEFAULT_LIMIT, MAX_LIMIT, Order, Role, SESSIONS_DEFAULT, SESSIONS_MAX,
};
use notesoup_window::Host;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::Tool;

/// One tool as a host registers it (Claude Code shows it as `mcp__notesoup__<name>`, an
/// MCP client as `<name>`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The tool (its typed call is dispatched by it).
    #[serde(skip)]
    pub tool: Tool,
    /// The tool's name ([`Tool::name`]), also the helper op that answers it (`empty_brain`:
    /// op `tool`, which steps the session's reset flow).
    pub name: &'static str,
    /// A short title for people (an MCP client's tool list shows it).
    pub title: &'static str,
    /// What the model reads about the tool.
    pub description: String,
    /// The JSON Schema of the tool's input (an object schema, `additionalProperties:
    /// false`).
    pub input_schema: Value,
    /// What a call does to the brain, as MCP's tool annotations say it.
    pub hints: Hints,
}

/// What a tool's call does, as MCP's tool annotations (`readOnlyHint`, `destructiveHint`,
/// `idempotentHint`) say it: so a client can approve the read-only tools by itself and ask
/// before the ones that change or remove text. No tool reaches beyond this machine's notes
/// and transcripts (MCP's `openWorldHint` is false for all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hints {
    /// It changes nothing (the notes and history read tools).
    pub read_only: bool,
    /// It may replace or remove text: a whole note (`notes_write`), a passage
    /// (`notes_edit`), a note (`notes_delete`, kept in the trash a while), the window
    /// (`empty_brain`).
    pub destructive: bool,
    /// The same call again changes nothing more.
    pub idempotent: bool,
}

impl Hints {
    /// A tool that changes nothing.
    const READ: Self = Self {
        read_only: true,
        destructive: false,
        idempotent: true,
    };

    /// A tool that may replace or remove text; `idempotent` when the same call again
    /// changes nothing more.
    const fn destructive(idempotent: bool) -> Self {
        Self {
            read_only: false,
            destructive: true,
            idempotent,
        }
    }
}

impl ToolSpec {
    /// True for `empty_brain`: it ends the window, which only a host that runs notesoup's
    /// reset flow can do (op `tool` steps the session's flow), so [`super::call`] does not
    /// answer it and a host without one does not offer it.
    pub fn reset_flow(&self) -> bool {
        self.tool == Tool::EmptyBrain
    }
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
    /// It runs at once when typed while the agent works, instead of waiting for the turn to
    /// end (Claude Code's `immediate`): the clear commands, whose close-out uses the running
    /// turn (claude-hooks/EVENTS.md, "A clear command typed while the agent works").
    pub immediate: bool,
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

fn tool(tool: Tool, description: &str, input_schema: Value) -> ToolSpec {
    let (title, hints) = match tool {
        Tool::NotesList => ("List notes", Hints::READ),
        Tool::NotesRead => ("Read a note", Hints::READ),
        // The same text again is the same note (a stale version is refused, changing nothing).
        Tool::NotesWrite => ("Write a note", Hints::destructive(true)),
        // An append again appends again.
        Tool::NotesEdit => ("Edit a note", Hints::destructive(false)),
        // Deleting again finds nothing to delete.
        Tool::NotesDelete => ("Delete a note", Hints::destructive(true)),
        Tool::HistoryList => ("List and search history", Hints::READ),
        Tool::HistoryRead => ("Read history events", Hints::READ),
        Tool::HistorySessions => ("List sessions", Hints::READ),
        Tool::EmptyBrain => ("Clear the context window", Hints::destructive(false)),
    };
    ToolSpec {
        tool,
        name: tool.name(),
        title,
        description: description.to_owned(),
        input_schema,
        hints,
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
            Tool::NotesList,
            "List the notes in your brain: names, sizes, updated times, versions and first lines, optionally under one folder.",
            object(
                json!({"folder": string("Only notes under this folder, e.g. \"project\".")}),
                &[],
            ),
        ),
        tool(
            Tool::NotesRead,
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
            Tool::NotesWrite,
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
            Tool::NotesEdit,
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
            Tool::NotesDelete,
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
            Tool::HistoryList,
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
            Tool::HistoryRead,
            &format!(
                "Read whole history events by seq (one, or a range), with their window and time; a tool call shows its result. The answer fits {kib} KiB; a cut event ends with the exact arguments that continue it."
            ),
            object(
                json!({
                    "seq": {"type": "integer", "minimum": 1, "description": "One event."},
                    "from": {"type": "integer", "minimum": 1, "description": "First seq of a range; without `to`, read on from it as far as the answer holds."},
                    "to": {"type": "integer", "minimum": 1, "description": "Last seq of a range (inclusive)."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Bytes of the first event's text already read."},
                    "session": session,
                }),
                &[],
            ),
        ),
        tool(
            Tool::HistorySessions,
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
    tool(
        Tool::EmptyBrain,
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

/// The slash commands: `/notesoup` (status and the runtime cap), `/empty` and
/// `/fresh-window` (the same reset).
pub fn commands() -> Vec<CommandSpec> {
    vec![
        CommandSpec {
            name: "notesoup",
            description: "notesoup status; `/notesoup cap 100k` sets a runtime context cap, `cap off` removes it",
            argument_hint: Some("[cap [<tokens>|off]]"),
            immediate: false,
        },
        CommandSpec {
            name: "empty",
            description: "Let the agent save its notes, then clear this window and boot a fresh one from the notes",
            argument_hint: None,
            immediate: true,
        },
        CommandSpec {
            name: "fresh-window",
            description: "Save notes and start a fresh window (the same reset as /empty)",
            argument_hint: None,
            immediate: true,
        },
    ]
}
