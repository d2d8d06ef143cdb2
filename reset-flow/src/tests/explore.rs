//! The exhaustive explorer: every sequence of events from a finite alphabet, up to
//! [`DEPTH`] events, from a fresh flow; the invariants are checked on every transition.
//!
//! States are deduplicated per layer (a canonical flow plus the monitor's own record of the
//! path), and each distinct state carries how many event sequences reach it, so the number
//! of paths checked is exact while the work stays proportional to the distinct states.
//!
//! The monitor ([`Ghost`]) tracks what the *events and effects* say happened, not the
//! flow's internals, and checks:
//! - no continuation without a confirmed commit (boot acquired, then the boundary and the
//!   intact boot with the same UUID, or the boot in the messages);
//! - at most one compaction per request (no second worker compaction or admission once the
//!   window changed for it; none while one is in flight; none after auto consumed it), and
//!   a manual compaction is admitted only with the marker of the worker's own command;
//! - a close-out that could not start cancels its request;
//! - never two continuations (one per request, one per confirmed commit);
//! - subagent events never change the main flow;
//! - STOP is never undone;
//! - natural input is never replayed or overridden (no end of a turn that carries it, no
//!   continuation or close-out submission over it, no reset work while it is undelivered);
//! - the cutoff fires only on a main step (index > 0) and the worker only after a
//!   successful main turn;
//! - a fork's own boot: owed only when another session's boot names the current window,
//!   attached at most once per window (again only after a drop), only to a main prompt; a
//!   copy of the open window is rebuilt only while no own boot is out, and left out only
//!   once one is;
//! - every state survives its blob, and the snapshot agrees with it.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::flow::{Commit, Flow};
use crate::{Agent, Effect, Event, Trigger};

const DEPTH: usize = 8;
/// The window explorer's depth: its alphabet mixes the window's events with the reset
/// events that move a window, so it reaches a reset's whole commit and beyond.
const WINDOW_DEPTH: usize = 8;

/// Print a figure in the test output even when it is captured: libtest captures the print
/// macros, not a direct write to stderr.
fn report(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\n{line}");
}

/// Concrete events, with the JSON each was parsed from (for the failure report).
type Alphabet = Vec<(Value, Event)>;

/// The alphabet, made concrete against the state it applies to (the live generation and the
/// worker's live marker are the only symbolic parts). One event stands for each class the
/// flow tells apart: `aborted`/`refusal` take `error`'s path, `dropped`/`failed` share one,
/// `/empty` and `/fresh-window` differ only in the notice; the rstest tables cover those.
fn alphabet(flow: &Flow) -> Vec<Value> {
    let mut all = reset_alphabet(flow);
    all.extend(window_alphabet(flow));
    all
}

/// The events of the reset lifetimes (request, cutoff, commit).
fn reset_alphabet(flow: &Flow) -> Vec<Value> {
    let g = flow.generation();
    let marker = flow
        .expected_marker()
        .unwrap_or_else(|| "notesoup-reset g9 r9 a9".to_owned());
    let over = json!({"tokens": 2000, "hard": 1000, "auto_clear": true});
    vec![
        json!({"type": "empty_brain", "agent": "main", "args": {}}),
        json!({"type": "empty_brain", "agent": "main", "args": {"terminate": true, "last_word": "w"}}),
        json!({"type": "empty_brain", "agent": "main", "args": {"terminate": "yes"}}),
        json!({"type": "empty_brain", "agent": "subagent", "args": {}}),
        json!({"type": "turn_step", "agent": "main", "turn_id": "t1", "index": 0}),
        json!({"type": "turn_step", "agent": "main", "turn_id": "t1", "index": 1}),
        json!({"type": "turn_step", "agent": "main", "turn_id": "t1", "index": 1, "context": over}),
        json!({"type": "turn_step", "agent": "main", "turn_id": "t2", "index": 0}),
        json!({"type": "turn_step", "agent": "subagent", "turn_id": "s", "index": 1, "context": over}),
        json!({"type": "turn_complete", "agent": "main", "turn_id": "t1", "reason": "answer"}),
        json!({"type": "turn_complete", "agent": "main", "turn_id": "t1", "reason": "answer", "context": over}),
        json!({"type": "turn_complete", "agent": "main", "turn_id": "t1", "reason": "error"}),
        json!({"type": "turn_complete", "agent": "subagent", "turn_id": "s", "reason": "answer", "context": over}),
        json!({"type": "measured", "tokens": 2000, "hard": 1000, "auto_clear": true}),
        json!({"type": "natural_input", "phase": "accepted"}),
        json!({"type": "natural_input", "phase": "delivered"}),
        json!({"type": "natural_input", "phase": "queued"}),
        json!({"type": "command", "command": "empty", "busy": false}),
        json!({"type": "command", "command": "fresh_window", "busy": true}),
        json!({"type": "closeout", "generation": g, "status": "failed"}),
        json!({"type": "compaction", "agent": "main", "trigger": "manual", "instructions": marker}),
        json!({"type": "compaction", "agent": "main", "trigger": "manual", "instructions": "keep the plan"}),
        json!({"type": "compaction", "agent": "main", "trigger": "auto"}),
        json!({"type": "compaction", "agent": "subagent", "trigger": "auto"}),
        json!({"type": "compaction", "agent": "main", "trigger": "precompute"}),
        json!({"type": "compaction_result", "generation": g, "status": "ok"}),
        json!({"type": "compaction_result", "generation": g, "status": "failed"}),
        // The boot's text is kept by the flow, and evidence given a text is matched by it
        // (evidence without a text is the shell's `intact` claim).
        json!({"type": "boot", "generation": g, "status": "acquired", "uuid": "B", "text": "T"}),
        json!({"type": "boot", "generation": g, "status": "failed"}),
        json!({"type": "commit_evidence", "generation": g, "source": "append", "evidence": "boundary"}),
        json!({"type": "commit_evidence", "generation": g, "source": "append", "evidence": "boot", "uuid": "B", "intact": true}),
        json!({"type": "commit_evidence", "generation": g, "source": "messages", "evidence": "boot", "uuid": "B", "intact": true}),
        json!({"type": "commit_evidence", "generation": g, "source": "append", "evidence": "boot", "uuid": "B", "intact": false}),
        json!({"type": "commit_evidence", "generation": g, "source": "messages", "evidence": "boot", "uuid": "X", "intact": true}),
        json!({"type": "commit_evidence", "generation": g, "source": "messages", "evidence": "missing"}),
        json!({"type": "commit_evidence", "generation": g + 7, "source": "messages", "evidence": "boot", "uuid": "B", "intact": true}),
        json!({"type": "continuation", "generation": g, "status": "started"}),
        json!({"type": "continuation", "generation": g, "status": "dropped"}),
        json!({"type": "session", "generation": g + 1}),
        json!({"type": "cap_changed", "cap": 100_000}),
        json!({"type": "disable_compact", "set": true}),
        json!({"type": "commit_evidence", "generation": g, "source": "messages", "evidence": "boot", "uuid": "B", "intact": true, "text": "X"}),
        json!({"type": "commit_evidence", "generation": g, "source": "append", "evidence": "boot", "uuid": "B", "intact": false, "text": "T\n"}),
    ]
}

