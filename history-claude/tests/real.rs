//! Real transcripts made by the real Claude Code 2.1.319 (the shared harness samples and
//! this crate's own runs: two compactions with a retained boot and parallel tool calls, the
//! same session resumed, a fork of it, a subagent) decode with the expected windows, seqs
//! and pairings.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::PathBuf;

use notesoup_history_claude::{DecodeError, Head, Options, decode};
use notesoup_history_core::{Body, History, ListArgs, Role, Seq, Transcript, Window};
use rstest::rstest;

fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn load(name: &str) -> Transcript {
    decode(&data(name), &Options::default(), &Head::Leaf).unwrap()
}

const TWO: &str = "own-two-compactions--da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl";
const RESUMED: &str = "own-resumed--da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl";
const FORKED: &str = "own-forked--9fc454d3-ac4f-47d0-be8e-4fbf43dce5bb.jsonl";
const SUBAGENT: &str = "print-subagent--46e81c6c-2ea0-4a80-b04f-ae5be4e7b7d8.jsonl";
const OWN_SUBAGENT: &str = "own-subagent--f99dd1e0-925c-4fe9-a00a-a55d93fa4200.jsonl";

fn windows(t: &Transcript) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &t.events {
        let w = e.window.to_string();
        if out.last() != Some(&w) {
            out.push(w);
        }
    }
    out
}

/// (call seq, result seq) for every call, `None` when pending.
fn pairs(t: &Transcript) -> Vec<(Seq, Option<Seq>)> {
    let history = History::new(t.clone()).unwrap();
    t.events
        .iter()
        .filter(|e| matches!(e.body, Body::ToolCall { .. }))
        .map(|e| (e.seq, history.partner(e.seq).map(|r| r.seq)))
        .collect()
}

fn text_of(t: &Transcript, seq: Seq) -> &str {
    match &t.events.iter().find(|e| e.seq == seq).unwrap().body {
        Body::Text { text } => text,
        other => panic!("seq {seq} is {other:?}"),
    }
}

#[rstest]
#[case::hello("print-hello-noplugin--e961c4c0-2b1f-4778-9728-693afcb13390.jsonl", "0", &["0"], &[])]
#[case::tool("print-tool-roundtrip--1c104c88-d03e-4610-be22-eaf1b456a527.jsonl", "0", &["0"], &[(13, Some(15))])]
#[case::subagent(SUBAGENT, "0", &["0"], &[(13, Some(15))])]
#[case::own_subagent(OWN_SUBAGENT, "0", &["0"], &[(13, Some(15))])]
#[case::compact("stream-json-compact--2927dd05-6a0e-4632-9cc6-4d065912ca6f.jsonl", "1", &["0", "1"], &[(16, Some(18))])]
#[case::autocompact("stream-json-autocompact--c2f5b1ba-8252-4235-a397-d6df95be4891.jsonl", "1", &["0", "1"], &[])]
#[case::tmux("tmux-interactive-compact--10b8972e-e091-4ae3-971e-1006b054db2c.jsonl", "1", &["0", "1"], &[(18, Some(20))])]
#[case::before_clear("stream-json-clear--258125bb-ecd2-48d5-a7fc-33f46975d96e.jsonl", "0", &["0"], &[])]
#[case::after_clear("stream-json-clear--7a403076-560c-494d-a530-5f2455b4081b.jsonl", "0", &["0"], &[])]
#[case::two_compactions(TWO, "2", &["0", "1", "2"], &[(17, Some(21)), (19, Some(23))])]
#[case::resumed(RESUMED, "2", &["0", "1", "2"], &[(17, Some(21)), (19, Some(23))])]
fn real_transcripts_decode(
    #[case] name: &str,
    #[case] head: &str,
    #[case] expected_windows: &[&str],
    #[case] expected_pairs: &[(Seq, Option<Seq>)],
) {
    let t = load(name);
    assert_eq!(t.head_window.to_string(), head, "{name}");
    assert_eq!(windows(&t), expected_windows, "{name}");
    assert_eq!(pairs(&t), expected_pairs, "{name}");
    assert!(t.missing.is_empty(), "{name}: {:?}", t.missing);
    assert_eq!(
        t.session.id,
        name.split("--").nth(1).unwrap().trim_end_matches(".jsonl")
    );
}

