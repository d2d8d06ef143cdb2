//! The mod's commands answered in an open stream-json session: `/notesoup`'s cap grammar
//! (show, set, refuse, remove), and `/empty`, `/fresh-window` and `empty_brain` under
//! `DISABLE_COMPACT`.

use notesoup_e2e::{Input, Match, Mode, Reply, Script};

use super::{
    EMPTY_BRAIN, WINDOW_200K, assert_clean_exit, boundaries, compactions, empty_brain,
    result_lines, run_clean, serial, session, tool_results_text,
};

/// `/notesoup` bare and `/notesoup cap` show the cap; whole tokens and decimal `k`/`m` set
/// it; a cap too small for the reserves and a word that is no count are refused and change
/// nothing; `cap off` removes it. No command is a model request, and none writes settings.
#[test]
fn s22_the_cap_command_shows_sets_refuses_and_removes() {
    let out = run_clean(
        "s22-cap-grammar",
        Script::new().fallback(Reply::text("Hello.")),
        &Mode::StreamJson(
            [
                "hello",
                "/notesoup",
                "/notesoup cap 1.5k",
                "/notesoup cap 0.15m",
                "/notesoup cap",
                "/notesoup cap 120000",
                "/notesoup cap banana",
                "/notesoup cap off",
                "/notesoup cap",
            ]
            .into_iter()
            .map(|m| Input::Message(m.into()))
            .collect(),
        ),
    );
    let results: Vec<String> = result_lines(&out)
        .iter()
        .map(|r| r["result"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(results.len(), 9, "one result per message: {results:?}");
    let says = |i: usize, what: &str| {
        assert!(
            results[i].contains(what),
            "answer {i} does not say {what:?}: {}",
            results[i]
        );
    };
    says(1, "Cap: none");
    says(2, "cap refused: cap \"1.5k\" (1,500 tokens) leaves no room");
    says(3, "Cap: 150,000 tokens");
    says(4, "Cap: 150,000 tokens");
    says(5, "Cap: 120,000 tokens");
    says(6, "cap refused: cap \"banana\" is not a token count");
    says(7, "Cap removed");
    says(8, "Cap: none");
    assert_eq!(
        out.message_requests().len(),
        1,
        "a command reached the model"
    );
    for settings in [
        out.run_dir.join("home/.claude/settings.json"),
        out.work.join(".claude/settings.json"),
        out.work.join(".claude/settings.local.json"),
    ] {
        assert!(!settings.exists(), "the cap wrote {}", settings.display());
    }
}

/// What the flow answers the model's `empty_brain` under `DISABLE_COMPACT`.
const REFUSED: &str = "DISABLE_COMPACT is set, so the window cannot be cleared";

/// `DISABLE_COMPACT=1` in an open stream-json session (w09 is the terminal's): past the
/// warning point no warning comes, `/fresh-window` and `/empty` say they cannot run, the
/// model's `empty_brain` is refused, and nothing is compacted.
#[test]
fn s23_disable_compact_in_stream_json_refuses_resets_and_warns_never() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::tool_result(true),
            Reply::text("Refused, still here.").with_input_tokens(151_000),
        )
        .rule(
            Match::user_contains("Clear the window.").and_tool_result(false),
            Reply::tool(EMPTY_BRAIN, empty_brain("s23", None)).with_input_tokens(150_500),
        )
        .fallback(Reply::text("Hello.").with_input_tokens(150_000));
    let out = session("s23-disable-compact-stream-json", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .env("DISABLE_COMPACT", "1")
        .run(&Mode::StreamJson(
            [
                "hello",
                "/fresh-window",
                "/empty",
                "Clear the window.",
                "Still there?",
            ]
            .into_iter()
            .map(|m| Input::Message(m.into()))
            .collect(),
        ))
        .unwrap();
    assert_clean_exit(&out);
    let results: Vec<String> = result_lines(&out)
        .iter()
        .map(|r| r["result"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(results.len(), 5, "one result per message: {results:?}");
    assert!(
        results[1].contains("/fresh-window cannot run: DISABLE_COMPACT"),
        "{}",
        results[1]
    );
    assert!(
        results[2].contains("/empty cannot run: DISABLE_COMPACT"),
        "{}",
        results[2]
    );
    let requests = out.model_turn_requests();
    assert!(
        requests
            .iter()
            .any(|r| tool_results_text(*r).contains(REFUSED)),
        "the model's empty_brain was not refused"
    );
    assert!(
        !requests
            .iter()
            .any(|r| r.all_text().contains("notesoup budget warning:")),
        "a budget warning under DISABLE_COMPACT"
    );
    assert_eq!(boundaries(&out), 0, "the window was compacted");
    assert_eq!(compactions(&out), 0, "a summary was asked for");
}