/// The window's events: ordinal, warning, cap, a new process, raw input facts.
fn window_alphabet(flow: &Flow) -> Vec<Value> {
    let g = flow.generation();
    vec![
        json!({"type": "loaded"}),
        json!({"type": "window_seen", "ordinal": 0}),
        json!({"type": "window_seen", "ordinal": 2}),
        json!({"type": "boot_copy", "session": "s1", "text": "<notesoup-boot window=\"claude:s1:0\">\n</notesoup-boot>"}),
        json!({"type": "boot_copy", "session": "s1", "text": "<notesoup-boot window=\"claude:s0:2\">\n</notesoup-boot>"}),
        json!({"type": "native_compacted", "agent": "main"}),
        json!({"type": "warning_point", "tokens": 2000, "point": 1000}),
        json!({"type": "warning", "generation": g, "status": "delivered"}),
        json!({"type": "warning", "generation": g, "status": "dropped"}),
        json!({"type": "cap_changed", "cap": null}),
        json!({"type": "turn_start", "agent": "main", "turn_id": "t2"}),
        json!({"type": "prompt_submitted", "natural": true}),
        json!({"type": "appended", "agent": "main", "door": "queue"}),
        json!({"type": "copied_boot", "ordinal": 0}),
        json!({"type": "copied_boot", "ordinal": 2}),
        json!({"type": "prompt_out"}),
        json!({"type": "own_boot", "generation": g, "status": "delivered"}),
        json!({"type": "own_boot", "generation": g, "status": "dropped"}),
    ]
}

/// The window alphabet with the reset events that move a window.
fn window_focus(flow: &Flow) -> Vec<Value> {
    let mut all = reset_alphabet(flow);
    // empty_brain, main steps 0/1 of t1, the successful completion, the worker's and an
    // auto compaction, the boot (with its text), the boundary, the boot row, evidence
    // that rewrote it, a failed compaction, a session change, a cap, DISABLE_COMPACT.
    let keep = [0, 4, 5, 9, 20, 22, 26, 27, 29, 30, 41, 38, 39, 40];
    all = keep.iter().map(|&i| all[i].clone()).collect();
    all.extend(window_alphabet(flow));
    all
}

/// What the path so far says happened, from events and effects alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "a monitor's record: one flag per fact an invariant needs"
)]
struct Ghost {
    // Session-scoped.
    turn: Option<&'static str>,
    natural_in_turn: bool,
    undelivered: bool,
    // Request-scoped (reset when the request ends).
    stopped: bool,
    natural: bool,
    continued: bool,
    worker_in_flight: bool,
    /// A close-out was asked for this request.
    closeout: bool,
    /// The marker the last `compact` effect carried.
    marker: Option<String>,
    consumed: bool,
    request_answered: bool,
    installed: bool,
    boundary: bool,
    window_changed: bool,
    confirmed: bool,
    /// The boot's text was given with its `boot` event (`T`).
    boot_text: bool,
    /// The ordinal the last `answer_compaction` promised.
    promised: Option<u32>,
    // Window-scoped.
    /// The window ordinal the events named (boots returned, seen, native compactions).
    ordinal: Option<u32>,
    /// A warning was offered and its fate is not known.
    offered: bool,
    /// The warning was delivered in this window.
    warned: bool,
    /// The cap as last accepted (cleared by a new process and a session change).
    cap: Option<u64>,
    /// This window's boot is another session's and no own boot is out: one is owed.
    own_owed: bool,
    /// An own boot was attached (or a copy rebuilt) and its fate is not known.
    own_offered: bool,
    /// An own boot was delivered in this window.
    own_delivered: bool,
    // Input, from the raw facts.
    waiting: Option<crate::InputPhase>,
    stepped: bool,
}

impl Ghost {
    fn end_request(&mut self) {
        *self = Ghost {
            turn: self.turn,
            natural_in_turn: self.natural_in_turn,
            undelivered: self.undelivered,
            ordinal: self.ordinal,
            offered: self.offered,
            warned: self.warned,
            cap: self.cap,
            own_owed: self.own_owed,
            own_offered: self.own_offered,
            own_delivered: self.own_delivered,
            waiting: self.waiting,
            stepped: self.stepped,
            promised: self.promised,
            ..Ghost::default()
        };
    }

    /// Enter a newer window: its warning is owed again.
    fn advance(&mut self, ordinal: u32) {
        if self.ordinal.is_none_or(|n| ordinal > n) {
            self.ordinal = Some(ordinal);
            self.offered = false;
            self.warned = false;
            self.own_owed = false;
            self.own_offered = false;
            self.own_delivered = false;
        }
    }

    /// An own boot of the current window is out or delivered.
    fn own_out(&self) -> bool {
        self.own_offered || self.own_delivered
    }
}

fn turn_name(id: &str) -> &'static str {
    if id == "t1" { "t1" } else { "t2" }
}

