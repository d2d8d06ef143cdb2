//! What a hook call asks of the outside world ([`Resolve`]): the helper answers with IO
//! (the budget from the engine's usage and settings, a boot from the brain), asked only
//! when the hook reads it.

pub use notesoup_reset_flow::CapAsk;
use notesoup_reset_flow::{Budget, Pool};

/// What the helper resolves for a hook, asked only when the hook reads it.
pub trait Resolve {
    /// The budget of this call with the runtime cap the flow holds; `None` when it cannot be
    /// resolved (no usage yet, no points).
    fn budget(&mut self, cap: Option<u64>) -> Option<Budget>;
    /// Why the last [`Resolve::budget`] placed no points although it could read the
    /// settings (they leave no room for the margins), in the person's words; `None` when it
    /// placed them or only the usage was missing. A close-out then has no warning to carry,
    /// and says this.
    fn unplaced(&self) -> Option<String> {
        None
    }
    /// `DISABLE_COMPACT` as this call's facts carry it (the shell forwards the variable with
    /// every budget); `None` when the call carried none. The one source of the switch for
    /// the calls that could warn or clear: the flow hears it before the hook's own events.
    fn compaction_disabled(&self) -> Option<bool>;
    /// Whether the calling process is interactive, as the call says it (the shell keeps
    /// `session.start`'s `isInteractive` and sends it with every call); `None` when it did
    /// not. A new session's record (after `/clear`) hears no session start, so the flow
    /// learns it here, before the hook's own events.
    fn interactive(&self) -> Option<bool>;
    /// The boot opening window `ordinal` (after a reset: with the handoff of `pool` and the
    /// request's sticky note): its identity (the window id) and its whole text, or why not.
    fn boot(
        &mut self,
        ordinal: u32,
        reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String>;
    /// The id of the session the hook runs in (a boot copy is judged against it).
    fn session(&self) -> &str;
    /// The window the session's transcript says its head is in, when known (asked for a
    /// `prompt.context` with no kept boot while the flow knows no window).
    fn transcript_window(&mut self) -> Option<u32>;
    /// What `/notesoup`'s `args` ask, read against this call's points, or the line refusing
    /// them (a refused command changes nothing).
    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String>;
    /// The line answering `/notesoup`: the cap the flow keeps (`None`: none), the points
    /// under it and window `ordinal` (`None`: not started yet); `removed`: this command
    /// took away the cap the flow kept, which the answer says first.
    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>, removed: bool) -> String;
}
