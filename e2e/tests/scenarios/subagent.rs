//! Scenario 12: a subagent cannot reset the main brain.

use notesoup_e2e::{Match, Mode, Reply, Script};

use super::{EMPTY_BRAIN, boundaries, compactions, empty_brain, fresh_window_requests, run_clean};

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
