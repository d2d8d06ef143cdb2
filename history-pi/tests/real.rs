//! The real Pi 1.6.0 sessions in `tests/data` (see its README) decode as Pi built them.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

mod fixtures;

use fixtures::{FORK, MAIN, read};
use notesoup_history_core::{History, Role, Transcript, Window};
use notesoup_history_pi::{PiError, PiFile, decode, session_id_from_file_name, summary};
use notesoup_testkit::{assert_tools_pair_calls, rows};

#[test]
fn main_session_selects_the_tree_branch_with_both_compactions() {
    let bytes = read(MAIN);
    let t = decode(
        &PiFile {
            name: MAIN,
            bytes: &bytes,
        },
        &[],
    )
    .unwrap();
    assert_eq!(
        t.session.to_string(),
        "pi:01a23754-8e37-7027-8822-e05ee3580bae"
    );
    assert!(t.missing.is_empty());
    let got = rows(&t);
    // The path: the first exchange with the tool call, two turns, compaction 1 (window 1),
    // the second prime, then the /tree branch summary and the new branch. The abandoned
    // turns ("third prime", compaction 2, goodbye) are not on it.
    let roles: Vec<Role> = got.iter().map(|r| r.1).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Tool,
            Role::Assistant,
            Role::User,
            Role::Assistant,
            Role::User,
            Role::Assistant,
            Role::Summary,
            Role::User,
            Role::Assistant,
            Role::Summary,
            Role::User,
            Role::Assistant,
        ]
    );
    assert!(
        got[2]
            .3
            .starts_with("bash {\"command\":\"echo pi-probe > probe.txt && ls\"}")
    );
    assert_eq!(got[3].3, "probe.txt\n");
    assert_eq!(got[0].2, "0");
    assert_eq!(got[9].2, "1"); // compaction 1's summary opens window 1
    assert!(got[9].3.starts_with("## Goal\nExplore the fixture repo."));
    assert_eq!(got[12].2, "1"); // a branch summary does not open a window
    assert!(
        got[12]
            .3
            .contains("The user explored a different conversation branch")
    );
    assert_eq!(got[13].3, "On this branch, name an even prime.");
    assert_eq!(t.head_window, Window::Numbered(1));
    // Seqs count every entry of the file, abandoned branch included: 15 events on the path
    // but the last seq is higher.
    assert!(got.iter().all(|r| r.3 != "Say goodbye in French."));
    let last = got.last().unwrap().0;
    assert_eq!(last, 20); // seqs 13..=17 went to the abandoned turns
}

#[test]
fn fork_reads_whole_from_its_copied_path() {
    let main = read(MAIN);
    let fork = read(FORK);
    let alone = decode(
        &PiFile {
            name: FORK,
            bytes: &fork,
        },
        &[],
    )
    .unwrap();
    let with_parent = decode(
        &PiFile {
            name: FORK,
            bytes: &fork,
        },
        &[PiFile {
            name: MAIN,
            bytes: &main,
        }],
    )
    .unwrap();
    assert_eq!(alone, with_parent);
    assert_eq!(alone.session.id, "01a23754-922a-7771-b755-13b58637f164");
    let got = rows(&alone);
    assert_eq!(got.first().unwrap().3, "List the files here with bash.");
    assert_eq!(
        got.last().unwrap().3,
        "Reply 11 to: In this fork, name a colour instead."
    );
    assert_eq!(got.len(), 9);
}

#[test]
fn a_fork_holding_only_its_suffix_reads_whole_through_parent_session() {
    let main = read(MAIN);
    let fork = read(FORK);
    let text = std::str::from_utf8(&fork).unwrap();
    // Keep the header and the fork's own two messages; drop the copied path.
    let lines: Vec<&str> = text.lines().collect();
    let suffix = [lines[0], lines[lines.len() - 2], lines[lines.len() - 1], ""].join("\n");
    let alone = decode(
        &PiFile {
            name: FORK,
            bytes: suffix.as_bytes(),
        },
        &[],
    )
    .unwrap();
    assert_eq!(alone.missing, vec!["8c024729".to_owned()]);
    assert_eq!(
        alone.head_window,
        Window::Unknown {
            missing: "8c024729".into()
        }
    );
    let whole = decode(
        &PiFile {
            name: FORK,
            bytes: suffix.as_bytes(),
        },
        &[PiFile {
            name: MAIN,
            bytes: &main,
        }],
    )
    .unwrap();
    assert!(whole.missing.is_empty());
    let full = decode(
        &PiFile {
            name: FORK,
            bytes: &fork,
        },
        &[],
    )
    .unwrap();
    let strip = |t: &Transcript| {
        rows(t)
            .into_iter()
            .map(|r| (r.1, r.2, r.3))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&whole), strip(&full));
    assert_eq!(whole.head_window, Window::Numbered(0));
}

#[test]
fn the_wrong_ancestor_is_refused() {
    let main = read(MAIN);
    let fork = read(FORK);
    let err = decode(
        &PiFile {
            name: MAIN,
            bytes: &main,
        },
        &[PiFile {
            name: FORK,
            bytes: &fork,
        }],
    )
    .unwrap_err();
    assert!(matches!(err, PiError::ParentMismatch { .. }), "{err}");
}

#[test]
fn history_tools_answer_over_the_real_session() {
    let bytes = read(MAIN);
    let history = History::new(
        decode(
            &PiFile {
                name: MAIN,
                bytes: &bytes,
            },
            &[],
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        history.head_window_id(),
        "pi:01a23754-8e37-7027-8822-e05ee3580bae:1"
    );
    let read = assert_tools_pair_calls(&history, "probe", "bash");
    assert!(read.text.as_str().contains("probe.txt"));
}

#[test]
fn summaries_name_id_start_cwd_parent_and_first_prompt() {
    let fork = read(FORK);
    let s = summary(&PiFile {
        name: FORK,
        bytes: &fork,
    })
    .unwrap();
    assert_eq!(s.id, "01a23754-922a-7771-b755-13b58637f164");
    assert_eq!(
        s.parent.as_deref(),
        Some("pi:01a23754-8e37-7027-8822-e05ee3580bae")
    );
    assert_eq!(s.cwd.as_deref(), Some("/tmp/xh/pirun/r3/work"));
    assert_eq!(s.started.as_deref(), Some("2026-12-02T15:16:59.050Z"));
    assert_eq!(
        s.first_prompt.as_deref(),
        Some("List the files here with bash.")
    );
    assert_eq!(
        session_id_from_file_name(FORK),
        Some("01a23754-922a-7771-b755-13b58637f164")
    );
    // A head cut anywhere still names the session.
    let main = read(MAIN);
    let head = &main[..300];
    assert_eq!(
        summary(&PiFile {
            name: MAIN,
            bytes: head
        })
        .unwrap()
        .first_prompt,
        None
    );
}
