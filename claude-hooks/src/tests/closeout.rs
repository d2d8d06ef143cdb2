//! `/empty` and `/fresh-window` typed while a terminal turn runs: 2.1.319 runs them at once
//! (`immediate`), the shell says nothing of busy, and the flow's running main turn makes the
//! close-out use that turn; if no request of the turn carries it, a close-out turn follows.

use notesoup_reset_flow::{Budget, CloseoutMode, Effect, Pool, Saved};
use serde_json::{Value, json};

use crate::{CapAsk, Hook, Resolve, hook_saved};

/// A call's world: well below every point, or with no fill measured (`None`).
struct World(Option<u64>);

impl Resolve for World {
    fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
        self.0.map(|tokens| Budget {
            tokens,
            hard: 100_000,
            warning: None,
            auto_clear: true,
        })
    }
    fn compaction_disabled(&self) -> Option<bool> {
        None
    }
    fn interactive(&self) -> Option<bool> {
        None
    }
    fn boot(
        &mut self,
        ordinal: u32,
        _reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        Ok((format!("claude:s1:{ordinal}"), "boot".into()))
    }
    fn session(&self) -> &'static str {
        "s1"
    }
    fn transcript_window(&mut self) -> Option<u32> {
        None
    }
    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        Err(format!("no `/notesoup {args}` in these tests"))
    }
    fn cap_status(&mut self, _cap: Option<u64>, _ordinal: Option<u32>) -> String {
        String::new()
    }
}

/// The calls of one process, in order, on one saved flow.
struct Calls(Option<Saved>);

impl Calls {
    fn call(&mut self, raw: Value, fill: Option<u64>) -> Vec<Effect> {
        let hook: Hook = serde_json::from_value(raw).unwrap();
        let (saved, reply) = hook_saved(self.0.as_ref(), "p1", &hook, &mut World(fill));
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
