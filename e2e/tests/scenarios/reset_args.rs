//! `empty_brain`'s arguments in the real engine: the first valid call of a batch owns them,
//! and a non-boolean `terminate` is refused before anything is recorded.

use notesoup_e2e::{Match, Mode, Reply, Script};

use super::{
    EMPTY_BRAIN, boundaries, empty_brain, plugin_prompts, reset::committed_boot, run_clean,
};

/// Two `empty_brain` calls in one batch: the first (`terminate: true`, `LW-FIRST`) owns the
/// reset; the second can re-arm the cutoff but replaces neither argument. One request, one
/// commit whose boot holds the first last word only, and no continuation.
#[test]
fn s16_the_first_empty_brain_of_a_batch_owns_its_arguments() {
    let script = Script::new()
        .then(
            Reply::text("Clearing twice.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-FIRST", Some(true)))
                .and_tool(EMPTY_BRAIN, empty_brain("LW-SECOND", Some(false))),
        )
        .fallback(Reply::text("(no request was expected)"));
    let out = run_clean("s16-first-wins", script, &Mode::Print("Clear now.".into()));
    assert_eq!(boundaries(&out), 1, "exactly one commit");
    let boot = committed_boot(&out);
    assert!(
        boot.contains("LW-FIRST"),
        "the first call's last word is not in the boot"
    );
    assert!(
        !boot.contains("LW-SECOND"),
        "the second call replaced or joined the last word: {boot}"
    );
    assert_eq!(
        plugin_prompts(&out),
        0,
        "the first call's terminate: true was replaced"
    );
    assert_eq!(out.message_requests().len(), 1, "a request after the reset");
}

/// `terminate: "yes"` is refused back to the model and records nothing: the turn goes on,
/// and the model's next, valid call (`terminate: true`, `LW-GOOD`) owns the reset. (The
/// strings "true" and "false" the engine itself turns into booleans first:
/// claude-hooks/EVENTS.md.)
#[test]
fn s17_a_non_boolean_terminate_is_refused_before_anything_is_recorded() {
    let script = Script::new()
        .then(Reply::text("Clearing.").and_tool(
            EMPTY_BRAIN,
            serde_json::json!({"last_word": "LW-BAD", "terminate": "yes"}),
        ))
        .then_when(
            Match::tool_result(true),
            Reply::text("Again.").and_tool(EMPTY_BRAIN, empty_brain("LW-GOOD", Some(true))),
        )
        .fallback(Reply::text("(no request was expected)"));
    let out = run_clean(
        "s17-bad-terminate",
        script,
        &Mode::Print("Clear now.".into()),
    );
    let requests = out.message_requests();
    assert_eq!(
        requests.len(),
        2,
        "the refusal did not go back to the model"
    );
    let refusal = super::tool_results_text(requests[1]);
    assert!(
        refusal.contains("must be a boolean"),
        "the first call was not refused: {refusal}"
    );
    assert_eq!(boundaries(&out), 1, "exactly one commit");
    let boot = committed_boot(&out);
    assert!(
        boot.contains("LW-GOOD"),
        "the valid call does not own the reset"
    );
    assert!(
        !boot.contains("LW-BAD"),
        "the refused call was recorded: {boot}"
    );
    assert_eq!(
        plugin_prompts(&out),
        0,
        "the valid call's terminate: true was lost"
    );
}
