//! The prefilter on the real Pi and Codex fixtures: it passes over the sessions without
//! the literal, and never over one whose documents hold it (a literal only in a file the
//! session continues included).
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use notesoup_history_core::{DocQuery, Needle};
use notesoup_window::Host;

use super::{RawNeedle, judged};
use crate::{Corpus, Roots};
use notesoup_testkit::copy_tree;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// The Pi and Codex fixtures in a corpus of their own.
fn fixtures(name: &str) -> (PathBuf, Corpus) {
    let dir =
        std::env::temp_dir().join(format!("notesoup-prefilter-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    copy_tree(
        &repo().join("history-pi/tests/data/agent/sessions"),
        &dir.join("pi"),
    );
    copy_tree(
        &repo().join("history-codex/tests/data/codex-home/sessions"),
        &dir.join("codex/sessions"),
    );
    let roots = Roots {
        pi: Some(dir.join("pi").display().to_string()),
        codex: Some(dir.join("codex/sessions").display().to_string()),
        claude: Some(dir.join("none").display().to_string()),
    };
    (dir.clone(), Corpus::new(roots, |_| None))
}

#[test]
fn a_pi_or_codex_session_without_the_literal_is_passed_over() {
    let (dir, corpus) = fixtures("absent");
    let scan = corpus.scan(None);
    let harnesses: BTreeSet<Host> = scan.sessions().iter().map(|f| f.harness).collect();
    assert_eq!(harnesses, BTreeSet::from([Host::Pi, Host::Codex]));
    for found in scan.sessions() {
        for absent in ["zebra-needle", "pi-probe-404", "codex_probe"] {
            for ignore_case in [false, true] {
                let literal = if ignore_case {
                    absent.to_uppercase()
                } else {
                    absent.to_owned()
                };
                assert!(
                    !scan
                        .may_hold(found, &RawNeedle::new(&literal, ignore_case))
                        .unwrap(),
                    "{}:{} may hold {literal} (case ignored: {ignore_case})",
                    found.harness,
                    found.id
                );
            }
        }
    }
    let _ = fs::remove_dir_all(dir);
}

/// Every whitespace-separated word of every document of every fixture session (and the
/// halves of each), as a literal: a session whose documents hold it may hold it, so a
/// search with the prefilter finds what a search without it finds. Some words are judged
/// and held only by a file the session continues (the chain is followed), and the
/// decoders' own additions (compact JSON inputs, fixed words) are not judged.
#[test]
fn a_session_whose_documents_hold_the_literal_is_never_passed_over() {
    let (dir, corpus) = fixtures("held");
    let scan = corpus.scan(None);
    let (mut judged_held, mut only_in_an_ancestor, mut unjudged_absent_from_file) = (0, 0, 0);
    let mut folded_judged_held = 0;
    for found in scan.sessions() {
        let history = corpus.history_scanned(&scan, found, None, None).unwrap();
        let all = history.documents(&DocQuery::default()).unwrap();
        let mut words = BTreeSet::new();
        for doc in &all.documents {
            let mut text = doc.text.clone();
            if let Some(tool) = &doc.tool {
                for part in [&tool.name, &tool.input] {
                    text.push(' ');
                    text.push_str(part.as_deref().unwrap_or_default());
                }
                if let Some(result) = &tool.result {
                    text.push(' ');
                    text.push_str(&result.text);
                }
            }
            for word in text.split_whitespace() {
                let cut = word
                    .char_indices()
                    .nth(word.chars().count() / 2)
                    .map_or(0, |c| c.0);
                words.extend([word, &word[..cut], &word[cut..]].map(str::to_owned));
            }
        }
        words.extend(["result", "---", "(error)", "pending:"].map(str::to_owned));
        let own = fs::read(&found.path).ok();
        for word in words.iter().filter(|w| !w.is_empty()) {
            // As it is; and, with case ignored, in other cases than the documents'.
            for (literal, ignore_case) in [
                (word.clone(), false),
                (swapped_case(word), true),
                (word.to_uppercase(), true),
            ] {
                let needle = Needle::new(&literal, ignore_case).unwrap();
                let query = DocQuery {
                    needle: Some(&needle),
                    ..DocQuery::default()
                };
                if history.documents(&query).unwrap().matched == 0 {
                    continue;
                }
                let raw = RawNeedle::new(&literal, ignore_case);
                assert!(
                    scan.may_hold(found, &raw).unwrap(),
                    "{}:{} holds {literal:?} (case ignored: {ignore_case}) but was passed over",
                    found.harness,
                    found.id
                );
                let in_own_file = own.as_deref().is_none_or(|bytes| raw.may_hold(bytes));
                if !judged(&raw) {
                    unjudged_absent_from_file += usize::from(!in_own_file);
                } else if ignore_case {
                    folded_judged_held += usize::from(literal != *word);
                } else {
                    judged_held += 1;
                    only_in_an_ancestor += usize::from(!in_own_file);
                }
            }
        }
    }
    assert!(judged_held > 100, "{judged_held} judged literals held");
    assert!(
        folded_judged_held > 100,
        "{folded_judged_held} judged literals held in another case"
    );
    assert!(
        only_in_an_ancestor > 0,
        "no literal only in an ancestor file"
    );
    assert!(
        unjudged_absent_from_file > 0,
        "no literal the decoders add was tried"
    );
    let _ = fs::remove_dir_all(dir);
}

/// Upper case for lower and lower for upper, character by character.
fn swapped_case(word: &str) -> String {
    word.chars()
        .flat_map(|c| {
            if c.is_lowercase() {
                c.to_uppercase().collect::<Vec<_>>()
            } else {
                c.to_lowercase().collect()
            }
        })
        .collect()
}

/// A document's marks are never matched, so a word of theirs is judged like any other; a
/// number's characters and JSON's punctuation are not.
#[test]
fn only_what_the_decoders_add_is_not_judged() {
    for ignore_case in [false, true] {
        assert!(judged(&RawNeedle::new("RESULT", ignore_case)));
        assert!(judged(&RawNeedle::new("Pend", ignore_case)));
        assert!(judged(&RawNeedle::new("zebra", ignore_case)));
        assert!(
            !judged(&RawNeedle::new("1E5", ignore_case)),
            "a number's characters"
        );
        assert!(!judged(&RawNeedle::new("a:b", ignore_case)), "JSON's");
    }
}

/// A Claude transcript's documents show a call as its name, a space and its input, which
/// its file holds apart: a literal across that space, and every other piece of a document,
/// is never passed over (the real Claude Code transcripts of `app/tests/data/xharness`).
#[test]
fn a_claude_transcript_whose_documents_hold_the_literal_is_never_passed_over() {
    let dir =
        std::env::temp_dir().join(format!("notesoup-prefilter-claude-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    copy_tree(
        &repo().join("app/tests/data/xharness/claude-projects"),
        &dir.join("claude"),
    );
    let corpus = Corpus::new(
        Roots {
            claude: Some(dir.join("claude").display().to_string()),
            ..Roots::default()
        },
        |_| None,
    );
    let scan = corpus.scan(None);
    assert!(!scan.sessions().is_empty());
    let mut across = 0;
    for found in scan.sessions() {
        let history = corpus.history_scanned(&scan, found, None, None).unwrap();
        let all = history.documents(&DocQuery::default()).unwrap();
        let mut literals = BTreeSet::new();
        for doc in &all.documents {
            let Some(tool) = &doc.tool else {
                literals.extend(doc.text.split_whitespace().map(str::to_owned));
                continue;
            };
            let input = tool.input.as_deref().unwrap_or_default();
            let name = tool.name.as_deref().unwrap_or_default();
            for (k, _) in name.char_indices() {
                for m in input.char_indices().map(|(at, _)| at).chain([input.len()]) {
                    literals.insert(format!("{} {}", &name[k..], &input[..m]));
                }
            }
        }
        for literal in &literals {
            for ignore_case in [false, true] {
                let needle = Needle::new(literal, ignore_case).unwrap();
                let query = DocQuery {
                    needle: Some(&needle),
                    ..DocQuery::default()
                };
                if history.documents(&query).unwrap().matched == 0 {
                    continue;
                }
                across += usize::from(literal.contains(" {"));
                assert!(
                    scan.may_hold(found, &RawNeedle::new(literal, ignore_case))
                        .unwrap(),
                    "{}:{} holds {literal:?} (case ignored: {ignore_case}) but was passed over",
                    found.harness,
                    found.id
                );
            }
        }
        for absent in ["zebra-needle", "Bash {\"zebra-needle"] {
            assert!(
                !scan
                    .may_hold(found, &RawNeedle::new(absent, false))
                    .unwrap()
            );
        }
    }
    assert!(across > 10, "{across} literals across a name and its input");
    let _ = fs::remove_dir_all(dir);
}

/// `bytes` as one zstd frame of raw (stored) blocks of at most 128 KiB.
fn stored_zst(bytes: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 128 * 1024;
    // Magic, a header with no content size and no checksum, a 128 KiB window.
    let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    let blocks: Vec<&[u8]> = bytes.chunks(BLOCK).collect();
    for (i, block) in blocks.iter().enumerate() {
        let last = u32::from(i + 1 == blocks.len());
        let header = last | (u32::try_from(block.len()).unwrap() << 3);
        zst.extend_from_slice(&header.to_le_bytes()[..3]);
        zst.extend_from_slice(block);
    }
    zst
}

/// A zstd frame of `blocks` RLE blocks of 128 KiB of line breaks (8 KiB → 256 MiB).
fn zstd_bomb(blocks: u32) -> Vec<u8> {
    let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    for i in 0..blocks {
        let header = u32::from(i + 1 == blocks) | (1 << 1) | ((128 * 1024) << 3);
        zst.extend_from_slice(&header.to_le_bytes()[..3]);
        zst.push(b'\n');
    }
    zst
}

/// A `.jsonl.zst` rollout is judged on its bytes decompressed as they stream, window by
/// window: a literal past the first window's end is found from the bytes the next window
/// keeps, an absent one is not, and a bomb is refused as the decode refuses it
/// (`too_large`), not as a failed read.
#[test]
fn a_compressed_rollout_is_judged_as_it_is_decompressed() {
    let dir = std::env::temp_dir().join(format!("notesoup-prefilter-zst-{}", std::process::id()));
    let day = dir.join("codex/2026/12/02");
    fs::create_dir_all(&day).unwrap();
    let needle = RawNeedle::new("zebra-42", false);
    let meta = r#"{"type":"session_meta","payload":{"id":"01a23756-0000-7000-8000-00000000000a"}}"#;
    let mut text = format!("{meta}\n{{\"type\":\"response_item\",\"payload\":{{\"text\":\"");
    // The literal ends one byte past the first window, which keeps the overlap.
    let before = super::WINDOW_BYTES + needle.overlap() + 1 - "zebra-42".len();
    text.push_str(&"x".repeat(before - text.len()));
    text.push_str("zebra-42\"}}\n");
    fs::write(
        day.join("rollout-2026-12-02T15-00-00-01a23756-0000-7000-8000-00000000000a.jsonl.zst"),
        stored_zst(text.as_bytes()),
    )
    .unwrap();
    fs::write(
        day.join("rollout-2026-12-02T15-00-01-01a23756-0000-7000-8000-00000000000b.jsonl.zst"),
        zstd_bomb(2048),
    )
    .unwrap();
    let corpus = Corpus::new(
        Roots {
            codex: Some(dir.join("codex").display().to_string()),
            claude: Some(dir.join("none").display().to_string()),
            pi: Some(dir.join("none").display().to_string()),
        },
        |_| None,
    );
    let scan = corpus.scan(None);
    let session = |id: &str| {
        scan.sessions()
            .iter()
            .find(|f| f.harness == Host::Codex && f.id.ends_with(id))
            .unwrap()
            .clone()
    };
    let rollout = session("0a");
    assert!(scan.may_hold(&rollout, &needle).unwrap());
    assert!(
        !scan
            .may_hold(&rollout, &RawNeedle::new("zebra-43", false))
            .unwrap()
    );
    let err = scan.may_hold(&session("0b"), &needle).unwrap_err();
    assert_eq!(err.code(), "too_large", "{err}");
    let _ = fs::remove_dir_all(dir);
}
