//! `hook`: one engine hook call of the hooks module, whole: its raw facts in; the effects
//! to carry out, every text filled, out. The translation of a hook into the reset flow's
//! events is `notesoup_reset_flow::Hook`; the budget is `notesoup-thresholds`' policy over
//! the usage the shell read; the warning text is `notesoup-boot`'s; the flow is kept on
//! disk per session (`window-store`), read and written under the record's lock. One hook
//! call is one helper process, and the shell makes no second call to fill a text.

use std::collections::BTreeMap;

use notesoup_boot::{Countdown, Host};
use notesoup_reset_flow::{Budget, Effect, Hook, hook_saved};
use notesoup_thresholds::{Env, Inputs, Unit, resolve};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::Fields;
use super::reset::{SessionRef, with_saved};
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The engine hook's name (`tool.call`, `turn.step`, ...).
    event: String,
    /// The session whose flow the helper keeps.
    session: SessionRef,
    /// The hook's raw facts, and `budget` when the hook reads it.
    #[serde(default)]
    facts: Map<String, Value>,
}

/// What the shell read for the budget: the same inputs as the `limits` op, plus the fresh
/// context fill.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BudgetFacts {
    /// `$.session.usage({breakdown:"summary"})` (may be an earlier read: only its
    /// breakdown and window are used), or null.
    #[serde(default)]
    usage: Value,
    /// `$.session.usage().context`, read now (`tokens`, `percent`); absent: `usage`'s.
    #[serde(default)]
    context: Value,
    /// The merged `$.settings.read()`, or null.
    #[serde(default)]
    settings: Value,
    /// The threshold variables as strings, absent when unset.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// `$.session.model()`.
    #[serde(default)]
    model: Option<String>,
}

/// The budget of this call and the unit it counts in.
struct Resolved {
    budget: Budget,
    unit: Unit,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let Request {
        event,
        session,
        mut facts,
    } = parse("hook", request)?;
    let budget_facts: Option<BudgetFacts> = facts
        .remove("budget")
        .map(|b| parse("hook", b))
        .transpose()?;
    if let Some(env) = facts.remove("env") {
        // The switches a hook forwards as set: read by the one rule each has in Rust.
        let vars: BTreeMap<String, String> = parse("hook", env)?;
        let env = Env::from_lookup(|name| vars.get(name).cloned());
        facts.insert("disable_compact".into(), json!(env.compaction_disabled()));
    }
    let hook: Hook = serde_json::from_value(json!({"event": event, "facts": facts}))
        .map_err(|err| OpError::bad_request(format!("`hook` event `{event}`: {err}")))?;
    let host: Host = session
        .harness
        .name()
        .parse()
        .map_err(|err: notesoup_boot::BootError| OpError::new("unknown_host", err.to_string()))?;
    let mut log = Vec::new();
    let mut resolved = None;
    let reply = with_saved(ctx, &session, |saved| {
        hook_saved(saved, &session.process, &hook, |cap| {
            resolved = budget_facts
                .as_ref()
                .and_then(|f| resolve_budget(f, cap, &mut log));
            resolved.as_ref().map(|r| r.budget)
        })
    })?;
    let effects: Vec<Value> = reply
        .effects
        .iter()
        .map(|fx| filled(fx, host, resolved.as_ref()))
        .collect();
    let mut fields = Fields::new();
    fields.insert("effects".into(), json!(effects));
    fields.insert("hints".into(), json!(reply.hints));
    fields.insert("watch".into(), json!(reply.flow.watch()));
    fields.insert("log".into(), json!(log));
    Ok(fields)
}

/// The budget points over the shell's facts and the flow's cap; `None` (and a log line)
/// when the points cannot be resolved or the engine reported no fill yet.
fn resolve_budget(
    facts: &BudgetFacts,
    cap: Option<u64>,
    log: &mut Vec<String>,
) -> Option<Resolved> {
    let object = |v: &Value| v.is_object().then_some(());
    let usage = object(&facts.usage).map(|()| &facts.usage);
    let settings = object(&facts.settings).map(|()| &facts.settings);
    let env = Env::from_lookup(|name| facts.env.get(name).cloned());
    let cap = cap.map(|c| c.to_string());
    let policy = match resolve(&Inputs {
        usage,
        settings,
        env: &env,
        model: facts.model.as_deref(),
        cap: cap.as_deref(),
    }) {
        Ok(policy) => policy,
        Err(err) => {
            log.push(format!("no budget points ({err}); warnings skipped"));
            return None;
        }
    };
    let context = if facts.context.is_object() {
        &facts.context
    } else {
        facts.usage.get("context").unwrap_or(&Value::Null)
    };
    let field = match policy.unit {
        Unit::Percent => "percent",
        Unit::Tokens => "tokens",
    };
    let Some(tokens) = context.get(field).and_then(Value::as_f64) else {
        log.push("the engine reported no context usage yet; warnings skipped until it does".into());
        return None;
    };
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a fill the engine reports is a small non-negative number; `as` saturates"
    )]
    let tokens = tokens.max(0.0).round() as u64;
    Some(Resolved {
        budget: Budget {
            tokens,
            hard: policy.hard,
            warning: policy.warnings_enabled.then_some(policy.warning),
            auto_clear: policy.auto_clear,
        },
        unit: policy.unit,
    })
}

/// One effect as the shell carries it out: `warn` and `closeout` carry the warning's
/// `text` (absent when the budget is unknown: the shell then reports the close-out failed).
fn filled(fx: &Effect, host: Host, resolved: Option<&Resolved>) -> Value {
    let mut value = serde_json::to_value(fx).unwrap_or(Value::Null);
    if matches!(fx, Effect::Warn { .. } | Effect::Closeout { .. })
        && let (Some(r), Some(object)) = (resolved, value.as_object_mut())
    {
        object.insert("text".into(), json!(warning_text(host, r)));
    }
    value
}

/// The budget warning for the window's fill: the tokens (or percent) left to the clear.
fn warning_text(host: Host, r: &Resolved) -> String {
    let left = r.budget.hard.saturating_sub(r.budget.tokens);
    let countdown = match r.unit {
        Unit::Tokens => Countdown::Tokens(left),
        Unit::Percent => Countdown::Percent(left),
    };
    notesoup_boot::warning(host, countdown)
}

#[cfg(test)]
mod tests;
