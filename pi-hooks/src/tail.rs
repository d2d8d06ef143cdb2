//! The end of the branch a compaction is shown (`session_before_compact`'s `tail`), and what
//! a boot answering Pi's automatic compaction keeps of it.
//!
//! Pi keeps a branch from one entry on (`firstKeptEntryId`), not a selection of entries as
//! Claude Code keeps messages. So the entry of the person's input no request answered yet
//! ([`kept_from`]) keeps all that follows it too, the extension's own hidden messages among
//! them: the boot of the window that compaction ends (attached after a prompt at
//! `before_agent_start`), a warning. No later request carries those ([`left_out`]): the
//! window the boot opens reads its own boot alone.

use notesoup_reset_flow::{Role, TailMessage, unanswered_input};
use serde::{Deserialize, Serialize};

/// The `customType` of the extension's hidden message at `before_agent_start`: a window's
/// boot, a fork's own boot, the budget warning (the extension reads its name from `spec.ts`).
pub const HIDDEN_MESSAGE: &str = "notesoup";

/// The `customType` of the close-out's warning the extension steers into a running run
/// (`closeout` `current_turn`).
pub const CLOSEOUT_MESSAGE: &str = "notesoup-warning";

/// One entry of the branch after its last assistant message that answered, as the extension
/// sends it with `session_before_compact`: a message entry (`role` is its message's), or a
/// custom message entry (`role` `custom`, with its `customType`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TailEntry {
    /// `message.role` (`user`, `toolResult`, ...), or `custom` for a custom message entry.
    pub role: String,
    /// The text parts of its content, joined.
    #[serde(default)]
    pub text: String,
    /// A custom message entry's `customType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_type: Option<String>,
}

impl TailEntry {
    /// The entry as the reset flow's rule reads it: `user` is the person's, `assistant` the
    /// model's, any other role (`toolResult`, a system prompt's patch, a custom message)
    /// neither. A Pi message holds no tool results beside its text: they are messages of
    /// their own.
    pub fn message(&self) -> TailMessage<'_> {
        let role = match self.role.as_str() {
            "user" => Role::Person,
            "assistant" => Role::Model,
            _ => Role::Other,
        };
        TailMessage {
            role,
            results: false,
            text: &self.text,
        }
    }

    /// One of the extension's own hidden messages ([`HIDDEN_MESSAGE`], [`CLOSEOUT_MESSAGE`]).
    pub fn own(&self) -> bool {
        self.role == "custom"
            && matches!(
                self.custom_type.as_deref(),
                Some(HIDDEN_MESSAGE | CLOSEOUT_MESSAGE)
            )
    }
}

/// Where the compaction entry of a boot answering Pi's automatic compaction keeps the branch
/// from (an index into `tail`): the first of the person's messages no response answered yet
/// ([`unanswered_input`], the rule Claude's adapter keeps its messages by), such as a steered
/// message whose request overflowed, so the retried request still carries it. Pi keeps the
/// branch from one entry on, so all that follows it stays too ([`left_out`]). `None` when
/// there is none: the entry keeps nothing before it.
///
/// ```
/// use notesoup_pi_hooks::{TailEntry, kept_from};
///
/// let e = |role: &str, text: &str| TailEntry { role: role.into(), text: text.into(), custom_type: None };
/// let tail = [e("toolResult", "3 notes"), e("user", " "), e("user", "also fix the test")];
/// assert_eq!(kept_from(&tail), Some(2));
/// assert_eq!(kept_from(&tail[..2]), None);
/// ```
pub fn kept_from(tail: &[TailEntry]) -> Option<usize> {
    let messages: Vec<_> = tail.iter().map(TailEntry::message).collect();
    unanswered_input(&messages).first().map(|kept| kept.at)
}

/// The entries of `tail` a compaction keeping the branch from `tail[from]` keeps that no
/// later request carries (indexes, oldest first): the extension's own hidden messages from
/// there on, all of the window the compaction ends (its boot, a fork's own boot, a warning).
/// Those before `from` are not kept at all; the person's messages and Pi's own stay.
///
/// ```
/// use notesoup_pi_hooks::{HIDDEN_MESSAGE, TailEntry, left_out};
///
/// let prompt = TailEntry { role: "user".into(), text: "fix the parser".into(), custom_type: None };
/// let boot = TailEntry {
///     role: "custom".into(),
///     text: "<notesoup-boot window=\"pi:s:0\">\nNotes: none yet.\n</notesoup-boot>".into(),
///     custom_type: Some(HIDDEN_MESSAGE.into()),
/// };
/// // The first prompt, then window 0's boot the extension attached after it.
/// assert_eq!(left_out(&[prompt, boot], 0), [1]);
/// ```
pub fn left_out(tail: &[TailEntry], from: usize) -> Vec<usize> {
    tail.iter()
        .enumerate()
        .skip(from)
        .filter(|(_, entry)| entry.own())
        .map(|(at, _)| at)
        .collect()
}
