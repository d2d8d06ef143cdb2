//! `window_facts` on the real Claude Code 2.1.319 transcripts (compacted, resumed, forked)
//! and on the cases the engine makes that no fixture holds yet (a fork that got its own
//! boot, an old boot sent again after a newer one).

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::PathBuf;

use notesoup_history_claude::{Head, Options, WindowFactsError, decode, window_facts};
use rstest::rstest;
use serde_json::{Value, json};

const TWO: &str = "own-two-compactions--da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl";
const RESUMED: &str = "own-resumed--da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl";
const FORKED: &str = "own-forked--9fc454d3-ac4f-47d0-be8e-4fbf43dce5bb.jsonl";
const PARENT: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
const FORK_AFTER_RESET: &str = "own-fork-after-reset--15871621-2d39-40f0-a483-99bc2ce5ab22.jsonl";
const FORK_OWN_BOOT: &str = "own-fork-own-boot--bb5b53e4-ff78-47e8-802b-549c800c96a4.jsonl";
const FORK: &str = "9fc454d3-ac4f-47d0-be8e-4fbf43dce5bb";

fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn session_of(name: &str) -> &str {
    name.split("--").nth(1).unwrap().trim_end_matches(".jsonl")
}

/// (window, boot, compactions since the boot, forked from) of `text` for `session`.
fn facts(
    text: &str,
    session: &str,
) -> (Option<String>, Option<String>, Option<u64>, Option<String>) {
    let t = decode(text.as_bytes(), &Options::default(), &Head::Leaf).unwrap();
    let f = window_facts(&t, session).unwrap();
    (
        f.window.map(|w| w.to_string()),
        f.boot.map(|w| w.to_string()),
        f.compactions_since_boot,
        f.forked_from,
    )
}

/// A retained boot block naming `window`, as a JSON string's inside.
fn boot(window: &str) -> String {
    format!("<notesoup-boot window=\\\"{window}\\\">\\nnotes\\n</notesoup-boot>\\nhandoff")
}

/// The uuid of the last conversation row of `text`.
fn last_uuid(text: &str) -> String {
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant" | "system")))
        .find_map(|v| v["uuid"].as_str().map(str::to_owned))
        .unwrap()
}

/// A user row of `session` appended after `parent`, its text `text`.
fn user_row(session: &str, uuid: &str, parent: &str, text: &str) -> String {
    let row = json!({"type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
        "sessionId": session, "message": {"role": "user", "content": text}});
    format!("{row}\n")
}

#[rstest]
#[case::hello(
    "print-hello-noplugin--e961c4c0-2b1f-4778-9728-693afcb13390.jsonl",
    Some(0),
    None,
    Some(0),
    None
)]
#[case::compact(
    "stream-json-compact--2927dd05-6a0e-4632-9cc6-4d065912ca6f.jsonl",
    Some(1),
    None,
    Some(1),
    None
)]
#[case::autocompact(
    "stream-json-autocompact--c2f5b1ba-8252-4235-a397-d6df95be4891.jsonl",
    Some(1),
    None,
    Some(1),
    None
)]
#[case::tmux(
    "tmux-interactive-compact--10b8972e-e091-4ae3-971e-1006b054db2c.jsonl",
    Some(1),
    None,
    Some(1),
    None
)]
// The fixture's boot names the session `fixture` (written by hand into the harness's
// script), so by the rule it is another session's boot.
#[case::two_compactions(TWO, Some(2), Some("claude:fixture:1"), Some(1), Some("fixture"))]
#[case::resumed(RESUMED, Some(2), Some("claude:fixture:1"), Some(1), Some("fixture"))]
// The fork starts at the parent's second compact boundary and holds no boot: no ordinal.
#[case::forked_without_a_boot(FORKED, None, None, None, None)]
// A fork made after a notesoup reset (e2e w02): the parent's window-1 boot is the copied
// compaction message, and nothing in the fork names the fork yet.
#[case::fork_after_a_reset(
    FORK_AFTER_RESET,
    Some(1),
    Some("claude:7580685c-dbdc-421c-84cf-adbe1e1a9e57:1"),
    Some(0),
    Some("7580685c-dbdc-421c-84cf-adbe1e1a9e57")
)]
// The same fork once its first prompt carried its own window-1 boot (persisted as the
// prompt's `hook_additional_context` attachment, after the copied compaction message): the
// newest boot is the fork's, so the fork is no longer reported as one.
#[case::fork_with_its_own_boot(
    FORK_OWN_BOOT,
    Some(1),
    Some("claude:bb5b53e4-ff78-47e8-802b-549c800c96a4:1"),
    Some(0),
    None
)]
fn real_transcripts_give_their_window(
    #[case] name: &str,
    #[case] ordinal: Option<u32>,
    #[case] boot: Option<&str>,
    #[case] compactions: Option<u64>,
    #[case] forked_from: Option<&str>,
) {
    let session = session_of(name);
    assert_eq!(
        facts(&data(name), session),
        (
            ordinal.map(|n| format!("claude:{session}:{n}")),
            boot.map(str::to_owned),
            compactions,
            forked_from.map(str::to_owned)
        ),
        "{name}"
    );
}

