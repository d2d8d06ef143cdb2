//! The extension events of Pi coding agent 1.6.0 the notesoup extension forwards, with the
//! raw facts each carries ([`PiHook`]), in the JSON the helper reads.

use notesoup_reset_flow::{Agent, CommandResult, ContinuationStatus, Miss, Trigger, TurnEnd};
use serde::{Deserialize, Serialize};

use crate::tail::TailEntry;

/// Where a prompt came from: `InputEvent.source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSource {
    /// Typed at the terminal (also every `pi -p` prompt: measured).
    Interactive,
    /// An RPC `prompt` (`pi --mode rpc`).
    Rpc,
    /// An extension's `pi.sendUserMessage()`: notesoup's own continuation or close-out.
    Extension,
}

/// How a prompt typed while a run streams is delivered: `InputEvent.streamingBehavior`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Streaming {
    /// `steer`: it joins the running run, carried by its next model request.
    Steer,
    /// `followUp`: it runs as its own run after the current one.
    FollowUp,
}

/// Why Pi compacts: `session_before_compact.reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactReason {
    /// `/compact`, the RPC `compact` command, or an extension's `ctx.compact()` (notesoup's
    /// reset worker, with its marker as `customInstructions`).
    Manual,
    /// The context passed `contextWindow − reserveTokens`.
    Threshold,
    /// The provider answered a context overflow.
    Overflow,
}

impl CompactReason {
    /// The flow's trigger: a manual compaction is a command, Pi's own are automatic.
    pub fn trigger(self) -> Trigger {
        match self {
            CompactReason::Manual => Trigger::Manual,
            CompactReason::Threshold | CompactReason::Overflow => Trigger::Auto,
        }
    }
}

/// How the last assistant message of a run stopped (`AssistantMessage.stopReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// The model answered.
    Stop,
    /// The output limit was reached.
    Length,
    /// The run ended after a tool batch (a tool result with `terminate: true`).
    ToolUse,
    /// The run was aborted.
    Aborted,
    /// The request failed.
    Error,
    /// Anything a later Pi may add: a failure.
    #[serde(other)]
    Other,
}

/// A notesoup command of the extension (`pi.registerCommand`), with its facts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum PiCommand {
    /// `/empty`; `busy`: `!ctx.isIdle()`; `print`: `!ctx.hasUI`.
    Empty {
        /// Main, or `subagent` in a run with no session file (the command does not apply).
        #[serde(default = "main")]
        agent: Agent,
        /// A run is streaming.
        #[serde(default)]
        busy: bool,
        /// Pi runs in print mode (`-p`, `--mode json`): the process ends with the command.
        #[serde(default)]
        print: bool,
    },
    /// `/fresh-window`; `busy`: `!ctx.isIdle()`; `print`: `!ctx.hasUI`.
    FreshWindow {
        /// Main, or `subagent` in a run with no session file (the command does not apply).
        #[serde(default = "main")]
        agent: Agent,
        /// A run is streaming.
        #[serde(default)]
        busy: bool,
        /// Pi runs in print mode (`-p`, `--mode json`): the process ends with the command.
        #[serde(default)]
        print: bool,
    },
    /// `/notesoup [cap [<tokens>|off]]`.
    Notesoup {
        /// Main, or `subagent` in a run with no session file (the command does not apply).
        #[serde(default = "main")]
        agent: Agent,
        /// The words typed after the command.
        #[serde(default)]
        args: Option<String>,
    },
}

