//! `hook`: one engine hook call of the hooks module, whole: its raw facts in; the effects
//! to carry out, every text filled, out. The translation of a hook into the reset flow's
//! events is `notesoup_reset_flow::Hook` (and `Flow::hook`); the budget is
//! `notesoup-thresholds`' policy over the usage the shell read; the boot and warning texts
//! are `notesoup-boot`'s; the window a transcript's head is in is the history crates'; the
//! flow is kept on disk per session (`window-store`), read and written under the record's
//! lock. One hook call is one helper process, and the shell makes no second call to fill a
//! text.

use std::collections::BTreeMap;

use notesoup_boot::{Countdown, Reset, warning};
use notesoup_reset_flow::{
    Budget, CapAsk, Effect, Flow, Hook, KeptBoot, Pool, Resolve, hook_saved,
};
use notesoup_thresholds::{
    CapCommand, ContextUsage, Env, NOTESOUP_DISABLED, Settings, Unit, Usage, cap_command,
    cap_refused, cap_status, fill_below, notesoup_disabled, resolve,
};
use notesoup_window::Host;
use notesoup_window::WindowId;
use notesoup_window::marker;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::Fields;
use super::boot::{BootRequest, build};
use super::history::{SessionArgs, load};
use super::limits::{Read, when_object};
use crate::session_flow::{SessionRef, with_saved};
use crate::{Context, OpError, parse};

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

/// What the shell read for the budget: the same inputs as the `limits` op, plus the fresh
/// context fill.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct BudgetFacts {
    /// `$.session.usage({breakdown:"summary"})` (may be an earlier read: only its
    /// breakdown and window are used), or null.
    #[serde(default, deserialize_with = "when_object")]
    usage: Option<Usage>,
    /// `$.session.usage().context`, read now (`tokens`, `percent`); absent: `usage`'s.
    #[serde(default, deserialize_with = "when_object")]
    context: Option<ContextUsage>,
    /// The merged `$.settings.read()`, or null.
    #[serde(default, deserialize_with = "when_object")]
    settings: Option<Settings>,
    /// The threshold variables as strings, absent when unset.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// `$.session.model()`.
    #[serde(default)]
    model: Option<String>,
}

impl BudgetFacts {
    /// The read the policy is resolved from (`usage` and `settings` when objects).
    fn read(&self) -> Read<'_> {
        Read {
            usage: self.usage.as_ref(),
            settings: self.settings.as_ref(),
            vars: &self.env,
            model: self.model.as_deref(),
        }
    }
}

/// Where the session lives: what a boot is built from.
#[derive(Default)]
struct Place {
    /// `$.session.cwd()`: picks the brain.
    cwd: Option<String>,
    /// The transcript Claude named (history is available in the window).
    transcript_path: Option<String>,
    /// The newest main row kept.
    head: Option<String>,
}

/// The budget of this call and the policy it came from.
struct Resolved {
    budget: Budget,
    unit: Unit,
}

/// The outside world of one hook call, for the flow's [`Resolve`].
struct World<'a> {
    ctx: &'a Context,
    host: Host,
    session: &'a str,
    place: &'a Place,
    facts: Option<&'a BudgetFacts>,
    resolved: Option<Resolved>,
    log: Vec<String>,
}

impl Resolve for World<'_> {
    fn budget(&mut self, cap: Option<u64>) -> Option<Budget> {
        let facts = self.facts?;
        self.resolved = resolve_budget(facts, cap, &mut self.log);
        self.resolved.as_ref().map(|r| r.budget)
    }

    fn boot(
        &mut self,
        ordinal: u32,
        reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        let cwd = self
            .place
            .cwd
            .as_deref()
            .ok_or_else(|| "the hook sent no `cwd`".to_owned())?;
        let built = build(
            self.ctx,
            &BootRequest {
                cwd,
                host: self.host.name(),
                session: self.session,
                ordinal,
                last_word: reset
                    .and_then(|(_, sticky)| sticky)
                    .filter(|s| !s.is_empty()),
                history: self.place.transcript_path.is_some(),
                reset: reset.map(|(pool, _)| match pool {
                    Pool::Normal => Reset::Normal,
                    Pool::Forced => Reset::Forced,
                }),
                seed: "",
                budget: None,
            },
        )
        .map_err(|err| format!("{}: {}", err.code, err.message))?;
        Ok((
            built.window.to_string(),
            notesoup_boot::opening(&built.text, built.handoff),
        ))
    }

    fn session(&self) -> &str {
        self.session
    }

    fn transcript_window(&mut self) -> Option<u32> {
        history_ordinal(self.ctx, self.place)
    }

    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        match self.read(|read| read.with(None, |inputs| cap_command(args, inputs))) {
            Ok(CapCommand::Show) => Ok(CapAsk::Show),
            Ok(CapCommand::Set(cap)) => Ok(CapAsk::Set(cap)),
            Err(refused) => Err(cap_refused(&refused)),
        }
    }

    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>) -> String {
        let window = ordinal
            .and_then(|n| WindowId::new(self.host.name(), self.session, n).ok())
            .map(|w| w.to_string());
        let cap = cap.map(|c| c.to_string());
        self.read(|read| {
            read.with(cap.as_deref(), |inputs| {
                cap_status(inputs, window.as_deref())
            })
        })
    }
}

