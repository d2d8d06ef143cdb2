//! The outside world of one hook call, as the flow's [`Resolve`] asks it: the budget from
//! the shell's facts, a boot from the brain, the window the transcript's head is in, the
//! `/notesoup` command against this call's points; and the texts that need this call's
//! budget (the warning, the quiet fill).

use notesoup_boot::{Clearing, Countdown, Reset, warning};
use notesoup_claude_hooks::{CapAsk, Resolve};
use notesoup_reset_flow::{Budget, Effect, Flow, Pool};
use notesoup_thresholds::{CapCommand, Unit, cap_command, cap_refused, cap_status, fill_below};
use notesoup_window::{Host, WindowId};

use super::{BudgetFacts, Place, QuietFill, SessionRef, ShellEffect};
use crate::boot::{BootRequest, build};
use crate::history::{LiveSession, SessionSource, load};
use crate::limits::Reading;
use crate::notes::summary;
use crate::{Context, one_line};

/// The budget of this call and the policy it came from.
pub(super) struct Resolved {
    pub(super) budget: Budget,
    pub(super) unit: Unit,
}

/// The outside world of one hook call, for the flow's [`Resolve`].
pub(super) struct World<'a> {
    ctx: &'a Context,
    host: Host,
    session: &'a str,
    /// Whether the calling process is interactive, as the call's session says it.
    interactive: Option<bool>,
    place: &'a Place,
    facts: Option<&'a BudgetFacts>,
    resolved: Option<Resolved>,
    /// Why the last budget placed no points (the settings leave no room), when that was why.
    unplaced: Option<String>,
    /// Lines for the shell's log.
    pub(super) log: Vec<String>,
}

impl<'a> World<'a> {
    pub(super) fn new(
        ctx: &'a Context,
        session: &'a SessionRef,
        place: &'a Place,
        facts: Option<&'a BudgetFacts>,
    ) -> Self {
        Self {
            ctx,
            host: session.harness,
            session: &session.id,
            interactive: session.interactive,
            place,
            facts,
            resolved: None,
            unplaced: None,
            log: Vec::new(),
        }
    }

    /// `f` over what the shell read for the budget (nothing when it sent no `budget`).
    fn read<R>(&self, f: impl FnOnce(&Reading) -> R) -> R {
        match self.facts {
            Some(facts) => f(&facts.reading),
            None => f(&Reading::default()),
        }
    }

    /// One effect as the shell carries it out: `warn` and `closeout` carry the warning's
    /// `text` (a close-out with no budget was already reported failed to the flow).
    pub(super) fn filled(&self, effect: Effect) -> ShellEffect {
        let text = match &self.resolved {
            Some(r) if effect.carries_warning() => Some(warning_text(self.host, r)),
            _ => None,
        };
        ShellEffect { effect, text }
    }

    /// The main tool results and steps the shell may skip until its next reply (the
    /// flow's [`Flow::quiet`] under this call's points), as the shell compares them.
    pub(super) fn quiet(&self, flow: &Flow) -> Option<QuietFill> {
        let resolved = self.resolved.as_ref()?;
        let quiet = flow.quiet(&resolved.budget)?;
        Some(QuietFill {
            turn: quiet.turn,
            field: resolved.unit.field(),
            below: fill_below(quiet.below),
        })
    }
}

impl Resolve for World<'_> {
    fn budget(&mut self, cap: Option<u64>) -> Option<Budget> {
        let facts = self.facts?;
        self.unplaced = None;
        self.resolved = resolve_budget(facts, cap, &mut self.log, &mut self.unplaced);
        self.resolved.as_ref().map(|r| r.budget)
    }

    fn unplaced(&self) -> Option<String> {
        self.unplaced.clone()
    }

    fn compaction_disabled(&self) -> Option<bool> {
        self.facts.map(BudgetFacts::compaction_disabled)
    }

    fn interactive(&self) -> Option<bool> {
        self.interactive
    }

    fn boot(
        &mut self,
        ordinal: u32,
        reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        let history = self.place.transcript_path.is_some();
        build_opening(
            self.ctx,
            self.host,
            self.session,
            self.place,
            ordinal,
            reset,
            history,
        )
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

    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>, removed: bool) -> String {
        let window = ordinal
            .and_then(|n| WindowId::new(self.host.name(), self.session, n).ok())
            .map(|w| w.to_string());
        let cap = cap.map(|c| c.to_string());
        let context = self.facts.and_then(|facts| facts.context.as_ref());
        let status = self.read(|read| {
            read.with(cap.as_deref(), |inputs| {
                cap_status(inputs, context, window.as_deref())
            })
        });
        format!(
            "{}{status}\n{}",
            removed_line(removed),
            brain_line(self.ctx, self.place)
        )
    }
}

