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

/// The model writes note `fork-probe` holding `text`.
fn write_probe(text: &str) -> Reply {
    Reply::tool(
        "mcp__notesoup__notes_write",
        serde_json::json!({"name": "fork-probe", "text": text}),
    )
}

/// How a fork is made and driven, with every later process of it: the ways people run
/// Claude Code.
#[derive(Clone, Copy, Debug)]
enum Forked {
    /// `claude -p PROMPT --resume <id> --fork-session`, then `-p --resume <fork>`.
    Print,
    /// The same flags with `--input-format stream-json --output-format stream-json`.
    StreamJson,
    /// The terminal: `claude --resume <id> --fork-session` in a tmux pane, the prompt typed.
    Tmux,
    /// The terminal: `claude --resume <id>`, then `/branch` typed before the prompt (the
    /// engine copies the session into a new one and goes on in it). Later processes resume
    /// the branch.
    Branch,
}

/// The fork's first prompt and its answer.
const WHERE: (&str, &str) = ("Where are we?", "Here in the fork.");
/// The fork's next prompt in the same process (not in `-p`) and its answer.
const AND_NOW: (&str, &str) = ("And now?", "Still in the fork.");

impl Forked {
    /// The fork of process `of`'s session: asked [`WHERE`], then, where the process lives
    /// on, [`AND_NOW`].
    fn fork(self, of: usize) -> Process {
        let turns: &[(&str, &str)] = match self {
            Self::Print => &[WHERE],
            _ => &[WHERE, AND_NOW],
        };
        let session = match self {
            Self::Branch => Resume::Of(of),
            _ => Resume::ForkOf(of),
        };
        let branch = matches!(self, Self::Branch).then_some(("/branch", None));
        let lines = branch
            .into_iter()
            .chain(turns.iter().map(|(p, a)| (*p, Some(*a))));
        Process {
            session,
            mode: self.mode(&lines.collect::<Vec<_>>()),
        }
    }

    /// How many prompts [`Self::fork`] sends.
    fn fork_prompts(self) -> usize {
        if matches!(self, Self::Print) { 1 } else { 2 }
    }

    /// A later process of the fork (process `of`) asked `prompt`; `answer` is the model's
    /// last answer in it (what a terminal waits to see).
    fn resume(self, prompt: &str, of: usize, answer: &str) -> Process {
        Process {
            session: Resume::Of(of),
            mode: self.mode(&[(prompt, Some(answer))]),
        }
    }

    /// Each line typed or sent in turn, with the answer a terminal waits to see.
    fn mode(self, lines: &[(&str, Option<&str>)]) -> Mode {
        // A prompt's turn, then a plugin's continuation (a reset) if one comes.
        let settle = Duration::from_secs(3);
        match self {
            Self::Print => Mode::Print(lines.iter().map(|(l, _)| *l).collect()),
            Self::StreamJson => Mode::StreamJson(
                lines
                    .iter()
                    .map(|(l, _)| Input::Message((*l).to_owned()))
                    .chain([Input::Idle(settle)])
                    .collect(),
            ),
            Self::Tmux | Self::Branch => tmux_lines(
                lines,
                vec![Step::Idle(settle), Step::Capture("answered".into())],
            ),
        }
    }
}

/// The script's answers to the fork's prompts ([`Forked::fork`]): [`WHERE`]'s is the
/// fallback.
fn answer_the_fork(script: Script) -> Script {
    script
        .rule(
            Match::tail_contains(AND_NOW.0).and_tool_result(false),
            Reply::text(AND_NOW.1),
        )
        .fallback(Reply::text(WHERE.1))
}

/// A parent process on `prompt`, then its fork made as `forked`; both exit cleanly. The
/// outcome, the parent's session id and the fork's.
fn run_fork(name: &str, script: Script, prompt: &str, forked: Forked) -> (Outcome, String, String) {
    let out = run_chain(
        name,
        answer_the_fork(script),
        vec![Process::new(prompt), forked.fork(0)],
    );
    super::assert_clean_exit(&out);
    let (parent, fork) = parent_and_fork(&out);
    (out, parent, fork)
}

