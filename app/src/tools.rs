//! The tools and commands notesoup offers a host, defined once, and the one function that
//! answers a tool call for any host.
//!
//! [`specs`] lists the nine tools (name, description, JSON Schema of the input) every host
//! registers, their limits taken from the crates that enforce them; [`commands`] lists the
//! slash commands of hosts that have them. [`call`] answers one tool call: it holds the
//! model's arguments to the tool's schema (a field the schema does not declare is
//! refused), adds what the host knows ([`Binding`]: the session folder, the bound
//! transcript and head, a subagent's id, the call's own id, the session folders setting), calls the tool's
//! typed function ([`Tool`]: [`crate::notes`], [`crate::history`]) and returns the text
//! the model reads. The model can never set `roots`,
//! `transcript_path`, `head`, `agent_id` or `call_id`: those come from the binding alone.
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

use std::thread::sleep;
use std::time::Duration;

use notesoup_history_core::{ListArgs, ReadArgs};
use notesoup_history_store::Roots;
use notesoup_window::Host;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::history::{self, Answered, LiveSession, SessionSource};
use crate::{AppError, Context, notes};

mod schema;
mod specs;

pub(crate) use schema::arguments;
pub use schema::kind_of;
pub use specs::{CommandSpec, Hints, ToolSpec, commands, specs};

/// What the host knows of the call, beyond the model's arguments. A hooks module sends it
/// as `bound` (every field but `roots`, which only the host's own setting gives).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// The session's working folder: it picks the brain the notes tools use.
    pub cwd: String,
    /// The current session's transcript, when the host has bound one (Claude Code).
    #[serde(default)]
    pub transcript_path: Option<String>,
    /// The uuid of the current session's latest main append (Claude Code).
    #[serde(default)]
    pub head: Option<String>,
    /// The uuid of the main append before `head` (Claude Code): the row the tool call's
    /// own row follows. Read from when `head` is not on disk yet (`history_from`).
    #[serde(default)]
    pub prior_head: Option<String>,
    /// Set when a subagent calls (Claude's `agentId`).
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The host's id of this tool call (Claude's `tool_use_id`, Pi's tool call id): a
    /// history list leaves this call, pending in the running session, out of its answer.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The notesoup setting naming each harness's session folder.
    #[serde(skip)]
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

/// How many times a history call whose head is not in the transcript yet is asked again
/// (Claude writes the row a little after it reports it), waiting 50 ms more each time.
const HEAD_RETRIES: u32 = 6;

/// The tool `name` names (`history_list`, or the full `mcp__notesoup__history_list` a host
/// shows the model), or the refusal the model reads.
pub(crate) fn spec_of(name: &str) -> Result<ToolSpec, ToolAnswer> {
    // The name as a host shows it (`mcp__notesoup__notes_read`, `notesoup_notes_read`).
    let short = Host::ALL
        .iter()
        .find_map(|host| {
            name.strip_prefix(host.tool("").as_str())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or(name);
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

/// The nine tools, as [`call`] dispatches them; [`Tool::name`] is the one source of their
/// names ([`specs`] is built from it).
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
    if spec.reset_flow() {
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
    match dispatch(spec.tool, args, binding, ctx) {
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

/// [`refused`], with the vault's notice ([`history::vault_notice`]) on the line after when
/// the vault is there but cannot be read (the refusal's own line stays first, as every
/// refusal's is).
fn refused_noting_the_vault(err: &AppError, ctx: &Context) -> ToolAnswer {
    let mut answer = refused(err);
    if let Some(notice) = history::vault_notice(ctx) {
        answer.text.push('\n');
        answer.text.push_str(notice.trim_end());
    }
    answer
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
                agent_id: binding.agent_id.clone(),
                ..typed(tool, args)?
            };
            history::sessions(ctx, &args).map(|a| a.text)
        }
        Tool::HistoryList | Tool::HistoryRead => {
            let selector = match args.remove("session") {
                Some(Value::String(selector)) => Some(selector),
                _ => None,
            };
            let source = |head: &Option<String>| SessionSource {
                live: binding
                    .transcript_path
                    .clone()
                    .map(|transcript_path| LiveSession {
                        transcript_path,
                        head: head.clone(),
                    }),
                selector: selector.clone(),
                agent_id: binding.agent_id.clone(),
                asking: binding.call_id.clone(),
                roots: binding.roots.clone().unwrap_or_default(),
            };
            let (at_head, at_prior) = (source(&binding.head), source(&binding.prior_head));
            let prior = binding.prior_head.is_some().then_some(&at_prior);
            // A session named by selector that cannot be read (none has the id, say) may
            // be one only the unreadable vault holds: the refusal says so after its line.
            let refused_here = |err: AppError| match selector {
                Some(_) => refused_noting_the_vault(&err, ctx),
                None => refused(&err),
            };
            return if tool == Tool::HistoryList {
                let args: ListArgs = typed(tool, args)?;
                history_from(|s| history::list(ctx, s, &args), &at_head, prior, sleep)
                    .map_err(refused_here)
                    .and_then(|answered| model_text(answered, |page| page.text))
            } else {
                let args: ReadArgs = typed(tool, args)?;
                history_from(|s| history::read(ctx, s, &args), &at_head, prior, sleep)
                    .map_err(refused_here)
                    .and_then(|answered| model_text(answered, |page| page.text))
            };
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

/// What the model reads of a history answer: the page's text, or the refusal's (a tool
/// error, as every refusal is, though its text is the history's: its notice first).
fn model_text<T>(
    answered: Answered<T>,
    text: impl FnOnce(T) -> String,
) -> Result<String, ToolAnswer> {
    match answered {
        Answered::Answer(page) => Ok(text(page)),
        Answered::Refused(refusal) => Err(ToolAnswer {
            text: refusal.text,
            is_error: true,
        }),
    }
}

/// A history answer from the head, else from the append before it while the head's row is
/// not on disk yet. Measured in Claude Code 2.1.319 (e2e `s11` tmux): in the terminal the
/// engine writes the assistant row holding a tool call only after the tool answers, and
/// that row is the head the call is bound to, so every current-session history call
/// would be refused as not written, each retry a new such row. The row before it is the
/// same branch without the calling row (its parent: the main appends of one loop are
/// chained in append order), never another branch; both are asked [`retrying`].
fn history_from<T>(
    mut ask: impl FnMut(&SessionSource) -> Result<T, AppError>,
    head: &SessionSource,
    prior: Option<&SessionSource>,
    sleep: impl FnMut(Duration),
) -> Result<T, AppError> {
    let not_yet = |err: &AppError| err.code() == "head_not_written";
    retrying(
        || match (ask(head), prior) {
            (Err(err), Some(prior)) if not_yet(&err) => ask(prior),
            (result, _) => result,
        },
        not_yet,
        sleep,
    )
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

#[cfg(test)]
mod tests;