/// For an alphabet without absolute window facts (no `window_seen`, no raw input): the
/// window ordinal only matters relative to itself, so every ordinal past 1 is folded onto
/// 1 (with the ordinal an answered boot opens, one past it), and `stepped` only matters
/// to raw input events, so it is dropped. The monitor's record is folded the same way.
fn fold_window(mut flow: Flow, mut ghost: Ghost) -> (Flow, Ghost) {
    let fold = |n: Option<u32>| n.map(|n| n.min(1));
    flow.window.ordinal = fold(flow.window.ordinal);
    flow.opening = flow
        .opening
        .map(|_| flow.window.ordinal.map_or(1, |n| n + 1));
    flow.stepped = false;
    ghost.ordinal = fold(ghost.ordinal);
    ghost.promised = flow.opening;
    ghost.stepped = false;
    (flow, ghost)
}

/// The flow with its counters zeroed: behaviour does not depend on their values (the
/// alphabet resolves the generation and the marker against the live state).
fn canonical(mut flow: Flow) -> Flow {
    flow.generation = 0;
    flow.next_request = 1;
    if let Some(r) = &mut flow.request {
        r.id = 1;
        flow.next_request = 2;
    }
    if let Some(Commit {
        request, marker, ..
    }) = &mut flow.commit
    {
        *request = 1;
        if let Some(m) = marker {
            m.generation = 0;
            m.request = 1;
        }
    }
    flow
}

