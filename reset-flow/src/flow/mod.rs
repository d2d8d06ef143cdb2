//! The machine: [`Flow`] holds the three lifetimes and the window; [`Flow::handle`] applies
//! one event. The handlers live beside this file along the flow's seams: `request` (the
//! reset request, commands, close-outs, measurement), `cutoff` (main turns and natural
//! input), `commit` (compactions, the boot, evidence, the continuation).

mod commit;
mod copy;

pub use copy::HEADING;
mod cutoff;
mod request;
mod window;

pub(crate) use window::OwnBoot;
use window::{Waiting, Window};

use serde::{Deserialize, Serialize};

use crate::effect::{Effect, Pool};
use crate::event::{Agent, Event, Measure};

/// The debug line a session's flow gives once, when it first hears `DISABLE_COMPACT` set.
pub const DISABLE_COMPACT_LOG: &str = "DISABLE_COMPACT is set: no budget warnings, and no \
    clearing of the window (/empty, /fresh-window and the model's empty_brain are refused)";

/// The version of the state blob this crate writes and reads.
pub const STATE_VERSION: u32 = 3;

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
    /// The window the answered compaction's boot opens (named in `answer_compaction`).
    pub(crate) opening: Option<u32>,
    /// A continuation was submitted and its fate is not known yet.
    pub(crate) continuation: bool,
    /// The window: ordinal, warning, cap.
    pub(crate) window: Window,
    /// A person's input no model request carried yet (from `prompt_submitted`/`appended`).
    pub(crate) waiting: Option<Waiting>,
    /// The running main turn has made its first model request.
    pub(crate) stepped: bool,
    /// A person at a terminal: commit evidence comes from the
    /// conversation, not from appends. Read only by the hook layer.
    #[serde(default)]
    pub(crate) interactive: bool,
    /// The running main turn was opened by the person's input (its first step carried a
    /// waiting prompt): not a close-out's own turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) turn_by_input: bool,
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
    /// The running main turn a busy close-out's warning was given to, until a model request
    /// of that turn carries it (its next main step that is not cut); should the turn end
    /// first, the close-out becomes a hidden turn of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) closeout_turn: Option<String>,
    /// An idle close-out was submitted and no turn of its own has ended yet: the worker
    /// waits for it. A person's turn the engine runs first (an SDK client's message sent
    /// right after the command) is theirs, and the close-out runs after it, still in the
    /// window it is meant to save.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) closeout_queued: bool,
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
    /// The worker's compact command was issued; its compaction has not come.
    Requested,
    /// `answer_compaction` was issued; the boot build has not reported.
    Answered,
    /// The boot was built; waiting for evidence that the host kept it. `boundary`: the
    /// compact boundary was appended; `touched`: any row of this compaction was seen (the
    /// window changed, so the attempt is never retried).
    Installed {
        uuid: String,
        /// The boot's text, when the shell gave it (evidence is then compared with it).
        text: Option<String>,
        boundary: bool,
        touched: bool,
        /// Installed while a main turn ran: the compaction ran nested in that turn's end
        /// (the engine had already read the person's next message when the worker's command
        /// was queued), so its rows are appended after that turn completes, and the turn's
        /// completion is not yet the end of the wait for them; the next one is.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        in_turn: bool,
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
            opening: None,
            continuation: false,
            window: Window::default(),
            waiting: None,
            stepped: false,
            interactive: false,
            turn_by_input: false,
        }
    }

    /// The session generation.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Takes the generation of the binding that steps the flow now
    /// ([`binding_generation`](crate::binding_generation)): from here on, outcomes of work
    /// issued under another generation are ignored. A flow another binding saved has
    /// already heard `loaded` (its work is gone), so nothing else changes.
    pub(crate) fn bind(&mut self, generation: u64) {
        self.generation = generation;
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

    /// Whether commit evidence comes from the conversation a person sees (a terminal)
    /// rather than from the rows the host appends (headless). A host adapter sets it when a
    /// session starts and with every call that says it (a new session's record may hear no
    /// start); a session change keeps it.
    pub fn set_interactive(&mut self, interactive: bool) {
        self.interactive = interactive;
    }

    /// See [`Flow::set_interactive`].
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// The boot an answered compaction installed, while the evidence that the host kept it
    /// is awaited.
    pub fn installed(&self) -> Option<Installed<'_>> {
        match &self.commit {
            Some(Commit {
                stage:
                    Stage::Installed {
                        uuid,
                        text,
                        boundary,
                        ..
                    },
                ..
            }) => Some(Installed {
                identity: uuid,
                text: text.as_deref(),
                boundary: *boundary,
            }),
            _ => None,
        }
    }

    /// Whether the worker's own compaction was issued and not yet answered with a boot: how
    /// its command settles can still change the flow.
    pub fn worker_compaction_unanswered(&self) -> bool {
        matches!(
            &self.commit,
            Some(Commit {
                marker: Some(_),
                stage: Stage::Requested | Stage::Answered,
                ..
            })
        )
    }

    /// What the state says, read-only (for Rust callers and tests; no shell reads it).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            generation: self.generation,
            pending: self.request.is_some(),
            end_turn_at_next_main_step: self
                .cutoff
                .as_ref()
                .is_some_and(|c| !c.released && (c.turn.is_none() || c.turn == self.main_turn)),
            stop: self
                .request
                .as_ref()
                .is_some_and(|r| r.no_continuation().is_some()),
            disable_compact: self.disable_compact,
            ordinal: self.window.ordinal,
            warned: self.window.warning == window::Warning::Delivered,
            boot_owed: self.window.own_boot == window::OwnBoot::Owed,
            cap: self.window.cap,
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
            // A fill measured between turns waits for the next turn's own measure.
            Event::Measured {
                tokens,
                hard,
                auto_clear,
            } if self.main_turn.is_some() => {
                let measure = Measure {
                    tokens,
                    hard,
                    auto_clear,
                };
                self.measure(measure, &mut fx);
            }
            Event::NaturalInput { phase } => self.natural(phase, &mut fx),
            Event::Command {
                command,
                busy,
                measured,
            } => self.command(command, busy, measured, &mut fx),
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
                retry_now,
            } => self.compaction_result(generation, status, reason, retry_now, &mut fx),
            Event::Boot {
                generation,
                status,
                uuid,
                text,
                reason,
            } if generation == self.generation => self.boot(status, uuid, text, reason, &mut fx),
            Event::CommitEvidence {
                generation,
                source,
                evidence,
                uuid,
                intact,
                text,
            } if generation == self.generation => {
                let intact = self.intact(text.as_deref(), intact);
                self.evidence(source, evidence, uuid.as_deref(), intact, &mut fx);
            }
            Event::Continuation {
                generation,
                status,
                reason,
            } if generation == self.generation => self.continuation(status, reason, &mut fx),
            Event::Session { generation } => self.session(generation, &mut fx),
            Event::Loaded => self.loaded(&mut fx),
            Event::WindowSeen { ordinal } => self.advance_to(ordinal),
            Event::BootCopy { session, text } => self.boot_copy(&session, &text, &mut fx),
            Event::NativeCompacted { agent } => self.native_compacted(agent),
            Event::WarningPoint { tokens, point } => self.warning_point(tokens, point, &mut fx),
            Event::CopiedBoot { ordinal } => self.copied_boot(ordinal),
            Event::PromptOut => self.prompt_out(&mut fx),
            Event::OwnBoot { generation, status } => self.own_boot(generation, status),
            Event::Warning { generation, status } if generation == self.generation => {
                self.warning(status);
            }
            Event::TurnStart { agent, turn_id } => self.turn_start(agent, turn_id),
            Event::PromptSubmitted { natural } => self.prompt_submitted(natural, &mut fx),
            Event::Appended { agent, joins_turn } => self.appended(agent, joins_turn, &mut fx),
            // A refused cap is never sent; a pending reset keeps its policy.
            Event::CapChanged { cap } => self.window.cap = cap,
            Event::DisableCompact { set } => self.disable_compact(set, &mut fx),
            // Subagent turns never touch the main flow; a cap change keeps the policy.
            Event::TurnStep { .. }
            | Event::TurnComplete { .. }
            // Results of work started under another generation: invalidated.
            | Event::Closeout { .. }
            | Event::Boot { .. }
            | Event::CommitEvidence { .. }
            | Event::Continuation { .. }
            | Event::Warning { .. }
            | Event::Measured { .. } => {}
        }
        fx
    }

    fn disable_compact(&mut self, set: bool, fx: &mut Vec<Effect>) {
        // Said once per session: the flag outlives processes and reloads (`loaded` keeps
        // it), and the host sends it again with every call that could warn or clear.
        if set && !self.disable_compact {
            fx.push(Effect::Log {
                text: DISABLE_COMPACT_LOG.to_owned(),
            });
        }
        self.disable_compact = set;
        if set {
            self.cancel_unless_committed(
                "DISABLE_COMPACT is set: compaction is disabled, so nothing can be cleared",
                fx,
            );
        }
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
        let (disable_compact, interactive) = (self.disable_compact, self.interactive);
        *self = Self::new(generation);
        self.disable_compact = disable_compact;
        self.interactive = interactive;
    }
}

pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The boot an answered compaction installed ([`Flow::installed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Installed<'a> {
    /// Its identity (the window id its marker names).
    pub identity: &'a str,
    /// Its text, when the shell gave it.
    pub text: Option<&'a str>,
    /// The compaction's boundary row was seen.
    pub boundary: bool,
}

/// What a flow's state says, read-only ([`Flow::snapshot`]): for Rust callers (the cap's
/// status text) and tests. Not on the wire: the shell obeys effects and reads no state.
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent yes/no facts of one state, read one at a time"
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Snapshot {
    /// The flow's generation (echoed in asynchronous-result events).
    pub generation: u64,
    /// A reset request is pending or in flight.
    pub pending: bool,
    /// The next main step of the running turn will be answered with `end_turn`.
    pub end_turn_at_next_main_step: bool,
    /// The pending reset will not continue (STOP, `terminate`, or natural input).
    pub stop: bool,
    /// `DISABLE_COMPACT` is set: explicit resets are refused.
    pub disable_compact: bool,
    /// The current window's ordinal, once known (it only grows).
    pub ordinal: Option<u32>,
    /// The budget warning was delivered in this window.
    pub warned: bool,
    /// This session owes itself its own boot of the window (the window's boot is another
    /// session's copy: a fork's), to be attached to its next main prompt.
    pub boot_owed: bool,
    /// The runtime cap (`/notesoup cap`), in tokens.
    pub cap: Option<u64>,
}