#[test]
fn two_compactions_keep_old_windows_readable_and_name_the_boot_ordinal() {
    let t = load(TWO);
    // Window 0 holds the first prompt and the parallel calls, window 1 starts at the first
    // boundary and holds the retained boot, window 2 starts at the second boundary.
    assert_eq!(text_of(&t, 1), "Say hello.");
    let by_seq = |seq: Seq| t.events.iter().find(|e| e.seq == seq).unwrap();
    assert_eq!(by_seq(1).window, Window::Numbered(0));
    assert_eq!(
        (by_seq(25).role, by_seq(25).window.clone()),
        (Role::Notice, Window::Numbered(1))
    );
    assert_eq!(by_seq(26).role, Role::Summary);
    assert!(text_of(&t, 35).starts_with("<notesoup-boot window=\"claude:fixture:1\">"));
    assert_eq!(by_seq(35).window, Window::Numbered(1));
    assert_eq!(
        (by_seq(44).role, by_seq(44).window.clone()),
        (Role::Notice, Window::Numbered(2))
    );
    // Thinking is never visible: the thinking-only envelope keeps its address, empty.
    assert_eq!(text_of(&t, 14), "");
}

#[test]
fn resuming_appends_without_moving_any_earlier_seq() {
    let before = load(TWO);
    let after = load(RESUMED);
    for event in &before.events {
        let same = after.events.iter().find(|e| e.seq == event.seq).unwrap();
        assert_eq!(same, event);
    }
    let last = after.events.last().unwrap();
    assert_eq!(text_of(&after, last.seq), "Answer in the resumed session.");
    assert!(last.seq > before.events.last().unwrap().seq);
}

#[test]
fn a_fork_without_a_boot_has_an_unknown_window_and_a_gap_notice() {
    let t = load(FORKED);
    assert_eq!(t.session.id, "9fc454d3-ac4f-47d0-be8e-4fbf43dce5bb");
    let gap = "9618defd-1ea5-4085-ade2-d8242ca7cb02";
    assert_eq!(t.missing, [gap]);
    assert_eq!(
        t.head_window,
        Window::Unknown {
            missing: gap.into()
        }
    );
    assert_eq!(windows(&t), [format!("unknown:{gap}")]);
    let history = History::new(t).unwrap();
    let page = history.list(&ListArgs::default()).unwrap();
    assert!(
        page.text
            .as_str()
            .starts_with("[notice: ancestry is incomplete")
    );
    assert!(page.text.as_str().contains("Answer in the forked session."));
}

#[test]
fn a_retained_boot_in_a_fork_names_the_ordinal_with_the_fork_session() {
    // The forked file with its first conversation row replaced by a retained boot block:
    // from the boot on, the fork's own session id with the boot's ordinal.
    let text = String::from_utf8(data(FORKED)).unwrap();
    let boot = "<notesoup-boot window=\\\"claude:da56055c-293e-4422-b5b8-62b1c7e6c03d:2\\\">\\nnotes\\n</notesoup-boot>\\nhandoff";
    let text = text.replace("FORKED-PROMPT: branch off here.", boot);
    let t = decode(text.as_bytes(), &Options::default(), &Head::Leaf).unwrap();
    assert_eq!(t.head_window, Window::Numbered(2));
    let history = History::new(t).unwrap();
    assert_eq!(
        history.head_window_id(),
        "claude:9fc454d3-ac4f-47d0-be8e-4fbf43dce5bb:2"
    );
    assert_eq!(history.windows().len(), 2);
    assert_eq!(
        history.windows()[0],
        &Window::Numbered(2),
        "numbered windows come first"
    );
}

