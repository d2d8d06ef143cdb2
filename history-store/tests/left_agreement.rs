//! A Pi or Codex history whose bodies were left in the harness's files (read again only where
//! an answer shows them or a search may find its literal in them) answers exactly as the
//! whole decode does: on the real Pi and Codex fixtures (a Pi fork whose path runs into its
//! parent's file, a Codex fork through a rewind segment and its base, a compressed rollout),
//! every body left out, read for no literal and for each literal in turn (the one the decode
//! noted, and another, which the raw bytes of the lines judge, escapes and all); a large
//! body is left out by default; a kept history answers later questions until its file
//! changes; and a line changed in place after the decode is refused, while a file replaced
//! since is read as it was.

#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

mod agreement;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agreement::{FIXED, agree, drawn, left_out, lists_agree};
use notesoup_history_core::{Body, DocQuery, History, Needle, QueryError, ReadArgs};
use notesoup_history_store::{Corpus, Kept, LEFT_IN_FILE_BYTES, Roots};
use notesoup_testkit::copy_tree;

const PI_MAIN: &str = "01a23754-8e37-7027-8822-e05ee3580bae";
const PI_FORK: &str = "01a23754-922a-7771-b755-13b58637f164";
const CODEX_BASE: &str = "01a23755-7b6b-79d2-9438-c01132a25971";
const CODEX_FORK: &str = "01a23756-b853-7e01-94a2-1ae0a322f736";
const CODEX_ZST: &str = "01a23756-dae0-73f0-a878-6043e965173e";
const CODEX_OTHER: &str = "01a23756-dc4b-7611-8782-70c642f15bd0";

