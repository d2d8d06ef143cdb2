//! notesoup in the real Pi coding agent 1.6.0: `pi -p` offline against the scripted
//! Anthropic service, with the extension `plugins/pi` loaded and the helper it runs.
//!
//! Needs `scripts/get-pi` (Node 22 and Pi from npm) and the release helper, as
//! `scripts/test` arranges (feature `real-pi`).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::PathBuf;
use std::time::Duration;

use notesoup_e2e::{Match, PiOutcome, PiRun, Reply, Script, fresh_run_dir, pi_binaries};
use notesoup_window::marker;
use serde_json::{Value, json};

const WARNING: &str = "notesoup budget warning";
const SUMMARIZER: &str = "context summarization assistant";

fn helper() -> PathBuf {
    if let Some(path) = std::env::var_os("NOTESOUP_E2E_HELPER") {
        return PathBuf::from(path);
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo.join("target"), PathBuf::from);
    ["release", "debug"]
        .iter()
        .map(|p| target.join(p).join("notesoup-helper"))
        .find(|p| p.is_file())
        .expect("no notesoup-helper: cargo build --release -p notesoup-helper-bin (or set NOTESOUP_E2E_HELPER)")
}

fn run(name: &str, prompt: &str, script: Script) -> (PiOutcome, PiRun) {
    run_with(name, prompt, script, json!({}))
}

fn run_with(name: &str, prompt: &str, script: Script, settings: Value) -> (PiOutcome, PiRun) {
    run_env(name, prompt, script, settings, &[])
}

fn run_env(
    name: &str,
    prompt: &str,
    script: Script,
    settings: Value,
    env: &[(&str, &str)],
) -> (PiOutcome, PiRun) {
    let pi = pi_run(name, settings, env);
    let out = pi.print(prompt, script).unwrap();
    assert_eq!(out.status, Some(0), "{}", out.report());
    (out, pi)
}

/// The real Pi with the extension and this build's helper, in a fresh run dir.
fn pi_run(name: &str, settings: Value, env: &[(&str, &str)]) -> PiRun {
    let (node, cli) = pi_binaries().unwrap();
    PiRun {
        node,
        cli,
        helper: helper(),
        run_dir: fresh_run_dir(name),
        timeout: Duration::from_secs(120),
        settings,
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    }
}

/// The text of every message of a request, in order.
fn texts(request: &Value) -> Vec<String> {
    request["body"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| notesoup_e2e::content_text(Some(&m["content"])))
        .collect()
}

fn system(request: &Value) -> String {
    notesoup_e2e::Request::new(&request["body"]).system_text()
}

