//! Scenarios 6 and 7: the budget warning once per window, the hard clear, Claude's own
//! threshold compaction when notesoup's point is unresolvable, missing usage, and
//! `/fresh-window`'s close-out.

use std::time::Duration;

use notesoup_e2e::{Input, Match, Mode, Outcome, Reply, Script, Step};

use super::{
    EMPTY_BRAIN, FRESH_BOOT, NO_ROOM, PLUGIN_PROMPT, WINDOW_200K, assert_clean_exit,
    assert_fresh_window, boundaries, compactions, empty_brain, fresh_window_requests,
    plugin_prompts, rows_containing, run_clean, serial, session, tmux_lines,
};

// ---------------------------------------------------------------------------------
// 6. Budget: warning once per window; the hard point clears with the forced handoff.

#[rstest::rstest]
#[case::print("s06-budget", Mode::Print("Work until the budget runs out.".into()))]
#[case::stream_json(
    "s06-budget-stream-json",
    Mode::StreamJson(vec![
        Input::Message("Work until the budget runs out.".into()),
        Input::AfterRequests(5),
        Input::Idle(Duration::from_secs(3)),
    ])
)]
fn s06_budget_warning_once_then_hard_clear(#[case] name: &str, #[case] mode: Mode) {
    let _one = serial();
    let list = || Reply::tool("mcp__notesoup__notes_list", serde_json::json!({}));
    let script = Script::new()
        .then(list().with_input_tokens(150_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(151_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(160_000))
        // Window 1: past the warning point again; the warning is due once more.
        .then_when(
            Match::tail_contains(FRESH_BOOT),
            list().with_input_tokens(150_000),
        )
        .then_when(
            Match::tool_result(true),
            Reply::text("Fresh window, notes checked."),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session(name, script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .run(&mode)
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert!(
        requests.len() >= 3,
        "the run stopped before the warning could show"
    );
    let warned = |r: &notesoup_e2e::Request<'_>| r.tail_text().contains(EMPTY_BRAIN);
    assert!(
        warned(&requests[1]),
        "the tool result past the warning point carries no warning"
    );
    assert!(
        !warned(&requests[2]),
        "the warning came twice in one window"
    );
    assert_eq!(
        requests.len(),
        5,
        "the hard point ends the turn (no request for its tool result), one continuation, \
         then the fresh window's own tool round"
    );
    assert!(
        !requests[3].has_tool_result(),
        "the continuation carries a stale tool result"
    );
    assert_eq!(boundaries(&out), 1);
    let fresh: Vec<_> = fresh_window_requests(&out)
        .into_iter()
        .filter(|r| !r.has_tool_result())
        .collect();
    assert_eq!(fresh.len(), 1, "exactly one continuation");
    assert_fresh_window(&out, fresh[0], None, notesoup_boot::Reset::Forced);
    assert_eq!(plugin_prompts(&out), 1, "one continuation prompt on disk");
    // Once per window: the new window warns again.
    assert!(
        warned(&requests[4]),
        "the fresh window past its warning point was not warned"
    );
}

// ---------------------------------------------------------------------------------
// 6b. Budget with Claude's auto-compaction off (`DISABLE_AUTO_COMPACT=1`): the warning
// still comes, and says that only the reset tool clears the window (no automatic clear).

#[test]
fn s06_budget_warning_with_auto_compaction_off_promises_no_automatic_clear() {
    let _one = serial();
    let list = || Reply::tool("mcp__notesoup__notes_list", serde_json::json!({}));
    let script = Script::new()
        .then(list().with_input_tokens(160_000))
        .then_when(
            Match::tool_result(true),
            Reply::text("Noted.").with_input_tokens(160_000),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session("s06-auto-off", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .env("DISABLE_AUTO_COMPACT", "1")
        .run(&Mode::Print("Work on.".into()))
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert_eq!(requests.len(), 2, "one tool round");
    let tail = requests[1].tail_text();
    assert!(
        tail.contains("notesoup budget warning:"),
        "the tool result past the warning point carries no warning:\n{tail}"
    );
    assert!(
        !tail.contains("automatic clear"),
        "the warning promises an automatic clear that will not come:\n{tail}"
    );
    assert!(
        tail.contains("nothing clears this window but the reset tool")
            && tail.contains("call it within the next "),
        "the warning does not say only the reset tool clears the window:\n{tail}"
    );
    assert_eq!(boundaries(&out), 0, "nothing clears the window by itself");
}

/// Claude Code's own threshold compaction, reached because notesoup's point is
/// unresolvable: answered with the boot and a forced handoff (no summary request); the
/// unresolvable point is logged once and no budget warning is given.
#[test]
fn s06_claudes_threshold_compaction_when_notesoups_point_is_unresolvable() {
    let _one = serial();
    let list = || Reply::tool("mcp__notesoup__notes_list", serde_json::json!({}));
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        // Past notesoup's usual warning point (142 424), then past Claude's (167 000).
        .then(list().with_input_tokens(150_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(170_000))
        .then_when(
            Match::tail_contains(FRESH_BOOT),
            Reply::text("Fresh window, carrying on."),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session("s06-threshold", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .file(".claude/settings.json", NO_ROOM)
        .run(&Mode::Print("Work until the budget runs out.".into()))
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    for r in &requests {
        assert!(
            !r.tail_text().contains("notesoup budget warning"),
            "a budget warning although notesoup's point is unresolvable"
        );
    }
    assert!(
        out.debug_log.contains("level=compact"),
        "Claude Code's own threshold check never reached its compaction level"
    );
    assert!(
        out.requests.iter().all(|r| r["status"] == 200),
        "the threshold path, not prompt-too-long: every request was answered"
    );
    assert_eq!(boundaries(&out), 1, "Claude's threshold compaction, once");
    assert_eq!(
        plugin_prompts(&out),
        0,
        "the engine's compaction goes on in its own turn: no notesoup continuation"
    );
    let fresh = fresh_window_requests(&out);
    assert_eq!(fresh.len(), 1, "one fresh window");
    assert_fresh_window(&out, fresh[0], None, notesoup_boot::Reset::Forced);
    let logged = out.debug_log.matches("no budget points").count();
    assert_eq!(
        logged, 1,
        "the unresolvable point is logged once, not {logged} times"
    );
}

/// Missing usage: a terminal's first session and the one `/clear` opens have no context
/// usage until their first answer. The mod logs that once per process and gives no
/// warning, though the cleared session's last fill (150 000) was past the warning point.
#[test]
fn s06_missing_usage_logs_once_and_skips_the_warning() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::tail_contains("Say two.").and_tool_result(false),
            Reply::text("Two."),
        )
        .fallback(Reply::text("One.").with_input_tokens(150_000));
    let mode = tmux_lines(
        &[("Say one.", Some("One.")), ("/clear", None)],
        vec![
            Step::Sleep(Duration::from_secs(3)),
            Step::Type("Say two.".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::WaitFor(regex::escape("Two."), Duration::from_secs(60)),
            Step::Idle(Duration::from_secs(2)),
        ],
    );
    let out = session("s06-no-usage", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .run(&mode)
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert_eq!(requests.len(), 2, "one request per prompt");
    for r in &requests {
        assert!(
            !r.tail_text().contains("notesoup budget warning"),
            "a budget warning without a measured fill:\n{}",
            r.tail_text()
        );
    }
    let logged = out.debug_log.matches("no context usage yet").count();
    assert_eq!(
        logged, 1,
        "missing usage is logged once, not {logged} times"
    );
}

// ---------------------------------------------------------------------------------
// 7. /fresh-window while idle: one hidden close-out turn; STOP holds; no continuation.

/// `/fresh-window`'s close-out ran once and STOP held: the first turn and one close-out
/// turn whose tail carries `warning`, one commit, no summary, the close-out prompt only.
fn assert_one_close_out(out: &Outcome, warning: &str) {
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        2,
        "the first turn and one close-out turn, no continuation"
    );
    assert!(
        requests[1].tail_text().contains(warning),
        "the close-out turn carries no budget warning"
    );
    assert_eq!(boundaries(out), 1, "the close-out commits once");
    assert_eq!(compactions(out), 0);
    assert_eq!(
        plugin_prompts(out),
        1,
        "the close-out prompt and no continuation prompt"
    );
}

#[test]
fn s07_fresh_window_close_out_stops() {
    let script = Script::new()
        .then(Reply::text("Hello."))
        .then_when(
            Match::tail_contains(EMPTY_BRAIN).and_tool_result(false),
            Reply::text("Closing out.").and_tool(EMPTY_BRAIN, empty_brain("LW-SEVEN", Some(false))),
        )
        .fallback(Reply::text("(no continuation was expected)"));
    let out = run_clean(
        "s07-fresh-window",
        script,
        &Mode::StreamJson(vec![
            Input::Message("hello".into()),
            Input::Message("/fresh-window".into()),
            // The close-out is a hidden turn of its own: wait for its request, then quiet.
            Input::AfterRequests(2),
            Input::Idle(Duration::from_secs(3)),
        ]),
    );
    assert_one_close_out(&out, EMPTY_BRAIN);
    assert!(
        !out.message_bodies()
            .iter()
            .any(|b| b.to_string().contains("(no continuation was expected)")),
        "a continuation ran"
    );
}

// `-p` runs of scenario 7: the command is the whole prompt of a process, which ends as soon
// as nothing is queued; `/empty` closes out the same way.

#[rstest::rstest]
#[case::fresh_window("s07-fresh-window-print", "/fresh-window")]
#[case::empty("s07-empty-print", "/empty")]
fn s07_fresh_window_close_out_print(#[case] name: &str, #[case] command: &str) {
    let script = Script::new()
        .then(Reply::text("Hello."))
        .then_when(
            Match::tail_contains(EMPTY_BRAIN).and_tool_result(false),
            Reply::text("Closing out.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-SEVEN-P", Some(false))),
        )
        .fallback(Reply::text("(no continuation was expected)"));
    let out = run_clean(
        name,
        script,
        &Mode::PrintContinued(vec!["hello".into(), command.into()]),
    );
    // The close-out turn's end says what really follows: no continuation (STOP).
    assert!(
        rows_containing(&out, "continues from a fresh window").is_empty(),
        "the end of the close-out turn promises a continuation that STOP holds back"
    );
    assert!(
        !rows_containing(&out, "waits for the next message: stopped as asked").is_empty(),
        "the end of the close-out turn does not say the fresh window waits"
    );
    assert_one_close_out(&out, "budget warning");
}

/// The terminal: one close-out turn, STOP holds (its rows are `system` rows, no caveat).
/// Coverage of the row path in the terminal, not a guard of the `-p` race (a timer passed
/// here too).
#[test]
fn s07_fresh_window_close_out_tmux() {
    let script = Script::new()
        .then(Reply::text("Hello."))
        .then_when(
            Match::tail_contains(EMPTY_BRAIN).and_tool_result(false),
            Reply::text("Closing out.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-SEVEN-T", Some(false))),
        )
        .fallback(Reply::text("(no continuation was expected)"));
    let mode = tmux_lines(
        &[("hello", Some("Hello.")), ("/fresh-window", None)],
        vec![
            Step::AfterRequests(2),
            Step::Idle(Duration::from_secs(4)),
            Step::Capture("after-close-out".into()),
        ],
    );
    let out = run_clean("s07-fresh-window-tmux", script, &mode);
    assert_one_close_out(&out, "budget warning");
}

/// `/fresh-window` as the very first prompt: nothing measured yet, so the close-out cannot
/// start; the person reads why on stdout in one line (nothing promised, then cancelled),
/// and nothing is sent or cleared.
#[test]
fn s07_fresh_window_first_prompt_print() {
    let out = run_clean(
        "s07-fresh-window-first-print",
        Script::new().fallback(Reply::text("(no close-out was expected)")),
        &Mode::Print("/fresh-window".into()),
    );
    let stdout = out.stdout.trim();
    assert!(
        stdout.contains("/fresh-window has nothing to clear yet: this window has no answer"),
        "stdout: {stdout:?}"
    );
    assert!(
        !stdout.contains("saving notes, then clearing")
            && !stdout.contains("run the command again"),
        "a clear was promised, then cancelled: {stdout:?}"
    );
    assert!(out.model_turn_requests().is_empty(), "a close-out turn ran");
    assert_eq!(boundaries(&out), 0);
}

// ---------------------------------------------------------------------------------
// 7b. /empty typed while the agent works (the terminal): the close-out uses the running
// turn. 2.1.319 runs the command at once (`immediate`); the warning joins the turn as a
// hidden row, which the turn's next request carries beside the running tool's result; the
// model saves and calls empty_brain; its cutoff ends the turn; one reset, STOP holds.

/// What the running tool prints; the request after it is the running turn's next one.
const BUSY_TOOL_OUTPUT: &str = "busy-step-one-done";

#[test]
fn s07_empty_typed_while_the_agent_works_uses_the_running_turn_tmux() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(Reply::text("Step one.").and_tool(
            "Bash",
            serde_json::json!({
                "command": format!("sleep 8; echo {BUSY_TOOL_OUTPUT}"),
                "description": "a long step",
            }),
        ))
        .then_when(
            Match::tail_contains("notesoup budget warning:").and_tool_result(true),
            Reply::text("Saving, then clearing as asked.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-BUSY", Some(false))),
        )
        .fallback(Reply::text("(fallback)"));
    let mode = empty_typed_while_bash_runs(5, "after-close-out");
    let out = session("s07-empty-busy-tmux", script)
        .args(&["--allowedTools", "Bash"])
        .run(&mode)
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert!(
        requests.len() >= 2,
        "the running turn made no second request"
    );
    let next = &requests[1];
    assert!(
        super::tool_results_text(*next).contains(BUSY_TOOL_OUTPUT),
        "the second request is not the running turn's next one (no Bash result)"
    );
    assert!(
        next.tail_text().contains("notesoup budget warning:"),
        "the running turn's next request carries no close-out warning:\n{}",
        next.tail_text()
    );
    // The model's empty_brain (terminate false) ends the turn at its next step: no
    // request for its result, no close-out turn of its own, no continuation (STOP).
    assert_eq!(
        requests.len(),
        2,
        "a request after the close-out (a close-out turn, or a continuation over STOP)"
    );
    assert_eq!(plugin_prompts(&out), 0, "a plugin prompt was submitted");
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a continuation ran over STOP"
    );
    assert_eq!(boundaries(&out), 1, "exactly one reset");
    assert_eq!(compactions(&out), 0, "a summary request was made");
    assert!(
        !rows_containing(&out, "waits for the next message: stopped as asked").is_empty(),
        "the end of the turn does not say the fresh window waits (STOP)"
    );
}

/// stream-json runs no slash command while a turn runs, `immediate` or not (measured:
/// claude-hooks/EVENTS.md, "A clear command typed while the agent works"): `/empty` sent
/// into a running turn runs after it and closes out idle: the turn ends untouched, then one
/// hidden close-out turn, one reset, STOP.
#[test]
fn s07_empty_sent_into_a_running_stream_json_turn_closes_out_after_it() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(Reply::text("Step one.").and_tool(
            "Bash",
            serde_json::json!({
                "command": format!("sleep 6; echo {BUSY_TOOL_OUTPUT}"),
                "description": "a long step",
            }),
        ))
        .then_when(Match::tool_result(true), Reply::text("Long step done."))
        .then_when(
            Match::tail_contains(EMPTY_BRAIN).and_tool_result(false),
            Reply::text("Closing out.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-BUSY-SJ", Some(false))),
        )
        .fallback(Reply::text("(no continuation was expected)"));
    let out = session("s07-empty-busy-stream-json", script)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::StreamJson(vec![
            Input::Send("Work through the long steps.".into()),
            Input::AfterRequests(1),
            Input::Wait(Duration::from_secs(2)),
            Input::Send("/empty".into()),
            Input::AfterRequests(3),
            Input::Idle(Duration::from_secs(4)),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        3,
        "the running turn's two requests and one close-out turn, no continuation"
    );
    assert!(
        !requests[1].tail_text().contains(EMPTY_BRAIN),
        "the running turn carried the close-out: stream-json ran the command mid-turn"
    );
    assert!(
        requests[2].tail_text().contains(EMPTY_BRAIN) && !requests[2].has_tool_result(),
        "no close-out turn of its own after the running turn"
    );
    assert_eq!(boundaries(&out), 1, "exactly one reset");
    assert_eq!(
        plugin_prompts(&out),
        1,
        "the close-out prompt, no continuation prompt"
    );
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a continuation ran over STOP"
    );
}

/// `/empty` typed during the running turn's last request (a text answer, no tool after):
/// no request of the turn can carry the warning, so the turn's end submits one close-out
/// turn (from `turn.complete`, in the terminal), and the reset waits for that turn.
#[test]
fn s07_empty_typed_in_the_last_step_gets_a_close_out_turn_tmux() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(Reply::text("Hello."))
        .then(Reply::text("A slow last answer.").with_delay_ms(9000))
        .then_when(
            Match::tail_contains("notesoup budget warning:").and_tool_result(false),
            Reply::text("Closing out.").and_tool(EMPTY_BRAIN, empty_brain("LW-LAST", Some(false))),
        )
        .fallback(Reply::text("(no continuation was expected)"));
    let mode = tmux_lines(
        // A first turn measures the fill (a close-out with none cannot start).
        &[("hello", Some("Hello.")), ("Answer slowly.", None)],
        vec![
            // The service logs a request once answered: wait by the clock, not for it.
            Step::Sleep(Duration::from_secs(4)),
            Step::Type("/empty".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::AfterRequests(3),
            Step::Idle(Duration::from_secs(5)),
            Step::Capture("after-close-out".into()),
        ],
    );
    let out = session("s07-empty-last-step-tmux", script)
        .run(&mode)
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        3,
        "the first turn, the running turn's one request and one close-out turn, no continuation"
    );
    assert!(
        !requests[2].has_tool_result()
            && requests[2].tail_text().contains("notesoup budget warning:"),
        "no close-out turn of its own carrying the warning:\n{}",
        requests[2].tail_text()
    );
    assert_eq!(
        plugin_prompts(&out),
        1,
        "the close-out prompt, no continuation"
    );
    assert_eq!(boundaries(&out), 1, "exactly one reset");
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a continuation ran over STOP"
    );
}

