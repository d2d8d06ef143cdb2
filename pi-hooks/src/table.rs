//! The table: which events of the reset flow each Pi extension event is, in order, and what
//! follows from their effects within the same call (the boot an answered compaction needs,
//! a close-out with no warning to carry). Every step is an existing [`Event`] of the flow.

use notesoup_reset_flow::{
    Agent, BootStatus, Budget, Command, ContinuationStatus, Delivery, Effect, Event, Evidence,
    EvidenceFrom, Flow, Kept, Miss, Trigger, TurnEnd,
};
use notesoup_window::{Host, WindowId, marker};

use crate::hook::{InputSource, PiCommand, PiHook, Streaming, turn_end};
use crate::resolve::{CapAsk, Resolve};
use crate::tail::{TailEntry, kept_from, left_out};

/// What a notesoup command answers in a run with no session file.
const NO_SESSION_FILE: &str = "This Pi run keeps no session file (pi --no-session), so notesoup does not clear its window: Pi compacts it as its own, and /empty, /fresh-window and the cap do not apply. The notes and history tools work.";

/// Why a close-out has no warning to carry.
const NO_USAGE: &str = "no context usage measured yet";

/// The turn id of run `run` of the process: the flow's main turn is Pi's run.
pub fn run_id(run: u64) -> String {
    format!("run{run}")
}

/// The window a text's boot names, when it is a whole boot of Pi's (another host's pasted
/// boot is no window of this conversation).
///
/// ```
/// use notesoup_pi_hooks::pi_window;
/// let w = pi_window("<notesoup-boot window=\"pi:s1:2\">\nnotes\n</notesoup-boot>\n\nGo on.");
/// assert_eq!(w.map(|w| w.to_string()).as_deref(), Some("pi:s1:2"));
/// assert!(pi_window("<notesoup-boot window=\"claude:s1:2\">\nn\n</notesoup-boot>").is_none());
/// assert!(pi_window("a summary").is_none());
/// ```
pub fn pi_window(text: &str) -> Option<WindowId> {
    marker::retained_window(text).filter(|w| w.host() == Host::Pi.name())
}

/// One Pi event on `flow`: its events in order, and their effects (see [`PiHook`] for what
/// each event means).
pub fn apply(flow: &mut Flow, hook: &PiHook, resolve: &mut dyn Resolve) -> Vec<Effect> {
    let budget = if hook.needs_budget() {
        resolve.budget(flow.snapshot().cap)
    } else {
        None
    };
    let mut call = Call {
        flow,
        fx: Vec::new(),
    };
    call.hook(hook, budget, resolve);
    call.fx
}

/// A Pi event in progress on one flow.
struct Call<'f> {
    flow: &'f mut Flow,
    fx: Vec<Effect>,
}