#[allow(
    clippy::too_many_lines,
    reason = "one monitor step: every invariant in one place, in the order the doc lists them"
)]
fn check(
    pre: &Flow,
    ghost: &Ghost,
    event: &Event,
    post: &Flow,
    fx: &[Effect],
) -> Result<Ghost, String> {
    let mut g = ghost.clone();
    let has = |f: &dyn Fn(&Effect) -> bool| fx.iter().any(f);

    // The snapshot (the blob round trip is checked once per distinct state, below).
    let snap = post.snapshot();
    if snap.pending != post.request.is_some() || snap.generation != post.generation() {
        return Err(format!("the snapshot disagrees with the state: {snap:?}"));
    }

    // Subagent events never change the main flow.
    let subagent = matches!(
        event,
        Event::EmptyBrain {
            agent: Agent::Subagent,
            ..
        } | Event::TurnStep {
            agent: Agent::Subagent,
            ..
        } | Event::TurnComplete {
            agent: Agent::Subagent,
            ..
        } | Event::Compaction {
            agent: Agent::Subagent,
            ..
        }
    );
    if subagent {
        let harmless = fx.iter().all(|e| {
            matches!(
                e,
                Effect::ToolResult { is_error: true, .. } | Effect::NativeCompaction
            )
        });
        if pre != post || !harmless {
            return Err(format!("a subagent event changed the main flow: {fx:?}"));
        }
        return Ok(g);
    }

    // A main step or start of another turn starts that turn's record.
    if let Event::TurnStep {
        agent: Agent::Main,
        turn_id,
        ..
    }
    | Event::TurnStart {
        agent: Agent::Main,
        turn_id,
    } = event
    {
        let name = turn_name(turn_id);
        if g.turn != Some(name) {
            g.natural_in_turn = false;
        }
        g.turn = Some(name);
        if matches!(event, Event::TurnStart { .. }) {
            g.stepped = false;
        }
    }

    // The window: never reopened, never goes back; a boot returned opens the promised one.
    for e in fx {
        if let Effect::AnswerCompaction { ordinal, .. } = e {
            if g.ordinal.is_some_and(|n| *ordinal <= n) {
                return Err(format!("answer_compaction reopens window {ordinal}"));
            }
            g.promised = Some(*ordinal);
        }
    }
    match event {
        Event::Boot {
            generation,
            status: crate::BootStatus::Acquired,
            uuid: Some(_),
            ..
        } if *generation == pre.generation() && pre.answering.is_some() => {
            let promised = g.promised.ok_or("a boot acquired for no answer")?;
            g.advance(promised);
        }
        Event::WindowSeen { ordinal } => g.advance(*ordinal),
        // A boot copy that stands names the window; only a closed window's copy is dropped.
        // A fork's: another session's copy of the open window is rebuilt while no own boot
        // is out (the rebuilt copy is the own boot, offered), and left out once one is.
        Event::BootCopy { session, text } => {
            let foreign = notesoup_window::marker::boot_block(text)
                .is_some_and(|(w, _)| w.session() != session);
            for e in fx {
                if let Effect::BootCopy {
                    verdict, ordinal, ..
                } = e
                {
                    let open = g.ordinal.is_none_or(|n| *ordinal >= n);
                    if *verdict != crate::CopyVerdict::Drop {
                        // A copy that stands names the window (a newer one owes nothing yet).
                        g.advance(*ordinal);
                    }
                    match verdict {
                        crate::CopyVerdict::Drop if open && !(foreign && g.own_out()) => {
                            return Err(format!("the boot copy of open window {ordinal} dropped"));
                        }
                        crate::CopyVerdict::Rebuild if !foreign || g.own_out() => {
                            return Err(format!(
                                "a second own boot of window {ordinal} (a copy rebuilt)"
                            ));
                        }
                        crate::CopyVerdict::Rebuild => {
                            g.own_owed = false;
                            g.own_offered = true;
                        }
                        crate::CopyVerdict::Keep if foreign => {
                            return Err("another session's copy kept".into());
                        }
                        crate::CopyVerdict::Drop | crate::CopyVerdict::Keep => {}
                    }
                }
            }
        }
        Event::CopiedBoot { ordinal } => {
            g.advance(*ordinal);
            if g.ordinal == Some(*ordinal) && !g.own_out() {
                g.own_owed = true;
            }
        }
        Event::NativeCompacted { agent: Agent::Main } => {
            if let Some(n) = g.ordinal {
                g.advance(n + 1);
            }
        }
        _ => {}
    }

    // The warning: offered only past its point, once per window (again only after a drop).
    if has(&|e| matches!(e, Effect::Warn { .. })) {
        if !matches!(event, Event::WarningPoint { .. }) {
            return Err("warn outside a warning point".into());
        }
        if g.warned || g.offered {
            return Err("a second warning in one window".into());
        }
        if pre.disable_compact {
            return Err("a warning under DISABLE_COMPACT".into());
        }
        g.offered = true;
    }
    if let Event::Warning { generation, status } = event
        && *generation == pre.generation()
        && g.offered
    {
        g.offered = false;
        g.warned = *status == crate::Delivery::Delivered;
    }
    if let Event::CapChanged { cap } = event {
        g.cap = *cap;
    }

    // A fork's own boot: only to a main prompt, only when owed, once per window (again
    // only after a drop), naming the current window.
    for e in fx {
        if let Effect::AttachOwnBoot { ordinal, .. } = e {
            if !matches!(event, Event::PromptOut) {
                return Err("attach_own_boot outside a prompt".into());
            }
            if !g.own_owed || g.own_out() {
                return Err("an own boot attached that was not owed".into());
            }
            if g.ordinal != Some(*ordinal) {
                return Err(format!(
                    "an own boot of window {ordinal}, not the current one"
                ));
            }
            g.own_owed = false;
            g.own_offered = true;
        }
    }
    if let Event::OwnBoot { generation, status } = event
        && *generation == pre.generation()
        && g.own_offered
    {
        g.own_offered = false;
        g.own_delivered = *status == crate::Delivery::Delivered;
        g.own_owed = !g.own_delivered;
    }

    // A request born of this event starts a fresh record.
    if pre.request.is_none() && post.request.is_some() {
        let keep = g.clone();
        g.end_request();
        // Input that a completed turn carried does not own a reset born after it.
        let turn_over = matches!(event, Event::TurnComplete { .. });
        g.natural = (keep.natural_in_turn && !turn_over) || keep.undelivered;
        g.stopped = matches!(event, Event::Command { .. });
    }

    // The cutoff fires only on a main step after the first, never over natural input.
    if has(&|e| matches!(e, Effect::EndTurn { .. })) {
        if !matches!(event, Event::TurnStep { agent: Agent::Main, index, .. } if *index > 0) {
            return Err("end_turn outside a main step".into());
        }
        if g.natural_in_turn {
            return Err("end_turn over natural input in this turn".into());
        }
    }

    // Reset work starts only after a successful main turn, never over undelivered input,
    // and at most once per request.
    if has(&|e| matches!(e, Effect::Compact { .. })) {
        if !matches!(
            event,
            Event::TurnComplete {
                agent: Agent::Main,
                reason: crate::TurnEnd::Answer,
                ..
            }
        ) {
            return Err("compact outside a successful main turn completion".into());
        }
        if g.undelivered {
            return Err("reset work started over undelivered natural input".into());
        }
        if g.worker_in_flight || g.consumed || g.window_changed {
            return Err("a second compaction for one request".into());
        }
        g.worker_in_flight = true;
        g.marker = fx.iter().find_map(|e| match e {
            Effect::Compact { marker, .. } => Some(marker.clone()),
            _ => None,
        });
    }
    let answered = fx
        .iter()
        .any(|e| matches!(e, Effect::AnswerCompaction { .. }));
    if let Event::Compaction {
        trigger,
        instructions,
        ..
    } = event
    {
        match trigger {
            Trigger::Manual | Trigger::Plugin if answered => {
                if !g.worker_in_flight
                    || g.window_changed
                    || g.request_answered
                    || *instructions != g.marker
                {
                    return Err("a compaction admitted without its own worker attempt".into());
                }
                g.request_answered = true;
            }
            // The request's first compaction, or a retry of one whose boot never reported
            // (its hook did not finish): auto consumes the request.
            Trigger::Auto
                if answered
                    && pre.request.is_some()
                    && !g.window_changed
                    && !g.installed
                    && (!g.consumed || g.request_answered) =>
            {
                g.consumed = true;
                g.request_answered = true;
            }
            _ => {}
        }
    }
    if let Event::Boot {
        status, generation, ..
    } = event
        && *generation == pre.generation()
        && g.request_answered
        && !g.installed
    {
        if *status == crate::BootStatus::Acquired {
            g.installed = true;
            g.boot_text = matches!(event, Event::Boot { text: Some(_), .. });
        } else if post.request.is_some() {
            return Err("a failed boot left the request standing".into());
        }
    }
    if let Event::CommitEvidence {
        generation,
        source,
        evidence,
        uuid,
        intact,
        text,
    } = event
        && *generation == pre.generation()
        && g.installed
    {
        g.window_changed = true;
        // Given the row's text and the boot's, the texts decide, not the shell's claim.
        let intact = match text {
            Some(seen) if g.boot_text => seen.trim_end() == "T",
            _ => *intact,
        };
        match evidence {
            crate::Evidence::Boundary if *source == crate::EvidenceFrom::Append => {
                g.boundary = true;
            }
            crate::Evidence::Boot
                if intact
                    && uuid.as_deref() == Some("B")
                    && (g.boundary || *source == crate::EvidenceFrom::Messages) =>
            {
                g.confirmed = true;
            }
            _ => {}
        }
    }
    if let Event::CompactionResult {
        generation, status, ..
    } = event
        && *generation == pre.generation()
        && g.worker_in_flight
        && !g.consumed
        && !g.window_changed
        && (*status == crate::CommandResult::Failed || !g.installed)
    {
        // The attempt did not take: a retry is allowed.
        g.worker_in_flight = false;
        g.request_answered = false;
        g.installed = false;
    }

    // A close-out that could not start cancels its request (so the command can be retried).
    if has(&|e| matches!(e, Effect::Closeout { .. })) {
        g.closeout = true;
    }
    if let Event::Closeout { generation, .. } = event
        && *generation == pre.generation()
        && g.closeout
        && !g.worker_in_flight
        && !g.consumed
        && post.request.is_some()
    {
        return Err("a close-out that could not start left its request standing".into());
    }

    // Continuations: only after a confirmed commit, once, never over STOP or natural input.
    let continued = fx
        .iter()
        .filter(|e| matches!(e, Effect::Continue { .. }))
        .count();
    if continued > 0 {
        if continued > 1 || g.continued {
            return Err("two continuations".into());
        }
        if !g.confirmed {
            return Err("a continuation without a confirmed commit".into());
        }
        if g.stopped {
            return Err("a continuation after STOP".into());
        }
        if g.natural || g.undelivered {
            return Err("a continuation over natural input".into());
        }
        if post.main_turn.is_some() {
            return Err("a continuation while a main turn runs".into());
        }
        g.continued = true;
    }
    if has(&|e| {
        matches!(
            e,
            Effect::Closeout {
                mode: crate::CloseoutMode::Submit,
                ..
            }
        )
    }) && (g.undelivered || pre.main_turn.is_some())
    {
        return Err("a close-out turn submitted over a running turn or natural input".into());
    }

    // Session-scoped facts.
    match event {
        Event::TurnComplete {
            agent: Agent::Main, ..
        } => {
            g.turn = None;
            g.natural_in_turn = false;
        }
        Event::NaturalInput { phase } => {
            if g.turn.is_some() && *phase == crate::InputPhase::Accepted {
                g.natural_in_turn = true;
            }
            g.undelivered = *phase != crate::InputPhase::Delivered;
            if pre.request.is_some() {
                g.natural = true;
            }
        }
        Event::Session { generation } if *generation != pre.generation() => {
            g = Ghost::default();
            return Ok(g);
        }
        Event::Loaded => {
            // The process that held the turn, the offer and the cap is gone.
            if post.main_turn.is_some()
                || post.cutoff.is_some()
                || post.commit.is_some()
                || post.disable_compact
            {
                return Err("work of the old process survived a new process".into());
            }
            g.turn = None;
            g.natural_in_turn = false;
            g.undelivered = false;
            g.waiting = None;
            g.stepped = false;
            g.offered = false;
            g.cap = None;
            if g.own_offered {
                g.own_offered = false;
                g.own_owed = true;
            }
        }
        Event::PromptSubmitted { natural: true } => {
            g.waiting = Some(crate::InputPhase::Queued);
            g.undelivered = true;
            if pre.request.is_some() {
                g.natural = true;
            }
        }
        Event::Appended {
            agent: Agent::Main,
            door,
        } if (door == "queue" || door == "prompt")
            && g.turn.is_some()
            && g.stepped
            && g.waiting == Some(crate::InputPhase::Queued) =>
        {
            g.waiting = Some(crate::InputPhase::Accepted);
            g.natural_in_turn = true;
            if pre.request.is_some() {
                g.natural = true;
            }
        }
        Event::TurnStep {
            agent: Agent::Main,
            index,
            ..
        } if !has(&|e| matches!(e, Effect::EndTurn { .. })) => {
            g.stepped = true;
            let carried = match g.waiting {
                Some(crate::InputPhase::Accepted) => true,
                Some(crate::InputPhase::Queued) => *index == 0,
                _ => false,
            };
            if carried {
                g.waiting = None;
                g.undelivered = false;
                if post.request.is_some() {
                    g.natural = true;
                }
            }
        }
        _ => {}
    }

    // The flow's own-boot state agrees with the record.
    let own = match post.window.own_boot {
        crate::flow::OwnBoot::None => (false, false, false),
        crate::flow::OwnBoot::Owed => (true, false, false),
        crate::flow::OwnBoot::Offered => (false, true, false),
        crate::flow::OwnBoot::Delivered => (false, false, true),
    };
    if own != (g.own_owed, g.own_offered, g.own_delivered) || snap.boot_owed != g.own_owed {
        return Err(format!(
            "the own boot disagrees with the events: {:?}, expected owed {}, offered {}, delivered {}",
            post.window.own_boot, g.own_owed, g.own_offered, g.own_delivered
        ));
    }

    // What the snapshot says about the window agrees with the record.
    if snap.ordinal != g.ordinal || snap.warned != g.warned || snap.cap != g.cap {
        return Err(format!(
            "the window disagrees with the events: {snap:?}, expected ordinal {:?}, warned {}, cap {:?}",
            g.ordinal, g.warned, g.cap
        ));
    }

    // Request lifetime and STOP.
    match (pre.request.is_some(), post.request.is_some()) {
        (true, false) => g.end_request(),
        (true, true) if matches!(event, Event::Command { .. }) => g.stopped = true,
        _ => {}
    }
    if post.request.is_some() && g.stopped && !snap.stop {
        return Err("STOP was undone".into());
    }
    if post.request.is_some() && (g.natural || g.undelivered) && !snap.stop {
        return Err("natural input was overridden: the request would continue".into());
    }
    Ok(g)
}

