//! What the flow asks a host's shell to do: [`Effect`]s.
//!
//! Every effect is a JSON object tagged by `"type"` (`snake_case`). Effects that start
//! asynchronous work carry the `generation` the shell must echo in the event that reports
//! the outcome. Each variant below shows its JSON; a host adapter says how its shell
//! carries out each one (for Claude Code: `claude-hooks/EVENTS.md`).

use serde::{Deserialize, Serialize};

/// Which handoff pool the boot's handoff paragraph is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pool {
    /// The model called `empty_brain` for this reset (its notes are saved).
    Normal,
    /// No tool call: a budget reset, a command without a close-out tool call, or a native
    /// auto compaction with no request.
    Forced,
}

/// One thing for the shell to do, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Effect {
    /// Answer the `empty_brain` call with `text` (an error result when `is_error`). Every
    /// tool of the batch still runs; nothing is aborted.
    ///
    /// `{"type":"tool_result","text":"…","is_error":false}`
    ToolResult {
        /// The tool result text for the model.
        text: String,
        /// True when the call was refused (bad arguments, subagent, `DISABLE_COMPACT`).
        is_error: bool,
    },
    /// Answer this main step with a synthetic answer `text` that ends the turn (stop reason
    /// `end_turn`, no tool uses). No model request.
    ///
    /// `{"type":"end_turn","text":"…"}`
    EndTurn {
        /// The synthetic answer (never empty).
        text: String,
    },
    /// After the turn completed, not awaited: run the host's compaction command with
    /// `marker` as its instructions; report how it settled with `compaction_result` under
    /// `generation`.
    ///
    /// `{"type":"compact","marker":"notesoup-reset g1 r1 a1","generation":1}`
    Compact {
        /// The unique instruction marker; only a compaction carrying it is admitted.
        marker: String,
        /// Echo in `compaction_result`.
        generation: u64,
    },
    /// Answer this compaction with a boot instead of the host's summary: build the boot with
    /// this handoff pool, answer with boot + handoff, and report `boot` (`acquired` with the
    /// boot's identity, or `failed`) under `generation`.
    ///
    /// `ordinal` is the window the boot opens (the current window's ordinal plus one;
    /// 1 when no window was known).
    ///
    /// `{"type":"answer_compaction","pool":"normal","sticky":"finish the parser","ordinal":1,"generation":1}`
    AnswerCompaction {
        /// The ordinal of the window the boot opens.
        ordinal: u32,
        /// The handoff pool.
        pool: Pool,
        /// The request's sticky note (`last_word`), if any.
        sticky: Option<String>,
        /// Echo in `boot` and `commit_evidence`.
        generation: u64,
        /// The boot and handoff to answer with, when the host adapter built it (the flow was
        /// told `boot` acquired in the same call): answer the compaction with it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The host's messages the answer keeps after the boot, when the host adapter chose
        /// them (the person's input no request answered yet: [`unanswered_input`](crate::unanswered_input)),
        /// oldest first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        keep: Vec<Kept>,
        /// The host's messages the answer keeps that no later request carries (their places
        /// among the messages the adapter was shown), oldest first: a host that keeps its
        /// conversation from one message on, not a selection, keeps after the person's input
        /// the ended window's own messages too (its boot, a warning), which the window the
        /// boot opens must not read again.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        leave_out: Vec<usize>,
    },
    /// Skip this compaction with `notice`; show the notice
    /// to the person, or only log it when `quiet` (nobody asked for this compaction: the
    /// reset worker's own, after a native auto compaction already did the reset).
    ///
    /// `{"type":"veto_compaction","notice":"…","quiet":false}`
    VetoCompaction {
        /// One line (the skip reason; shown to the person unless `quiet`).
        notice: String,
        /// Log the notice only (debug), never show it.
        quiet: bool,
    },
    /// Let this compaction run natively (subagents; an automatic compaction whose boot
    /// could not be built falls back to the host's own summary).
    ///
    /// `{"type":"native_compaction"}`
    NativeCompaction,
    /// Start the one continuation: submit `text` as a prompt, not awaited; report
    /// `continuation` under `generation`. The text never repeats the request's sticky note
    /// (`last_word`): the boot the compaction kept holds it already.
    ///
    /// `{"type":"continue","text":"…","generation":1}`
    Continue {
        /// The prompt text to submit.
        text: String,
        /// Echo in `continuation`.
        generation: u64,
    },
    /// Let the model save its notes before a person's clear command resets: `submit`: start
    /// one hidden close-out turn carrying the budget warning (also at a main turn's completion
    /// when no request of that turn carried a busy close-out's warning); `current_turn`: give
    /// the warning to the running turn. On any failure report `closeout` under `generation`.
    ///
    /// `{"type":"closeout","mode":"submit","generation":1}`
    Closeout {
        /// Where the warning goes.
        mode: CloseoutMode,
        /// Echo in `closeout`.
        generation: u64,
    },
    /// The budget warning is due in this window: attach it to the prompt or tool result
    /// at hand, then report `warning` (`delivered` when the host
    /// accepted it, else `dropped`) under `generation`.
    ///
    /// `{"type":"warn","generation":1}`
    Warn {
        /// Echo in `warning`.
        generation: u64,
    },
    /// Attach this boot as notesoup's context block (the host adapter builds it); the flow
    /// is in window `ordinal`.
    ///
    /// `{"type":"attach_boot","ordinal":0,"text":"<notesoup-boot …"}`
    AttachBoot {
        /// The window the boot opens.
        ordinal: u32,
        /// The boot's whole text.
        text: String,
    },
    /// This session owes itself its own boot of window `ordinal` (its conversation's boot
    /// is another session's: a fork's copy); add `text` to the prompt about to enter as
    /// hidden context, like the budget warning, and report `own_boot` dropped under
    /// `generation` when the prompt is dropped (the opening step of the prompt's turn
    /// counts it delivered). `text` is absent when the caller steps the flow itself: it
    /// builds the boot and reports `own_boot`.
    ///
    /// `{"type":"attach_own_boot","ordinal":1,"generation":1,"text":"\n<notesoup-boot …"}`
    AttachOwnBoot {
        /// The window the boot names (under this session).
        ordinal: u32,
        /// Echo in `own_boot`.
        generation: u64,
        /// The boot to add, starting with a line break (a host may put its own words on the
        /// context's first line), when the host adapter built it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// A line for the debug log only.
    ///
    /// `{"type":"log","text":"…"}`
    Log {
        /// One line.
        text: String,
    },
    /// The verdict on a context block holding a boot that the host is about to send again:
    /// `keep` sends it as it is; otherwise send `text`, or nothing when it is absent.
    /// `drop` (a closed window's copy, or another
    /// session's copy of a window whose own boot this session already attached): `text` is the
    /// attachment without the boot (absent when `alone`); `rebuild` (another session's
    /// copy: a fork's): `text` is the attachment with this session's boot of window
    /// `ordinal` in place of the copy (the host adapter builds it; a caller that steps the
    /// flow itself gets `text` absent and sends `before + HEADING + boot + after`).
    /// `before` and `after` are the attachment's text around the boot
    /// block, its `# notesoup` heading line cut with it; `alone` when they hold no other
    /// block (no `# ` heading line).
    ///
    /// `{"type":"boot_copy","verdict":"drop","ordinal":0,"text":null,"before":"","after":"\n\nThis is ambient context…","alone":true}`
    BootCopy {
        /// Keep, drop or rebuild.
        verdict: CopyVerdict,
        /// The window the copy names (rebuild: under this session).
        ordinal: u32,
        /// The text before the boot block.
        before: String,
        /// The text after the boot block.
        after: String,
        /// No other block is in the attachment.
        alone: bool,
        /// What to send instead of the attachment (`None`: leave it out, or keep it).
        text: Option<String>,
    },
    /// Show one line to the person (a notice, or the command's answer).
    ///
    /// `{"type":"report","text":"…"}`
    Report {
        /// One line.
        text: String,
    },
    /// The request ended without a reset: drop any work held for it (a queued close-out,
    /// a waiter).
    ///
    /// `{"type":"cancel","reason":"…"}`
    Cancel {
        /// Why, one line.
        reason: String,
    },
}

