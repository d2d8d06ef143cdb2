//! What lasts across processes and sessions: session changes, the cap, `DISABLE_COMPACT`, the
//! once-per-window warning and the saved state.

use super::*;

// ----- session changes, cap, DISABLE_COMPACT -----

#[test]
fn a_session_change_discards_the_flow_and_invalidates_work() {
    let mut sim = requested(json!({}));
    let old = sim.generation();
    let marker = sim.flow.expected_marker().unwrap();
    let fx = sim.send(json!({"type": "session", "generation": old + 1}));
    assert_eq!(kinds(&fx), ["cancel"]);
    assert!(!sim.flow.snapshot().pending);
    assert_eq!(sim.flow.snapshot().generation, old + 1);
    let before = sim.flow.clone();
    for stale in [
        json!({"type": "compaction_result", "generation": old, "status": "failed"}),
        json!({"type": "boot", "generation": old, "status": "acquired", "uuid": "B"}),
        evidence(old, "append", "boundary", None, false),
        json!({"type": "continuation", "generation": old, "status": "failed"}),
        json!({"type": "closeout", "generation": old, "status": "failed"}),
    ] {
        assert!(sim.send(stale).is_empty());
        assert_eq!(sim.flow, before);
    }
    assert_eq!(
        kinds(&sim.send(compaction("manual", Some(&marker)))),
        ["veto_compaction"]
    );
}

#[test]
fn a_cap_change_keeps_the_pending_policy() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({"terminate": true})));
    sim.send(command("empty", true));
    let before = sim.flow.clone();
    assert!(
        sim.send(json!({"type": "cap_changed", "cap": 100_000}))
            .is_empty()
    );
    assert!(
        sim.send(json!({"type": "cap_changed", "cap": null}))
            .is_empty()
    );
    assert_eq!(sim.flow, before);
}

#[test]
fn disable_compact_refuses_explicit_and_budget_resets() {
    let mut sim = Sim::new();
    sim.send(json!({"type": "disable_compact", "set": true}));
    sim.send(turn_step("t1", 0));
    assert!(matches!(
        sim.send(eb(json!({}))).as_slice(),
        [Effect::ToolResult { is_error: true, .. }]
    ));
    assert_eq!(kinds(&sim.send(command("fresh_window", false))), ["report"]);
    assert!(sim.send(step_over("t1", 1)).is_empty());
    assert!(!sim.flow.snapshot().pending);
    assert!(sim.flow.snapshot().disable_compact);
}

// ----- the blob -----

#[rstest]
#[case::future(json!({"v": 4}), "unknown")]
#[case::older(json!({"v": 1, "generation": 1}), "unknown")]
#[case::missing(json!({"generation": 1}), "unknown")]
#[case::string_version(json!({"v": "2"}), "unknown")]
#[case::malformed(json!({"v": 3, "generation": "x"}), "bad")]
#[case::malformed_v2(json!({"v": 2, "generation": "x"}), "bad")]
fn foreign_blobs_are_refused_never_misread(#[case] blob: Value, #[case] kind: &str) {
    let err = Flow::from_blob(&blob).unwrap_err();
    match (kind, &err) {
        ("unknown", FlowError::UnknownVersion { .. }) | ("bad", FlowError::BadState { .. }) => {}
        _ => panic!("{err:?}"),
    }
    // Saved with a session, it reads as no flow: the next step starts fresh.
    let saved: crate::Saved =
        serde_json::from_value(json!({"process": "p1", "flow": blob})).unwrap();
    assert_eq!(saved.flow, None);
}

#[test]
fn a_null_state_is_a_fresh_flow() {
    let reply = step(Flow::default(), Event::CapChanged { cap: None });
    assert_eq!(reply.flow, Flow::default());
    assert_eq!(reply.flow.to_blob()["v"], crate::STATE_VERSION);
}

// ----- the window: ordinal, warning, cap, a new process, raw input -----

fn warning(g: u64, status: &str) -> Value {
    json!({"type": "warning", "generation": g, "status": status})
}