#[rstest]
#[case::shared("print-subagent--agent.jsonl", SUBAGENT)]
#[case::own("own-subagent--agent.jsonl", OWN_SUBAGENT)]
fn the_subagent_file_is_a_sidechain_and_refused_as_a_main_transcript(
    #[case] agent_file: &str,
    #[case] main_file: &str,
) {
    let agent = data(agent_file);
    let err = decode(&agent, &Options::default(), &Head::Leaf).unwrap_err();
    assert!(
        matches!(
            err,
            DecodeError::SidechainMismatch {
                line: 1,
                found: true
            }
        ),
        "{err}"
    );
    let options = Options {
        sidechain: true,
        ..Options::default()
    };
    let t = decode(&agent, &options, &Head::Leaf).unwrap();
    let main = load(main_file);
    assert_eq!(t.session.id, main.session.id, "the parent's session");
    assert!(t.events.iter().any(|e| e.role == Role::Assistant));
    // The main transcript's Agent call is paired with its "launched" result.
    let call = main.events.iter().find(|e| e.seq == 13).unwrap();
    assert!(matches!(&call.body, Body::ToolCall { name, .. } if name == "Agent"));
}

#[test]
fn the_live_head_selects_an_older_branch_point() {
    // Selecting the head "What is next?" (before the second compaction) in the resumed
    // file shows nothing after it.
    let t = decode(
        &data(RESUMED),
        &Options::default(),
        &Head::Uuid(find_uuid(RESUMED, "What is next?")),
    )
    .unwrap();
    assert_eq!(t.head_window, Window::Numbered(1));
    assert_eq!(t.events.last().unwrap().seq, 42);
    let err = decode(
        &data(RESUMED),
        &Options::default(),
        &Head::Uuid("not-yet".into()),
    )
    .unwrap_err();
    assert!(err.retryable(), "{err}");
}

fn find_uuid(name: &str, text: &str) -> String {
    let raw = String::from_utf8(data(name)).unwrap();
    let line = raw
        .lines()
        .find(|l| l.contains(text) && l.contains("\"type\":\"user\""))
        .unwrap();
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    value["uuid"].as_str().unwrap().to_owned()
}

#[test]
fn a_rewind_selects_the_new_branch_and_keeps_the_old_one_addressable() {
    const REWIND: &str = "own-rewind--9245fc6c-20e8-4e7c-a26f-97cdcc319a9e.jsonl";
    let texts = |t: &Transcript| -> Vec<String> {
        t.events
            .iter()
            .filter(|e| matches!(e.role, Role::User | Role::Assistant))
            .filter_map(|e| match &e.body {
                Body::Text { text } if !text.is_empty() => Some(text.clone()),
                _ => None,
            })
            .collect()
    };
    let new = load(REWIND);
    assert_eq!(
        texts(&new),
        [
            "First prompt.",
            "Answer one: first branch.",
            "Second prompt, to be rewound.Third prompt after the rewind.",
            "Answer three: after the rewind, on the new branch."
        ]
    );
    // The rewound branch, selected by its own last row, keeps its seqs (allocated before
    // the new branch's).
    let old = decode(
        &data(REWIND),
        &Options::default(),
        &Head::Uuid(full_uuid(REWIND, "3781c490-")),
    )
    .unwrap();
    assert_eq!(texts(&old)[2], "Second prompt, to be rewound.");
    let old_seq = old
        .events
        .iter()
        .find(|e| e.record.starts_with("fb346efb"))
        .unwrap()
        .seq;
    let new_seq = new
        .events
        .iter()
        .find(|e| e.record.starts_with("264c6740"))
        .unwrap()
        .seq;
    assert!(old_seq < new_seq);
    assert!(!new.events.iter().any(|e| e.seq == old_seq));
}

/// The whole uuid of the row whose uuid starts with `prefix`.
fn full_uuid(name: &str, prefix: &str) -> String {
    let raw = String::from_utf8(data(name)).unwrap();
    let at = raw.find(&format!("\"uuid\":\"{prefix}")).unwrap() + 8;
    raw[at..at + 36].to_owned()
}
