//! What the flow knows before its first event and what the engine sends again: a flow
//! rebuilt from a session's transcript (no usable record: first start, a fork, a deleted
//! or refused record), and the verdict on a boot copy the engine is about to send (kept,
//! left out because its window is closed or this session's own boot of it is already
//! attached, or rebuilt for a fork).

use notesoup_window::WindowFacts;
use notesoup_window::marker::boot_block;

use super::Flow;
use super::OwnBoot;
use crate::effect::{CopyVerdict, Effect};
use crate::event::Event;

/// The heading line a host puts before notesoup's context block (`# <name>`), cut
/// with the boot it heads.
pub const HEADING: &str = "# notesoup\n";

impl Flow {
    /// A fresh flow in the window the transcript says the session is in (the ordinal, and
    /// whether the session owes itself a boot; nothing else of a window outlives its
    /// record). A fork's facts name the fork's own window (its session, the copied boot's
    /// ordinal): the fork starts its own record, and owes itself a boot of that window
    /// (sent as [`Event::CopiedBoot`]) while the copy is the window's boot.
    ///
    /// ```
    /// use notesoup_window::{WindowFacts, WindowId};
    /// use notesoup_reset_flow::Flow;
    ///
    /// let facts = WindowFacts {
    ///     window: Some(WindowId::new("claude", "fork", 1)?),
    ///     boot: Some(WindowId::new("claude", "parent", 1)?),
    ///     compactions_since_boot: Some(0),
    ///     forked_from: Some("parent".into()),
    /// };
    /// let flow = Flow::rebuilt(&facts);
    /// assert_eq!(flow.snapshot().ordinal, Some(1));
    /// assert!(flow.snapshot().boot_owed); // attached to the fork's next prompt
    /// # Ok::<(), notesoup_window::WindowIdError>(())
    /// ```
    #[must_use]
    pub fn rebuilt(facts: &WindowFacts) -> Self {
        let mut flow = Self::default();
        if let Some(window) = &facts.window {
            let ordinal = window.ordinal();
            // The window's boot is another session's copy (nothing cleared it since): the
            // fork owes itself its own.
            let event = if facts.forked_from.is_some() && facts.compactions_since_boot == Some(0) {
                Event::CopiedBoot { ordinal }
            } else {
                Event::WindowSeen { ordinal }
            };
            flow.handle(event);
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
        let closed = self.window.ordinal.is_some_and(|n| ordinal < n);
        let own_out = self.window.ordinal == Some(ordinal)
            && matches!(self.window.own_boot, OwnBoot::Offered | OwnBoot::Delivered);
        let verdict = if closed || (window.session() != session && own_out) {
            // A closed window's copy, or another session's copy of a window whose own boot
            // this session already attached.
            CopyVerdict::Drop
        } else if window.session() != session {
            CopyVerdict::Rebuild
        } else {
            CopyVerdict::Keep
        };
        if verdict != CopyVerdict::Drop {
            // A copy that stands names the window the conversation is in.
            self.advance_to(ordinal);
        }
        if verdict == CopyVerdict::Rebuild {
            // The copy rebuilt in place is this session's own boot of the window.
            self.window.own_boot = OwnBoot::Offered;
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
