//! `/empty` and `/fresh-window`: the close-out, idle and busy, and the STOP it sets.

use super::*;

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

/// A busy `/empty` whose close-out warning the model ignores: the hard point still ends the
/// turn at its next step (the request the person asked for gets the cutoff it had not), and
/// the reset follows the turn with STOP (the reset-flow audit of stop 44, F3: the turn ran
/// on past the hard point). A request natural input took over is left to its turn.
#[test]
fn the_hard_point_cuts_a_turn_whose_busy_close_out_was_ignored() {
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    sim.send(command("empty", false));
    // The close-out's warning rides on step 1; the model works on.
    sim.send(turn_step("t1", 1));
    assert!(sim.flow.cutoff.is_none(), "no cutoff before the hard point");
    let fx = sim.send(step_over("t1", 2));
    assert_eq!(kinds(&fx), ["report", "end_turn"], "{fx:?}");
    assert_eq!(kinds(&sim.send(done("t1", "answer"))), ["compact"]);
    // Natural input took the request over: its turn runs on past the point.
    let mut sim = Sim::new();
    sim.send(turn_step("t2", 0));
    sim.send(command("empty", false));
    sim.send(natural("accepted"));
    sim.send(turn_step("t2", 1));
    let fx = sim.send(step_over("t2", 2));
    assert!(!kinds(&fx).contains(&"end_turn".to_owned()), "{fx:?}");
}

/// A close-out carries the shared budget warning, so the warning point adds no second copy
/// while one is out, busy or idle (the reset-flow audit of stop 44, F6: `a15`, where the
/// model ignored a busy `/empty` and its next tool result carried the warning again). A
/// close-out cancelled leaves the window's warning due: the window goes on.
#[test]
fn the_warning_point_adds_no_copy_beside_a_close_out() {
    // Busy: the close-out rides on the running turn, and the model works on past the point.
    let mut sim = Sim::new();
    sim.send(turn_step("t1", 0));
    assert_eq!(
        kinds(&sim.send(command("empty", false))),
        ["report", "closeout"]
    );
    sim.send(turn_step("t1", 1));
    let fx = sim.send(warning_point(1500));
    assert!(fx.is_empty(), "a second copy of the warning: {fx:?}");
    // Idle: the close-out's own turn carries it.
    let mut sim = Sim::new();
    assert_eq!(
        kinds(&sim.send(command("empty", false))),
        ["report", "closeout"]
    );
    sim.send(json!({"type": "prompt_submitted", "natural": false}));
    sim.send(turn_step("c", 0));
    sim.send(turn_step("c", 1));
    let fx = sim.send(warning_point(1500));
    assert!(fx.is_empty(), "a second copy of the warning: {fx:?}");
    // The close-out turn fails: the request is cancelled, and the window's warning is due.
    let fx = sim.send(done("c", "error"));
    assert!(kinds(&fx).contains(&"cancel".to_owned()), "{fx:?}");
    assert_eq!(kinds(&sim.send(warning_point(1500))), ["warn"]);
}

/// An SDK client sends `/empty` and, at once, a message: the engine runs the message's turn
/// first. The reset waits for the close-out's own turn, so the model saves its notes in the
/// window being cleared, its `empty_brain` joins the STOP request, and one reset follows
/// with no continuation (the reset-flow audit of stop 44, F2: the reset ran after the
/// message's turn, the close-out then ran in the fresh window, and its `empty_brain` opened
/// a second reset that continued over STOP).
#[test]
fn a_message_run_before_an_idle_close_out_does_not_start_the_reset() {
    let mut sim = Sim::new();
    let fx = sim.send(command("empty", false));
    assert_eq!(kinds(&fx), ["report", "closeout"], "{fx:?}");
    // The person's message, submitted after the close-out, runs first.
    sim.send(json!({"type": "prompt_submitted", "natural": true}));
    sim.send(turn_step("n", 0));
    assert!(
        !kinds(&sim.send(done("n", "answer"))).contains(&"compact".to_owned()),
        "the reset started before the close-out ran"
    );
    // Then the close-out's own turn: its call joins the request, and the reset follows.
    sim.send(json!({"type": "prompt_submitted", "natural": false}));
    sim.send(turn_step("c", 0));
    sim.send(eb(json!({"last_word": "saved", "terminate": false})));
    assert_eq!(kinds(&sim.send(done("c", "answer"))), ["compact"]);
    assert_eq!(
        kinds(&sim.commit()),
        ["report"],
        "STOP holds: no continuation"
    );
}
