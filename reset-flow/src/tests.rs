//! Rule tables: one rstest table (or case) per rule of the reset flow. Events are written
//! as JSON, so these tests also pin the events' shapes (each variant's rustdoc).

use rstest::rstest;
use serde_json::{Value, json};

use crate::{Effect, Event, Flow, FlowError, Pool, step};

mod close_out;
mod commit;
pub(crate) mod explore;
mod natural;
mod request;
mod session;

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

fn warning_point(tokens: u64) -> Value {
    json!({"type": "warning_point", "tokens": tokens, "point": 1000})
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
