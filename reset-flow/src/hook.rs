//! One engine hook call in, the flow's events out: the hooks module forwards a hook's raw
//! facts ([`Hook`]) and the helper turns them into the [`Event`]s of this crate, in order,
//! with the budget it resolved for the call ([`Budget`]). The translation is the only place
//! that knows which hook means which events; the flow itself decides everything else.
//!
//! Every hook maps to a *sequence of existing events*, so the exhaustive explorer (which
//! walks every sequence of those events) covers what a hook can do to the state.
//!
//! What a hook needs from the outside world (the budget, a boot's text) the helper gives
//! through [`Resolve`], asked only when the hook reads it.
//!
//! ```
//! use notesoup_reset_flow::{Budget, CapAsk, Effect, Hook, Pool, Resolve, hook_saved};
//! use serde_json::json;
//!
//! struct World;
//! impl Resolve for World {
//!     fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
//!         Some(Budget { tokens: 150_000, hard: 160_000, warning: Some(142_000), auto_clear: true })
//!     }
//!     fn boot(&mut self, ordinal: u32, _reset: Option<(Pool, Option<&str>)>) -> Result<(String, String), String> {
//!         Ok((format!("claude:s:{ordinal}"), "boot".to_owned()))
//!     }
//!     fn session(&self) -> &str { "s" }
//!     fn transcript_window(&mut self) -> Option<u32> { None }
//!     fn cap_command(&mut self, _args: &str) -> Result<CapAsk, String> { Ok(CapAsk::Show) }
//!     fn cap_status(&mut self, _cap: Option<u64>, _ordinal: Option<u32>) -> String { "cap: none".into() }
//! }
//!
//! let hook: Hook = serde_json::from_value(json!({
//!     "event": "tool.call", "facts": {"agent": "main", "denied": false}})).unwrap();
//! let (saved, reply) = hook_saved(None, "p1", &hook, &mut World);
//! // Past the warning point: the warning rides on this tool result, delivered at once.
//! assert!(matches!(reply.effects[..], [Effect::Warn { .. }]));
//! assert!(reply.flow.snapshot().warned);
//! // The same window again (another process, `claude -p --resume`): no second warning.
//! let (_, reply) = hook_saved(Some(&saved), "p2", &hook, &mut World);
//! assert!(reply.effects.is_empty());
//! ```

use serde::{Deserialize, Serialize};

use crate::budget::Budget;
use crate::effect::{Effect, Pool};
use crate::event::{
    Agent, BootStatus, CommandResult, ContinuationStatus, Delivery, Event, Evidence, EvidenceFrom,
    Miss, Trigger, TurnEnd,
};
use crate::flow::{ATTACH_DOORS, Commit, Stage};
use crate::{CopyVerdict, Flow, Reply, Saved};
use notesoup_window::WindowId;

/// What the helper resolves for a hook, asked only when the hook reads it.
pub trait Resolve {
    /// The budget of this call with the runtime cap the flow holds; `None` when it cannot be
    /// resolved (no usage yet, no points).
    fn budget(&mut self, cap: Option<u64>) -> Option<Budget>;
    /// The boot opening window `ordinal` (after a reset: with the handoff of `pool` and the
    /// request's sticky note): its identity (the window id) and its whole text, or why not.
    fn boot(
        &mut self,
        ordinal: u32,
        reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String>;
    /// The id of the session the hook runs in (a boot copy is judged against it).
    fn session(&self) -> &str;
    /// The window the session's transcript says its head is in, when known (asked for a
    /// `prompt.context` with no kept boot while the flow knows no window).
    fn transcript_window(&mut self) -> Option<u32>;
    /// What `/notesoup`'s `args` ask, read against this call's points, or the line refusing
    /// them (a refused command changes nothing).
    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String>;
    /// The line answering `/notesoup`: the cap the flow keeps (`None`: none), the points
    /// under it and window `ordinal` (`None`: not started yet).
    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>) -> String;
}

