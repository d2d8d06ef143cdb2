//! A fork's first request, in every way a fork is made: a boot naming the fork, from the
//! notes as they are now.

use super::*;

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
    crate::assert_clean_exit(&out);
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
    crate::assert_clean_exit(&out);
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