#[test]
fn the_tools_and_window_zeros_boot_are_in_the_first_request() {
    let script = Script::new().fallback(Reply::text("ok"));
    let (out, _) = run("pi-tools", "hello", script);
    let first = &out.requests[0];
    let tools: Vec<&str> = first["body"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for tool in [
        "notesoup_notes_list",
        "notesoup_notes_read",
        "notesoup_notes_write",
        "notesoup_notes_edit",
        "notesoup_notes_delete",
        "notesoup_history_list",
        "notesoup_history_read",
        "notesoup_history_sessions",
        "notesoup_empty_brain",
        "notesoup_get_context_remaining",
    ] {
        assert!(
            tools.contains(&tool),
            "{tool} missing: {tools:?}\n{}",
            out.report()
        );
    }
    // Window 0's boot rides the prompt as a hidden message that stays in the conversation.
    let boot = texts(first).into_iter().find(|t| t.contains(marker::OPEN));
    let boot = boot.unwrap_or_else(|| panic!("no boot in the first request\n{}", out.report()));
    let window = marker::retained_window(&boot).unwrap_or_else(|| panic!("{boot}"));
    assert_eq!((window.host(), window.ordinal()), ("pi", 0), "{boot}");
    // The history tools read the running session: the boot offers them.
    assert!(!boot.contains("History is not available"), "{boot}");
}

#[test]
fn the_warning_rides_one_tool_result_per_window() {
    // Past the warning point (159040 with Pi's defaults) from the first answer on.
    let note = |n: u32| json!({"name": format!("n{n}"), "text": "x\n"});
    let script = Script::new()
        .then(Reply::tool("notesoup_notes_write", note(1)).with_input_tokens(165_000))
        .then(Reply::tool("notesoup_notes_write", note(2)).with_input_tokens(166_000))
        .then(Reply::text("done").with_input_tokens(167_000))
        .fallback(Reply::text("(fallback)"));
    let (out, _) = run("pi-warning", "Write two notes.", script);
    assert_eq!(out.requests.len(), 3, "{}", out.report());
    let last = texts(&out.requests[2]).join("\n");
    assert_eq!(last.matches(WARNING).count(), 1, "{}\n{last}", out.report());
    assert!(last.contains("`notesoup_empty_brain`"), "{last}");
}

#[test]
fn empty_brain_is_answered_with_the_boot_and_no_summary_request() {
    let script = Script::new()
        .rule(
            Match::system_contains(SUMMARIZER),
            Reply::text("FAKE-SUMMARY"),
        )
        .then(Reply::tool(
            "notesoup_empty_brain",
            json!({"last_word": "finish the parser"}),
        ))
        .then(Reply::text("Fresh window: continuing."))
        .fallback(Reply::text("(fallback)"));
    let (out, _) = run("pi-reset", "Reset your brain now.", script);
    assert!(
        out.requests.iter().all(|r| !system(r).contains(SUMMARIZER)),
        "a summary request reached the model\n{}",
        out.report()
    );
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    // The tool batch ended the run: the next request is the fresh window's, whose first
    // message is the boot of window 1 with the last word, and nothing before it.
    let fresh = texts(&out.requests[1]);
    assert_eq!(fresh.len(), 2, "{fresh:?}");
    let boot = &fresh[0];
    let window = marker::retained_window(boot).unwrap_or_else(|| panic!("no boot: {boot}"));
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{boot}");
    assert_eq!(boot.matches("finish the parser").count(), 1, "{boot}");
    assert!(
        !fresh.join("\n").contains("Reset your brain now."),
        "{fresh:?}"
    );
    assert!(
        !system(&out.requests[1]).contains(marker::OPEN),
        "boot twice"
    );
}

#[test]
fn terminate_true_makes_no_further_request() {
    let script = Script::new()
        .then(Reply::tool(
            "notesoup_empty_brain",
            json!({"last_word": "stop here", "terminate": true}),
        ))
        .fallback(Reply::text("(fallback)"));
    let (out, pi) = run("pi-terminate", "Reset and stop.", script);
    assert_eq!(out.requests.len(), 1, "{}", out.report());
    // The window was still cleared: the session's last compaction is the boot of window 1.
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
}

/// The model saves its notes and calls the reset tool in one batch, as the warning asks:
/// with `terminate` no request follows (Pi ends a run only when every result of the batch
/// says so), and without it the work continues once from the fresh window.
#[test]
fn a_reset_batched_with_a_note_still_stops_or_continues_once() {
    let batch = |terminate: bool| {
        Reply::tool(
            "notesoup_notes_write",
            json!({"name": "state", "text": "parser half done\n"}),
        )
        .and_tool(
            "notesoup_empty_brain",
            json!({"last_word": "finish the parser", "terminate": terminate}),
        )
    };
    let script = Script::new()
        .then(batch(true))
        .fallback(Reply::text("(fallback: a request after terminate)"));
    let (out, pi) = run("pi-batched-terminate", "Save and stop.", script);
    assert_eq!(out.requests.len(), 1, "{}", out.report());
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    assert!(
        summary.contains("parser half done"),
        "the note saved in the batch: {summary}"
    );

    let script = Script::new()
        .then(batch(false))
        .then(Reply::text("Fresh window: continuing."))
        .fallback(Reply::text("(fallback)"));
    let (out, _) = run("pi-batched-reset", "Save and reset.", script);
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let fresh = texts(&out.requests[1]);
    let window = marker::retained_window(&fresh[0]).unwrap_or_else(|| panic!("{fresh:?}"));
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{fresh:?}");
    assert!(!fresh.join("\n").contains("Save and reset."), "{fresh:?}");
}

/// Past the hard point (175424 with Pi's defaults) the window clears by itself when the run
/// settles (Pi's own threshold compaction finds nothing to summarize in so short a session),
/// and the work continues once from the fresh window.
#[test]
fn the_hard_point_clears_by_itself() {
    let script = Script::new()
        .rule(
            Match::system_contains(SUMMARIZER),
            Reply::text("FAKE-SUMMARY"),
        )
        .then(Reply::text("A long answer.").with_input_tokens(190_000))
        .then(Reply::text("Fresh window: continuing."))
        .fallback(Reply::text("(fallback)"));
    let (out, pi) = run("pi-hard", "Keep going.", script);
    assert!(
        out.requests.iter().all(|r| !system(r).contains(SUMMARIZER)),
        "a summary request reached the model\n{}",
        out.report()
    );
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let fresh = texts(&out.requests[1]);
    let window = marker::retained_window(&fresh[0]).unwrap_or_else(|| panic!("{fresh:?}"));
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{fresh:?}");
    assert!(!fresh.join("\n").contains("Keep going."), "{fresh:?}");
    assert!(last_compaction(&pi).is_some());
}

/// Pi's own threshold compaction (a cut it can make: `keepRecentTokens` 40 and a long
/// prompt, as the Pi harness measured) is answered with the boot of window 1: no summary
/// request, and the fresh window's request opens with the boot.
#[test]
fn pis_threshold_compaction_is_answered_with_the_boot() {
    let script = Script::new()
        .rule(
            Match::system_contains(SUMMARIZER),
            Reply::text("FAKE-SUMMARY"),
        )
        .then(Reply::tool("notesoup_notes_list", json!({})).with_input_tokens(1_000))
        .then(Reply::text("A long answer.").with_input_tokens(190_000))
        .then(Reply::text("Fresh window: continuing."))
        .fallback(Reply::text("(fallback)"));
    let prompt = "Please keep going with the parser work: ".repeat(8);
    let settings = json!({"compaction": {"keepRecentTokens": 10}});
    let (out, pi) = run_with("pi-threshold", &prompt, script, settings);
    assert!(
        out.requests.iter().all(|r| !system(r).contains(SUMMARIZER)),
        "a summary request reached the model\n{}",
        out.report()
    );
    // Pi's own threshold compaction (its check runs before the run settles), answered.
    assert!(
        out.stderr
            .contains("event session_before_compact (threshold)"),
        "{}",
        out.report()
    );
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    // Pi continues the run after its compaction; the continuation rides that one request.
    assert_eq!(out.requests.len(), 3, "{}", out.report());
    let fresh = texts(&out.requests[2]);
    assert_eq!(fresh.len(), 2, "{fresh:?}\n{}", out.report());
    assert!(marker::retained_window(&fresh[0]).is_some(), "{fresh:?}");
    assert!(fresh[1].starts_with("Fresh window. Continue"), "{fresh:?}");
}

/// `pi -p "/empty"`: Pi ends the process with the command, so the clearing commands are
/// refused there with what to do instead; no request goes out (it went out with no
/// messages before) and nothing is written.
#[test]
fn the_clearing_commands_in_print_mode_say_so_and_send_nothing() {
    for (name, command) in [
        ("pi-empty-print", "/empty"),
        ("pi-fresh-print", "/fresh-window"),
    ] {
        let script = Script::new().fallback(Reply::text("(fallback)"));
        let (out, pi) = run(name, command, script);
        assert_eq!(out.requests.len(), 0, "{}", out.report());
        assert!(
            out.stderr
                .contains(&format!("{command} needs a Pi session that stays open")),
            "{}",
            out.report()
        );
        assert!(last_compaction(&pi).is_none(), "{}", out.report());
    }
}

/// The summary of the last compaction entry of the run's one session file.
fn last_compaction(pi: &PiRun) -> Option<String> {
    let sessions = pi.run_dir.join("pi-home/.pi/agent/sessions");
    let dir = std::fs::read_dir(sessions).ok()?.next()?.ok()?.path();
    let file = std::fs::read_dir(dir).ok()?.next()?.ok()?.path();
    std::fs::read_to_string(file)
        .ok()?
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "compaction")
        .and_then(|e| e["summary"].as_str().map(str::to_owned))
}

