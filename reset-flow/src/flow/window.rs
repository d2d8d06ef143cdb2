//! The window: its ordinal (only ever grows), the once-per-window budget warning, the boot
//! a fork owes itself, the runtime cap and its lifetime, a new process taking over, and
//! where a person's input stands (queued, attached to the running turn) until a model
//! request carries it.

use serde::{Deserialize, Serialize};

use super::{Commit, Flow, Stage};
use crate::budget::{Budget, Quiet};
use crate::effect::Effect;
use crate::event::{Agent, Delivery, InputPhase};

/// The window the flow is in and what lives exactly as long as it (or as the process).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Window {
    /// The current window's ordinal, once known. It only grows: a window is never reopened.
    pub(crate) ordinal: Option<u32>,
    /// The budget warning of this window.
    pub(crate) warning: Warning,
    /// This session's own boot of this window, when the window's boot is another
    /// session's (a fork's copy).
    pub(crate) own_boot: OwnBoot,
    /// The runtime cap in tokens (`/notesoup cap`): survives window and model changes,
    /// cleared by a session change and by a new process.
    pub(crate) cap: Option<u64>,
}

/// The once-per-window budget warning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Warning {
    /// Not delivered in this window.
    #[default]
    Due,
    /// Offered (a `warn` effect is out); its fate is not known yet.
    Offered,
    /// The downstream chain accepted it: not again in this window.
    Delivered,
}

/// This session's own boot of the window. A fork copies its parent's conversation, boot
/// included; a boot the parent got from a compaction is a message of that conversation,
/// which stays as it is (historical boots are never rewritten), so the fork owes itself a
/// boot of its own: built from the notes as they are now, naming the fork's session and the
/// copied ordinal, attached to its next main prompt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OwnBoot {
    /// Nothing is owed: the window's boot names this session, or no other session's boot
    /// was seen in it.
    #[default]
    None,
    /// The window's newest boot is another session's: this session's own is owed to its
    /// next main prompt.
    Owed,
    /// Attached (an `attach_own_boot` effect is out, or a copy rebuilt in place); its fate
    /// is not known yet.
    Offered,
    /// The chain accepted the prompt carrying it: never again in this window.
    Delivered,
}

/// A person's input not yet carried by a model request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Waiting {
    /// Submitted; its own turn's opening step carries it.
    Queued,
    /// Attached to the running main turn; its next step carries it.
    Accepted,
}

impl Flow {
    /// What a main tool result (not denied) and a main step past the
    /// first of the running turn can still change under `budget`'s points (the cap and fill
    /// of the hook call that asks): `None` when one of them may change something whatever
    /// the fill (a warning offered and not yet delivered, an armed or unbound cutoff, a
    /// person's input the next step carries, a busy close-out's warning no request of its
    /// turn carried yet, interactive commit evidence awaited, the
    /// turn's first step not seen); else the fill below which neither changes anything, so
    /// the shell need not send them until its next reply. The explorer checks that promise
    /// in every state it reaches.
    pub fn quiet(&self, budget: &Budget) -> Option<Quiet> {
        let evidence_from_messages = self.interactive
            && matches!(
                self.commit,
                Some(Commit {
                    stage: Stage::Installed { .. },
                    ..
                })
            );
        if self.window.warning == Warning::Offered
            || self.cutoff.is_some()
            || self.waiting == Some(Waiting::Accepted)
            || self
                .request
                .as_ref()
                .is_some_and(|r| r.closeout_turn.is_some())
            || evidence_from_messages
            || (self.main_turn.is_some() && !self.stepped)
        {
            return None;
        }
        let mut below = u64::MAX;
        if !self.disable_compact {
            // The hard point opens a request or arms a cutoff (`hard_point_acts`); the
            // warning point offers the window's warning while it is due (`warning_point`).
            if budget.auto_clear && self.hard_point_acts() {
                below = below.min(budget.hard);
            }
            if let (Warning::Due, Some(point)) = (self.window.warning, budget.warning) {
                below = below.min(point);
            }
        }
        Some(Quiet {
            turn: self.main_turn.clone(),
            below,
        })
    }

    /// The ordinal the next boot opens: one past the current window (1 when unknown).
    pub(super) fn next_ordinal(&self) -> u32 {
        self.window.ordinal.map_or(1, |n| n.saturating_add(1))
    }

    /// Enter window `ordinal` when it is newer than the current one; a new window owes its
    /// warning again.
    pub(super) fn advance_to(&mut self, ordinal: u32) {
        if self.window.ordinal.is_none_or(|n| ordinal > n) {
            self.window.ordinal = Some(ordinal);
            self.window.warning = Warning::Due;
            self.window.own_boot = OwnBoot::None;
        }
    }

    /// The newest boot in the conversation is another session's, of window `ordinal`: the
    /// session is in that window, and owes itself a boot of its own unless one is already
    /// out or delivered there. An older window's copy changes nothing.
    pub(super) fn copied_boot(&mut self, ordinal: u32) {
        self.advance_to(ordinal);
        if self.window.ordinal == Some(ordinal) && self.window.own_boot == OwnBoot::None {
            self.window.own_boot = OwnBoot::Owed;
        }
    }

    /// A main prompt that reaches the model is about to enter: an owed boot rides on it.
    pub(super) fn prompt_out(&mut self, fx: &mut Vec<Effect>) {
        if let (OwnBoot::Owed, Some(ordinal)) = (self.window.own_boot, self.window.ordinal) {
            self.window.own_boot = OwnBoot::Offered;
            fx.push(Effect::AttachOwnBoot {
                ordinal,
                generation: self.generation,
                text: None,
            });
        }
    }

