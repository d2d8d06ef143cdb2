//! What the flow asks the hooks module to do: [`Effect`]s.
//!
//! Every effect is a JSON object tagged by `"type"` (`snake_case`). Effects that start
//! asynchronous work carry the `generation` the shell must echo in the event that reports
//! the outcome. See `EVENTS.md` for how the shell carries out each one.

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

/// One thing for the hooks module to do, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Effect {
    /// Answer the `empty_brain` `tool.call` with `{result: text}` (an error result when
    /// `is_error`). Every tool of the batch still runs; nothing is aborted.
    ///
    /// `{"type":"tool_result","text":"…","is_error":false}`
    ToolResult {
        /// The tool result text for the model.
        text: String,
        /// True when the call was refused (bad arguments, subagent, `DISABLE_COMPACT`).
        is_error: bool,
    },
    /// Answer this main `turn.step` without `next`: yield `{kind:"text",index:0,text}` and
    /// `{kind:"stop",stopReason:"end_turn",usage:null}`, then return the `TurnStepResult`
    /// (`answer: text, toolUses: [], stopReason: "end_turn", usage: null`). No model request.
    ///
    /// `{"type":"end_turn","text":"…"}`
    EndTurn {
        /// The synthetic answer (never empty).
        text: String,
    },
    /// From `turn.complete`, after `next(e)`, not awaited:
    /// `$.command.run({command: "compact", args: marker})`; report how it settled with
    /// `compaction_result` under `generation`.
    ///
    /// `{"type":"compact","marker":"notesoup-reset g1 r1 a1","generation":1}`
    Compact {
        /// The unique instruction marker; only a compaction carrying it is admitted.
        marker: String,
        /// Echo in `compaction_result`.
        generation: u64,
    },
    /// Answer this `session.compact` without `next`: build the boot with this handoff pool
    /// (helper `boot`), return `{messages: [boot + handoff]}`, and report `boot`
    /// (`acquired` with the boot message's UUID, or `failed`) under `generation`.
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
        /// The boot and handoff to answer with, when the `hook` op built it (the flow was
        /// told `boot` acquired in the same call): return it as the compaction's message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// Answer this `session.compact` with `{skip: notice}` without `next`; show the notice
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
    /// Let this `session.compact` run natively: `return next(e)` (subagents; an automatic
    /// compaction whose boot could not be built falls back to Claude's own summary).
    ///
    /// `{"type":"native_compaction"}`
    NativeCompaction,
    /// Start the one continuation: `$.prompt.submit({text})`, not awaited; report
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
    /// Let the model save its notes before a `/empty` or `/fresh-window` reset: load the
    /// budget warning (helper `warning`); `submit`: start one hidden close-out turn with it
    /// (`$.prompt.submit`, not awaited, from the `session.append` hook of the command's
    /// first row, which a `-p` run awaits before it may end; EVENTS.md "Where the close-out
    /// is submitted"); `current_turn`: return it as the command's `context`. On any
    /// failure (also: the session ended before that row) report `closeout` under
    /// `generation`.
    ///
    /// `{"type":"closeout","mode":"submit","generation":1}`
    Closeout {
        /// Where the warning goes.
        mode: CloseoutMode,
        /// Echo in `closeout`.
        generation: u64,
    },
    /// The budget warning is due in this window: attach it to the prompt or tool result
    /// at hand (helper `warning`), then report `warning` (`delivered` when the chain
    /// accepted it, else `dropped`) under `generation`.
    ///
    /// `{"type":"warn","generation":1}`
    Warn {
        /// Echo in `warning`.
        generation: u64,
    },
    /// `prompt.context` (the `hook` op): attach this boot as the `notesoup` context block;
    /// the flow is in window `ordinal`.
    ///
    /// `{"type":"attach_boot","ordinal":0,"text":"<notesoup-boot …"}`
    AttachBoot {
        /// The window the boot opens.
        ordinal: u32,
        /// The boot's whole text.
        text: String,
    },
    /// `prompt.submit` (the `hook` op): this session owes itself its own boot of window
    /// `ordinal` (its conversation's boot is another session's: a fork's copy); add `text`
    /// to the prompt as hidden context, like the budget warning, and when another hook drops
    /// the prompt report `prompt.dropped` under `generation` (the opening step of the
    /// prompt's turn counts it delivered). A caller that steps the flow itself gets `text`
    /// absent: build the boot with helper `boot` and report `own_boot`.
    ///
    /// `{"type":"attach_own_boot","ordinal":1,"generation":1,"text":"\n<notesoup-boot …"}`
    AttachOwnBoot {
        /// The window the boot names (under this session).
        ordinal: u32,
        /// Echo in `own_boot` (`prompt.dropped`).
        generation: u64,
        /// The boot to add, starting with a line break (the engine puts its own words on
        /// the context's first line), when the `hook` op built it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// A line for the debug log only (`$.ui.log(…, {to:"debug"})`).
    ///
    /// `{"type":"log","text":"…"}`
    Log {
        /// One line.
        text: String,
    },
    /// Answer this `prompt.attachment` (a context block holding a boot, sent again by the
    /// engine): `keep` → `next(e)`; otherwise send `text` (`next({...e, text})`), or
    /// `{text: null}` when it is absent. `drop` (a closed window's copy, or another
    /// session's copy of a window whose own boot this session already attached): `text` is the
    /// attachment without the boot (absent when `alone`); `rebuild` (another session's
    /// copy: a fork's): `text` is the attachment with this session's boot of window
    /// `ordinal` in place of the copy (the `hook` op builds it; a caller that steps the flow
    /// itself gets `text` absent: build the boot with helper `boot` and send `before + "# notesoup\n" +
    /// boot + after`). `before` and `after` are the attachment's text around the boot
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
    /// Show one line to the person (`$.ui.notice`, or the command's text).
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
    /// `closeout`): the `hook` op fills it in as the effect's `text`.
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
    /// own boot of the window, offered in place: the `hook` op reports `own_boot`).
    Rebuild,
}

/// Where a close-out's budget warning goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseoutMode {
    /// Idle: one hidden close-out turn.
    Submit,
    /// Busy: the running turn (the command's `context`).
    CurrentTurn,
}
