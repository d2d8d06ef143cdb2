//! One helper call per hook event at most. Each scenario runs a scripted session
//! in the real Claude Code, counts the helper spawns of every notesoup hook call in the
//! engine's debug log ([`Spawns`]), prints the table (BENCHMARKS.md "spawns per hook
//! event" quotes it) and asserts no hook call started more than one helper; a quiet turn
//! of main tool results and steps spawns almost none.
//!
//! `cargo test -p notesoup-e2e --features real-claude --locked --test scenarios -- spawns --nocapture --test-threads=1`

use notesoup_e2e::{Mode, Outcome, Reply, Script, Spawns};

use super::{EMPTY_BRAIN, assert_clean_exit, reset_script, serial, session};

/// Prints `out`'s spawns table under `what` and returns the counts.
fn spawns(what: &str, out: &Outcome) -> Spawns {
    let s = Spawns::of_log(&out.debug_log);
    // Printed for the benchmark table (`--nocapture`).
    #[allow(
        clippy::print_stderr,
        reason = "the figures are this scenario's output"
    )]
    {
        eprintln!(
            "\n{what}: {} helper spawns / {} hook calls\n{}",
            s.total(),
            s.calls(),
            s.table()
        );
    }
    s
}

fn assert_at_most_one(what: &str, s: &Spawns) {
    assert!(
        s.max() <= 1,
        "{what}: a hook call started {} helpers (at most one per hook event):\n{}",
        s.max(),
        s.table()
    );
}

#[test]
fn spawns_per_hook_event_in_claude_p_ok() {
    let _one = serial();
    let out = session("spawns-ok", Script::new().fallback(Reply::text("ok")))
        .run(&Mode::Print("ok".into()))
        .unwrap();
    assert_clean_exit(&out);
    let first = out.model_turn_requests();
    let first = first.first().expect("one model request");
    assert!(
        first
            .all_user_text()
            .contains("<notesoup-boot window=\"claude:"),
        "the first request carries no boot:\n{}",
        first.all_user_text()
    );
    let s = spawns("`claude -p ok`", &out);
    // What each helper call answered (the shell logs its effects), for BENCHMARKS.md.
    #[allow(
        clippy::print_stderr,
        reason = "the figures are this scenario's output"
    )]
    for line in out
        .debug_log
        .lines()
        .filter(|l| l.contains("notesoup: hook "))
    {
        eprintln!("{}", line.split("notesoup: ").nth(1).unwrap_or(line));
    }
    assert_at_most_one("`claude -p ok`", &s);
    // The engine sends the boot prompt.context attached again with the request, as a
    // `context_sections` attachment: this session's own boot of its window, which the last
    // reply named (`watch.copy_kept`), so no helper judges it.
    let (calls, n) = s
        .by_event
        .get("prompt.attachment")
        .map_or((0, 0), |e| (e.calls, e.spawns));
    assert!(
        calls >= 1,
        "no prompt.attachment hook call counted (the log's wording moved?):\n{}",
        s.table()
    );
    assert_eq!(
        n,
        0,
        "the boot copy of the session's own window started a helper:\n{}",
        s.table()
    );
}

#[test]
fn spawns_per_hook_event_in_a_turn_with_20_tool_calls() {
    let mut script = Script::new();
    for _ in 0..20 {
        script = script.then(Reply::tool("Bash", serde_json::json!({"command": "true"})));
    }
    let script = script.fallback(Reply::text("ok"));
    let _one = serial();
    let out = session("spawns-20-calls", script)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::Print("run the commands".into()))
        .unwrap();
    assert_clean_exit(&out);
    assert_eq!(
        out.model_turn_requests().len(),
        21,
        "20 tool rounds and the answer"
    );
    let s = spawns("a turn with 20 Bash calls", &out);
    assert_at_most_one("a turn with 20 Bash calls", &s);
    // Far below the warning point with nothing pending, a reply says the next main results
    // and steps change nothing (`watch.quiet`): the first result asks, the rest spawn none.
    for event in ["tool.call", "turn.step stream"] {
        let (calls, n) = s
            .by_event
            .get(event)
            .map_or((0, 0), |e| (e.calls, e.spawns));
        assert!(
            calls >= 20,
            "{event}: {calls} calls counted, not the turn's 20 (the log's wording moved?):\n{}",
            s.table()
        );
        assert!(
            n <= 2,
            "{event}: {n} helper spawns in a quiet turn (the reply's promise unused):\n{}",
            s.table()
        );
    }
}

#[test]
fn spawns_per_hook_event_in_a_reset() {
    let _one = serial();
    let out = session("spawns-reset", reset_script("LW-SPAWNS", Some(false)))
        .run(&Mode::Print("Clear your window now.".into()))
        .unwrap();
    assert_clean_exit(&out);
    assert!(
        out.model_turn_requests()
            .iter()
            .any(|r| r.tail_text().contains(EMPTY_BRAIN) || r.has_tool_result()),
        "the reset did not run"
    );
    let s = spawns(
        "a reset (empty_brain, its compaction, the continuation)",
        &out,
    );
    assert_at_most_one("a reset", &s);
}

#[test]
fn spawns_per_hook_event_of_the_cap_command() {
    let _one = serial();
    let script = Script::new().fallback(Reply::text("Hello."));
    let out = session("spawns-cap", script)
        .run(&Mode::PrintContinued(vec![
            "hello".into(),
            "/notesoup cap 100k".into(),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    assert!(out.stdout.contains("Cap: "), "{}", out.stdout);
    let s = spawns("`/notesoup cap 100k` after one turn", &out);
    assert_at_most_one("the cap command", &s);
}