/// Settings whose margins leave notesoup no point of its own: `/fresh-window` after an
/// answered turn cannot close out (its close-out carries the budget warning, which needs
/// the points), and says so, with where to look; it said the window had no answer in it
/// (the reset-flow audit of stop 44, F4).
#[test]
fn s07_fresh_window_with_no_points_placed_says_why() {
    let _one = serial();
    let script = Script::new()
        .then(Reply::text("Hello.").with_input_tokens(5_000))
        .fallback(Reply::text("(fallback)"));
    let out = session("s07-no-points", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .file(".claude/settings.json", NO_ROOM)
        .run(&Mode::PrintContinued(vec![
            "hello".into(),
            "/fresh-window".into(),
        ]))
        .unwrap();
    assert!(
        !out.stdout.contains("has no answer in it"),
        "the command says the window has no answer, though it has one: {}",
        out.stdout
    );
    assert!(
        out.stdout.contains("budget points cannot be placed"),
        "the command does not say why it cannot close out: {}",
        out.stdout
    );
    assert_eq!(
        boundaries(&out),
        0,
        "nothing is cleared without a close-out"
    );
}

/// `/empty` typed while the agent works: its close-out warning rides on the running turn,
/// and the model ignores it and works on past notesoup's hard point (158 808 here), short
/// of Claude's (167 000). The hard point still ends the turn at its next step, and the
/// reset follows with STOP (the reset-flow audit of stop 44, F3: the turn went on).
#[test]
fn s07_empty_ignored_by_the_model_still_ends_the_turn_at_the_hard_point_tmux() {
    let _one = serial();
    let list = |tokens: u64| {
        Reply::text("Still working.")
            .and_tool("mcp__notesoup__notes_list", serde_json::json!({}))
            .with_input_tokens(tokens)
    };
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(Reply::text("Step one.").and_tool(
            "Bash",
            serde_json::json!({"command": "sleep 8; echo busy-one", "description": "a long step"}),
        ))
        .then_when(Match::tool_result(true), list(160_000))
        .then_when(Match::tool_result(true), list(161_000))
        .then_when(Match::tool_result(true), list(162_000))
        .then_when(
            Match::tool_result(true),
            Reply::text("Done.").with_input_tokens(162_500),
        )
        .fallback(Reply::text("(fallback)"));
    let mode = empty_typed_while_bash_runs(6, "after");
    let out = session("s07-empty-ignored-hard-point", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .args(&["--allowedTools", "Bash"])
        .run(&mode)
        .unwrap();
    let requests = out.model_turn_requests();
    assert!(
        requests.len() >= 2 && requests[1].tail_text().contains("notesoup budget warning:"),
        "the close-out warning did not ride on the running turn"
    );
    assert_eq!(
        requests.len(),
        2,
        "the turn went on past the hard point (requests after the one at 160 000 tokens)"
    );
    assert_eq!(boundaries(&out), 1, "one reset");
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a continuation ran over STOP"
    );
    // The close-out carries the window's budget warning: the tool results past the warning
    // point add no second copy (the audit's F6, `a15`).
    // (An `api-request-blob` row is the engine's copy of a request, not a delivery.)
    let warned: Vec<_> = rows_containing(&out, "notesoup budget warning:")
        .into_iter()
        .filter(|r| r["type"] != "api-request-blob")
        .collect();
    assert_eq!(warned.len(), 1, "the warning, more than once: {warned:#?}");
}

/// An SDK client sends `/empty` (or `/fresh-window`) and, at once, a message. The engine has
/// read the message before the close-out is submitted, so the message's turn runs first
/// (answered in the old window, as any queued natural turn). The reset waits for the
/// close-out's own turn: the model saves its notes in the window being cleared, its
/// `empty_brain` joins the STOP request, and one reset follows with no continuation (the
/// reset-flow audit of stop 44, F2: the reset ran before the close-out, which then ran in the
/// fresh window and opened a second reset that continued over STOP).
#[rstest::rstest]
#[case::empty("s07-message-after-empty", "/empty")]
#[case::fresh_window("s07-message-after-fresh-window", "/fresh-window")]
fn s07_a_message_sent_right_after_the_command_stream_json(
    #[case] name: &str,
    #[case] command: &str,
) {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .rule(
            Match::tail_contains("NATURAL-AFTER").and_tool_result(false),
            Reply::text("Answering NATURAL-AFTER."),
        )
        .then(Reply::text("Hello."))
        .then_when(
            Match::user_contains(PLUGIN_PROMPT).and_tool_result(false),
            Reply::text("Closing out.").and_tool(EMPTY_BRAIN, empty_brain("LW-AFTER", Some(false))),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session(name, script)
        .run(&Mode::StreamJson(vec![
            Input::Message("hello".into()),
            Input::Send(command.into()),
            Input::Send("NATURAL-AFTER: actually, one more thing".into()),
            Input::AfterRequests(3),
            Input::Idle(Duration::from_secs(5)),
        ]))
        .unwrap();
    assert!(!out.timed_out);
    assert!(
        out.stdout.contains("Answering NATURAL-AFTER."),
        "the message was not answered"
    );
    let carrying = out
        .model_turn_requests()
        .iter()
        .filter(|r| r.tail_text().contains("NATURAL-AFTER"))
        .count();
    assert_eq!(carrying, 1, "the message reached the model exactly once");
    assert_eq!(boundaries(&out), 1, "one reset, not two");
    assert_eq!(
        plugin_prompts(&out),
        1,
        "the close-out, and no continuation over STOP"
    );
    let fresh = fresh_window_requests(&out);
    assert!(
        fresh.iter().all(|r| !r.all_text().contains("Closing out.")),
        "the close-out ran in the fresh window, not the one it saves"
    );
}

/// A terminal asked to "Work through the long steps." whose turn's first request is
/// answered with an 8 s Bash: `/empty` is typed while it runs, then the run goes on until
/// the turn's next request and `idle` seconds of quiet, and the screen is kept as `capture`.
fn empty_typed_while_bash_runs(idle: u64, capture: &str) -> Mode {
    tmux_lines(
        &[("Work through the long steps.", None)],
        vec![
            Step::AfterRequests(1),
            Step::Sleep(Duration::from_secs(2)),
            Step::Type("/empty".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::AfterRequests(2),
            Step::Idle(Duration::from_secs(idle)),
            Step::Capture(capture.into()),
        ],
    )
}
