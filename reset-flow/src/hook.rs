//! One engine hook call in, the flow's events out: the hooks module forwards a hook's raw
//! facts ([`Hook`]) and the helper turns them into the [`Event`]s of this crate, in order,
//! with the budget it resolved for the call ([`Budget`]). The translation is the only place
//! that knows which hook means which events; the flow itself decides everything else.
//!
//! Every hook maps to a *sequence of existing events*, so the exhaustive explorer (which
//! walks every sequence of those events) covers what a hook can do to the state.
//!
//! ```
//! use notesoup_reset_flow::{Budget, Effect, Hook, hook_saved};
//! use serde_json::json;
//!
//! let hook: Hook = serde_json::from_value(json!({
//!     "event": "tool.call", "facts": {"agent": "main", "denied": false}})).unwrap();
//! let budget = |_cap| Some(Budget { tokens: 150_000, hard: 160_000, warning: Some(142_000), auto_clear: true });
//! let (saved, reply) = hook_saved(None, "p1", &hook, budget);
//! // Past the warning point: the warning rides on this tool result, delivered at once.
//! assert!(matches!(reply.effects[..], [Effect::Warn { .. }]));
//! assert!(reply.hints.warned);
//! // The same window again (another process, `claude -p --resume`): no second warning.
//! let (_, reply) = hook_saved(Some(&saved), "p2", &hook, budget);
//! assert!(reply.effects.is_empty());
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::event::{Agent, Delivery, Event, Measure};
use crate::flow::ATTACH_DOORS;
use crate::{Flow, Reply};

/// The budget of one hook call, as the helper resolved it (`notesoup-thresholds`' policy
/// and the engine's usage), all in the policy's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Budget {
    /// What the window holds now.
    pub tokens: u64,
    /// Where notesoup clears it.
    pub hard: u64,
    /// Where notesoup warns; `None` when warnings are off (`DISABLE_COMPACT`).
    pub warning: Option<u64>,
    /// Whether notesoup clears by itself at `hard` (false when auto-compaction is off).
    pub auto_clear: bool,
}

impl Budget {
    fn measure(self) -> Measure {
        Measure {
            tokens: self.tokens,
            hard: self.hard,
            auto_clear: self.auto_clear,
        }
    }
}