/// The session ids of process 0 (the parent) and process 1 (its `--fork-session`), which
/// must differ.
fn parent_and_fork(out: &Outcome) -> (String, String) {
    let parent = out.processes[0]
        .session_id
        .clone()
        .expect("no parent request");
    let fork = out.processes[1]
        .session_id
        .clone()
        .expect("no fork request");
    assert_ne!(parent, fork, "the fork kept the parent's session id");
    (parent, fork)
}

/// The fork's (process 1's) requests, one per prompt of `forked`, each hold one boot: the
/// fork's own window `ordinal`, built from the notes as they are now (it holds `note`,
/// written after the parent's boot), and no boot of the parent's.
fn assert_the_fork_boots(
    out: &Outcome,
    (parent, fork): (&str, &str),
    ordinal: u32,
    note: &str,
    forked: Forked,
) {
    let requests = out.process_requests(1);
    assert_eq!(requests.len(), forked.fork_prompts(), "the fork's answers");
    let window = format!("claude:{fork}:{ordinal}");
    for (i, r) in requests.iter().enumerate() {
        assert_eq!(
            boots(*r),
            std::slice::from_ref(&window),
            "the fork's request {i} must hold one boot, the fork's own window {ordinal}"
        );
    }
    let text = requests[0].all_text();
    let boot = boot_body(&text, &window);
    assert!(
        boot.contains(note),
        "the fork's boot is not built from the notes as they are now:\n{boot}"
    );
    assert!(
        !text.contains(&format!("claude:{parent}:")),
        "the parent's boot is still in the fork's first request"
    );
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
// A fork's first request: a boot naming the fork, from the notes as they are now. After a
// reset the parent's boot is the compaction's own message, which a fork copies with the
// conversation and which stays as it was (historical boot messages are never rewritten);
// the fork's first prompt carries the fork's own boot (hidden context), its newest. A
// boot the parent got as a context block (window 0) is sent again by the engine through
// `prompt.attachment`, and left out once the fork's own boot rode the prompt. Each rule is
// asserted in every way a fork is made ([`Forked`]): `-p`, stream-json and the terminal
// with `--fork-session`, and `/branch` typed in a running terminal session (the engine's
// hook order differs: in the terminal `prompt.context` runs at start-up, before
// `session.start`, and after `/branch` the first hook of the branch is `prompt.submit`, so
// the branch's flow is rebuilt from its transcript, whose newest boot is the parent's).

/// The text of the first message of `request` that holds a boot naming `window`.
fn message_with(request: Request<'_>, window: &str) -> Option<String> {
    let marker = format!("window=\"{window}\">");
    request
        .messages()
        .iter()
        .map(|m| notesoup_e2e::content_text(m.get("content")))
        .find(|text| text.contains(&marker))
}

/// The body of the boot naming `window` in `text` (empty when there is none).
fn boot_body(text: &str, window: &str) -> String {
    text.split(&format!("window=\"{window}\">"))
        .nth(1)
        .and_then(|rest| rest.split(BOOT_CLOSE).next())
        .unwrap_or("")
        .to_owned()
}

#[rstest::rstest]
#[case::print("w02-fork-print", Forked::Print)]
#[case::stream_json("w02-fork-stream-json", Forked::StreamJson)]
#[case::tmux("w02-fork-tmux", Forked::Tmux)]
#[case::branch("w02-fork-branch", Forked::Branch)]
fn w02_fork_boots_its_own_window_from_the_notes_now(#[case] name: &str, #[case] forked: Forked) {
    // Parent: reset to window 1, then write a note the :1 boot could not have seen. The fork
    // answers; a second process of the fork answers; a third clears the fork's window.
    let (again, window_2) = ("Nothing new in the fork.", "In the fork's window 2.");
    let script = Script::new()
        .rule_times(
            Match::tail_contains("Clear the fork's window.").and_tool_result(false),
            Reply::text("Clearing the fork.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-FORK-2", Some(false))),
            1,
        )
        .rule(
            Match::tail_contains(":2\">").and_tool_result(false),
            Reply::text(window_2),
        )
        .rule(
            Match::tail_contains("Anything new?").and_tool_result(false),
            Reply::text(again),
        )
        .then(Reply::text("Clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-FORK", Some(false))))
        .then_when(
            Match::tail_contains(FRESH_BOOT).and_tool_result(false),
            write_probe("FORK-NOTE-77"),
        )
        .then_when(Match::tool_result(true), Reply::text("Saved."));
    let out = run_chain(
        name,
        answer_the_fork(script),
        vec![
            Process::new("Clear your window, then save a note."),
            forked.fork(0),
            forked.resume("Anything new?", 1, again),
            forked.resume("Clear the fork's window.", 1, window_2),
        ],
    );
    super::assert_clean_exit(&out);
    let (parent, fork) = parent_and_fork(&out);
    for i in [2, 3] {
        assert_eq!(
            out.processes[i].session_id.as_deref(),
            Some(fork.as_str()),
            "process {i} did not continue the fork"
        );
    }
    let parent_requests = out.process_requests(0);
    assert_eq!(
        parent_requests.len(),
        3,
        "the reset, the continuation's write, its answer"
    );
    let (parent_boot, fork_boot) = (format!("claude:{parent}:1"), format!("claude:{fork}:1"));
    let compaction_message =
        message_with(parent_requests[1], &parent_boot).expect("the parent's window-1 boot");

    // The fork's first request: the copied compaction message as it was, then the fork's
    // own window-1 boot, newest, built from the notes as they are now. The fork's next
    // prompt in the same process (not in `-p`): the same boots.
    let fork_requests = out.process_requests(1);
    assert_eq!(
        fork_requests.len(),
        forked.fork_prompts(),
        "the fork's answers"
    );
    for (i, r) in fork_requests.iter().enumerate() {
        assert_eq!(
            boots(*r),
            [parent_boot.clone(), fork_boot.clone()],
            "the fork's request {i} must hold the copied compaction boot, then the fork's own window 1, newest"
        );
    }
    let first = fork_requests[0];
    assert_eq!(
        message_with(first, &parent_boot).as_deref(),
        Some(compaction_message.as_str()),
        "the parent's boot is not the copied compaction message, unchanged"
    );
    let own = boot_body(&first.all_text(), &fork_boot);
    assert!(
        own.contains("FORK-NOTE-77"),
        "the fork's boot is not built from the notes as they are now:\n{own}"
    );
    assert!(
        !boot_body(&compaction_message, &parent_boot).contains("FORK-NOTE-77"),
        "the parent's window-1 boot already held the note: the probe proves nothing"
    );

    // The fork again (`--resume <fork>`): the same boots, no second fresh one.
    let again = out.process_requests(2);
    assert_eq!(again.len(), 1, "the fork's second answer");
    assert_eq!(
        boots(again[0]),
        [parent_boot.clone(), fork_boot.clone()],
        "the fork's second request got another boot"
    );

    // A reset in the fork opens the fork's window 2.
    let cleared = out.process_requests(3);
    assert_eq!(cleared.len(), 2, "the reset, the continuation");
    assert_eq!(
        boots(cleared[1]),
        [format!("claude:{fork}:2")],
        "the reset in the fork did not open the fork's window 2"
    );
}

