//! Commit evidence and the worker's compaction: boots kept or rewritten, failures, vetoes and a
//! lost continuation.

use super::*;

// ----- commits -----

#[rstest]
#[case::rewritten("append", "boot", Some("B"), false)]
#[case::other_uuid("append", "boot", Some("X"), true)]
#[case::no_uuid("append", "boot", None, true)]
#[case::missing_interactive("messages", "missing", None, false)]
#[case::missing_headless("append", "missing", None, false)]
fn a_missing_or_rewritten_boot_cannot_continue(
    #[case] source: &str,
    #[case] what: &str,
    #[case] uuid: Option<&str>,
    #[case] intact: bool,
) {
    let mut sim = requested(json!({}));
    let g = sim.generation();
    let marker = sim.flow.expected_marker().unwrap();
    sim.send(compaction("manual", Some(&marker)));
    sim.send(boot_ok(g, "B"));
    sim.send(evidence(g, "append", "boundary", None, false));
    let fx = sim.send(evidence(g, source, what, uuid, intact));
    assert_eq!(kinds(&fx), ["cancel", "report"]);
    // Never compacted again.
    sim.send(turn_step("t2", 0));
    assert!(sim.send(done("t2", "answer")).is_empty());
}

#[rstest]
#[case::boot_built_never_shown(true)]
#[case::boot_never_reported(false)]
fn a_commit_unproven_when_the_turn_completes_ends_without_continuing(#[case] built: bool) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({})));
    sim.send(compaction("auto", None));
    if built {
        let g = sim.generation();
        sim.send(boot_ok(g, "B"));
    }
    sim.send(turn_step("t1", 1));
    let fx = sim.send(
        json!({"type": "turn_complete", "agent": "main", "turn_id": "t1",
        "reason": "answer", "context": {"tokens": 2000, "hard": 1000, "auto_clear": true}}),
    );
    assert_eq!(
        kinds(&fx),
        ["cancel", "report"],
        "no continuation, no second reset now"
    );
    assert!(!sim.flow.snapshot().pending);
}

/// The person's next message was read before the worker's command was queued (a
/// stream-json client that answers the reset turn's `result` at once): the engine runs
/// that message's turn first, then the compaction nested in its end, whose rows are
/// appended after the turn completes. That turn's completion does not fail the commit;
/// the rows confirm it, and a turn that completes after them with none still does.
#[rstest]
#[case::rows_after_the_turn(true)]
#[case::no_rows_by_the_next_turn(false)]
fn a_worker_compaction_nested_in_a_natural_turn_waits_for_its_rows(#[case] rows: bool) {
    let mut sim = requested(json!({}));
    let g = sim.generation();
    let marker = sim.flow.expected_marker().unwrap();
    sim.send(natural("delivered"));
    sim.send(turn_step("t2", 0));
    let fx = sim.send(compaction("manual", Some(&marker)));
    assert_eq!(kinds(&fx), ["answer_compaction"]);
    assert!(sim.send(boot_ok(g, "B")).is_empty());
    let fx = sim.send(done("t2", "answer"));
    assert!(
        fx.is_empty(),
        "the commit failed at its own turn's end: {fx:?}"
    );
    if rows {
        sim.send(evidence(g, "append", "boundary", None, false));
        let fx = sim.send(evidence(g, "append", "boot", Some("B"), true));
        // The message's turn took the reset over: no continuation after it.
        assert!(
            matches!(&fx[..], [Effect::Report { text }] if text.contains("fresh window ready; not continuing")),
            "{fx:?}"
        );
        assert!(!sim.flow.snapshot().pending);
    } else {
        sim.send(turn_step("t3", 0));
        assert_eq!(kinds(&sim.send(done("t3", "answer"))), ["cancel", "report"]);
    }
}