/// `/notesoup cap 100k` in `pi -p`: no model request; the status in Pi's words on stderr.
#[test]
fn notesoup_sets_the_cap_and_answers_in_pis_words() {
    let script = Script::new().fallback(Reply::text("(fallback)"));
    let (out, _) = run("pi-command", "/notesoup cap 100k", script);
    assert!(out.requests.is_empty(), "{}", out.report());
    for line in [
        "Warns at 59,040 tokens, clears at 75,424 (Pi would compact above 183,616; the cap's point is 83,616)",
        "Cap: 100,000 tokens of capacity, before Pi's reserveTokens",
        "Brain: 0 notes",
    ] {
        assert!(
            out.stderr.contains(line),
            "{line:?} missing\n{}",
            out.report()
        );
    }
}

/// The history of the running session: after a reset, `notesoup_history_list` (no
/// `session`) finds what was said in window 0.
#[test]
fn history_list_in_window_one_finds_window_zero() {
    let script = Script::new()
        .then(Reply::tool(
            "notesoup_empty_brain",
            json!({"last_word": "look up the word"}),
        ))
        .then(Reply::tool(
            "notesoup_history_list",
            json!({"query": "PAPAYA-42"}),
        ))
        .then(Reply::text("Found it."))
        .fallback(Reply::text("(fallback)"));
    let (out, _) = run(
        "pi-history",
        "Remember the code word PAPAYA-42, then reset.",
        script,
    );
    assert_eq!(out.requests.len(), 3, "{}", out.report());
    let answer = texts(&out.requests[2]).join("\n");
    let window0 = answer
        .find(":0 ==")
        .unwrap_or_else(|| panic!("no window 0: {answer}"));
    assert!(
        answer[window0..].contains("user: Remember the code word PAPAYA-42"),
        "{answer}\n{}",
        out.report()
    );
    // Its own call, pending in the session file it searches, is not a match.
    assert!(
        !answer.contains(r#"{"query":"PAPAYA-42"}"#),
        "history_list found its own question: {answer}"
    );
}

/// One brain: a note written in Pi is in the boot of the real Claude Code with the plugin,
/// started on the same project (needs `real-claude` too: `scripts/get-claude`).
#[cfg(feature = "real-claude")]
#[test]
fn a_note_written_in_pi_is_in_claudes_boot() {
    use notesoup_e2e::{Harness, Mode};
    let note =
        json!({"name": "pi/handoff", "text": "Pi was here: the lexer bug is in lex(), line 42.\n"});
    let script = Script::new()
        .then(Reply::tool("notesoup_notes_write", note))
        .then(Reply::text("Saved."))
        .fallback(Reply::text("(fallback)"));
    let (out, pi) = run("pi-one-brain", "Save a handoff note.", script);
    let result = texts(&out.requests[1]).join("\n");
    assert!(
        !result.contains("notesoup "),
        "the write was refused: {result}"
    );
    let harness = Harness::from_env().expect("Claude Code and the plugin");
    let outcome = harness
        .session("pi-then-claude", Script::new().fallback(Reply::text("ok")))
        .run_dir(&pi.run_dir)
        .run(&Mode::Print("What do your notes say?".into()))
        .expect("claude -p");
    let first = outcome
        .message_bodies()
        .first()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        first.contains("Pi was here: the lexer bug is in lex()"),
        "Pi's note is not in Claude's boot\n{}",
        outcome.report()
    );
}

