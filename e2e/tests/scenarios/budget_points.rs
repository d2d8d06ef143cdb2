//! Where the budget's points come from and where the warning rides, in the real engine:
//! `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, the hard point met at a turn's end, the warning on
//! the next prompt, and automatic compaction turned off (settings or environment) with the
//! model's own reset still working.

use notesoup_e2e::{Input, Match, Mode, Reply, Script};

use super::{
    EMPTY_BRAIN, FRESH_BOOT, WINDOW_200K, assert_clean_exit, assert_fresh_window, boundaries,
    empty_brain, fresh_window_requests, plugin_prompts, serial, session,
};

/// The first words of the budget warning (`boot/text/warning.md`).
const WARNING: &str = "notesoup budget warning:";

fn list() -> Reply {
    Reply::tool("mcp__notesoup__notes_list", serde_json::json!({}))
}

/// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50` with a 200K window: Claude's point is
/// min(167 000, 50 % of the 180 000 effective window) = 90 000, so notesoup's hard point is
/// 81 808 and its warning point 65 424. The engine's breakdown already says 90 000, and the
/// override is not applied a second time: 60 000 is no warning, 70 000 is.
#[test]
fn s18_the_percent_override_lowers_the_points() {
    let _one = serial();
    let script = Script::new()
        .then(list().with_input_tokens(60_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(70_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(71_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(85_000))
        .then_when(Match::tail_contains(FRESH_BOOT), Reply::text("Fresh."))
        .fallback(Reply::text("(fallback)"));
    let out = session("s18-pct-override", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")
        .run(&Mode::Print("Work.".into()))
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    let warned = |i: usize| requests[i].tail_text().contains(WARNING);
    assert!(requests.len() >= 4, "the run stopped early");
    assert!(
        !warned(1),
        "warned at 60 000, below the lowered warning point"
    );
    assert!(
        warned(2),
        "no warning at 70 000, past the lowered warning point"
    );
    assert!(!warned(3), "warned twice in one window");
    assert_eq!(boundaries(&out), 1, "no clear past the lowered hard point");
}

/// A turn whose one answer (no tool) reports 160 000 tokens, past the hard point (158 808):
/// no later step can end it, so its successful `turn.complete` checks the point and the
/// window is cleared by itself, with the forced handoff and one continuation.
#[test]
fn s19_the_hard_point_met_at_a_successful_turn_end_clears_once() {
    let _one = serial();
    let script = Script::new()
        .then(Reply::text("Done.").with_input_tokens(160_000))
        .then_when(Match::tail_contains(FRESH_BOOT), Reply::text("Fresh."))
        .fallback(Reply::text("(fallback)"));
    let out = session("s19-hard-point-at-turn-end", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .run(&Mode::Print("Answer.".into()))
        .unwrap();
    assert_clean_exit(&out);
    assert_eq!(
        boundaries(&out),
        1,
        "no clear at the turn's end past the hard point"
    );
    let fresh = fresh_window_requests(&out);
    assert_eq!(fresh.len(), 1, "exactly one fresh-window request");
    assert_fresh_window(&out, fresh[0], None, notesoup_boot::Reset::Forced);
    assert_eq!(plugin_prompts(&out), 1, "one continuation prompt on disk");
}

/// Answers without tools past the warning point (150 000): no tool result can carry the
/// warning, so the next prompt does, once; the prompt after it does not.
#[test]
fn s20_the_warning_rides_the_next_prompt_once() {
    let _one = serial();
    let script = Script::new().fallback(Reply::text("Answered.").with_input_tokens(150_000));
    let out = session("s20-warning-on-prompt", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .run(&Mode::StreamJson(vec![
            Input::Message("one".into()),
            Input::Message("two".into()),
            Input::Message("three".into()),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    let warned: Vec<usize> = (0..requests.len())
        .filter(|i| requests[*i].tail_text().contains(WARNING))
        .collect();
    assert_eq!(warned, [1], "the warning must ride the second prompt only");
    assert_eq!(
        requests[2].all_text().matches(WARNING).count(),
        1,
        "the third request holds the warning once (as the second prompt carried it)"
    );
}

/// With automatic compaction off, past the hard point: the warning says only the reset tool
/// clears the window, nothing clears it by itself (the step after the tool result is not
/// cut), and the model's own `empty_brain` still resets it (one commit, one continuation).
#[rstest::rstest]
#[case::settings(
    "s21-auto-off-settings",
    Some(r#"{"autoCompactEnabled": false}"#),
    None
)]
#[case::env("s21-auto-off-env", None, Some(("DISABLE_AUTO_COMPACT", "1")))]
fn s21_with_auto_compaction_off_explicit_resets_still_work(
    #[case] name: &str,
    #[case] settings: Option<&str>,
    #[case] env: Option<(&str, &str)>,
) {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(list().with_input_tokens(160_000))
        .then_when(
            Match::tool_result(true),
            Reply::text("Clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-TWENTY-ONE", Some(false)))
                .with_input_tokens(160_500),
        )
        .then_when(Match::tail_contains(FRESH_BOOT), Reply::text("Fresh."))
        .fallback(Reply::text("(fallback)"));
    let mut session = session(name, script).env(WINDOW_200K.0, WINDOW_200K.1);
    if let Some(settings) = settings {
        session = session.file(".claude/settings.json", settings);
    }
    if let Some((name, value)) = env {
        session = session.env(name, value);
    }
    let out = session.run(&Mode::Print("Work on.".into())).unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert!(requests.len() >= 2, "the step past the hard point was cut");
    let tail = requests[1].tail_text();
    assert!(
        tail.contains(WARNING),
        "no warning past the warning point:\n{tail}"
    );
    assert!(
        tail.contains("nothing clears this window but the reset tool"),
        "the warning promises an automatic clear:\n{tail}"
    );
    assert_eq!(boundaries(&out), 1, "the model's own reset did not commit");
    let fresh = fresh_window_requests(&out);
    assert_eq!(fresh.len(), 1, "exactly one fresh-window request");
    assert_fresh_window(
        &out,
        fresh[0],
        Some("LW-TWENTY-ONE"),
        notesoup_boot::Reset::Normal,
    );
}
