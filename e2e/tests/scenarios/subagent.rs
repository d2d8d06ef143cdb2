//! Scenario 12: a subagent cannot reset the main brain, nor read its history.

use notesoup_e2e::{Match, Mode, Reply, Script};

use super::{
    EMPTY_BRAIN, WINDOW_200K, assert_clean_exit, boundaries, compactions, empty_brain,
    fresh_window_requests, run_clean, serial, session,
};

// ---------------------------------------------------------------------------------
// 12. A subagent calling empty_brain cannot reset the main brain.

#[test]
fn s12_subagent_cannot_reset_the_main_brain() {
    let script = Script::new()
        .rule_times(
            Match::user_contains("SUBAGENT-TASK").and_tool_result(false),
            Reply::text("Subagent clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-SUB", Some(false))),
            1,
        )
        .rule_times(
            Match::tool_result(true).and_any_contains("LW-SUB"),
            Reply::text("Subagent done."),
            1,
        )
        .rule(Match::user_contains("<task-notification>"), Reply::text("The subagent reported back."))
        .then(Reply::text("Delegating.").and_tool(
            "Agent",
            serde_json::json!({"description": "e2e subagent", "prompt": "SUBAGENT-TASK: call empty_brain.",
                               "subagent_type": "general-purpose"}),
        ))
        .then_when(Match::tool_result(true), Reply::text("The subagent is running."))
        .fallback(Reply::text("(fallback)"));
    let out = run_clean(
        "s12-subagent",
        script,
        &Mode::Print("Delegate to a subagent.".into()),
    );
    let sub_called = out
        .message_bodies()
        .iter()
        .any(|b| b.to_string().contains("SUBAGENT-TASK"));
    assert!(sub_called, "the subagent never ran");
    // The subagent's own empty_brain call came back refused.
    let refusal = out
        .message_requests()
        .into_iter()
        .filter(|r| r.has_tool_result() && r.body().to_string().contains("LW-SUB"))
        .flat_map(|r| r.tool_results())
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        refusal.contains("subagent"),
        "the subagent's empty_brain was not refused: {refusal:?}"
    );
    assert_eq!(
        boundaries(&out),
        0,
        "the main transcript was reset by a subagent"
    );
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a fresh main window started"
    );
    assert_eq!(compactions(&out), 0);
}

// ---------------------------------------------------------------------------------
// 12b. A subagent's history call is refused, its notes are the main agent's, and its own
// context fill (past the main window's hard point) neither warns nor resets the main brain.

#[test]
fn s12_subagent_history_is_refused_notes_are_shared_and_its_fill_is_not_the_mains() {
    let _one = serial();
    let script = Script::new()
        .rule_times(
            Match::user_contains("SUBAGENT-TASK").and_tool_result(false),
            Reply::tool("mcp__notesoup__history_list", serde_json::json!({}))
                .with_input_tokens(165_000),
            1,
        )
        .rule_times(
            Match::tail_contains("not available to subagents"),
            Reply::tool(
                "mcp__notesoup__notes_write",
                serde_json::json!({"name": "sub-probe", "text": "SUB-NOTE-12"}),
            )
            .with_input_tokens(165_500),
            1,
        )
        .rule_times(
            Match::any_contains("SUBAGENT-TASK")
                .and_any_contains("SUB-NOTE-12")
                .and_tool_result(true),
            Reply::text("Subagent done.").with_input_tokens(166_000),
            1,
        )
        .rule(
            Match::user_contains("<task-notification>"),
            Reply::tool(
                "mcp__notesoup__notes_read",
                serde_json::json!({"name": "sub-probe"}),
            ),
        )
        .then(Reply::text("Delegating.").and_tool(
            "Agent",
            serde_json::json!({"description": "e2e subagent", "prompt": "SUBAGENT-TASK: look at the history.",
                               "subagent_type": "general-purpose"}),
        ))
        .then_when(Match::tool_result(true), Reply::text("The subagent is running."))
        .fallback(Reply::text("(fallback)"));
    let out = session("s12-subagent-history", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .run(&Mode::Print("Delegate to a subagent.".into()))
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.message_requests();
    let results = |r: &notesoup_e2e::Request<'_>| {
        r.tool_results()
            .into_iter()
            .map(|(_, t)| t)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        requests
            .iter()
            .any(|r| results(r).contains("`history_list` is not available to subagents")),
        "the subagent's history_list was not refused"
    );
    assert!(
        // Only the main agent reads notes here: its notes_read answer holds the note.
        requests.iter().any(|r| {
            let text = results(r);
            text.contains("note `sub-probe` |") && text.contains("SUB-NOTE-12")
        }),
        "the main agent did not read the note its subagent wrote"
    );
    assert!(
        !requests
            .iter()
            .any(|r| r.all_text().contains("notesoup budget warning:")),
        "the subagent's fill brought a budget warning"
    );
    assert_eq!(
        boundaries(&out),
        0,
        "the subagent's fill reset the main brain"
    );
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a fresh main window started"
    );
}

// ---------------------------------------------------------------------------------
// 12c. A subagent's reactive compaction (its request came back "prompt is too long") is
// Claude's own summary of the subagent's context; the main window is left alone.

#[test]
fn s12_a_subagents_prompt_too_long_compaction_leaves_the_main_window_alone() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>SUB SUMMARY</summary>"),
        )
        .rule_times(
            Match::user_contains("SUBAGENT-TASK").and_tool_result(false),
            Reply::tool(
                "mcp__notesoup__notes_read",
                serde_json::json!({"name": "sub-ptl"}),
            ),
            1,
        )
        .rule_times(
            Match::tail_contains("sub-ptl"),
            Reply::prompt_too_long(210_000, 200_000),
            1,
        )
        .rule(Match::any_contains("SUB SUMMARY"), Reply::text("Subagent done."))
        .rule(
            Match::user_contains("<task-notification>"),
            Reply::text("Reported."),
        )
        .then(Reply::text("Delegating.").and_tool(
            "Agent",
            serde_json::json!({"description": "e2e subagent", "prompt": "SUBAGENT-TASK: read a note.",
                               "subagent_type": "general-purpose"}),
        ))
        .then_when(Match::tool_result(true), Reply::text("The subagent is running."))
        .fallback(Reply::text("(fallback)"));
    let out = session("s12-subagent-ptl", script)
        .run(&Mode::Print("Delegate to a subagent.".into()))
        .unwrap();
    assert_clean_exit(&out);
    assert!(
        out.requests.iter().any(|r| r["status"] == 400),
        "no prompt-too-long: the scenario proves nothing"
    );
    assert_eq!(
        compactions(&out),
        1,
        "the subagent's context is Claude's own summary, once"
    );
    assert!(
        out.mod_log
            .contains("hook session.compact -> native_compaction"),
        "notesoup did not leave the subagent's compaction to Claude"
    );
    assert_eq!(boundaries(&out), 0, "the main transcript was compacted");
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a fresh main window started"
    );
    assert!(
        out.message_requests()
            .iter()
            .all(|r| !r.all_text().contains(":1\">")),
        "a request holds a boot of main window 1"
    );
}