fn rpc(name: &str, steps: &[notesoup_e2e::RpcStep], script: Script) -> (PiOutcome, PiRun) {
    let (node, cli) = pi_binaries().unwrap();
    let pi = PiRun {
        node,
        cli,
        helper: helper(),
        run_dir: fresh_run_dir(name),
        timeout: Duration::from_secs(120),
        settings: json!({}),
        env: Vec::new(),
    };
    let out = pi.rpc(steps, script).unwrap();
    assert_eq!(out.status, Some(0), "{}", out.report());
    (out, pi)
}

/// `pi --mode rpc`, two prompts in one window past the warning point: the warning rides
/// one tool result only.
#[test]
fn rpc_the_warning_comes_once_across_prompts() {
    use notesoup_e2e::RpcStep;
    let script = Script::new()
        .then(Reply::tool("notesoup_notes_list", json!({})).with_input_tokens(165_000))
        .then(Reply::text("Listed.").with_input_tokens(165_100))
        .then(Reply::tool("notesoup_notes_list", json!({})).with_input_tokens(166_000))
        .then(Reply::text("Listed again.").with_input_tokens(166_100))
        .fallback(Reply::text("(fallback)"));
    let steps = [
        RpcStep::prompt("List the notes."),
        RpcStep::prompt("List them again."),
    ];
    let (out, _) = rpc("pi-rpc-warning", &steps, script);
    assert_eq!(out.requests.len(), 4, "{}", out.report());
    let warned: Vec<usize> = (0..out.requests.len())
        .filter(|&i| {
            texts(&out.requests[i])
                .last()
                .is_some_and(|t| t.contains(WARNING))
        })
        .collect();
    assert_eq!(warned, [1], "{}", out.report());
}

/// `/empty` while idle (rpc): a hidden close-out run carries the warning, the model calls
/// `notesoup_empty_brain`, the window is cleared with its last word, and nothing continues
/// (STOP).
#[test]
fn rpc_empty_closes_out_clears_and_stops() {
    use notesoup_e2e::RpcStep;
    let script = Script::new()
        .then(Reply::text("Hello.").with_input_tokens(20_000))
        .then(Reply::tool(
            "notesoup_empty_brain",
            json!({"last_word": "closing out"}),
        ))
        .fallback(Reply::text("(fallback)"));
    let steps = [
        RpcStep::prompt("hello"),
        RpcStep::command_that_runs("/empty"),
    ];
    let (out, pi) = rpc("pi-rpc-empty", &steps, script);
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let closeout = texts(&out.requests[1]).join("\n");
    assert!(closeout.contains(WARNING), "{closeout}\n{}", out.report());
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    assert!(summary.contains("closing out"), "{summary}");
}

