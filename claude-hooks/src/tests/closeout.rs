//! `/empty` and `/fresh-window` typed while a terminal turn runs: 2.1.319 runs them at once
//! (`immediate`), the shell says nothing of busy, and the flow's running main turn makes the
//! close-out use that turn; if no request of the turn carries it, a close-out turn follows.

use notesoup_reset_flow::{CloseoutMode, Effect, Saved};
use serde_json::{Value, json};

use super::world::World;
use crate::{Hook, hook_saved};

/// The calls of one process, in order, on one saved flow.
struct Calls(Option<Saved>);

impl Calls {
    fn call(&mut self, raw: Value, fill: Option<u64>) -> Vec<Effect> {
        let hook: Hook = serde_json::from_value(raw).unwrap();
        let (saved, reply) = hook_saved(
            self.0.as_ref(),
            "p1",
            &hook,
            &mut fill.map_or_else(World::default, |tokens| World::fill(tokens, 100_000)),
        );
        self.0 = Some(saved);
        reply.effects
    }
}

fn step(index: u32) -> Value {
    json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": index}})
}

fn complete() -> Value {
    json!({"event": "turn.complete", "facts": {"agent": "main", "turn_id": "t1", "reason": "answer"}})
}

fn empty() -> Value {
    json!({"event": "command.run", "facts": {"command": "empty"}})
}

fn closeout(fx: &[Effect]) -> Option<CloseoutMode> {
    fx.iter().find_map(|e| match e {
        Effect::Closeout { mode, .. } => Some(*mode),
        _ => None,
    })
}

/// A turn that has made its first request, then the command typed while its tool runs.
fn typed_mid_turn() -> (Calls, Vec<Effect>) {
    let mut calls = Calls(None);
    calls.call(step(0), Some(500));
    let fx = calls.call(empty(), Some(500));
    (calls, fx)
}

#[test]
fn a_clear_command_typed_mid_turn_uses_the_running_turn() {
    let (mut calls, fx) = typed_mid_turn();
    assert_eq!(closeout(&fx), Some(CloseoutMode::CurrentTurn), "{fx:?}");
    // The turn's next request carries the warning; the turn's own end starts the reset.
    assert_eq!(closeout(&calls.call(step(1), Some(600))), None);
    let fx = calls.call(complete(), Some(600));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Compact { .. })),
        "{fx:?}"
    );
    assert_eq!(closeout(&fx), None);
}

#[test]
fn a_clear_command_typed_in_the_last_step_gets_a_close_out_turn() {
    let (mut calls, _) = typed_mid_turn();
    let fx = calls.call(complete(), Some(600));
    assert_eq!(closeout(&fx), Some(CloseoutMode::Submit), "{fx:?}");
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::Compact { .. })),
        "a reset before the model could save notes: {fx:?}"
    );
}

#[test]
fn a_close_out_turn_with_no_fill_measured_fails_in_the_same_call() {
    let (mut calls, _) = typed_mid_turn();
    let fx = calls.call(complete(), None);
    assert_eq!(closeout(&fx), None, "{fx:?}");
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Cancel { .. })),
        "the request is not cancelled: {fx:?}"
    );
}

/// `/empty` in a session with no fill measured and no reset pending (`claude -p /empty` on a
/// new session): one line saying why it cannot run, and nothing started, promised or
/// cancelled. With a reset pending the command still stops it (a tool asked first).
#[test]
fn a_clear_command_with_nothing_measured_says_why_and_starts_nothing() {
    let mut calls = Calls(None);
    let fx = calls.call(empty(), None);
    assert!(
        matches!(&fx[..], [Effect::Report { text }] if text.starts_with("/empty has nothing to clear yet: this window has no answer")),
        "{fx:?}"
    );
    let pending = (calls.0.as_ref())
        .and_then(|saved| saved.flow.as_ref())
        .is_some_and(|flow| flow.snapshot().pending);
    assert!(!pending, "a request was started");
}

/// Settings that leave notesoup no points are not an unanswered window: `/fresh-window`
/// and `/empty` try their close-out, which has no warning to carry and fails saying why
/// (the reset-flow audit of stop 44, F4: they said the window had no answer in it).
#[test]
fn a_clear_command_with_no_points_placed_says_why_not_that_the_window_is_empty() {
    let why = "notesoup's budget points cannot be placed with these settings (no room)";
    for command in ["empty", "fresh_window"] {
        let hook: Hook =
            serde_json::from_value(json!({"event": "command.run", "facts": {"command": command}}))
                .unwrap();
        let mut world = World {
            unplaced: Some(why.to_owned()),
            ..World::default()
        };
        let (_, reply) = hook_saved(None, "p1", &hook, &mut world);
        let said = format!("{:?}", reply.effects);
        assert!(
            !said.contains("has nothing to clear yet"),
            "{command}: {said}"
        );
        assert!(said.contains(why), "{command}: {said}");
        assert!(
            !reply.flow.snapshot().pending,
            "{command}: the request is cancelled, so the command can run again"
        );
    }
    // So is a busy `/empty` whose turn ended before a request carried it: its close-out turn
    // fails saying why, not that no usage was measured.
    let (calls, _) = typed_mid_turn();
    let hook: Hook = serde_json::from_value(complete()).unwrap();
    let mut world = World {
        unplaced: Some(why.to_owned()),
        ..World::default()
    };
    let (_, reply) = hook_saved(calls.0.as_ref(), "p1", &hook, &mut world);
    let said = format!("{:?}", reply.effects);
    assert!(
        said.contains(why) && !said.contains("no context usage"),
        "{said}"
    );
}
