//! The hook explorer: every sequence of engine hook calls up to [`HOOK_DEPTH`] from a
//! fresh flow; each event a hook hands the flow goes through the flow's own monitor
//! (`notesoup_reset_flow::monitor`), and [`Watch`] and `Flow::quiet` keep their promises in
//! every state reached.

use std::cell::RefCell;
use std::collections::HashMap;

use notesoup_reset_flow::monitor::{Ghost, Layer, canonical, check, reach};
use notesoup_reset_flow::{Budget, CopyVerdict, Effect, Event, Flow, Pool};
use serde_json::{Value, json};

use crate::{CapAsk, Hook, KeptBoot, Resolve, Watch, apply};

/// Print a figure in the test output even when it is captured: libtest captures the print
/// macros, not a direct write to stderr.
fn report(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\n{line}");
}

/// One event a hook call handled: the state before, the event, the state after, its effects.
type Traced = (Flow, Event, Flow, Vec<Effect>);

thread_local! {
    /// The events the hook layer handled in this thread since the last `take_trace`.
    static TRACE: RefCell<Vec<Traced>> = const { RefCell::new(Vec::new()) };
}

/// Called by the hook layer (tests only) for every event it hands the flow.
pub(crate) fn record(pre: Flow, event: Event, post: Flow, fx: Vec<Effect>) {
    TRACE.with(|t| t.borrow_mut().push((pre, event, post, fx)));
}

fn take_trace() -> Vec<Traced> {
    TRACE.with(|t| std::mem::take(&mut *t.borrow_mut()))
}

/// The helper's world for the explorer: the budget the alphabet entry names, and the boot
/// (identity `B`, text `T`, as the event explorers' `boot` events give them).
struct Stub(Option<Budget>);

impl Resolve for Stub {
    fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
        self.0
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
        // The identity and text the monitor knows a built boot by (`B`, `T`).
        let _ = ordinal;
        Ok(("B".to_owned(), "T".to_owned()))
    }

    fn session(&self) -> &'static str {
        "s1"
    }

    fn transcript_window(&mut self) -> Option<u32> {
        None
    }

    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        // The alphabet's one `/notesoup` (the grammar is notesoup-thresholds').
        match args {
            "cap 100000" => Ok(CapAsk::Set(Some(100_000))),
            "" => Ok(CapAsk::Show),
            other => Err(format!("the explorer sends no `/notesoup {other}`")),
        }
    }

    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>, _removed: bool) -> String {
        format!("cap {cap:?}, window {ordinal:?}")
    }
}

/// One step of the hook explorer: an engine hook call (with the budget the helper would
/// resolve), or the own tool's `empty_brain` event (op `tool` sends it as an event).
#[derive(Clone)]
enum Call {
    Hook(Value, Hook, Option<Budget>),
    Event(Value, Event),
}

