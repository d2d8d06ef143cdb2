//! Rule tables: one rstest table (or case) per rule of the reset flow. Events are written
//! as JSON, so these tests also pin the events' shapes (each variant's rustdoc).

use rstest::rstest;
use serde_json::{Value, json};

use crate::{Effect, Event, Flow, FlowError, Pool, step};

pub(crate) mod explore;

/// A flow driven by JSON events; every state is round-tripped through its blob.
#[derive(Clone)]
struct Sim {
    flow: Flow,
}

impl Sim {
    fn new() -> Self {
        let mut sim = Sim { flow: Flow::new(0) };
        sim.send(json!({"type": "session", "generation": 1}));
        sim
    }

    fn send(&mut self, event: Value) -> Vec<Effect> {
        let text = event.to_string();
        let event: Event = serde_json::from_value(event)
            .unwrap_or_else(|e| panic!("event {text} does not parse: {e}"));
        let reply = step(self.flow.clone(), event);
        assert_eq!(Flow::from_blob(&reply.flow.to_blob()).unwrap(), reply.flow);
        self.flow = reply.flow;
        reply.effects
    }

    fn generation(&self) -> u64 {
        self.flow.generation()
    }

    /// The worker's own compaction, answered and confirmed with headless evidence.
    fn commit(&mut self) -> Vec<Effect> {
        let marker = self
            .flow
            .expected_marker()
            .expect("a worker compaction is expected");
        let fx = self.send(compaction("manual", Some(&marker)));
        assert_eq!(kinds(&fx), ["answer_compaction"]);
        self.confirm()
    }

    /// Boot acquired, boundary, intact boot row: returns the last call's effects.
    fn confirm(&mut self) -> Vec<Effect> {
        let g = self.generation();
        assert!(self.send(boot_ok(g, "B")).is_empty());
        assert!(
            self.send(evidence(g, "append", "boundary", None, false))
                .is_empty()
        );
        self.send(evidence(g, "append", "boot", Some("B"), true))
    }
}

fn eb(args: Value) -> Value {
    let mut event = json!({"type": "empty_brain", "agent": "main"});
    event["args"] = args;
    event
}

fn turn_step(turn: &str, index: u32) -> Value {
    json!({"type": "turn_step", "agent": "main", "turn_id": turn, "index": index})
}

fn step_over(turn: &str, index: u32) -> Value {
    json!({"type": "turn_step", "agent": "main", "turn_id": turn, "index": index,
           "context": {"tokens": 2000, "hard": 1000, "auto_clear": true}})
}

fn done(turn: &str, reason: &str) -> Value {
    json!({"type": "turn_complete", "agent": "main", "turn_id": turn, "reason": reason})
}

fn natural(phase: &str) -> Value {
    json!({"type": "natural_input", "phase": phase})
}

fn command(name: &str, busy: bool) -> Value {
    json!({"type": "command", "command": name, "busy": busy})
}

fn compaction(trigger: &str, instructions: Option<&str>) -> Value {
    json!({"type": "compaction", "agent": "main", "trigger": trigger, "instructions": instructions})
}

fn boot_ok(g: u64, uuid: &str) -> Value {
    json!({"type": "boot", "generation": g, "status": "acquired", "uuid": uuid})
}

fn evidence(g: u64, source: &str, what: &str, uuid: Option<&str>, intact: bool) -> Value {
    json!({"type": "commit_evidence", "generation": g, "source": source, "evidence": what,
           "uuid": uuid, "intact": intact})
}

