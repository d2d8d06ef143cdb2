//! Scenario v01: history outlives Claude Code's own cleanup (issue 29).

use std::fs;
use std::time::{Duration, SystemTime};

use notesoup_e2e::{Match, Mode, Reply, Script, fresh_run_dir};

use super::{assert_clean_exit, main_session, serial, session, tool_results_text};

/// Sets a file's last-written time `ago` back from now.
fn age(path: &std::path::Path, ago: Duration) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

/// Session A says a word; a later Claude Code start sweeps A into the vault (its hourly
/// sweep is due); A then ages past a one-day `cleanupPeriodDays` and Claude Code's own
/// cleanup deletes it at its next start; in a fourth session the model's `history_list`
/// still finds the word in A, read from the vault, and `history_sessions` marks A.
#[test]
fn v01_history_outlives_claudes_cleanup() {
    let _one = serial();
    let dir = fresh_run_dir("v01-vault");
    let answered = |text: &str| {
        Script::new()
            .then(Reply::text(text))
            .fallback(Reply::text("(fallback)"))
    };

    let a = session("v01-vault", answered("Noted: the vault word is TEAL-29."))
        .run_dir(&dir)
        .run(&Mode::Print(
            "Remember this: the vault word is TEAL-29.".into(),
        ))
        .unwrap();
    assert_clean_exit(&a);
    let sid = main_session(&a);
    let transcript = a
        .transcripts
        .iter()
        .find(|t| !t.is_subagent())
        .map(|t| t.path.clone())
        .unwrap();
    assert!(fs::read_to_string(&transcript).unwrap().contains("TEAL-29"));

    // An hour and more later, another session starts: its sweep keeps A whole.
    let swept = dir.join("notesoup-home/vault/swept");
    if swept.exists() {
        age(&swept, Duration::from_secs(2 * 3600));
    }
    let b = session("v01-vault", answered("Hello again."))
        .run_dir(&dir)
        .run(&Mode::Print("Hello.".into()))
        .unwrap();
    assert_clean_exit(&b);

    // Days later, with a one-day retention, Claude Code deletes A at its next start.
    age(&transcript, Duration::from_secs(3 * 86_400));
    fs::write(
        dir.join("home/.claude/settings.json"),
        "{\"cleanupPeriodDays\": 1}\n",
    )
    .unwrap();
    // Claude Code sweeps 5 s after a session's first prompt (2.1.319, background
    // housekeeping, non-interactive) unless it swept in the last day: a turn that outlasts
    // that, and no record of an earlier sweep.
    let _ = fs::remove_file(dir.join("home/.claude/.last-cleanup"));
    let wait = Script::new()
        .then(Reply::tool(
            "Bash",
            serde_json::json!({"command": "sleep 9; echo slept", "description": "wait"}),
        ))
        .then_when(Match::tool_result(true), Reply::text("Waited."))
        .fallback(Reply::text("(fallback)"));
    let c = session("v01-vault", wait)
        .run_dir(&dir)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::Print("Wait a little.".into()))
        .unwrap();
    assert_clean_exit(&c);
    assert!(
        !transcript.exists(),
        "Claude Code's cleanup did not delete {}",
        transcript.display()
    );

    let selector = format!("claude:{sid}");
    let script = Script::new()
        .then(Reply::tool(
            "mcp__notesoup__history_list",
            serde_json::json!({"session": selector, "query": "TEAL-29"}),
        ))
        .then_when(
            Match::tool_result(true),
            Reply::tool(
                "mcp__notesoup__history_sessions",
                serde_json::json!({"harness": "claude", "limit": 10}),
            ),
        )
        .then_when(
            Match::tool_result(true),
            Reply::text("Found it in the vault."),
        )
        .fallback(Reply::text("(fallback)"));
    let d = session("v01-vault", script)
        .run_dir(&dir)
        .run(&Mode::Print("What was the vault word?".into()))
        .unwrap();
    assert_clean_exit(&d);
    let requests = d.model_turn_requests();
    assert_eq!(
        requests.len(),
        3,
        "the prompt, after history_list, after history_sessions"
    );
    let found = tool_results_text(requests[1]);
    assert!(
        found.contains("the vault word is TEAL-29"),
        "history_list did not find A's word in the vault: {found}"
    );
    let listing = tool_results_text(requests[2]);
    let line = listing
        .lines()
        .find(|l| l.contains(&selector))
        .unwrap_or_else(|| panic!("A is not listed: {listing}"));
    assert!(line.contains("vault only"), "A is not marked: {line}");
}
