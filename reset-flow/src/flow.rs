//! The machine: [`Flow`] holds the three lifetimes; [`Flow::handle`] applies one event.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::effect::{CloseoutMode, Effect, Hints, Pool};
use crate::event::{
    Agent, BootStatus, Command, ContinuationStatus, Event, Evidence, InputPhase, Measure, Miss,
    Outcome, Source, Trigger, TurnEnd,
};

/// The version of the state blob this crate writes and reads.
pub const STATE_VERSION: u32 = 1;

/// The whole reset state between two hook calls (serialized as the state blob).
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent facts of the flow, each named after the rule it serves"
)]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// Blob version ([`STATE_VERSION`]).
    pub(crate) v: u32,
    /// The session generation; asynchronous results of another generation are ignored.
    pub(crate) generation: u64,
    /// `DISABLE_COMPACT` is set.
    pub(crate) disable_compact: bool,
    /// The id the next request gets (ids are unique within a generation).
    pub(crate) next_request: u32,
    /// The running main turn, if a main step was seen and its completion not yet.
    pub(crate) main_turn: Option<String>,
    /// Natural input was accepted or delivered in the running main turn.
    pub(crate) natural_in_turn: bool,
    /// Natural input is waiting for a model request.
    pub(crate) undelivered: bool,
    /// The request lifetime.
    pub(crate) request: Option<Request>,
    /// The commit lifetime (one native compaction attempt).
    pub(crate) commit: Option<Commit>,
    /// The cutoff lifetime (per main turn).
    pub(crate) cutoff: Option<Cutoff>,
    /// Which compaction the next `boot` event is for.
    pub(crate) answering: Option<Answering>,
    /// A continuation was submitted and its fate is not known yet.
    pub(crate) continuation: bool,
}

/// Why a request exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Origin {
    Tool,
    Budget,
    Command,
}

/// The first valid `empty_brain` call's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    pub(crate) sticky: Option<String>,
    pub(crate) terminate: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent facts of one request, each named after the rule it serves"
)]
pub(crate) struct Request {
    pub(crate) id: u32,
    pub(crate) origin: Origin,
    /// First valid tool call wins; `None` until the model calls `empty_brain`.
    pub(crate) args: Option<Args>,
    /// Manual STOP (`/empty`, `/fresh-window`): never undone.
    pub(crate) stop: bool,
    /// Natural input took over: no plugin continuation.
    pub(crate) natural: bool,
    /// A native auto compaction consumed the request (no worker compaction follows).
    pub(crate) consumed: bool,
    /// Worker attempts so far (the marker's `a<n>`).
    pub(crate) attempts: u32,
    /// A close-out was asked for and may still fail to start.
    pub(crate) closeout: bool,
}

impl Request {
    fn pool(&self) -> Pool {
        if self.args.is_some() {
            Pool::Normal
        } else {
            Pool::Forced
        }
    }

    fn sticky(&self) -> Option<String> {
        self.args.as_ref().and_then(|a| a.sticky.clone())
    }

    /// Why this request will not continue, if it will not.
    fn no_continuation(&self) -> Option<&'static str> {
        if self.stop {
            Some("stopped as asked")
        } else if self.natural {
            Some("your input continues it")
        } else if self.args.as_ref().is_some_and(|a| a.terminate) {
            Some("the model asked to stop (terminate)")
        } else {
            None
        }
    }
}

/// The worker marker's parts; rendered as `notesoup-reset g<gen> r<req> a<attempt>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Marker {
    pub(crate) generation: u64,
    pub(crate) request: u32,
    pub(crate) attempt: u32,
}

