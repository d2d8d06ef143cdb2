//! One engine hook call of a host's hooks module (Claude Code), whole, as a typed
//! function: the hook and its facts in ([`HookCall`]); the effects to carry out, every text
//! filled, out ([`HookReply`]). [`tool`] answers one of notesoup's own tools called in
//! such a session.
//!
//! The translation of a hook into the reset flow's events is `notesoup_claude_hooks::Hook`
//! (and `apply`); the budget is `notesoup-thresholds`' policy over the usage the shell
//! read ([`BudgetFacts`]); the boot and warning texts are `notesoup-boot`'s; the window a
//! transcript's head is in is the history crates'; the flow is kept on disk per session
//! (`window-store`), read and written under the record's lock. One hook call is one call
//! of [`call`], and the shell makes no second call to fill a text.

use std::collections::BTreeMap;

use notesoup_claude_hooks::{Watch, hook_saved};
use notesoup_reset_flow::Effect;
use notesoup_thresholds::{ContextUsage, Env, NOTESOUP_DISABLED, notesoup_disabled};
use notesoup_window::marker;
use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use notesoup_claude_hooks::{Hook, KeptBoot};
pub use notesoup_window::Host;

use crate::limits::{Reading, Settings, Usage};
pub use crate::session_flow::SessionRef;
use crate::session_flow::with_saved;
use crate::{AppError, Context};

pub mod pi;
mod tool;
mod world;

pub use tool::{ToolCall, tool};
use world::World;

/// One hook call, its facts sorted: the hook the flow hears, where the session lives and
/// what the shell read for the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// The session whose flow is kept.
    pub session: SessionRef,
    /// The engine hook and its facts.
    pub hook: Hook,
    /// Where the session lives: what a boot is built from.
    pub place: Place,
    /// What the shell read for the budget, when the hook reads it.
    pub budget: Option<BudgetFacts>,
    /// The hook forwarded the switches ([`switches`]) and notesoup is on: the reply says
    /// so (`disabled: false`).
    pub switched_on: bool,
}

/// Where the session lives: what a boot is built from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// `$.session.cwd()`: picks the brain.
    pub cwd: Option<String>,
    /// The transcript Claude named (history is available in the window).
    pub transcript_path: Option<String>,
    /// The newest main row kept.
    pub head: Option<String>,
}

/// What the shell read for the budget: the `limits` op's [`Reading`], plus the fresh
/// context fill. Fields that are not objects are as if absent: a budget never refuses a
/// hook.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "RawBudget")]
pub struct BudgetFacts {
    /// The usage (may be an earlier read: only its breakdown and window are used),
    /// settings, threshold variables and model.
    pub reading: Reading,
    /// `$.session.usage().context`, read now (`tokens`, `percent`); absent: the usage's.
    pub context: Option<ContextUsage>,
}

/// [`BudgetFacts`] as the hooks module sends them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudget {
    /// `$.session.usage({breakdown:"summary"})`, or null.
    #[serde(default, deserialize_with = "when_object")]
    usage: Option<Usage>,
    /// `$.session.usage().context`, read now.
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

impl From<RawBudget> for BudgetFacts {
    fn from(raw: RawBudget) -> Self {
        // The spec's second source is `$.session.usage().context.window`: the window of
        // the usage read now stands in when the breakdown's read gave none (or failed).
        let mut usage = raw.usage;
        if let Some(window) = raw.context.as_ref().and_then(|c| c.window.clone()) {
            let context = usage
                .get_or_insert_with(Usage::default)
                .context
                .get_or_insert_with(ContextUsage::default);
            context.window.get_or_insert(window);
        }
        Self {
            reading: Reading {
                usage,
                settings: raw.settings,
                env: raw.env,
                model: raw.model,
            },
            context: raw.context,
        }
    }
}

impl BudgetFacts {
    /// `DISABLE_COMPACT` as these facts forward it, by the rule [`switches`] reads it by:
    /// the shell sends the variable with every budget, so every call that could warn or
    /// clear says it.
    pub fn compaction_disabled(&self) -> bool {
        compaction_disabled(&self.reading.env)
    }
}

/// `DISABLE_COMPACT` among the variables `vars`, as Claude reads it.
fn compaction_disabled(vars: &BTreeMap<String, String>) -> bool {
    Env::from_lookup(|name| vars.get(name).cloned()).compaction_disabled()
}

/// A field read forgivingly: anything that is not an object is as if absent.
pub(crate) fn when_object<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        value @ Value::Object(_) => serde_json::from_value(value).ok(),
        _ => None,
    })
}

/// What the shell carries out after a hook call (or an own tool's call).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HookReply {
    /// Whether notesoup is off (`NOTESOUP_DISABLED`), when the hook forwarded the switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// The effects, in order.
    pub effects: Vec<ShellEffect>,
    /// What the shell may skip until its next reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch: Option<HookWatch>,
    /// Lines for the shell's log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<Vec<String>>,
}

/// One effect of the flow as the shell carries it out: `warn` and `closeout` carry the
/// budget warning's `text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShellEffect {
    /// The flow's effect.
    #[serde(flatten)]
    pub effect: Effect,
    /// The warning's text, on an effect that carries it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl From<Effect> for ShellEffect {
    fn from(effect: Effect) -> Self {
        Self { effect, text: None }
    }
}

