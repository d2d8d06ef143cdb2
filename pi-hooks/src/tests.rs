//! The Pi event table, row by row: each event JSON the extension sends, stepped on a flow
//! with the helper played by the test.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap is a failed test"
)]

use notesoup_reset_flow::{Agent, Budget, Effect, Event, Flow, Pool};
use rstest::rstest;
use serde_json::{Value, json};

use crate::{CLOSEOUT_MESSAGE, CapAsk, HIDDEN_MESSAGE, PiHook, Resolve, apply};

/// The helper, played by the test.
struct World {
    budget: Option<Budget>,
    boot_fails: bool,
    session: &'static str,
    boots: Vec<(u32, Option<Pool>)>,
}

impl World {
    fn new() -> Self {
        Self {
            budget: Some(below()),
            boot_fails: false,
            session: "s",
            boots: Vec::new(),
        }
    }
}

/// The points of a 200000-token window with Pi's defaults: native 183616.
const HARD: u64 = 175_424;
const WARNING: u64 = 159_040;

fn at(tokens: u64) -> Budget {
    Budget {
        tokens,
        hard: HARD,
        warning: Some(WARNING),
        auto_clear: true,
    }
}

fn below() -> Budget {
    at(1000)
}

fn summary(session: &str, ordinal: u32) -> String {
    format!(
        "<notesoup-boot window=\"pi:{session}:{ordinal}\">\nnotes\n</notesoup-boot>\n\nHandoff."
    )
}

impl Resolve for World {
    fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
        self.budget
    }
    fn boot(
        &mut self,
        ordinal: u32,
        reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        self.boots.push((ordinal, reset.map(|(p, _)| p)));
        if self.boot_fails {
            return Err("the brain is unreadable".into());
        }
        Ok((
            format!("pi:{}:{ordinal}", self.session),
            summary(self.session, ordinal),
        ))
    }
    fn unreset_boot(&mut self) -> Result<String, String> {
        self.boots.push((0, None));
        if self.boot_fails {
            return Err("the brain is unreadable".into());
        }
        Ok(format!("unreset boot of {}", self.session))
    }
    fn session(&self) -> &str {
        self.session
    }
    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        match args {
            "" | "cap" => Ok(CapAsk::Show),
            "cap 100k" => Ok(CapAsk::Set(Some(100_000))),
            _ => Err(format!(
                "usage: /notesoup [cap [<tokens>|off]] (not {args:?})"
            )),
        }
    }
    fn cap_status(&mut self, cap: Option<u64>, ordinal: Option<u32>, _removed: bool) -> String {
        format!("cap {cap:?} window {ordinal:?}")
    }
}

fn hook(event: &str, facts: &Value) -> PiHook {
    serde_json::from_value(json!({"event": event, "facts": facts}))
        .unwrap_or_else(|e| panic!("{event} {facts}: {e}"))
}

/// A flow and its world, stepped event by event.
struct Session {
    flow: Flow,
    world: World,
}

impl Session {
    fn new() -> Self {
        let mut s = Self {
            flow: Flow::default(),
            world: World::new(),
        };
        s.on("session_start", &json!({"reason": "startup"}));
        s
    }

    fn on(&mut self, event: &str, facts: &Value) -> Vec<Effect> {
        apply(&mut self.flow, &hook(event, facts), &mut self.world)
    }

    fn empty_brain(&mut self, args: &Value) -> Vec<Effect> {
        self.flow.handle(Event::EmptyBrain {
            agent: Agent::Main,
            args: args.clone(),
        })
    }

    /// A prompt from `source` and the opening of its run `run`.
    fn prompt(&mut self, source: &str, run: u64, kept: Option<&str>) -> Vec<Effect> {
        let mut fx = self.on("input", &json!({"source": source}));
        fx.extend(self.on("before_agent_start", &json!({"kept": kept})));
        fx.extend(self.on("agent_start", &json!({"run": run})));
        fx.extend(self.on("turn_start", &json!({"run": run, "turn_index": 0})));
        fx
    }

    fn end(&mut self, run: u64, stop: &str, extra: &Value) -> Vec<Effect> {
        let mut facts = json!({"run": run, "stop_reason": stop});
        facts
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        self.on("agent_end", &facts)
    }

