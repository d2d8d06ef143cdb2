//! What a host adapter tells the flow: one [`Event`] per fact.
//!
//! Every event is a JSON object tagged by `"type"` (`snake_case`). Events that report the
//! outcome of asynchronous work the flow asked for carry the `generation` the effect was
//! issued under; an event from an older generation is ignored (session changes invalidate
//! in-flight work). Each variant below shows its JSON; a host adapter says which of
//! its hooks each comes from (for Claude Code: `claude-hooks/EVENTS.md`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Whose event this is: the main conversation or a subagent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agent {
    /// The main loop.
    Main,
    /// A subagent. Subagents never change the main flow.
    Subagent,
}

/// The measured context against the hard clear point (the host's usage, and the points
/// `notesoup-thresholds` resolves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// The context's size after the last model response.
    pub tokens: u64,
    /// The hard clear point, in the same unit.
    pub hard: u64,
    /// False when automatic compaction is off (no automatic resets).
    pub auto_clear: bool,
}

impl Measure {
    /// True when this measure asks for an automatic (budget) reset.
    pub fn over(self) -> bool {
        self.auto_clear && self.tokens >= self.hard
    }
}

/// What became of an offered budget warning or own boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// The downstream chain accepted it (the prompt or tool result carries it).
    Delivered,
    /// A hook dropped it, or it could not be loaded: it stays due.
    Dropped,
}

/// How a main turn ended. Anything unknown counts as a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered: the only successful ending.
    Answer,
    /// The turn was aborted.
    Aborted,
    /// The turn failed (e.g. "Prompt is too long").
    Error,
    /// The model refused.
    Refusal,
    /// Any other reason a future engine might add; treated like `error`.
    #[serde(other)]
    Other,
}

impl TurnEnd {
    /// The reason as the engine names it.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnEnd::Answer => "answer",
            TurnEnd::Aborted => "aborted",
            TurnEnd::Error => "error",
            TurnEnd::Refusal => "refusal",
            TurnEnd::Other => "other",
        }
    }
}

/// Where natural (person-typed) input stands relative to the running turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputPhase {
    /// Accepted into the running main turn (it rides the turn's next model request).
    Accepted,
    /// Delivered: a model request carried it.
    Delivered,
    /// Queued as its own natural turn that runs after the current one (or submitted idle).
    Queued,
}

/// The slash command the person ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// `/empty`.
    Empty,
    /// `/fresh-window`.
    FreshWindow,
}

impl Command {
    /// The command as the person typed it.
    pub fn slash(self) -> &'static str {
        match self {
            Command::Empty => "/empty",
            Command::FreshWindow => "/fresh-window",
        }
    }

    /// What the command answers when no reset is pending and the window's fill is not
    /// measured yet (a session with no answer in it): its close-out could carry no warning,
    /// so it is not started (nothing is promised, then cancelled).
    ///
    /// ```
    /// use notesoup_reset_flow::Command;
    /// assert!(Command::Empty.unmeasured().starts_with("/empty has nothing to clear yet"));
    /// ```
    pub fn unmeasured(self) -> String {
        format!(
            "{} has nothing to clear yet: this window has no answer in it (a new or just-cleared window has none until the model answers), so there is nothing to save or clear.",
            self.slash()
        )
    }
}

/// [`Event::Command`]'s `measured` when the event does not say.
fn measured_by_default() -> bool {
    true
}

/// What raised a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The engine at its threshold, or a prompt that is too long.
    Auto,
    /// A compaction command (a person's, or the reset worker's own with its marker).
    Manual,
    /// A plugin asked for one (interactive only).
    Plugin,
    /// A background pre-summary.
    Precompute,
}

/// Failed or dropped, for work the shell started on the flow's behalf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Miss {
    /// The call itself failed (rejected, threw, the warning could not load).
    Failed,
    /// Another hook dropped it (`{drop}` / `{deny}`).
    Dropped,
}

/// The outcome of the reset worker's compaction command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandResult {
    /// The command resolved (a receipt, not evidence).
    Ok,
    /// The command was rejected, or the compaction reported failure.
    Failed,
}

/// The boot build's outcome for a compaction the flow answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BootStatus {
    /// Built; `uuid` is the identity of the boot the shell answers with.
    Acquired,
    /// Could not be built (helper refused, notes unreadable, ...).
    Failed,
}

