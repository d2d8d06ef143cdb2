//! The commit lifetime: one compaction attempt, its boot, the evidence that the host kept it,
//! and the one continuation.

use super::{
    Answering, CONTINUE_TEXT, Commit, Flow, MARKER_PREFIX, PRECOMPUTE_NOTICE, STALE_WORKER_NOTICE,
    Stage, USER_COMPACT_NOTICE, one_line,
};
use crate::effect::{Effect, Pool};
use crate::event::{
    Agent, BootStatus, CommandResult, ContinuationStatus, Evidence, EvidenceFrom, Trigger,
};

impl Flow {
    pub(super) fn compaction(
        &mut self,
        agent: Agent,
        trigger: Trigger,
        instructions: Option<&str>,
        fx: &mut Vec<Effect>,
    ) {
        if agent == Agent::Subagent {
            fx.push(Effect::NativeCompaction);
            return;
        }
        match trigger {
            Trigger::Precompute => fx.push(Effect::VetoCompaction {
                notice: PRECOMPUTE_NOTICE.to_owned(),
                quiet: false,
            }),
            Trigger::Manual | Trigger::Plugin => {
                let expected = self.expected_marker();
                if expected.is_some() && expected.as_deref() == instructions {
                    self.answer_commit(fx);
                } else if let Some(marker) = instructions.filter(|i| i.starts_with(MARKER_PREFIX)) {
                    // The worker's own compaction, no longer expected (a native auto
                    // compaction consumed its request, or a retry replaced it): the person
                    // did nothing, so nothing is shown.
                    fx.push(Effect::VetoCompaction {
                        notice: format!("{STALE_WORKER_NOTICE} ({})", one_line(marker)),
                        quiet: true,
                    });
                } else {
                    fx.push(Effect::VetoCompaction {
                        notice: USER_COMPACT_NOTICE.to_owned(),
                        quiet: false,
                    });
                }
            }
            Trigger::Auto => {
                // The request's own compaction: the first that consumes it, or a retry of one
                // whose boot never reported (its hook did not finish).
                let consumable = self.request.as_ref().is_some_and(|r| !r.consumed)
                    && matches!(
                        self.commit,
                        None | Some(Commit {
                            stage: Stage::Requested,
                            ..
                        })
                    )
                    || matches!(
                        self.commit,
                        Some(Commit {
                            stage: Stage::Answered,
                            ..
                        })
                    );
                if consumable {
                    if let Some(request) = &mut self.request {
                        request.consumed = true;
                        self.commit = Some(Commit {
                            request: request.id,
                            marker: None,
                            stage: Stage::Requested,
                        });
                    }
                    self.answer_commit(fx);
                } else {
                    self.answering = Some(Answering::Untracked);
                    let ordinal = self.next_ordinal();
                    self.opening = Some(ordinal);
                    fx.push(Effect::AnswerCompaction {
                        keep: Vec::new(),
                        leave_out: Vec::new(),
                        ordinal,
                        pool: Pool::Forced,
                        sticky: None,
                        generation: self.generation,
                        text: None,
                    });
                }
            }
        }
    }

    pub(super) fn answer_commit(&mut self, fx: &mut Vec<Effect>) {
        let ordinal = self.next_ordinal();
        let (Some(request), Some(commit)) = (&self.request, &mut self.commit) else {
            return;
        };
        self.opening = Some(ordinal);
        commit.stage = Stage::Answered;
        self.answering = Some(Answering::Commit);
        fx.push(Effect::AnswerCompaction {
            keep: Vec::new(),
            leave_out: Vec::new(),
            ordinal,
            pool: request.pool(),
            sticky: request.sticky(),
            generation: self.generation,
            text: None,
        });
    }

    pub(super) fn boot(
        &mut self,
        status: BootStatus,
        uuid: Option<String>,
        text: Option<String>,
        reason: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(answering) = self.answering.take() else {
            return;
        };
        let acquired = match (status, uuid) {
            (BootStatus::Acquired, Some(uuid)) if !uuid.is_empty() => Some(uuid),
            _ => None,
        };
        let opening = self.opening.take();
        if acquired.is_some() {
            // The boot is returned: its window opens (the ordinal `answer_compaction` named;
            // a newer window seen meanwhile stands).
            self.advance_to(opening.unwrap_or_else(|| self.next_ordinal()));
        }
        match (answering, acquired) {
            (Answering::Untracked, Some(_)) => {}
            (Answering::Untracked, None) => fx.push(Effect::NativeCompaction),
            (Answering::Commit, Some(uuid)) => {
                if let Some(commit) = &mut self.commit {
                    // The worker's command runs between turns: run while a main turn is
                    // marked running, it runs nested in that turn's end. (A native
                    // compaction inside a turn appends its rows inside it.)
                    let in_turn = commit.marker.is_some() && self.main_turn.is_some();
                    commit.stage = Stage::Installed {
                        uuid,
                        text,
                        boundary: false,
                        touched: false,
                        in_turn,
                    };
                }
            }
            (Answering::Commit, None) => {
                let why = reason.map_or_else(
                    || "the boot could not be built".to_owned(),
                    |r| format!("the boot could not be built ({})", one_line(&r)),
                );
                let explicit = self.commit.as_ref().is_some_and(|c| c.marker.is_some());
                if explicit {
                    fx.push(Effect::VetoCompaction {
                        notice: format!("notesoup: {why}; nothing was cleared."),
                        quiet: false,
                    });
                    self.cancel(&format!("{why}; nothing was cleared"), fx);
                } else {
                    // A native auto compaction must happen: the host's own summary stands.
                    fx.push(Effect::NativeCompaction);
                    self.cutoff = None;
                    self.cancel(&format!("{why}; the host's own summary was used"), fx);
                }
            }
        }
    }