/// One engine hook call and its raw facts. JSON: `{"event": "<hook>", "facts": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", content = "facts")]
#[non_exhaustive]
pub enum Hook {
    /// `session.start`: `disable_compact` is `DISABLE_COMPACT` as Claude reads it (the
    /// helper fills it from the variable the shell forwards).
    ///
    /// `{"event":"session.start","facts":{"disable_compact":false}}`
    #[serde(rename = "session.start")]
    SessionStart {
        /// Compaction is off in this process's environment.
        disable_compact: bool,
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
    /// `turn.step`, before `next(e)`.
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
    },
    /// `prompt.submit`, before `next(e)`: `origin` is `e.origin.kind`, `command` whether
    /// `e.command` is set.
    ///
    /// `{"event":"prompt.submit","facts":{"origin":"composer","command":false}}`
    #[serde(rename = "prompt.submit")]
    PromptSubmit {
        /// `e.origin.kind` (`plugin` for notesoup's own prompts).
        origin: String,
        /// A slash command (`e.command` set): not natural input, and no warning rides on it.
        #[serde(default)]
        command: bool,
    },
    /// The prompt that carried the budget warning (`warn` of a `prompt.submit` reply) was
    /// dropped by a hook further down: the warning is due again. `generation` is the warn's.
    ///
    /// `{"event":"prompt.dropped","facts":{"generation":1}}`
    #[serde(rename = "prompt.dropped")]
    PromptDropped {
        /// The `warn` effect's generation.
        generation: u64,
    },
    /// A main or subagent `session.append`, after `next(e)`: its `door`.
    ///
    /// `{"event":"session.append","facts":{"agent":"main","door":"queue"}}`
    #[serde(rename = "session.append")]
    SessionAppend {
        /// Main or subagent.
        agent: Agent,
        /// `e.door`.
        door: String,
    },
}

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
            } | Hook::PromptSubmit { command: false, .. }
        )
    }

    /// The events this hook call means for a flow of `generation`, in order.
    pub fn events(&self, generation: u64, budget: Option<Budget>) -> Vec<Event> {
        let delivered = Event::Warning {
            generation,
            status: Delivery::Delivered,
        };
        match self {
            Hook::ToolCall {
                agent: Agent::Main,
                denied: false,
            } => {
                let Some(b) = budget else {
                    return Vec::new();
                };
                // The result is already past the chain: an offered warning rides on it
                // and is delivered (a `warning` with nothing offered changes nothing).
                vec![
                    Event::Measured {
                        tokens: b.tokens,
                        hard: b.hard,
                        auto_clear: b.auto_clear,
                    },
                    Event::WarningPoint {
                        tokens: b.tokens,
                        point: b.warning,
                    },
                    delivered,
                ]
            }
            Hook::ToolCall { .. } => Vec::new(),
            Hook::SessionStart { disable_compact } => vec![Event::DisableCompact {
                set: *disable_compact,
            }],
            Hook::TurnStep {
                agent,
                turn_id,
                index,
            } => {
                let main = *agent == Agent::Main;
                let step = Event::TurnStep {
                    agent: *agent,
                    turn_id: turn_id.clone(),
                    index: *index,
                    context: budget.filter(|_| main && *index > 0).map(Budget::measure),
                };
                if main && *index == 0 {
                    // The opening request carries the prompt, and the warning a
                    // `prompt.submit` offered with it (the chain accepted that prompt).
                    vec![delivered, step]
                } else {
                    vec![step]
                }
            }
            Hook::PromptSubmit { origin, command } => {
                let mut events = vec![Event::PromptSubmitted {
                    natural: origin != "plugin" && !command,
                }];
                if let (Some(b), false) = (budget, *command) {
                    events.push(Event::WarningPoint {
                        tokens: b.tokens,
                        point: b.warning,
                    });
                }
                events
            }
            Hook::PromptDropped { generation } => vec![Event::Warning {
                generation: *generation,
                status: Delivery::Dropped,
            }],
            Hook::SessionAppend { agent, door } => vec![Event::Appended {
                agent: *agent,
                door: door.clone(),
            }],
        }
    }
}

/// What the shell may skip until its next reply: a hook call it need not make because the
/// flow could do nothing with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Watch {
    /// The doors of a main `session.append` that can change the flow now (a person's input
    /// waits to be attached to the running turn); the shell sends no other append.
    pub append_doors: Vec<String>,
}

impl Flow {
    /// What the shell must keep sending (see [`Watch`]).
    pub fn watch(&self) -> Watch {
        let append_doors = if self.waiting.is_some() {
            ATTACH_DOORS.iter().map(|&d| d.to_owned()).collect()
        } else {
            Vec::new()
        };
        Watch { append_doors }
    }
}

/// One hook call on a flow kept on disk (see [`crate::step_saved`]): a flow saved by
/// another process is sent `loaded` first; `budget` is asked for (with the runtime cap the
/// flow holds after that) only when the hook reads it. Returns what to save and the reply.
pub fn hook_saved(
    saved: Option<&Value>,
    process: &str,
    hook: &Hook,
    budget: impl FnOnce(Option<u64>) -> Option<Budget>,
) -> (Value, Reply) {
    let (mut flow, mut effects) = crate::load_saved(saved, process);
    let budget = if hook.needs_budget() {
        budget(flow.window.cap)
    } else {
        None
    };
    for event in hook.events(flow.generation(), budget) {
        effects.extend(flow.handle(event));
    }
    crate::saved_reply(process, flow, effects)
}
