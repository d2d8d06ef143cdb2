//! Natural input typed while a main turn runs, through the hook calls in the order the real
//! engine makes them (the e2e scenario s09, Claude Code 2.1.319 in stream-json).
//!
//! Measured (s09 run dirs, and a probe of `e.turnId`/`e.door`): the engine raises
//! `prompt.submit` for input typed mid-turn when it takes it off its queue into the
//! running turn, after the tool batch and before the next `turn.step`; `e.turnId` names
//! the running turn. It then appends the input as a `queued_command` attachment (door
//! `queue`) and raises that row's `session.append` and the next `turn.step` without
//! waiting for one another: the two helper calls race for the flow's lock. In about one
//! run in three the step came first, was answered `end_turn`, and the input, already
//! taken off the queue (reason `absorbed_mid_turn`), never reached the model.

use notesoup_reset_flow::{Effect, Event, Flow};
use rstest::rstest;
use serde_json::{Value, json};

use super::world::World;
use crate::{Hook, apply};

fn call(flow: &mut Flow, raw: Value) -> Vec<String> {
    let hook: Hook = serde_json::from_value(raw).expect("the hook parses");
    kinds(&apply(flow, &hook, &mut World::default()))
}

fn kinds(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .map(|e| {
            serde_json::to_value(e).expect("effect")["type"]
                .as_str()
                .expect("type")
                .to_owned()
        })
        .collect()
}

/// A headless session whose first turn called `empty_brain` and ran a tool: the batch is
/// done, the cutoff is armed for the turn's next step.
fn requested() -> Flow {
    let mut flow = Flow::new(1);
    call(
        &mut flow,
        json!({"event": "session.start", "facts": {"disable_compact": false, "interactive": false}}),
    );
    call(
        &mut flow,
        json!({"event": "prompt.context", "facts": {"kept": []}}),
    );
    call(
        &mut flow,
        json!({"event": "prompt.submit", "facts": {"origin": "sdk"}}),
    );
    call(
        &mut flow,
        json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 0}}),
    );
    // The helper's `tool` op steps the flow with the model's call.
    let event: Event = serde_json::from_value(
        json!({"type": "empty_brain", "agent": "main", "args": {"last_word": "LW-NINE"}}),
    )
    .expect("event");
    assert_eq!(kinds(&flow.handle(event)), ["tool_result"]);
    call(
        &mut flow,
        json!({"event": "tool.call", "facts": {"agent": "main", "denied": false}}),
    );
    assert!(flow.snapshot().end_turn_at_next_main_step);
    flow
}

const MID_TURN: &str = r#"{"event": "prompt.submit", "facts": {"origin": "sdk", "turn_id": "t1"}}"#;
const STEP: &str =
    r#"{"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 1}}"#;
const QUEUE_ROW: &str = r#"{"event": "session.append", "facts": {"agent": "main", "door": "queue", "kind": "attachment", "role": "user"}}"#;

fn raw(s: &str) -> Value {
    serde_json::from_str(s).expect("json")
}

/// Either order of the queue row and the step the engine does not order: the step carries
/// the input to the model (no `end_turn`), and the reset commits after that turn, with no
/// plugin continuation over the person's input.
#[rstest]
#[case::step_before_the_queue_row(true)]
#[case::queue_row_before_the_step(false)]
fn input_taken_into_the_running_turn_releases_the_cutoff_whichever_hook_comes_first(
    #[case] step_first: bool,
) {
    let mut flow = requested();
    assert!(call(&mut flow, raw(MID_TURN)).is_empty());
    let order = if step_first {
        [STEP, QUEUE_ROW]
    } else {
        [QUEUE_ROW, STEP]
    };
    for hook in order {
        assert!(
            call(&mut flow, raw(hook)).is_empty(),
            "{hook} must not end the turn that carries the person's input"
        );
    }
    let fx = call(
        &mut flow,
        json!({"event": "turn.complete", "facts": {"agent": "main", "turn_id": "t1", "reason": "answer"}}),
    );
    assert_eq!(fx, ["compact"], "the reset commits after the natural turn");
    assert!(
        flow.snapshot().stop,
        "the person's input owns the window: no continuation"
    );
}

/// The control: with no input typed into the turn, its opening prompt (submitted idle, no
/// turn id) does not release the cutoff, and the step after the batch ends the turn.
#[test]
fn without_input_typed_into_the_turn_the_cutoff_ends_it() {
    let mut flow = requested();
    assert_eq!(call(&mut flow, raw(STEP)), ["end_turn"]);
}

/// An automatic compaction answered with the boot keeps the person's input no request
/// answered yet (typed into the running turn, or the prompt a "prompt is too long" came
/// back for), as Claude's own summary keeps it; a manual one (the reset's own command,
/// after a whole turn) keeps nothing, and nor does a subagent's.
#[test]
fn an_automatic_compaction_keeps_the_persons_unanswered_input() {
    let tail = json!([
        {"role": "user", "results": false, "text": "Work on."},
        {"role": "assistant", "results": false, "text": "Working."},
        {"role": "user", "results": true, "text": ""},
        {"role": "user", "results": false, "text": "NATURAL: please also do this"},
    ]);
    let kept = |trigger: &str, agent: &str| {
        let mut flow = requested();
        let hook: Hook = serde_json::from_value(json!({"event": "session.compact",
            "facts": {"agent": agent, "trigger": trigger, "tail": tail}}))
        .expect("the hook parses");
        apply(&mut flow, &hook, &mut World::default())
            .into_iter()
            .find_map(|e| match e {
                Effect::AnswerCompaction { keep, text, .. } => Some((keep, text.is_some())),
                _ => None,
            })
    };
    let (keep, built) = kept("auto", "main").expect("answered with the boot");
    assert!(built);
    assert_eq!(
        keep,
        [notesoup_reset_flow::Kept {
            at: 3,
            text_only: false
        }]
    );
    if let Some((keep, _)) = kept("manual", "main") {
        assert!(keep.is_empty(), "{keep:?}");
    }
}
