//! One call of one of notesoup's own tools, as the model made it in a session a hooks
//! module runs, answered whole ([`tool`]).
//!
//! The model's arguments come raw, and apart from them what the session binds (the
//! session folder, the transcript Claude named, the head, a subagent's id). The arguments
//! are checked against the tool's schema (`tools::specs`, the one source): a field the
//! schema does not declare is refused, so nothing the model writes can name a transcript
//! or the session folders. Then the tool runs ([`crate::tools::call`], with its retry of a
//! head Claude has not written yet), or, for `empty_brain`, the session's reset flow kept
//! on disk takes one `empty_brain` step (after `disable_compact` as the call's budget
//! forwards it, in Claude Code), as [`super::call`] steps it. The reply is the
//! effects the shell obeys: a `tool_result` answering the call, and for `empty_brain` the
//! flow's own effects around it.

use std::panic::{AssertUnwindSafe, catch_unwind};

use notesoup_reset_flow::{Agent, Effect, Event};
use serde_json::Value;

use super::{BudgetFacts, Hook, HookCall, HookReply, Place, SessionRef, ShellEffect};
use crate::session_flow::kept;
use crate::tools::{self, Binding, Tool, ToolAnswer, arguments, spec_of};
use crate::{AppError, Context};
use notesoup_window::Host;

/// One own tool's call in a session a hooks module runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall<'a> {
    /// The tool, `notes_read` or as the model saw it, `mcp__notesoup__notes_read`.
    pub name: &'a str,
    /// The model's arguments, raw (`null` for none): held to the tool's schema here.
    pub args: &'a Value,
    /// What the session binds; never the model's.
    pub binding: Binding,
    /// The session whose reset flow `empty_brain` steps, and whose budget warning may ride
    /// on a main result.
    pub session: Option<SessionRef>,
    /// The budget facts as a hook call takes them, for a main call: its answer then goes
    /// through the flow as a `tool.call` hook would (the warning). `Err`: why they could
    /// not be read (logged beside the answer, never refusing it).
    pub budget: Option<Result<BudgetFacts, String>>,
}

/// Answers one own tool's call: the effects the shell obeys.
pub fn tool(ctx: &Context, call: &ToolCall<'_>) -> Result<HookReply, AppError> {
    let spec = match spec_of(call.name) {
        Ok(spec) => spec,
        Err(refusal) => return Ok(answered(refusal)),
    };
    // Who called: a subagent's call never steps the main flow (the flow's own rule).
    let agent = if call.binding.agent_id.is_some() {
        Agent::Subagent
    } else {
        Agent::Main
    };
    if !spec.reset_flow() {
        let args = this_sessions_history(spec.tool, call.args, call.session.as_ref());
        let answer = tools::call(spec.name, &args, &call.binding, ctx);
        let denied = answer.is_error;
        let mut reply = answered(answer);
        if let (Some(session), Some(budget)) = (&call.session, &call.budget) {
            // A refused call is denied to the model: the `tool.call` hook says so.
            with_the_warning(&mut reply, session, agent, denied, budget, ctx);
        }
        return Ok(reply);
    }
    let Some(session) = &call.session else {
        return Err(AppError::Request(format!(
            "`tool` {} steps the session's reset flow: the request needs `session` ({{\"harness\", \"id\", \"process\"}})",
            spec.name
        )));
    };
    let args = match arguments(&spec, call.args) {
        Ok(args) => args,
        Err(refusal) => return Ok(answered(refusal)),
    };
    // `DISABLE_COMPACT` as this call forwards it with its budget (Claude's switch): the
    // flow hears it first, so a new session's record (after `/clear`, which raises no
    // session start) refuses the clear too.
    let switch = match (&call.budget, session.harness) {
        (Some(Ok(budget)), Host::Claude) => Some(Event::DisableCompact {
            set: budget.compaction_disabled(),
        }),
        _ => None,
    };
    let event = Event::EmptyBrain {
        agent,
        args: Value::Object(args),
    };
    let reply = kept(ctx, session, switch.into_iter().chain([event]))?;
    Ok(HookReply {
        effects: reply.effects.into_iter().map(ShellEffect::from).collect(),
        ..HookReply::default()
    })
}

/// The arguments a history call reads the session by. A host that binds no live transcript
/// (Pi: its session file is found by the session's id) names its own session as the
/// default, `pi:<id>`, so `history_list` and `history_read` with no `session` read the
/// running session as they do in Claude Code.
fn this_sessions_history(tool: Tool, args: &Value, session: Option<&SessionRef>) -> Value {
    let Some(session) = session.filter(|s| s.harness == Host::Pi) else {
        return args.clone();
    };
    if !matches!(tool, Tool::HistoryList | Tool::HistoryRead) {
        return args.clone();
    }
    let mut map = match args {
        Value::Object(map) => map.clone(),
        Value::Null => serde_json::Map::new(),
        other => return other.clone(),
    };
    map.entry("session")
        .or_insert_with(|| Value::String(format!("{}:{}", session.harness.name(), session.id)));
    Value::Object(map)
}

/// A result answered: the flow hears of it as of any tool result (a `tool.call` hook of
/// `agent`, `denied` when the answer refuses the call; for a main one that was not:
/// `measured`, `warning_point`), and its effects (a `warn` with its text, delivered with
/// this result) follow the `tool_result`, with the flow's `watch` and `log`. A flow that
/// cannot be stepped never costs the answer: its refusal is logged.
fn with_the_warning(
    reply: &mut HookReply,
    session: &SessionRef,
    agent: Agent,
    denied: bool,
    budget: &Result<BudgetFacts, String>,
    ctx: &Context,
) {
    let hook = budget.clone().and_then(|budget| {
        let call = HookCall {
            session: session.clone(),
            hook: Hook::ToolCall { agent, denied },
            place: Place::default(),
            budget: Some(budget),
            switched_on: false,
        };
        after_the_answer(|| super::call(ctx, &call))
            .map_err(|err| format!("{}: {}", err.code(), crate::one_line(&err.to_string())))
    });
    match hook {
        Ok(hook) => {
            reply.effects.extend(hook.effects);
            reply.disabled = hook.disabled.or(reply.disabled);
            reply.watch = hook.watch;
            reply.log = hook.log;
        }
        Err(err) => {
            reply.log = Some(vec![format!(
                "notesoup: the budget warning was not checked on this result: {err}"
            )]);
        }
    }
}

/// Runs a step that follows a call's answer (its effect may have landed: an append, a
/// write), so that nothing in it, a bug included, can take the answer's place: a caught
/// panic is a refusal like any other, which the caller logs beside the answer (a lost
/// answer makes the model call again, appending twice).
fn after_the_answer<T>(step: impl FnOnce() -> Result<T, AppError>) -> Result<T, AppError> {
    catch_unwind(AssertUnwindSafe(step)).unwrap_or_else(|_| {
        Err(AppError::Internal(
            "notesoup-helper hit a bug stepping the flow after this answer; the details are on stderr".into(),
        ))
    })
}

/// The reply of a call the flow has no part in: its one `tool_result`.
fn answered(answer: ToolAnswer) -> HookReply {
    HookReply {
        effects: vec![ShellEffect::from(Effect::ToolResult {
            text: answer.text,
            is_error: answer.is_error,
        })],
        ..HookReply::default()
    }
}

#[cfg(test)]
mod tests;
