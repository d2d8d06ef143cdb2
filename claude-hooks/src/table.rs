//! The table: which events each engine hook call is, in order, and what follows from their
//! effects within the same call (the boot an answered compaction needs, a close-out with no
//! warning to carry, the evidence the kept boots give). Every step is an existing
//! [`Event`] of the flow, so the flow's monitor checks each one.

use notesoup_reset_flow::{
    Agent, BootStatus, Budget, Command, CommandResult, ContinuationStatus, CopyVerdict, Delivery,
    Effect, Event, Evidence, EvidenceFrom, Flow, HEADING, Miss, Trigger, TurnEnd,
};
use notesoup_window::{WindowId, marker};

use crate::hook::{CommandRun, Hook, KeptBoot};
use crate::resolve::{CapAsk, Resolve};
use crate::tail::{TailMessage, kept_after_boot};

/// One hook call on `flow`: its events in order, and their effects (see [`Hook`] for what
/// each hook means).
pub fn apply(flow: &mut Flow, hook: &Hook, resolve: &mut dyn Resolve) -> Vec<Effect> {
    Call {
        flow,
        unplaced: None,
    }
    .hook(hook, resolve)
}

/// A hook call in progress on one flow.
struct Call<'f> {
    flow: &'f mut Flow,
    /// Why this call's budget placed no points (the settings leave no room), when it read
    /// the usage but could not ([`Resolve::unplaced`]): a close-out then says so.
    unplaced: Option<String>,
}

/// The hooks that are one event each.
fn single(hook: &Hook) -> Option<Event> {
    Some(match hook {
        Hook::SessionCompacted { agent } => Event::NativeCompacted { agent: *agent },
        Hook::Continuation {
            generation,
            status,
            reason,
        } => Event::Continuation {
            generation: *generation,
            status: *status,
            reason: reason.clone(),
        },
        Hook::Closeout {
            generation,
            status,
            reason,
        } => Event::Closeout {
            generation: *generation,
            status: *status,
            reason: reason.clone(),
        },
        _ => return None,
    })
}

/// How Claude Code 2.1.319 begins the text a compaction command resolves with when the
/// compaction failed (measured in `-p`: "Error during compaction: API Error: 400 …"; the
/// command resolves, it does not reject).
pub const COMPACTION_ERROR: &str = "Error during compaction";

/// The doors of a main `session.append` through which the engine attaches waiting input to
/// the running turn (measured on 2.1.319).
pub(crate) const JOINS_TURN: [&str; 2] = ["queue", "prompt"];

/// What an own boot added to a prompt starts with: the engine writes the hidden context
/// after its own words on the first line ("prompt.submit hook additional context: …",
/// measured in 2.1.319, in the request and the transcript's `hook_additional_context`
/// rendering), and a boot's marker counts only at the start of a line
/// (`marker::retained_window`).
const CONTEXT_LINE_BREAK: &str = "\n";

/// Why a close-out has no warning to carry.
const NO_USAGE: &str = "no context usage measured yet";

