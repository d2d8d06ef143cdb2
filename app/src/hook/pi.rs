//! One Pi extension event, whole, as a typed function: the event and its facts in
//! ([`PiHookCall`]); the effects to carry out, every text filled, out ([`HookReply`]).
//!
//! The translation of an event into the reset flow's events is `notesoup_pi_hooks::PiHook`
//! (and `apply`, `pi-hooks/EVENTS.md`); the budget is `notesoup-thresholds`' Pi policy
//! (`resolve_pi`) over what the extension read ([`PiBudgetFacts`]); the boot and warning
//! texts are `notesoup-boot`'s with Pi's tool names; the flow is kept on disk per session
//! under `windows/pi/` (`window-store`), read and written under the record's lock, as for
//! Claude Code.

use notesoup_pi_hooks::{CapAsk, Resolve, pi_hook_saved};
use notesoup_reset_flow::{Budget, Effect, Pool};
use notesoup_thresholds::{
    CapCommand, ContextUsage, PiInputs, PiSettings, Raw, Unit, cap_refused, pi_cap_command,
    pi_cap_status, resolve_pi,
};
use notesoup_window::{Host, WindowId, thousands};
use serde::Deserialize;

pub use notesoup_pi_hooks::PiHook;

use super::world::{Resolved, brain_line, build_opening, build_unreset, warning_text};
use super::{HookReply, Place, SessionRef, ShellEffect, when_object};
use crate::session_flow::with_saved;
use crate::{AppError, Context};

/// Pi's own tool beside the brain and history tools (the model sees
/// `notesoup_get_context_remaining`): its name, title and description. It takes no
/// arguments; [`get_context_remaining`] answers it.
pub const CONTEXT_REMAINING: [&str; 3] = [
    "get_context_remaining",
    "Context remaining",
    "How full this context window is: the tokens used, and the tokens left to the budget warning and to notesoup's clear of the window.",
];

/// One Pi event, its facts sorted: the event the flow hears, where the session lives and
/// what the extension read for the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct PiHookCall {
    /// The session whose flow is kept (`harness` `pi`).
    pub session: SessionRef,
    /// The Pi event and its facts.
    pub hook: PiHook,
    /// Where the session lives (`cwd`; `transcript_path`: the session file Pi names, so
    /// the boot offers history).
    pub place: Place,
    /// What the extension read for the budget, when the event reads it.
    pub budget: Option<PiBudgetFacts>,
    /// The session's file as the extension names it (`ctx.sessionManager.getSessionFile()`,
    /// at `before_agent_start`): the file a prompt keeps in the vault, taken only when it is
    /// that session's file under Pi's sessions folder (else the folder is walked for it).
    pub session_file: Option<String>,
}

/// What the extension read for the budget. Fields that are not objects are as if absent: a
/// budget never refuses an event.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PiBudgetFacts {
    /// `ctx.getContextUsage()`: `{tokens, contextWindow, percent}` (`tokens` null right
    /// after a compaction).
    #[serde(default, deserialize_with = "when_object")]
    pub usage: Option<PiUsage>,
    /// `pi.getSettings()`: Pi's global and project settings, merged by Pi.
    #[serde(default, deserialize_with = "when_object")]
    pub settings: Option<PiSettings>,
    /// `"<ctx.model.provider>/<ctx.model.id>"`, for `compaction.modelOverrides`.
    #[serde(default)]
    pub model: Option<String>,
}

/// `ctx.getContextUsage()`, each value as Pi wrote it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PiUsage {
    /// The context's size in tokens, `null` when unknown.
    #[serde(default)]
    pub tokens: Option<Raw>,
    /// The model's context window.
    #[serde(default)]
    pub context_window: Option<Raw>,
    /// The fill in percent of the window.
    #[serde(default)]
    pub percent: Option<Raw>,
}

