//! What the shell may skip until the helper's next reply ([`Watch`]).

use notesoup_reset_flow::Flow;
use notesoup_window::WindowId;
use notesoup_window::marker::OPEN;
use serde::{Deserialize, Serialize};

use crate::table::JOINS_TURN;

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
    /// The marker line of this session's own boot of its current window, once the flow
    /// knows the window: a `prompt.attachment` whose one boot opener starts this line
    /// ([`Watch::skips_attachment`]) is a copy the flow keeps as it is and that changes
    /// nothing (the engine sends the boot `prompt.context` attached again with every
    /// request), so the shell sends none. The explorer checks that promise in every state
    /// it reaches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_kept: Option<String>,
}

impl Watch {
    /// What the shell must keep sending after a call that left `flow`, in session
    /// `session` of host `host` (what the session's own boots are marked with).
    pub fn of(flow: &Flow, host: &str, session: &str) -> Self {
        let awaiting = flow.installed().is_some();
        let interactive = flow.interactive();
        let append_doors = if awaiting && !interactive {
            vec!["*".to_owned()]
        } else if flow.attachable() {
            JOINS_TURN.iter().map(|&d| d.to_owned()).collect()
        } else {
            Vec::new()
        };
        let copy_kept = flow
            .snapshot()
            .ordinal
            .and_then(|n| WindowId::new(host, session, n).ok())
            .map(|w| w.marker_line());
        Watch {
            append_doors,
            kept: awaiting && interactive,
            prompt_kept: flow.snapshot().ordinal.is_none(),
            compact_done: flow.worker_compaction_unanswered() || (awaiting && interactive),
            copy_kept,
        }
    }

    /// Whether the shell sends no `prompt.attachment` of `text`: it holds the boot opener
    /// ([`OPEN`], the reply's `boot_marker`) exactly once, and there it starts the line
    /// [`Watch::copy_kept`] names. The shell's comparison, as it makes it (notesoup.ts
    /// `onAttachment`): the first opener is the last, and the text goes on with the line.
    ///
    /// ```
    /// use notesoup_claude_hooks::Watch;
    /// let watch = Watch { copy_kept: Some("<notesoup-boot window=\"claude:s1:0\">".into()), ..Watch::default() };
    /// assert!(watch.skips_attachment("# notesoup\n<notesoup-boot window=\"claude:s1:0\">\nnotes\n</notesoup-boot>"));
    /// // Another window, or a second boot beside it: the helper judges it.
    /// assert!(!watch.skips_attachment("<notesoup-boot window=\"claude:s1:01\">\n</notesoup-boot>"));
    /// assert!(!watch.skips_attachment("<notesoup-boot window=\"claude:s1:0\">\n</notesoup-boot>\n<notesoup-boot window=\"claude:s0:0\">"));
    /// ```
    pub fn skips_attachment(&self, text: &str) -> bool {
        let Some(line) = &self.copy_kept else {
            return false;
        };
        match (text.find(OPEN), text.rfind(OPEN)) {
            (Some(first), Some(last)) if first == last => text[first..].starts_with(line.as_str()),
            _ => false,
        }
    }
}