impl Call<'_> {
    fn send(&mut self, event: Event) {
        let fx = self.flow.handle(event);
        self.fx.extend(fx);
    }

    #[expect(
        clippy::too_many_lines,
        reason = "the table of Pi events: one short arm per event, read top to bottom"
    )]
    fn hook(&mut self, hook: &PiHook, budget: Option<Budget>, resolve: &mut dyn Resolve) {
        let generation = self.flow.generation();
        match hook {
            // The boot a compaction keeps is read from the session's leaf: evidence from
            // the conversation, as for an interactive Claude Code.
            PiHook::SessionStart { .. } => self.flow.set_interactive(true),
            PiHook::Input { source, streaming } => {
                self.send(Event::PromptSubmitted {
                    natural: *source != InputSource::Extension,
                });
                if *streaming == Some(Streaming::Steer) {
                    // Pi delivers a steering prompt with the running run's next request.
                    self.send(Event::Appended {
                        agent: Agent::Main,
                        joins_turn: true,
                    });
                }
            }
            PiHook::BeforeAgentStart {
                agent: Agent::Subagent,
                ..
            } => match resolve.unreset_boot() {
                // Its own window, which notesoup never clears: no window of the flow, no
                // warning point.
                Ok(text) => self.fx.push(Effect::AttachBoot { ordinal: 0, text }),
                Err(why) => self.fx.push(Effect::Log {
                    text: format!("no boot attached: {why}"),
                }),
            },
            PiHook::BeforeAgentStart { kept, .. } => {
                self.before_agent_start(kept.as_deref(), budget, resolve);
            }
            PiHook::AgentStart { agent, run } => self.send(Event::TurnStart {
                agent: *agent,
                turn_id: run_id(*run),
            }),
            PiHook::TurnStart {
                agent,
                run,
                turn_index,
            } => {
                let main = *agent == Agent::Main;
                if main && *turn_index == 0 {
                    // The opening request carries the prompt, and the warning and own boot
                    // `before_agent_start` gave it.
                    self.send(Event::Warning {
                        generation,
                        status: Delivery::Delivered,
                    });
                    self.send(Event::OwnBoot {
                        generation,
                        status: Delivery::Delivered,
                    });
                }
                self.send(Event::TurnStep {
                    agent: *agent,
                    turn_id: run_id(*run),
                    index: *turn_index,
                    context: budget
                        .filter(|_| main && *turn_index > 0)
                        .map(Budget::measure),
                });
            }
            PiHook::TurnEnd {
                agent,
                run,
                turn_index,
            } => self.batch_end(*agent, *run, *turn_index, budget, resolve),
            PiHook::ToolResult {
                agent: Agent::Main,
                is_error: false,
            } => self.main_tool_result(budget),
            PiHook::ToolResult { .. } => {}
            PiHook::AgentEnd {
                agent,
                run,
                stop_reason,
                cut,
                continuation,
            } => self.agent_end(
                *agent,
                *run,
                turn_end(*stop_reason, *cut),
                *continuation,
                budget,
            ),
            PiHook::SessionBeforeCompact {
                agent,
                reason,
                custom_instructions,
                tail,
            } => self.compaction(
                *agent,
                reason.trigger(),
                custom_instructions.clone(),
                tail,
                resolve,
            ),
            PiHook::SessionCompact {
                agent,
                from_extension,
                summary,
            } => self.compacted(*agent, *from_extension, summary.as_deref()),
            PiHook::CompactDone {
                generation,
                status,
                reason,
            } => self.send(Event::CompactionResult {
                generation: *generation,
                status: *status,
                reason: reason.clone(),
                // The extension does not run a `compact` this reply would carry.
                retry_now: false,
            }),
            PiHook::Continuation {
                generation,
                status,
                reason,
            } => self.send(Event::Continuation {
                generation: *generation,
                status: *status,
                reason: reason.clone(),
            }),
            PiHook::Closeout {
                generation,
                status,
                reason,
            } => self.send(Event::Closeout {
                generation: *generation,
                status: *status,
                reason: reason.clone(),
            }),
            PiHook::Command(command) if command.agent() == Agent::Subagent => {
                self.fx.push(Effect::Report {
                    text: NO_SESSION_FILE.to_owned(),
                });
            }
            PiHook::Command(PiCommand::Empty { busy, print, .. }) => {
                self.command(Command::Empty, *busy, *print, budget);
            }
            PiHook::Command(PiCommand::FreshWindow { busy, print, .. }) => {
                self.command(Command::FreshWindow, *busy, *print, budget);
            }
            PiHook::Command(PiCommand::Notesoup { args, .. }) => {
                self.notesoup(args.as_deref().unwrap_or_default(), resolve);
            }
        }
    }

    /// The end of a tool batch: the flow's next step. When it ends the turn (`end_turn`,
    /// kept for its notice), the turn completes as answered and the reset worker's
    /// compaction (its `compact`) is answered at once, as a manual compaction with its
    /// marker: the extension writes the `answer_compaction` as this boundary's entry.
    fn batch_end(
        &mut self,
        agent: Agent,
        run: u64,
        turn_index: u32,
        budget: Option<Budget>,
        resolve: &mut dyn Resolve,
    ) {
        let main = agent == Agent::Main;
        let step = self.flow.handle(Event::TurnStep {
            agent,
            turn_id: run_id(run),
            index: turn_index.saturating_add(1),
            context: budget.filter(|_| main).map(Budget::measure),
        });
        let ended = step.iter().any(|e| matches!(e, Effect::EndTurn { .. }));
        self.fx.extend(step);
        if !ended {
            return;
        }
        let complete = self.flow.handle(Event::TurnComplete {
            agent,
            turn_id: run_id(run),
            reason: TurnEnd::Answer,
            context: None,
        });
        for effect in complete {
            match effect {
                Effect::Compact { marker, .. } => {
                    self.compaction(agent, Trigger::Manual, Some(marker), &[], resolve);
                }
                effect => self.fx.push(effect),
            }
        }
    }

    /// A main tool result, returned at once with the warning it carries: delivered.
    fn main_tool_result(&mut self, budget: Option<Budget>) {
        let Some(b) = budget else {
            return;
        };
        self.send(Event::Measured {
            tokens: b.tokens,
            hard: b.hard,
            auto_clear: b.auto_clear,
        });
        self.send(Event::WarningPoint {
            tokens: b.tokens,
            point: b.warning,
        });
        let generation = self.flow.generation();
        self.send(Event::Warning {
            generation,
            status: Delivery::Delivered,
        });
    }

    /// `agent_end`: the continuation the run carried out (started when it answered), then
    /// the completion, measured.
    fn agent_end(
        &mut self,
        agent: Agent,
        run: u64,
        reason: TurnEnd,
        continuation: Option<u64>,
        budget: Option<Budget>,
    ) {
        if let (Agent::Main, Some(g)) = (agent, continuation) {
            let (status, why) = if reason == TurnEnd::Answer {
                (ContinuationStatus::Started, None)
            } else {
                (
                    ContinuationStatus::Failed,
                    Some(format!("its run ended: {}", reason.as_str())),
                )
            };
            self.send(Event::Continuation {
                generation: g,
                status,
                reason: why,
            });
        }
        // A busy close-out no request of the run carried becomes a close-out run here.
        let out = self.flow.handle(Event::TurnComplete {
            agent,
            turn_id: run_id(run),
            reason,
            context: budget.filter(|_| agent == Agent::Main).map(Budget::measure),
        });
        self.closeouts(out, budget);
    }

    /// `before_agent_start`: the boot the branch keeps names the window (another
    /// session's: a fork's copy, and the session owes itself its own boot, given with this
    /// prompt); with none kept the window's boot is attached to this run's system prompt.
    /// Then the warning point of the prompt.
    fn before_agent_start(
        &mut self,
        kept: Option<&str>,
        budget: Option<Budget>,
        resolve: &mut dyn Resolve,
    ) {
        if let Some(window) = kept.and_then(pi_window) {
            let ordinal = window.ordinal();
            if window.session() == resolve.session() {
                self.send(Event::WindowSeen { ordinal });
            } else {
                self.send(Event::CopiedBoot { ordinal });
            }
        } else {
            let ordinal = self.flow.snapshot().ordinal.unwrap_or(0);
            match resolve.boot(ordinal, None) {
                Ok((_, text)) => {
                    self.send(Event::WindowSeen { ordinal });
                    self.fx.push(Effect::AttachBoot { ordinal, text });
                }
                Err(why) => self.fx.push(Effect::Log {
                    text: format!("no boot attached: {why}"),
                }),
            }
        }
        for effect in self.flow.handle(Event::PromptOut) {
            let Effect::AttachOwnBoot {
                ordinal,
                generation,
                ..
            } = effect
            else {
                self.fx.push(effect);
                continue;
            };
            match resolve.boot(ordinal, None) {
                Ok((_, text)) => self.fx.push(Effect::AttachOwnBoot {
                    ordinal,
                    generation,
                    text: Some(text),
                }),
                Err(why) => {
                    self.fx.push(Effect::Log {
                        text: format!("the fork's own boot not attached yet: {why}"),
                    });
                    self.send(Event::OwnBoot {
                        generation,
                        status: Delivery::Dropped,
                    });
                }
            }
        }
        if let Some(b) = budget {
            self.send(Event::WarningPoint {
                tokens: b.tokens,
                point: b.warning,
            });
        }
    }

    /// `session_before_compact`: the flow's answer; for `answer_compaction` the summary
    /// (boot and handoff) is built and `boot` reported in the same call, its veto or native
    /// answer (if any) following. A failed build leaves the compaction to Pi's own summary
    /// unless the flow vetoes it.
    fn compaction(
        &mut self,
        agent: Agent,
        trigger: Trigger,
        instructions: Option<String>,
        tail: &[TailEntry],
        resolve: &mut dyn Resolve,
    ) {
        // An automatic compaction of the main run keeps the person's unanswered input after
        // the boot, and with it what follows on the branch, the ended window's own hidden
        // messages left out of every request; the worker's own comes after a settled run
        // (nothing is pending).
        let from = match (trigger, agent) {
            (Trigger::Auto, Agent::Main) => kept_from(tail),
            _ => None,
        };
        let keep: Vec<Kept> = from
            .map(|at| Kept {
                at,
                text_only: false,
            })
            .into_iter()
            .collect();
        let leave_out = from.map(|at| left_out(tail, at)).unwrap_or_default();
        let first = self.flow.handle(Event::Compaction {
            agent,
            trigger,
            instructions,
        });
        for effect in first {
            let Effect::AnswerCompaction {
                ordinal,
                pool,
                sticky,
                generation,
                ..
            } = effect
            else {
                self.fx.push(effect);
                continue;
            };
            let built = resolve.boot(ordinal, Some((pool, sticky.as_deref())));
            let (event, answer) = match built {
                Ok((identity, text)) => (
                    Event::Boot {
                        generation,
                        status: BootStatus::Acquired,
                        uuid: Some(identity),
                        text: Some(text.clone()),
                        reason: None,
                    },
                    Some(text),
                ),
                Err(why) => {
                    self.fx.push(Effect::Report {
                        text: format!("notesoup: no boot for the fresh window ({why})"),
                    });
                    let event = Event::Boot {
                        generation,
                        status: BootStatus::Failed,
                        uuid: None,
                        text: None,
                        reason: Some(why),
                    };
                    (event, None)
                }
            };
            let after = self.flow.handle(event);
            let settled = after
                .iter()
                .any(|e| matches!(e, Effect::VetoCompaction { .. } | Effect::NativeCompaction));
            if let Some(text) = answer {
                if !settled {
                    self.fx.push(Effect::AnswerCompaction {
                        keep: keep.clone(),
                        leave_out: leave_out.clone(),
                        ordinal,
                        pool,
                        sticky,
                        generation,
                        text: Some(text),
                    });
                }
                self.fx.extend(after);
            } else {
                self.fx.extend(after);
                if !settled {
                    self.fx.push(Effect::NativeCompaction);
                }
            }
        }
    }

    /// `session_compact`: a summary holding a boot of Pi's is the evidence of what Pi kept
    /// (the flow compares it with the summary it answered with); any other summary is Pi's
    /// own (or another extension's): the window advances, and an awaited boot is missing.
    fn compacted(&mut self, agent: Agent, from_extension: bool, summary: Option<&str>) {
        if agent != Agent::Main {
            return;
        }
        let generation = self.flow.generation();
        let ours = summary
            .filter(|_| from_extension)
            .and_then(|s| Some((pi_window(s)?, s)));
        if let Some((window, text)) = ours {
            self.send(Event::CommitEvidence {
                generation,
                source: EvidenceFrom::Messages,
                evidence: Evidence::Boot,
                uuid: Some(window.to_string()),
                intact: false,
                text: Some(text.to_owned()),
            });
        } else {
            self.send(Event::CommitEvidence {
                generation,
                source: EvidenceFrom::Messages,
                evidence: Evidence::Missing,
                uuid: None,
                intact: false,
                text: None,
            });
            self.send(Event::NativeCompacted { agent });
        }
    }

    /// `/empty`, `/fresh-window` (`busy`: the extension's word; a main run the flow saw running
    /// makes it busy too).
    /// A clearing command; in print mode refused with what to do instead: Pi ends the
    /// process with the command, before the close-out it starts could run, so nothing would
    /// be saved or cleared (measured: a stale ctx, and a request with no messages).
    fn command(&mut self, command: Command, busy: bool, print: bool, budget: Option<Budget>) {
        if print {
            self.fx.push(Effect::Report {
                text: format!(
                    "{} needs a Pi session that stays open: with -p (or --mode json) Pi ends with the command, so nothing is saved or cleared. Run it in Pi itself (or --mode rpc), or ask the model to call notesoup_empty_brain.",
                    command.slash()
                ),
            });
            return;
        }
        let out = self.flow.handle(Event::Command {
            command,
            busy,
            measured: budget.is_some(),
        });
        self.closeouts(out, budget);
    }

    /// `out`, where a close-out with no fill measured has no warning to carry and fails in
    /// the same call.
    fn closeouts(&mut self, out: Vec<Effect>, budget: Option<Budget>) {
        for effect in out {
            match effect {
                Effect::Closeout { generation, .. } if budget.is_none() => {
                    self.send(Event::Closeout {
                        generation,
                        status: Miss::Failed,
                        reason: Some(NO_USAGE.to_owned()),
                    });
                }
                effect => self.fx.push(effect),
            }
        }
    }

    /// `/notesoup [cap [<tokens>|off]]`: a refused command is answered and changes nothing;
    /// else the cap changes when asked, and the status line for the cap kept follows.
    fn notesoup(&mut self, args: &str, resolve: &mut dyn Resolve) {
        match resolve.cap_command(args) {
            Err(refused) => self.fx.push(Effect::Report { text: refused }),
            Ok(ask) => {
                let had = self.flow.snapshot().cap.is_some();
                if let CapAsk::Set(cap) = ask {
                    self.send(Event::CapChanged { cap });
                }
                let snap = self.flow.snapshot();
                let removed = had && snap.cap.is_none();
                self.fx.push(Effect::Report {
                    text: resolve.cap_status(snap.cap, snap.ordinal, removed),
                });
            }
        }
    }
}