impl Marker {
    pub(crate) fn render(self) -> String {
        format!(
            "notesoup-reset g{} r{} a{}",
            self.generation, self.request, self.attempt
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "stage", deny_unknown_fields)]
pub(crate) enum Stage {
    /// The worker's compact command was issued; its `session.compact` has not come.
    Requested,
    /// `answer_compaction` was issued; the boot build has not reported.
    Answered,
    /// The boot was built; waiting for evidence that Claude kept it. `boundary`: the
    /// compact boundary was appended; `touched`: any row of this compaction was seen (the
    /// window changed, so the attempt is never retried).
    Installed {
        uuid: String,
        boundary: bool,
        touched: bool,
    },
    /// Evidence confirmed the boot.
    Confirmed,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Commit {
    /// The request this attempt resets.
    pub(crate) request: u32,
    /// The worker's marker; `None` when a native auto compaction consumed the request.
    pub(crate) marker: Option<Marker>,
    pub(crate) stage: Stage,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Cutoff {
    /// The main turn it ends (`None`: the first main step seen adopts it).
    pub(crate) turn: Option<String>,
    /// Natural input released it for the rest of the turn.
    pub(crate) released: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Answering {
    /// The commit's compaction (worker or consuming auto).
    Commit,
    /// A native auto compaction no request owns (forced pool; falls back to native).
    Untracked,
}

/// The one continuation prompt. It names no last word: that is retained with the boot.
const CONTINUE_TEXT: &str = "Fresh window. Continue from your notes and the handoff.";
const END_TURN_TEXT: &str = "Context window is being cleared by notesoup; this turn ends here and continues from a fresh window.";
/// The end-of-turn text when no continuation will follow; `{why}` says why not.
const END_TURN_STOP_TEXT: &str = "Context window is being cleared by notesoup; this turn ends here. The fresh window waits for the next message";
/// The start of every worker marker ([`Marker::render`]).
const MARKER_PREFIX: &str = "notesoup-reset g";
const STALE_WORKER_NOTICE: &str =
    "notesoup: the reset's own compaction is no longer needed (its window was already cleared)";
const USER_COMPACT_NOTICE: &str = "notesoup: /compact is off while notesoup manages this window; use /empty or /fresh-window to clear it.";
const PRECOMPUTE_NOTICE: &str =
    "notesoup: background pre-compaction skipped; notesoup clears windows itself.";

impl Default for Flow {
    fn default() -> Self {
        Self::new(0)
    }
}

impl Flow {
    /// A fresh flow for a session generation.
    pub fn new(generation: u64) -> Self {
        Self {
            v: STATE_VERSION,
            generation,
            disable_compact: false,
            next_request: 1,
            main_turn: None,
            natural_in_turn: false,
            undelivered: false,
            request: None,
            commit: None,
            cutoff: None,
            answering: None,
            continuation: false,
        }
    }

    /// The session generation.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The pending request's id, if any (ids are unique within a generation).
    pub fn request_id(&self) -> Option<u32> {
        self.request.as_ref().map(|r| r.id)
    }

    /// The marker the worker's compaction must carry, while one is expected.
    pub fn expected_marker(&self) -> Option<String> {
        match &self.commit {
            Some(Commit {
                marker: Some(m),
                stage: Stage::Requested,
                ..
            }) => Some(m.render()),
            _ => None,
        }
    }

    /// The facts the shell reads on hot paths.
    pub fn hints(&self) -> Hints {
        Hints {
            generation: self.generation,
            pending: self.request.is_some(),
            end_turn_at_next_main_step: self
                .cutoff
                .as_ref()
                .is_some_and(|c| !c.released && (c.turn.is_none() || c.turn == self.main_turn)),
            compaction_expected: self.expected_marker().is_some(),
            stop: self
                .request
                .as_ref()
                .is_some_and(|r| r.no_continuation().is_some()),
            disable_compact: self.disable_compact,
        }
    }

    /// Apply one event; returns the effects for the shell to carry out, in order.
    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        let mut fx = Vec::new();
        match event {
            Event::EmptyBrain { agent, args } => self.empty_brain(agent, &args, &mut fx),
            Event::TurnStep {
                agent: Agent::Main,
                turn_id,
                index,
                context,
            } => self.main_step(turn_id, index, context, &mut fx),
            Event::TurnComplete {
                agent: Agent::Main,
                turn_id: _,
                reason,
                context,
            } => self.main_complete(reason, context, &mut fx),
            Event::Measured {
                tokens,
                hard,
                auto_clear,
            } => {
                if self.main_turn.is_some() {
                    self.measure(
                        Measure {
                            tokens,
                            hard,
                            auto_clear,
                        },
                        &mut fx,
                    );
                }
            }
            Event::NaturalInput { phase } => self.natural(phase, &mut fx),
            Event::Command { command, busy } => self.command(command, busy, &mut fx),
            Event::Closeout {
                generation,
                status,
                reason,
            } if generation == self.generation => self.closeout_missed(status, reason, &mut fx),
            Event::Compaction {
                agent,
                trigger,
                instructions,
            } => self.compaction(agent, trigger, instructions.as_deref(), &mut fx),
            Event::CompactionResult {
                generation,
                status,
                reason,
            } if generation == self.generation => self.compaction_result(status, reason, &mut fx),
            Event::Boot {
                generation,
                status,
                uuid,
                reason,
            } if generation == self.generation => self.boot(status, uuid, reason, &mut fx),
            Event::CommitEvidence {
                generation,
                source,
                evidence,
                uuid,
                intact,
            } if generation == self.generation => {
                self.evidence(source, evidence, uuid.as_deref(), intact, &mut fx);
            }
            Event::Continuation {
                generation,
                status,
                reason,
            } if generation == self.generation => self.continuation(status, reason, &mut fx),
            Event::Session { generation } => self.session(generation, &mut fx),
            Event::DisableCompact { set } => {
                self.disable_compact = set;
                if set {
                    self.cancel_unless_committed(
                        "DISABLE_COMPACT is set: compaction is disabled, so nothing can be cleared",
                        &mut fx,
                    );
                }
            }
            // Subagent turns never touch the main flow; a cap change keeps the policy.
            Event::TurnStep { .. }
            | Event::TurnComplete { .. }
            | Event::CapChanged { .. }
            // Results of work started under another generation: invalidated.
            | Event::Closeout { .. }
            | Event::CompactionResult { .. }
            | Event::Boot { .. }
            | Event::CommitEvidence { .. }
            | Event::Continuation { .. } => {}
        }
        fx
    }

    // ----- request -----

    fn empty_brain(&mut self, agent: Agent, args: &Value, fx: &mut Vec<Effect>) {
        let refuse = |fx: &mut Vec<Effect>, text: String| {
            fx.push(Effect::ToolResult {
                text,
                is_error: true,
            });
        };
        if agent == Agent::Subagent {
            return refuse(
                fx,
                "empty_brain empties the main agent's brain; a subagent cannot reset it. Nothing was recorded.".into(),
            );
        }
        let args = match parse_args(args) {
            Ok(args) => args,
            Err(why) => {
                return refuse(
                    fx,
                    format!(
                        "{why}; nothing was recorded. Call empty_brain again with valid arguments."
                    ),
                );
            }
        };
        if self.disable_compact {
            return refuse(
                fx,
                "DISABLE_COMPACT is set, so the window cannot be cleared; keep working in this window.".into(),
            );
        }
        let text = if let Some(request) = &mut self.request {
            // Arguments are only taken while no compaction has been answered for the request.
            let open = !request.consumed
                && matches!(
                    self.commit,
                    None | Some(Commit {
                        stage: Stage::Requested,
                        ..
                    })
                );
            if request.args.is_none() && open {
                let stopped = request.stop;
                request.args = Some(args);
                if stopped {
                    "Reset requested: the window will be cleared after this batch of tools, as the person asked; the fresh window will wait for them.".to_owned()
                } else {
                    "Reset requested: the window will be cleared after this batch of tools."
                        .to_owned()
                }
            } else {
                "A reset is already requested; the first call's last_word and terminate stand. The window will be cleared after this batch of tools.".to_owned()
            }
        } else {
            let terminate = args.terminate;
            let id = self.new_request(Origin::Tool, Some(args));
            if let Some(request) = &mut self.request {
                request.natural = self.natural_in_turn || self.undelivered;
            }
            debug_assert_eq!(self.request_id(), Some(id));
            if terminate {
                "Reset requested: the window will be cleared after this batch of tools, and the fresh window will wait for the person (terminate).".to_owned()
            } else {
                "Reset requested: the window will be cleared after this batch of tools, and the fresh window continues from your notes and last_word.".to_owned()
            }
        };
        self.arm_cutoff();
        fx.push(Effect::ToolResult {
            text,
            is_error: false,
        });
    }

    fn new_request(&mut self, origin: Origin, args: Option<Args>) -> u32 {
        let id = self.next_request;
        self.next_request = self.next_request.saturating_add(1);
        self.request = Some(Request {
            id,
            origin,
            args,
            stop: false,
            natural: false,
            consumed: false,
            attempts: 0,
            closeout: false,
        });
        id
    }

    /// Arm the cutoff for the running main turn (kept when already there); natural input in
    /// this turn leaves it released.
    fn arm_cutoff(&mut self) {
        if self.cutoff.is_none() {
            self.cutoff = Some(Cutoff {
                turn: self.main_turn.clone(),
                released: self.natural_in_turn,
            });
        }
    }

    fn measure(&mut self, measure: Measure, fx: &mut Vec<Effect>) {
        if measure.over() && self.request.is_none() && !self.disable_compact {
            self.new_request(Origin::Budget, None);
            if let Some(request) = &mut self.request {
                request.natural = self.natural_in_turn || self.undelivered;
            }
            if self.main_turn.is_some() {
                self.arm_cutoff();
            }
            fx.push(Effect::Report {
                text: format!(
                    "notesoup: context at {} of {} tokens; clearing the window at the end of this step.",
                    measure.tokens, measure.hard
                ),
            });
        }
    }

    fn command(&mut self, command: Command, busy: bool, fx: &mut Vec<Effect>) {
        let slash = command.slash();
        if self.disable_compact {
            fx.push(Effect::Report {
                text: format!(
                    "{slash} cannot run: DISABLE_COMPACT is set, so the window cannot be cleared."
                ),
            });
            return;
        }
        // A main turn the flow knows to be running makes the command busy whatever the
        // shell saw: a hidden turn is never submitted over a running one.
        let busy = busy || self.main_turn.is_some();
        let generation = self.generation;
        let idle_and_open = !busy
            && !self.undelivered
            && self.commit.is_none()
            && self.request.as_ref().is_none_or(|r| !r.consumed);
        if self.request.is_none() {
            self.new_request(Origin::Command, None);
        }
        let Some(request) = &mut self.request else {
            return;
        };
        request.stop = true;
        // The report first: a close-out that fails at once reports its cancel after it, so
        // the person reads what was attempted, then why it stopped.
        fx.push(Effect::Report {
            text: format!(
                "{slash}: saving notes, then clearing the window; it will wait for you afterwards."
            ),
        });
        if busy && request.origin == Origin::Command && !request.closeout {
            request.closeout = true;
            fx.push(Effect::Closeout {
                mode: CloseoutMode::CurrentTurn,
                generation,
            });
        } else if idle_and_open && !request.closeout {
            request.closeout = true;
            fx.push(Effect::Closeout {
                mode: CloseoutMode::Submit,
                generation,
            });
        }
    }

    fn closeout_missed(&mut self, status: Miss, reason: Option<String>, fx: &mut Vec<Effect>) {
        let Some(request) = &self.request else {
            return;
        };
        if !request.closeout || request.consumed || self.commit.is_some() {
            return;
        }
        let how = match status {
            Miss::Failed => "failed",
            Miss::Dropped => "was dropped",
        };
        let why = reason.map_or_else(String::new, |r| format!(" ({})", one_line(&r)));
        self.cancel(
            &format!("the close-out turn {how}{why}; nothing was cleared, run the command again"),
            fx,
        );
    }

    /// End the request without a reset (its commit attempt, if any, goes with it).
    fn cancel(&mut self, why: &str, fx: &mut Vec<Effect>) {
        if self.request.take().is_some() {
            self.commit = None;
            if self.answering == Some(Answering::Commit) {
                self.answering = None;
            }
            fx.push(Effect::Cancel {
                reason: why.to_owned(),
            });
            fx.push(Effect::Report {
                text: format!("notesoup: reset cancelled: {why}."),
            });
        }
    }

    /// Cancel a request whose reset has not been confirmed; a confirmed one just ends.
    fn cancel_unless_committed(&mut self, why: &str, fx: &mut Vec<Effect>) {
        if matches!(
            self.commit,
            Some(Commit {
                stage: Stage::Confirmed,
                ..
            })
        ) {
            self.request = None;
            self.commit = None;
            fx.push(Effect::Report {
                text: format!("notesoup: the window was cleared; not continuing: {why}."),
            });
        } else {
            self.cancel(why, fx);
        }
    }

    // ----- cutoff and turns -----

    fn main_step(
        &mut self,
        turn_id: String,
        index: u32,
        context: Option<Measure>,
        fx: &mut Vec<Effect>,
    ) {
        if self.main_turn.as_deref() != Some(turn_id.as_str()) {
            // A new main turn: a cutoff bound to another turn is stale.
            self.natural_in_turn = false;
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
        if index == 0 {
            // The step that delivers the turn's prompt is never cut.
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
        }
    }

    /// What the synthetic end of turn tells the person: the work continues from the fresh
    /// window, or (STOP, terminate, waiting input) the fresh window waits, and why.
    fn end_turn_text(&self) -> String {
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

    fn main_complete(&mut self, reason: TurnEnd, context: Option<Measure>, fx: &mut Vec<Effect>) {
        self.main_turn = None;
        self.natural_in_turn = false;
        self.cutoff = None;
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
        // when a main turn completes never will be (and must not hold the request forever).
        // The point is checked again only after the next turn.
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
        if self.request.is_none()
            && let Some(measure) = context
        {
            self.measure(measure, fx);
        }
        self.start_worker(fx);
        self.maybe_continue(fx);
    }

    /// Hand a pending request to the reset worker (between turns only).
    fn start_worker(&mut self, fx: &mut Vec<Effect>) {
        if self.main_turn.is_some() || self.undelivered || self.commit.is_some() {
            return;
        }
        let generation = self.generation;
        let Some(request) = &mut self.request else {
            return;
        };
        if request.consumed {
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

    fn natural(&mut self, phase: InputPhase, fx: &mut Vec<Effect>) {
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

    // ----- commit -----

    fn compaction(
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
                    fx.push(Effect::AnswerCompaction {
                        pool: Pool::Forced,
                        sticky: None,
                        generation: self.generation,
                    });
                }
            }
        }
    }

    fn answer_commit(&mut self, fx: &mut Vec<Effect>) {
        let (Some(request), Some(commit)) = (&self.request, &mut self.commit) else {
            return;
        };
        commit.stage = Stage::Answered;
        self.answering = Some(Answering::Commit);
        fx.push(Effect::AnswerCompaction {
            pool: request.pool(),
            sticky: request.sticky(),
            generation: self.generation,
        });
    }

    fn boot(
        &mut self,
        status: BootStatus,
        uuid: Option<String>,
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
        match (answering, acquired) {
            (Answering::Untracked, Some(_)) => {}
            (Answering::Untracked, None) => fx.push(Effect::NativeCompaction),
            (Answering::Commit, Some(uuid)) => {
                if let Some(commit) = &mut self.commit {
                    commit.stage = Stage::Installed {
                        uuid,
                        boundary: false,
                        touched: false,
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
                    // A native auto compaction must happen: Claude's own summary stands.
                    fx.push(Effect::NativeCompaction);
                    self.cutoff = None;
                    self.cancel(&format!("{why}; Claude's own summary was used"), fx);
                }
            }
        }
    }

    fn compaction_result(&mut self, status: Outcome, reason: Option<String>, fx: &mut Vec<Effect>) {
        let Some(commit) = &self.commit else {
            return;
        };
        if commit.marker.is_none() {
            return;
        }
        let took = match &commit.stage {
            Stage::Requested | Stage::Answered => false,
            Stage::Installed { touched, .. } => *touched || status == Outcome::Ok,
            Stage::Confirmed => true,
        };
        if took {
            return;
        }
        // The compaction did not happen: keep the request for a retry after the next turn.
        self.commit = None;
        if self.answering == Some(Answering::Commit) {
            self.answering = None;
        }
        let why = reason.map_or_else(
            || match status {
                Outcome::Ok => "it was not admitted".to_owned(),
                Outcome::Failed => "it failed".to_owned(),
            },
            |r| one_line(&r),
        );
        fx.push(Effect::Report {
            text: format!(
                "notesoup: the window was not cleared ({why}); the reset stays pending and is retried after the next turn."
            ),
        });
    }

    fn evidence(
        &mut self,
        source: Source,
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
                },
            ..
        }) = &mut self.commit
        else {
            return;
        };
        *touched = true;
        let kept = match evidence {
            Evidence::Boundary => {
                if source == Source::Append {
                    *boundary = true;
                }
                return;
            }
            Evidence::Boot if source == Source::Append && !*boundary => return,
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
    fn commit_failed(&mut self, what: &str, fx: &mut Vec<Effect>) {
        self.request = None;
        self.commit = None;
        if self.answering == Some(Answering::Commit) {
            self.answering = None;
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
    fn maybe_continue(&mut self, fx: &mut Vec<Effect>) {
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

    fn continuation(
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

    fn session(&mut self, generation: u64, fx: &mut Vec<Effect>) {
        if generation == self.generation {
            return;
        }
        if self.request.is_some() {
            fx.push(Effect::Cancel {
                reason: "the session changed".to_owned(),
            });
        }
        let disable_compact = self.disable_compact;
        *self = Self::new(generation);
        self.disable_compact = disable_compact;
    }
}

/// Validate `empty_brain`'s raw input: `terminate` absent or boolean (default false),
/// `last_word` absent or a string. Other keys are ignored.
fn parse_args(args: &Value) -> Result<Args, String> {
    let map = match args {
        Value::Null => {
            return Ok(Args {
                sticky: None,
                terminate: false,
            });
        }
        Value::Object(map) => map,
        other => {
            return Err(format!(
                "empty_brain's input must be an object, got {}",
                kind(other)
            ));
        }
    };
    let terminate = match map.get("terminate") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "`terminate` must be true or false, got {}",
                kind(other)
            ));
        }
    };
    let sticky = match map.get("last_word") {
        None => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!("`last_word` must be a string, got {}", kind(other)));
        }
    };
    Ok(Args { sticky, terminate })
}

fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {:?}", truncate(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