    fn ordinal(&self) -> Option<u32> {
        self.flow.snapshot().ordinal
    }
}

fn kinds(fx: &[Effect]) -> Vec<&'static str> {
    fx.iter()
        .map(|e| match e {
            Effect::ToolResult { .. } => "tool_result",
            Effect::EndTurn { .. } => "end_turn",
            Effect::Compact { .. } => "compact",
            Effect::AnswerCompaction { .. } => "answer_compaction",
            Effect::VetoCompaction { .. } => "veto_compaction",
            Effect::NativeCompaction => "native_compaction",
            Effect::Continue { .. } => "continue",
            Effect::Closeout { .. } => "closeout",
            Effect::Warn { .. } => "warn",
            Effect::AttachBoot { .. } => "attach_boot",
            Effect::AttachOwnBoot { .. } => "attach_own_boot",
            Effect::Log { .. } => "log",
            Effect::BootCopy { .. } => "boot_copy",
            Effect::Report { .. } => "report",
            Effect::Cancel { .. } => "cancel",
        })
        .collect()
}

/// Every example EVENTS.md and the docs give parses as the event it names.
#[rstest]
#[case(r#"{"event":"session_start","facts":{"reason":"startup"}}"#)]
#[case(r#"{"event":"input","facts":{"source":"interactive"}}"#)]
#[case(r#"{"event":"input","facts":{"source":"rpc","streaming":"steer"}}"#)]
#[case(r#"{"event":"input","facts":{"source":"extension","streaming":"follow_up"}}"#)]
#[case(r#"{"event":"before_agent_start","facts":{"kept":null}}"#)]
#[case(r#"{"event":"agent_start","facts":{"run":1}}"#)]
#[case(r#"{"event":"turn_start","facts":{"run":1,"turn_index":1}}"#)]
#[case(r#"{"event":"tool_result","facts":{"is_error":false}}"#)]
#[case(r#"{"event":"turn_end","facts":{"run":1,"turn_index":0}}"#)]
#[case(r#"{"event":"agent_end","facts":{"run":1,"stop_reason":"toolUse","cut":false}}"#)]
#[case(r#"{"event":"session_before_compact","facts":{"reason":"threshold"}}"#)]
#[case(r#"{"event":"session_compact","facts":{"from_extension":true,"summary":"x"}}"#)]
#[case(r#"{"event":"compact_done","facts":{"generation":0,"status":"ok"}}"#)]
#[case(r#"{"event":"continuation","facts":{"generation":0,"status":"failed","reason":"x"}}"#)]
#[case(r#"{"event":"closeout","facts":{"generation":0,"status":"failed","reason":"x"}}"#)]
#[case(r#"{"event":"command","facts":{"command":"fresh_window","busy":true}}"#)]
#[case(r#"{"event":"command","facts":{"command":"notesoup","args":"cap 100k"}}"#)]
fn every_documented_event_parses(#[case] text: &str) {
    let parsed: PiHook = serde_json::from_str(text).unwrap();
    let again: Value = serde_json::to_value(&parsed).unwrap();
    let original: Value = serde_json::from_str(text).unwrap();
    assert_eq!(again["event"], original["event"]);
}

#[rstest]
#[case(r#"{"event":"turn_end","facts":{}}"#)]
#[case(r#"{"event":"agent_settled","facts":{}}"#)]
#[case(r#"{"event":"input","facts":{"source":"keyboard"}}"#)]
#[case(r#"{"event":"session_before_compact","facts":{"reason":"later"}}"#)]
fn unknown_events_and_facts_are_refused(#[case] text: &str) {
    assert!(serde_json::from_str::<PiHook>(text).is_err(), "{text}");
}

#[test]
fn the_first_prompt_attaches_window_zero_to_the_system_prompt() {
    let mut s = Session::new();
    let fx = s.prompt("interactive", 1, None);
    assert_eq!(kinds(&fx), ["attach_boot"]);
    assert!(matches!(&fx[0], Effect::AttachBoot { ordinal: 0, text } if text.contains("pi:s:0")));
    assert_eq!(s.ordinal(), Some(0));
}

