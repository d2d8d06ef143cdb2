//! The explorers' monitor (tests, and a host adapter's explorer with the `monitor`
//! feature): it tracks what the *events and effects* say happened, not the flow's
//! internals, and checks every invariant of the crate on one transition ([`check`]).
//!
//! What it checks:
//! - no continuation without a confirmed commit (boot acquired, then the boundary and the
//!   intact boot with the same UUID, or the boot in the messages);
//! - at most one compaction per request (no second worker compaction or admission once the
//!   window changed for it; none while one is in flight; none after auto consumed it), and
//!   a manual compaction is admitted only with the marker of the worker's own command;
//! - a close-out that could not start cancels its request;
//! - the budget warning is offered only past its point, once per window (again only after
//!   a drop), and never beside a close-out, which carries the same text;
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

#![allow(
    clippy::missing_panics_doc,
    reason = "test support: a broken invariant is a panic by design"
)]

use std::collections::HashMap;

use crate::flow::{Commit, Flow};
use crate::{Agent, Effect, Event, Trigger};

/// What the path so far says happened, from events and effects alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "a monitor's record: one flag per fact an invariant needs"
)]
pub struct Ghost {
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

/// The flow with its counters zeroed: behaviour does not depend on their values (the
/// alphabet resolves the generation and the marker against the live state).
pub fn canonical(mut flow: Flow) -> Flow {
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

/// One transition: `event` took `pre` to `post` with effects `fx`; the monitor's record
/// after it, or which invariant broke.
///
/// # Errors
/// The invariant the transition broke, in words.
#[allow(
    clippy::too_many_lines,
    reason = "one monitor step: every invariant in one place, in the order the doc lists them"
)]
pub fn check(
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

    // DISABLE_COMPACT is logged once per session: when the flow first hears it set.
    let logged = has(&|e| matches!(e, Effect::Log { text } if text == crate::DISABLE_COMPACT_LOG));
    let first = matches!(event, Event::DisableCompact { set: true }) && !pre.disable_compact;
    if logged != first {
        return Err(format!(
            "DISABLE_COMPACT logged {logged} where its first hearing is {first}"
        ));
    }

    // The warning: offered only past its point, once per window (again only after a drop).
    if has(&|e| matches!(e, Effect::Warn { .. })) {
        if !matches!(event, Event::WarningPoint { .. }) {
            return Err("warn outside a warning point".into());
        }
        if g.warned || g.offered {
            return Err("a second warning in one window".into());
        }
        if g.closeout && !g.consumed {
            return Err("a warning beside a close-out that carries it".into());
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

    let retry = if let Event::CompactionResult {
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
        true
    } else {
        false
    };

    // Reset work starts only after a successful main turn (or, between turns, at once
    // after an attempt that did not take), never over undelivered input, and at most once
    // per request at a time.
    if has(&|e| matches!(e, Effect::Compact { .. })) {
        let completed = matches!(
            event,
            Event::TurnComplete {
                agent: Agent::Main,
                reason: crate::TurnEnd::Answer,
                ..
            }
        );
        let retried_between_turns = retry && pre.main_turn.is_none();
        if !(completed || retried_between_turns) {
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
    }) && (g.undelivered || post.main_turn.is_some())
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
            if post.main_turn.is_some() || post.cutoff.is_some() || post.commit.is_some() {
                return Err("work of the old process survived a new process".into());
            }
            if post.disable_compact != pre.disable_compact {
                return Err("a new process changed DISABLE_COMPACT without hearing it".into());
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
            joins_turn: true,
        } if g.turn.is_some() && g.stepped && g.waiting == Some(crate::InputPhase::Queued) => {
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
pub type Layer = HashMap<(Flow, Ghost), (u128, Vec<String>)>;

/// Adds `key` to the next layer, reached by `count` more sequences (`trail` then `raw`);
/// the first time a state is reached, it must survive its blob.
pub fn reach(next: &mut Layer, key: (Flow, Ghost), count: u128, trail: &[String], raw: &str) {
    let entry = next.entry(key).or_insert_with_key(|(post, _)| {
        assert_eq!(
            Flow::from_blob(&post.to_blob()).as_ref(),
            Ok(post),
            "the state does not survive its blob; path: {trail:#?} then {raw}"
        );
        let mut trail = trail.to_vec();
        trail.push(raw.to_owned());
        (0, trail)
    });
    entry.0 += count;
}

/// For an alphabet without absolute window facts (no `window_seen`, no raw input): the
/// window ordinal only matters relative to itself, so every ordinal past 1 is folded onto
/// 1 (with the ordinal an answered boot opens, one past it), and `stepped` only matters
/// to raw input events, so it is dropped. The monitor's record is folded the same way.
pub fn fold_window(mut flow: Flow, mut ghost: Ghost) -> (Flow, Ghost) {
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