#[allow(
    clippy::too_many_lines,
    reason = "the alphabet: one line per hook call, as the JSON the shell sends"
)]
/// The hook calls, made concrete against the state (the live generation, the worker's
/// marker, the boot the flow installed).
fn hook_alphabet(flow: &Flow) -> Vec<Call> {
    let g = flow.generation();
    let marker = flow
        .expected_marker()
        .unwrap_or_else(|| "notesoup-reset g9 r9 a9".to_owned());
    let point = Budget {
        tokens: 950,
        hard: 1000,
        warning: Some(900),
        auto_clear: true,
    };
    let (warn, over) = (
        Some(point),
        Some(Budget {
            tokens: 2000,
            ..point
        }),
    );
    let (window, text) = flow.installed().map_or_else(
        || ("B".to_owned(), "T".to_owned()),
        |i| (i.identity.to_owned(), i.text.unwrap_or_default().to_owned()),
    );
    let kept = json!([{"window": window, "ordinal": 1, "text": text}]);
    let hook = |raw: Value, budget: Option<Budget>| {
        let parsed: Hook = serde_json::from_value(raw.clone()).expect("hook alphabet parses");
        Call::Hook(raw, parsed, budget)
    };
    let event = |raw: Value| {
        let parsed: Event = serde_json::from_value(raw.clone()).expect("event parses");
        Call::Event(raw, parsed)
    };
    vec![
        hook(
            json!({"event": "session.start", "facts": {"disable_compact": false, "interactive": true}}),
            None,
        ),
        hook(
            json!({"event": "prompt.context", "facts": {"kept": []}}),
            None,
        ),
        hook(
            json!({"event": "prompt.context", "facts": {"kept": [{"window": "claude:s1:2", "ordinal": 2, "text": "B"}]}}),
            None,
        ),
        // A fork's: the parent's boot (a compaction's message) is the newest kept.
        hook(
            json!({"event": "prompt.context", "facts": {"kept": [{"window": "claude:s0:2", "ordinal": 2, "text": "B"}]}}),
            None,
        ),
        hook(
            json!({"event": "prompt.submit", "facts": {"origin": "composer"}}),
            warn,
        ),
        // Typed while turn t1 ran: the engine takes it into the running turn (src/tests/natural.rs).
        hook(
            json!({"event": "prompt.submit", "facts": {"origin": "composer", "turn_id": "t1"}}),
            None,
        ),
        // A fork's first prompt before its prompt.context (the kept boots ride with it).
        hook(
            json!({"event": "prompt.submit", "facts": {"origin": "composer", "kept": [{"window": "claude:s0:2", "ordinal": 2, "text": "B"}]}}),
            None,
        ),
        hook(
            json!({"event": "prompt.dropped", "facts": {"generation": g}}),
            None,
        ),
        hook(
            json!({"event": "tool.call", "facts": {"agent": "main"}}),
            warn,
        ),
        hook(
            json!({"event": "tool.call", "facts": {"agent": "main"}}),
            over,
        ),
        event(json!({"type": "empty_brain", "agent": "main", "args": {"last_word": "w"}})),
        hook(
            json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 0}}),
            None,
        ),
        hook(
            json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 1, "kept": kept}}),
            None,
        ),
        hook(
            json!({"event": "turn.complete", "facts": {"agent": "main", "turn_id": "t1", "reason": "answer"}}),
            None,
        ),
        hook(
            json!({"event": "turn.complete", "facts": {"agent": "main", "turn_id": "t1", "reason": "error", "continuation": g}}),
            None,
        ),
        hook(
            json!({"event": "session.append", "facts": {"agent": "main", "door": "queue"}}),
            None,
        ),
        hook(
            json!({"event": "session.append", "facts": {"agent": "main", "door": "compaction", "kind": "system"}}),
            None,
        ),
        hook(
            json!({"event": "session.append", "facts": {"agent": "main", "door": "prompt", "role": "user", "text": text, "window": window}}),
            None,
        ),
        hook(
            json!({"event": "session.compact", "facts": {"agent": "main", "trigger": "manual", "instructions": marker}}),
            None,
        ),
        hook(
            json!({"event": "session.compact", "facts": {"agent": "main", "trigger": "auto"}}),
            None,
        ),
        hook(
            json!({"event": "session.compacted", "facts": {"agent": "main"}}),
            None,
        ),
        hook(
            json!({"event": "compact.done", "facts": {"generation": g, "status": "failed"}}),
            None,
        ),
        hook(
            json!({"event": "command.run", "facts": {"command": "empty"}}),
            None,
        ),
        hook(
            json!({"event": "command.run", "facts": {"command": "notesoup", "args": "cap 100000"}}),
            None,
        ),
        hook(
            json!({"event": "prompt.attachment", "facts": {"attachment": "# notesoup\n<notesoup-boot window=\"claude:s1:0\">\n</notesoup-boot>"}}),
            None,
        ),
        hook(
            json!({"event": "prompt.attachment", "facts": {"attachment": "# notesoup\n<notesoup-boot window=\"claude:s0:2\">\n</notesoup-boot>"}}),
            None,
        ),
    ]
}

/// `Flow::watch`'s promise in `flow`: a main append through a door it does not name changes
/// nothing (neither the state nor effects), whatever the row.
fn watch_holds(flow: &Flow, raw: &Value) {
    let doors = Watch::of(flow, "claude", "s1").append_doors;
    if doors.iter().any(|d| d == "*") {
        return;
    }
    for door in ["queue", "prompt", "note", "compaction"] {
        if doors.iter().any(|d| d == door) {
            continue;
        }
        let call = json!({"event": "session.append", "facts": {"agent": "main", "door": door, "kind": "user", "role": "user"}});
        let hook: Hook = serde_json::from_value(call.clone()).expect("parses");
        let mut after = flow.clone();
        let fx = apply(&mut after, &hook, &mut Stub(None));
        take_trace();
        assert!(
            fx.is_empty() && after == *flow,
            "watch names doors {doors:?} yet {call} changed something after {raw}:\n{flow:?}\n->\n{after:?}\neffects {fx:?}"
        );
    }
}