/// One Pi extension event and its raw facts. JSON: `{"event": "<event>", "facts": {...}}`.
///
/// `agent` is `subagent` in a Pi run with no session file (`pi --no-session`, how Pi's
/// subagent example starts its children): such a run never changes a main flow.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", content = "facts")]
#[non_exhaustive]
pub enum PiHook {
    /// `session_start` (`reason`: `startup`, `reload`, `new`, `resume`, `fork`). A new,
    /// resumed or forked session is another session, with its own flow; a reload is the same
    /// session in the same process.
    ///
    /// `{"event":"session_start","facts":{"reason":"startup"}}`
    #[serde(rename = "session_start")]
    SessionStart {
        /// `event.reason`.
        reason: String,
    },
    /// `input` of a prompt that reaches the model (extension commands fire none).
    ///
    /// `{"event":"input","facts":{"source":"interactive"}}`,
    /// `{"event":"input","facts":{"source":"rpc","streaming":"steer"}}`
    #[serde(rename = "input")]
    Input {
        /// `event.source`.
        source: InputSource,
        /// `event.streamingBehavior`: absent when Pi is idle.
        #[serde(default)]
        streaming: Option<Streaming>,
    },
    /// `before_agent_start` of a run a prompt starts: `kept` is the summary of the newest
    /// compaction entry on the branch (`ctx.sessionManager.getBranch()`), when it holds a
    /// boot marker line; the boot a window's conversation keeps.
    ///
    /// `{"event":"before_agent_start","facts":{"kept":null}}`
    #[serde(rename = "before_agent_start")]
    BeforeAgentStart {
        /// Main or subagent (a run with no session file gets a boot without the reset).
        #[serde(default = "main")]
        agent: Agent,
        /// The newest compaction summary on the branch holding a boot.
        #[serde(default)]
        kept: Option<String>,
    },
    /// `agent_start`: a run begins. `run` numbers the runs of the process.
    ///
    /// `{"event":"agent_start","facts":{"run":1}}`
    #[serde(rename = "agent_start")]
    AgentStart {
        /// Main or subagent.
        #[serde(default = "main")]
        agent: Agent,
        /// The run's number in this process.
        run: u64,
    },
    /// `turn_start`: one model request of the run is about to be made (`turnIndex` 0 carries
    /// the prompt).
    ///
    /// `{"event":"turn_start","facts":{"run":1,"turn_index":1}}`
    #[serde(rename = "turn_start")]
    TurnStart {
        /// Main or subagent.
        #[serde(default = "main")]
        agent: Agent,
        /// The run's number.
        run: u64,
        /// `event.turnIndex`.
        turn_index: u32,
    },
    /// `turn_end` of a turn whose model request called tools (`toolResults` not empty):
    /// the whole tool batch ran, and the run's next request is about to be prepared. It is
    /// the flow's next step (`turn_index + 1`); an `end_turn` there ends the flow's turn at
    /// once and the reset's compaction is answered in the same call, for the extension to
    /// write as this boundary's entry (no abort, no request in between).
    ///
    /// `{"event":"turn_end","facts":{"run":1,"turn_index":0}}`
    #[serde(rename = "turn_end")]
    TurnEnd {
        /// Main or subagent.
        #[serde(default = "main")]
        agent: Agent,
        /// The run's number.
        run: u64,
        /// `event.turnIndex` of the turn that ended.
        turn_index: u32,
    },
    /// `tool_result` of any tool, notesoup's own included; `is_error` as Pi reports it.
    ///
    /// `{"event":"tool_result","facts":{"is_error":false}}`
    #[serde(rename = "tool_result")]
    ToolResult {
        /// Main or subagent.
        #[serde(default = "main")]
        agent: Agent,
        /// The tool failed or was blocked.
        #[serde(default)]
        is_error: bool,
    },
    /// `agent_end`: the run ended. `stop_reason` is its last assistant message's;
    /// `cut` when the extension aborted it for an `end_turn` effect; `continuation` the
    /// generation of the `continue` effect whose prompt started this run.
    ///
    /// `{"event":"agent_end","facts":{"run":1,"stop_reason":"stop"}}`
    #[serde(rename = "agent_end")]
    AgentEnd {
        /// Main or subagent.
        #[serde(default = "main")]
        agent: Agent,
        /// The run's number.
        run: u64,
        /// The last assistant message's `stopReason`.
        stop_reason: StopReason,
        /// The extension ended the run itself (`end_turn`).
        #[serde(default)]
        cut: bool,
        /// The continuation this run carried out, if it did.
        #[serde(default)]
        continuation: Option<u64>,
    },
    /// `session_before_compact`. `tail`: the branch's message and custom message entries
    /// after its last assistant message that answered, oldest first (the person's input no
    /// response answered yet, such as a steered message the overflowing request carried,
    /// tool results, and the extension's own hidden messages).
    ///
    /// `{"event":"session_before_compact","facts":{"reason":"manual","custom_instructions":"notesoup-reset g0 r1 a1"}}`
    #[serde(rename = "session_before_compact")]
    SessionBeforeCompact {
        /// Main or subagent.
        #[serde(default = "main")]
        agent: Agent,
        /// `event.reason`.
        reason: CompactReason,
        /// `event.customInstructions`.
        #[serde(default)]
        custom_instructions: Option<String>,
        /// The branch's message and custom message entries after its last assistant message.
        #[serde(default)]
        tail: Vec<TailEntry>,
    },
    /// `session_compact`: a compaction entry was written. `summary` is the summary of the
    /// session's leaf entry (`ctx.sessionManager.getLeafEntry()`), not of
    /// `event.compactionEntry`: Pi 1.6.0 finds that one by its summary text, so two equal
    /// summaries name the older entry.
    ///
    /// `{"event":"session_compact","facts":{"from_extension":true,"summary":"<notesoup-boot …"}}`
    #[serde(rename = "session_compact")]
    SessionCompact {
        /// Main or subagent.
        #[serde(default = "main")]
        agent: Agent,
        /// `event.fromExtension`: an extension's summary, not Pi's own.
        from_extension: bool,
        /// The leaf compaction entry's summary.
        #[serde(default)]
        summary: Option<String>,
    },
    /// The reset worker's `ctx.compact()` (a `compact` effect) settled: `onComplete` (`ok`)
    /// or `onError` (`failed`).
    ///
    /// `{"event":"compact_done","facts":{"generation":0,"status":"ok"}}`
    #[serde(rename = "compact_done")]
    CompactDone {
        /// The `compact` effect's generation.
        generation: u64,
        /// Resolved or failed.
        status: CommandResult,
        /// Why it failed.
        #[serde(default)]
        reason: Option<String>,
    },
    /// The continuation prompt (`continue`) could not be sent.
    ///
    /// `{"event":"continuation","facts":{"generation":0,"status":"failed","reason":"…"}}`
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
    /// The close-out (`closeout`) could not be sent.
    ///
    /// `{"event":"closeout","facts":{"generation":0,"status":"failed","reason":"…"}}`
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
    /// A notesoup command ran.
    ///
    /// `{"event":"command","facts":{"command":"empty","busy":false}}`,
    /// `{"event":"command","facts":{"command":"notesoup","args":"cap 100k"}}`
    #[serde(rename = "command")]
    Command(PiCommand),
}