    /// What became of the own boot offered under `generation`: delivered, or owed again.
    pub(super) fn own_boot(&mut self, generation: u64, status: Delivery) {
        if generation == self.generation && self.window.own_boot == OwnBoot::Offered {
            self.window.own_boot = match status {
                Delivery::Delivered => OwnBoot::Delivered,
                Delivery::Dropped => OwnBoot::Owed,
            };
        }
    }

    pub(super) fn loaded(&mut self, fx: &mut Vec<Effect>) {
        // `DISABLE_COMPACT` stays, so it is logged once per session: a new process (a
        // resume, a reload) says it again at its session start and with every call that
        // could warn or clear.
        self.window.cap = None;
        if self.window.warning == Warning::Offered {
            self.window.warning = Warning::Due;
        }
        if self.window.own_boot == OwnBoot::Offered {
            self.window.own_boot = OwnBoot::Owed;
        }
        self.main_turn = None;
        self.natural_in_turn = false;
        self.turn_by_input = false;
        self.undelivered = false;
        self.waiting = None;
        // A close-out the old process submitted went with it.
        if let Some(request) = &mut self.request {
            request.closeout_queued = false;
        }
        self.stepped = false;
        self.cutoff = None;
        self.answering = None;
        self.opening = None;
        self.continuation = false;
        if self.commit.is_some() {
            // The process that ran this reset is gone, and with it what it would have done
            // next: a confirmed reset just ends, an unconfirmed one is cancelled.
            self.cancel_unless_committed("the process that ran the reset ended", fx);
        }
    }

    pub(super) fn native_compacted(&mut self, agent: Agent) {
        if agent == Agent::Main {
            let next = self.next_ordinal();
            if self.window.ordinal.is_some() {
                self.advance_to(next);
            }
        }
    }

    pub(super) fn warning_point(&mut self, tokens: u64, point: Option<u64>, fx: &mut Vec<Effect>) {
        if self.disable_compact || self.window.warning != Warning::Due || self.closeout_out() {
            return;
        }
        if point.is_some_and(|p| tokens >= p) {
            self.window.warning = Warning::Offered;
            fx.push(Effect::Warn {
                generation: self.generation,
            });
        }
    }

    /// A close-out is out for the pending request: it carries the shared budget warning
    /// (to the running turn, or as its own turn), so the warning point adds no second copy
    /// while it stands. Once the request ends (cancelled: the window goes on) the window's
    /// warning is due again; a reset opens a new window, which owes its own.
    fn closeout_out(&self) -> bool {
        self.request
            .as_ref()
            .is_some_and(|r| r.closeout && !r.consumed)
    }

    pub(super) fn warning(&mut self, status: Delivery) {
        if self.window.warning == Warning::Offered {
            self.window.warning = match status {
                Delivery::Delivered => Warning::Delivered,
                Delivery::Dropped => Warning::Due,
            };
        }
    }

    pub(super) fn turn_start(&mut self, agent: Agent, turn_id: String) {
        if agent == Agent::Main {
            self.stepped = false;
            self.enter_main_turn(turn_id);
        }
    }

    pub(super) fn prompt_submitted(&mut self, natural: bool, fx: &mut Vec<Effect>) {
        if natural {
            // Waiting to run as its own turn, or to be attached to the running one.
            self.waiting = Some(Waiting::Queued);
            self.natural(InputPhase::Queued, fx);
        }
    }

    /// Whether a main row that joins the turn would attach a waiting prompt to the running
    /// turn now (a queued prompt, a main turn that made its first request): the one rule
    /// for `appended` and for the rows a host adapter asks its shell to send.
    pub fn attachable(&self) -> bool {
        self.main_turn.is_some() && self.stepped && self.waiting == Some(Waiting::Queued)
    }

    pub(super) fn appended(&mut self, agent: Agent, joins_turn: bool, fx: &mut Vec<Effect>) {
        if agent == Agent::Main && joins_turn && self.attachable() {
            // The engine attached the waiting prompt to the running turn.
            self.waiting = Some(Waiting::Accepted);
            self.natural(InputPhase::Accepted, fx);
        }
    }

    /// A main step that goes out as a model request carries the waiting input: its own
    /// turn's opening step, or the step after the engine attached it to the running turn.
    pub(super) fn stepped(&mut self, index: u32, fx: &mut Vec<Effect>) {
        self.stepped = true;
        let carried = match self.waiting {
            Some(Waiting::Accepted) => true,
            Some(Waiting::Queued) => index == 0,
            None => false,
        };
        if carried {
            if index == 0 && self.waiting == Some(Waiting::Queued) {
                self.turn_by_input = true;
            }
            self.waiting = None;
            self.natural(InputPhase::Delivered, fx);
        }
    }

    /// Whether the boot row is the boot as built: given the row's text and holding the
    /// boot's, the flow compares them (line ends at the end ignored); else the shell's word.
    pub(super) fn intact(&self, seen: Option<&str>, claimed: bool) -> bool {
        let built = match &self.commit {
            Some(Commit {
                stage: Stage::Installed { text, .. },
                ..
            }) => text.as_deref(),
            _ => None,
        };
        match (seen, built) {
            (Some(seen), Some(built)) => seen.trim_end() == built.trim_end(),
            _ => claimed,
        }
    }
}