impl Effect {
    /// Whether the shell carries the budget warning's text with this effect (`warn`,
    /// `closeout`): the host adapter fills it in as the effect's `text`.
    ///
    /// ```
    /// use notesoup_reset_flow::{CloseoutMode, Effect};
    /// assert!(Effect::Warn { generation: 1 }.carries_warning());
    /// let closeout = Effect::Closeout { mode: CloseoutMode::Submit, generation: 1 };
    /// assert!(closeout.carries_warning());
    /// assert!(!Effect::NativeCompaction.carries_warning());
    /// ```
    pub fn carries_warning(&self) -> bool {
        matches!(self, Effect::Warn { .. } | Effect::Closeout { .. })
    }
}

/// What becomes of a boot copy the engine is about to send ([`Effect::BootCopy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CopyVerdict {
    /// It names this session's current window (or a newer one): sent as it is.
    Keep,
    /// It names a window of this session that is closed: left out (the retry after a
    /// prompt-too-long compaction re-sends the cleared window's boot). Also another
    /// session's copy of a window whose own boot this session already attached to a prompt
    /// (`attach_own_boot`): one boot of the window is enough.
    Drop,
    /// It names another session's window (a fork's copy of its parent's boot): rebuilt
    /// for this session's window `ordinal` from the notes as they are now (this session's
    /// own boot of the window, offered in place: the host adapter reports `own_boot`).
    Rebuild,
}

/// Where a close-out's budget warning goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseoutMode {
    /// Idle: one hidden close-out turn.
    Submit,
    /// Busy: the running turn, whose next model request carries it. Should the turn end
    /// before one does, its completion asks for a close-out turn instead ([`Self::Submit`]).
    CurrentTurn,
}

/// A message of the conversation being compacted that the answer keeps after the boot
/// ([`Effect::AnswerCompaction`]): the `at`-th of the messages the host adapter was shown,
/// whole (the host's own message), or as its text alone when `text_only`.
///
/// `{"at":2,"text_only":false}`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Kept {
    /// Its place among the messages the adapter was shown.
    pub at: usize,
    /// Kept as its text alone (it also holds what the boot replaces, such as tool results).
    pub text_only: bool,
}