/// `/empty` while the run works (rpc: the command arrives during the model's first
/// request, which asks for a tool): the close-out rides the running run, so the request
/// after the tool's result carries the warning, the model calls `notesoup_empty_brain`, the
/// window is cleared with its last word, and nothing continues: two requests, no close-out
/// run of its own and no continuation.
#[test]
fn rpc_empty_while_busy_uses_the_running_run() {
    use notesoup_e2e::RpcStep;
    let script = Script::new()
        .then(
            Reply::tool("notesoup_notes_list", json!({}))
                .with_input_tokens(20_000)
                .with_delay_ms(1_500),
        )
        .then(Reply::tool(
            "notesoup_empty_brain",
            json!({"last_word": "closing out mid-run"}),
        ))
        .fallback(Reply::text("(fallback)"));
    let steps = [
        RpcStep::prompt_until_request("List the notes."),
        RpcStep::command_that_runs("/empty"),
    ];
    let (out, pi) = rpc("pi-rpc-empty-busy", &steps, script);
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let second = texts(&out.requests[1]).join("\n");
    assert!(second.contains(WARNING), "{second}\n{}", out.report());
    assert!(
        out.requests
            .iter()
            .all(|r| !texts(r).join("\n").contains("Fresh window. Continue")),
        "a continuation after /empty\n{}",
        out.report()
    );
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    assert!(summary.contains("closing out mid-run"), "{summary}");
}

/// Pi's own overflow compaction (the API answered "prompt is too long"; Pi compacts and
/// retries) is answered with the boot: no summary request, and the retried request opens
/// with the boot of window 1.
#[test]
fn pis_overflow_compaction_is_answered_with_the_boot() {
    let script = Script::new()
        .rule(
            Match::system_contains(SUMMARIZER),
            Reply::text("FAKE-SUMMARY"),
        )
        .then(Reply::tool("notesoup_notes_list", json!({})).with_input_tokens(1_000))
        .then(Reply::prompt_too_long(210_000, 200_000))
        .then(Reply::text("Recovered in a fresh window."))
        .fallback(Reply::text("(fallback)"));
    let prompt = "Please keep going with the parser work: ".repeat(8);
    let settings = json!({"compaction": {"keepRecentTokens": 10}});
    let (out, pi) = run_with("pi-overflow", &prompt, script, settings);
    assert!(
        out.stderr
            .contains("event session_before_compact (overflow)"),
        "{}",
        out.report()
    );
    assert!(
        out.requests.iter().all(|r| !system(r).contains(SUMMARIZER)),
        "a summary request reached the model\n{}",
        out.report()
    );
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    let retried = texts(out.requests.last().unwrap());
    assert!(
        marker::retained_window(&retried[0]).is_some(),
        "{retried:?}\n{}",
        out.report()
    );
}

/// Past the hard point on a tool result: the window is cleared at the end of the tool
/// batch (the boot's compaction is that boundary's entry), so the run's next request opens
/// the fresh window: no request of the old window follows, and the work continues once.
#[test]
fn the_hard_point_on_a_tool_result_clears_at_the_batchs_end() {
    let script = Script::new()
        .rule(
            Match::system_contains(SUMMARIZER),
            Reply::text("FAKE-SUMMARY"),
        )
        .then(Reply::tool("notesoup_notes_list", json!({})).with_input_tokens(180_000))
        .then(Reply::text("Fresh window: continuing."))
        .fallback(Reply::text("(fallback)"));
    let (out, pi) = run("pi-hard-tool", "Keep going.", script);
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    let fresh = texts(&out.requests[1]);
    assert_eq!(fresh.len(), 1, "{fresh:?}");
    assert!(marker::retained_window(&fresh[0]).is_some(), "{fresh:?}");
    assert!(
        !system(&out.requests[1]).contains(marker::OPEN),
        "boot twice"
    );
}

