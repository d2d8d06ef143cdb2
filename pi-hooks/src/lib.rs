//! The Pi coding agent 1.6.0 adapter of notesoup's reset flow: which extension event means
//! which events of `notesoup-reset-flow`, and the facts each carries. It sits beside the
//! Claude Code adapter (`notesoup-claude-hooks`) over the same flow.
//!
//! The notesoup Pi extension (TypeScript, loaded by Pi) forwards each event's raw facts to
//! the helper; the helper parses them into a [`PiHook`] and calls [`pi_hook_saved`] on the
//! session's flow kept on disk. [`apply`] turns the event into a sequence of the flow's
//! events, asking [`Resolve`] only for what needs the outside world (the budget, a boot's
//! text). `EVENTS.md` beside this crate is the extension's wiring contract: the events each
//! Pi event becomes, what the extension does with each effect, and the Pi facts measured
//! that it rests on.
//!
//! Pi's turn is one model request; the flow's main turn is Pi's run (`agent_start` …
//! `agent_end`), its steps Pi's `turn_start`s. Window ids are `pi:<session>:<n>`.
//!
//! # Invariants
//!
//! - Pure: no IO; what needs IO is asked of [`Resolve`], and only when the event reads it.
//! - Every Pi event is a sequence of existing reset-flow events: the flow decides, this
//!   table only translates (`src/tests.rs` checks each row against the flow's own answers).
//! - A run with no session file (`agent: subagent`) never changes the main flow, and its
//!   boot promises no reset.
//!
//! ```
//! use notesoup_pi_hooks::{CapAsk, PiHook, Resolve, pi_hook_saved};
//! use notesoup_reset_flow::{Budget, Effect, Pool};
//!
//! struct World;
//! impl Resolve for World {
//!     fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
//!         Some(Budget { tokens: 150_000, hard: 175_424, warning: Some(159_040), auto_clear: true })
//!     }
//!     fn boot(&mut self, ordinal: u32, _reset: Option<(Pool, Option<&str>)>) -> Result<(String, String), String> {
//!         let id = format!("pi:s:{ordinal}");
//!         Ok((id.clone(), format!("<notesoup-boot window=\"{id}\">\nnotes\n</notesoup-boot>")))
//!     }
//!     fn unreset_boot(&mut self) -> Result<String, String> { Ok("<notesoup-boot window=\"pi:s:0\">\nnotes\n</notesoup-boot>".into()) }
//!     fn session(&self) -> &str { "s" }
//!     fn cap_command(&mut self, _args: &str) -> Result<CapAsk, String> { Ok(CapAsk::Show) }
//!     fn cap_status(&mut self, _cap: Option<u64>, _ordinal: Option<u32>, _removed: bool) -> String { "cap: none".into() }
//! }
//!
//! // The first prompt: nothing kept on the branch, so window 0's boot joins the system prompt.
//! let hook: PiHook = serde_json::from_str(r#"{"event": "before_agent_start", "facts": {"kept": null}}"#)?;
//! let (saved, reply) = pi_hook_saved(None, "p1", &hook, &mut World);
//! assert!(matches!(&reply.effects[..], [Effect::AttachBoot { ordinal: 0, .. }]));
//! // Below the warning point a main tool result changes nothing.
//! let result: PiHook = serde_json::from_str(r#"{"event": "tool_result", "facts": {"is_error": false}}"#)?;
//! let (_, reply) = pi_hook_saved(Some(&saved), "p1", &result, &mut World);
//! assert!(reply.effects.is_empty());
//! # Ok::<(), serde_json::Error>(())
//! ```

#![forbid(unsafe_code)]

mod hook;
mod resolve;
mod table;
mod tail;

pub use hook::{CompactReason, InputSource, PiCommand, PiHook, StopReason, Streaming, turn_end};
pub use resolve::{CapAsk, Resolve};
pub use table::{apply, pi_window, run_id};
pub use tail::{CLOSEOUT_MESSAGE, HIDDEN_MESSAGE, TailEntry, kept_from, left_out};

use notesoup_reset_flow::{Reply, Saved, with_saved};

/// One Pi event on a flow kept on disk (see `notesoup_reset_flow::step_saved`): a flow
/// saved by another process is sent `loaded` first. Returns what to save and the reply.
pub fn pi_hook_saved(
    saved: Option<&Saved>,
    process: &str,
    hook: &PiHook,
    resolve: &mut dyn Resolve,
) -> (Saved, Reply) {
    with_saved(saved, process, |flow| apply(flow, hook, resolve))
}

#[cfg(test)]
mod tests;