#[test]
fn headless_evidence_needs_the_boundary_before_the_boot() {
    let mut sim = requested(json!({}));
    let g = sim.generation();
    let marker = sim.flow.expected_marker().unwrap();
    sim.send(compaction("manual", Some(&marker)));
    sim.send(boot_ok(g, "B"));
    assert!(
        sim.send(evidence(g, "append", "boot", Some("B"), true))
            .is_empty()
    );
    // A receipt is not evidence either.
    let ok = json!({"type": "compaction_result", "generation": g, "status": "ok"});
    assert!(sim.send(ok).is_empty());
    sim.send(evidence(g, "append", "boundary", None, false));
    let fx = sim.send(evidence(g, "append", "boot", Some("B"), true));
    assert_eq!(kinds(&fx), ["continue"]);
}

#[test]
fn interactive_evidence_is_the_boot_in_the_messages() {
    let mut sim = requested(json!({}));
    let g = sim.generation();
    let marker = sim.flow.expected_marker().unwrap();
    sim.send(compaction("manual", Some(&marker)));
    sim.send(boot_ok(g, "B"));
    sim.send(json!({"type": "compaction_result", "generation": g, "status": "ok"}));
    let fx = sim.send(evidence(g, "messages", "boot", Some("B"), true));
    assert_eq!(kinds(&fx), ["continue"]);
}

#[rstest]
#[case::rejected_before_admission("failed", false)]
#[case::resolved_but_never_admitted("ok", false)]
#[case::failed_after_the_answer("failed", true)]
fn a_failed_compaction_keeps_the_request_for_a_retry(#[case] status: &str, #[case] answered: bool) {
    let mut sim = requested(json!({"last_word": "w"}));
    let g = sim.generation();
    let first = sim.flow.expected_marker().unwrap();
    if answered {
        sim.send(compaction("manual", Some(&first)));
        sim.send(boot_ok(g, "B"));
    }
    // Between turns the first failure is tried again at once where the host can (a
    // `claude -p` run ends after it); a host that cannot (Pi) waits for the next turn.
    let result = json!({"type": "compaction_result", "generation": g, "status": status});
    let mut waits = sim.clone();
    assert_eq!(kinds(&waits.send(result.clone())), ["report"]);
    assert!(waits.flow.expected_marker().is_none());
    let mut result = result;
    result["retry_now"] = json!(true);
    let fx = sim.send(result);
    assert_eq!(kinds(&fx), ["report", "compact"]);
    assert!(sim.flow.snapshot().pending);
    let second = sim.flow.expected_marker().unwrap();
    assert_ne!(second, first);
    // The old marker is no longer admitted.
    assert_eq!(
        kinds(&sim.send(compaction("manual", Some(&first)))),
        ["veto_compaction"]
    );
    // The retry fails too: the request waits for the next turn.
    let fx = sim.send(
        json!({"type": "compaction_result", "generation": g, "status": "failed", "retry_now": true}),
    );
    assert_eq!(kinds(&fx), ["report"]);
    assert!(sim.flow.snapshot().pending);
    sim.send(turn_step("t2", 0));
    assert_eq!(kinds(&sim.send(done("t2", "answer"))), ["compact"]);
    assert_ne!(sim.flow.expected_marker().unwrap(), first);
    assert_eq!(kinds(&sim.commit()), ["continue"]);
}

fn veto_quiet(fx: &[Effect]) -> Option<bool> {
    fx.iter().find_map(|e| match e {
        Effect::VetoCompaction { quiet, .. } => Some(*quiet),
        _ => None,
    })
}

#[test]
fn the_workers_compaction_after_an_auto_compaction_consumed_its_request_is_vetoed_quietly() {
    // The turn completed: the worker's /compact is queued, carrying its marker.
    let mut sim = requested(json!({}));
    let marker = sim.flow.expected_marker().unwrap();
    // Before it runs, the engine compacts on its own and consumes the request.
    let fx = sim.send(compaction("auto", None));
    assert_eq!(kinds(&fx), ["answer_compaction"]);
    sim.confirm();
    // The worker's own compaction arrives late: vetoed, but the person did nothing.
    let fx = sim.send(compaction("manual", Some(&marker)));
    assert_eq!(kinds(&fx), ["veto_compaction"]);
    assert_eq!(veto_quiet(&fx), Some(true), "{fx:?}");
    // A person's /compact is still vetoed out loud.
    let fx = sim.send(compaction("manual", Some("keep the plan")));
    assert_eq!(veto_quiet(&fx), Some(false), "{fx:?}");
}

