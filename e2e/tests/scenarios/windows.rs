//! The window's state survives the engine. Each scenario drives the real
//! Claude Code through one of its own moves (a new `-p` process of the same session, a
//! fork, a reactive compaction, a reset's continuation, a long `--resume` chain across a
//! reset, the cap across a rollover) and asserts on what it really sent.
//!
//! Counting rule: a boot is a `<notesoup-boot window="claude:<sid>:<n>">` line in the
//! non-assistant text of a request; what a request *adds* is its text after its last
//! assistant message.

use std::time::Duration;

use notesoup_e2e::{Input, Match, Mode, Outcome, Process, Reply, Request, Resume, Script, Step};

use super::{
    BOOT_CLOSE, EMPTY_BRAIN, FRESH_BOOT, WINDOW_200K, compactions, empty_brain,
    fresh_window_requests, harness, run, serial, tmux, tmux_lines, windows,
};

#[path = "windows/clear.rs"]
mod clear;
#[path = "windows/fork.rs"]
mod fork;
#[path = "windows/reload.rs"]
mod reload;

/// The first words of the budget warning (`boot/text/warning.md`).
const WARNING: &str = "notesoup budget warning:";

/// Runs a chain of processes under the one-at-a-time lock, with a 200K window.
fn run_chain(name: &str, script: Script, chain: Vec<Process>) -> Outcome {
    let _one = serial();
    // An interactive process takes its start-up, the prompt's wait and `/exit`: more time.
    let slow = chain
        .iter()
        .filter(|p| matches!(p.mode, Mode::Tmux(_)))
        .count();
    harness()
        .session(name, script)
        .timeout(Duration::from_secs(120 + 45 * slow as u64))
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .run(&Mode::Processes(chain))
        .unwrap()
}

fn list() -> Reply {
    Reply::tool("mcp__notesoup__notes_list", serde_json::json!({}))
}

/// Tool rounds in a script: the model lists its notes, then answers; both replies report
/// `tokens` of context.
trait ListRound {
    /// The next round.
    fn list_round(self, tokens: u64) -> Self;
    /// The round that starts when a request matches `when`.
    fn list_round_when(self, when: Match, tokens: u64) -> Self;
}

impl ListRound for Script {
    fn list_round(self, tokens: u64) -> Self {
        self.then(list().with_input_tokens(tokens))
            .then_when(Match::tool_result(true), listed(tokens))
    }

    fn list_round_when(self, when: Match, tokens: u64) -> Self {
        self.then_when(when, list().with_input_tokens(tokens))
            .then_when(Match::tool_result(true), listed(tokens))
    }
}

/// The model's answer after its notes were listed.
fn listed(tokens: u64) -> Reply {
    Reply::text("Listed.").with_input_tokens(tokens)
}

/// Every process's session id, which must be process 0's (`--resume` continues it).
fn one_session(out: &Outcome) -> String {
    let sid = out.processes[0]
        .session_id
        .clone()
        .expect("no request in process 0");
    for (i, p) in out.processes.iter().enumerate() {
        assert_eq!(
            p.session_id.as_deref(),
            Some(sid.as_str()),
            "process {i} did not continue the session"
        );
    }
    sid
}

/// The boots in `request`'s non-assistant text.
fn boots(request: Request<'_>) -> Vec<String> {
    windows(&request.all_text())
}

// ---------------------------------------------------------------------------------
// Once per window across processes: `-p`, then `-p --resume <id>` twice.

#[test]
fn w01_warning_once_per_window_across_resumed_processes() {
    // Every process: the model lists its notes, then answers; every reply reports a
    // context past the warning point (142 424 of a 200K window) and short of the hard point.
    let script = Script::new()
        .rule(Match::tool_result(true), listed(150_000))
        .fallback(list().with_input_tokens(150_000));
    let out = run_chain(
        "w01-resume-warning",
        script,
        vec![
            Process::new("Check the notes."),
            Process::resume("Check them again.", 0),
            Process::resume("And once more.", 0),
        ],
    );
    super::assert_clean_exit(&out);
    assert_eq!(out.processes.len(), 3);
    let sid = one_session(&out);
    for (i, p) in out.processes.iter().enumerate() {
        assert_eq!(p.exit_code, Some(0), "process {i} failed");
        assert_eq!(
            out.process_requests(i).len(),
            2,
            "process {i}: the notes_list round and the answer"
        );
    }
    let requests = out.model_turn_requests();
    for (i, r) in requests.iter().enumerate() {
        assert_eq!(
            boots(*r),
            [format!("claude:{sid}:0")],
            "request {i} does not hold exactly window 0's one boot"
        );
    }
    let warned: Vec<usize> = requests
        .iter()
        .enumerate()
        .filter(|(_, r)| r.tail_text().contains(WARNING))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        warned.len(),
        1,
        "the budget warning was added by requests {warned:?} of one window (6 requests, 3 processes)"
    );
}