/// One layer of an explorer: each distinct (canonical state, monitor) pair, how many event
/// sequences reach it and the first one that did.
type Layer = HashMap<(Flow, Ghost), (u128, Vec<String>)>;

/// Adds `key` to the next layer, reached by `count` more sequences (`trail` then `raw`);
/// the first time a state is reached, it must survive its blob.
fn reach(next: &mut Layer, key: (Flow, Ghost), count: u128, trail: &[String], raw: &Value) {
    let entry = next.entry(key).or_insert_with_key(|(post, _)| {
        assert_eq!(
            Flow::from_blob(&post.to_blob()).as_ref(),
            Ok(post),
            "the state does not survive its blob; path: {trail:#?} then {raw}"
        );
        let mut trail = trail.to_vec();
        trail.push(raw.to_string());
        (0, trail)
    });
    entry.0 += count;
}

/// Every sequence of `alphabet`'s events up to `depth` from a fresh flow; returns the
/// figures line.
fn explore(
    name: &str,
    depth: usize,
    alphabet: fn(&Flow) -> Vec<Value>,
    fold: fn(Flow, Ghost) -> (Flow, Ghost),
) -> String {
    // Layers hold canonical flows only: behaviour does not depend on the counters, and the
    // alphabet is resolved against the canonical state itself.
    let mut layer: Layer = HashMap::new();
    layer.insert((canonical(Flow::new(1)), Ghost::default()), (1, Vec::new()));
    let mut states = layer.len();
    let mut paths: u128 = 0;
    let mut transitions: u64 = 0;
    let mut width = 0;
    // The alphabet depends only on the generation and the live marker: parse it once each.
    let mut alphabets: HashMap<(u64, Option<String>), Alphabet> = HashMap::new();
    for _ in 0..depth {
        let mut next: Layer = HashMap::new();
        for ((flow, ghost), (count, trail)) in &layer {
            let events = alphabets
                .entry((flow.generation(), flow.expected_marker()))
                .or_insert_with(|| {
                    alphabet(flow)
                        .into_iter()
                        .map(|raw| {
                            let event =
                                serde_json::from_value(raw.clone()).expect("alphabet parses");
                            (raw, event)
                        })
                        .collect()
                });
            width = events.len();
            for (raw, event) in events.iter() {
                let mut post = flow.clone();
                let fx = post.handle(event.clone());
                transitions += 1;
                let ghost = check(flow, ghost, event, &post, &fx).unwrap_or_else(|why| {
                    panic!(
                        "invariant broken: {why}\npath: {trail:#?}\nthen: {raw}\neffects: {fx:?}"
                    )
                });
                paths += count;
                reach(&mut next, fold(canonical(post), ghost), *count, trail, raw);
            }
        }
        states += next.len();
        layer = next;
    }
    assert!(paths > (width as u128).pow(u32::try_from(depth).unwrap()));
    format!(
        "reset-flow explorer ({name}): depth {depth}, alphabet {width} events, {states} distinct states, {transitions} transitions, {paths} event sequences (all prefixes) checked"
    )
}

