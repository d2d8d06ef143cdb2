//! The engine hook calls of Claude Code 2.1.319 the hooks module forwards, with the raw
//! facts each carries ([`Hook`]), in the JSON the `hook` op of `notesoup-helper` reads.

use notesoup_reset_flow::{Agent, CommandResult, ContinuationStatus, Miss, Trigger, TurnEnd};
use notesoup_window::marker;

use crate::tail::TailMessage;
use serde::{Deserialize, Serialize};

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
    /// use notesoup_claude_hooks::KeptBoot;
    /// let kept = KeptBoot::read("<notesoup-boot window=\"claude:s1:3\">\nnotes\n</notesoup-boot>", "claude");
    /// assert_eq!(kept.map(|k| (k.window, k.ordinal)), Some(("claude:s1:3".to_owned(), 3)));
    /// assert!(KeptBoot::read("<notesoup-boot window=\"pi:s1:3\">\nn\n</notesoup-boot>", "claude").is_none());
    /// assert!(KeptBoot::read("hi", "claude").is_none());
    /// ```
    pub fn read(text: &str, host: &str) -> Option<Self> {
        let window = marker::retained_window(text).filter(|w| w.host() == host)?;
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
    /// helper fills it from the variable the shell forwards; every later call with a budget
    /// says it again through [`Resolve::compaction_disabled`](crate::Resolve::compaction_disabled)); `interactive` is
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
    /// [`Resolve`](crate::Resolve) names (another session's newest boot is a fork's copy). With none kept
    /// and no window known, the window the transcript's head is in is asked of [`Resolve`](crate::Resolve).
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
    /// `e.command` is set, `turn_id` is `e.turnId` when set; `kept` (not a command) when
    /// the reply's `watch` asked for them: the flow knows no window yet, and the engine may
    /// run a session's first `prompt.submit` before its `prompt.context` (a fork's, in the
    /// terminal, under load).
    ///
    /// `{"event":"prompt.submit","facts":{"origin":"composer","command":false,"turn_id":"t1"}}`
    #[serde(rename = "prompt.submit")]
    PromptSubmit {
        /// `e.origin.kind` (`plugin` for notesoup's own prompts).
        origin: String,
        /// A slash command (`e.command` set): not natural input, and no warning rides on it.
        #[serde(default)]
        command: bool,
        /// `e.turnId`: the main turn that was running when the prompt came (absent for a
        /// prompt submitted idle). Measured on 2.1.319: the engine raises `prompt.submit`
        /// for input typed mid-turn when it takes it off its queue into that turn, before
        /// the turn's next step, and does not wait for the queue row's `session.append`
        /// before that step; so this, not the row, is what says the input joins the turn.
        #[serde(default)]
        turn_id: Option<String>,
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
        /// The last messages of `e.messages` (at most [`TAIL_MESSAGES`](crate::TAIL_MESSAGES)), oldest first:
        /// what an automatic compaction answered with the boot may keep after it.
        #[serde(default)]
        tail: Vec<TailMessage>,
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
        /// The text the command resolved with (`{text}`): 2.1.319 resolves a compaction
        /// that failed with the engine's error ([`COMPACTION_ERROR`](crate::COMPACTION_ERROR)),
        /// it does not reject.
        #[serde(default)]
        text: Option<String>,
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
    /// `args` ([`Resolve::cap_command`](crate::Resolve::cap_command) reads them: a refused command is answered and changes
    /// nothing; a cap to set is `cap_changed`; then the line [`Resolve::cap_status`](crate::Resolve::cap_status) gives
    /// for the cap kept is reported).
    ///
    /// `{"event":"command.run","facts":{"command":"fresh_window"}}`,
    /// `{"event":"command.run","facts":{"command":"notesoup","args":"cap 100k"}}`
    #[serde(rename = "command.run")]
    Command(CommandRun),
    /// `prompt.attachment` of type `context_sections` whose text holds a boot line, before
    /// `next(e)`: the engine sends the shell's context block again (a resume, a fork, the
    /// retry after a prompt-too-long compaction). It is judged against the running session
    /// ([`Resolve::session`](crate::Resolve::session)).
    ///
    /// `{"event":"prompt.attachment","facts":{"attachment":"# notesoup\n<notesoup-boot …"}}`
    #[serde(rename = "prompt.attachment")]
    PromptAttachment {
        /// The attachment's text.
        attachment: String,
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
            } | Hook::TurnComplete {
                agent: Agent::Main,
                ..
            } | Hook::PromptSubmit { command: false, .. }
                | Hook::Command(CommandRun::Empty | CommandRun::FreshWindow)
        )
    }
}
