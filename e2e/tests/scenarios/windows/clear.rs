//! `/clear` and `/resume` in a terminal, before, during and after a reset: each session
//! acquires its own boot, and a new session never inherits another's pending reset.

use super::*;

// ---------------------------------------------------------------------------------
// `/clear` and an in-session `/resume` acquire a boot again (issue 26, item 3): the engine
// raises no `session.start` for either, yet the next request of the new session (after
// `/clear`) and of the resumed one (`/resume <id>` typed in the running terminal) carries
// exactly one boot, naming that session's own window.

/// The first session's id (`--session-id`), so `/resume` can name it.
const W10_FIRST: &str = "0e0a0a10-0000-4000-8000-000000000a10";

#[test]
fn w10_clear_and_resume_in_a_terminal_acquire_a_boot_again() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::tail_contains("Say two.").and_tool_result(false),
            Reply::text("Two."),
        )
        .rule(
            Match::tail_contains("Say three.").and_tool_result(false),
            Reply::text("Three."),
        )
        .fallback(Reply::text("One."));
    let typed = |line: &str, answer: &str| {
        [
            Step::Sleep(Duration::from_secs(1)),
            Step::Type(line.into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::WaitFor(regex::escape(answer), Duration::from_secs(60)),
        ]
    };
    let command = |line: &str| {
        [
            Step::Sleep(Duration::from_secs(1)),
            Step::Type(line.into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::Sleep(Duration::from_secs(3)),
        ]
    };
    let mut middle = Vec::new();
    middle.extend(command("/clear"));
    middle.extend(typed("Say two.", "Two."));
    middle.push(Step::Capture("after-clear".into()));
    middle.extend(command(&format!("/resume {W10_FIRST}")));
    middle.extend(typed("Say three.", "Three."));
    middle.extend([
        Step::Capture("after-resume".into()),
        Step::Idle(Duration::from_secs(3)),
    ]);
    let mode = tmux_lines(&[("Say one.", Some("One."))], middle);
    let out = crate::session("w10-clear-resume", script)
        .timeout(Duration::from_secs(180))
        .args(&["--session-id", W10_FIRST])
        .run(&mode)
        .unwrap();
    crate::assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert_eq!(requests.len(), 3, "one request per prompt");
    let first = format!("claude:{W10_FIRST}:0");
    assert_eq!(
        boots(requests[0]),
        std::slice::from_ref(&first),
        "the first session's request holds its window 0's boot"
    );
    let cleared = boots(requests[1]);
    assert!(
        cleared.len() == 1 && cleared[0].ends_with(":0") && cleared[0] != first,
        "after /clear the request must hold one boot, the new session's window 0: {cleared:?}"
    );
    assert!(
        requests[1].all_text().contains("History is available:"),
        "the new session's boot does not say history is available"
    );
    assert!(
        requests[1].all_text().contains("Say two.") && !requests[1].all_text().contains("Say one."),
        "/clear did not start a new conversation: the scenario proves nothing"
    );
    assert_eq!(
        boots(requests[2]),
        std::slice::from_ref(&first),
        "after /resume the request must hold one boot, the resumed session's window 0"
    );
    assert!(
        requests[2].all_text().contains("Say one.") && !requests[2].all_text().contains("Say two."),
        "/resume did not go back to the first conversation: the scenario proves nothing"
    );
}

// ---------------------------------------------------------------------------------
// A session change during a pending reset (issue 26, item 2). The model asks for a reset
// together with a slow command, and the person types `/clear` while the command runs; later,
// in the new session, the same with an in-session `/resume` back to the first. Measured
// (2.1.319): the engine runs the typed command as soon as the turn ends, before the reset's
// own compaction the turn's completion queues, so that compaction (and its outcome) lands
// on the session the person switched to. Each session's flow is its own record, bound
// anew at every session change; the stale work names the generation of the binding that
// issued it, never the one the new session's flow has, so it changes nothing there.

const W11_FIRST: &str = "0e0a0a11-0000-4000-8000-000000000a11";

/// A record's flow as the helper keeps it (`windows/claude/<id>.json`).
fn kept_flow(out: &Outcome, id: &str) -> serde_json::Value {
    let path = out.notes_home.join(format!("windows/claude/{id}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    record["state"]["flow"].clone()
}

#[test]
fn w11_clear_and_resume_during_a_pending_reset_leave_the_new_session_alone() {
    let _one = serial();
    let slow = |last_word: &str| {
        Reply::text("Clearing after this command.")
            .and_tool(EMPTY_BRAIN, empty_brain(last_word, Some(false)))
            .and_tool(
                "Bash",
                serde_json::json!({"command": "sleep 6; echo slept", "description": "wait"}),
            )
    };
    let script = Script::new()
        .rule(
            Match::tail_contains("Clear the first after a long command.").and_tool_result(false),
            slow("LW-ELEVEN-A"),
        )
        .rule(
            Match::tail_contains("Clear the second after a long command.").and_tool_result(false),
            slow("LW-ELEVEN-B"),
        )
        .rule(
            Match::tail_contains("Say two.").and_tool_result(false),
            Reply::text("Two."),
        )
        .rule(
            Match::tail_contains("Say three.").and_tool_result(false),
            Reply::text("Three."),
        )
        .fallback(Reply::text("(fallback)"));
    // Typed while the slow command runs, then time for the turn to end and the switch.
    let during = |line: &str, requests: usize| {
        [
            Step::AfterRequests(requests),
            Step::Sleep(Duration::from_secs(2)),
            Step::Type(line.into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::Sleep(Duration::from_secs(9)),
        ]
    };
    let typed = |line: &str| {
        [
            Step::Type(line.into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
        ]
    };
    let mut middle = Vec::new();
    middle.extend(during("/clear", 1));
    middle.extend(typed("Clear the second after a long command."));
    middle.extend(during(&format!("/resume {W11_FIRST}"), 2));
    middle.push(Step::Capture("after-resume".into()));
    middle.extend(typed("Say three."));
    middle.extend([
        Step::WaitFor(regex::escape("Three."), Duration::from_secs(60)),
        Step::Capture("after-three".into()),
        Step::Idle(Duration::from_secs(3)),
    ]);
    let mode = tmux_lines(&[("Clear the first after a long command.", None)], middle);
    let out = crate::session("w11-switch-pending", script)
        .timeout(Duration::from_secs(180))
        .args(&["--session-id", W11_FIRST, "--allowedTools", "Bash"])
        .run(&mode)
        .unwrap();
    crate::assert_clean_exit(&out);
    w11_check(&out);
}

/// w11's checks: each stale compaction vetoed where it landed, under another generation.
fn w11_check(out: &Outcome) {
    let second = out
        .transcripts
        .iter()
        .filter(|t| !t.is_subagent())
        .filter_map(|t| t.path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .find(|id| id != W11_FIRST)
        .expect("/clear did not start a new session: the scenario proves nothing");
    // Each session's reset was asked for (the first request of each turn).
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        3,
        "one request per prompt, none after a cutoff"
    );
    // The stale compactions: each vetoed quietly where it landed, naming its generation.
    let stale =
        regex::Regex::new(r"no longer needed[^\n]*\(notesoup-reset g(\d+) r\d+ a\d+\)").unwrap();
    // The module's line (the engine logs its own "skipped (…)" too).
    let stale: Vec<u64> = out
        .debug_log
        .lines()
        .filter(|l| l.contains("$.ui.log"))
        .filter_map(|l| stale.captures(l).map(|c| c[1].parse().unwrap()))
        .collect();
    let (first, second_flow) = (kept_flow(out, W11_FIRST), kept_flow(out, &second));
    // The engine may end the first session for /clear before that session's turn
    // completes (seen under load): its reset then never asked for a compaction (its first
    // `turn.complete` did nothing), and stays pending in its record, as a reset a
    // `claude -p` run could not finish does.
    let first_complete = out
        .debug_log
        .lines()
        .find(|l| l.contains("notesoup: hook turn.complete"));
    if first_complete.is_some_and(|l| !l.contains("-> compact")) {
        return w11_check_cleared_first(out, &stale, &second_flow, &requests);
    }
    assert_eq!(
        stale.len(),
        2,
        "each session's own compaction should land after the switch, vetoed there: {stale:?}"
    );
    let generation = |flow: &serde_json::Value| flow["generation"].as_u64().unwrap();
    // After /clear: the first session's compaction landed on the new session, whose flow
    // has another generation: its outcome could change nothing there.
    assert_ne!(
        stale[0],
        generation(&second_flow),
        "the first session's work names the new session's generation: it could land there"
    );
    // The second session's own reset stayed its own (the compaction it asked for names it),
    // and nothing of the first session's reset reached it.
    assert_eq!(
        second_flow["commit"]["marker"]["generation"].as_u64(),
        Some(stale[1]),
        "the second session's pending reset is not the one it asked for: {second_flow}"
    );
    assert_eq!(second_flow["request"]["args"]["sticky"], "LW-ELEVEN-B");
    // After the in-session /resume: the second session's compaction landed on the first,
    // whose flow is bound anew (its own unproven reset let go) and ignores it.
    assert_ne!(
        stale[1],
        generation(&first),
        "the second session's work names the resumed session's generation"
    );
    assert!(
        first["commit"].is_null() && first["request"].is_null(),
        "the resumed session's flow holds a reset: {first}"
    );
    // Nothing was cleared anywhere, and each later prompt ran in its own session.
    assert_eq!(
        crate::boundaries(out),
        0,
        "a stale compaction cleared a window"
    );
    assert!(
        requests[2].all_text().contains("Say three.")
            && requests[2].all_text().contains("Clear the first")
            && !requests[2].all_text().contains("Clear the second"),
        "/resume did not go back to the first conversation: the scenario proves nothing"
    );
    assert_eq!(
        boots(requests[1]),
        [format!("claude:{second}:0")],
        "the new session's request holds its own window 0's boot"
    );
}

/// w11's checks when /clear ended the first session before its turn completed: only the
/// second session's compaction is stale (it lands on the resumed first session, vetoed
/// there), nothing reached the second session, and the first session's own pending reset,
/// resumed, commits after its next turn without a continuation (the person's input
/// carries the window).
fn w11_check_cleared_first(
    out: &Outcome,
    stale: &[u64],
    second_flow: &serde_json::Value,
    requests: &[Request<'_>],
) {
    assert_eq!(
        stale.len(),
        1,
        "only the second session's compaction is stale: {stale:?}"
    );
    assert_eq!(
        second_flow["commit"]["marker"]["generation"].as_u64(),
        Some(stale[0]),
        "the second session's pending reset is not the one it asked for: {second_flow}"
    );
    assert_eq!(second_flow["request"]["args"]["sticky"], "LW-ELEVEN-B");
    assert!(
        out.debug_log
            .contains("fresh window ready; not continuing: your input continues it"),
        "the resumed session's own reset did not commit after its turn"
    );
    assert_eq!(
        crate::boundaries(out),
        1,
        "one clear: the resumed session's own"
    );
    assert!(
        requests[2].all_text().contains("Say three.")
            && requests[2].all_text().contains("Clear the first")
            && !requests[2].all_text().contains("Clear the second"),
        "/resume did not go back to the first conversation: the scenario proves nothing"
    );
}

// ---------------------------------------------------------------------------------
// A reset in a session `/clear` started, in a terminal. The engine raises no
// `session.start` for the new session, so its record starts without hearing that the
// process is interactive; the reset the model asks for there must still commit as in any
// terminal session: the commit is evidenced by the boot in the conversation (the
// interactive watch), not by the rows the host appends (the headless watch).

const W12_FIRST: &str = "0e0a0a12-0000-4000-8000-000000000a12";

#[test]
fn w12_a_reset_after_clear_in_a_terminal_commits_as_in_any_terminal_session() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .rule(
            Match::tail_contains(FRESH_BOOT),
            Reply::text("Fresh window: carrying on."),
        )
        .rule(
            Match::tail_contains("Clear your window now.").and_tool_result(false),
            Reply::text("Saving and clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-TWELVE", Some(false))),
        )
        .rule(
            Match::tail_contains("Say one.").and_tool_result(false),
            Reply::text("One."),
        )
        .fallback(Reply::text("(fallback)"));
    let mut middle = vec![
        Step::Sleep(Duration::from_secs(1)),
        Step::Type("/clear".into()),
        Step::Sleep(Duration::from_millis(500)),
        Step::Key("Enter".into()),
        Step::Sleep(Duration::from_secs(3)),
        Step::Type("Clear your window now.".into()),
        Step::Sleep(Duration::from_millis(500)),
        Step::Key("Enter".into()),
    ];
    middle.extend([
        Step::WaitFor(
            regex::escape("Fresh window: carrying on."),
            Duration::from_secs(90),
        ),
        Step::Idle(Duration::from_secs(4)),
        Step::Capture("after-reset".into()),
    ]);
    let mode = tmux_lines(&[("Say one.", Some("One."))], middle);
    let out = crate::session("w12-clear-reset", script)
        .timeout(Duration::from_secs(200))
        .args(&["--session-id", W12_FIRST])
        .run(&mode)
        .unwrap();
    crate::assert_clean_exit(&out);
    let second = out
        .transcripts
        .iter()
        .filter(|t| !t.is_subagent())
        .filter_map(|t| t.path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .find(|id| id != W12_FIRST)
        .expect("/clear did not start a new session: the scenario proves nothing");
    assert_eq!(crate::boundaries(&out), 1, "exactly one commit on disk");
    let fresh = fresh_window_requests(&out);
    assert_eq!(fresh.len(), 1, "exactly one fresh-window request");
    assert_eq!(
        boots(fresh[0]),
        [format!("claude:{second}:1")],
        "the fresh window's request must hold one boot, the cleared session's window 1"
    );
    crate::assert_fresh_window(
        &out,
        fresh[0],
        Some("LW-TWELVE"),
        notesoup_boot::Reset::Normal,
    );
    // No error, no stuck reset: the cleared session's flow holds no request and no commit
    // awaiting evidence, and it knows the terminal is interactive.
    let flow = kept_flow(&out, &second);
    assert!(
        flow["request"].is_null() && flow["commit"].is_null(),
        "the cleared session's reset is stuck: {flow}"
    );
    assert_eq!(
        flow["interactive"], true,
        "the cleared session's record is not interactive: {flow}"
    );
    // The commit was evidenced by the interactive watch (the kept boots), never by the
    // headless one (every appended row's text).
    assert!(
        !out.debug_log
            .contains("the compaction's user row came through door"),
        "the cleared session's commit was read from appended rows, as in a headless run"
    );
    assert!(
        !out.debug_log.contains("notesoup is off"),
        "the helper failed in the cleared session"
    );
}