/// One Pi event on the session's flow kept on disk: the effects, every text filled.
pub fn call(ctx: &Context, call: &PiHookCall) -> Result<HookReply, AppError> {
    let session = &call.session;
    if session.harness != Host::Pi {
        return Err(AppError::Request(format!(
            "`pi_hook` steps a Pi session's flow: `session.harness` must be `pi`, not `{}`",
            session.harness
        )));
    }
    let mut world = PiWorld {
        ctx,
        session: &session.id,
        place: &call.place,
        facts: call.budget.as_ref(),
        resolved: None,
        log: Vec::new(),
    };
    let reply = with_saved(ctx, session, |saved| {
        pi_hook_saved(saved, &session.binding(), &call.hook, &mut world)
    })?;
    let effects = reply
        .effects
        .into_iter()
        .map(|effect| world.filled(effect))
        .collect();
    // The vault's share, after the flow's lock is let go.
    let moment = match &call.hook {
        PiHook::SessionStart { .. } => Some(crate::vault::Moment::SessionStart),
        PiHook::BeforeAgentStart { .. } => Some(crate::vault::Moment::Prompt),
        _ => None,
    };
    world.log.extend(moment.and_then(|moment| {
        let file = (moment == crate::vault::Moment::Prompt)
            .then(|| live_file(ctx, &session.id, call.session_file.as_deref()))
            .flatten()
            .map(|found| found.path.display().to_string());
        crate::vault::share(ctx, moment, Host::Pi, file.as_deref())
    }));
    Ok(HookReply {
        disabled: None,
        effects,
        watch: None,
        log: Some(world.log),
    })
}

/// The session's file: the one the extension named when it is that session's file under
/// Pi's sessions folder (never a path taken as given: the vault keeps what it names), else
/// the one a walk of the folder finds by the session's id.
fn live_file(
    ctx: &Context,
    session: &str,
    named: Option<&str>,
) -> Option<notesoup_history_store::Found> {
    let corpus = crate::vault::originals(notesoup_history_store::Roots::default(), ctx);
    named
        .and_then(|path| corpus.pi_session_file(session, std::path::Path::new(path)))
        .or_else(|| corpus.resolve(&format!("pi:{session}")).ok())
}

/// The outside world of one Pi event, for the flow's [`Resolve`].
struct PiWorld<'a> {
    ctx: &'a Context,
    session: &'a str,
    place: &'a Place,
    facts: Option<&'a PiBudgetFacts>,
    resolved: Option<Resolved>,
    log: Vec<String>,
}

/// The Pi inputs of a reading (no cap): `None` without a context window.
fn pi_inputs(facts: &PiBudgetFacts) -> Option<PiInputs<'_>> {
    let window = facts
        .usage
        .as_ref()
        .and_then(|u| u.context_window.as_ref())
        .and_then(Raw::whole)?;
    Some(PiInputs {
        model: facts.model.as_deref(),
        ..PiInputs::new(window, facts.settings.as_ref())
    })
}

/// The fill of a reading as the thresholds crate reads one.
fn pi_context(facts: &PiBudgetFacts) -> Option<ContextUsage> {
    let usage = facts.usage.as_ref()?;
    Some(ContextUsage {
        window: usage.context_window.clone(),
        tokens: usage.tokens.clone(),
        percent: usage.percent.clone(),
        breakdown: None,
    })
}

impl PiWorld<'_> {
    fn inputs(&self) -> Option<PiInputs<'_>> {
        pi_inputs(self.facts?)
    }

    fn context(&self) -> Option<ContextUsage> {
        pi_context(self.facts?)
    }

    /// `warn` and `closeout` carry the warning's `text`.
    fn filled(&self, effect: Effect) -> ShellEffect {
        let text = match &self.resolved {
            Some(r) if effect.carries_warning() => Some(warning_text(Host::Pi, r)),
            _ => None,
        };
        ShellEffect { effect, text }
    }
}

