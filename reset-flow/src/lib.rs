//! notesoup's reset lifetimes as a pure state machine: [`Event`]s in, [`Effect`]s out.
//!
//! Clearing a window is the riskiest thing notesoup does. All of its decisions live here;
//! the hooks module (an imperative shell) keeps the state blob between calls, turns hook
//! facts into events, and carries out the effects it gets back. This crate does no IO, reads
//! no clock and draws no randomness: the same state and event always give the same answer.
//!
//! Three lifetimes, and the window they clear:
//! - **Request**: from the first valid `empty_brain` call (or the hard point, or `/empty`,
//!   `/fresh-window`) until a successful reset or a cancellation. It owns the first call's
//!   sticky note (`last_word`) and continuation policy (`terminate`, default false), and the
//!   manual STOP.
//! - **Commit**: one native compaction attempt and the proof that Claude kept the boot.
//! - **Cutoff**: per main turn; ends the turn at its next step with a synthetic `end_turn`.
//! - **Window**: its ordinal (only ever grows: a window is never reopened), the
//!   once-per-window budget warning (delivered only when the downstream chain accepted it),
//!   the boot a fork owes itself when its window's boot is its parent's (attached once to
//!   its next main prompt),
//!   the runtime cap (survives windows and model changes; a session change or a new process
//!   clears it), and where a person's input stands until a model request carries it. The
//!   blob is built to outlive a process: a process that loads it sends `loaded` first.
//!
//! The vocabulary (JSON shapes, with the hook each comes from and what the shell does with
//! each effect) is in `EVENTS.md` beside this crate; in short:
//!
//! | event `type` | from |
//! | --- | --- |
//! | `empty_brain` | `tool.call` of `mcp__notesoup__empty_brain` (`agent`, raw `args`) |
//! | `turn_step` | `turn.step` (`agent`, `turn_id`, `index`, optional `context`) |
//! | `turn_complete` | `turn.complete` (`agent`, `turn_id`, `reason`, optional `context`) |
//! | `measured` | a measurement while a main turn runs (`tokens`, `hard`, `auto_clear`) |
//! | `natural_input` | person input `accepted` / `delivered` / `queued` |
//! | `command` | `/empty`, `/fresh-window` (`busy`) |
//! | `closeout` | the close-out could not start (`failed` / `dropped`) |
//! | `compaction` | `session.compact` (`agent`, `trigger`, `instructions`) |
//! | `compaction_result` | how `$.command.run({command:"compact"})` settled |
//! | `boot` | the boot build for an answered compaction (`acquired` + `uuid` / `failed`) |
//! | `commit_evidence` | `session.append` results / `$.session.messages()` |
//! | `continuation` | the continuation `started` / `dropped` / `failed` |
//! | `cap_changed`, `session`, `disable_compact` | cap, generation, `DISABLE_COMPACT` |
//! | `loaded` | a process took over a blob another one saved |
//! | `window_seen`, `native_compacted` | a boot of this session in the conversation; Claude's own compaction |
//! | `copied_boot`, `prompt_out`, `own_boot` | another session's boot is the window's (a fork's copy); a main prompt about to enter; the own boot's fate |
//! | `warning_point`, `warning` | a main tool result or prompt past the warning point; the warning's fate |
//! | `turn_start`, `prompt_submitted`, `appended` | the raw input facts (instead of `natural_input`) |
//!
//! | effect `type` | the shell |
//! | --- | --- |
//! | `tool_result` | answers the `empty_brain` call |
//! | `end_turn` | answers this main `turn.step` with a synthetic `end_turn` |
//! | `compact` | `$.command.run({command:"compact", args: marker})` from `turn.complete` |
//! | `answer_compaction` | answers `session.compact` with boot + handoff (`pool`) |
//! | `veto_compaction` | answers `session.compact` with `{skip}` and a notice |
//! | `native_compaction` | `return next(e)` |
//! | `continue` | `$.prompt.submit` the one continuation |
//! | `closeout` | the budget warning in a hidden turn (`submit`) or the running one |
//! | `warn` | attach the budget warning, report whether it was delivered |
//! | `report` | a one-line notice |
//! | `cancel` | the request ended without a reset: drop work held for it |
//! | `attach_own_boot` | add a fork's own boot to the prompt as hidden context |
//! | `attach_boot`, `log` | (the `hook` op only) add the boot to `prompt.context`; a debug line |
//!
//! The Claude hooks module sends engine hook calls, not events: [`Hook`] (one table) turns
//! each into a sequence of the events above, in one helper call ([`Flow::hook`],
//! [`hook_saved`]).
//!
//! ```
//! use notesoup_reset_flow::{Effect, Event, Flow, step};
//! use serde_json::{Value, json};
//!
//! // The caller keeps the flow between events; a default one is fresh.
//! let mut flow = Some(Flow::default());
//! let mut send = |event: Value| {
//!     let event: Event = serde_json::from_value(event).unwrap();
//!     let reply = step(flow.take().unwrap(), event);
//!     let snapshot = reply.flow.snapshot();
//!     flow = Some(reply.flow);
//!     (reply.effects, snapshot)
//! };
//!
//! send(json!({"type": "session", "generation": 1}));
//! send(json!({"type": "turn_step", "agent": "main", "turn_id": "t1", "index": 0}));
//! let (fx, state) = send(json!({"type": "empty_brain", "agent": "main",
//!                                "args": {"last_word": "finish the parser"}}));
//! assert!(matches!(fx[0], Effect::ToolResult { is_error: false, .. }));
//! assert!(state.end_turn_at_next_main_step);
//!
//! // The whole tool batch ran; the next main step ends the turn without a model request.
//! let (fx, _) = send(json!({"type": "turn_step", "agent": "main", "turn_id": "t1", "index": 1}));
//! assert!(matches!(fx[0], Effect::EndTurn { .. }));
//!
//! // After the turn, the reset worker compacts with its unique marker.
//! let (fx, state) = send(json!({"type": "turn_complete", "agent": "main", "turn_id": "t1",
//!                                "reason": "answer"}));
//! assert_eq!(
//!     serde_json::to_value(&fx[0]).unwrap(),
//!     json!({"type": "compact", "marker": "notesoup-reset g1 r1 a1", "generation": 1})
//! );
//! assert!(state.pending);
//! ```