/// `Watch::copy_kept`'s promise in `flow`: a `prompt.attachment` the shell skips
/// ([`Watch::skips_attachment`]) changes nothing, whatever else the text holds around the
/// one boot opener (a heading and other sections, no closing line, an opener not at a
/// line's start or not ending its line); each text the shell would send instead is one it
/// does not skip.
fn copy_kept_holds(flow: &Flow, raw: &Value) {
    let watch = Watch::of(flow, "claude", "s1");
    let Some(line) = watch.copy_kept.clone() else {
        return;
    };
    let skipped = [
        format!("{line}\nT\n</notesoup-boot>"),
        format!("# notesoup\n{line}\nnotes\n</notesoup-boot>\n# other\nx"),
        format!("# a\nb\n# notesoup\n{line}\n</notesoup-boot>"),
        format!("x {line}\n</notesoup-boot>"),
        format!("{line}x\n</notesoup-boot>"),
        format!("# notesoup\n{line}\nnotes"),
    ];
    for text in &skipped {
        assert!(watch.skips_attachment(text), "not skipped: {text}");
        let call = json!({"event": "prompt.attachment", "facts": {"attachment": text}});
        let hook: Hook = serde_json::from_value(call.clone()).expect("parses");
        let mut after = flow.clone();
        let fx = apply(&mut after, &hook, &mut Stub(None));
        take_trace();
        let kept = fx.iter().all(|e| {
            matches!(
                e,
                Effect::BootCopy {
                    verdict: CopyVerdict::Keep,
                    ..
                }
            )
        });
        assert!(
            kept && after == *flow,
            "copy_kept {line} yet {call} changed something after {raw}:\n{flow:?}\n->\n{after:?}\neffects {fx:?}"
        );
    }
    let other = "<notesoup-boot window=\"claude:s0:0\">\n</notesoup-boot>";
    for text in [
        format!("{other}\n{line}\n</notesoup-boot>"),
        format!("{line}\n</notesoup-boot>\n{other}"),
        format!("{line}\n</notesoup-boot>\n{line}\n</notesoup-boot>"),
        other.to_owned(),
    ] {
        assert!(!watch.skips_attachment(&text), "skipped: {text}");
    }
}