#[test]
fn every_event_sequence_keeps_the_invariants() {
    report(&explore(
        "reset lifetimes",
        DEPTH,
        reset_alphabet,
        fold_window,
    ));
}

#[test]
fn every_window_sequence_keeps_the_invariants() {
    report(&explore("window", WINDOW_DEPTH, window_focus, |f, g| {
        (f, g)
    }));
}

/// Beyond the exhaustive depth: long walks (fixed-seed, so every run checks the same
/// sequences) through the same alphabet and monitor, where retries, several requests in a
/// row and session changes pile up. Most picks come from the events that move a reset
/// forward, so walks reach commits and continuations, not only disruptions.
#[test]
fn long_walks_keep_the_invariants() {
    const WALKS: usize = 400;
    const LENGTH: usize = 60;
    /// Alphabet indices of `empty_brain`, the main steps and completion, the marker and auto
    /// compactions, the boot, the boundary and the boot rows.
    const FORWARD: [usize; 10] = [0, 4, 5, 9, 20, 22, 27, 29, 30, 31];
    let mut seed: u64 = 0x005e_ed0f_500b;
    let mut next = move |n: usize| {
        // A 64-bit LCG (Knuth's MMIX constants): deterministic and plenty for picking.
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(seed >> 33).unwrap() % n
    };
    let mut alphabets: HashMap<(u64, Option<String>), Alphabet> = HashMap::new();
    let (mut continued, mut steps) = (0, 0);
    for _ in 0..WALKS {
        let mut flow = Flow::new(1);
        let mut ghost = Ghost::default();
        let mut trail = Vec::new();
        for _ in 0..LENGTH {
            let events = alphabets
                .entry((flow.generation(), flow.expected_marker()))
                .or_insert_with(|| {
                    alphabet(&flow)
                        .into_iter()
                        .map(|raw| (raw.clone(), serde_json::from_value(raw).unwrap()))
                        .collect()
                });
            let pick = if next(6) == 0 {
                next(events.len())
            } else {
                FORWARD[next(FORWARD.len())]
            };
            let (raw, event) = &events[pick];
            let mut post = flow.clone();
            let fx = post.handle(event.clone());
            steps += 1;
            continued += fx
                .iter()
                .filter(|e| matches!(e, Effect::Continue { .. }))
                .count();
            ghost = check(&flow, &ghost, event, &post, &fx).unwrap_or_else(|why| {
                panic!("invariant broken: {why}\npath: {trail:#?}\nthen: {raw}\neffects: {fx:?}")
            });
            trail.push(raw.to_string());
            flow = post;
        }
    }
    report(&format!(
        "reset-flow long walks: {WALKS} walks of {LENGTH} events ({steps} transitions), {continued} continuations"
    ));
    assert!(continued > 0, "the walks reach confirmed commits");
}

// ---- the hook layer: every sequence of engine hook calls -------------------------------

use std::cell::RefCell;

use crate::{Budget, CapAsk, Hook, KeptBoot, Pool, Resolve};

/// One event a hook call handled: the state before, the event, the state after, its effects.
type Traced = (Flow, Event, Flow, Vec<Effect>);

thread_local! {
    /// The events the hook layer handled in this thread since the last `take_trace`.
    static TRACE: RefCell<Vec<Traced>> = const { RefCell::new(Vec::new()) };
}

/// Called by the hook layer (tests only) for every event it hands the flow.
pub(crate) fn record(pre: Flow, event: Event, post: Flow, fx: Vec<Effect>) {
    TRACE.with(|t| t.borrow_mut().push((pre, event, post, fx)));
}

fn take_trace() -> Vec<Traced> {
    TRACE.with(|t| std::mem::take(&mut *t.borrow_mut()))
}

/// The helper's world for the explorer: the budget the alphabet entry names, and the boot
/// (identity `B`, text `T`, as the event explorers' `boot` events give them).
struct Stub(Option<Budget>);

impl Resolve for Stub {
    fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
        self.0
    }

    fn boot(
        &mut self,
        ordinal: u32,
        _reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        // The identity and text the monitor knows a built boot by (`B`, `T`).
        let _ = ordinal;
        Ok(("B".to_owned(), "T".to_owned()))
    }

    fn session(&self) -> &'static str {
        "s1"
    }

    fn transcript_window(&mut self) -> Option<u32> {
        None
    }

    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        // The alphabet's one `/notesoup` (the grammar is notesoup-thresholds').
        match args {
            "cap 100000" => Ok(CapAsk::Set(Some(100_000))),
            "" => Ok(CapAsk::Show),
            other => Err(format!("the explorer sends no `/notesoup {other}`")),
        }
    }

    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>) -> String {
        format!("cap {cap:?}, window {ordinal:?}")
    }
}

