//! Natural input, and native compaction consuming a pending request.

use super::*;

// ----- STOP consumed by native auto compaction -----

#[test]
fn native_auto_compaction_consumes_the_request_and_its_stop_does_not_carry_over() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({"last_word": "old"})));
    sim.send(command("empty", true));
    // Before the next step, the engine compacts on its own.
    let fx = sim.send(compaction("auto", None));
    assert_eq!(answer(&fx), (Pool::Normal, Some("old".into())));
    assert!(sim.confirm().is_empty(), "the turn still runs: wait for it");
    // Further auto compactions do not disarm the cutoff, and are not the request's.
    let fx = sim.send(compaction("auto", None));
    assert_eq!(answer(&fx), (Pool::Forced, None));
    assert!(sim.flow.snapshot().end_turn_at_next_main_step);
    assert_eq!(kinds(&sim.send(turn_step("t1", 1))), ["end_turn"]);
    let fx = sim.send(done("t1", "answer"));
    assert_eq!(
        kinds(&fx),
        ["report"],
        "consumed and stopped: no worker, no continuation"
    );
    assert!(!sim.flow.snapshot().pending);
    // A new request owns its own sticky, terminate and (absent) STOP.
    sim.send(turn_step("t2", 0));
    sim.send(natural("delivered"));
    sim.send(turn_step("t3", 0));
    sim.send(eb(json!({"last_word": "new"})));
    assert!(!sim.flow.snapshot().stop);
    sim.send(turn_step("t3", 1));
    sim.send(done("t3", "answer"));
    let marker = sim.flow.expected_marker().unwrap();
    assert_eq!(
        answer(&sim.send(compaction("manual", Some(&marker)))),
        (Pool::Normal, Some("new".into()))
    );
    assert_eq!(kinds(&sim.confirm()), ["continue"]);
}

#[test]
fn a_consumed_request_keeps_its_cutoff_until_natural_input_is_delivered() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({})));
    sim.send(compaction("auto", None));
    assert!(sim.confirm().is_empty());
    assert!(sim.flow.snapshot().end_turn_at_next_main_step);
    assert!(sim.send(natural("accepted")).is_empty());
    assert!(
        sim.flow.snapshot().pending,
        "not before the input reached the model"
    );
    let fx = sim.send(natural("delivered"));
    assert_eq!(
        kinds(&fx),
        ["report"],
        "the person's input continues the fresh window"
    );
    assert!(!sim.flow.snapshot().end_turn_at_next_main_step);
    assert!(sim.send(turn_step("t1", 1)).is_empty());
    assert!(sim.send(done("t1", "answer")).is_empty(), "no second reset");
}

#[test]
fn a_consumed_request_continues_once_after_its_turn() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(step_over("t1", 1));
    sim.send(turn_step("t2", 0)); // the cutoff of t1 is stale now
    sim.send(eb(json!({})));
    sim.send(compaction("auto", None));
    sim.confirm();
    assert_eq!(kinds(&sim.send(turn_step("t2", 1))), ["end_turn"]);
    let fx = sim.send(done("t2", "answer"));
    assert_eq!(kinds(&fx), ["continue"]);
    let g = sim.generation();
    sim.send(json!({"type": "continuation", "generation": g, "status": "started"}));
    sim.send(turn_step("t3", 0));
    assert!(
        sim.send(done("t3", "answer")).is_empty(),
        "never two continuations"
    );
}

// ----- natural input -----

#[rstest]
#[case::accepted_after_the_latch(false)]
#[case::accepted_before_the_latch(true)]
fn accepted_natural_input_releases_the_cutoff_for_the_whole_workflow(#[case] before: bool) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    if before {
        sim.send(natural("accepted"));
    }
    sim.send(eb(json!({"last_word": "w"})));
    if !before {
        sim.send(natural("accepted"));
    }
    assert!(!sim.flow.snapshot().end_turn_at_next_main_step);
    for index in 1..4 {
        assert!(sim.send(turn_step("t1", index)).is_empty());
        if index == 1 {
            sim.send(natural("delivered"));
        }
        sim.send(eb(json!({}))); // a later call cannot override the person
    }
    assert_eq!(kinds(&sim.send(done("t1", "answer"))), ["compact"]);
    assert_eq!(
        kinds(&sim.commit()),
        ["report"],
        "natural input owns the continuation"
    );
}

#[test]
fn undelivered_input_holds_reset_work_and_a_queued_turn_runs_normally() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({})));
    sim.send(natural("queued"));
    assert_eq!(kinds(&sim.send(turn_step("t1", 1))), ["end_turn"]);
    assert!(
        sim.send(done("t1", "answer")).is_empty(),
        "input not yet delivered"
    );
    sim.send(turn_step("t2", 0));
    sim.send(natural("delivered"));
    assert!(
        sim.send(turn_step("t2", 1)).is_empty(),
        "the queued turn runs normally"
    );
    assert_eq!(kinds(&sim.send(done("t2", "answer"))), ["compact"]);
    assert_eq!(kinds(&sim.commit()), ["report"]);
}

#[test]
fn natural_input_during_the_worker_compaction_takes_over() {
    let mut sim = requested(json!({}));
    sim.send(natural("queued"));
    let fx = sim.commit();
    assert_eq!(kinds(&fx), ["report"]);
}

#[test]
fn raw_input_facts_track_natural_input_until_a_request_carries_it() {
    // Typed while idle: its own turn's opening step carries it.
    let mut sim = Sim::new();
    sim.send(json!({"type": "prompt_submitted", "natural": true}));
    assert!(sim.flow.undelivered);
    sim.send(json!({"type": "turn_start", "agent": "main", "turn_id": "t1"}));
    sim.send(turn_step("t1", 0));
    assert!(!sim.flow.undelivered);
    // A plugin's prompt (close-out, continuation) is not natural input.
    sim.send(json!({"type": "prompt_submitted", "natural": false}));
    assert!(!sim.flow.undelivered);
    // Typed into the running turn: attached by the engine after the first step, carried by
    // the next; it releases the turn's cutoff.
    sim.send(json!({"type": "prompt_submitted", "natural": true}));
    sim.send(json!({"type": "appended", "agent": "main", "joins_turn": true}));
    assert!(sim.flow.natural_in_turn);
    sim.send(eb(json!({})));
    assert!(!sim.flow.snapshot().end_turn_at_next_main_step);
    assert!(sim.send(turn_step("t1", 1)).is_empty());
    assert!(!sim.flow.undelivered);
}

/// Once the person wrote in the running turn, `empty_brain` promises neither a clear after
/// this batch nor a continuation: the turn goes on, and the fresh window waits for them
/// (the reset-flow audit of stop 44, F6: the text said both, and a model that believed it
/// could stop answering the person).
#[test]
fn empty_brain_after_the_person_wrote_says_the_turn_goes_on() {
    let text = |fx: Vec<Effect>| match &fx[..] {
        [Effect::ToolResult { text, .. }] => text.clone(),
        other => panic!("{other:?}"),
    };
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(natural("accepted"));
    for (call, first) in [
        (json!({"last_word": "w"}), "Reset requested."),
        (json!({}), "A reset is already requested"),
    ] {
        let said = text(sim.send(eb(call)));
        assert!(said.starts_with(first), "{said}");
        assert!(said.contains("so it goes on: answer them"), "{said}");
        assert!(!said.contains("after this batch"), "{said}");
        assert!(!said.contains("continues from your notes"), "{said}");
    }
    // Without the person, the batch is the end of the turn, as before.
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let said = text(sim.send(eb(json!({}))));
    assert!(said.contains("after this batch of tools"), "{said}");
}