impl Call<'_> {
    /// One hook call: its events in order, and what follows from their effects within the
    /// same call (the boot an answered compaction needs, a close-out with no warning to
    /// carry, the evidence the kept boots give). Every step is an existing [`Event`].
    #[expect(
        clippy::too_many_lines,
        reason = "the table of engine hooks: one short arm per hook, read top to bottom"
    )]
    fn hook(&mut self, hook: &Hook, resolve: &mut dyn Resolve) -> Vec<Effect> {
        let budget = if hook.needs_budget() {
            resolve.budget(self.flow.snapshot().cap)
        } else {
            None
        };
        if budget.is_none() && hook.needs_budget() {
            self.unplaced = resolve.unplaced();
        }
        if let Some(interactive) = resolve.interactive() {
            self.flow.set_interactive(interactive);
        }
        let mut fx = Vec::new();
        // The switch as this call's environment says it, before anything could warn or ask
        // for a clear: a new session's record after `/clear` (no session start comes) and a
        // call before a process's session start hear it here.
        if let Some(set) = resolve.compaction_disabled() {
            fx.extend(self.traced(Event::DisableCompact { set }));
        }
        let generation = self.flow.generation();
        let delivered = Event::Warning {
            generation,
            status: Delivery::Delivered,
        };
        match hook {
            Hook::SessionStart {
                disable_compact,
                interactive,
            } => {
                self.flow.set_interactive(*interactive);
                fx.extend(self.traced(Event::DisableCompact {
                    set: *disable_compact,
                }));
            }
            Hook::PromptContext { kept } => {
                self.prompt_context(kept, resolve, &mut fx);
            }
            Hook::ToolCall {
                agent: Agent::Main,
                denied: false,
            } => {
                if let Some(b) = budget {
                    self.main_tool_result(b, &mut fx);
                }
            }
            Hook::TurnStep {
                agent,
                turn_id,
                index,
                kept,
            } => {
                let main = *agent == Agent::Main;
                if main {
                    self.messages_evidence(kept.as_deref(), &mut fx);
                }
                if main && *index == 0 {
                    // The opening request carries the prompt, and the warning and own boot
                    // a `prompt.submit` offered with it (the chain accepted that prompt).
                    fx.extend(self.traced(delivered));
                    fx.extend(self.traced(Event::OwnBoot {
                        generation,
                        status: Delivery::Delivered,
                    }));
                }
                fx.extend(self.traced(Event::TurnStep {
                    agent: *agent,
                    turn_id: turn_id.clone(),
                    index: *index,
                    context: budget.filter(|_| main && *index > 0).map(Budget::measure),
                }));
            }
            Hook::TurnComplete {
                agent,
                turn_id,
                reason,
                continuation,
                kept,
            } => self.turn_complete(
                *agent,
                turn_id,
                *reason,
                *continuation,
                kept.as_deref(),
                budget,
                &mut fx,
            ),
            Hook::PromptSubmit {
                origin,
                command,
                turn_id,
                kept,
            } => {
                if let (Some(kept), false) = (kept, *command) {
                    self.kept_window(kept, resolve, &mut fx);
                }
                let natural = origin != "plugin" && !command;
                fx.extend(self.traced(Event::PromptSubmitted { natural }));
                if natural && turn_id.is_some() {
                    // Typed while a main turn ran: 2.1.319 raises this as it takes the input
                    // into the running turn, for its next step, and raises the queue row's
                    // `session.append` and that step without ordering them. The input joins
                    // the turn now (the flow adopts it only into a turn that made its first
                    // request), so the step that carries it is never cut, whichever hook
                    // reaches the flow first. A later queue row then changes nothing.
                    fx.extend(self.traced(Event::Appended {
                        agent: Agent::Main,
                        joins_turn: true,
                    }));
                }
                if !command {
                    self.prompt_out_hook(resolve, &mut fx);
                }
                if let (Some(b), false) = (budget, *command) {
                    fx.extend(self.traced(Event::WarningPoint {
                        tokens: b.tokens,
                        point: b.warning,
                    }));
                }
            }
            Hook::SessionAppend {
                agent,
                door,
                kind,
                role,
                text,
                window,
            } => {
                fx.extend(self.traced(Event::Appended {
                    agent: *agent,
                    joins_turn: JOINS_TURN.contains(&door.as_str()),
                }));
                if *agent == Agent::Main && !self.flow.interactive() {
                    // The window the row's boot marker names, when the shell did not say.
                    let window = window.clone().or_else(|| {
                        let text = text.as_deref()?;
                        Some(marker::retained_window(text)?.to_string())
                    });
                    self.append_evidence(
                        door,
                        kind.as_deref(),
                        role.as_deref(),
                        text.as_deref(),
                        window.as_deref(),
                        &mut fx,
                    );
                }
            }
            Hook::SessionCompact {
                agent,
                trigger,
                instructions,
                tail,
            } => self.session_compact(
                *agent,
                *trigger,
                instructions.clone(),
                tail,
                resolve,
                &mut fx,
            ),
            Hook::CompactDone {
                generation,
                status,
                reason,
                text,
                kept,
            } => {
                // Measured (2.1.319): a compaction that failed resolves the command with the
                // engine's error as its text.
                let error = text
                    .as_deref()
                    .filter(|t| t.trim_start().starts_with(COMPACTION_ERROR));
                let (status, reason) = match error {
                    Some(t) => (CommandResult::Failed, Some(t.trim().to_owned())),
                    None => (*status, reason.clone()),
                };
                fx.extend(self.traced(Event::CompactionResult {
                    generation: *generation,
                    status,
                    reason,
                    // The module starts a retry while the command's rows hold the run.
                    retry_now: true,
                }));
                if status == CommandResult::Ok {
                    self.messages_evidence(kept.as_deref(), &mut fx);
                }
            }
            Hook::Command(CommandRun::Empty) => {
                self.command_hook(Command::Empty, budget, &mut fx);
            }
            Hook::Command(CommandRun::FreshWindow) => {
                self.command_hook(Command::FreshWindow, budget, &mut fx);
            }
            Hook::Command(CommandRun::Notesoup { args }) => {
                self.notesoup_command(args.as_deref().unwrap_or_default(), resolve, &mut fx);
            }
            Hook::PromptAttachment { attachment } => {
                self.prompt_attachment(attachment, resolve, &mut fx);
            }
            Hook::PromptDropped { generation } => {
                // The prompt carried the warning or the own boot (or both) the reply offered.
                for event in [
                    Event::Warning {
                        generation: *generation,
                        status: Delivery::Dropped,
                    },
                    Event::OwnBoot {
                        generation: *generation,
                        status: Delivery::Dropped,
                    },
                ] {
                    fx.extend(self.traced(event));
                }
            }
            Hook::SessionCompacted { .. } | Hook::Continuation { .. } | Hook::Closeout { .. } => {
                fx.extend(single(hook).map(|e| self.traced(e)).unwrap_or_default());
            }
            Hook::ToolCall { .. } => {}
        }
        fx
    }

    /// One event of a hook call (the hook explorer's monitor sees each one in tests).
    fn traced(&mut self, event: Event) -> Vec<Effect> {
        #[cfg(test)]
        let (pre, seen) = (self.flow.clone(), event.clone());
        let fx = self.flow.handle(event);
        #[cfg(test)]
        crate::tests::explore::record(pre, seen, self.flow.clone(), fx.clone());
        fx
    }

    /// A main tool result, already past the chain: an offered warning rides on it and is
    /// delivered (a `warning` with nothing offered changes nothing).
    fn main_tool_result(&mut self, b: Budget, fx: &mut Vec<Effect>) {
        fx.extend(self.traced(Event::Measured {
            tokens: b.tokens,
            hard: b.hard,
            auto_clear: b.auto_clear,
        }));
        fx.extend(self.traced(Event::WarningPoint {
            tokens: b.tokens,
            point: b.warning,
        }));
        fx.extend(self.traced(Event::Warning {
            generation: self.flow.generation(),
            status: Delivery::Delivered,
        }));
    }

    /// `turn.complete`: the evidence owed, the continuation this turn ran (started when it
    /// answered, failed otherwise), then the completion with its measure.
    #[allow(
        clippy::too_many_arguments,
        reason = "the hook's facts, one per argument"
    )]
    fn turn_complete(
        &mut self,
        agent: Agent,
        turn_id: &str,
        reason: TurnEnd,
        continuation: Option<u64>,
        kept: Option<&[KeptBoot]>,
        budget: Option<Budget>,
        fx: &mut Vec<Effect>,
    ) {
        if agent == Agent::Main {
            self.messages_evidence(kept, fx);
            if let Some(g) = continuation {
                let (status, why) = if reason == TurnEnd::Answer {
                    (ContinuationStatus::Started, None)
                } else {
                    (
                        ContinuationStatus::Failed,
                        Some(format!("its turn ended: {}", reason.as_str())),
                    )
                };
                fx.extend(self.traced(Event::Continuation {
                    generation: g,
                    status,
                    reason: why,
                }));
            }
        }
        let out = self.traced(Event::TurnComplete {
            agent,
            turn_id: turn_id.to_owned(),
            reason,
            context: budget.filter(|_| agent == Agent::Main).map(Budget::measure),
        });
        // A busy close-out no request of the turn carried becomes a close-out turn here.
        self.closeouts(out, budget, fx);
    }

    /// `/empty`, `/fresh-window`. Busy or idle is the flow's to say (it knows the running
    /// main turn), so the shell says idle: 2.1.319 runs these commands (`immediate`) while
    /// a terminal turn runs, and only then (claude-hooks/EVENTS.md, "A clear command typed
    /// while the agent works").
    /// A window with no points placed (`unplaced`: the settings leave no room) is not
    /// an unanswered one: its close-out is tried, and fails saying why.
    fn command_hook(&mut self, command: Command, budget: Option<Budget>, fx: &mut Vec<Effect>) {
        let out = self.traced(Event::Command {
            command,
            busy: false,
            measured: budget.is_some() || self.unplaced.is_some(),
        });
        self.closeouts(out, budget, fx);
    }

    /// `out`, where a close-out with no fill measured (or no points placed: `unplaced`) has
    /// no warning to carry and fails in the same call, saying which.
    fn closeouts(&mut self, out: Vec<Effect>, budget: Option<Budget>, fx: &mut Vec<Effect>) {
        for effect in out {
            match effect {
                Effect::Closeout { generation, .. } if budget.is_none() => {
                    let reason = self.unplaced.as_deref().unwrap_or(NO_USAGE).to_owned();
                    fx.extend(self.traced(Event::Closeout {
                        generation,
                        status: Miss::Failed,
                        reason: Some(reason),
                    }));
                }
                effect => fx.push(effect),
            }
        }
    }

    /// `/notesoup [cap [<tokens>|off]]`: a refused command is answered and changes nothing;
    /// else the cap changes when asked, and the status line for the cap kept now follows.
    fn notesoup_command(&mut self, args: &str, resolve: &mut dyn Resolve, fx: &mut Vec<Effect>) {
        match resolve.cap_command(args) {
            Err(refused) => fx.push(Effect::Report { text: refused }),
            Ok(ask) => {
                let had = self.flow.snapshot().cap.is_some();
                if let CapAsk::Set(cap) = ask {
                    fx.extend(self.traced(Event::CapChanged { cap }));
                }
                let snap = self.flow.snapshot();
                let removed = had && snap.cap.is_none();
                fx.push(Effect::Report {
                    text: resolve.cap_status(snap.cap, snap.ordinal, removed),
                });
            }
        }
    }

    /// `prompt.context`: a kept boot names the window (only a newer one counts) and nothing
    /// is attached (the newest of the highest window's boots another session's: a fork's
    /// copy, and the session owes itself its own); else the window the flow knows, or the one
    /// the transcript names, or 0, gets its boot attached.
    fn prompt_context(
        &mut self,
        kept: &[KeptBoot],
        resolve: &mut dyn Resolve,
        fx: &mut Vec<Effect>,
    ) {
        if self.kept_window(kept, resolve, fx) {
            return;
        }
        if self.flow.snapshot().ordinal.is_none()
            && let Some(h) = resolve.transcript_window()
        {
            fx.extend(self.traced(Event::WindowSeen { ordinal: h }));
        }
        let ordinal = self.flow.snapshot().ordinal.unwrap_or(0);
        match resolve.boot(ordinal, None) {
            Ok((_, text)) => {
                fx.extend(self.traced(Event::WindowSeen { ordinal }));
                fx.push(Effect::AttachBoot { ordinal, text });
            }
            Err(why) => fx.push(Effect::Log {
                text: format!("no boot attached: {why}"),
            }),
        }
    }

    /// The window the newest kept boot names (the newest boot naming the highest window:
    /// the rule `window_facts` reads a transcript by): another session's is a fork's copy
    /// (`copied_boot`), the session's own a window seen. False when none is kept.
    fn kept_window(
        &mut self,
        kept: &[KeptBoot],
        resolve: &mut dyn Resolve,
        fx: &mut Vec<Effect>,
    ) -> bool {
        let windows = kept
            .iter()
            .filter_map(|k| k.window.parse::<WindowId>().ok());
        let Some(newest) = marker::newest_highest(windows) else {
            return false;
        };
        let copied = newest.session() != resolve.session();
        let ordinal = newest.ordinal();
        let event = if copied {
            Event::CopiedBoot { ordinal }
        } else {
            Event::WindowSeen { ordinal }
        };
        fx.extend(self.traced(event));
        true
    }

    /// `prompt.attachment`: the flow's verdict on the boot copy (`boot_copy`); a copy to
    /// rebuild gets this session's boot of the same window built here, its text in the
    /// effect (a build that fails keeps the copy as it was, and says why in the log).
    fn prompt_attachment(
        &mut self,
        attachment: &str,
        resolve: &mut dyn Resolve,
        fx: &mut Vec<Effect>,
    ) {
        for effect in self.traced(Event::BootCopy {
            session: resolve.session().to_owned(),
            text: attachment.to_owned(),
        }) {
            match effect {
                Effect::BootCopy {
                    verdict: CopyVerdict::Rebuild,
                    ordinal,
                    before,
                    after,
                    alone,
                    ..
                } => match resolve.boot(ordinal, None) {
                    Ok((_, boot)) => {
                        fx.push(Effect::BootCopy {
                            verdict: CopyVerdict::Rebuild,
                            ordinal,
                            text: Some(format!("{before}{}{}{after}", HEADING, boot.trim_end())),
                            before,
                            after,
                            alone,
                        });
                        // Sent in place of the copy: no chain can drop it.
                        fx.extend(self.traced(Event::OwnBoot {
                            generation: self.flow.generation(),
                            status: Delivery::Delivered,
                        }));
                    }
                    Err(why) => {
                        fx.extend(self.traced(Event::OwnBoot {
                            generation: self.flow.generation(),
                            status: Delivery::Dropped,
                        }));
                        fx.push(Effect::Log {
                            text: format!("a copied boot kept as it was (no boot rebuilt: {why})"),
                        });
                        fx.push(Effect::BootCopy {
                            verdict: CopyVerdict::Keep,
                            ordinal,
                            text: None,
                            before,
                            after,
                            alone,
                        });
                    }
                },
                effect => fx.push(effect),
            }
        }
    }

    /// `prompt.submit` of a prompt that reaches the model: the boot the session owes itself
    /// (`attach_own_boot`) is built here, its text in the effect; a build that fails leaves
    /// it owed (`own_boot` dropped) and says why in the log.
    fn prompt_out_hook(&mut self, resolve: &mut dyn Resolve, fx: &mut Vec<Effect>) {
        for effect in self.traced(Event::PromptOut) {
            let Effect::AttachOwnBoot {
                ordinal,
                generation,
                ..
            } = effect
            else {
                fx.push(effect);
                continue;
            };
            match resolve.boot(ordinal, None) {
                Ok((_, boot)) => fx.push(Effect::AttachOwnBoot {
                    ordinal,
                    generation,
                    text: Some(format!("{CONTEXT_LINE_BREAK}{}", boot.trim_end())),
                }),
                Err(why) => {
                    fx.push(Effect::Log {
                        text: format!("the fork's own boot not attached yet: {why}"),
                    });
                    fx.extend(self.traced(Event::OwnBoot {
                        generation,
                        status: Delivery::Dropped,
                    }));
                }
            }
        }
    }

    /// `session.compact`: the flow's answer, in the order EVENTS.md gives: `compaction`,
    /// then for `answer_compaction` the boot is built and `boot` reported in the same call,
    /// its veto or native answer (if any) following.
    fn session_compact(
        &mut self,
        agent: Agent,
        trigger: Trigger,
        instructions: Option<String>,
        tail: &[TailMessage],
        resolve: &mut dyn Resolve,
        fx: &mut Vec<Effect>,
    ) {
        let first = self.traced(Event::Compaction {
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
                fx.push(effect);
                continue;
            };
            match resolve.boot(ordinal, Some((pool, sticky.as_deref()))) {
                Ok((identity, text)) => {
                    let after = self.traced(Event::Boot {
                        generation,
                        status: BootStatus::Acquired,
                        uuid: Some(identity),
                        text: Some(text.clone()),
                        reason: None,
                    });
                    let settled = after.iter().any(|e| {
                        matches!(e, Effect::VetoCompaction { .. } | Effect::NativeCompaction)
                    });
                    if !settled {
                        // An automatic compaction of the main conversation keeps the person's
                        // input no request answered yet (a command's compaction comes after
                        // a whole turn: nothing is pending).
                        let keep = if trigger == Trigger::Auto && agent == Agent::Main {
                            kept_after_boot(tail)
                        } else {
                            Vec::new()
                        };
                        fx.push(Effect::AnswerCompaction {
                            ordinal,
                            pool,
                            sticky,
                            generation,
                            text: Some(text),
                            keep,
                            // Claude keeps a selection: nothing it keeps is the window's own.
                            leave_out: Vec::new(),
                        });
                    }
                    fx.extend(after);
                }
                Err(why) => {
                    fx.push(Effect::Report {
                        text: format!("notesoup: no boot for the fresh window ({why})"),
                    });
                    let after = self.traced(Event::Boot {
                        generation,
                        status: BootStatus::Failed,
                        uuid: None,
                        text: None,
                        reason: Some(why),
                    });
                    let settled = after.iter().any(|e| {
                        matches!(e, Effect::VetoCompaction { .. } | Effect::NativeCompaction)
                    });
                    fx.extend(after);
                    if !settled {
                        // A failed boot build falls back to Claude's own summary.
                        fx.push(Effect::NativeCompaction);
                    }
                }
            }
        }
    }

    /// Headless commit evidence from main appends: the compact boundary, then the first
    /// user row after it (the boot as returned, by its identity and its text, or not).
    fn append_evidence(
        &mut self,
        door: &str,
        kind: Option<&str>,
        role: Option<&str>,
        text: Option<&str>,
        window: Option<&str>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(boundary) = self.flow.installed().map(|i| i.boundary) else {
            return;
        };
        let generation = self.flow.generation();
        let event = if door == "compaction" && kind == Some("system") {
            Event::CommitEvidence {
                generation,
                source: EvidenceFrom::Append,
                evidence: Evidence::Boundary,
                uuid: None,
                intact: false,
                text: None,
            }
        } else if boundary && role == Some("user") {
            // Measured (2.1.319): a hook's compaction message comes through door `prompt`
            // after the worker's /compact and `note` after an auto one.
            fx.push(Effect::Log {
                text: format!("the compaction's user row came through door {door}"),
            });
            Event::CommitEvidence {
                generation,
                source: EvidenceFrom::Append,
                evidence: Evidence::Boot,
                uuid: window.map(str::to_owned),
                intact: false,
                text: Some(text.unwrap_or_default().to_owned()),
            }
        } else {
            return;
        };
        fx.extend(self.traced(event));
    }

    /// Interactive commit evidence: the installed boot among the boots the conversation
    /// holds (by its identity; the flow compares the text), or missing.
    fn messages_evidence(&mut self, kept: Option<&[KeptBoot]>, fx: &mut Vec<Effect>) {
        let (Some(kept), Some(installed)) = (kept, self.flow.installed()) else {
            return;
        };
        let found = kept.iter().find(|k| k.window == installed.identity);
        let event = Event::CommitEvidence {
            generation: self.flow.generation(),
            source: EvidenceFrom::Messages,
            evidence: if found.is_some() {
                Evidence::Boot
            } else {
                Evidence::Missing
            },
            uuid: found.map(|k| k.window.clone()),
            intact: false,
            text: found.map(|k| k.text.clone()),
        };
        fx.extend(self.traced(event));
    }
}