#[test]
fn a_kept_boot_names_the_window_and_nothing_is_attached() {
    let mut s = Session::new();
    let fx = s.prompt("interactive", 1, Some(&summary("s", 3)));
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(s.ordinal(), Some(3));
}

#[test]
fn a_forks_copied_boot_owes_the_session_its_own() {
    let mut s = Session::new();
    let fx = s.prompt("interactive", 1, Some(&summary("parent", 2)));
    assert_eq!(kinds(&fx), ["attach_own_boot"]);
    assert!(
        matches!(&fx[0], Effect::AttachOwnBoot { ordinal: 2, text: Some(t), .. } if t.contains("pi:s:2"))
    );
    // Delivered by the run's opening request: never again in this window.
    let fx = s.prompt("interactive", 2, Some(&summary("parent", 2)));
    assert!(fx.is_empty(), "{fx:?}");
}

#[test]
fn the_warning_rides_a_main_tool_result_once_per_window() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.world.budget = Some(at(WARNING + 10));
    let fx = s.on("tool_result", &json!({"is_error": false}));
    assert_eq!(kinds(&fx), ["warn"]);
    assert!(s.flow.snapshot().warned);
    assert!(s.on("tool_result", &json!({"is_error": false})).is_empty());
    // Each run's system prompt carries the window's boot again; the warning does not come back.
    assert_eq!(kinds(&s.prompt("interactive", 2, None)), ["attach_boot"]);
}

#[test]
fn a_failed_or_subagent_tool_result_carries_no_warning() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.world.budget = Some(at(WARNING + 10));
    assert!(s.on("tool_result", &json!({"is_error": true})).is_empty());
    assert!(
        s.on(
            "tool_result",
            &json!({"agent": "subagent", "is_error": false})
        )
        .is_empty()
    );
    assert!(!s.flow.snapshot().warned);
}

#[test]
fn the_warning_rides_a_prompt_and_is_delivered_by_its_opening_request() {
    let mut s = Session::new();
    s.world.budget = Some(at(WARNING + 10));
    let fx = s.prompt("interactive", 1, None);
    assert_eq!(kinds(&fx), ["attach_boot", "warn"]);
    assert!(s.flow.snapshot().warned);
}

/// `empty_brain`, the batch ends the run, the worker compacts with its marker, the answer is
/// the boot of window 1, Pi keeps it, and the continuation runs once.
#[test]
fn an_explicit_reset_answers_the_compaction_with_the_boot_and_continues_once() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    assert_eq!(
        kinds(&s.empty_brain(&json!({"last_word": "finish the parser"}))),
        ["tool_result"]
    );
    s.on("tool_result", &json!({"is_error": false}));
    // The tool result's `terminate: true` ended the run after its batch.
    let fx = s.end(1, "toolUse", &json!({}));
    let [Effect::Compact { marker, generation }] = &fx[..] else {
        panic!("{fx:?}");
    };
    let fx = s.on(
        "session_before_compact",
        &json!({"reason": "manual", "custom_instructions": marker}),
    );
    assert_eq!(kinds(&fx), ["answer_compaction"]);
    let Effect::AnswerCompaction {
        ordinal: 1,
        pool: Pool::Normal,
        sticky,
        text: Some(text),
        ..
    } = &fx[0]
    else {
        panic!("{fx:?}");
    };
    assert_eq!(sticky.as_deref(), Some("finish the parser"));
    assert_eq!(s.ordinal(), Some(1));
    let fx = s.on(
        "session_compact",
        &json!({"from_extension": true, "summary": text}),
    );
    assert_eq!(kinds(&fx), ["continue"]);
    let g = *generation;
    assert!(
        s.on("compact_done", &json!({"generation": g, "status": "ok"}))
            .is_empty()
    );
    // The continuation's run: not a person's input.
    let fx = s.prompt("extension", 2, Some(text));
    assert!(fx.is_empty(), "{fx:?}");
    let fx = s.end(2, "stop", &json!({"continuation": g}));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(!s.flow.snapshot().pending);
}