/// What the shell may skip until its next reply ([`Watch`]), and what it compares.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookWatch {
    /// The flow's watch.
    #[serde(flatten)]
    pub watch: Watch,
    /// What a kept boot's block holds: the shell forwards only blocks that do.
    pub boot_marker: &'static str,
    /// The main results and steps the shell may skip, under this call's points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quiet: Option<QuietFill>,
    /// The boot this `prompt.context` attached says history is off only because the
    /// engine had not named the transcript yet ([`rebind_context`]): when it does
    /// (`classic.SessionStart`), the shell has the engine ask `prompt.context` again
    /// (`$.ui.invalidate`), and the window's boot is built with history.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rebind_context: bool,
}

/// Whether a `prompt.context` call's boot must be asked for again once the engine names
/// the transcript: it attached a boot (so history in it is the transcript's) while no
/// transcript was bound. Measured in Claude Code 2.1.319: in the terminal the engine runs
/// `prompt.context` at start-up, before `classic.SessionStart` names the transcript, and
/// keeps that answer for the first message unless invalidated (e2e `s11` tmux).
pub fn rebind_context(hook: &Hook, place: &Place, effects: &[ShellEffect]) -> bool {
    matches!(hook, Hook::PromptContext { .. })
        && place.transcript_path.is_none()
        && effects
            .iter()
            .any(|fx| matches!(fx.effect, Effect::AttachBoot { .. }))
}

/// The flow's `Quiet` as the shell compares it: the field of the context usage it reads
/// now and the raw fill it must stay below.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuietFill {
    /// The running main turn (`None`: no step may be skipped).
    pub turn: Option<String>,
    /// `tokens` or `percent`.
    pub field: &'static str,
    /// The fill a call must stay below to be skipped.
    pub below: f64,
}

/// What the switches a hook forwards raw in `env` (`session.start`) say, each read by its
/// one rule in `notesoup-thresholds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switches {
    /// `NOTESOUP_DISABLED` turns notesoup off: answer [`off`].
    Off,
    /// notesoup is on; `DISABLE_COMPACT` as the flow's `disable_compact` fact.
    On {
        /// Compaction is off in the session's environment.
        disable_compact: bool,
    },
}

/// The switches the variables `vars` set.
pub fn switches(vars: &BTreeMap<String, String>) -> Switches {
    if notesoup_disabled(vars.get(NOTESOUP_DISABLED).map(String::as_str)) {
        return Switches::Off;
    }
    Switches::On {
        disable_compact: compaction_disabled(vars),
    }
}

/// The reply when notesoup is off: the shell registers nothing and passes every event
/// through; the session's flow is not touched.
pub fn off() -> HookReply {
    HookReply {
        disabled: Some(true),
        log: Some(vec![format!(
            "{NOTESOUP_DISABLED} is set: nothing registered, every event passes through"
        )]),
        ..HookReply::default()
    }
}

/// Refuses a hooks module of another notesoup version than this library (`None`: the
/// module did not say): an updated plugin with an old binary, say.
pub fn same_version(module: Option<&str>) -> Result<(), AppError> {
    match module {
        Some(theirs) if theirs != crate::VERSION => Err(AppError::VersionMismatch {
            theirs: theirs.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// The boots of `host` among the texts the conversation keeps (others are dropped).
pub fn kept_boots(texts: &[String], host: Host) -> Vec<KeptBoot> {
    texts
        .iter()
        .filter_map(|t| KeptBoot::read(t, host.name()))
        .collect()
}

/// One hook call on the session's flow kept on disk: the effects, every text filled.
pub fn call(ctx: &Context, call: &HookCall) -> Result<HookReply, AppError> {
    let session = &call.session;
    let mut world = World::new(ctx, session, &call.place, call.budget.as_ref());
    let reply = with_saved(ctx, session, |saved| {
        hook_saved(saved, &session.binding(), &call.hook, &mut world)
    })?;
    let effects = reply
        .effects
        .into_iter()
        .map(|effect| world.filled(effect))
        .collect::<Vec<_>>();
    let watch = HookWatch {
        watch: Watch::of(&reply.flow, session.harness.name(), &session.id),
        boot_marker: marker::OPEN,
        quiet: world.quiet(&reply.flow),
        rebind_context: rebind_context(&call.hook, &call.place, &effects),
    };
    // The vault's share of the call, after the flow's lock is let go.
    world
        .log
        .extend(vault_share(ctx, &call.hook, &call.place, &session.id));
    Ok(HookReply {
        disabled: call.switched_on.then_some(false),
        effects,
        watch: Some(watch),
        log: Some(world.log),
    })
}

/// The vault's moment in a Claude hook (`vault::share`): at a prompt, the transcript of
/// session `session` when the hook's `transcript_path` is that file (`<session>.jsonl`, as
/// Claude Code names it). The vault keeps what it is handed, so a path naming anything
/// else (`/etc/shadow`, another session's file) is not handed on.
fn vault_share(ctx: &Context, hook: &Hook, place: &Place, session: &str) -> Option<String> {
    let moment = match hook {
        Hook::SessionStart { .. } => crate::vault::Moment::SessionStart,
        Hook::PromptContext { .. } => crate::vault::Moment::Prompt,
        _ => return None,
    };
    let transcript = place.transcript_path.as_deref().filter(|path| {
        std::path::Path::new(path)
            .file_name()
            .and_then(std::ffi::OsStr::to_str)
            .and_then(notesoup_history_claude::session_id_from_file_name)
            == Some(session)
    });
    crate::vault::share(ctx, moment, Host::Claude, transcript)
}

#[cfg(test)]
mod tests;