#[rstest::rstest]
#[case::print("w02-fork-window-0-print", Forked::Print)]
#[case::stream_json("w02-fork-window-0-stream-json", Forked::StreamJson)]
#[case::tmux("w02-fork-window-0-tmux", Forked::Tmux)]
#[case::branch("w02-fork-window-0-branch", Forked::Branch)]
fn w02_fork_of_a_first_window_boots_the_fork_from_the_notes_now(
    #[case] name: &str,
    #[case] forked: Forked,
) {
    // Parent (window 0, booted at its prompt): write a note its boot could not have seen.
    let script = Script::new()
        .then(write_probe("FORK-NOTE-0"))
        .then_when(Match::tool_result(true), Reply::text("Saved."));
    let (out, parent, fork) = run_fork(name, script, "Save a note.", forked);
    assert_eq!(out.process_requests(0).len(), 2, "the write and its answer");
    for r in out.process_requests(0) {
        assert_eq!(
            boots(r),
            [format!("claude:{parent}:0")],
            "the parent's window 0"
        );
    }
    assert_the_fork_boots(&out, (&parent, &fork), 0, "FORK-NOTE-0", forked);
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

// ---------------------------------------------------------------------------------
// The cap survives a rollover in its session, and no other session (a new one, or a later
// process of the same one: the cap ends with its session) inherits it.

#[test]
fn w07_cap_survives_the_rollover_and_no_other_session_inherits_it() {
    // With `/notesoup cap 100k`: native 100 000 - 33 000 = 67 000, hard 58 808, warning
    // 42 424; without it (200K window): warning 142 424. 50 000 tokens are past the capped
    // warning point and short of every other one.
    let tokens = 50_000;
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        // Process 0 (stream-json): hello, the cap, a reset, window 1's tool round.
        .then(Reply::text("Hello."))
        .then(Reply::text("Clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-CAP", Some(false))))
        .list_round_when(Match::tail_contains(FRESH_BOOT), tokens)
        // Process 1: a new session's tool round.
        .list_round(tokens)
        // Process 2: process 0's session resumed, a reset, window 2's tool round.
        .then(Reply::text("Clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-CAP-2", Some(false))))
        .list_round_when(Match::tail_contains(":2\">"), tokens)
        .fallback(Reply::text("(fallback)"));
    let first = Process::new("hello").driven(Mode::StreamJson(vec![
        Input::Message("hello".into()),
        Input::Message("/notesoup cap 100k".into()),
        Input::Message("Clear your window now.".into()),
        Input::AfterRequests(4),
        Input::Idle(std::time::Duration::from_secs(3)),
    ]));
    let out = run_chain(
        "w07-cap",
        script,
        vec![
            first,
            Process::new("Check the notes."),
            Process::resume("Clear your window now.", 0),
        ],
    );
    super::assert_clean_exit(&out);
    // The tool-result request of the last tool round of each process.
    let result_of = |i: usize| {
        turns(&out, i)
            .into_iter()
            .rfind(Request::has_tool_result)
            .unwrap_or_else(|| panic!("process {i} made no tool round"))
    };
    let p0 = result_of(0);
    let sid = out.processes[0]
        .session_id
        .clone()
        .expect("no request in process 0");
    assert_eq!(
        boots(p0),
        [format!("claude:{sid}:1")],
        "process 0's tool round is not in window 1"
    );
    assert!(
        p0.tail_text().contains(WARNING),
        "the cap did not survive the rollover: no warning at {tokens} tokens in window 1"
    );
    assert!(
        !result_of(1).tail_text().contains(WARNING),
        "a new session inherited the cap"
    );
    let p2 = result_of(2);
    assert_eq!(
        boots(p2),
        [format!("claude:{sid}:2")],
        "the resumed session's tool round is not in window 2"
    );
    assert!(
        !p2.tail_text().contains(WARNING),
        "a later process of the session inherited the cap (it ends with its session)"
    );
}

