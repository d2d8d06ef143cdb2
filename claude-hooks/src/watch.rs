//! What the shell may skip until the helper's next reply ([`Watch`]).

use notesoup_reset_flow::Flow;
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
}

impl Watch {
    /// What the shell must keep sending after a call that left `flow`.
    pub fn of(flow: &Flow) -> Self {
        let awaiting = flow.installed().is_some();
        let interactive = flow.interactive();
        let append_doors = if awaiting && !interactive {
            vec!["*".to_owned()]
        } else if flow.attachable() {
            JOINS_TURN.iter().map(|&d| d.to_owned()).collect()
        } else {
            Vec::new()
        };
        Watch {
            append_doors,
            kept: awaiting && interactive,
            prompt_kept: flow.snapshot().ordinal.is_none(),
            compact_done: flow.worker_compaction_unanswered() || (awaiting && interactive),
        }
    }
}
