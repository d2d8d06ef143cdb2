//! Replays of real Claude Code 2.1.319 hook sequences (probe logs recorded by the offline
//! harness, `tests/data/*.probe.jsonl`) through the flow, with a test shell that does what
//! `EVENTS.md` asks of the hooks module: it translates each hook to its event, answers a
//! compaction's boot with the UUID of the row the engine then appended, and runs the
//! worker's compaction (here: the recorded manual compaction, carrying the worker's
//! marker). A few events are injected where the scenario needs them (the model's
//! `empty_brain`, a measured context); everything else is the engine's real order.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use notesoup_reset_flow::{Agent, Effect, Event, Flow, InputPhase, Measure, TurnEnd};
use serde_json::{Value, json};

fn log(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/data/{name}.probe.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn agent(line: &Value) -> Agent {
    if line.get("agentId").is_some() {
        Agent::Subagent
    } else {
        Agent::Main
    }
}

/// The effect's type; a refused tool call shows as `tool_error`.
fn kind(e: &Effect) -> String {
    if matches!(e, Effect::ToolResult { is_error: true, .. }) {
        return "tool_error".to_owned();
    }
    serde_json::to_value(e).unwrap()["type"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The test shell: state blob, a generation counter, and the facts a real shell tracks.
struct Shell {
    flow: Flow,
    generation: u64,
    main_running: bool,
    undelivered: bool,
    marker: Option<String>,
    /// `(log line seq, event type, effect kinds)` for every event sent.
    trace: Vec<(u64, String, Vec<String>)>,
}

impl Shell {
    fn new() -> Self {
        let mut shell = Shell {
            flow: Flow::default(),
            generation: 1,
            main_running: false,
            undelivered: false,
            marker: None,
            trace: Vec::new(),
        };
        shell.send(0, Event::Session { generation: 1 }, &[], 0);
        shell
    }

    fn send(&mut self, seq: u64, event: Event, lines: &[Value], at: usize) {
        let name = serde_json::to_value(&event).unwrap()["type"]
            .as_str()
            .unwrap()
            .to_owned();
        // Through the saved JSON each time, as the helper keeps it between processes.
        let saved = notesoup_reset_flow::Saved {
            process: None,
            flow: Some(self.flow.clone()),
        };
        let saved: notesoup_reset_flow::Saved =
            serde_json::from_value(serde_json::to_value(&saved).unwrap()).unwrap();
        let reply = notesoup_reset_flow::step(saved.flow.unwrap(), event);
        self.flow = reply.flow;
        self.trace
            .push((seq, name, reply.effects.iter().map(kind).collect()));
        for effect in reply.effects {
            match effect {
                Effect::Compact { marker, .. } => self.marker = Some(marker),
                Effect::AnswerCompaction { generation, .. } => {
                    // The hook returns the boot; the engine appends it as the next main
                    // compaction row: its UUID is the boot's.
                    let uuid = lines[at..]
                        .iter()
                        .find(|l| {
                            l["event"] == "session.append"
                                && l["door"] == "compaction"
                                && l["type"] == "user"
                                && agent(l) == Agent::Main
                        })
                        .map(|l| l["uuid"].as_str().unwrap().to_owned());
                    let event: Event = serde_json::from_value(json!({
                        "type": "boot", "generation": generation,
                        "status": "acquired", "uuid": uuid,
                    }))
                    .unwrap();
                    self.send(seq, event, lines, at);
                }
                _ => {}
            }
        }
    }

    /// The events a hook line stands for, as the hooks module would send them.
    fn translate(&mut self, line: &Value) -> Vec<Event> {
        let text = |k: &str| line[k].as_str().unwrap_or_default().to_owned();
        match line["event"].as_str().unwrap() {
            "turn.step" => {
                let mut out = vec![Event::TurnStep {
                    agent: agent(line),
                    turn_id: text("turnId"),
                    index: u32::try_from(line["index"].as_u64().unwrap()).unwrap(),
                    context: None,
                }];
                if agent(line) == Agent::Main {
                    self.main_running = true;
                    if std::mem::take(&mut self.undelivered) {
                        out.push(Event::NaturalInput {
                            phase: InputPhase::Delivered,
                        });
                    }
                }
                out
            }
            "turn.complete" => {
                if agent(line) == Agent::Main {
                    self.main_running = false;
                }
                vec![Event::TurnComplete {
                    agent: agent(line),
                    turn_id: text("turnId"),
                    reason: serde_json::from_value(line["reason"].clone())
                        .unwrap_or(TurnEnd::Other),
                    context: None,
                }]
            }
            "prompt.submit" => {
                self.undelivered = true;
                vec![Event::NaturalInput {
                    phase: if self.main_running {
                        InputPhase::Accepted
                    } else {
                        InputPhase::Queued
                    },
                }]
            }
            "session.compact" => {
                let mut instructions = line["instructions"].as_str().map(str::to_owned);
                if line["trigger"] == "manual"
                    && let Some(marker) = self.marker.take()
                {
                    // The recorded manual compaction stands for the worker's command.
                    instructions = Some(marker);
                }
                vec![Event::Compaction {
                    agent: agent(line),
                    trigger: serde_json::from_value(line["trigger"].clone()).unwrap(),
                    instructions,
                }]
            }
            "session.append" if line["door"] == "compaction" && agent(line) == Agent::Main => {
                let generation = self.flow.generation();
                let evidence = if line["name"] == "compact_boundary" {
                    json!({"type": "commit_evidence", "generation": generation,
                           "source": "append", "evidence": "boundary"})
                } else {
                    json!({"type": "commit_evidence", "generation": generation,
                           "source": "append", "evidence": "boot",
                           "uuid": line["uuid"], "intact": true})
                };
                vec![serde_json::from_value(evidence).unwrap()]
            }
            "session.end" => {
                self.generation += 1;
                vec![Event::Session {
                    generation: self.generation,
                }]
            }
            _ => Vec::new(),
        }
    }

    /// Replay a log; `inject` may change or add to the events of a line.
    fn replay(mut self, name: &str, inject: impl Fn(&Value, Vec<Event>) -> Vec<Event>) -> Self {
        let lines = log(name);
        for (at, line) in lines.iter().enumerate() {
            let events = self.translate(line);
            for event in inject(line, events) {
                self.send(line["seq"].as_u64().unwrap(), event, &lines, at + 1);
            }
        }
        self
    }

    /// Only the events that produced effects: `(event type, effect kinds)`.
    fn acted(&self) -> Vec<(String, Vec<String>)> {
        self.trace
            .iter()
            .filter(|(_, _, fx)| !fx.is_empty())
            .map(|(_, e, fx)| (e.clone(), fx.clone()))
            .collect()
    }
}

fn pairs(expected: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    expected
        .iter()
        .map(|(e, fx)| {
            (
                (*e).to_owned(),
                fx.iter().map(|s| (*s).to_owned()).collect(),
            )
        })
        .collect()
}

/// A context over the hard point (figures of the real 1M-window run: 980000 tokens).
const OVER: Measure = Measure {
    tokens: 980_000,
    hard: 958_808,
    auto_clear: true,
};

/// stream-json session: turn 2 runs Bash; the model also called `empty_brain` in that
/// batch. The recorded `/compact` after turn 2 stands for the worker's compaction.
#[test]
fn an_explicit_reset_over_a_real_tool_turn_and_compaction() {
    let shell = Shell::new().replay("stream-json-compact", |line, mut events| {
        if line["event"] == "tool.call" {
            events.push(Event::EmptyBrain {
                agent: Agent::Main,
                args: json!({"last_word": "check the probe output"}),
            });
        }
        events
    });
    assert_eq!(
        shell.acted(),
        pairs(&[
            ("empty_brain", &["tool_result"]),
            ("turn_step", &["end_turn"]),
            ("turn_complete", &["compact"]),
            ("compaction", &["answer_compaction"]),
            ("commit_evidence", &["continue"]),
        ])
    );
}

/// The same real session without any request: the person's `/compact` is vetoed.
#[test]
fn a_real_user_compact_is_vetoed() {
    let shell = Shell::new().replay("stream-json-compact", |_, events| events);
    assert_eq!(
        shell.acted(),
        pairs(&[("compaction", &["veto_compaction"])])
    );
}

/// stream-json session whose second prompt hit the engine's threshold: native auto
/// compaction ran before the turn's first step. With no request it gets a forced boot.
#[test]
fn a_real_auto_compaction_without_a_request_gets_a_forced_boot() {
    let shell = Shell::new().replay("stream-json-autocompact", |_, events| events);
    assert_eq!(
        shell.acted(),
        pairs(&[("compaction", &["answer_compaction"])])
    );
    assert!(!shell.flow.snapshot().pending);
}

/// The same session, measured over the hard point when turn 1 completed: the worker's
/// compaction is requested, but the person's next prompt is queued and the engine's auto
/// compaction consumes the request; the commit is confirmed by the real rows, and the
/// person's input, not a plugin continuation, carries the fresh window.
#[test]
fn a_real_auto_compaction_consumes_a_budget_request_and_natural_input_owns_the_window() {
    let shell = Shell::new().replay("stream-json-autocompact", |line, mut events| {
        if line["event"] == "turn.complete"
            && let Some(Event::TurnComplete { context, .. }) = events.first_mut()
            && line["seq"] == 19
        {
            *context = Some(OVER);
        }
        events
    });
    assert_eq!(
        shell.acted(),
        pairs(&[
            ("turn_complete", &["report", "compact"]),
            ("compaction", &["answer_compaction"]),
            ("commit_evidence", &["report"]),
        ])
    );
    let consumed = shell
        .trace
        .iter()
        .position(|(_, e, fx)| e == "compaction" && !fx.is_empty())
        .unwrap();
    assert!(
        shell.trace[..consumed]
            .iter()
            .any(|(_, e, _)| e == "natural_input"),
        "the prompt was queued before the compaction"
    );
    assert!(!shell.flow.snapshot().pending);
}

/// `-p` run whose main turn spawns a subagent: the subagent's `empty_brain` is refused,
/// its steps never end a turn, and the main step measured over the point (while the
/// subagent still runs) ends the main turn; the worker starts after the main turn only.
#[test]
fn a_real_subagent_run_never_touches_the_main_flow() {
    let shell = Shell::new().replay("print-subagent", |line, mut events| {
        match (line["event"].as_str(), agent(line), line["index"].as_u64()) {
            (Some("turn.step"), Agent::Subagent, _) => events.push(Event::EmptyBrain {
                agent: Agent::Subagent,
                args: json!({}),
            }),
            (Some("turn.step"), Agent::Main, Some(1)) => {
                if let Some(Event::TurnStep { context, .. }) = events.first_mut() {
                    *context = Some(OVER);
                }
            }
            _ => {}
        }
        events
    });
    assert_eq!(
        shell.acted(),
        pairs(&[
            ("empty_brain", &["tool_error"]),
            ("turn_step", &["report", "end_turn"]),
            ("turn_complete", &["compact"]),
            ("session", &["cancel"]),
        ])
    );
    // The session ended with the worker's compaction never run: the flow was discarded.
    assert!(!shell.flow.snapshot().pending);
}