/// `Flow::quiet`'s promise in `flow`: under the explorer's points (and under points with no
/// warning and no automatic clear), a main tool result and a later main step of the running
/// turn whose fill is below the quiet point change nothing, neither the state nor effects.
fn quiet_holds(flow: &Flow, raw: &Value) {
    let points = [
        Budget {
            tokens: 0,
            hard: 1000,
            warning: Some(900),
            auto_clear: true,
        },
        Budget {
            tokens: 0,
            hard: 1000,
            warning: None,
            auto_clear: false,
        },
    ];
    for points in points {
        let Some(quiet) = flow.quiet(&points) else {
            continue;
        };
        let fills = [0, quiet.below.min(points.hard + 5_000).saturating_sub(1)];
        for tokens in fills.into_iter().filter(|t| *t < quiet.below) {
            let budget = Some(Budget { tokens, ..points });
            let mut calls = vec![json!({"event": "tool.call", "facts": {"agent": "main"}})];
            if let Some(turn) = &quiet.turn {
                for index in [1, 7] {
                    calls.push(json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": turn, "index": index}}));
                }
            }
            for call in calls {
                let hook: Hook = serde_json::from_value(call.clone()).expect("parses");
                let mut after = flow.clone();
                let fx = apply(&mut after, &hook, &mut Stub(budget));
                take_trace();
                assert!(
                    fx.is_empty() && after == *flow,
                    "quiet below {} yet {call} at {tokens} changed something after {raw}:\n{flow:?}\n->\n{after:?}\neffects {fx:?}",
                    quiet.below
                );
            }
        }
    }
}

/// Every sequence of hook calls up to `depth` from a fresh flow: each event a hook hands
/// the flow goes through the same monitor as the event explorers.
fn explore_hooks(depth: usize) -> String {
    let mut layer: Layer = HashMap::new();
    layer.insert((canonical(Flow::new(1)), Ghost::default()), (1, Vec::new()));
    let (mut states, mut paths, mut transitions, mut events, mut width) =
        (layer.len(), 0_u128, 0_u64, 0_u64, 0);
    for _ in 0..depth {
        let mut next: Layer = HashMap::new();
        for ((flow, ghost), (count, trail)) in &layer {
            let calls = hook_alphabet(flow);
            width = calls.len();
            for call in calls {
                let mut post = flow.clone();
                let (raw, trace) = match &call {
                    Call::Hook(raw, hook, budget) => {
                        take_trace();
                        apply(&mut post, hook, &mut Stub(*budget));
                        (raw, take_trace())
                    }
                    Call::Event(raw, event) => {
                        let fx = post.handle(event.clone());
                        (raw, vec![(flow.clone(), event.clone(), post.clone(), fx)])
                    }
                };
                transitions += 1;
                quiet_holds(&post, raw);
                copy_kept_holds(&post, raw);
                watch_holds(&post, raw);
                let mut g = ghost.clone();
                for (pre, event, after, fx) in &trace {
                    events += 1;
                    g = check(pre, &g, event, after, fx).unwrap_or_else(|why| {
                        panic!("invariant broken: {why}\npath: {trail:#?}\nthen: {raw} ({event:?})\neffects: {fx:?}")
                    });
                }
                paths += count;
                reach(
                    &mut next,
                    (canonical(post), g),
                    *count,
                    trail,
                    &raw.to_string(),
                );
            }
        }
        states += next.len();
        layer = next;
    }
    format!(
        "claude-hooks explorer: depth {depth}, alphabet {width} hook calls, {states} distinct states, {transitions} transitions ({events} events), {paths} hook call sequences (all prefixes) checked"
    )
}

#[test]
fn every_hook_sequence_keeps_the_invariants() {
    report(&explore_hooks(HOOK_DEPTH));
}

/// The hook explorer's depth (each hook call is one to four events).
const HOOK_DEPTH: usize = 6;

#[test]
fn the_notesoup_command_reports_the_cap_kept_and_a_refused_one_changes_nothing() {
    let mut flow = Flow::new(1);
    let notesoup = |flow: &mut Flow, args: &str| {
        take_trace();
        let hook: Hook = serde_json::from_value(
            json!({"event": "command.run", "facts": {"command": "notesoup", "args": args}}),
        )
        .expect("parses");
        let fx = apply(flow, &hook, &mut Stub(None));
        let kinds: Vec<String> = take_trace()
            .iter()
            .map(|(_, e, _, _)| serde_json::to_value(e).expect("event")["type"].to_string())
            .collect();
        (fx, kinds)
    };
    let report = |text: &str| Effect::Report {
        text: text.to_owned(),
    };
    // A cap to set is `cap_changed`, and the line answers with the cap kept after it.
    let (fx, kinds) = notesoup(&mut flow, "cap 100000");
    assert_eq!(kinds, ["\"cap_changed\""]);
    assert_eq!(fx, [report("cap Some(100000), window None")]);
    // A refused one is answered with the refusal alone: no event, the cap stays.
    let before = flow.clone();
    let (fx, kinds) = notesoup(&mut flow, "cap 12");
    assert!(kinds.is_empty(), "{kinds:?}");
    assert_eq!(fx, [report("the explorer sends no `/notesoup cap 12`")]);
    assert_eq!(flow, before);
    // Shown: no event, the cap kept.
    let (fx, kinds) = notesoup(&mut flow, "");
    assert!(kinds.is_empty(), "{kinds:?}");
    assert_eq!(fx, [report("cap Some(100000), window None")]);
}

#[test]
fn the_hook_layer_reports_each_event_it_handles() {
    // A compaction answered in one call: `compaction`, then `boot` acquired.
    let mut flow = Flow::new(1);
    take_trace();
    let hook: Hook = serde_json::from_value(
        json!({"event": "session.compact", "facts": {"agent": "main", "trigger": "auto"}}),
    )
    .expect("parses");
    apply(&mut flow, &hook, &mut Stub(None));
    let kinds: Vec<String> = take_trace()
        .iter()
        .map(|(_, e, _, _)| serde_json::to_value(e).expect("event")["type"].to_string())
        .collect();
    assert_eq!(kinds, ["\"compaction\"", "\"boot\""]);
    let _ = KeptBoot {
        window: String::new(),
        ordinal: 0,
        text: String::new(),
    };
}