fn main() -> Agent {
    Agent::Main
}

/// How a run that ended this way ends a main turn: the model answered, or the extension
/// cut it itself (`cut`), else aborted or failed.
///
/// ```
/// use notesoup_pi_hooks::{StopReason, turn_end};
/// use notesoup_reset_flow::TurnEnd;
/// assert_eq!(turn_end(StopReason::ToolUse, false), TurnEnd::Answer);
/// assert_eq!(turn_end(StopReason::Aborted, true), TurnEnd::Answer);
/// assert_eq!(turn_end(StopReason::Aborted, false), TurnEnd::Aborted);
/// ```
pub fn turn_end(stop: StopReason, cut: bool) -> TurnEnd {
    match stop {
        _ if cut => TurnEnd::Answer,
        StopReason::Stop | StopReason::Length | StopReason::ToolUse => TurnEnd::Answer,
        StopReason::Aborted => TurnEnd::Aborted,
        StopReason::Error => TurnEnd::Error,
        StopReason::Other => TurnEnd::Other,
    }
}

impl PiCommand {
    /// The agent that ran the command.
    pub fn agent(&self) -> Agent {
        match self {
            PiCommand::Empty { agent, .. }
            | PiCommand::FreshWindow { agent, .. }
            | PiCommand::Notesoup { agent, .. } => *agent,
        }
    }
}

impl PiHook {
    /// Whether this event reads the budget (the helper resolves it only then).
    pub fn needs_budget(&self) -> bool {
        matches!(
            self,
            PiHook::ToolResult {
                agent: Agent::Main,
                is_error: false
            } | PiHook::TurnStart {
                agent: Agent::Main,
                ..
            } | PiHook::TurnEnd {
                agent: Agent::Main,
                ..
            } | PiHook::AgentEnd {
                agent: Agent::Main,
                ..
            } | PiHook::BeforeAgentStart {
                agent: Agent::Main,
                ..
            } | PiHook::Command(
                PiCommand::Empty {
                    agent: Agent::Main,
                    ..
                } | PiCommand::FreshWindow {
                    agent: Agent::Main,
                    ..
                }
            )
        )
    }
}
