//! `tool`: one call of one of notesoup's own tools, as the model made it, answered whole.
//!
//! The hooks module sends the model's arguments raw (the `tool.call` event less the
//! engine's own keys) and, apart from them, what the session binds (`bound`: the session
//! folder, the transcript Claude named, the head, a subagent's id). The arguments are
//! checked against the tool's schema (`tools::specs`, the one source): a field the schema
//! does not declare is refused, so nothing the model writes can name a transcript or the
//! session folders. Then the tool runs (`tools::call`, with its retry of a head Claude has
//! not written yet), or, for `empty_brain`, the session's reset flow kept on disk takes
//! one `empty_brain` step, as op `hook` steps it. The reply is the effects the
//! shell obeys: a `tool_result` answering the call, and for `empty_brain` the flow's own
//! effects around it.

use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use crate::session_flow::{SessionRef, kept};
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
    /// The session whose reset flow `empty_brain` steps (`reset`'s `session`), and whose
    /// budget warning may ride on a main result.
    #[serde(default)]
    session: Option<SessionRef>,
    /// The budget facts as op `hook` takes them (`facts.budget`), for a main call: its
    /// answer then goes through the flow as a `tool.call` hook would (the warning).
    #[serde(default)]
    budget: Option<Value>,
    /// The hooks module's notesoup version; another than this helper's is refused.
    #[serde(default)]
    version: Option<String>,
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
        budget,
        version,
    } = parse("tool", request)?;
    super::hook::same_version(version.as_deref())?;
    let spec = match tools::spec_of(&name) {
        Ok(spec) => spec,
        Err(refusal) => return Ok(answered(&refusal)),
    };
    // Who called: a subagent's call never steps the main flow (the flow's own rule).
    let agent = if bound.agent_id.is_some() {
        "subagent"
    } else {
        "main"
    };
    if !spec.reset_flow() {
        let binding = Binding {
            cwd: bound.cwd,
            transcript_path: bound.transcript_path,
            head: bound.head,
            agent_id: bound.agent_id,
            roots: None,
        };
        let answer = tools::call(spec.name, &args, &binding, ctx);
        let mut fields = answered(&answer);
        if let (Some(session), Some(budget)) = (session, budget) {
            // A refused call is denied to the model: the `tool.call` hook says so.
            with_the_warning(&mut fields, &session, agent, answer.is_error, budget, ctx);
        }
        return Ok(fields);
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
    let event = serde_json::from_value(json!({"type": spec.name, "agent": agent, "args": args}))
        .map_err(|err| OpError::bad_request(format!("`tool` {}: {err}", spec.name)))?;
    let reply = kept(ctx, &session, event)?;
    let mut fields = Fields::new();
    fields.insert("effects".into(), json!(reply.effects));
    Ok(fields)
}

/// A result answered: the flow hears of it as of any tool result (op `hook`'s `tool.call`
/// of `agent`, `denied` when the answer refuses the call; for a main one that was not:
/// `measured`, `warning_point`), and its effects (a `warn` with its text, delivered with
/// this result) follow the `tool_result`, with the flow's `watch` and `log`. A flow that
/// cannot be stepped never costs the answer: its refusal is logged.
fn with_the_warning(
    fields: &mut Fields,
    session: &SessionRef,
    agent: &str,
    denied: bool,
    budget: Value,
    ctx: &Context,
) {
    let mut facts = serde_json::Map::new();
    facts.insert("agent".into(), json!(agent));
    facts.insert("denied".into(), json!(denied));
    facts.insert("budget".into(), budget);
    match after_the_answer(|| super::hook::call(ctx, session, "tool.call", facts)) {
        Ok(hook) => {
            for (key, value) in hook {
                match (key.as_str(), value) {
                    ("effects", Value::Array(more)) => {
                        if let Some(Value::Array(effects)) = fields.get_mut("effects") {
                            effects.extend(more);
                        }
                    }
                    (_, value) => {
                        fields.insert(key, value);
                    }
                }
            }
        }
        Err(err) => {
            fields.insert(
                "log".into(),
                json!([format!(
                    "notesoup: the budget warning was not checked on this result: {err}"
                )]),
            );
        }
    }
}

/// Runs a step that follows a call's answer (its effect may have landed: an append, a
/// write), so that nothing in it, a bug included, can take the answer's place: a caught
/// panic is a refusal like any other, which the caller logs beside the answer (a lost
/// answer makes the model call again, appending twice).
fn after_the_answer(step: impl FnOnce() -> Result<Fields, OpError>) -> Result<Fields, OpError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(step)).unwrap_or_else(|_| {
        Err(OpError::new(
            "internal",
            "notesoup-helper hit a bug stepping the flow after this answer; the details are on stderr",
        ))
    })
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