// ---------------------------------------------------------------------------------
// A reactive compaction (HTTP 400 "prompt is too long"), then a reset.

/// The message requests that follow the service's first HTTP 400, in order.
fn after_first_400(out: &Outcome) -> Vec<Request<'_>> {
    let n = out
        .requests
        .iter()
        .find(|r| r["status"] == 400)
        .and_then(|r| r["n"].as_u64())
        .expect("the service never answered 400");
    out.requests
        .iter()
        .filter(|r| r["n"].as_u64().is_some_and(|m| m > n))
        .filter(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/v1/messages?") || p == "/v1/messages")
        })
        .map(|r| Request::new(&r["body"]))
        .filter(|r| !r.is_compaction())
        .collect()
}

#[rstest::rstest]
#[case::print("w03-ptl-print", Mode::Print("List the notes.".into()))]
#[case::stream_json(
    "w03-ptl-stream-json",
    Mode::StreamJson(vec![
        Input::Message("List the notes.".into()),
        Input::AfterRequests(4),
        Input::Idle(std::time::Duration::from_secs(3)),
    ])
)]
#[case::tmux(
    "w03-ptl-tmux",
    tmux(
        "List the notes.",
        vec![
            Step::AfterRequests(4),
            Step::Idle(std::time::Duration::from_secs(4)),
            Step::Capture("after-reset".into()),
        ],
    )
)]
fn w03_prompt_too_long_then_reset_never_reopens_an_ordinal(#[case] name: &str, #[case] mode: Mode) {
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(list())
        .then_when(
            Match::tool_result(true),
            Reply::prompt_too_long(210_000, 200_000),
        )
        .then(Reply::text("Clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-PTL", Some(false))))
        .then(Reply::text("Fresh window: carrying on."))
        .fallback(Reply::text("(fallback)"));
    let out = run(name, script, &mode);
    assert!(!out.timed_out, "session timed out");
    assert_eq!(
        out.requests.iter().filter(|r| r["status"] == 400).count(),
        1,
        "one prompt-too-long answer"
    );
    assert_eq!(
        compactions(&out),
        0,
        "notesoup answers the reactive compaction, no summary"
    );
    let after = after_first_400(&out);
    assert!(after.len() >= 2, "no retry and continuation after the 400");
    let sid = super::main_session(&out);
    assert_eq!(
        boots(after[0]),
        [format!("claude:{sid}:1")],
        "the retried request must hold exactly one boot, the new window 1's"
    );
    assert_eq!(
        boots(after[1]),
        [format!("claude:{sid}:2")],
        "the reset after it must open window 2 (never window 1 again), with one boot"
    );
    assert_eq!(
        after[1].all_text().matches("LW-PTL").count(),
        1,
        "the last word, exactly once"
    );
}

// ---------------------------------------------------------------------------------
// The fresh window after empty_brain holds its last word exactly once.

#[rstest::rstest]
#[case::print("w05-last-word-print", Mode::Print("Clear your window now.".into()))]
#[case::stream_json(
    "w05-last-word-stream-json",
    Mode::StreamJson(vec![
        Input::Message("Clear your window now.".into()),
        Input::AfterRequests(2),
        Input::Idle(std::time::Duration::from_secs(3)),
    ])
)]
#[case::tmux(
    "w05-last-word-tmux",
    tmux(
        "Clear your window now.",
        vec![
            Step::AfterRequests(2),
            Step::Idle(std::time::Duration::from_secs(4)),
            Step::Capture("after-reset".into()),
        ],
    )
)]
fn w05_last_word_exactly_once(#[case] name: &str, #[case] mode: Mode) {
    let out = run(name, super::reset_script("LW-ONCE-5", Some(false)), &mode);
    super::assert_clean_exit(&out);
    let fresh = fresh_window_requests(&out);
    assert_eq!(fresh.len(), 1, "one fresh-window request");
    assert_eq!(boots(fresh[0]).len(), 1, "one boot in the fresh window");
    let text = fresh[0].all_text();
    assert_eq!(
        text.matches("LW-ONCE-5").count(),
        1,
        "the fresh window's first request must hold the last word exactly once:\n{text}"
    );
}

