//! Scenario 9: natural input inside the running turn.

use std::time::Duration;

use notesoup_e2e::{Input, Match, Mode, Reply, Script, Step};

use super::{
    EMPTY_BRAIN, NO_ROOM, WINDOW_200K, assert_clean_exit, boundaries, empty_brain,
    fresh_window_requests, plugin_prompts, serial, session,
};

// ---------------------------------------------------------------------------------
// 9. Natural input delivered inside the running turn releases the cutoff; no replay.
//
// The input is sent while the turn's 3 s Bash runs. 2.1.319 queues it and, once the batch
// is done, takes it into the running turn (transcript: "absorbed_mid_turn"; the result's
// queued_turn_count is 0): it raises `prompt.submit` naming the turn, then raises the queue
// row's `session.append` and the next `turn.step` without ordering them. So the only place
// the input can still reach the model is that step: notesoup must not cut it, whichever of
// the two hooks reaches the helper first (claude-hooks/EVENTS.md, "Input typed into a
// running turn"). Cut, the input was lost outright, about one run in three.

#[test]
fn s09_natural_input_releases_the_cutoff() {
    let _one = serial();
    let natural = "NATURAL-INPUT-9: wait, one more thing";
    let script = Script::new()
        .then(
            Reply::text("Clearing after this command.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-NINE", Some(false)))
                .and_tool(
                    "Bash",
                    serde_json::json!({"command": "sleep 3; echo slept", "description": "wait"}),
                )
                .with_delay_ms(500),
        )
        .then_when(
            Match::tail_contains("NATURAL-INPUT-9"),
            Reply::text("Noted your extra thing."),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session("s09-natural", script)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::StreamJson(vec![
            Input::Send("Clear your window after a short command.".into()),
            Input::AfterRequests(1),
            Input::Wait(Duration::from_secs(1)),
            Input::Send(natural.into()),
            Input::AwaitResult(Duration::from_secs(20)),
            Input::Wait(Duration::from_secs(2)),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    let carrying: Vec<_> = out
        .model_turn_requests()
        .into_iter()
        .filter(|r| r.tail_text().contains("NATURAL-INPUT-9"))
        .collect();
    assert_eq!(
        carrying.len(),
        1,
        "the natural input reached the model exactly once (no replay)"
    );
    let fresh = fresh_window_requests(&out);
    assert!(
        fresh.is_empty(),
        "a plugin continuation ran although natural input took over"
    );
    assert_eq!(
        plugin_prompts(&out),
        0,
        "a continuation was submitted over natural input"
    );
    // The reset itself still happens once the natural turn is done (no continuation).
    assert_eq!(
        boundaries(&out),
        1,
        "the requested reset did not commit after the natural turn"
    );
    let all: Vec<String> = out
        .model_turn_requests()
        .iter()
        .map(notesoup_e2e::Request::all_text)
        .collect();
    let replays = all
        .iter()
        .filter(|t| t.matches("NATURAL-INPUT-9").count() > 1)
        .count();
    assert_eq!(
        replays, 0,
        "the natural input was replayed into a conversation"
    );
}

// ---------------------------------------------------------------------------------
// 9b. Claude's own automatic compaction, answered with notesoup's boot, keeps the person's
// input no request answered yet: a message typed into the running turn just before the
// threshold is crossed, and a prompt whose request comes back "prompt is too long". Claude's
// own summary keeps it; the boot replaced the whole conversation, and the input was lost
// (the reset-flow audit of stop 44, F1).

#[rstest::rstest]
#[case::no_request("s09-auto-keeps-input", false)]
#[case::pending_request("s09-auto-keeps-input-pending", true)]
fn s09_an_automatic_compaction_keeps_the_input_typed_into_the_turn(
    #[case] name: &str,
    #[case] request: bool,
) {
    let _one = serial();
    let mut first = Reply::text("Working.");
    if request {
        first = first.and_tool(EMPTY_BRAIN, empty_brain("LW-AUTO", Some(false)));
    }
    let first = first
        .and_tool(
            "Bash",
            serde_json::json!({"command": "sleep 3; echo slept", "description": "wait"}),
        )
        // Past Claude's own point (167 000 in this window): it compacts before the next
        // request; notesoup's margins leave it no point of its own (NO_ROOM).
        .with_input_tokens(170_000)
        .with_delay_ms(300);
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .rule(
            Match::any_contains("NATURAL-AUTO").and_compaction(false),
            Reply::text("Answering NATURAL-AUTO."),
        )
        .then(first)
        .fallback(Reply::text("(fallback: the input is not in this request)"));
    let out = session(name, script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .file(".claude/settings.json", NO_ROOM)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::StreamJson(vec![
            Input::Send("Work on.".into()),
            Input::AfterRequests(1),
            Input::Wait(Duration::from_secs(1)),
            Input::Send("NATURAL-AUTO: please also do this".into()),
            Input::AwaitResult(Duration::from_secs(30)),
            Input::Wait(Duration::from_secs(3)),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    assert_eq!(boundaries(&out), 1, "Claude's compaction, answered once");
    assert!(
        out.stdout.contains("Answering NATURAL-AUTO."),
        "the input typed into the turn was lost in the compaction"
    );
    for r in out.model_turn_requests() {
        assert!(
            r.all_text().matches("NATURAL-AUTO").count() <= 1,
            "the input was replayed"
        );
    }
}

#[test]
fn s09_an_automatic_compaction_keeps_a_prompt_that_was_too_long() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(Reply::text("Hello."))
        .then_when(
            Match::tail_contains("NATURAL-PTL"),
            Reply::prompt_too_long(210_000, 200_000),
        )
        .then_when(
            Match::any_contains("NATURAL-PTL").and_compaction(false),
            Reply::text("Answering NATURAL-PTL."),
        )
        .fallback(Reply::text("(fallback: the prompt is not in this request)"));
    let out = session("s09-ptl-keeps-prompt", script)
        .run(&Mode::StreamJson(vec![
            Input::Message("hello".into()),
            Input::Message("NATURAL-PTL: here is my long question".into()),
            Input::Idle(Duration::from_secs(3)),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    assert!(
        out.requests.iter().any(|r| r["status"] == 400),
        "no prompt-too-long: the scenario proves nothing"
    );
    assert!(
        out.stdout.contains("Answering NATURAL-PTL."),
        "the person's prompt was lost in the reactive compaction"
    );
}

/// Input typed into the running turn whose own request comes back "prompt is too long":
/// Claude compacts reactively, notesoup answers with the boot (a pending `empty_brain` is
/// consumed by it, its normal handoff and last word), and the retried request still holds
/// the person's input, once. The request that failed carried it but answered nothing, so
/// the input is still unanswered when the boot replaces the conversation.
#[rstest::rstest]
#[case::no_request("s09-ptl-keeps-typed-input", false)]
#[case::pending_request("s09-ptl-keeps-typed-input-pending", true)]
fn s09_a_prompt_too_long_compaction_keeps_the_input_typed_into_the_turn(
    #[case] name: &str,
    #[case] request: bool,
) {
    let _one = serial();
    let mut first = Reply::text("Working.");
    if request {
        first = first.and_tool(EMPTY_BRAIN, empty_brain("LW-PTL-TYPED", Some(false)));
    }
    let first = first
        .and_tool(
            "Bash",
            serde_json::json!({"command": "sleep 3; echo slept", "description": "wait"}),
        )
        .with_delay_ms(300);
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(first)
        .then_when(
            Match::tail_contains("NATURAL-PTL-TYPED"),
            Reply::prompt_too_long(210_000, 200_000),
        )
        .then_when(
            Match::any_contains("NATURAL-PTL-TYPED").and_compaction(false),
            Reply::text("Answering NATURAL-PTL-TYPED."),
        )
        .fallback(Reply::text("(fallback: the input is not in this request)"));
    let out = session(name, script)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::StreamJson(vec![
            Input::Send("Work on.".into()),
            Input::AfterRequests(1),
            Input::Wait(Duration::from_secs(1)),
            Input::Send("NATURAL-PTL-TYPED: please also do this".into()),
            Input::AwaitResult(Duration::from_secs(30)),
            Input::Wait(Duration::from_secs(3)),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    assert!(
        out.requests.iter().any(|r| r["status"] == 400),
        "no prompt-too-long: the scenario proves nothing"
    );
    assert_eq!(
        boundaries(&out),
        1,
        "the reactive compaction, answered once"
    );
    assert!(
        out.stdout.contains("Answering NATURAL-PTL-TYPED."),
        "the input typed into the turn was lost in the compaction"
    );
    for r in out.model_turn_requests() {
        assert!(
            r.all_text().matches("NATURAL-PTL-TYPED").count() <= 1,
            "the input was replayed"
        );
    }
    assert_eq!(
        plugin_prompts(&out),
        0,
        "a continuation over the person's input"
    );
}

// ---------------------------------------------------------------------------------
// 9c. The terminal: a line typed while the reset turn's Bash runs is taken into the turn,
// releases the cutoff, reaches the model once, and the reset follows without continuation.

#[test]
fn s09_natural_input_typed_into_the_running_turn_tmux() {
    let _one = serial();
    let script = Script::new()
        .then(
            Reply::text("Clearing after this command.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-NINE-TMUX", Some(false)))
                .and_tool(
                    "Bash",
                    serde_json::json!({"command": "sleep 6; echo slept", "description": "wait"}),
                )
                .with_delay_ms(500),
        )
        .then_when(
            Match::tail_contains("NATURAL-INPUT-9T"),
            Reply::text("Noted your extra thing."),
        )
        .fallback(Reply::text("(fallback)"));
    let mode = super::tmux_lines(
        &[("Clear your window after a short command.", None)],
        vec![
            Step::AfterRequests(1),
            Step::Sleep(Duration::from_secs(2)),
            Step::Type("NATURAL-INPUT-9T: wait, one more thing".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::AfterRequests(2),
            Step::Idle(Duration::from_secs(5)),
            Step::Capture("after".into()),
        ],
    );
    let out = session("s09-natural-tmux", script)
        .args(&["--allowedTools", "Bash"])
        .run(&mode)
        .unwrap();
    assert_clean_exit(&out);
    let carrying = out
        .model_turn_requests()
        .into_iter()
        .filter(|r| r.tail_text().contains("NATURAL-INPUT-9T"))
        .count();
    assert_eq!(
        carrying, 1,
        "the natural input reached the model exactly once"
    );
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a plugin continuation ran although natural input took over"
    );
    assert_eq!(
        plugin_prompts(&out),
        0,
        "a continuation was submitted over natural input"
    );
    assert_eq!(
        boundaries(&out),
        1,
        "the requested reset did not commit after the natural turn"
    );
}
