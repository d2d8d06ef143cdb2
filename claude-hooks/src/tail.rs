//! What an automatic compaction answered with a boot keeps of the conversation: the
//! person's input no model request has answered yet.
//!
//! Claude Code 2.1.319 compacts automatically at its threshold and when a request comes
//! back "prompt is too long"; either may come after a person's prompt, or a message typed
//! into the running turn, was taken in and before the model answered it. Claude's own
//! summary keeps such input after it; a hook's `messages` replace the whole conversation,
//! so notesoup's boot keeps it after itself, as the engine's own messages (or, where a
//! message also holds tool results whose calls the boot replaces, as its text alone).
//! Nothing is replayed: the input stays where it was, once.
//!
//! Which messages those are is `notesoup-reset-flow`'s rule ([`unanswered_input`]), the
//! one Pi's adapter keeps its branch by; this module holds the shell's wire shape of the
//! messages ([`TailMessage`]) and its bound ([`TAIL_MESSAGES`]).

use serde::{Deserialize, Serialize};

use notesoup_reset_flow::{Kept, Role, unanswered_input};

/// The most messages of the conversation being compacted the shell forwards (the last
/// ones): the person's input after the last answer is rarely more than one or two, and
/// this bounds what a compaction's request carries (`spec.ts` copies it).
pub const TAIL_MESSAGES: usize = 16;

/// One of the last messages of the conversation being compacted (`e.messages`), as the
/// shell forwards them, oldest first.
///
/// `{"role":"user","results":false,"text":"and also fix the docs"}`
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TailMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// True when the message holds tool results (`toolResults` not empty).
    #[serde(default)]
    pub results: bool,
    /// The message's text.
    #[serde(default)]
    pub text: String,
}

impl TailMessage {
    /// The message as the reset flow's rule reads it: `user` is the person's (its tool
    /// results with it), `assistant` the model's.
    pub fn message(&self) -> notesoup_reset_flow::TailMessage<'_> {
        let role = match self.role.as_str() {
            "user" => Role::Person,
            "assistant" => Role::Model,
            _ => Role::Other,
        };
        notesoup_reset_flow::TailMessage {
            role,
            results: self.results,
            text: &self.text,
        }
    }
}

/// The messages of `tail` the boot keeps after itself: the person's input no request
/// answered ([`unanswered_input`]), each as the engine's own message, or as its text alone
/// where it also holds tool results.
///
/// ```
/// use notesoup_claude_hooks::{TailMessage, kept_after_boot};
/// use notesoup_reset_flow::Kept;
///
/// let m = |role: &str, results, text: &str| TailMessage { role: role.into(), results, text: text.into() };
/// let tail = [
///     m("user", false, "earlier"),
///     m("assistant", false, "running the tests"),
///     m("user", true, "and also fix the docs"),
///     m("user", false, "<notesoup-boot window=\"claude:s:0\">\nNotes: none yet.\n</notesoup-boot>"),
///     m("user", false, "and the changelog"),
///     m("user", false, "and the changelog"),
/// ];
/// assert_eq!(kept_after_boot(&tail), [Kept { at: 2, text_only: true }, Kept { at: 4, text_only: false }]);
/// ```
pub fn kept_after_boot(tail: &[TailMessage]) -> Vec<Kept> {
    let messages: Vec<_> = tail.iter().map(TailMessage::message).collect();
    unanswered_input(&messages)
}