#[test]
fn terminate_true_makes_no_continuation() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({"terminate": true}));
    let fx = s.end(1, "toolUse", &json!({}));
    let [Effect::Compact { marker, .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    let fx = s.on(
        "session_before_compact",
        &json!({"reason": "manual", "custom_instructions": marker}),
    );
    let Effect::AnswerCompaction {
        text: Some(text), ..
    } = &fx[0]
    else {
        panic!("{fx:?}");
    };
    let fx = s.on(
        "session_compact",
        &json!({"from_extension": true, "summary": text}),
    );
    assert!(!kinds(&fx).contains(&"continue"), "{fx:?}");
}

/// Pi 1.6.0's `session_compact` may name an older entry with an equal summary; the shell
/// reads the leaf. A summary naming another window than the one answered is no proof.
#[test]
fn a_summary_of_another_window_is_no_proof_of_the_boot() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({}));
    let fx = s.end(1, "toolUse", &json!({}));
    let [Effect::Compact { marker, .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    s.on(
        "session_before_compact",
        &json!({"reason": "manual", "custom_instructions": marker}),
    );
    let fx = s.on(
        "session_compact",
        &json!({"from_extension": true, "summary": summary("s", 0)}),
    );
    assert_eq!(kinds(&fx), ["cancel", "report"]);
}

#[test]
fn pis_threshold_compaction_is_answered_with_the_boot_and_the_forced_handoff() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.end(1, "stop", &json!({}));
    let fx = s.on("session_before_compact", &json!({"reason": "threshold"}));
    assert_eq!(kinds(&fx), ["answer_compaction"]);
    assert!(matches!(
        &fx[0],
        Effect::AnswerCompaction {
            ordinal: 1,
            pool: Pool::Forced,
            text: Some(_),
            ..
        }
    ));
    assert_eq!(s.world.boots.last(), Some(&(1, Some(Pool::Forced))));
}

/// An automatic compaction keeps, after the boot, the branch from the person's first message
/// no response answered (a steered message its overflowing request carried, a first prompt
/// that overflowed Pi's first request); a message that holds a boot, tool results and an
/// empty message are not that, and a message of another role after the prompt answers
/// nothing. The worker's own keeps nothing.
#[rstest]
#[case::steered(json!([{"role": "toolResult", "text": "x"}, {"role": "user", "text": "also fix it"}]), vec![1])]
#[case::first_prompt(json!([{"role": "user", "text": "the first prompt"}]), vec![0])]
#[case::first_prompt_then_another_role(json!([{"role": "user", "text": "the first prompt"}, {"role": "custom", "text": summary("s1", 0)}]), vec![0])]
#[case::none(json!([{"role": "toolResult", "text": "x"}]), vec![])]
#[case::empty_or_boot(json!([{"role": "user", "text": "  "}, {"role": "user", "text": summary("s1", 0)}]), vec![])]
#[case::no_tail(json!([]), vec![])]
fn an_automatic_compaction_keeps_the_persons_unanswered_message(
    #[case] tail: Value,
    #[case] want: Vec<usize>,
) {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    let fx = s.on(
        "session_before_compact",
        &json!({"reason": "overflow", "tail": tail}),
    );
    let Some(Effect::AnswerCompaction { keep, .. }) = fx.first() else {
        panic!("{fx:?}");
    };
    assert_eq!(keep.iter().map(|k| k.at).collect::<Vec<_>>(), want);
    assert!(keep.iter().all(|k| !k.text_only));
}

