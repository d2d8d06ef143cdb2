//! `tool`: one call of one of notesoup's own tools, as the model made it, answered whole.
//!
//! The hooks module sends the model's arguments raw (the `tool.call` event less the
//! engine's own keys) and, apart from them, what the session binds (`bound`: the session
//! folder, the transcript Claude named, the head, a subagent's id). The arguments are
//! checked against the tool's schema (`tools::specs`, the one source): a field the schema
//! does not declare is refused, so nothing the model writes can name a transcript or the
//! session folders. Then the tool runs (`tools::call`, with its retry of a head Claude has
//! not written yet), or, for `empty_brain`, the session's reset flow takes one
//! `empty_brain` step as op `reset` does with `session`. The reply is the effects the
//! shell obeys: a `tool_result` answering the call, and for `empty_brain` the flow's own
//! effects around it.

use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use crate::tools::{self, Binding, ToolAnswer};
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The tool, `notes_read` or as the model saw it, `mcp__notesoup__notes_read`.
    name: String,
    /// The model's arguments, raw; `null` (or absent) for none.
    #[serde(default)]
    args: Value,
    /// What the session binds; never the model's.
    bound: Bound,
    /// The session whose reset flow `empty_brain` steps (`reset`'s `session`).
    #[serde(default)]
    session: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bound {
    /// The session's working folder: it picks the brain.
    cwd: String,
    /// The transcript Claude named for this session, once it has.
    #[serde(default)]
    transcript_path: Option<String>,
    /// The uuid of the latest main append.
    #[serde(default)]
    head: Option<String>,
    /// Set when a subagent calls (Claude's `agentId`).
    #[serde(default)]
    agent_id: Option<String>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let Request {
        name,
        args,
        bound,
        session,
    } = parse("tool", request)?;
    let spec = match tools::spec_of(&name) {
        Ok(spec) => spec,
        Err(refusal) => return Ok(answered(&refusal)),
    };
    if !spec.reset_flow {
        let binding = Binding {
            cwd: bound.cwd,
            transcript_path: bound.transcript_path,
            head: bound.head,
            agent_id: bound.agent_id,
            roots: None,
        };
        return Ok(answered(&tools::call(spec.name, &args, &binding, ctx)));
    }
    let Some(session) = session else {
        return Err(OpError::bad_request(format!(
            "`tool` {} steps the session's reset flow: the request needs `session` ({{\"harness\", \"id\", \"process\"}})",
            spec.name
        )));
    };
    let args = match tools::arguments(&spec, &args) {
        Ok(args) => args,
        Err(refusal) => return Ok(answered(&refusal)),
    };
    let agent = if bound.agent_id.is_some() {
        "subagent"
    } else {
        "main"
    };
    let event = json!({"type": spec.name, "agent": agent, "args": args});
    super::reset::run(json!({"session": session, "event": event}), ctx)
}

/// The reply of a call the flow has no part in: its one `tool_result`.
fn answered(answer: &ToolAnswer) -> Fields {
    let mut fields = Fields::new();
    fields.insert(
        "effects".into(),
        json!([{"type": "tool_result", "text": answer.text, "is_error": answer.is_error}]),
    );
    fields
}

#[cfg(test)]
mod tests;
