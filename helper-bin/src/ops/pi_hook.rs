//! `pi_hook`'s JSON handler: one Pi extension event, its raw facts sorted into a
//! [`PiHookCall`] (the budget, where the session lives, then the event itself), answered by
//! [`notesoup_app::hook::pi::call`], serialized.

use notesoup_app::hook::pi::{self, PiBudgetFacts, PiHook, PiHookCall};
use notesoup_app::hook::{self, Place, SessionRef};
use notesoup_app::{AppError, Context};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::Fields;
use crate::{fields, parse};

/// The event of Pi's own tool `notesoup_get_context_remaining` (no flow event: it reads the
/// budget and the cap).
const GET_CONTEXT_REMAINING: &str = "get_context_remaining";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The Pi event's name (`tool_result`, `turn_start`, ...).
    event: String,
    /// The session whose flow the helper keeps (`harness` `pi`).
    session: SessionRef,
    /// The event's raw facts, with `budget` and `cwd` where it reads them.
    #[serde(default)]
    facts: Map<String, Value>,
    /// The extension's notesoup version; another than this helper's is refused.
    #[serde(default)]
    version: Option<String>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let Request {
        event,
        session,
        mut facts,
        version,
    } = parse("pi_hook", request)?;
    hook::same_version(version.as_deref())?;
    let budget: Option<PiBudgetFacts> = facts
        .remove("budget")
        .map(|b| parse("pi_hook", b))
        .transpose()?;
    if event == GET_CONTEXT_REMAINING {
        let budget = budget.unwrap_or_default();
        return Ok(fields(&pi::get_context_remaining(ctx, &session, &budget)?));
    }
    let mut take = |key: &str| -> Result<Option<String>, AppError> {
        facts.remove(key).map(|v| parse("pi_hook", v)).transpose()
    };
    let place = Place {
        cwd: take("cwd")?,
        transcript_path: None,
        head: None,
    };
    let hook: PiHook = serde_json::from_value(json!({"event": event, "facts": facts}))
        .map_err(|err| AppError::Request(format!("`pi_hook` event `{event}`: {err}")))?;
    let call = PiHookCall {
        session,
        hook,
        place,
        budget,
    };
    Ok(fields(&pi::call(ctx, &call)?))
}