// ---------------------------------------------------------------------------------
// A long `-p --resume` chain across a reset: the ordinal grows, each window is warned
// once, every request holds exactly one boot.

/// The session's model-turn requests of process `i` (no summary requests).
fn turns(out: &Outcome, i: usize) -> Vec<Request<'_>> {
    out.process_requests(i)
        .into_iter()
        .filter(|r| !r.is_compaction())
        .collect()
}

/// The chain's script: two tool rounds per process, the third process's prompt answered
/// by a reset first, every round past window 0's and window 1's warning points.
fn chain_script() -> Script {
    // Every tool round reports a context past the warning point (142 424 of a 200K window)
    // and short of the hard point, so each window's warning is due from its first result.
    let past_warning = 150_000;
    Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        // Process 0 and 1: window 0.
        .list_round(past_warning)
        .list_round(past_warning)
        // Process 2: the reset, then window 1's continuation.
        .then(Reply::text("Clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-CHAIN", Some(false))))
        .list_round_when(Match::tail_contains(FRESH_BOOT), past_warning)
        // Process 3: window 1 again.
        .list_round(past_warning)
        .fallback(Reply::text("(fallback)"))
}

#[test]
fn w06_resume_chain_across_a_reset_grows_the_ordinal_and_warns_once_per_window() {
    let script = chain_script();
    let out = run_chain(
        "w06-resume-chain",
        script,
        vec![
            Process::new("Check the notes."),
            Process::resume("Check them again.", 0),
            Process::resume("Clear your window now.", 0),
            Process::resume("And check once more.", 0),
        ],
    );
    super::assert_clean_exit(&out);
    let sid = one_session(&out);
    assert_eq!(
        compactions(&out),
        0,
        "notesoup answers the compaction, no summary"
    );
    // (process, the window its requests must hold, how many requests)
    let expected = [(0, 0, 2), (1, 0, 2), (2, 0, 1), (3, 1, 2)];
    for (i, ordinal, count) in expected {
        let requests = turns(&out, i);
        assert!(
            requests.len() >= count,
            "process {i}: {} requests, expected at least {count}",
            requests.len()
        );
        for (k, r) in requests.iter().take(count).enumerate() {
            assert_eq!(
                boots(*r),
                [format!("claude:{sid}:{ordinal}")],
                "process {i} request {k} does not hold exactly window {ordinal}'s one boot"
            );
        }
    }
    // Process 2 after its reset: window 1's continuation and its tool round.
    let fresh: Vec<Request<'_>> = turns(&out, 2).into_iter().skip(1).collect();
    assert_eq!(
        fresh.len(),
        2,
        "the continuation and its tool round in window 1"
    );
    for r in &fresh {
        assert_eq!(
            boots(*r),
            [format!("claude:{sid}:1")],
            "a fresh-window request does not hold exactly window 1's one boot"
        );
    }
    let warned_in = |requests: &[Request<'_>]| {
        requests
            .iter()
            .filter(|r| r.tail_text().contains(WARNING))
            .count()
    };
    let window0: Vec<Request<'_>> =
        [turns(&out, 0), turns(&out, 1), turns(&out, 2)[..1].to_vec()].concat();
    let window1: Vec<Request<'_>> = [fresh.clone(), turns(&out, 3)].concat();
    assert_eq!(
        warned_in(&window0),
        1,
        "window 0 (processes 0-2) must be warned exactly once"
    );
    assert_eq!(
        warned_in(&window1),
        1,
        "window 1 (processes 2-3) must be warned exactly once"
    );
    assert_eq!(
        fresh[0].all_text().matches("LW-CHAIN").count(),
        1,
        "the last word, exactly once in the fresh window"
    );
}
