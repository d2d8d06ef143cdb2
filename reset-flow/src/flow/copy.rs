//! What the flow knows before its first event and what the engine sends again: a flow
//! rebuilt from a session's transcript (no usable record: first start, a fork, a deleted
//! or refused record), and the verdict on a boot copy the engine is about to send (kept,
//! left out because its window is closed, or rebuilt for a fork).

use notesoup_history_core::window::{WindowFacts, boot_block};

use super::Flow;
use crate::effect::{CopyVerdict, Effect};

/// The heading line the engine puts before the shell's context block (`# <name>`), cut
/// with the boot it heads.
pub(crate) const HEADING: &str = "# notesoup\n";

impl Flow {
    /// A fresh flow in the window the transcript says the session is in (the ordinal only;
    /// nothing else of a window outlives its record). A fork's facts name the fork's own
    /// window (its session, the copied boot's ordinal): the fork starts its own record.
    ///
    /// ```
    /// use notesoup_history_core::window::{WindowFacts, WindowId};
    /// use notesoup_reset_flow::Flow;
    ///
    /// let facts = WindowFacts {
    ///     window: Some(WindowId::new("claude", "fork", 1)?),
    ///     boot: Some(WindowId::new("claude", "parent", 1)?),
    ///     compactions_since_boot: Some(0),
    ///     forked_from: Some("parent".into()),
    /// };
    /// assert_eq!(Flow::rebuilt(&facts).snapshot().ordinal, Some(1));
    /// # Ok::<(), notesoup_history_core::window::WindowIdError>(())
    /// ```
    #[must_use]
    pub fn rebuilt(facts: &WindowFacts) -> Self {
        let mut flow = Self::default();
        if let Some(window) = &facts.window {
            flow.advance_to(window.ordinal());
        }
        flow
    }

    /// The verdict on a boot copy in `text` the engine is about to send in `session`.
    pub(super) fn boot_copy(&mut self, session: &str, text: &str, fx: &mut Vec<Effect>) {
        let Some((window, range)) = boot_block(text) else {
            return;
        };
        let start = if text[..range.start].ends_with(HEADING) {
            range.start - HEADING.len()
        } else {
            range.start
        };
        let before = &text[..start];
        let after = &text[range.end..];
        let alone = !before
            .lines()
            .chain(after.lines())
            .any(|line| line.starts_with("# "));
        let ordinal = window.ordinal();
        let verdict = if window.session() != session {
            CopyVerdict::Rebuild
        } else if self.window.ordinal.is_some_and(|n| ordinal < n) {
            CopyVerdict::Drop
        } else {
            CopyVerdict::Keep
        };
        if verdict != CopyVerdict::Drop {
            // A copy that stands names the window the conversation is in.
            self.advance_to(ordinal);
        }
        let text = (verdict == CopyVerdict::Drop && !alone).then(|| format!("{before}{after}"));
        fx.push(Effect::BootCopy {
            verdict,
            ordinal,
            before: before.to_owned(),
            after: after.to_owned(),
            alone,
            text,
        });
    }
}

#[cfg(test)]
mod tests;