/// What `/notesoup [cap [<tokens>|off]]` asks, as [`Resolve::cap_command`] read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CapAsk {
    /// `/notesoup`, `/notesoup cap`: the cap is shown; nothing changes.
    Show,
    /// The cap becomes this (`None`: off).
    Set(Option<u64>),
}

/// The slash command of a `command.run` hook (its `command` fact), with its facts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum CommandRun {
    /// `/empty`.
    Empty,
    /// `/fresh-window`.
    FreshWindow,
    /// `/notesoup [cap [<tokens>|off]]`.
    Notesoup {
        /// `e.args`, as typed after the command.
        #[serde(default)]
        args: Option<String>,
    },
}

/// A boot Claude kept in the conversation (`$.session.messages({as:"api"})`), as the
/// helper read its marker line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KeptBoot {
    /// The window id its marker line names.
    pub window: String,
    /// That window's ordinal.
    pub ordinal: u32,
    /// The block's whole text.
    pub text: String,
}

impl KeptBoot {
    /// The boot of `host` a kept text is, read by its marker line (history-core's
    /// `retained_window`); `None` for a text that holds no whole boot, or another host's
    /// (a pasted Pi boot in a Claude conversation is no window of it, nor a fork's copy).
    ///
    /// ```
    /// use notesoup_reset_flow::KeptBoot;
    /// let kept = KeptBoot::read("<notesoup-boot window=\"claude:s1:3\">\nnotes\n</notesoup-boot>", "claude");
    /// assert_eq!(kept.map(|k| (k.window, k.ordinal)), Some(("claude:s1:3".to_owned(), 3)));
    /// assert!(KeptBoot::read("<notesoup-boot window=\"pi:s1:3\">\nn\n</notesoup-boot>", "claude").is_none());
    /// assert!(KeptBoot::read("hi", "claude").is_none());
    /// ```
    pub fn read(text: &str, host: &str) -> Option<Self> {
        let window = notesoup_window::marker::retained_window(text).filter(|w| w.host() == host)?;
        Some(Self {
            ordinal: window.ordinal(),
            window: window.to_string(),
            text: text.to_owned(),
        })
    }
}