fn kinds(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn answer(fx: &[Effect]) -> (Pool, Option<String>) {
    fx.iter()
        .find_map(|e| match e {
            Effect::AnswerCompaction { pool, sticky, .. } => Some((*pool, sticky.clone())),
            _ => None,
        })
        .expect("an answer_compaction effect")
}

/// Start turn t1, call `empty_brain`, end the turn at the next step, complete it.
fn requested(args: Value) -> Sim {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let fx = sim.send(eb(args));
    assert_eq!(kinds(&fx), ["tool_result"]);
    assert!(sim.flow.snapshot().end_turn_at_next_main_step);
    assert_eq!(kinds(&sim.send(turn_step("t1", 1))), ["end_turn"]);
    assert_eq!(kinds(&sim.send(done("t1", "answer"))), ["compact"]);
    sim
}

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

// ----- manual STOP -----

#[rstest]
#[case::empty_busy("empty", true)]
#[case::fresh_window_busy("fresh_window", true)]
fn stop_on_a_pending_tool_request_prevents_the_continuation(
    #[case] name: &str,
    #[case] busy: bool,
) {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(eb(json!({"last_word": "w"})));
    let fx = sim.send(command(name, busy));
    assert_eq!(kinds(&fx), ["report"], "STOP joins the pending reset");
    assert!(sim.flow.snapshot().stop);
    sim.send(turn_step("t1", 1));
    sim.send(done("t1", "answer"));
    let fx = sim.commit();
    assert_eq!(kinds(&fx), ["report"]);
}

#[test]
fn stop_on_an_in_flight_reset_prevents_the_continuation() {
    let mut sim = requested(json!({}));
    assert_eq!(kinds(&sim.send(command("empty", false))), ["report"]);
    assert_eq!(kinds(&sim.commit()), ["report"]);
}

#[rstest]
#[case::idle("empty", false, "submit")]
#[case::busy("fresh_window", true, "current_turn")]
fn a_command_closes_out_and_a_close_out_call_picks_the_pool_but_not_the_policy(
    #[case] name: &str,
    #[case] busy: bool,
    #[case] mode: &str,
) {
    let mut sim = Sim::new();
    if busy {
        sim.send(turn_step("t1", 0));
    }
    let fx = sim.send(command(name, busy));
    assert_eq!(kinds(&fx), ["report", "closeout"]);
    assert_eq!(serde_json::to_value(&fx[1]).unwrap()["mode"], mode);
    // The close-out turn (busy: the running turn's next request, which carries the
    // warning): the model saves notes and calls empty_brain without terminate.
    let carrying = u32::from(busy);
    sim.send(turn_step("t1", carrying));
    let fx = sim.send(eb(json!({"last_word": "saved", "terminate": false})));
    assert!(matches!(
        fx.as_slice(),
        [Effect::ToolResult {
            is_error: false,
            ..
        }]
    ));
    assert_eq!(
        kinds(&sim.send(turn_step("t1", carrying + 1))),
        ["end_turn"]
    );
    sim.send(done("t1", "answer"));
    let marker = sim.flow.expected_marker().unwrap();
    let fx = sim.send(compaction("manual", Some(&marker)));
    assert_eq!(answer(&fx), (Pool::Normal, Some("saved".into())));
    assert_eq!(kinds(&sim.confirm()), ["report"], "STOP cannot be undone");
}

/// A busy close-out's warning was carried by the running turn's next request: the turn's
/// own end starts the reset (no close-out turn of its own), STOP holds.
#[test]
fn a_busy_close_out_carried_by_the_running_turn_resets_when_it_ends() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    let fx = sim.send(command("empty", false));
    assert_eq!(kinds(&fx), ["report", "closeout"]);
    assert_eq!(
        serde_json::to_value(&fx[1]).unwrap()["mode"],
        "current_turn"
    );
    assert!(
        sim.send(turn_step("t1", 1)).is_empty(),
        "the step carrying it is not cut"
    );
    assert_eq!(kinds(&sim.send(done("t1", "answer"))), ["compact"]);
    assert_eq!(kinds(&sim.commit()), ["report"], "STOP: no continuation");
}