// ---------------------------------------------------------------------------------
// A model change, then a module reload (the plugin's hooks module saved again in a running
// terminal session): the window and its warning are the record's (on disk); the cap stays
// across the model change and is the load's, so it ends with the reload.

#[test]
fn w08_a_model_change_keeps_the_cap_a_reload_clears_it_and_keeps_the_window_and_its_warning() {
    // Every prompt: the model lists its notes at 150 000 tokens, past the warning point of
    // a 200K window (142 424), short of the hard point.
    let tokens = 150_000;
    let script = Script::new()
        .rule(Match::tool_result(true), listed(tokens))
        .fallback(list().with_input_tokens(tokens));
    let module = "claude/hooks/notesoup.ts";
    let mode = tmux_lines(
        &[
            ("Check the notes.", Some("Listed.")),
            ("/notesoup cap 100k", Some("Cap: 100,000 tokens")),
        ],
        vec![
            // A model change in the session (confirmed in the engine's dialog): the cap stays.
            Step::Type("/model sonnet".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::WaitFor(r"Switch model\?".into(), Duration::from_secs(60)),
            Step::Key("Enter".into()),
            Step::WaitFor("Set model to".into(), Duration::from_secs(60)),
            Step::Sleep(Duration::from_secs(1)),
            Step::Type("/notesoup".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::WaitFor(
                "(?s)Set model to.*Cap: 100,000 tokens".into(),
                Duration::from_secs(60),
            ),
            Step::Touch(module.into()),
            // The engine reloads once the folder is quiet (~250 ms), with no turn running,
            // and says so in the transcript.
            Step::WaitFor("notesoup: reloaded".into(), Duration::from_secs(60)),
            Step::Sleep(Duration::from_secs(1)),
            Step::Type("/notesoup".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::WaitFor("Cap: none".into(), Duration::from_secs(60)),
            Step::Capture("after-reload".into()),
            Step::Sleep(Duration::from_secs(1)),
            Step::Type("Check the notes again.".into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::AfterRequests(4),
            Step::Idle(Duration::from_secs(3)),
        ],
    );
    let out = run_chain(
        "w08-reload",
        script,
        vec![Process::new("Check the notes.").driven(mode)],
    );
    super::assert_clean_exit(&out);
    let loads = out
        .debug_log
        .lines()
        .filter(|l| l.contains("hooks module notesoup@") && l.contains("loaded"))
        .count();
    assert!(
        loads >= 2,
        "the module was never reloaded ({loads} loads): the scenario proves nothing"
    );
    let sid = one_session(&out);
    let requests = turns(&out, 0);
    assert_eq!(requests.len(), 4, "two tool rounds");
    for (i, r) in requests.iter().enumerate() {
        assert_eq!(
            boots(*r),
            [format!("claude:{sid}:0")],
            "request {i} must hold one boot, window 0's (a reload opens no window)"
        );
    }
    assert!(
        requests[1].tail_text().contains(WARNING),
        "the first tool round past the warning point was not warned: the premise fails"
    );
    assert!(
        !requests[3].tail_text().contains(WARNING),
        "the reloaded module warned window 0 a second time"
    );
}

// ---------------------------------------------------------------------------------
// `DISABLE_COMPACT` across a module reload (the plugin's hooks module saved again in a
// running terminal session: a new process token) and a `/clear` (a new session, whose
// record starts without any `session.start`): `/empty`, `/fresh-window` and the model's
// `empty_brain` are refused in both, nothing is cleared, and the switch is logged once per
// session.

/// The start of the line the flow logs once per session when it hears `DISABLE_COMPACT`
/// (`notesoup_reset_flow::DISABLE_COMPACT_LOG`).
const DISABLE_COMPACT_LOG: &str = "DISABLE_COMPACT is set: no budget warnings";
/// What the flow answers the model's `empty_brain` under `DISABLE_COMPACT`.
const REFUSED: &str = "DISABLE_COMPACT is set, so the window cannot be cleared";

/// w09's model: it lists its notes, calls `empty_brain` when asked to clear the window,
/// and answers a refusal with the line the terminal is watched for.
fn w09_script() -> Script {
    let clear_it = || Reply::tool(EMPTY_BRAIN, empty_brain("w09", None)).with_input_tokens(1000);
    Script::new()
        .rule(
            Match::tool_result(true)
                .and_tail_contains(REFUSED)
                .and_any_contains("Clear it now."),
            Reply::text("Refused again."),
        )
        .rule(
            Match::tool_result(true).and_tail_contains(REFUSED),
            Reply::text("Refused, still here."),
        )
        .rule(Match::tool_result(true), listed(1000))
        .rule(
            Match::user_contains("Clear the window.").and_tool_result(false),
            clear_it(),
        )
        .rule(
            Match::user_contains("Clear it now.").and_tool_result(false),
            clear_it(),
        )
        .fallback(list().with_input_tokens(1000))
}

#[test]
fn w09_disable_compact_survives_a_reload_and_a_clear_and_is_logged_once_per_session() {
    let _one = serial();
    let script = w09_script();
    let module = "claude/hooks/notesoup.ts";
    let typed = |line: &str, answer: &str| {
        [
            Step::Sleep(Duration::from_secs(1)),
            Step::Type(line.into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
            Step::WaitFor(regex::escape(answer), Duration::from_secs(60)),
        ]
    };
    let mut middle = vec![
        Step::Touch(module.into()),
        Step::WaitFor("notesoup: reloaded".into(), Duration::from_secs(60)),
    ];
    middle.extend(typed("/empty", "/empty cannot run: DISABLE_COMPACT"));
    middle.extend(typed("Clear the window.", "Refused, still here."));
    middle.push(Step::Capture("after-reload".into()));
    middle.extend([
        Step::Sleep(Duration::from_secs(1)),
        Step::Type("/clear".into()),
        Step::Sleep(Duration::from_millis(500)),
        Step::Key("Enter".into()),
        Step::Sleep(Duration::from_secs(2)),
    ]);
    middle.extend(typed(
        "/fresh-window",
        "/fresh-window cannot run: DISABLE_COMPACT",
    ));
    middle.extend(typed("Clear it now.", "Refused again."));
    middle.extend([
        Step::Capture("after-clear".into()),
        Step::Idle(Duration::from_secs(3)),
    ]);
    let mode = tmux_lines(&[("Check the notes.", Some("Listed."))], middle);
    let out = super::session("w09-disable-compact", script)
        .timeout(Duration::from_secs(240))
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .env("DISABLE_COMPACT", "1")
        .run(&mode)
        .unwrap();
    super::assert_clean_exit(&out);
    let loads = out
        .debug_log
        .lines()
        .filter(|l| l.contains("hooks module notesoup@") && l.contains("loaded"))
        .count();
    assert!(
        loads >= 2,
        "the module was never reloaded ({loads} loads): the scenario proves nothing"
    );
    let sessions = out.transcripts.iter().filter(|t| !t.is_subagent()).count();
    assert_eq!(
        sessions, 2,
        "/clear did not start a new session: the scenario proves nothing"
    );
    let requests = out.model_turn_requests();
    // The model's empty_brain after the reload and after /clear: refused, in the tool
    // result it read.
    let refused = requests
        .iter()
        .filter(|r| super::tool_results_text(**r).contains(REFUSED))
        .count();
    assert_eq!(refused, 2, "an empty_brain was not refused");
    // Nothing was cleared: no close-out turn carried the warning, no compaction, every
    // request holds one boot, its session's window 0.
    assert_eq!(compactions(&out), 0, "a compaction was asked for");
    assert_eq!(super::boundaries(&out), 0, "the window was compacted");
    for (i, r) in requests.iter().enumerate() {
        assert!(
            !r.all_text().contains(WARNING),
            "request {i} carries the budget warning (a close-out ran)"
        );
        let boots = boots(*r);
        assert!(
            boots.len() == 1 && boots[0].ends_with(":0"),
            "request {i} must hold one boot, its window 0's: {boots:?}"
        );
    }
    let logged = out
        .debug_log
        .lines()
        .filter(|l| l.contains(DISABLE_COMPACT_LOG))
        .count();
    assert_eq!(
        logged, sessions,
        "DISABLE_COMPACT is logged once per session"
    );
}

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
    let out = super::session("w10-clear-resume", script)
        .timeout(Duration::from_secs(180))
        .args(&["--session-id", W10_FIRST])
        .run(&mode)
        .unwrap();
    super::assert_clean_exit(&out);
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
    let out = super::session("w11-switch-pending", script)
        .timeout(Duration::from_secs(180))
        .args(&["--session-id", W11_FIRST, "--allowedTools", "Bash"])
        .run(&mode)
        .unwrap();
    super::assert_clean_exit(&out);
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
        super::boundaries(out),
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
        super::boundaries(out),
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
    let out = super::session("w12-clear-reset", script)
        .timeout(Duration::from_secs(200))
        .args(&["--session-id", W12_FIRST])
        .run(&mode)
        .unwrap();
    super::assert_clean_exit(&out);
    let second = out
        .transcripts
        .iter()
        .filter(|t| !t.is_subagent())
        .filter_map(|t| t.path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .find(|id| id != W12_FIRST)
        .expect("/clear did not start a new session: the scenario proves nothing");
    assert_eq!(super::boundaries(&out), 1, "exactly one commit on disk");
    let fresh = fresh_window_requests(&out);
    assert_eq!(fresh.len(), 1, "exactly one fresh-window request");
    assert_eq!(
        boots(fresh[0]),
        [format!("claude:{second}:1")],
        "the fresh window's request must hold one boot, the cleared session's window 1"
    );
    super::assert_fresh_window(
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