/// One engine hook call and its raw facts. JSON: `{"event": "<hook>", "facts": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", content = "facts")]
#[non_exhaustive]
pub enum Hook {
    /// `session.start`: `disable_compact` is `DISABLE_COMPACT` as Claude reads it (the
    /// helper fills it from the variable the shell forwards); `interactive` is
    /// `e.isInteractive` (commit evidence then comes from the conversation, not appends).
    ///
    /// `{"event":"session.start","facts":{"disable_compact":false,"interactive":false}}`
    #[serde(rename = "session.start")]
    SessionStart {
        /// Compaction is off in this process's environment.
        disable_compact: bool,
        /// A person at a terminal.
        #[serde(default)]
        interactive: bool,
    },
    /// `prompt.context`: the boots Claude kept (newest last), judged against the session
    /// [`Resolve`] names (another session's newest boot is a fork's copy). With none kept
    /// and no window known, the window the transcript's head is in is asked of [`Resolve`].
    ///
    /// `{"event":"prompt.context","facts":{"kept":[]}}`
    #[serde(rename = "prompt.context")]
    PromptContext {
        /// The kept boots, oldest first.
        #[serde(default)]
        kept: Vec<KeptBoot>,
    },
    /// `tool.call` of any tool, after `next(e)`: `denied` when the chain denied it.
    ///
    /// `{"event":"tool.call","facts":{"agent":"main","denied":false}}`
    #[serde(rename = "tool.call")]
    ToolCall {
        /// Main or subagent.
        agent: Agent,
        /// The chain answered `{deny}`.
        #[serde(default)]
        denied: bool,
    },
    /// `turn.step`, before `next(e)`; `kept` when the reply's `watch` asked for them.
    ///
    /// `{"event":"turn.step","facts":{"agent":"main","turn_id":"t1","index":2}}`
    #[serde(rename = "turn.step")]
    TurnStep {
        /// Main or subagent.
        agent: Agent,
        /// `e.turnId`.
        turn_id: String,
        /// `e.index`.
        index: u32,
        /// The kept boots (interactive commit evidence), when asked for.
        #[serde(default)]
        kept: Option<Vec<KeptBoot>>,
    },
    /// `turn.complete`, after `next(e)`; `continuation` is the generation of a continuation
    /// prompt whose turn this is (its `$.prompt.submit` resolved); `kept` as for `turn.step`.
    ///
    /// `{"event":"turn.complete","facts":{"agent":"main","turn_id":"t1","reason":"answer"}}`
    #[serde(rename = "turn.complete")]
    TurnComplete {
        /// Main or subagent.
        agent: Agent,
        /// `e.turnId`.
        turn_id: String,
        /// `e.reason`.
        reason: TurnEnd,
        /// The continuation this turn ran, if it did.
        #[serde(default)]
        continuation: Option<u64>,
        /// The kept boots (interactive commit evidence), when asked for.
        #[serde(default)]
        kept: Option<Vec<KeptBoot>>,
    },
    /// `prompt.submit`, before `next(e)`: `origin` is `e.origin.kind`, `command` whether
    /// `e.command` is set; `kept` (not a command) when the reply's `watch` asked for them:
    /// the flow knows no window yet, and the engine may run a session's first
    /// `prompt.submit` before its `prompt.context` (a fork's, in the terminal, under load).
    ///
    /// `{"event":"prompt.submit","facts":{"origin":"composer","command":false}}`
    #[serde(rename = "prompt.submit")]
    PromptSubmit {
        /// `e.origin.kind` (`plugin` for notesoup's own prompts).
        origin: String,
        /// A slash command (`e.command` set): not natural input, and no warning rides on it.
        #[serde(default)]
        command: bool,
        /// The kept boots, oldest first, when asked for: they name the window as at
        /// `prompt.context` (a fork's copy owes the session its own boot, on this prompt).
        #[serde(default)]
        kept: Option<Vec<KeptBoot>>,
    },
    /// The prompt that carried the budget warning or a fork's own boot (`warn` or
    /// `attach_own_boot` of a `prompt.submit` reply) was dropped by a hook further down:
    /// each is due again. `generation` is the effect's.
    ///
    /// `{"event":"prompt.dropped","facts":{"generation":1}}`
    #[serde(rename = "prompt.dropped")]
    PromptDropped {
        /// The `warn` or `attach_own_boot` effect's generation.
        generation: u64,
    },
    /// A main or subagent `session.append`, after `next(e)`: its `door`, the message's
    /// `type` and `role`, and (for commit evidence) its text and the window its marker names.
    ///
    /// `{"event":"session.append","facts":{"agent":"main","door":"queue"}}`
    #[serde(rename = "session.append")]
    SessionAppend {
        /// Main or subagent.
        agent: Agent,
        /// `e.door`.
        door: String,
        /// `e.message.type` (`system` for a compact boundary).
        #[serde(default)]
        kind: Option<String>,
        /// `e.message.role`.
        #[serde(default)]
        role: Option<String>,
        /// The appended row's text (when the reply's `watch` asks for every door).
        #[serde(default)]
        text: Option<String>,
        /// The window the row's boot marker names, if it holds one (read from `text` when
        /// absent).
        #[serde(default)]
        window: Option<String>,
    },
    /// `session.compact`, before `next(e)`.
    ///
    /// `{"event":"session.compact","facts":{"agent":"main","trigger":"auto"}}`
    #[serde(rename = "session.compact")]
    SessionCompact {
        /// Main or subagent.
        agent: Agent,
        /// `e.trigger`.
        trigger: Trigger,
        /// `e.instructions`.
        #[serde(default)]
        instructions: Option<String>,
    },
    /// Claude's own compaction (`next(e)` of a `native_compaction`) came back with messages.
    ///
    /// `{"event":"session.compacted","facts":{"agent":"main"}}`
    #[serde(rename = "session.compacted")]
    SessionCompacted {
        /// Main or subagent.
        agent: Agent,
    },
    /// The reset's own `$.command.run({command:"compact"})` settled (`compact` effect);
    /// `kept` when the reply's `watch` asked for them.
    ///
    /// `{"event":"compact.done","facts":{"generation":1,"status":"ok"}}`
    #[serde(rename = "compact.done")]
    CompactDone {
        /// The `compact` effect's generation.
        generation: u64,
        /// Resolved or rejected.
        status: CommandResult,
        /// Why it failed.
        #[serde(default)]
        reason: Option<String>,
        /// The kept boots (interactive commit evidence), when asked for.
        #[serde(default)]
        kept: Option<Vec<KeptBoot>>,
    },
    /// The continuation prompt (`continue`) was dropped or rejected.
    ///
    /// `{"event":"continuation","facts":{"generation":1,"status":"dropped"}}`
    #[serde(rename = "continuation")]
    Continuation {
        /// The `continue` effect's generation.
        generation: u64,
        /// Dropped or failed.
        status: ContinuationStatus,
        /// Why.
        #[serde(default)]
        reason: Option<String>,
    },
    /// The close-out prompt (`closeout` `submit`) was dropped or rejected.
    ///
    /// `{"event":"closeout","facts":{"generation":1,"status":"failed","reason":"…"}}`
    #[serde(rename = "closeout")]
    Closeout {
        /// The `closeout` effect's generation.
        generation: u64,
        /// Dropped or failed.
        status: Miss,
        /// Why.
        #[serde(default)]
        reason: Option<String>,
    },
    /// `command.run` of `/empty`, `/fresh-window` (a close-out), or `/notesoup` with its
    /// `args` ([`Resolve::cap_command`] reads them: a refused command is answered and changes
    /// nothing; a cap to set is `cap_changed`; then the line [`Resolve::cap_status`] gives
    /// for the cap kept is reported).
    ///
    /// `{"event":"command.run","facts":{"command":"fresh_window"}}`,
    /// `{"event":"command.run","facts":{"command":"notesoup","args":"cap 100k"}}`
    #[serde(rename = "command.run")]
    Command(CommandRun),
    /// `prompt.attachment` of type `context_sections` whose text holds a boot line, before
    /// `next(e)`: the engine sends the shell's context block again (a resume, a fork, the
    /// retry after a prompt-too-long compaction). It is judged against the running session
    /// ([`Resolve::session`]).
    ///
    /// `{"event":"prompt.attachment","facts":{"attachment":"# notesoup\n<notesoup-boot …"}}`
    #[serde(rename = "prompt.attachment")]
    PromptAttachment {
        /// The attachment's text.
        attachment: String,
    },
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

/// What an own boot added to a prompt starts with: the engine writes the hidden context
/// after its own words on the first line ("prompt.submit hook additional context: …",
/// measured in 2.1.319, in the request and the transcript's `hook_additional_context`
/// rendering), and a boot's marker counts only at the start of a line
/// (`notesoup_window::marker::retained_window`).
const CONTEXT_LINE_BREAK: &str = "\n";

/// Why a close-out has no warning to carry.
const NO_USAGE: &str = "no context usage measured yet";

impl Hook {
    /// Whether this hook reads the budget (the helper resolves it only then).
    pub fn needs_budget(&self) -> bool {
        matches!(
            self,
            Hook::ToolCall {
                agent: Agent::Main,
                denied: false
            } | Hook::TurnStep {
                agent: Agent::Main,
                ..
            } | Hook::TurnComplete {
                agent: Agent::Main,
                ..
            } | Hook::PromptSubmit { command: false, .. }
                | Hook::Command(CommandRun::Empty | CommandRun::FreshWindow)
        )
    }
}

impl Flow {
    /// One hook call: its events in order, and what follows from their effects within the
    /// same call (the boot an answered compaction needs, a close-out with no warning to
    /// carry, the evidence the kept boots give). Every step is an existing [`Event`].
    #[expect(
        clippy::too_many_lines,
        reason = "the table of engine hooks: one short arm per hook, read top to bottom"
    )]
    pub fn hook(&mut self, hook: &Hook, resolve: &mut dyn Resolve) -> Vec<Effect> {
        let budget = if hook.needs_budget() {
            resolve.budget(self.window.cap)
        } else {
            None
        };
        let mut fx = Vec::new();
        let generation = self.generation;
        let delivered = Event::Warning {
            generation,
            status: Delivery::Delivered,
        };
        match hook {
            Hook::SessionStart {
                disable_compact,
                interactive,
            } => {
                self.interactive = *interactive;
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
                kept,
            } => {
                if let (Some(kept), false) = (kept, *command) {
                    self.kept_window(kept, resolve, &mut fx);
                }
                fx.extend(self.traced(Event::PromptSubmitted {
                    natural: origin != "plugin" && !command,
                }));
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
                    door: door.clone(),
                }));
                if *agent == Agent::Main && !self.interactive {
                    // The window the row's boot marker names, when the shell did not say.
                    let window = window.clone().or_else(|| {
                        let text = text.as_deref()?;
                        Some(notesoup_window::marker::retained_window(text)?.to_string())
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
            } => self.session_compact(*agent, *trigger, instructions.clone(), resolve, &mut fx),
            Hook::CompactDone {
                generation,
                status,
                reason,
                kept,
            } => {
                fx.extend(self.traced(Event::CompactionResult {
                    generation: *generation,
                    status: *status,
                    reason: reason.clone(),
                }));
                if *status == CommandResult::Ok {
                    self.messages_evidence(kept.as_deref(), &mut fx);
                }
            }
            Hook::Command(CommandRun::Empty) => {
                self.command_hook(crate::Command::Empty, budget, &mut fx);
            }
            Hook::Command(CommandRun::FreshWindow) => {
                self.command_hook(crate::Command::FreshWindow, budget, &mut fx);
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
            generation: self.generation,
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
        fx.extend(self.traced(Event::TurnComplete {
            agent,
            turn_id: turn_id.to_owned(),
            reason,
            context: budget.filter(|_| agent == Agent::Main).map(Budget::measure),
        }));
    }

    /// `/empty`, `/fresh-window`: a close-out with no fill measured has no warning to carry
    /// and fails in the same call.
    fn command_hook(
        &mut self,
        command: crate::Command,
        budget: Option<Budget>,
        fx: &mut Vec<Effect>,
    ) {
        let out = self.traced(Event::Command {
            command,
            busy: false,
        });
        for effect in out {
            match effect {
                Effect::Closeout { generation, .. } if budget.is_none() => {
                    fx.extend(self.traced(Event::Closeout {
                        generation,
                        status: Miss::Failed,
                        reason: Some(NO_USAGE.to_owned()),
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
                if let CapAsk::Set(cap) = ask {
                    fx.extend(self.traced(Event::CapChanged { cap }));
                }
                fx.push(Effect::Report {
                    text: resolve.cap_status(self.window.cap, self.window.ordinal),
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
        if self.window.ordinal.is_none()
            && let Some(h) = resolve.transcript_window()
        {
            fx.extend(self.traced(Event::WindowSeen { ordinal: h }));
        }
        let ordinal = self.window.ordinal.unwrap_or(0);
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
        let Some(newest) = notesoup_window::marker::newest_highest(windows) else {
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
                            text: Some(format!(
                                "{before}{}{}{after}",
                                crate::flow::HEADING,
                                boot.trim_end()
                            )),
                            before,
                            after,
                            alone,
                        });
                        // Sent in place of the copy: no chain can drop it.
                        fx.extend(self.traced(Event::OwnBoot {
                            generation: self.generation,
                            status: Delivery::Delivered,
                        }));
                    }
                    Err(why) => {
                        fx.extend(self.traced(Event::OwnBoot {
                            generation: self.generation,
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
                        fx.push(Effect::AnswerCompaction {
                            ordinal,
                            pool,
                            sticky,
                            generation,
                            text: Some(text),
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

    /// The boot the answered compaction installed, while its evidence is awaited.
    fn installed(&self) -> Option<(&str, bool)> {
        match &self.commit {
            Some(Commit {
                stage: Stage::Installed { uuid, boundary, .. },
                ..
            }) => Some((uuid.as_str(), *boundary)),
            _ => None,
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
        let Some((_, boundary)) = self.installed() else {
            return;
        };
        let generation = self.generation;
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
        let (Some(kept), Some((identity, _))) = (kept, self.installed()) else {
            return;
        };
        let found = kept.iter().find(|k| k.window == identity);
        let event = Event::CommitEvidence {
            generation: self.generation,
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

impl Flow {
    /// One event of a hook call (the explorer's monitor sees each one in tests).
    fn traced(&mut self, event: Event) -> Vec<Effect> {
        #[cfg(test)]
        let (pre, seen) = (self.clone(), event.clone());
        let fx = self.handle(event);
        #[cfg(test)]
        crate::tests::explore::record(pre, seen, self.clone(), fx.clone());
        fx
    }
}

/// What the shell may skip until its next reply: a hook call it need not make because the
/// flow could do nothing with it, and facts it must add.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Watch {
    /// The doors of a main `session.append` that can change the flow now (`*`: every door,
    /// with the row's text: headless commit evidence is awaited); the shell sends no other.
    pub append_doors: Vec<String>,
    /// Send the boots the conversation keeps (`kept`) with the next main `turn.step`,
    /// `turn.complete` and `compact.done` (interactive commit evidence is awaited).
    pub kept: bool,
    /// Send the kept boots with the next `prompt.submit` that is not a command: the flow
    /// knows no window yet (a session's first prompt may come before its `prompt.context`).
    pub prompt_kept: bool,
    /// A `compact.done` that resolved can still change the flow (the worker's compaction
    /// was not answered yet); when false the shell reports only a failed one.
    pub compact_done: bool,
}

impl Flow {
    /// What the shell must keep sending (see [`Watch`]).
    pub fn watch(&self) -> Watch {
        let awaiting = self.installed().is_some();
        let append_doors = if awaiting && !self.interactive {
            vec!["*".to_owned()]
        } else if self.attachable() {
            ATTACH_DOORS.iter().map(|&d| d.to_owned()).collect()
        } else {
            Vec::new()
        };
        let unanswered = matches!(
            &self.commit,
            Some(Commit {
                marker: Some(_),
                stage: Stage::Requested | Stage::Answered,
                ..
            })
        );
        Watch {
            append_doors,
            kept: awaiting && self.interactive,
            prompt_kept: self.window.ordinal.is_none(),
            compact_done: unanswered || (awaiting && self.interactive),
        }
    }
}

/// One hook call on a flow kept on disk (see [`crate::step_saved`]): a flow saved by
/// another process is sent `loaded` first. Returns what to save and the reply.
pub fn hook_saved(
    saved: Option<&Saved>,
    process: &str,
    hook: &Hook,
    resolve: &mut dyn Resolve,
) -> (Saved, Reply) {
    let (mut flow, mut effects) = crate::load_saved(saved, process);
    effects.extend(flow.hook(hook, resolve));
    crate::saved_reply(process, flow, effects)
}