/// No request of the running turn carried the busy close-out's warning (typed during its
/// last step): the close-out becomes one hidden turn of its own, and only that turn's end
/// starts the reset.
#[test]
fn a_busy_close_out_no_request_carried_becomes_a_close_out_turn() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(command("fresh_window", false));
    let fx = sim.send(done("t1", "answer"));
    assert_eq!(
        kinds(&fx),
        ["closeout"],
        "no reset before the model could save notes"
    );
    assert_eq!(serde_json::to_value(&fx[0]).unwrap()["mode"], "submit");
    assert!(sim.flow.expected_marker().is_none());
    sim.send(turn_step("t2", 0));
    assert_eq!(kinds(&sim.send(done("t2", "answer"))), ["compact"]);
    assert_eq!(kinds(&sim.commit()), ["report"], "STOP: no continuation");
}

/// The shell may skip no main step while a busy close-out's warning waits for the request
/// that carries it: the flow must see that step, or it would close out a second time.
#[test]
fn a_busy_close_out_keeps_the_steps_coming() {
    let mut sim = Sim::new();
    let budget = crate::Budget {
        tokens: 1_000,
        hard: 150_000,
        warning: None,
        auto_clear: true,
    };
    sim.send(turn_step("t1", 0));
    sim.send(turn_step("t1", 1));
    assert!(sim.flow.quiet(&budget).is_some());
    sim.send(command("empty", false));
    assert_eq!(sim.flow.quiet(&budget), None);
    sim.send(turn_step("t1", 2));
    assert!(sim.flow.quiet(&budget).is_some());
}

#[test]
fn a_close_out_without_a_tool_call_uses_the_forced_pool() {
    let mut sim = Sim::new();
    sim.send(command("empty", false));
    sim.send(turn_step("c", 0));
    assert_eq!(kinds(&sim.send(done("c", "answer"))), ["compact"]);
    let marker = sim.flow.expected_marker().unwrap();
    assert_eq!(
        answer(&sim.send(compaction("manual", Some(&marker)))),
        (Pool::Forced, None)
    );
    assert_eq!(kinds(&sim.confirm()), ["report"]);
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

// ----- submission failures -----

#[rstest]
#[case::failed("failed")]
#[case::dropped("dropped")]
fn a_close_out_that_cannot_start_cancels_so_the_command_can_be_retried(#[case] status: &str) {
    let mut sim = Sim::new();
    sim.send(command("empty", false));
    let g = sim.generation();
    let fx = sim.send(
        json!({"type": "closeout", "generation": g, "status": status, "reason": "hook said no"}),
    );
    assert_eq!(kinds(&fx), ["cancel", "report"]);
    assert!(!sim.flow.snapshot().pending);
    assert_eq!(
        kinds(&sim.send(command("empty", false))),
        ["report", "closeout"]
    );
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

/// A clearing command with the window's fill not measured (a new or just-cleared window):
/// with nothing pending, one line that there is nothing to clear, and no request; a pending
/// reset is still stopped; under `DISABLE_COMPACT`, that refusal first, as it says why no
/// clear can ever run.
#[rstest]
#[case::nothing_pending(false, false, "/empty has nothing to clear yet")]
#[case::a_reset_pending(true, false, "/empty: saving notes")]
#[case::disable_compact(false, true, "/empty cannot run: DISABLE_COMPACT is set")]
fn a_command_with_nothing_measured(
    #[case] pending: bool,
    #[case] disable_compact: bool,
    #[case] says: &str,
) {
    let mut sim = Sim::new();
    if disable_compact {
        sim.send(json!({"type": "disable_compact", "set": true}));
    }
    if pending {
        sim.send(turn_step("t1", 0));
        sim.send(eb(json!({})));
        assert!(sim.flow.snapshot().pending);
    }
    let fx =
        sim.send(json!({"type": "command", "command": "empty", "busy": false, "measured": false}));
    assert!(
        matches!(fx.first(), Some(Effect::Report { text }) if text.starts_with(says)),
        "{fx:?}"
    );
    assert_eq!(sim.flow.snapshot().pending, pending);
    assert_eq!(sim.flow.snapshot().stop, pending);
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

fn warning_point(tokens: u64) -> Value {
    json!({"type": "warning_point", "tokens": tokens, "point": 1000})
}

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
