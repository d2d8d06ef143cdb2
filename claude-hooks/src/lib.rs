//! The Claude Code 2.1.319 adapter of notesoup's reset flow: which engine hook means which
//! events of `notesoup-reset-flow`, the facts each hook carries, and the constants measured
//! on that engine.
//!
//! The hooks module (TypeScript, inside Claude Code) forwards each hook call's raw facts
//! to `notesoup-helper hook`; the helper parses them into a [`Hook`] and calls
//! [`hook_saved`] on the session's flow kept on disk. [`apply`] turns the hook into a
//! sequence of the flow's events, asking [`Resolve`] only for what needs the outside world
//! (the budget, a boot's text), and [`Watch`] tells the shell which later calls it may
//! skip. `EVENTS.md` beside this crate is the shell's wiring contract: the events each
//! hook becomes and what the shell does with each effect.
//!
//! # Invariants
//!
//! - Pure: no IO; what needs IO is asked of [`Resolve`], and only when the hook reads it.
//! - Every hook call is a sequence of existing reset-flow events: the flow decides, this
//!   table only translates. The hook explorer checks the flow's invariants on every event
//!   of every hook sequence up to its depth, and `tests/replay.rs` replays real probe logs.
//! - [`Watch`] never lets the shell skip a call that could change the flow (the explorer
//!   checks that promise in every state it reaches).
//!
//! ```
//! use notesoup_claude_hooks::{CapAsk, Hook, Resolve, hook_saved};
//! use notesoup_reset_flow::{Budget, Effect, Pool};
//!
//! struct World;
//! impl Resolve for World {
//!     fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
//!         Some(Budget { tokens: 150_000, hard: 160_000, warning: Some(142_000), auto_clear: true })
//!     }
//!     fn compaction_disabled(&self) -> Option<bool> { Some(false) }
//!     fn interactive(&self) -> Option<bool> { None }
//!     fn boot(&mut self, ordinal: u32, _reset: Option<(Pool, Option<&str>)>) -> Result<(String, String), String> {
//!         Ok((format!("claude:s:{ordinal}"), "boot".to_owned()))
//!     }
//!     fn session(&self) -> &str { "s" }
//!     fn transcript_window(&mut self) -> Option<u32> { None }
//!     fn cap_command(&mut self, _args: &str) -> Result<CapAsk, String> { Ok(CapAsk::Show) }
//!     fn cap_status(&mut self, _cap: Option<u64>, _ordinal: Option<u32>, _removed: bool) -> String { "cap: none".into() }
//! }
//!
//! let hook: Hook = serde_json::from_str(
//!     r#"{"event": "tool.call", "facts": {"agent": "main", "denied": false}}"#)?;
//! let (saved, reply) = hook_saved(None, "p1", &hook, &mut World);
//! // Past the warning point: the warning rides on this tool result, delivered at once.
//! assert!(matches!(reply.effects[..], [Effect::Warn { .. }]));
//! assert!(reply.flow.snapshot().warned);
//! // The same window again (another process, `claude -p --resume`): no second warning.
//! let (_, reply) = hook_saved(Some(&saved), "p2", &hook, &mut World);
//! assert!(reply.effects.is_empty());
//! # Ok::<(), serde_json::Error>(())
//! ```

#![forbid(unsafe_code)]

mod hook;
mod resolve;
mod table;
mod tail;
mod watch;

pub use hook::{CommandRun, Hook, KeptBoot};
pub use resolve::{CapAsk, Resolve};
pub use table::{COMPACTION_ERROR, apply};
pub use tail::{TAIL_MESSAGES, TailMessage, kept_after_boot};
pub use watch::Watch;

use notesoup_reset_flow::{Reply, Saved, with_saved};

/// One hook call on a flow kept on disk (see `notesoup_reset_flow::step_saved`): a flow
/// saved by another process is sent `loaded` first. Returns what to save and the reply.
pub fn hook_saved(
    saved: Option<&Saved>,
    process: &str,
    hook: &Hook,
    resolve: &mut dyn Resolve,
) -> (Saved, Reply) {
    with_saved(saved, process, |flow| apply(flow, hook, resolve))
}

#[cfg(test)]
mod tests;
