//! `hook`'s JSON handler: one engine hook call of the hooks module, its raw facts sorted
//! into a [`HookCall`] (the budget, where the session lives, the switches, the kept boots,
//! then the hook itself), answered by [`notesoup_app::hook::call`], serialized.

use std::collections::BTreeMap;

use notesoup_app::hook::{self, BudgetFacts, Hook, HookCall, Place, SessionRef, Switches};
use notesoup_app::{AppError, Context};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::Fields;
use crate::{fields, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The engine hook's name (`tool.call`, `turn.step`, ...).
    event: String,
    /// The session whose flow the helper keeps.
    session: SessionRef,
    /// The hook's raw facts, with `budget` where the hook reads it.
    #[serde(default)]
    facts: Map<String, Value>,
    /// The hooks module's notesoup version; another than this helper's is refused.
    #[serde(default)]
    version: Option<String>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let Request {
        event,
        session,
        mut facts,
        version,
    } = parse("hook", request)?;
    hook::same_version(version.as_deref())?;
    let budget: Option<BudgetFacts> = facts
        .remove("budget")
        .map(|b| parse("hook", b))
        .transpose()?;
    let mut take = |key: &str| -> Result<Option<String>, AppError> {
        facts.remove(key).map(|v| parse("hook", v)).transpose()
    };
    let place = Place {
        cwd: take("cwd")?,
        transcript_path: take("transcript_path")?,
        head: take("head")?,
    };
    let switched_on = match facts.remove("env") {
        None => false,
        Some(env) => match hook::switches(&parse::<BTreeMap<String, String>>("hook", env)?) {
            Switches::Off => return Ok(fields(&hook::off())),
            Switches::On { disable_compact } => {
                facts.insert("disable_compact".into(), json!(disable_compact));
                true
            }
        },
    };
    if let Some(kept) = facts.remove("kept") {
        let texts: Vec<String> = parse("hook", kept)?;
        let boots = hook::kept_boots(&texts, session.harness);
        facts.insert("kept".into(), json!(boots));
    }
    let hook: Hook = serde_json::from_value(json!({"event": event, "facts": facts}))
        .map_err(|err| AppError::Request(format!("`hook` event `{event}`: {err}")))?;
    let call = HookCall {
        session,
        hook,
        place,
        budget,
        switched_on,
    };
    Ok(fields(&hook::call(ctx, &call)?))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod vault_tests;
