//! The cutoff lifetime and main turns: the synthetic end of turn, turn completion, the
//! reset worker's start, natural input.

use super::{Commit, END_TURN_STOP_TEXT, END_TURN_TEXT, Flow, Marker, Request, Stage};
use crate::effect::{CloseoutMode, Effect};
use crate::event::{InputPhase, Measure, TurnEnd};

impl Flow {
    pub(super) fn main_step(
        &mut self,
        turn_id: String,
        index: u32,
        context: Option<Measure>,
        fx: &mut Vec<Effect>,
    ) {
        self.enter_main_turn(turn_id);
        if index == 0 {
            // The step that delivers the turn's prompt is never cut.
            self.stepped(index, fx);
            return;
        }
        if let Some(measure) = context {
            self.measure(measure, fx);
        }
        if self.cutoff.as_ref().is_some_and(|c| !c.released) {
            self.cutoff = None;
            fx.push(Effect::EndTurn {
                text: self.end_turn_text(),
            });
        } else {
            self.stepped(index, fx);
            self.closeout_carried();
        }
    }

    /// A model request of the running main turn went out: a busy close-out's warning given
    /// to this turn is in it.
    fn closeout_carried(&mut self) {
        if let Some(request) = &mut self.request
            && request.closeout_turn.is_some()
            && request.closeout_turn == self.main_turn
        {
            request.closeout_turn = None;
        }
    }

    /// The main turn ended before any model request carried the busy close-out's warning
    /// given to it (typed during its last step, or the step after was cut): the close-out
    /// becomes one hidden turn of its own, as when idle, and the reset waits for that
    /// turn (no worker starts now). Returns whether it did.
    fn closeout_missed_turn(&mut self, fx: &mut Vec<Effect>) -> bool {
        let generation = self.generation;
        let Some(request) = &mut self.request else {
            return false;
        };
        // A person's input waiting to run goes first, as with an idle command: that turn
        // is theirs, and the reset waits for it.
        if request.closeout_turn.take().is_none()
            || self.commit.is_some()
            || request.consumed
            || self.undelivered
        {
            return false;
        }
        request.closeout_queued = true;
        fx.push(Effect::Closeout {
            mode: CloseoutMode::Submit,
            generation,
        });
        true
    }

    /// The main turn `turn_id` runs: a new one forgets the last one's natural input, and a
    /// cutoff bound to another turn is stale; an unbound cutoff adopts it.
    pub(super) fn enter_main_turn(&mut self, turn_id: String) {
        if self.main_turn.as_deref() != Some(turn_id.as_str()) {
            self.natural_in_turn = false;
            self.turn_by_input = false;
            if self
                .cutoff
                .as_ref()
                .is_some_and(|c| c.turn.as_ref().is_some_and(|t| *t != turn_id))
            {
                self.cutoff = None;
            }
            self.main_turn = Some(turn_id.clone());
        }
        if let Some(cutoff) = &mut self.cutoff
            && cutoff.turn.is_none()
        {
            cutoff.turn = Some(turn_id);
        }
    }

    /// What the synthetic end of turn tells the person: the work continues from the fresh
    /// window, or (STOP, terminate, waiting input) the fresh window waits, and why.
    pub(super) fn end_turn_text(&self) -> String {
        let why =
            self.request
                .as_ref()
                .and_then(Request::no_continuation)
                .or(if self.undelivered {
                    Some("your input continues it")
                } else {
                    None
                });
        match why {
            None => END_TURN_TEXT.to_owned(),
            Some(why) => format!("{END_TURN_STOP_TEXT}: {why}."),
        }
    }

    pub(super) fn main_complete(
        &mut self,
        reason: TurnEnd,
        context: Option<Measure>,
        fx: &mut Vec<Effect>,
    ) {
        self.main_turn = None;
        self.natural_in_turn = false;
        self.cutoff = None;
        // A turn the person's input did not open is the queued close-out's own (it is the
        // next plugin turn the engine runs): its end lets the worker start.
        if !std::mem::take(&mut self.turn_by_input)
            && let Some(request) = &mut self.request
        {
            request.closeout_queued = false;
        }
        if reason != TurnEnd::Answer {
            let how = match reason {
                TurnEnd::Aborted => "the turn was aborted",
                TurnEnd::Refusal => "the turn ended in a refusal",
                TurnEnd::Error | TurnEnd::Other | TurnEnd::Answer => "the turn failed",
            };
            if self.request.is_some() {
                self.cancel_unless_committed(how, fx);
            }
            return;
        }
        // Evidence comes while the compaction's rows are appended: a commit still unproven
        // when a main turn completes never will be (and must not hold the request forever),
        // unless the compaction ran nested in the end of this very turn, whose rows come
        // after it: that one waits for them until the next turn completes.
        // The point is checked again only after the next turn.
        if let Some(Commit {
            stage: Stage::Installed { in_turn, .. },
            ..
        }) = &mut self.commit
            && std::mem::take(in_turn)
        {
            return;
        }
        let failed = match &self.commit {
            Some(Commit {
                stage: Stage::Installed { .. },
                ..
            }) => Some("not confirmed"),
            Some(Commit {
                stage: Stage::Answered,
                marker: None,
                ..
            }) => Some("never reported"),
            _ => None,
        };
        if let Some(what) = failed {
            self.commit_failed(what, fx);
            return;
        }
        if self.closeout_missed_turn(fx) {
            return;
        }
        if self.request.is_none()
            && let Some(measure) = context
        {
            self.measure(measure, fx);
        }
        self.start_worker(fx);
        self.maybe_continue(fx);
    }

    /// Hand a pending request to the reset worker (between turns only).
    pub(super) fn start_worker(&mut self, fx: &mut Vec<Effect>) {
        if self.main_turn.is_some() || self.undelivered || self.commit.is_some() {
            return;
        }
        let generation = self.generation;
        let Some(request) = &mut self.request else {
            return;
        };
        if request.consumed || request.closeout_queued {
            return;
        }
        request.attempts = request.attempts.saturating_add(1);
        let marker = Marker {
            generation,
            request: request.id,
            attempt: request.attempts,
        };
        self.commit = Some(Commit {
            request: request.id,
            marker: Some(marker),
            stage: Stage::Requested,
        });
        fx.push(Effect::Compact {
            marker: marker.render(),
            generation,
        });
    }

    pub(super) fn natural(&mut self, phase: InputPhase, fx: &mut Vec<Effect>) {
        // Input that joins the running turn releases its cutoff for the rest of the turn. A
        // delivery is not itself new input: the prompt that opens a turn is delivered by
        // that turn's first step, which the cutoff never touches.
        if phase == InputPhase::Accepted && self.main_turn.is_some() {
            self.natural_in_turn = true;
            if let Some(cutoff) = &mut self.cutoff {
                cutoff.released = true;
            }
        }
        self.undelivered = phase != InputPhase::Delivered;
        if let Some(request) = &mut self.request {
            request.natural = true;
        }
        if phase == InputPhase::Delivered
            && matches!(
                self.commit,
                Some(Commit {
                    stage: Stage::Confirmed,
                    ..
                })
            )
        {
            // The reset is done and the person's input carries the fresh window.
            self.maybe_continue(fx);
        }
    }
}