/// `NOTESOUP_DISABLED` set (even empty): the extension registers nothing and Pi runs as if
/// it were absent.
#[test]
fn notesoup_disabled_registers_nothing() {
    let script = Script::new().fallback(Reply::text("ok"));
    let (out, _) = run_env(
        "pi-disabled",
        "hello",
        script,
        json!({}),
        &[("NOTESOUP_DISABLED", "")],
    );
    let first = &out.requests[0];
    let tools = first["body"]["tools"].to_string();
    assert!(!tools.contains("notesoup_"), "{tools}");
    assert!(
        !texts(first).join("\n").contains(marker::OPEN),
        "{}",
        out.report()
    );
}

/// With Pi's compaction off (`compaction.enabled: false`) notesoup warns but never clears by
/// itself: past the clear point the run goes on, and no compaction is written.
#[test]
fn with_pis_compaction_off_notesoup_warns_but_does_not_clear() {
    let script = Script::new()
        .then(Reply::tool("notesoup_notes_list", json!({})).with_input_tokens(180_000))
        .then(Reply::text("Done.").with_input_tokens(181_000))
        .fallback(Reply::text("(fallback)"));
    let settings = json!({"compaction": {"enabled": false}});
    let (out, pi) = run_with("pi-compaction-off", "Keep going.", script, settings);
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let result = texts(&out.requests[1]).join("\n");
    assert!(result.contains(WARNING), "{result}");
    assert!(last_compaction(&pi).is_none(), "{}", out.report());
}

/// A person's message typed while the run streams (rpc `steer`) owns what follows: the
/// `notesoup_empty_brain` of that run does not cut it (its cutoff is released), the steered
/// message reaches the model in the old window, and the window is cleared after the run
/// without a continuation.
#[test]
fn rpc_a_steering_message_owns_the_continuation() {
    use notesoup_e2e::RpcStep;
    let script = Script::new()
        .then(
            Reply::tool("notesoup_empty_brain", json!({"last_word": "steered"}))
                .with_delay_ms(1_500),
        )
        .then(Reply::text("Fixing the test first."))
        .fallback(Reply::text("(fallback)"));
    let steps = [
        RpcStep::prompt_until_request("Reset when you are done."),
        RpcStep::steer("Actually, first fix the failing test."),
    ];
    let (out, pi) = rpc("pi-rpc-steer", &steps, script);
    let carried = out.requests.iter().position(|r| {
        texts(r)
            .join("\n")
            .contains("Actually, first fix the failing test.")
    });
    let carried = carried.unwrap_or_else(|| panic!("never sent\n{}", out.report()));
    assert!(
        marker::retained_window(&texts(&out.requests[carried])[0]).is_none(),
        "the steered message went to a fresh window\n{}",
        out.report()
    );
    assert!(
        out.requests
            .iter()
            .all(|r| !texts(r).join("\n").contains("Fresh window. Continue")),
        "a continuation was sent over the person's message\n{}",
        out.report()
    );
    // The reset still happens, after the run the person's message continued.
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    assert!(summary.contains("steered"), "{summary}");
}

/// A run that keeps no session file (`pi --no-session`): notesoup cannot clear its window,
/// so its boot promises no reset, no warning comes past the warning point, and
/// `notesoup_empty_brain` says it does not clear this run (nothing recorded, no clear).
#[test]
fn a_run_with_no_session_file_is_never_promised_a_reset() {
    let script = Script::new()
        .then(
            Reply::tool("notesoup_empty_brain", json!({"last_word": "w"}))
                .with_input_tokens(170_000),
        )
        .then(Reply::text("Done.").with_input_tokens(171_000))
        .fallback(Reply::text("(fallback)"));
    let pi = pi_run("pi-no-session", json!({}), &[]);
    let out = pi
        .print_with(&["--no-session"], "Save and reset.", script)
        .unwrap();
    assert_eq!(out.status, Some(0), "{}", out.report());
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let boot = texts(&out.requests[0])
        .into_iter()
        .find(|t| t.contains(marker::OPEN))
        .unwrap_or_else(|| panic!("no boot\n{}", out.report()));
    assert!(boot.contains("`notesoup_notes_write`"), "{boot}");
    for word in ["empty_brain", "cleared", "budget warning"] {
        assert!(!boot.contains(word), "the boot says `{word}`:\n{boot}");
    }
    let after = texts(&out.requests[1]).join("\n");
    assert!(!after.contains(WARNING), "{after}");
    assert!(
        after.contains("which notesoup does not clear. Nothing was recorded"),
        "{after}"
    );
    // `/notesoup` says so to the person, and sends nothing.
    let script = Script::new().fallback(Reply::text("(fallback)"));
    let out = pi
        .print_with(&["--no-session"], "/notesoup", script)
        .unwrap();
    assert_eq!(out.requests.len(), 0, "{}", out.report());
    assert!(
        out.stderr
            .contains("keeps no session file (pi --no-session)"),
        "{}",
        out.report()
    );
}

