//! The real Codex CLI 0.171.0 rollouts in `tests/data` (see its README) decode as Codex
//! wrote them: tool call, /compact, rewind segment, fork, and a `.jsonl.zst`.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

mod fixtures;

use fixtures::{BASE, CHAIN, FORK, LATER, SEGMENT, ZST, decode_all, read};
use notesoup_history_codex::{CodexError, CodexFile, decode, decompress, file_ids, summary};
use notesoup_history_core::{History, Role, Transcript, Window};
use notesoup_testkit::{assert_tools_pair_calls, rows};

fn prompts(t: &Transcript) -> Vec<String> {
    rows(t)
        .into_iter()
        .filter(|r| r.1 == Role::User)
        .map(|r| r.3)
        .collect()
}

#[test]
fn the_base_file_alone_holds_the_tool_call_the_compaction_and_the_rewound_turn() {
    let t = decode_all(&[BASE]).unwrap();
    assert_eq!(
        t.session.to_string(),
        "codex:01a23755-7b6b-79d2-9438-c01132a25971"
    );
    let got = rows(&t);
    assert_eq!(got[0].1, Role::Attachment); // <environment_context>
    assert!(got[0].3.starts_with("<environment_context>"));
    assert_eq!(
        prompts(&t),
        [
            "Please run a command that writes a probe file.",
            "Name one prime number.",
            "Name a second prime number.",
            "Name a third prime number.",
            "Say goodbye in French.",
        ]
    );
    let call = got
        .iter()
        .find(|r| r.3.starts_with("exec_command"))
        .unwrap();
    assert_eq!(
        call.3,
        r#"exec_command {"cmd":"echo codex-probe > probe.txt && cat probe.txt"}"#
    );
    let output = &got[got.iter().position(|r| r.0 == call.0).unwrap() + 1];
    assert!(output.3.ends_with("Output:\ncodex-probe\n"), "{}", output.3);
    let summary = got.iter().find(|r| r.1 == Role::Summary).unwrap();
    assert_eq!(summary.2, "1");
    assert!(summary.3.ends_with("Handoff summary: the user listed files with exec_command (probe.txt) and asked about primes."));
    assert_eq!(got.last().unwrap().2, "1");
    assert_eq!(t.head_window, Window::Numbered(1));
}

#[test]
fn the_rewind_segment_reads_whole_through_its_history_base() {
    let t = decode_all(&[BASE, SEGMENT]).unwrap();
    assert_eq!(t.session.id, "01a23755-7b6b-79d2-9438-c01132a25971");
    assert!(t.missing.is_empty());
    // The rewound turn is gone; its replacement follows the third prime.
    assert_eq!(
        prompts(&t)[3..],
        [
            "Name a third prime number.",
            "Say goodbye in German instead."
        ]
    );
    let got = rows(&t);
    assert_eq!(
        got.last().unwrap().3,
        "Reply 9 to: Say goodbye in German instead."
    );
    assert_eq!(t.head_window, Window::Numbered(1));
    // Alone, the segment says exactly what it lacks.
    let alone = decode_all(&[SEGMENT]).unwrap();
    assert_eq!(alone.missing, ["01a23755-7b6b-79d2-9438-c01132a25971"]);
    assert_eq!(
        alone.head_window,
        Window::Unknown {
            missing: "01a23755-7b6b-79d2-9438-c01132a25971".into()
        }
    );
}

#[test]
fn the_fork_reads_its_parents_history_then_its_own_suffix() {
    let t = decode_all(&CHAIN).unwrap();
    assert_eq!(
        t.session.to_string(),
        "codex:01a23756-b853-7e01-94a2-1ae0a322f736"
    );
    let p = prompts(&t);
    assert_eq!(
        p.first().unwrap(),
        "Please run a command that writes a probe file."
    );
    assert_eq!(
        p[p.len() - 2..],
        [
            "Say goodbye in German instead.",
            "In this fork, name a colour."
        ]
    );
    assert_eq!(t.head_window, Window::Numbered(1));
    let history = History::new(t).unwrap();
    assert_eq!(
        history.head_window_id(),
        "codex:01a23756-b853-7e01-94a2-1ae0a322f736:1"
    );
    assert_tools_pair_calls(&history, "codex-probe", "exec_command");
}

#[test]
fn a_fork_given_the_wrong_base_is_refused() {
    let err = decode_all(&[BASE, FORK]).unwrap_err();
    assert!(matches!(err, CodexError::HistoryBase { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("01a23756-8217-7b21-ab26-ecf2081c409d"),
        "{err}"
    );
}

#[test]
fn the_rollout_codex_compressed_decodes() {
    let packed = read(ZST);
    let plain = decompress(ZST, &packed).unwrap();
    assert!(plain.len() > packed.len());
    let t = decode(&[CodexFile {
        name: ZST,
        bytes: &plain,
    }])
    .unwrap();
    assert_eq!(t.session.id, "01a23756-dae0-73f0-a878-6043e965173e");
    assert_eq!(
        prompts(&t),
        ["Please run a command that writes a probe file, then stop."]
    );
    assert!(rows(&t).iter().any(|r| r.3.starts_with("exec_command")));
    let ids = file_ids(ZST).unwrap();
    assert!(ids.compressed);
    assert_eq!(ids.thread, "01a23756-dae0-73f0-a878-6043e965173e");
    // Cut or corrupted zstd data is refused, never half-read.
    let err = decompress(ZST, &packed[..packed.len() / 2]).unwrap_err();
    assert!(matches!(err, CodexError::Zstd { .. }), "{err}");
    let mut flipped = packed.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0xff;
    assert!(matches!(
        decompress(ZST, &flipped),
        Err(CodexError::Zstd { .. })
    ));
}

#[test]
fn summaries_name_id_start_cwd_parent_and_first_prompt() {
    let fork = read(FORK);
    let s = summary(&CodexFile {
        name: FORK,
        bytes: &fork,
    })
    .unwrap();
    assert_eq!(s.id, "01a23756-b853-7e01-94a2-1ae0a322f736");
    assert_eq!(
        s.parent.as_deref(),
        Some("codex:01a23755-7b6b-79d2-9438-c01132a25971")
    );
    assert_eq!(s.cwd.as_deref(), Some("/tmp/xh/codexrun/c2/work"));
    assert_eq!(
        s.first_prompt.as_deref(),
        Some("In this fork, name a colour.")
    );
    // The head the corpus reads (64 KiB) reaches past the long instructions to the prompt;
    // a shorter head still names the session, without a prompt.
    let later = read(LATER);
    let head = &later[..later.len().min(64 * 1024)];
    let s = summary(&CodexFile {
        name: LATER,
        bytes: head,
    })
    .unwrap();
    assert_eq!(s.started.as_deref(), Some("2026-12-02T15:19:29.107Z"));
    assert_eq!(s.first_prompt.as_deref(), Some("Name one prime number."));
    let s = summary(&CodexFile {
        name: LATER,
        bytes: &later[..24 * 1024],
    })
    .unwrap();
    assert_eq!(s.id, "01a23756-dc4b-7611-8782-70c642f15bd0");
    assert_eq!(s.first_prompt, None);
    let segment_ids = file_ids(SEGMENT).unwrap();
    assert_eq!(
        segment_ids.segment,
        Some("01a23756-8217-7b21-ab26-ecf2081c409d")
    );
    assert_eq!(segment_ids.time, "2026-12-02T15-19-06");
}