/// One step of the hook explorer: an engine hook call (with the budget the helper would
/// resolve), or the own tool's `empty_brain` event (op `tool` sends it as an event).
#[derive(Clone)]
enum Call {
    Hook(Value, Hook, Option<Budget>),
    Event(Value, Event),
}

#[allow(
    clippy::too_many_lines,
    reason = "the alphabet: one line per hook call, as the JSON the shell sends"
)]
/// The hook calls, made concrete against the state (the live generation, the worker's
/// marker, the boot the flow installed).
fn hook_alphabet(flow: &Flow) -> Vec<Call> {
    let g = flow.generation();
    let marker = flow
        .expected_marker()
        .unwrap_or_else(|| "notesoup-reset g9 r9 a9".to_owned());
    let point = Budget {
        tokens: 950,
        hard: 1000,
        warning: Some(900),
        auto_clear: true,
    };
    let (warn, over) = (
        Some(point),
        Some(Budget {
            tokens: 2000,
            ..point
        }),
    );
    let (window, text) = match &flow.commit {
        Some(Commit {
            stage: crate::flow::Stage::Installed { uuid, text, .. },
            ..
        }) => (uuid.clone(), text.clone().unwrap_or_default()),
        _ => ("B".to_owned(), "T".to_owned()),
    };
    let kept = json!([{"window": window, "ordinal": 1, "text": text}]);
    let hook = |raw: Value, budget: Option<Budget>| {
        let parsed: Hook = serde_json::from_value(raw.clone()).expect("hook alphabet parses");
        Call::Hook(raw, parsed, budget)
    };
    let event = |raw: Value| {
        let parsed: Event = serde_json::from_value(raw.clone()).expect("event parses");
        Call::Event(raw, parsed)
    };
    vec![
        hook(
            json!({"event": "session.start", "facts": {"disable_compact": false, "interactive": true}}),
            None,
        ),
        hook(
            json!({"event": "prompt.context", "facts": {"kept": []}}),
            None,
        ),
        hook(
            json!({"event": "prompt.context", "facts": {"kept": [{"window": "claude:s1:2", "ordinal": 2, "text": "B"}]}}),
            None,
        ),
        // A fork's: the parent's boot (a compaction's message) is the newest kept.
        hook(
            json!({"event": "prompt.context", "facts": {"kept": [{"window": "claude:s0:2", "ordinal": 2, "text": "B"}]}}),
            None,
        ),
        hook(
            json!({"event": "prompt.submit", "facts": {"origin": "composer"}}),
            warn,
        ),
        // A fork's first prompt before its prompt.context (the kept boots ride with it).
        hook(
            json!({"event": "prompt.submit", "facts": {"origin": "composer", "kept": [{"window": "claude:s0:2", "ordinal": 2, "text": "B"}]}}),
            None,
        ),
        hook(
            json!({"event": "prompt.dropped", "facts": {"generation": g}}),
            None,
        ),
        hook(
            json!({"event": "tool.call", "facts": {"agent": "main"}}),
            warn,
        ),
        hook(
            json!({"event": "tool.call", "facts": {"agent": "main"}}),
            over,
        ),
        event(json!({"type": "empty_brain", "agent": "main", "args": {"last_word": "w"}})),
        hook(
            json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 0}}),
            None,
        ),
        hook(
            json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 1, "kept": kept}}),
            None,
        ),
        hook(
            json!({"event": "turn.complete", "facts": {"agent": "main", "turn_id": "t1", "reason": "answer"}}),
            None,
        ),
        hook(
            json!({"event": "turn.complete", "facts": {"agent": "main", "turn_id": "t1", "reason": "error", "continuation": g}}),
            None,
        ),
        hook(
            json!({"event": "session.append", "facts": {"agent": "main", "door": "queue"}}),
            None,
        ),
        hook(
            json!({"event": "session.append", "facts": {"agent": "main", "door": "compaction", "kind": "system"}}),
            None,
        ),
        hook(
            json!({"event": "session.append", "facts": {"agent": "main", "door": "prompt", "role": "user", "text": text, "window": window}}),
            None,
        ),
        hook(
            json!({"event": "session.compact", "facts": {"agent": "main", "trigger": "manual", "instructions": marker}}),
            None,
        ),
        hook(
            json!({"event": "session.compact", "facts": {"agent": "main", "trigger": "auto"}}),
            None,
        ),
        hook(
            json!({"event": "session.compacted", "facts": {"agent": "main"}}),
            None,
        ),
        hook(
            json!({"event": "compact.done", "facts": {"generation": g, "status": "failed"}}),
            None,
        ),
        hook(
            json!({"event": "command.run", "facts": {"command": "empty"}}),
            None,
        ),
        hook(
            json!({"event": "command.run", "facts": {"command": "notesoup", "args": "cap 100000"}}),
            None,
        ),
        hook(
            json!({"event": "prompt.attachment", "facts": {"attachment": "# notesoup\n<notesoup-boot window=\"claude:s1:0\">\n</notesoup-boot>"}}),
            None,
        ),
        hook(
            json!({"event": "prompt.attachment", "facts": {"attachment": "# notesoup\n<notesoup-boot window=\"claude:s0:2\">\n</notesoup-boot>"}}),
            None,
        ),
    ]
}

/// `Flow::watch`'s promise in `flow`: a main append through a door it does not name changes
/// nothing (neither the state nor effects), whatever the row.
fn watch_holds(flow: &Flow, raw: &Value) {
    let doors = flow.watch().append_doors;
    if doors.iter().any(|d| d == "*") {
        return;
    }
    for door in ["queue", "prompt", "note", "compaction"] {
        if doors.iter().any(|d| d == door) {
            continue;
        }
        let call = json!({"event": "session.append", "facts": {"agent": "main", "door": door, "kind": "user", "role": "user"}});
        let hook: Hook = serde_json::from_value(call.clone()).expect("parses");
        let mut after = flow.clone();
        let fx = after.hook(&hook, &mut Stub(None));
        take_trace();
        assert!(
            fx.is_empty() && after == *flow,
            "watch names doors {doors:?} yet {call} changed something after {raw}:\n{flow:?}\n->\n{after:?}\neffects {fx:?}"
        );
    }
}