/// Pi keeps the branch from the kept message on, so the extension's own hidden messages
/// after it are kept too: window 0's boot after a first prompt, a warning; the answer leaves
/// them out of every later request (the window the boot opens reads its own boot alone).
/// Those before the kept message are not kept at all, another extension's message stays, and
/// a compaction that keeps nothing leaves nothing out.
#[rstest]
#[case::first_prompt_and_window_zeros_boot(
    "overflow",
    json!([{"role": "user", "text": "the first prompt"}, custom(HIDDEN_MESSAGE, &summary("s1", 0))]),
    vec![0],
    vec![1]
)]
#[case::steered_between_warnings(
    "overflow",
    json!([{"role": "toolResult", "text": "x"}, custom(CLOSEOUT_MESSAGE, "save your notes"), {"role": "user", "text": "also fix it"}, custom(CLOSEOUT_MESSAGE, "save your notes")]),
    vec![2],
    vec![3]
)]
#[case::a_threshold_after_a_prompt_with_boot_and_warning(
    "threshold",
    json!([{"role": "user", "text": "go on"}, custom(HIDDEN_MESSAGE, &format!("{}\n\nnotesoup budget warning", summary("s1", 0)))]),
    vec![0],
    vec![1]
)]
#[case::another_extensions_message(
    "overflow",
    json!([{"role": "user", "text": "the first prompt"}, custom("plan-mode", "plan first")]),
    vec![0],
    vec![]
)]
#[case::nothing_kept(
    "overflow",
    json!([{"role": "toolResult", "text": "x"}, custom(HIDDEN_MESSAGE, &summary("s1", 0))]),
    vec![],
    vec![]
)]
fn an_automatic_compaction_leaves_the_ended_windows_own_messages_out(
    #[case] reason: &str,
    #[case] tail: Value,
    #[case] keep: Vec<usize>,
    #[case] out: Vec<usize>,
) {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    let fx = s.on(
        "session_before_compact",
        &json!({"reason": reason, "tail": tail}),
    );
    let Some(Effect::AnswerCompaction {
        keep: kept,
        leave_out,
        ..
    }) = fx.first()
    else {
        panic!("{fx:?}");
    };
    assert_eq!(kept.iter().map(|k| k.at).collect::<Vec<_>>(), keep);
    assert_eq!(leave_out, &out);
}

/// The reset worker's own compaction comes after a settled run and keeps nothing: it leaves
/// nothing out either, whatever the tail holds.
#[test]
fn the_workers_compaction_leaves_nothing_out() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({}));
    let fx = s.end(1, "toolUse", &json!({}));
    let [Effect::Compact { marker, .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    let tail =
        json!([{"role": "user", "text": "reset"}, custom(HIDDEN_MESSAGE, &summary("s1", 0))]);
    let fx = s.on(
        "session_before_compact",
        &json!({"reason": "manual", "custom_instructions": marker, "tail": tail}),
    );
    let Some(Effect::AnswerCompaction {
        keep, leave_out, ..
    }) = fx.first()
    else {
        panic!("{fx:?}");
    };
    assert!(keep.is_empty() && leave_out.is_empty(), "{fx:?}");
}

/// A custom message entry of the tail, as the extension sends it.
fn custom(custom_type: &str, text: &str) -> Value {
    json!({"role": "custom", "custom_type": custom_type, "text": text})
}

#[rstest]
#[case::overflow("overflow")]
#[case::threshold("threshold")]
fn a_failed_boot_leaves_pis_own_compaction_to_pi(#[case] reason: &str) {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.world.boot_fails = true;
    let fx = s.on("session_before_compact", &json!({"reason": reason}));
    assert_eq!(kinds(&fx), ["report", "native_compaction"]);
    assert_eq!(s.ordinal(), Some(0));
}

#[test]
fn a_persons_compact_is_vetoed() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.end(1, "stop", &json!({}));
    let fx = s.on(
        "session_before_compact",
        &json!({"reason": "manual", "custom_instructions": "keep the API notes"}),
    );
    assert_eq!(kinds(&fx), ["veto_compaction"]);
}

#[test]
fn pis_own_summary_advances_the_window() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    let fx = s.on(
        "session_compact",
        &json!({"from_extension": false, "summary": "## Goal\n…"}),
    );
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(s.ordinal(), Some(1));
}

#[test]
fn the_hard_point_ends_the_run_at_its_next_request() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.world.budget = Some(at(HARD + 1));
    let fx = s.on("turn_start", &json!({"run": 1, "turn_index": 1}));
    assert_eq!(kinds(&fx), ["report", "end_turn"]);
    // The extension aborted the run for it: an answer, not an abort.
    let fx = s.end(1, "aborted", &json!({"cut": true}));
    assert_eq!(kinds(&fx), ["compact"]);
}

#[test]
fn an_aborted_run_cancels_the_request() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({}));
    let fx = s.end(1, "aborted", &json!({}));
    assert_eq!(kinds(&fx), ["cancel", "report"]);
    assert!(!s.flow.snapshot().pending);
}