#[test]
fn a_boot_of_the_session_itself_is_no_fork_and_the_boundary_after_it_counts() {
    let text = data(TWO).replace("claude:fixture:1", &format!("claude:{PARENT}:1"));
    assert_eq!(
        facts(&text, PARENT),
        (
            Some(format!("claude:{PARENT}:2")),
            Some(format!("claude:{PARENT}:1")),
            Some(1),
            None
        )
    );
}

#[test]
fn a_forks_copied_boot_names_the_parent_and_the_ordinal_is_kept() {
    let text = data(FORKED).replace(
        "FORKED-PROMPT: branch off here.",
        &boot(&format!("claude:{PARENT}:2")),
    );
    assert_eq!(
        facts(&text, FORK),
        (
            Some(format!("claude:{FORK}:2")),
            Some(format!("claude:{PARENT}:2")),
            Some(0),
            Some(PARENT.to_owned())
        )
    );
}

#[test]
fn a_fork_that_got_its_own_boot_is_no_longer_a_fork() {
    let text = data(FORKED).replace(
        "FORKED-PROMPT: branch off here.",
        &boot(&format!("claude:{PARENT}:2")),
    );
    let own = boot(&format!("claude:{FORK}:2"))
        .replace("\\\"", "\"")
        .replace("\\n", "\n");
    let last = last_uuid(&text);
    let text = text + &user_row(FORK, "own-boot", &last, &own);
    assert_eq!(
        facts(&text, FORK),
        (
            Some(format!("claude:{FORK}:2")),
            Some(format!("claude:{FORK}:2")),
            Some(0),
            None
        )
    );
}

#[test]
fn an_old_boot_sent_again_after_a_newer_one_never_reopens_its_window() {
    // Window 0's boot, a compaction, window 1's boot, then window 0's boot once more (the
    // engine re-sending an earlier attachment on a retry): the decoder re-anchors on it,
    // the facts stay at 1 and name window 1's boot.
    let b0 = "<notesoup-boot window=\"claude:s1:0\">\nnotes\n</notesoup-boot>";
    let b1 = "<notesoup-boot window=\"claude:s1:1\">\nnotes\n</notesoup-boot>";
    let boundary = json!({"type": "system", "subtype": "compact_boundary",
        "content": "Conversation compacted", "uuid": "c1", "parentUuid": null,
        "logicalParentUuid": "u1", "isSidechain": false, "sessionId": "s1"});
    let text = [
        user_row("s1", "u1", "x", b0).replace("\"x\"", "null"),
        format!("{boundary}\n"),
        user_row("s1", "u2", "c1", b1),
        user_row("s1", "u3", "u2", b0),
    ]
    .concat();
    let t = decode(text.as_bytes(), &Options::default(), &Head::Leaf).unwrap();
    assert_eq!(
        t.head_window.to_string(),
        "0",
        "the decoder re-anchors on the old boot"
    );
    assert_eq!(
        facts(&text, "s1"),
        (
            Some("claude:s1:1".to_owned()),
            Some("claude:s1:1".to_owned()),
            Some(0),
            None
        )
    );
}

#[test]
fn a_transcript_of_another_session_is_refused() {
    let t = decode(data(TWO).as_bytes(), &Options::default(), &Head::Leaf).unwrap();
    let err = window_facts(&t, FORK).unwrap_err();
    assert_eq!(
        err,
        WindowFactsError::OtherSession {
            expected: FORK.to_owned(),
            found: PARENT.to_owned()
        }
    );
}

/// The real engine's reactive compaction: the boot of window 1, then window 0's boot
/// attachment sent and persisted again right after it (the decoder re-anchors on it).
const PTL: &str = "own-ptl-resent-boot--0ffbd25d-7b28-4def-956b-e0532e45d2a8.jsonl";
const PTL_SESSION: &str = "0ffbd25d-7b28-4def-956b-e0532e45d2a8";

#[rstest]
// The model's `empty_brain` call in window 1, after the re-sent window-0 boot.
#[case::after_the_resent_boot("f36002cb-", 1, 0)]
// The last row: the second compaction's boot (the old module reopened window 1).
#[case::at_the_end("", 1, 0)]
fn a_boot_the_engine_sends_again_after_a_newer_one_does_not_lower_the_window(
    #[case] head_prefix: &str,
    #[case] ordinal: u32,
    #[case] compactions: u64,
) {
    let text = data(PTL);
    let head = if head_prefix.is_empty() {
        Head::Leaf
    } else {
        let uuid = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find_map(|v| {
                v["uuid"]
                    .as_str()
                    .filter(|u| u.starts_with(head_prefix))
                    .map(str::to_owned)
            })
            .unwrap();
        Head::Uuid(uuid)
    };
    let t = decode(text.as_bytes(), &Options::default(), &head).unwrap();
    if !head_prefix.is_empty() {
        assert_eq!(
            t.head_window.ordinal(),
            Some(0),
            "the decoder re-anchors on the re-sent window-0 boot"
        );
    }
    let f = window_facts(&t, PTL_SESSION).unwrap();
    assert_eq!(
        f.window.map(|w| w.to_string()),
        Some(format!("claude:{PTL_SESSION}:{ordinal}"))
    );
    assert_eq!(
        f.boot.map(|w| w.to_string()),
        Some(format!("claude:{PTL_SESSION}:1"))
    );
    assert_eq!(f.compactions_since_boot, Some(compactions));
    assert_eq!(f.forked_from, None);
}