/// `pi -c -p`: a later process of the same session, in the same window past the warning
/// point, is not warned again (once per window, across processes).
#[test]
fn a_continued_session_is_warned_once_per_window_across_processes() {
    let note = |n: u32| json!({"name": format!("n{n}"), "text": "x\n"});
    let first = Script::new()
        .then(Reply::tool("notesoup_notes_write", note(1)).with_input_tokens(165_000))
        .then(Reply::text("first done").with_input_tokens(166_000))
        .fallback(Reply::text("(fallback)"));
    let pi = pi_run("pi-warning-continued", json!({}), &[]);
    let out = pi.print("Write a note.", first).unwrap();
    assert_eq!(out.status, Some(0), "{}", out.report());
    let last = texts(out.requests.last().unwrap()).join("\n");
    assert_eq!(last.matches(WARNING).count(), 1, "{}", out.report());
    let second = Script::new()
        .then(Reply::tool("notesoup_notes_write", note(2)).with_input_tokens(167_000))
        .then(Reply::text("second done").with_input_tokens(168_000))
        .fallback(Reply::text("(fallback)"));
    let out = pi.print_with(&["-c"], "Write another.", second).unwrap();
    assert_eq!(out.status, Some(0), "{}", out.report());
    let last = texts(out.requests.last().unwrap()).join("\n");
    assert!(
        last.contains("first done"),
        "not the same session: {}",
        out.report()
    );
    assert_eq!(
        last.matches(WARNING).count(),
        1,
        "warned again in the same window\n{}",
        out.report()
    );
}

/// A person's message steered into the run (rpc `steer`) whose request comes back "prompt
/// is too long": Pi compacts (overflow), notesoup answers with the boot, and the retried
/// request still holds the person's message, once, after the boot: the compaction entry
/// keeps the branch from that message (before, it kept nothing and the message was lost).
#[test]
fn rpc_a_steered_message_whose_request_overflows_is_kept_by_the_boot() {
    use notesoup_e2e::RpcStep;
    let script = Script::new()
        .rule(
            Match::system_contains(SUMMARIZER),
            Reply::text("FAKE-SUMMARY"),
        )
        .then(
            Reply::tool("notesoup_notes_list", json!({}))
                .with_delay_ms(1_500)
                .with_input_tokens(1_000),
        )
        .then(Reply::prompt_too_long(210_000, 200_000))
        .then(Reply::text("Answered after the overflow."))
        .fallback(Reply::text("(fallback)"));
    let prompt = "Please keep going with the parser work: ".repeat(8);
    let steps = [
        RpcStep::prompt_until_request(&prompt),
        RpcStep::steer("STEER-PI-PTL: also fix the failing test."),
    ];
    let pi = pi_run(
        "pi-rpc-steer-overflow",
        json!({"compaction": {"keepRecentTokens": 10}}),
        &[],
    );
    let out = pi.rpc(&steps, script).unwrap();
    assert_eq!(out.status, Some(0), "{}", out.report());
    assert!(
        out.requests.iter().any(|r| r["status"] == 400),
        "no overflow: the scenario proves nothing\n{}",
        out.report()
    );
    let retried = texts(out.requests.last().unwrap());
    assert!(
        marker::retained_window(&retried[0]).is_some(),
        "the retried request does not open with the boot\n{}",
        out.report()
    );
    assert_eq!(
        retried.join("\n").matches("STEER-PI-PTL").count(),
        1,
        "the steered message is not in the retried request once\n{}",
        out.report()
    );
}