impl World<'_> {
    /// `f` over what the shell read for the budget (nothing when it sent no `budget`).
    fn read<R>(&self, f: impl FnOnce(&Read<'_>) -> R) -> R {
        let none = BudgetFacts::default();
        f(&self.facts.unwrap_or(&none).read())
    }
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let Request {
        event,
        session,
        facts,
        version,
    } = parse("hook", request)?;
    same_version(version.as_deref())?;
    call(ctx, &session, &event, facts)
}

/// A hooks module of another notesoup version than this helper is refused: the two came
/// from different installs (an updated plugin with an old binary, say), and neither can
/// know what the other's wire means.
pub(crate) fn same_version(module: Option<&str>) -> Result<(), OpError> {
    match module {
        Some(theirs) if theirs != crate::VERSION => Err(OpError::new(
            "version_mismatch",
            format!(
                "the plugin's hooks module is notesoup {theirs} but this notesoup-helper is notesoup {}: they come from different installs; reinstall the plugin (claude plugin install notesoup@notesoup) or, in a checkout, run scripts/install",
                crate::VERSION
            ),
        )),
        _ => Ok(()),
    }
}

/// The `hook` op on its parsed parts: one engine hook call, whole. Other ops answering a
/// hook (the own-tool op) call it to add the hook's effects to theirs in the same process.
pub(crate) fn call(
    ctx: &Context,
    session: &SessionRef,
    event: &str,
    mut facts: Map<String, Value>,
) -> Result<Fields, OpError> {
    let budget: Option<BudgetFacts> = facts
        .remove("budget")
        .map(|b| parse("hook", b))
        .transpose()?;
    let take = |facts: &mut Map<String, Value>, key: &str| -> Result<Option<String>, OpError> {
        facts.remove(key).map(|v| parse("hook", v)).transpose()
    };
    let place = Place {
        cwd: take(&mut facts, "cwd")?,
        transcript_path: take(&mut facts, "transcript_path")?,
        head: take(&mut facts, "head")?,
    };
    let disabled = read_switches(&mut facts)?;
    if disabled == Some(true) {
        return Ok(off_reply());
    }
    if let Some(kept) = facts.remove("kept") {
        let texts: Vec<String> = parse("hook", kept)?;
        let boots: Vec<KeptBoot> = texts
            .iter()
            .filter_map(|t| KeptBoot::read(t, session.harness.name()))
            .collect();
        facts.insert("kept".into(), json!(boots));
    }
    let host: Host = session.harness;
    let mut world = World {
        ctx,
        host,
        session: &session.id,
        place: &place,
        facts: budget.as_ref(),
        resolved: None,
        log: Vec::new(),
    };
    let hook: Hook = serde_json::from_value(json!({"event": event, "facts": facts}))
        .map_err(|err| OpError::bad_request(format!("`hook` event `{event}`: {err}")))?;
    let reply = with_saved(ctx, session, |saved| {
        hook_saved(saved, &session.process, &hook, &mut world)
    })?;
    let effects: Vec<Value> = reply
        .effects
        .iter()
        .map(|fx| filled(fx, host, world.resolved.as_ref()))
        .collect();
    let mut fields = Fields::new();
    if let Some(disabled) = disabled {
        fields.insert("disabled".into(), json!(disabled));
    }
    fields.insert("effects".into(), json!(effects));
    let mut watch = json!(reply.flow.watch());
    if let Some(w) = watch.as_object_mut() {
        // What a kept boot's block holds: the shell forwards only blocks that do.
        w.insert("boot_marker".into(), json!(marker::OPEN));
        if let Some(quiet) = world.resolved.as_ref().and_then(|r| quiet(&reply.flow, r)) {
            w.insert("quiet".into(), quiet);
        }
    }
    fields.insert("watch".into(), watch);
    fields.insert("log".into(), json!(world.log));
    Ok(fields)
}