/// A reset of window `from` answered by the worker and confirmed; the boot opens the next.
fn reset_window(sim: &mut Sim) -> u32 {
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({})));
    sim.send(turn_step("t1", 1));
    sim.send(done("t1", "answer"));
    let marker = sim.flow.expected_marker().unwrap();
    let fx = sim.send(compaction("manual", Some(&marker)));
    let [Effect::AnswerCompaction { ordinal, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    let ordinal = *ordinal;
    sim.confirm();
    ordinal
}

#[test]
fn the_warning_is_once_per_window_across_processes_and_only_when_delivered() {
    let mut sim = Sim::new();
    sim.send(json!({"type": "window_seen", "ordinal": 0}));
    let g = sim.generation();
    assert!(
        sim.send(warning_point(999)).is_empty(),
        "short of the point"
    );
    assert_eq!(kinds(&sim.send(warning_point(1000))), ["warn"]);
    // Offered, not yet delivered: no second offer (a concurrent hook), a drop leaves it due.
    assert!(sim.send(warning_point(1500)).is_empty());
    sim.send(warning(g, "dropped"));
    assert_eq!(kinds(&sim.send(warning_point(1500))), ["warn"]);
    // An offer whose process ended is due again in the next process.
    sim.send(json!({"type": "loaded"}));
    assert_eq!(kinds(&sim.send(warning_point(1500))), ["warn"]);
    sim.send(warning(g, "delivered"));
    assert!(sim.flow.snapshot().warned);
    // A resumed session, twice: the same window is never warned again.
    for _ in 0..2 {
        sim.send(json!({"type": "loaded"}));
        sim.send(json!({"type": "window_seen", "ordinal": 0}));
        assert!(sim.send(warning_point(1800)).is_empty());
    }
    // The next window owes its warning again.
    assert_eq!(reset_window(&mut sim), 1);
    assert!(!sim.flow.snapshot().warned);
    assert_eq!(kinds(&sim.send(warning_point(1800))), ["warn"]);
}

#[test]
fn no_warning_under_disable_compact() {
    let mut sim = Sim::new();
    sim.send(json!({"type": "disable_compact", "set": true}));
    assert!(sim.send(warning_point(5000)).is_empty());
}

#[test]
fn a_window_ordinal_is_never_reopened() {
    let mut sim = Sim::new();
    sim.send(json!({"type": "window_seen", "ordinal": 0}));
    assert_eq!(reset_window(&mut sim), 1);
    // A reactive compaction's retry re-sends the cleared window's `:0` boot: no step back.
    sim.send(json!({"type": "window_seen", "ordinal": 0}));
    assert_eq!(sim.flow.snapshot().ordinal, Some(1));
    assert_eq!(reset_window(&mut sim), 2);
    // The host's own compaction of the main conversation advances it too.
    sim.send(json!({"type": "native_compacted", "agent": "main"}));
    sim.send(json!({"type": "native_compacted", "agent": "subagent"}));
    assert_eq!(sim.flow.snapshot().ordinal, Some(3));
    // A newer window seen (a rebuilt record, another process) is adopted.
    sim.send(json!({"type": "window_seen", "ordinal": 7}));
    assert_eq!(reset_window(&mut sim), 8);
}

#[test]
fn the_cap_survives_windows_and_ends_with_the_process_or_the_session() {
    let mut sim = Sim::new();
    sim.send(json!({"type": "window_seen", "ordinal": 0}));
    sim.send(json!({"type": "cap_changed", "cap": 100_000}));
    reset_window(&mut sim);
    assert_eq!(
        sim.flow.snapshot().cap,
        Some(100_000),
        "survives the rollover"
    );
    sim.send(json!({"type": "loaded"}));
    assert_eq!(
        sim.flow.snapshot().cap,
        None,
        "a new process (reload) clears it"
    );
    sim.send(json!({"type": "cap_changed", "cap": 50_000}));
    let g = sim.generation();
    sim.send(json!({"type": "session", "generation": g + 1}));
    assert_eq!(sim.flow.snapshot().cap, None, "a session change clears it");
    assert_eq!(sim.flow.snapshot().ordinal, None, "and forgets the window");
}

#[test]
fn a_cap_change_keeps_the_stop_of_a_pending_reset() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({"terminate": true})));
    assert!(sim.flow.snapshot().stop);
    sim.send(json!({"type": "cap_changed", "cap": 100_000}));
    assert!(sim.flow.snapshot().stop && sim.flow.snapshot().pending);
}

#[test]
fn disable_compact_outlives_a_new_process_and_is_logged_once_per_session() {
    let mut sim = Sim::new();
    let log = |fx: &[Effect]| {
        fx.iter()
            .filter(|e| matches!(e, Effect::Log { text } if text == crate::DISABLE_COMPACT_LOG))
            .count()
    };
    assert_eq!(
        log(&sim.send(json!({"type": "disable_compact", "set": true}))),
        1
    );
    // Heard again with every call that could warn or clear: said once.
    assert_eq!(
        log(&sim.send(json!({"type": "disable_compact", "set": true}))),
        0
    );
    // A new process (a reload, a resume), before it says the switch again: still refused.
    sim.send(json!({"type": "loaded"}));
    assert!(sim.flow.snapshot().disable_compact);
    sim.send(turn_step("t1", 0));
    assert!(matches!(
        sim.send(eb(json!({}))).as_slice(),
        [Effect::ToolResult { is_error: true, .. }]
    ));
    assert_eq!(kinds(&sim.send(command("empty", false))), ["report"]);
    assert!(!sim.flow.snapshot().pending);
    assert_eq!(
        log(&sim.send(json!({"type": "disable_compact", "set": true}))),
        0
    );
    // A process whose environment lacks it says so: resets are accepted again.
    assert!(
        sim.send(json!({"type": "disable_compact", "set": false}))
            .is_empty()
    );
    assert!(!sim.flow.snapshot().disable_compact);
}

#[test]
fn a_new_process_drops_the_old_ones_work_but_keeps_a_request_not_yet_started() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({"last_word": "w"})));
    assert!(sim.send(json!({"type": "loaded"})).is_empty());
    assert!(
        sim.flow.snapshot().pending,
        "the request had not started: kept"
    );
    assert!(
        !sim.flow.snapshot().end_turn_at_next_main_step,
        "its turn is gone"
    );
    // Started (the worker's compaction is in flight): the process that ran it is gone.
    sim.send(turn_step("t2", 0));
    sim.send(done("t2", "answer"));
    assert!(sim.flow.expected_marker().is_some());
    assert_eq!(
        kinds(&sim.send(json!({"type": "loaded"}))),
        ["cancel", "report"]
    );
    assert!(!sim.flow.snapshot().pending);
}