/// Where commit evidence was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceFrom {
    /// Headless: the rows the host appended to the main conversation.
    Append,
    /// Interactive: the conversation's messages after the compaction command resolved.
    Messages,
}

/// What the evidence shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// The compaction's boundary row was kept.
    Boundary,
    /// The boot message: `uuid` as kept, `intact` = its text is the boot the hook returned
    /// (headless: the first main user row after the boundary).
    Boot,
    /// No boot where one must be (`messages()` without it; headless command resolved with no
    /// boot row seen).
    Missing,
}

/// The continuation prompt's fate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContinuationStatus {
    /// It was submitted and its turn started.
    Started,
    /// Another hook dropped it.
    Dropped,
    /// The submission was rejected.
    Failed,
}

/// One fact from a host adapter. JSON: an object tagged `"type"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// The model called `empty_brain`. `args` is the raw tool input; the flow validates it:
    /// `terminate` absent or boolean, `last_word` absent or string.
    ///
    /// `{"type":"empty_brain","agent":"main","args":{"last_word":"finish the parser","terminate":false}}`
    EmptyBrain {
        /// Main or subagent.
        agent: Agent,
        /// The raw tool input.
        #[serde(default)]
        args: Value,
    },
    /// A step of a turn, before its model request. `context`, when given, is measured
    /// first (the hard point at a step).
    ///
    /// `{"type":"turn_step","agent":"main","turn_id":"t1","index":2,"context":{"tokens":150000,"hard":151000,"auto_clear":true}}`
    TurnStep {
        /// Main or subagent.
        agent: Agent,
        /// The turn's id.
        turn_id: String,
        /// The step's index (0 = the request that delivers the turn's prompt).
        index: u32,
        /// The measured context, if the shell has it for this step.
        #[serde(default)]
        context: Option<Measure>,
    },
    /// A turn completed. `context` is checked against the hard point after a
    /// successful main turn when no request is pending.
    ///
    /// `{"type":"turn_complete","agent":"main","turn_id":"t1","reason":"answer"}`
    TurnComplete {
        /// Main or subagent.
        agent: Agent,
        /// The turn's id.
        turn_id: String,
        /// How it ended.
        reason: TurnEnd,
        /// The measured context after the turn, if known.
        #[serde(default)]
        context: Option<Measure>,
    },
    /// A measurement outside a step (a tool result's usage check) while a
    /// main turn runs. Idle measurements are checked by `turn_complete` instead.
    ///
    /// `{"type":"measured","tokens":152000,"hard":151000,"auto_clear":true}`
    Measured {
        /// The context's size.
        tokens: u64,
        /// The hard clear point.
        hard: u64,
        /// Automatic clears are on.
        auto_clear: bool,
    },
    /// Natural (person-typed) input: accepted into the running turn, delivered to a model
    /// request, or queued as its own turn.
    ///
    /// `{"type":"natural_input","phase":"accepted"}`
    NaturalInput {
        /// Where the input stands.
        phase: InputPhase,
    },
    /// A person's clear command ran (`/empty`, `/fresh-window`); `busy` = a main turn is
    /// running; `measured` = the shell knows the window's fill (absent: true).
    ///
    /// `{"type":"command","command":"empty","busy":false}`
    Command {
        /// Which command.
        command: Command,
        /// True when a main turn is running (the command is immediate).
        busy: bool,
        /// False when the window's fill is not measured yet (a session with no answer in
        /// it): with no reset pending the command has nothing to clear
        /// ([`Command::unmeasured`]), and a close-out would carry no warning.
        #[serde(default = "measured_by_default")]
        measured: bool,
    },
    /// The close-out the flow asked for could not start: the warning did not load, the
    /// submission failed, or another hook dropped it.
    ///
    /// `{"type":"closeout","generation":1,"status":"dropped","reason":"dropped by a hook"}`
    Closeout {
        /// The generation of the `closeout` effect.
        generation: u64,
        /// Failed or dropped.
        status: Miss,
        /// Why, for the report.
        #[serde(default)]
        reason: Option<String>,
    },
    /// A compaction is about to run; the flow answers it, vetoes it or lets it run natively.
    ///
    /// `{"type":"compaction","agent":"main","trigger":"manual","instructions":"notesoup-reset g1 r1 a1"}`
    Compaction {
        /// Main or subagent.
        agent: Agent,
        /// What raised it.
        trigger: Trigger,
        /// Its instructions (the marker, for the reset worker's own compaction).
        #[serde(default)]
        instructions: Option<String>,
    },
    /// How the worker's compaction command (`compact` effect) settled.
    ///
    /// `{"type":"compaction_result","generation":1,"status":"failed","reason":"rejected"}`
    CompactionResult {
        /// The generation of the `compact` effect.
        generation: u64,
        /// Resolved or failed.
        status: CommandResult,
        /// Why, for the report.
        #[serde(default)]
        reason: Option<String>,
        /// The host can run a retry at once, before the run that asked for it ends (for
        /// Claude Code the shell starts it while the command's rows hold the run): a first
        /// attempt that did not take, between turns, is then answered with `compact` again.
        #[serde(default)]
        retry_now: bool,
    },
    /// The boot build for an `answer_compaction` effect.
    ///
    /// `{"type":"boot","generation":1,"status":"acquired","uuid":"0b7c…"}`
    Boot {
        /// The current generation.
        generation: u64,
        /// Acquired or failed.
        status: BootStatus,
        /// The UUID of the boot message the hook returns (when acquired).
        #[serde(default)]
        uuid: Option<String>,
        /// The boot's whole text as returned (when acquired): kept so the commit evidence
        /// can be matched by text as well as by `uuid`.
        #[serde(default)]
        text: Option<String>,
        /// Why it failed, for the report.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Proof (or disproof) that the host kept the boot.
    ///
    /// `{"type":"commit_evidence","generation":1,"source":"append","evidence":"boot","uuid":"0b7c…","intact":true}`
    CommitEvidence {
        /// The current generation.
        generation: u64,
        /// Appended rows, or the conversation's messages.
        source: EvidenceFrom,
        /// What was seen.
        evidence: Evidence,
        /// The boot row's UUID (for `boot`).
        #[serde(default)]
        uuid: Option<String>,
        /// The boot row's text is exactly the boot returned (for `boot`). Ignored when
        /// `text` is given and the flow holds the boot's text: then the flow compares.
        #[serde(default)]
        intact: bool,
        /// The boot row's text as seen (for `boot`), for the flow to compare with the text
        /// it was given in `boot` (line ends at the end ignored).
        #[serde(default)]
        text: Option<String>,
    },
    /// The continuation prompt started, was dropped, or failed.
    ///
    /// `{"type":"continuation","generation":1,"status":"started"}`
    Continuation {
        /// The generation of the `continue` effect.
        generation: u64,
        /// Its fate.
        status: ContinuationStatus,
        /// Why, for the report.
        #[serde(default)]
        reason: Option<String>,
    },
    /// The runtime cap changed (`/notesoup cap …`); a pending reset keeps its policy.
    ///
    /// `{"type":"cap_changed","cap":100000}`
    CapChanged {
        /// The new cap in tokens, `null` when removed.
        #[serde(default)]
        cap: Option<u64>,
    },
    /// The session changed (`/clear`, `/resume`, `/branch`, identity change, `session.end`):
    /// a different `generation` discards the flow and invalidates in-flight work.
    ///
    /// `{"type":"session","generation":2}`
    Session {
        /// The shell's new generation number (the shell increments it).
        generation: u64,
    },
    /// A process took over this session's state (the blob was loaded from disk by a new
    /// process: a resumed session, a reload). Work the old process had in flight is
    /// gone: the running turn, the cutoff, a commit not yet confirmed (its request is
    /// cancelled), an offered warning (due again); the runtime cap is cleared (it lives
    /// as long as the process that set it). The window, its delivered warning, a pending
    /// request that had not started its reset and `DISABLE_COMPACT` are kept (a reload
    /// runs no session start; the host sends `disable_compact` again with every call that
    /// could warn or clear, so a changed environment is heard there).
    ///
    /// `{"type":"loaded"}`
    Loaded,
    /// A boot naming this session's window `ordinal` is in the conversation (kept by
    /// the host, found in the transcript, or just attached). The window ordinal only grows:
    /// an older boot (a re-sent attachment after a compaction) changes nothing.
    ///
    /// `{"type":"window_seen","ordinal":2}`
    WindowSeen {
        /// The ordinal the boot's marker line names.
        ordinal: u32,
    },
    /// The host's own compaction (after a `native_compaction` effect) replaced the main
    /// conversation: the window advances.
    ///
    /// `{"type":"native_compacted","agent":"main"}`
    NativeCompacted {
        /// Main or subagent (a subagent's compaction changes nothing).
        agent: Agent,
    },
    /// A main tool result or a person's prompt is about to go out with the context at
    /// `tokens`; `point` is the budget warning point in the same unit (absent: no warning
    /// point, or warnings off). The flow offers the warning once per window, and not
    /// while a close-out (which carries the same text) is out.
    ///
    /// `{"type":"warning_point","tokens":150000,"point":142000}`
    WarningPoint {
        /// The measured context.
        tokens: u64,
        /// The warning point, when warnings are on.
        #[serde(default)]
        point: Option<u64>,
    },
    /// What became of the offered warning: the downstream chain accepted it (`delivered`),
    /// or a hook dropped it / it could not be loaded (`dropped`: it stays due).
    ///
    /// `{"type":"warning","generation":1,"status":"delivered"}`
    Warning {
        /// The generation of the `warn` effect.
        generation: u64,
        /// Delivered or dropped.
        status: Delivery,
    },
    /// The newest boot in the conversation is another session's boot of window `ordinal`
    /// (a fork copied it with the conversation: the boots the conversation keeps, or the
    /// transcript a fork's flow is rebuilt from). The session is in that window (an older
    /// window's copy changes nothing) and owes itself a boot of its own, attached to its
    /// next main prompt (`prompt_out`); a boot the parent got from a compaction is a
    /// message of the conversation and stays as it is.
    ///
    /// `{"type":"copied_boot","ordinal":1}`
    CopiedBoot {
        /// The ordinal the copied boot's marker line names.
        ordinal: u32,
    },
    /// A main prompt that reaches the model (not a command) is about to enter: a boot the
    /// session owes itself rides on it (`attach_own_boot`).
    ///
    /// `{"type":"prompt_out"}`
    PromptOut,
    /// What became of the offered own boot (`attach_own_boot`, or a copy rebuilt in
    /// place): the chain accepted the prompt carrying it (`delivered`: never again in this
    /// window), or a hook dropped it / it could not be built (`dropped`: owed again).
    ///
    /// `{"type":"own_boot","generation":1,"status":"delivered"}`
    OwnBoot {
        /// The generation of the `attach_own_boot` effect.
        generation: u64,
        /// Delivered or dropped.
        status: Delivery,
    },
    /// A main turn started (`turn.start`).
    ///
    /// `{"type":"turn_start","agent":"main","turn_id":"t1"}`
    TurnStart {
        /// Main or subagent.
        agent: Agent,
        /// The turn's id.
        turn_id: String,
    },
    /// A prompt entered (not a command): `natural` when a person typed it
    /// (origin not `plugin`). The flow tracks it until a model request carries it.
    ///
    /// `{"type":"prompt_submitted","natural":true}`
    PromptSubmitted {
        /// Typed by a person (not the close-out or the continuation).
        natural: bool,
    },
    /// A row was appended to the conversation; `joins_turn` when the host appends it
    /// through a way that attaches waiting input to the running turn (the host adapter
    /// knows which): after the running turn's first step, that input joins the turn.
    ///
    /// `{"type":"appended","agent":"main","joins_turn":true}`
    Appended {
        /// Main or subagent.
        agent: Agent,
        /// The row attaches waiting input to the running turn.
        joins_turn: bool,
    },
    /// The engine is about to send a context block holding a boot again
    /// (a resume, a fork, the retry after a
    /// prompt-too-long compaction): its `text`, and the id of the session now running.
    /// The flow answers with one `boot_copy` effect (none when the text holds no boot).
    ///
    /// `{"type":"boot_copy","session":"s2","text":"# notesoup\n<notesoup-boot window=\"claude:s1:0\">\n…\n</notesoup-boot>"}`
    BootCopy {
        /// The running session's id.
        session: String,
        /// The attachment's text.
        text: String,
    },
    /// `DISABLE_COMPACT` as the host read it, at the session's start and with every call
    /// that could warn or clear (presence: set). The first `set: true` of a session gives a
    /// `log` line ([its text](crate::DISABLE_COMPACT_LOG)); a request not yet
    /// committed is cancelled.
    ///
    /// `{"type":"disable_compact","set":true}`
    DisableCompact {
        /// True when the variable is set.
        set: bool,
    },
}