/// The text opening window `ordinal` of `session` in `host`, built from the brain of the
/// session's folder: its window id and its boot (after a reset, with the handoff of the
/// pool and the request's sticky note; `history`: the history tools can read the session),
/// or why not.
pub(super) fn build_opening(
    ctx: &Context,
    host: Host,
    session: &str,
    place: &Place,
    ordinal: u32,
    reset: Option<(Pool, Option<&str>)>,
    history: bool,
) -> Result<(String, String), String> {
    let cwd = folder(place)?;
    let built = build(
        ctx,
        &BootRequest {
            cwd,
            host: host.name(),
            session,
            ordinal,
            last_word: reset
                .and_then(|(_, sticky)| sticky)
                .filter(|s| !s.is_empty()),
            history,
            resets: true,
            reset: reset.map(|(pool, _)| match pool {
                Pool::Normal => Reset::Normal,
                Pool::Forced => Reset::Forced,
            }),
            seed: "",
            budget: None,
        },
    )
    .map_err(|err| format!("{}: {}", err.code(), one_line(&err.to_string())))?;
    Ok((
        built.window.to_string(),
        notesoup_boot::opening(&built.text, built.handoff),
    ))
}

/// The boot of a window notesoup does not clear (a run the host keeps no session for):
/// the notes and the history tools, nothing of resets; or why not.
pub(super) fn build_unreset(
    ctx: &Context,
    host: Host,
    session: &str,
    place: &Place,
) -> Result<String, String> {
    let request = BootRequest::unreset(folder(place)?, host.name(), session);
    build(ctx, &request)
        .map(|built| built.text)
        .map_err(|err| format!("{}: {}", err.code(), one_line(&err.to_string())))
}

/// The session's folder a boot's brain is read from.
fn folder(place: &Place) -> Result<&str, String> {
    place
        .cwd
        .as_deref()
        .ok_or_else(|| "the hook sent no `cwd`".to_owned())
}

/// [`notesoup_thresholds::CAP_REMOVED`] and a line break when `removed`, else nothing: what
/// a `/notesoup` answer opens with.
pub(super) fn removed_line(removed: bool) -> String {
    if removed {
        format!("{}\n", notesoup_thresholds::CAP_REMOVED)
    } else {
        String::new()
    }
}

/// `/notesoup`'s brain line: how many notes the brain of the session's folder holds.
pub(super) fn brain_line(ctx: &Context, place: &Place) -> String {
    let Some(cwd) = place.cwd.as_deref() else {
        return "Brain: unknown (the hook sent no folder)".into();
    };
    match summary(ctx, cwd) {
        Ok(brain) => format!(
            "Brain: {} {} ({})",
            brain.notes,
            if brain.notes == 1 { "note" } else { "notes" },
            brain.project.display()
        ),
        Err(err) => format!("Brain: unknown ({})", one_line(&err.to_string())),
    }
}

/// The window the transcript's head is in, when the binding is complete and it is known.
fn history_ordinal(ctx: &Context, place: &Place) -> Option<u32> {
    let head = place.head.clone()?;
    let source = SessionSource {
        live: (place.transcript_path.clone()).map(|transcript_path| LiveSession {
            transcript_path,
            head: Some(head),
        }),
        ..SessionSource::default()
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
    unplaced: &mut Option<String>,
) -> Option<Resolved> {
    let cap = cap.map(|c| c.to_string());
    let policy = match facts.reading.policy(cap.as_deref()) {
        Ok(policy) => policy,
        Err(err) => {
            log.push(format!("no budget points ({err}); warnings skipped"));
            *unplaced = Some(format!(
                "notesoup's budget points cannot be placed with these settings ({err}); `notesoup limits` shows them"
            ));
            return None;
        }
    };
    // The fresh fill the shell read now, else the one in the usage it sent.
    let usage = facts.reading.usage.as_ref();
    let context = (facts.context.as_ref()).or_else(|| usage.and_then(|u| u.context.as_ref()));
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

/// The budget warning for the window's fill: the tokens (or percent) left to the clear,
/// in the policy's unit, as `notesoup-boot`'s countdown says it, and what comes there (the
/// automatic clear, or with automatic compaction off only the reset tool's).
pub(super) fn warning_text(host: Host, r: &Resolved) -> String {
    let (clear_at, used) = (r.budget.hard, r.budget.tokens);
    let countdown = match r.unit {
        Unit::Tokens => Countdown::tokens_to(clear_at, used),
        Unit::Percent => Countdown::percent_to(clear_at, used),
    };
    let clearing = if r.budget.auto_clear {
        Clearing::Automatic
    } else {
        Clearing::ResetOnly
    };
    warning(host, countdown, clearing)
}