#[test]
fn a_steering_prompt_releases_the_cutoff_and_no_reset_starts_before_it_runs() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({}));
    s.on(
        "input",
        &json!({"source": "interactive", "streaming": "steer"}),
    );
    let fx = s.on("turn_start", &json!({"run": 1, "turn_index": 1}));
    assert!(fx.is_empty(), "the cutoff is released: {fx:?}");
}

#[test]
fn subagent_runs_never_touch_the_main_flow() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({}));
    let before = s.flow.snapshot();
    s.world.budget = Some(at(HARD + 1));
    for (event, facts) in [
        ("agent_start", json!({"agent": "subagent", "run": 9})),
        (
            "turn_start",
            json!({"agent": "subagent", "run": 9, "turn_index": 1}),
        ),
        (
            "agent_end",
            json!({"agent": "subagent", "run": 9, "stop_reason": "stop"}),
        ),
        (
            "session_compact",
            json!({"agent": "subagent", "from_extension": false}),
        ),
    ] {
        assert!(s.on(event, &facts).is_empty(), "{event}");
    }
    assert_eq!(s.flow.snapshot(), before);
}

/// A run with no session file (`pi --no-session`): its prompt gets the boot that promises
/// no reset, past the warning point no warning, and the flow is not touched.
#[test]
fn a_run_with_no_session_file_boots_without_the_reset_and_is_never_warned() {
    let mut s = Session::new();
    s.world.budget = Some(at(WARNING + 1));
    let before = s.flow.snapshot();
    let fx = s.on(
        "before_agent_start",
        &json!({"agent": "subagent", "kept": null}),
    );
    assert_eq!(kinds(&fx), ["attach_boot"], "{fx:?}");
    assert!(
        matches!(&fx[0], Effect::AttachBoot { ordinal: 0, text } if text == "unreset boot of s"),
        "{fx:?}"
    );
    assert_eq!(s.flow.snapshot(), before);
    // The main run of the same world gets the window's boot and the warning.
    let fx = s.on("before_agent_start", &json!({"kept": null}));
    assert_eq!(kinds(&fx), ["attach_boot", "warn"]);
    assert_ne!(s.flow.snapshot(), before);
}

/// In a run with no session file every notesoup command says why it does not apply, and
/// the flow never hears it.
#[rstest]
#[case::empty(json!({"command": "empty", "agent": "subagent"}))]
#[case::fresh_window(json!({"command": "fresh_window", "agent": "subagent"}))]
#[case::cap(json!({"command": "notesoup", "args": "cap 100k", "agent": "subagent"}))]
fn a_command_in_a_run_with_no_session_file_says_it_does_not_apply(#[case] facts: Value) {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    let before = s.flow.snapshot();
    let fx = s.on("command", &facts);
    assert_eq!(kinds(&fx), ["report"], "{fx:?}");
    assert!(
        matches!(&fx[0], Effect::Report { text } if text.contains("pi --no-session")),
        "{fx:?}"
    );
    assert_eq!(s.flow.snapshot(), before);
}

#[test]
fn empty_idle_closes_out_and_without_usage_the_closeout_fails_at_once() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.end(1, "stop", &json!({}));
    let fx = s.on("command", &json!({"command": "empty", "busy": false}));
    assert_eq!(kinds(&fx), ["report", "closeout"]);

    // Nothing measured and no reset pending: one line saying why, nothing started.
    let mut s = Session::new();
    s.world.budget = None;
    let fx = s.on("command", &json!({"command": "fresh_window"}));
    assert!(
        matches!(&fx[..], [Effect::Report { text }] if text.starts_with("/fresh-window has nothing to clear yet")),
        "{fx:?}"
    );
    assert!(!s.flow.snapshot().pending);
}

/// In print mode Pi ends the process with the command: a clearing command is refused with
/// what to do instead, and the flow never hears it (no close-out, nothing pending).
#[rstest]
#[case::empty("empty", "/empty")]
#[case::fresh_window("fresh_window", "/fresh-window")]
fn a_clearing_command_in_print_mode_is_refused_and_changes_nothing(
    #[case] command: &str,
    #[case] slash: &str,
) {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.end(1, "stop", &json!({}));
    let before = s.flow.snapshot();
    let fx = s.on(
        "command",
        &json!({"command": command, "busy": false, "print": true}),
    );
    let [Effect::Report { text }] = &fx[..] else {
        panic!("{fx:?}");
    };
    assert!(
        text.starts_with(&format!("{slash} needs a Pi session that stays open")),
        "{text}"
    );
    assert!(text.contains("notesoup_empty_brain"), "{text}");
    assert_eq!(s.flow.snapshot(), before);
}

