//! The tool's request: its arguments, the cutoff at the next main step, subagents, and the
//! hard point's own request.

use super::*;

// ----- terminate: optional, default, explicit -----

#[rstest]
#[case::absent(json!({}), true, None)]
#[case::null_args(Value::Null, true, None)]
#[case::explicit_false(json!({"terminate": false}), true, None)]
#[case::explicit_true(json!({"terminate": true}), false, None)]
#[case::sticky(json!({"last_word": "finish the parser"}), true, Some("finish the parser"))]
#[case::sticky_terminate(json!({"last_word": "w", "terminate": true}), false, Some("w"))]
#[case::blank_sticky(json!({"last_word": "  "}), true, None)]
#[case::extra_keys_ignored(json!({"note": 1}), true, None)]
fn terminate_decides_the_one_continuation(
    #[case] args: Value,
    #[case] continues: bool,
    #[case] sticky: Option<&str>,
) {
    let mut sim = requested(args);
    let marker = sim.flow.expected_marker().unwrap();
    let fx = sim.send(compaction("manual", Some(&marker)));
    assert_eq!(answer(&fx), (Pool::Normal, sticky.map(str::to_owned)));
    let fx = sim.confirm();
    if continues {
        assert_eq!(kinds(&fx), ["continue"]);
        let Effect::Continue { text, .. } = &fx[0] else {
            unreachable!()
        };
        // The sticky is in the kept boot already: the continuation never repeats it.
        assert_eq!(
            text,
            "Fresh window. Continue from your notes and the handoff."
        );
    } else {
        assert_eq!(kinds(&fx), ["report"]);
    }
    assert!(!sim.flow.snapshot().pending);
}

// ----- invalid arguments are refused before anything is recorded -----

#[rstest]
#[case::string_true(json!({"terminate": "true"}), "terminate")]
#[case::number(json!({"terminate": 1}), "terminate")]
#[case::null(json!({"terminate": null}), "terminate")]
#[case::array(json!({"terminate": [true]}), "terminate")]
#[case::sticky_number(json!({"last_word": 5}), "last_word")]
#[case::not_an_object(json!("reset please"), "object")]
fn invalid_arguments_record_nothing(#[case] args: Value, #[case] names: &str) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let before = sim.flow.clone();
    let fx = sim.send(eb(args));
    let [Effect::ToolResult { text, is_error }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert!(is_error);
    assert!(text.contains(names), "{text}");
    assert_eq!(sim.flow, before);
    assert!(sim.send(turn_step("t1", 1)).is_empty());
}

// ----- first request wins -----

#[rstest]
#[case::second_cannot_replace(
    json!({"last_word": "first", "terminate": true}),
    json!({"last_word": "second", "terminate": false}),
    Some("first"),
    false
)]
#[case::second_cannot_add_terminate(
    json!({"last_word": "first"}),
    json!({"terminate": true}),
    Some("first"),
    true
)]
#[case::invalid_first_does_not_count(
    json!({"terminate": "yes"}),
    json!({"last_word": "valid"}),
    Some("valid"),
    true
)]
fn first_valid_request_wins(
    #[case] first: Value,
    #[case] second: Value,
    #[case] sticky: Option<&str>,
    #[case] continues: bool,
) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(first));
    let fx = sim.send(eb(second));
    assert_eq!(kinds(&fx), ["tool_result"]);
    assert_eq!(kinds(&sim.send(turn_step("t1", 1))), ["end_turn"]);
    sim.send(done("t1", "answer"));
    let marker = sim.flow.expected_marker().unwrap();
    let fx = sim.send(compaction("manual", Some(&marker)));
    assert_eq!(answer(&fx).1.as_deref(), sticky);
    let fx = sim.confirm();
    assert_eq!(kinds(&fx) == ["continue"], continues, "{fx:?}");
}

#[test]
fn a_later_call_rearms_the_cutoff_in_a_later_turn() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({"last_word": "a"})));
    sim.send(natural("queued")); // holds the reset work
    sim.send(turn_step("t1", 1)); // the person's input is its own turn: the cutoff fires
    assert!(
        sim.send(done("t1", "answer")).is_empty(),
        "held by undelivered input"
    );
    sim.send(turn_step("t2", 0));
    sim.send(natural("delivered"));
    assert!(!sim.flow.snapshot().end_turn_at_next_main_step);
    // The queued turn runs normally until the model itself calls again: that call
    // re-arms the cutoff, but cannot replace the first call's arguments.
    sim.send(eb(json!({"last_word": "b"})));
    assert_eq!(kinds(&sim.send(turn_step("t2", 1))), ["end_turn"]);
    assert_eq!(kinds(&sim.send(done("t2", "answer"))), ["compact"]);
    let marker = sim.flow.expected_marker().unwrap();
    assert_eq!(
        answer(&sim.send(compaction("manual", Some(&marker))))
            .1
            .as_deref(),
        Some("a")
    );
}

// ----- the cutoff -----

#[rstest]
#[case::subagent_step(json!({"type": "turn_step", "agent": "subagent", "turn_id": "s1", "index": 3}), false)]
#[case::index_zero(turn_step("t1", 0), false)]
#[case::main_step(turn_step("t1", 1), true)]
#[case::main_step_later(turn_step("t1", 7), true)]
fn the_cutoff_fires_only_on_a_main_step(#[case] event: Value, #[case] fires: bool) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({})));
    let fx = sim.send(event);
    assert_eq!(kinds(&fx) == ["end_turn"], fires, "{fx:?}");
    assert_eq!(sim.flow.snapshot().end_turn_at_next_main_step, !fires);
}