#![forbid(unsafe_code)]

mod blob;
mod budget;
mod effect;
mod event;
mod flow;
mod hook;
mod saved;

pub use blob::FlowError;
pub use budget::{Budget, Quiet};
pub use flow::{Flow, STATE_VERSION, Snapshot};
pub use hook::{CapAsk, CommandRun, Hook, KeptBoot, Resolve, Watch, hook_saved};
pub use saved::Saved;

pub use effect::{CloseoutMode, CopyVerdict, Effect, Pool};
pub use event::{
    Agent, BootStatus, Command, CommandResult, ContinuationStatus, Delivery, Event, Evidence,
    EvidenceFrom, InputPhase, Measure, Miss, Trigger, TurnEnd,
};

/// The answer to one event: the new state and the effects in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The state to keep (read with [`Flow::snapshot`]; saved as part of a [`Saved`]).
    pub flow: Flow,
    /// What the shell must do, in order.
    pub effects: Vec<Effect>,
}

/// Apply one event to a flow.
pub fn step(mut flow: Flow, event: Event) -> Reply {
    let effects = flow.handle(event);
    Reply { flow, effects }
}

/// One step of a flow kept on disk for a session, across the processes that run it.
///
/// `saved` is what the last step saved, `None` when nothing is saved. `process` names the
/// calling process (any token unique to it). A flow saved by another process is sent
/// [`Event::Loaded`] first (its effects come first in the reply); a saved flow this crate
/// could not read ([`Saved::flow`] `None`) is refused, never misread: the step starts a
/// fresh flow. Returns what to save and the reply.
///
/// ```
/// use notesoup_reset_flow::{Event, step_saved};
///
/// let point = || Event::WarningPoint { tokens: 150_000, point: Some(142_000) };
/// let (saved, reply) = step_saved(None, "p1", point());
/// assert_eq!(reply.effects.len(), 1); // warn
/// let delivered = serde_json::from_str(r#"{"type": "warning", "generation": 0, "status": "delivered"}"#)?;
/// let (saved, reply) = step_saved(Some(&saved), "p1", delivered);
/// assert!(reply.flow.snapshot().warned);
/// // `claude -p --resume`: another process, the same window, no second warning.
/// let (_, reply) = step_saved(Some(&saved), "p2", point());
/// assert!(reply.effects.is_empty());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn step_saved(saved: Option<&Saved>, process: &str, event: Event) -> (Saved, Reply) {
    let (mut flow, mut effects) = load_saved(saved, process);
    effects.extend(flow.handle(event));
    saved_reply(process, flow, effects)
}

/// The saved flow (fresh when nothing readable is saved), and the effects of `loaded` when
/// another process saved it.
fn load_saved(saved: Option<&Saved>, process: &str) -> (Flow, Vec<Effect>) {
    let other_process = saved
        .and_then(|s| s.process.as_deref())
        .is_some_and(|p| p != process);
    let mut flow = saved.and_then(|s| s.flow.clone()).unwrap_or_default();
    let mut effects = Vec::new();
    if other_process {
        effects.extend(flow.handle(Event::Loaded));
    }
    (flow, effects)
}

/// What to save for `process`, and the reply.
fn saved_reply(process: &str, flow: Flow, effects: Vec<Effect>) -> (Saved, Reply) {
    let saved = Saved {
        process: Some(process.to_owned()),
        flow: Some(flow.clone()),
    };
    (saved, Reply { flow, effects })
}

/// What [`step_saved`] takes as `saved` for a session that has no usable record: the flow
/// rebuilt from what the session's transcript says ([`Flow::rebuilt`]), saved by no
/// process (so the first step sends no [`Event::Loaded`]).
///
/// ```
/// use notesoup_window::{WindowFacts, WindowId};
/// use notesoup_reset_flow::{Event, rebuilt_saved, step_saved};
///
/// // The transcript says the session is in window 3 (a record deleted, or a fork).
/// let facts = WindowFacts {
///     window: Some(WindowId::new("claude", "s1", 3)?),
///     boot: Some(WindowId::new("claude", "s1", 3)?),
///     compactions_since_boot: Some(0),
///     forked_from: None,
/// };
/// let saved = rebuilt_saved(&facts);
/// let (_, reply) = step_saved(Some(&saved), "p1", Event::WindowSeen { ordinal: 0 });
/// assert_eq!(reply.flow.snapshot().ordinal, Some(3)); // an older boot never takes it back
/// # Ok::<(), notesoup_window::WindowIdError>(())
/// ```
pub fn rebuilt_saved(facts: &notesoup_window::WindowFacts) -> Saved {
    Saved {
        process: None,
        flow: Some(Flow::rebuilt(facts)),
    }
}

#[cfg(test)]
mod tests;