#[rstest]
#[case::show("", None, "cap None window None")]
#[case::set("cap 100k", Some(100_000), "cap Some(100000) window None")]
fn notesoup_shows_and_sets_the_cap(
    #[case] args: &str,
    #[case] cap: Option<u64>,
    #[case] line: &str,
) {
    let mut s = Session::new();
    let fx = s.on("command", &json!({"command": "notesoup", "args": args}));
    assert_eq!(
        fx,
        [Effect::Report {
            text: line.to_owned()
        }]
    );
    assert_eq!(s.flow.snapshot().cap, cap);
}

#[test]
fn a_refused_cap_changes_nothing() {
    let mut s = Session::new();
    let fx = s.on(
        "command",
        &json!({"command": "notesoup", "args": "cap lots"}),
    );
    assert!(matches!(&fx[..], [Effect::Report { text }] if text.starts_with("usage:")));
    assert_eq!(s.flow.snapshot().cap, None);
}

/// Pi's own summarizer may quote the boot; only an extension's summary is ours.
#[test]
fn pis_own_summary_is_no_proof_even_when_it_quotes_the_boot() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({}));
    let fx = s.end(1, "toolUse", &json!({}));
    let [Effect::Compact { marker, .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    let fx = s.on(
        "session_before_compact",
        &json!({"reason": "manual", "custom_instructions": marker}),
    );
    let Effect::AnswerCompaction {
        text: Some(text), ..
    } = &fx[0]
    else {
        panic!("{fx:?}");
    };
    let fx = s.on(
        "session_compact",
        &json!({"from_extension": false, "summary": text}),
    );
    assert_eq!(kinds(&fx), ["cancel", "report"]);
}

/// The end of a tool batch is the next step: with `empty_brain` in the batch, the turn ends
/// there and the reset's compaction is answered in the same call (the extension writes it
/// as the batch's boundary entry).
#[test]
fn a_batch_end_after_empty_brain_answers_the_compaction_at_once() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.empty_brain(&json!({"last_word": "finish the parser"}));
    let fx = s.on("turn_end", &json!({"run": 1, "turn_index": 0}));
    assert_eq!(kinds(&fx), ["end_turn", "answer_compaction"]);
    let Effect::AnswerCompaction {
        ordinal: 1,
        pool: Pool::Normal,
        text: Some(text),
        ..
    } = &fx[1]
    else {
        panic!("{fx:?}");
    };
    // Pi kept it: the evidence continues once; the run's end then changes nothing.
    let fx = s.on(
        "session_compact",
        &json!({"from_extension": true, "summary": text}),
    );
    assert_eq!(kinds(&fx), ["continue"]);
    assert!(s.end(1, "stop", &json!({})).is_empty());
}

#[test]
fn a_batch_end_past_the_hard_point_clears_with_the_forced_handoff() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.world.budget = Some(at(HARD + 1));
    s.on("tool_result", &json!({"is_error": false}));
    let fx = s.on("turn_end", &json!({"run": 1, "turn_index": 0}));
    assert!(
        kinds(&fx).ends_with(&["end_turn", "answer_compaction"]),
        "{fx:?}"
    );
    assert!(matches!(
        fx.last(),
        Some(Effect::AnswerCompaction {
            pool: Pool::Forced,
            ..
        })
    ));
}

#[test]
fn a_batch_end_below_the_points_changes_nothing() {
    let mut s = Session::new();
    s.prompt("interactive", 1, None);
    s.on("tool_result", &json!({"is_error": false}));
    assert!(
        s.on("turn_end", &json!({"run": 1, "turn_index": 0}))
            .is_empty()
    );
    assert!(
        s.on("turn_start", &json!({"run": 1, "turn_index": 1}))
            .is_empty()
    );
}
