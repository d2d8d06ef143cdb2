//! The exhaustive explorer: every sequence of events from a finite alphabet, up to
//! [`DEPTH`] events, from a fresh flow; the invariants are checked on every transition.
//!
//! States are deduplicated per layer (a canonical flow plus the monitor's own record of the
//! path), and each distinct state carries how many event sequences reach it, so the number
//! of paths checked is exact while the work stays proportional to the distinct states.
//!
//! The monitor ([`Ghost`]) tracks what the *events and effects* say happened, not the
//! flow's internals, and checks:
//! - the invariants [`crate::monitor`] lists, on every transition.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::flow::Flow;
use crate::monitor::{Ghost, Layer, canonical, check, fold_window, reach};
use crate::{Effect, Event};

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
    // Last, so the long walks' indices stand.
    all.push(json!({"type": "command", "command": "empty", "busy": false, "measured": false}));
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
        json!({"type": "appended", "agent": "main", "joins_turn": true}),
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
    // that rewrote it, a failed compaction, a session change, a cap, DISABLE_COMPACT, and
    // the two commands (a close-out carries the window's warning text).
    let keep = [0, 4, 5, 9, 20, 22, 26, 27, 29, 30, 41, 38, 39, 40, 17, 18];
    all = keep.iter().map(|&i| all[i].clone()).collect();
    all.extend(window_alphabet(flow));
    all
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
                reach(
                    &mut next,
                    fold(canonical(post), ghost),
                    *count,
                    trail,
                    &raw.to_string(),
                );
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
