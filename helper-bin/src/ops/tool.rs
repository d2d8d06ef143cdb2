//! `tool`'s JSON handler: one call of one of notesoup's own tools, as the model made it;
//! parse the request, answer it with [`notesoup_app::hook::tool`], serialize its effects.

use notesoup_app::hook::{self, BudgetFacts, SessionRef, ToolCall};
use notesoup_app::tools::Binding;
use notesoup_app::{AppError, Context, one_line};
use serde::Deserialize;
use serde_json::Value;

use super::Fields;
use crate::{fields, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The tool, `notes_read` or as the model saw it, `mcp__notesoup__notes_read`.
    name: String,
    /// The model's arguments, raw; `null` (or absent) for none.
    #[serde(default)]
    args: Value,
    /// What the session binds; never the model's.
    bound: Binding,
    /// The session whose reset flow `empty_brain` steps (`reset`'s `session`), and whose
    /// budget warning may ride on a main result.
    #[serde(default)]
    session: Option<SessionRef>,
    /// The budget facts as op `hook` takes them (`facts.budget`), for a main call.
    #[serde(default)]
    budget: Option<Value>,
    /// The hooks module's notesoup version; another than this helper's is refused.
    #[serde(default)]
    version: Option<String>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let Request {
        name,
        args,
        bound,
        session,
        budget,
        version,
    } = parse("tool", request)?;
    hook::same_version(version.as_deref())?;
    // Budget facts that do not parse never refuse the call: why is logged beside its answer.
    let budget = budget.map(|b| {
        parse::<BudgetFacts>("hook", b)
            .map_err(|err| format!("bad_request: {}", one_line(&err.to_string())))
    });
    let call = ToolCall {
        name: &name,
        args: &args,
        binding: bound,
        session,
        budget,
    };
    Ok(fields(&hook::tool(ctx, &call)?))
}

#[cfg(test)]
mod tests;
