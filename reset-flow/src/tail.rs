//! Which messages at the end of a conversation being compacted are the person's input no
//! model request answered yet: what a boot answering an automatic compaction keeps after
//! itself ([`Effect::AnswerCompaction`](crate::Effect::AnswerCompaction)'s `keep`).
//!
//! An automatic compaction may come after the person's prompt, or a message typed into the
//! running turn, was taken in and before the model answered it (a request that came back
//! "prompt is too long", a threshold passed on the way). A host's own summary keeps such
//! input after it; a boot that replaces the conversation keeps it after itself, once. The
//! clauses of what counts as that input live here, for every host: each adapter reads its
//! host's messages into [`TailMessage`]s, and keeps what [`unanswered_input`] names as its
//! host allows (Claude Code: those messages; Pi: its branch from the first of them).

use notesoup_window::marker::marker_ids;

use crate::Kept;

/// Whose a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The person's: a prompt, a message typed into the running turn (and on a host that
    /// carries tool results in the person's messages, those results).
    Person,
    /// The model's: an answer to the requests before it.
    Model,
    /// Anything else (a host's tool-result or system message): neither the person's input
    /// nor an answer.
    Other,
}

/// One message at the end of the conversation being compacted, as a host's adapter read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TailMessage<'a> {
    /// Whose it is.
    pub role: Role,
    /// It holds tool results besides its text (kept as its text alone: the boot replaces the
    /// calls they answer).
    pub results: bool,
    /// Its text.
    pub text: &'a str,
}

/// The messages of `tail` (oldest first) that are the person's input no model request
/// answered yet: the person's messages after the model's last one, but a message with no
/// text, one holding a boot (an old window's, which the new boot replaces) and a text kept
/// already (a host may list input taken into the running turn twice). One that also holds
/// tool results is kept as its text alone. Oldest first; empty when there is none.
///
/// ```
/// use notesoup_reset_flow::{Kept, Role, TailMessage, unanswered_input};
///
/// let m = |role, results, text| TailMessage { role, results, text };
/// let tail = [
///     m(Role::Person, false, "earlier"),
///     m(Role::Model, false, "running the tests"),
///     m(Role::Person, true, "and also fix the docs"),
///     m(Role::Person, false, "<notesoup-boot window=\"pi:s:0\">\nNotes: none yet.\n</notesoup-boot>"),
///     m(Role::Other, false, "3 tests passed"),
///     m(Role::Person, false, "and the changelog"),
///     m(Role::Person, false, "and the changelog"),
/// ];
/// assert_eq!(
///     unanswered_input(&tail),
///     [Kept { at: 2, text_only: true }, Kept { at: 5, text_only: false }]
/// );
/// ```
pub fn unanswered_input(tail: &[TailMessage<'_>]) -> Vec<Kept> {
    let from = tail
        .iter()
        .rposition(|m| m.role == Role::Model)
        .map_or(0, |last| last + 1);
    let mut kept: Vec<Kept> = Vec::new();
    for (at, m) in tail.iter().enumerate().skip(from) {
        let again = kept.iter().any(|k| tail[k.at].text == m.text);
        if m.role != Role::Person
            || m.text.trim().is_empty()
            || marker_ids(m.text).next().is_some()
            || again
        {
            continue;
        }
        kept.push(Kept {
            at,
            text_only: m.results,
        });
    }
    kept
}

#[cfg(test)]
mod tests;