#[rstest]
#[case::user_compact("manual", Some("keep the plan"))]
#[case::user_compact_bare("manual", None)]
#[case::other_plugin("plugin", Some("x"))]
#[case::precompute("precompute", None)]
fn compactions_without_the_marker_are_vetoed(
    #[case] trigger: &str,
    #[case] instructions: Option<&str>,
) {
    let mut sim = requested(json!({}));
    let before = sim.flow.clone();
    let fx = sim.send(compaction(trigger, instructions));
    assert_eq!(kinds(&fx), ["veto_compaction"]);
    assert_eq!(veto_quiet(&fx), Some(false), "shown to the person");
    assert_eq!(sim.flow, before);
}

#[rstest]
#[case::explicit(true, &["veto_compaction", "cancel", "report"])]
#[case::native_auto(false, &["native_compaction", "cancel", "report"])]
fn a_boot_failure_never_clears_an_explicit_reset(#[case] worker: bool, #[case] expected: &[&str]) {
    let mut sim = if worker {
        requested(json!({}))
    } else {
        let mut sim = Sim::new();
        sim.send(turn_step("t1", 0));
        sim.send(eb(json!({})));
        sim
    };
    let g = sim.generation();
    let trigger = if worker { "manual" } else { "auto" };
    let marker = sim.flow.expected_marker();
    sim.send(compaction(trigger, marker.as_deref()));
    let fx = sim
        .send(json!({"type": "boot", "generation": g, "status": "failed", "reason": "no store"}));
    assert_eq!(kinds(&fx), expected);
    assert!(!sim.flow.snapshot().pending);
}

#[test]
fn an_auto_compaction_without_a_request_gets_a_forced_boot_and_falls_back_on_failure() {
    let mut sim = Sim::new();
    let g = sim.generation();
    assert_eq!(
        answer(&sim.send(compaction("auto", None))),
        (Pool::Forced, None)
    );
    let fx = sim.send(json!({"type": "boot", "generation": g, "status": "failed"}));
    assert_eq!(kinds(&fx), ["native_compaction"]);
}

#[rstest]
#[case::dropped("dropped")]
#[case::failed("failed")]
fn a_lost_continuation_is_reported_never_compacted_again(#[case] status: &str) {
    let mut sim = requested(json!({}));
    assert_eq!(kinds(&sim.commit()), ["continue"]);
    let g = sim.generation();
    let fx = sim.send(json!({"type": "continuation", "generation": g, "status": status}));
    assert_eq!(kinds(&fx), ["report"]);
    sim.send(turn_step("t2", 0));
    assert!(sim.send(done("t2", "answer")).is_empty());
}

#[test]
fn commit_evidence_matches_the_boot_by_its_identity_and_its_text() {
    for (uuid, text, kept) in [
        ("B", "BOOT TEXT\n", true),
        ("B", "BOOT TEXT, REWRITTEN", false),
        ("X", "BOOT TEXT", false),
    ] {
        let mut sim = Sim::new();
        sim.send(turn_step("t1", 0));
        sim.send(eb(json!({})));
        sim.send(turn_step("t1", 1));
        sim.send(done("t1", "answer"));
        let marker = sim.flow.expected_marker().unwrap();
        sim.send(compaction("manual", Some(&marker)));
        let g = sim.generation();
        sim.send(json!({"type": "boot", "generation": g, "status": "acquired", "uuid": "B", "text": "BOOT TEXT"}));
        sim.send(evidence(g, "append", "boundary", None, false));
        // The shell's `intact` is not asked: the flow compares the texts itself.
        let fx = sim.send(
            json!({"type": "commit_evidence", "generation": g, "source": "append",
            "evidence": "boot", "uuid": uuid, "intact": true, "text": text}),
        );
        let want: &[&str] = if kept {
            &["continue"]
        } else {
            &["cancel", "report"]
        };
        assert_eq!(kinds(&fx), want, "{uuid} {text:?}");
    }
}