    pub(super) fn compaction_result(
        &mut self,
        generation: u64,
        status: CommandResult,
        reason: Option<String>,
        retry_now: bool,
        fx: &mut Vec<Effect>,
    ) {
        // The outcome of work started under another generation: invalidated.
        if generation != self.generation {
            return;
        }
        let Some(commit) = &self.commit else {
            return;
        };
        if commit.marker.is_none() {
            return;
        }
        let took = match &commit.stage {
            Stage::Requested | Stage::Answered => false,
            Stage::Installed { touched, .. } => *touched || status == CommandResult::Ok,
            Stage::Confirmed => true,
        };
        if took {
            return;
        }
        // The compaction did not happen: keep the request for a retry after the next turn.
        self.commit = None;
        if self.answering == Some(Answering::Commit) {
            self.answering = None;
            self.opening = None;
        }
        let why = reason.map_or_else(
            || match status {
                CommandResult::Ok => "it was not admitted".to_owned(),
                CommandResult::Failed => "it failed".to_owned(),
            },
            |r| one_line(&r),
        );
        // Once per request, between turns, it is tried again at once where the host can: a
        // single `claude -p` run ends after this (claude-hooks/EVENTS.md), and its reset would
        // wait for another.
        let again = retry_now
            && self.request.as_ref().is_some_and(|r| r.attempts == 1)
            && self.main_turn.is_none()
            && !self.undelivered;
        let then = if again {
            "trying once more now"
        } else {
            "the reset stays pending and is retried after the next turn"
        };
        fx.push(Effect::Report {
            text: format!("notesoup: the window was not cleared ({why}); {then}."),
        });
        if again {
            self.start_worker(fx);
        }
    }

    pub(super) fn evidence(
        &mut self,
        source: EvidenceFrom,
        evidence: Evidence,
        uuid: Option<&str>,
        intact: bool,
        fx: &mut Vec<Effect>,
    ) {
        let Some(Commit {
            stage:
                Stage::Installed {
                    uuid: expected,
                    boundary,
                    touched,
                    ..
                },
            ..
        }) = &mut self.commit
        else {
            return;
        };
        *touched = true;
        let kept = match evidence {
            Evidence::Boundary => {
                if source == EvidenceFrom::Append {
                    *boundary = true;
                }
                return;
            }
            Evidence::Boot if source == EvidenceFrom::Append && !*boundary => return,
            Evidence::Boot => intact && uuid == Some(expected.as_str()),
            Evidence::Missing => false,
        };
        if kept {
            if let Some(commit) = &mut self.commit {
                commit.stage = Stage::Confirmed;
            }
            self.maybe_continue(fx);
        } else {
            let what = if evidence == Evidence::Missing {
                "missing"
            } else {
                "rewritten"
            };
            self.commit_failed(what, fx);
        }
    }

    /// The window was compacted but the boot was not kept as built: the request ends
    /// without a continuation, and is never compacted again.
    pub(super) fn commit_failed(&mut self, what: &str, fx: &mut Vec<Effect>) {
        self.request = None;
        self.commit = None;
        if self.answering == Some(Answering::Commit) {
            self.answering = None;
            self.opening = None;
        }
        fx.push(Effect::Cancel {
            reason: format!("the boot is {what} after the compaction"),
        });
        fx.push(Effect::Report {
            text: format!(
                "notesoup: the boot is {what} after the compaction; not continuing. Your notes are safe; /notesoup shows them."
            ),
        });
    }

    /// After a confirmed commit, between turns (or once natural input carries the running
    /// turn): the one continuation, or the end of the request without one.
    pub(super) fn maybe_continue(&mut self, fx: &mut Vec<Effect>) {
        let Some(request) = &self.request else {
            return;
        };
        if !matches!(
            self.commit,
            Some(Commit {
                stage: Stage::Confirmed,
                ..
            })
        ) {
            return;
        }
        let why = request.no_continuation().or(if self.undelivered {
            Some("your input continues it")
        } else {
            None
        });
        if self.main_turn.is_some() && (why.is_none() || !self.natural_in_turn) {
            // A consumed request lives until its turn (ended by the cutoff) completes or
            // natural input carries the window; later calls in this turn are still its own.
            return;
        }
        self.request = None;
        self.commit = None;
        if let Some(why) = why {
            fx.push(Effect::Report {
                text: format!("notesoup: fresh window ready; not continuing: {why}."),
            });
        } else {
            self.continuation = true;
            // The last word is already in the fresh window, in the boot the compaction kept
            // ("Your last word"): the prompt never repeats it.
            fx.push(Effect::Continue {
                text: CONTINUE_TEXT.to_owned(),
                generation: self.generation,
            });
        }
    }

    pub(super) fn continuation(
        &mut self,
        status: ContinuationStatus,
        reason: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        if !std::mem::take(&mut self.continuation) {
            return;
        }
        let how = match status {
            ContinuationStatus::Started => return,
            ContinuationStatus::Dropped => "was dropped",
            ContinuationStatus::Failed => "failed",
        };
        let why = reason.map_or_else(String::new, |r| format!(" ({})", one_line(&r)));
        fx.push(Effect::Report {
            text: format!(
                "notesoup: the window was cleared, but the continuation {how}{why}; say how to go on."
            ),
        });
    }
}