#[test]
fn subagents_never_change_the_main_flow() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let before = sim.flow.clone();
    let fx = sim.send(json!({"type": "empty_brain", "agent": "subagent", "args": {}}));
    assert!(matches!(
        fx.as_slice(),
        [Effect::ToolResult { is_error: true, .. }]
    ));
    assert_eq!(
        kinds(&sim.send(json!({"type": "compaction", "agent": "subagent", "trigger": "auto"}))),
        ["native_compaction"]
    );
    sim.send(
        json!({"type": "turn_complete", "agent": "subagent", "turn_id": "s", "reason": "error"}),
    );
    assert_eq!(sim.flow, before);
}

// ----- budget resets -----

#[test]
fn the_hard_point_at_a_step_ends_the_turn_and_continues_once_with_the_forced_pool() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let fx = sim.send(step_over("t1", 1));
    assert_eq!(kinds(&fx), ["report", "end_turn"]);
    assert_eq!(kinds(&sim.send(done("t1", "answer"))), ["compact"]);
    let marker = sim.flow.expected_marker().unwrap();
    assert_eq!(
        answer(&sim.send(compaction("manual", Some(&marker)))),
        (Pool::Forced, None)
    );
    assert_eq!(kinds(&sim.confirm()), ["continue"]);
}

#[rstest]
#[case::answer("answer", &["report", "compact"])]
#[case::aborted("aborted", &[])]
#[case::error("error", &[])]
#[case::refusal("refusal", &[])]
#[case::unknown_reason("exploded", &[])]
fn the_point_is_checked_after_a_successful_turn_only(
    #[case] reason: &str,
    #[case] expected: &[&str],
) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let fx = sim.send(
        json!({"type": "turn_complete", "agent": "main", "turn_id": "t1",
        "reason": reason, "context": {"tokens": 2000, "hard": 1000, "auto_clear": true}}),
    );
    assert_eq!(kinds(&fx), expected);
}

#[rstest]
#[case::under(500, true, false)]
#[case::auto_clear_off(5000, false, false)]
#[case::at_the_point(1000, true, true)]
fn measurement_arms_only_over_the_point(
    #[case] tokens: u64,
    #[case] auto_clear: bool,
    #[case] arms: bool,
) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(json!({"type": "measured", "tokens": tokens, "hard": 1000, "auto_clear": auto_clear}));
    assert_eq!(sim.flow.snapshot().pending, arms);
    assert_eq!(kinds(&sim.send(turn_step("t1", 1))) == ["end_turn"], arms);
}

#[test]
fn the_clear_points_report_writes_its_numbers_as_people_read_them() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let fx = sim
        .send(json!({"type": "measured", "tokens": 180_010, "hard": 175_424, "auto_clear": true}));
    let texts: Vec<&str> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Report { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            "notesoup: context at 180,010 of 175,424 tokens; clearing the window at the end of this step."
        ]
    );
}

#[test]
fn measurement_alone_never_clears_a_pending_request() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({"last_word": "w"})));
    sim.send(json!({"type": "measured", "tokens": 10, "hard": 1000, "auto_clear": true}));
    assert!(sim.flow.snapshot().pending);
    assert_eq!(kinds(&sim.send(turn_step("t1", 1))), ["end_turn"]);
}

// ----- failed turns cancel -----

#[rstest]
#[case::aborted("aborted")]
#[case::error("error")]
#[case::refusal("refusal")]
fn a_failed_main_turn_cancels_the_request(#[case] reason: &str) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({})));
    let fx = sim.send(done("t1", reason));
    assert_eq!(kinds(&fx), ["cancel", "report"]);
    assert!(!sim.flow.snapshot().pending);
    // Nothing is left to compact after the next successful turn.
    sim.send(turn_step("t2", 0));
    assert!(sim.send(done("t2", "answer")).is_empty());
}

// ----- the end-of-turn text says what follows -----

#[rstest]
#[case::continues(None, json!({}), "continues from a fresh window")]
#[case::terminate(None, json!({"terminate": true}), "waits for the next message: the model asked to stop (terminate).")]
#[case::fresh_window(Some("fresh_window"), json!({}), "waits for the next message: stopped as asked.")]
#[case::empty(Some("empty"), json!({"terminate": false}), "waits for the next message: stopped as asked.")]
fn the_end_turn_text_says_whether_a_continuation_follows(
    #[case] command_first: Option<&str>,
    #[case] args: Value,
    #[case] says: &str,
) {
    let mut sim = Sim::new();
    if let Some(name) = command_first {
        // Idle: the command asks for the close-out turn, which then calls empty_brain.
        sim.send(command(name, false));
    }
    sim.send(turn_step("t1", 0));
    sim.send(eb(args));
    let fx = sim.send(turn_step("t1", 1));
    let text = fx
        .iter()
        .find_map(|e| match e {
            Effect::EndTurn { text } => Some(text.clone()),
            _ => None,
        })
        .expect("an end_turn effect");
    assert!(text.contains(says), "{text}");
    // And it is true: a continuation follows the commit exactly when the text says so.
    assert_eq!(kinds(&sim.send(done("t1", "answer"))), ["compact"]);
    let after = kinds(&sim.commit());
    assert_eq!(
        after.iter().any(|k| k == "continue"),
        text.contains("continues from a fresh window"),
        "{text} / {after:?}"
    );
}
