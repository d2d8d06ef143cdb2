//! notesoup's reset lifetimes as a pure state machine: [`Event`]s in, [`Effect`]s out.
//!
//! Clearing a window is the riskiest thing notesoup does. All of its decisions live here;
//! a host's adapter keeps the state between calls, turns the host's facts into events, and
//! its shell carries out the effects it gets back.
//!
//! Three lifetimes, and the window they clear:
//! - **Request**: from the first valid `empty_brain` call (or the hard point, or a
//!   person's clear command) until a successful reset or a cancellation. It owns the first
//!   call's sticky note (`last_word`) and continuation policy (`terminate`, default false),
//!   and the manual STOP.
//! - **Commit**: one native compaction attempt and the proof that the host kept the boot.
//! - **Cutoff**: per main turn; ends the turn at its next step with a synthetic `end_turn`.
//! - **Window**: its ordinal (only ever grows: a window is never reopened), the
//!   once-per-window budget warning (delivered only when the host accepted it), the boot a
//!   fork owes itself when its window's boot is its parent's (attached once to its next main
//!   prompt), the runtime cap (survives windows and model changes; a session change or a
//!   new process clears it), and where a person's input stands until a model request
//!   carries it. The state is built to outlive a process: a process that loads it sends
//!   `loaded` first.
//!
//! The crate knows no host. A host's adapter (for Claude Code: `notesoup-claude-hooks`)
//! turns each engine hook into a sequence of [`Event`]s and carries out the [`Effect`]s
//! in order. Each event and effect variant shows its JSON shape; `claude-hooks/EVENTS.md` is
//! the Claude Code shell's whole wiring contract.
//!
//! One rule both adapters call outside the machine: [`unanswered_input`], which of the
//! person's messages at the end of a conversation being compacted no model request answered
//! (what a boot answering an automatic compaction keeps after itself), over the host-neutral
//! [`TailMessage`] each adapter reads its host's messages into.
//!
//! # Invariants
//!
//! - Pure: no IO, no clock, no randomness; the same state and event give the same answer.
//! - No continuation without a confirmed commit (the boot acquired, then the host's proof
//!   that it kept that boot), at most one compaction and one continuation per request.
//! - A person's input is never replayed or overridden, and STOP is never undone.
//! - Subagent events never change the main flow; the cutoff fires only on a main step.
//! - A window ordinal never goes back, and a window is never reopened.
//! - At most one budget warning per window (again only after a drop), none under
//!   `DISABLE_COMPACT`, and none beside a close-out, which carries the same text.
//! - A fork's own boot is attached at most once per window (again only after a drop), only
//!   when owed, only to a main prompt.
//! - The cap changes only by `cap_changed`, `loaded` and a session change.
//! - A state survives its blob; a blob of another version is refused, never misread.
//!
//! The exhaustive explorers (`src/tests/explore.rs`, and the host adapter's hook explorer
//! through `monitor`, a feature for adapters) check these on every sequence of events up to their depth.
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
#[cfg(any(test, feature = "monitor"))]
pub mod monitor;
mod saved;
mod tail;

pub use blob::FlowError;
pub use budget::{Budget, CapAsk, Quiet};
pub use flow::{DISABLE_COMPACT_LOG, Flow, HEADING, Installed, STATE_VERSION, Snapshot};
pub use saved::Saved;

pub use effect::{CloseoutMode, CopyVerdict, Effect, Kept, Pool};
pub use event::{
    Agent, BootStatus, Command, CommandResult, ContinuationStatus, Delivery, Event, Evidence,
    EvidenceFrom, InputPhase, Measure, Miss, Trigger, TurnEnd,
};
pub use tail::{Role, TailMessage, unanswered_input};

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
/// // The outcome names the generation the effect was issued under (the binding's).
/// let generation = reply.flow.generation();
/// let delivered = serde_json::from_value(
///     serde_json::json!({"type": "warning", "generation": generation, "status": "delivered"}))?;
/// let (saved, reply) = step_saved(Some(&saved), "p1", delivered);
/// assert!(reply.flow.snapshot().warned);
/// // A resumed session: another process, the same window, no second warning.
/// let (_, reply) = step_saved(Some(&saved), "p2", point());
/// assert!(reply.effects.is_empty());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn step_saved(saved: Option<&Saved>, process: &str, event: Event) -> (Saved, Reply) {
    with_saved(saved, process, |flow| flow.handle(event))
}

/// Several events of one host call on a flow kept on disk, as [`step_saved`] takes one:
/// `apply` sends them to the loaded flow (after [`Event::Loaded`] when another process
/// saved it) and returns their effects in order. Returns what to save and the reply.
///
/// ```
/// use notesoup_reset_flow::{Event, with_saved};
///
/// let (saved, reply) = with_saved(None, "p1", |flow| {
///     let mut fx = flow.handle(Event::WindowSeen { ordinal: 2 });
///     fx.extend(flow.handle(Event::CapChanged { cap: Some(100_000) }));
///     fx
/// });
/// assert!(reply.effects.is_empty());
/// assert_eq!(saved.flow.map(|f| f.snapshot().cap), Some(Some(100_000)));
/// ```
pub fn with_saved(
    saved: Option<&Saved>,
    process: &str,
    apply: impl FnOnce(&mut Flow) -> Vec<Effect>,
) -> (Saved, Reply) {
    let other_process = saved
        .and_then(|s| s.process.as_deref())
        .is_some_and(|p| p != process);
    let mut flow = saved.and_then(|s| s.flow.clone()).unwrap_or_default();
    let mut effects = Vec::new();
    if other_process {
        effects.extend(flow.handle(Event::Loaded));
    }
    // The binding's generation, from its first step on: what an earlier binding (or another
    // session's, misrouted after a session change) issued names another one and is ignored.
    flow.bind(binding_generation(process));
    effects.extend(apply(&mut flow));
    let saved = Saved {
        process: Some(process.to_owned()),
        flow: Some(flow.clone()),
    };
    (saved, Reply { flow, effects })
}

/// The generation of a flow stepped by `binding`, the token [`with_saved`] takes: the
/// calling process and the session it steps, between two session changes (the host's
/// shell starts a new token at `/clear`, `/resume`, a session's end). Distinct tokens give
/// distinct generations (a 64-bit FNV-1a hash kept to 53 bits, so it passes through a
/// JavaScript number unchanged; never 0, the generation of a flow never bound), so an
/// outcome of work issued under one binding is ignored by the flow of any other: a late
/// compaction result, continuation or close-out outcome that the shell sends to whichever
/// session the engine names when it settles.
///
/// ```
/// use notesoup_reset_flow::binding_generation;
/// let a = binding_generation("s1\np1:0");
/// assert_eq!(a, binding_generation("s1\np1:0"));
/// assert_ne!(a, binding_generation("s2\np1:0")); // another session, the same process
/// assert_ne!(a, binding_generation("s1\np1:1")); // the same session, bound again
/// assert!(a > 0 && a < 1 << 53);
/// ```
pub fn binding_generation(binding: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    const SAFE: u64 = (1 << 53) - 1;
    let hash = binding
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    match hash & SAFE {
        0 => 1,
        g => g,
    }
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