/// A scratch HOME with the Pi and Codex fixtures in the harnesses' folders.
fn home(name: &str) -> PathBuf {
    let home = std::env::temp_dir().join(format!("notesoup-left-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&home);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    copy_tree(
        &repo.join("history-pi/tests/data/agent/sessions"),
        &home.join(".pi/agent/sessions"),
    );
    copy_tree(
        &repo.join("history-codex/tests/data/codex-home/sessions"),
        &home.join(".codex/sessions"),
    );
    home
}

fn corpus(home: &Path) -> Corpus {
    let home = home.display().to_string();
    Corpus::new(Roots::default(), move |name| {
        (name == "HOME").then(|| home.clone())
    })
}

/// The whole decode of `selector`, and its history read with the bodies of at least
/// `min_bytes` left in their files, for `literal`.
fn both(
    home: &Path,
    selector: &str,
    min_bytes: usize,
    literal: Option<&str>,
) -> (History, History) {
    let corpus = corpus(home).leaving_bodies_of(min_bytes);
    let found = corpus.resolve(selector).unwrap();
    let whole = History::new(corpus.load(&found, None).unwrap()).unwrap();
    let left = corpus.history(&found, None, literal, None).unwrap();
    (Arc::unwrap_or_clone(left), whole)
}

/// The search's pages (`history search`): the newest matches of `query`, case kept or not.
fn documents_agree(left: &History, whole: &History, query: &str, what: &str) {
    for ignore_case in [false, true] {
        let Some(needle) = Needle::new(query, ignore_case) else {
            continue;
        };
        let args = DocQuery {
            needle: Some(&needle),
            limit: Some(3),
            ..DocQuery::default()
        };
        assert_eq!(
            left.documents(&args),
            whole.documents(&args),
            "{what}: documents of {query:?} (ignore case: {ignore_case})"
        );
    }
}

#[test]
fn every_pi_and_codex_session_answers_alike_with_its_bodies_left_in_its_files() {
    let home = home("agree");
    for selector in [
        format!("pi:{PI_MAIN}"),
        format!("pi:{PI_FORK}"),
        format!("codex:{CODEX_BASE}"),
        format!("codex:{CODEX_FORK}"),
        format!("codex:{CODEX_OTHER}"),
        format!("codex:{CODEX_ZST}"),
    ] {
        let (left, whole) = both(&home, &selector, 0, None);
        let compressed = selector.ends_with(CODEX_ZST);
        // Every body of a plain file is left in it; a compressed file's never are.
        let count = left_out(&left, &whole);
        assert_eq!(
            count == 0,
            compressed,
            "{selector}: {count} bodies left out"
        );
        agree(&left, &whole, &selector);
        // Read for each literal in turn: the decode noted which bodies hold it; a search
        // for another one reads the lines again.
        let drawn = drawn(&whole);
        let step = drawn.len().div_ceil(12).max(1);
        let mut queries: Vec<String> = FIXED.iter().map(|q| (*q).to_owned()).collect();
        queries.extend(drawn.into_iter().step_by(step));
        for (i, query) in queries.iter().enumerate() {
            let (left, _) = both(&home, &selector, 0, Some(query));
            let other = &queries[(i + 1) % queries.len()];
            for q in [query, other] {
                let what = format!("{selector}: read for {query:?}");
                lists_agree(&left, &whole, q, &what);
                documents_agree(&left, &whole, q, &what);
            }
        }
    }
    let _ = fs::remove_dir_all(home);
}

/// Appends a user prompt of `text` to the Pi session file `path`, continuing its last entry.
fn append_prompt(path: &Path, text: &str) {
    let bytes = fs::read_to_string(path).unwrap();
    let last: serde_json::Value = serde_json::from_str(bytes.lines().last().unwrap()).unwrap();
    let entry = serde_json::json!({
        "type": "message",
        "id": "big-prompt",
        "parentId": last["id"],
        "timestamp": "2026-12-02T15:30:00.000Z",
        "message": {"role": "user", "content": text},
    });
    fs::write(path, format!("{bytes}{entry}\n")).unwrap();
}

fn pi_main_file(home: &Path) -> PathBuf {
    let folder = home.join(".pi/agent/sessions/--tmp-xh-pirun-r3-work--");
    folder.join(format!("2026-12-02T15-16-58-039Z_{PI_MAIN}.jsonl"))
}

#[test]
fn a_large_body_is_left_in_its_file_by_default_and_read_back_whole() {
    let home = home("large");
    let big = "a long prompt with \"quotes\", \\ backslashes, é and a zebra-needle\n"
        .repeat(LEFT_IN_FILE_BYTES / 40);
    let path = pi_main_file(&home);
    append_prompt(&path, &big);
    // A large prompt whose literal only an escape in the file spells (`\u00e9`).
    let escaped = format!(
        r#"{{"type":"message","id":"escaped","parentId":"big-prompt","timestamp":"t","message":{{"role":"user","content":"{}caf\u00e9-needle"}}}}"#,
        "filler ".repeat(LEFT_IN_FILE_BYTES / 6)
    );
    let bytes = fs::read_to_string(&path).unwrap();
    fs::write(&path, format!("{bytes}{escaped}\n")).unwrap();
    let selector = format!("pi:{PI_MAIN}");
    let (left, whole) = both(&home, &selector, LEFT_IN_FILE_BYTES, Some("zebra-needle"));
    // Only the two large bodies are left out; they read back whole.
    assert_eq!(left_out(&left, &whole), 2);
    let last = &whole.events()[whole.events().len() - 2];
    assert_eq!(last.body, Body::Text { text: big });
    let read = ReadArgs {
        seq: Some(last.seq),
        ..ReadArgs::default()
    };
    assert_eq!(left.read(&read), whole.read(&read));
    agree(&left, &whole, &selector);
    // The literal the decode noted, others the raw bytes judge (one only behind an escape),
    // and ones they do not.
    for query in [
        "zebra-needle",
        "café-needle",
        "fé-need",
        "backslashes",
        "nowhere-at-all",
        "\"quotes\"",
        "é and a",
    ] {
        lists_agree(&left, &whole, query, &selector);
        documents_agree(&left, &whole, query, &selector);
    }
    let found = whole.list(&notesoup_history_core::ListArgs {
        query: Some("café-needle".into()),
        ..Default::default()
    });
    assert!(
        found.unwrap().shown.len() == 1,
        "the escaped literal is found"
    );
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_kept_pi_or_codex_history_answers_later_questions_until_its_file_changes() {
    let home = home("kept");
    let corpus = corpus(&home).leaving_bodies_of(0);
    let kept = Kept::default();
    for selector in [format!("pi:{PI_MAIN}"), format!("codex:{CODEX_FORK}")] {
        let found = corpus.resolve(&selector).unwrap();
        let whole = History::new(corpus.load(&found, None).unwrap()).unwrap();
        let first = corpus
            .history(&found, None, Some("probe"), Some(&kept))
            .unwrap();
        let reads = kept.reads();
        let later = corpus
            .history(&found, None, Some("colour"), Some(&kept))
            .unwrap();
        assert!(Arc::ptr_eq(&first, &later), "{selector}: read again");
        assert_eq!(kept.reads(), reads);
        for query in ["colour", "probe", "bash", "exec_command"] {
            lists_agree(&later, &whole, query, &selector);
        }
    }
    // The session's file grew: read again.
    let found = corpus.resolve(&format!("pi:{PI_MAIN}")).unwrap();
    let before = corpus.history(&found, None, None, Some(&kept)).unwrap();
    append_prompt(&pi_main_file(&home), "a prompt written since");
    let after = corpus.history(&found, None, None, Some(&kept)).unwrap();
    assert!(!Arc::ptr_eq(&before, &after));
    let whole = History::new(corpus.load(&found, None).unwrap()).unwrap();
    lists_agree(&after, &whole, "written since", "after the append");
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_line_changed_after_the_decode_is_refused_and_a_file_replaced_is_read_as_it_was() {
    let home = home("changed");
    let path = pi_main_file(&home);
    append_prompt(&path, "the prompt that will change under the reader");
    let selector = format!("pi:{PI_MAIN}");
    let (left, whole) = both(&home, &selector, 0, None);
    let seq = whole.events().last().unwrap().seq;
    let read = ReadArgs {
        seq: Some(seq),
        ..ReadArgs::default()
    };
    // Replaced (a new file renamed over it): the handle the decode read still reads the
    // file as it was.
    let original = fs::read_to_string(&path).unwrap();
    let changed = original.replace("will change under", "did change under ");
    assert_eq!(changed.len(), original.len());
    let replacement = path.with_extension("new");
    fs::write(&replacement, &changed).unwrap();
    fs::rename(&replacement, &path).unwrap();
    assert_eq!(left.read(&read), whole.read(&read));
    // Changed in place, the same length: refused, never shown as another text.
    let (left, _) = both(&home, &selector, 0, None);
    fs::write(&path, &original).unwrap();
    match left.read(&read) {
        Err(QueryError::Unreadable { seq: at, reason }) => {
            assert_eq!(at, seq);
            assert!(reason.contains("changed since it was read"), "{reason}");
        }
        other => panic!("a changed line was read: {other:?}"),
    }
    let _ = fs::remove_dir_all(home);
}