/// The switches a hook forwards raw in `env` (`session.start`), each read by its one rule in
/// `notesoup-thresholds`: `Some(true)` when `NOTESOUP_DISABLED` turns notesoup off; else
/// `DISABLE_COMPACT` becomes the flow's `disable_compact` fact and `Some(false)`. `None`: no
/// switches in this hook.
fn read_switches(facts: &mut Map<String, Value>) -> Result<Option<bool>, OpError> {
    let Some(env) = facts.remove("env") else {
        return Ok(None);
    };
    let vars: BTreeMap<String, String> = parse("hook", env)?;
    if notesoup_disabled(vars.get(NOTESOUP_DISABLED).map(String::as_str)) {
        return Ok(Some(true));
    }
    let env = Env::from_lookup(|name| vars.get(name).cloned());
    facts.insert("disable_compact".into(), json!(env.compaction_disabled()));
    Ok(Some(false))
}

/// The reply when notesoup is off: the shell registers nothing and passes every event
/// through; the session's flow is not touched.
fn off_reply() -> Fields {
    let mut fields = Fields::new();
    fields.insert("disabled".into(), json!(true));
    fields.insert("effects".into(), json!([]));
    let line =
        format!("{NOTESOUP_DISABLED} is set: nothing registered, every event passes through");
    fields.insert("log".into(), json!([line]));
    fields
}

/// The window the transcript's head is in, when the binding is complete and it is known.
fn history_ordinal(ctx: &Context, place: &Place) -> Option<u32> {
    place.head.as_ref()?;
    let source = SessionArgs {
        transcript_path: place.transcript_path.clone(),
        head: place.head.clone(),
        ..SessionArgs::default()
    };
    let ordinal = load("hook", &source, None, ctx)
        .ok()?
        .head_window()
        .ordinal()?;
    u32::try_from(ordinal).ok()
}

/// The budget points over the shell's facts and the flow's cap; `None` (and a log line)
/// when the points cannot be resolved or the engine reported no fill yet.
fn resolve_budget(
    facts: &BudgetFacts,
    cap: Option<u64>,
    log: &mut Vec<String>,
) -> Option<Resolved> {
    let cap = cap.map(|c| c.to_string());
    let policy = match facts.read().with(cap.as_deref(), resolve) {
        Ok(policy) => policy,
        Err(err) => {
            log.push(format!("no budget points ({err}); warnings skipped"));
            return None;
        }
    };
    // The fresh fill the shell read now, else the one in the usage it sent.
    let context =
        (facts.context.as_ref()).or_else(|| facts.usage.as_ref().and_then(|u| u.context.as_ref()));
    let Some(tokens) = context.and_then(|c| policy.fill(c)) else {
        log.push("the engine reported no context usage yet; warnings skipped until it does".into());
        return None;
    };
    Some(Resolved {
        budget: Budget {
            tokens,
            hard: policy.hard,
            warning: policy.warning_point(),
            auto_clear: policy.auto_clear,
        },
        unit: policy.unit,
    })
}

/// The main tool results and steps the shell may skip until its next reply (the flow's
/// [`Flow::quiet`] under this call's points), as the shell compares them: the field of
/// the context usage it reads now and the raw fill it must stay below.
fn quiet(flow: &Flow, resolved: &Resolved) -> Option<Value> {
    let quiet = flow.quiet(&resolved.budget)?;
    Some(json!({
        "turn": quiet.turn,
        "field": resolved.unit.field(),
        "below": fill_below(quiet.below),
    }))
}

/// One effect as the shell carries it out: `warn` and `closeout` carry the warning's
/// `text` (a close-out with no budget was already reported failed to the flow).
fn filled(fx: &Effect, host: Host, resolved: Option<&Resolved>) -> Value {
    let mut value = serde_json::to_value(fx).unwrap_or(Value::Null);
    if fx.carries_warning()
        && let (Some(r), Some(object)) = (resolved, value.as_object_mut())
    {
        object.insert("text".into(), json!(warning_text(host, r)));
    }
    value
}

/// The budget warning for the window's fill: the tokens (or percent) left to the clear,
/// in the policy's unit, as `notesoup-boot`'s countdown says it.
fn warning_text(host: Host, r: &Resolved) -> String {
    let (clear_at, used) = (r.budget.hard, r.budget.tokens);
    let countdown = match r.unit {
        Unit::Tokens => Countdown::tokens_to(clear_at, used),
        Unit::Percent => Countdown::percent_to(clear_at, used),
    };
    warning(host, countdown)
}

#[cfg(test)]
mod tests;
