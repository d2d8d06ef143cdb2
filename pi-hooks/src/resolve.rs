//! What a Pi event asks of the outside world ([`Resolve`]): the helper answers with IO (the
//! budget from Pi's settings and context usage, a boot from the brain), asked only when the
//! event reads it.

pub use notesoup_reset_flow::CapAsk;
use notesoup_reset_flow::{Budget, Pool};

/// What the helper resolves for a Pi event, asked only when the event reads it.
pub trait Resolve {
    /// The budget of this event with the runtime cap the flow holds; `None` when it cannot
    /// be resolved (`ctx.getContextUsage()` null right after a compaction, no points).
    fn budget(&mut self, cap: Option<u64>) -> Option<Budget>;
    /// The text opening window `ordinal`: its identity (the window id `pi:<session>:<n>`)
    /// and its whole text, or why not. After a reset (`reset` given: the handoff's pool and
    /// the request's sticky note) the text is the compaction's whole summary, the boot then
    /// one handoff paragraph, so every summary names its own window (Pi 1.6.0 finds a
    /// compaction entry by its summary text).
    fn boot(
        &mut self,
        ordinal: u32,
        reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String>;
    /// The boot of a run notesoup does not clear (a subagent's: Pi's `--no-session`): the
    /// notes and the history tools, nothing of resets or warnings; or why not.
    fn unreset_boot(&mut self) -> Result<String, String>;
    /// The id of the session the event runs in (a kept boot of another session is a fork's
    /// copy).
    fn session(&self) -> &str;
    /// What `/notesoup`'s `args` ask, read against this event's points, or the line refusing
    /// them (a refused command changes nothing).
    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String>;
    /// The line answering `/notesoup`: the cap the flow keeps (`None`: none), the points
    /// under it and window `ordinal` (`None`: not started yet); `removed`: this command
    /// took away the cap the flow kept, which the answer says first.
    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>, removed: bool) -> String;
}