impl Resolve for PiWorld<'_> {
    fn budget(&mut self, cap: Option<u64>) -> Option<Budget> {
        let Some(inputs) = self.inputs() else {
            self.log
                .push("Pi reported no context window; warnings skipped".into());
            return None;
        };
        let cap = cap.map(|c| c.to_string());
        let policy = match resolve_pi(&PiInputs {
            cap: cap.as_deref(),
            ..inputs
        }) {
            Ok(policy) => policy,
            Err(err) => {
                self.log
                    .push(format!("no budget points ({err}); warnings skipped"));
                return None;
            }
        };
        let Some(tokens) = self.context().and_then(|c| policy.fill(&c)) else {
            self.log.push(
                "Pi reports no context usage yet (it has none right after a compaction); warnings skipped until it does"
                    .into(),
            );
            return None;
        };
        let budget = Budget {
            tokens,
            hard: policy.hard,
            warning: policy.warning_point(),
            auto_clear: policy.auto_clear,
        };
        self.resolved = Some(Resolved {
            budget,
            unit: Unit::Tokens,
        });
        Some(budget)
    }

    fn boot(
        &mut self,
        ordinal: u32,
        reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        // The history tools read a Pi session by its id (`tool` names it `pi:<id>`).
        build_opening(
            self.ctx,
            Host::Pi,
            self.session,
            self.place,
            ordinal,
            reset,
            true,
        )
    }

    fn unreset_boot(&mut self) -> Result<String, String> {
        build_unreset(self.ctx, Host::Pi, self.session, self.place)
    }

    fn session(&self) -> &str {
        self.session
    }

    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        let Some(inputs) = self.inputs() else {
            // Nothing to check a new cap against: showing it needs nothing.
            if args.split_whitespace().nth(1).is_none() {
                return Ok(CapAsk::Show);
            }
            return Err("cap refused: Pi reported no context window to check it against yet; try again after Pi's first answer".into());
        };
        match pi_cap_command(args, &inputs) {
            Ok(CapCommand::Show) => Ok(CapAsk::Show),
            Ok(CapCommand::Set(cap)) => Ok(CapAsk::Set(cap)),
            Err(refused) => Err(cap_refused(&refused)),
        }
    }

    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>, removed: bool) -> String {
        let window = ordinal
            .and_then(|n| WindowId::new(Host::Pi.name(), self.session, n).ok())
            .map(|w| w.to_string());
        let cap = cap.map(|c| c.to_string());
        let status = match self.inputs() {
            Some(inputs) => pi_cap_status(
                &PiInputs {
                    cap: cap.as_deref(),
                    ..inputs
                },
                self.context().as_ref(),
                window.as_deref(),
            ),
            None => format!(
                "Context: not measured yet (Pi reported no context window)\nWindow: {}",
                window.as_deref().unwrap_or("not started yet")
            ),
        };
        format!(
            "{}{status}\n{}",
            super::world::removed_line(removed),
            brain_line(self.ctx, self.place)
        )
    }
}

/// `notesoup_get_context_remaining`, Pi's own tool: one `tool_result` effect answering it
/// ([`context_remaining`] under the cap the session's flow keeps in this process).
pub fn get_context_remaining(
    ctx: &Context,
    session: &SessionRef,
    facts: &PiBudgetFacts,
) -> Result<HookReply, AppError> {
    let cap = with_saved(ctx, session, |saved| {
        // The cap lives as long as the process that set it (a new process loads none).
        let cap = saved
            .filter(|s| s.process.as_deref() == Some(session.binding().as_str()))
            .and_then(|s| s.flow.as_ref())
            .and_then(|f| f.snapshot().cap);
        (saved.cloned().unwrap_or_default(), cap)
    })?;
    let (text, is_error) = match context_remaining(facts, cap) {
        Ok(text) => (text, false),
        Err(why) => (format!("notesoup unavailable: {why}"), true),
    };
    Ok(HookReply {
        effects: vec![ShellEffect::from(Effect::ToolResult { text, is_error })],
        ..HookReply::default()
    })
}

/// What `get_context_remaining` answers in Pi: the window's fill and the tokens left to
/// notesoup's warning and clear points, as the model reads it.
pub fn context_remaining(facts: &PiBudgetFacts, cap: Option<u64>) -> Result<String, String> {
    let inputs =
        pi_inputs(facts).ok_or("Pi reported no context window: nothing to measure against")?;
    let cap = cap.map(|c| c.to_string());
    let policy = resolve_pi(&PiInputs {
        cap: cap.as_deref(),
        ..inputs
    })
    .map_err(|err| err.to_string())?;
    let Some(used) = pi_context(facts).and_then(|c| policy.fill(&c)) else {
        return Ok(
            "The window was just cleared: Pi measures it again after the next answer.".into(),
        );
    };
    let percent = used.saturating_mul(100) / inputs.window.max(1);
    Ok(format!(
        "{} of {} tokens used ({percent}% of the window). {} tokens left to the budget warning, {} to notesoup's clear (Pi would compact above {}).",
        thousands(used),
        thousands(inputs.window),
        thousands(policy.warning.saturating_sub(used)),
        thousands(policy.hard.saturating_sub(used)),
        thousands(policy.native),
    ))
}

#[cfg(test)]
mod tests;