/// `Flow::quiet`'s promise in `flow`: under the explorer's points (and under points with no
/// warning and no automatic clear), a main tool result and a later main step of the running
/// turn whose fill is below the quiet point change nothing, neither the state nor effects.
fn quiet_holds(flow: &Flow, raw: &Value) {
    let points = [
        Budget {
            tokens: 0,
            hard: 1000,
            warning: Some(900),
            auto_clear: true,
        },
        Budget {
            tokens: 0,
            hard: 1000,
            warning: None,
            auto_clear: false,
        },
    ];
    for points in points {
        let Some(quiet) = flow.quiet(&points) else {
            continue;
        };
        let fills = [0, quiet.below.min(points.hard + 5_000).saturating_sub(1)];
        for tokens in fills.into_iter().filter(|t| *t < quiet.below) {
            let budget = Some(Budget { tokens, ..points });
            let mut calls = vec![json!({"event": "tool.call", "facts": {"agent": "main"}})];
            if let Some(turn) = &quiet.turn {
                for index in [1, 7] {
                    calls.push(json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": turn, "index": index}}));
                }
            }
            for call in calls {
                let hook: Hook = serde_json::from_value(call.clone()).expect("parses");
                let mut after = flow.clone();
                let fx = after.hook(&hook, &mut Stub(budget));
                take_trace();
                assert!(
                    fx.is_empty() && after == *flow,
                    "quiet below {} yet {call} at {tokens} changed something after {raw}:\n{flow:?}\n->\n{after:?}\neffects {fx:?}",
                    quiet.below
                );
            }
        }
    }
}

/// Every sequence of hook calls up to `depth` from a fresh flow: each event a hook hands
/// the flow goes through the same monitor as the event explorers.
fn explore_hooks(depth: usize) -> String {
    let mut layer: Layer = HashMap::new();
    layer.insert((canonical(Flow::new(1)), Ghost::default()), (1, Vec::new()));
    let (mut states, mut paths, mut transitions, mut events, mut width) =
        (layer.len(), 0_u128, 0_u64, 0_u64, 0);
    for _ in 0..depth {
        let mut next: Layer = HashMap::new();
        for ((flow, ghost), (count, trail)) in &layer {
            let calls = hook_alphabet(flow);
            width = calls.len();
            for call in calls {
                let mut post = flow.clone();
                let (raw, trace) = match &call {
                    Call::Hook(raw, hook, budget) => {
                        take_trace();
                        post.hook(hook, &mut Stub(*budget));
                        (raw, take_trace())
                    }
                    Call::Event(raw, event) => {
                        let fx = post.handle(event.clone());
                        (raw, vec![(flow.clone(), event.clone(), post.clone(), fx)])
                    }
                };
                transitions += 1;
                quiet_holds(&post, raw);
                watch_holds(&post, raw);
                let mut g = ghost.clone();
                for (pre, event, after, fx) in &trace {
                    events += 1;
                    g = check(pre, &g, event, after, fx).unwrap_or_else(|why| {
                        panic!("invariant broken: {why}\npath: {trail:#?}\nthen: {raw} ({event:?})\neffects: {fx:?}")
                    });
                }
                paths += count;
                reach(&mut next, (canonical(post), g), *count, trail, raw);
            }
        }
        states += next.len();
        layer = next;
    }
    format!(
        "reset-flow explorer (hooks): depth {depth}, alphabet {width} hook calls, {states} distinct states, {transitions} transitions ({events} events), {paths} hook call sequences (all prefixes) checked"
    )
}

#[test]
fn every_hook_sequence_keeps_the_invariants() {
    report(&explore_hooks(HOOK_DEPTH));
}

/// The hook explorer's depth (each hook call is one to four events).
const HOOK_DEPTH: usize = 6;

#[test]
fn the_notesoup_command_reports_the_cap_kept_and_a_refused_one_changes_nothing() {
    let mut flow = Flow::new(1);
    let notesoup = |flow: &mut Flow, args: &str| {
        take_trace();
        let hook: Hook = serde_json::from_value(
            json!({"event": "command.run", "facts": {"command": "notesoup", "args": args}}),
        )
        .expect("parses");
        let fx = flow.hook(&hook, &mut Stub(None));
        let kinds: Vec<String> = take_trace()
            .iter()
            .map(|(_, e, _, _)| serde_json::to_value(e).expect("event")["type"].to_string())
            .collect();
        (fx, kinds)
    };
    let report = |text: &str| Effect::Report {
        text: text.to_owned(),
    };
    // A cap to set is `cap_changed`, and the line answers with the cap kept after it.
    let (fx, kinds) = notesoup(&mut flow, "cap 100000");
    assert_eq!(kinds, ["\"cap_changed\""]);
    assert_eq!(fx, [report("cap Some(100000), window None")]);
    // A refused one is answered with the refusal alone: no event, the cap stays.
    let before = flow.clone();
    let (fx, kinds) = notesoup(&mut flow, "cap 12");
    assert!(kinds.is_empty(), "{kinds:?}");
    assert_eq!(fx, [report("the explorer sends no `/notesoup cap 12`")]);
    assert_eq!(flow, before);
    // Shown: no event, the cap kept.
    let (fx, kinds) = notesoup(&mut flow, "");
    assert!(kinds.is_empty(), "{kinds:?}");
    assert_eq!(fx, [report("cap Some(100000), window None")]);
}

#[test]
fn the_hook_layer_reports_each_event_it_handles() {
    // A compaction answered in one call: `compaction`, then `boot` acquired.
    let mut flow = Flow::new(1);
    take_trace();
    let hook: Hook = serde_json::from_value(
        json!({"event": "session.compact", "facts": {"agent": "main", "trigger": "auto"}}),
    )
    .expect("parses");
    flow.hook(&hook, &mut Stub(None));
    let kinds: Vec<String> = take_trace()
        .iter()
        .map(|(_, e, _, _)| serde_json::to_value(e).expect("event")["type"].to_string())
        .collect();
    assert_eq!(kinds, ["\"compaction\"", "\"boot\""]);
    let _ = KeptBoot {
        window: String::new(),
        ordinal: 0,
        text: String::new(),
    };
}