/// The person's prompt overflows on Pi's very first request (no answer before it; the hidden
/// message carrying window 0's boot after it): Pi compacts (overflow), notesoup answers with
/// the boot of window 1, and the retried request opens with that boot and holds the prompt,
/// once. Returns the retried request's texts and the run (its session goes on).
fn first_prompt_overflow(name: &str) -> (Vec<String>, PiRun) {
    let script = Script::new()
        .rule(
            Match::system_contains(SUMMARIZER),
            Reply::text("FAKE-SUMMARY"),
        )
        .then(Reply::prompt_too_long(210_000, 200_000))
        .then(Reply::text("Answered after the overflow."))
        .fallback(Reply::text("(fallback)"));
    let prompt = format!(
        "FIRST-PI-PTL: {}",
        "please keep going with the parser work. ".repeat(8)
    );
    let settings = json!({"compaction": {"keepRecentTokens": 10}});
    let (out, pi) = run_with(name, &prompt, script, settings);
    assert!(
        out.requests.iter().any(|r| r["status"] == 400),
        "no overflow: the scenario proves nothing\n{}",
        out.report()
    );
    assert!(
        out.requests.iter().all(|r| !system(r).contains(SUMMARIZER)),
        "a summary request reached the model\n{}",
        out.report()
    );
    let summary = last_compaction(&pi).unwrap_or_else(|| panic!("no compaction\n{}", out.report()));
    let window = marker::retained_window(&summary).unwrap();
    assert_eq!((window.host(), window.ordinal()), ("pi", 1), "{summary}");
    let retried = texts(out.requests.last().unwrap());
    assert!(
        marker::retained_window(&retried[0]).is_some(),
        "the retried request does not open with the boot\n{retried:#?}\n{}",
        out.report()
    );
    assert_eq!(
        retried.join("\n").matches("FIRST-PI-PTL").count(),
        1,
        "the prompt is not in the retried request once\n{retried:#?}\n{}",
        out.report()
    );
    (retried, pi)
}

#[test]
fn a_first_prompt_whose_request_overflows_is_kept_by_the_boot() {
    first_prompt_overflow("pi-first-overflow");
}

/// The windows of the boots a request holds, in order (its system prompt's first).
fn boots(request: &Value) -> Vec<u32> {
    std::iter::once(system(request))
        .chain(texts(request))
        .flat_map(|text| {
            marker::marker_ids(&text)
                .filter_map(|id| id.parse::<notesoup_window::WindowId>().ok())
                .map(|w| w.ordinal())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The session's file, whole (`pi -p` keeps one session in the run).
fn session_file(pi: &PiRun) -> String {
    let sessions = pi.run_dir.join("pi-home/.pi/agent/sessions");
    let dir = std::fs::read_dir(sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let file = std::fs::read_dir(dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::read_to_string(file).unwrap()
}

/// The same overflow: the compaction keeps the branch from the prompt's entry on (Pi keeps
/// a branch from one entry), so window 0's hidden boot after the prompt is kept too; the
/// answer leaves it out of every request. The retried request holds window 1's boot alone,
/// then the prompt; so does the next prompt's first request in a later process (`pi -c`),
/// and its reset opens window 2 with window 2's boot alone. The session file keeps every row
/// (window 0's boot too): Pi only appended to it.
#[test]
fn a_first_prompt_whose_request_overflows_leaves_window_zeros_boot_behind() {
    let (retried, pi) = first_prompt_overflow("pi-first-overflow-boot");
    assert_eq!(
        retried.join("\n").matches(marker::OPEN).count(),
        1,
        "the retried request holds another boot than window 1's\n{retried:#?}"
    );
    assert_eq!(
        marker::retained_window(&retried[0]).map(|w| w.ordinal()),
        Some(1),
        "{retried:#?}"
    );
    assert!(retried[1].contains("FIRST-PI-PTL"), "{retried:#?}");
    let before = session_file(&pi);
    let window_zero = |file: &str| {
        file.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .any(|e| {
                e["type"] == "custom_message"
                    && e["content"]
                        .as_str()
                        .and_then(marker::retained_window)
                        .is_some_and(|w| w.ordinal() == 0)
            })
    };
    assert!(
        window_zero(&before),
        "window 0's hidden boot is not in the session file\n{before}"
    );

    let script = Script::new()
        .then(Reply::tool(
            "notesoup_empty_brain",
            json!({"last_word": "finish the parser"}),
        ))
        .then(Reply::text("Fresh window: continuing."))
        .fallback(Reply::text("(fallback)"));
    let out = pi
        .print_with(&["-c"], "SECOND-PI: save and reset.", script)
        .unwrap();
    assert_eq!(out.status, Some(0), "{}", out.report());
    assert_eq!(out.requests.len(), 2, "{}", out.report());
    let first = texts(&out.requests[0]);
    assert!(
        first.join("\n").contains("Answered after the overflow."),
        "not the same session\n{}",
        out.report()
    );
    assert_eq!(boots(&out.requests[0]), [1], "{first:#?}");
    let fresh = texts(&out.requests[1]);
    assert_eq!(boots(&out.requests[1]), [2], "{fresh:#?}");
    assert!(!fresh.join("\n").contains("FIRST-PI-PTL"), "{fresh:#?}");

    let after = session_file(&pi);
    assert!(
        after.starts_with(&before) && after.len() > before.len() && window_zero(&after),
        "the session file was not only appended to"
    );
}
