//! A history read through a structure-only index (bodies decoded only where an answer
//! shows them or a search may find its query) answers exactly as the whole transcript
//! does: every list page (many queries, both orders, continued by cursor) and every read,
//! on the real fixtures, the benchmarks' two generators and a transcript made to hold
//! what hides a match from the raw bytes (`\u` and `\/` escapes, matches running from a
//! tool's name into its input, matches in the fixed parts of a call's document, raw bytes
//! of the query outside any text or right after an escaping backslash), cold (every line
//! skimmed, or all but the rows whose texts hold the query searched for), warm, and again
//! after appends the index does not cover. Pages of one event make every later match a
//! count, which the index answers from the raw bytes where a body's span surely holds it.

#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::io::Write as _;
use std::path::{Path, PathBuf};

mod agreement;

use agreement::{FIXED, agree, drawn, left_out, lists_agree};
use notesoup_history_claude::{Head, Options, decode};
use notesoup_history_core::{History, ListArgs, ReadArgs};
use notesoup_history_store::{Cache, read_history};
use serde_json::json;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("notesoup-lazy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cache(dir: &Path) -> Cache {
    let mut cache = Cache::new(dir.join("cache"));
    cache.min_bytes = 0;
    cache
}

/// `path` read through the index cache of `dir`, with no query.
fn cached(dir: &Path, path: &Path) -> History {
    read_history(
        path,
        &Options::default(),
        &Head::Leaf,
        Some(&cache(dir)),
        None,
    )
    .unwrap()
}

fn fresh(path: &Path) -> Option<History> {
    let bytes = std::fs::read(path).unwrap();
    let t = decode(&bytes, &Options::default(), &Head::Leaf).ok()?;
    History::new(t).ok()
}

/// A history read for each query in turn (the lines this read checks that may hold it kept
/// whole, the others skimmed, through `cache` when given) lists that query, and another
/// one, as `whole` does.
fn agree_per_query(path: &Path, cache: Option<&Cache>, whole: &History, what: &str) {
    // The fixed queries and at most 12 drawn ones (each is a whole read of the file).
    let drawn = drawn(whole);
    let step = drawn.len().div_ceil(12).max(1);
    let mut queries: Vec<String> = FIXED.iter().map(|q| (*q).to_owned()).collect();
    queries.extend(drawn.into_iter().step_by(step));
    let mut skimmed = 0;
    for (i, query) in queries.iter().enumerate() {
        let lazy =
            read_history(path, &Options::default(), &Head::Leaf, cache, Some(query)).unwrap();
        skimmed += left_out(&lazy, whole);
        let other = &queries[(i + 1) % queries.len()];
        for q in [query, other] {
            lists_agree(&lazy, whole, q, &format!("{what}: read for {query:?}"));
        }
    }
    assert!(skimmed > 0, "{what}: no read for a query skimmed a line");
}

/// Reads `path` cold (building the index), then warm, checks both really left bodies out,
/// and holds them to the whole transcript's answers; and reads it cold for each query.
fn check(dir: &Path, path: &Path, what: &str) {
    let Some(whole) = fresh(path) else { return };
    agree_per_query(path, None, &whole, &format!("{what} cold"));
    let cache = cache(dir);
    // Cold, no query: every line skimmed (and the index written).
    let cold = read_history(path, &Options::default(), &Head::Leaf, Some(&cache), None).unwrap();
    assert!(
        left_out(&cold, &whole) > 0,
        "{what}: the cold read decoded every body"
    );
    agree(&cold, &whole, &format!("{what} cold"));
    let warm = read_history(path, &Options::default(), &Head::Leaf, Some(&cache), None).unwrap();
    assert!(
        left_out(&warm, &whole) > 0,
        "{what}: the warm read decoded every body"
    );
    agree(&warm, &whole, &format!("{what} warm"));
    // Warm, a read per query: the covered lines searched for it (prescan or reads).
    agree_per_query(path, Some(&cache), &whole, &format!("{what} warm"));
}

fn append(path: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

#[test]
fn real_fixtures_answer_alike_through_the_structure_only_index() {
    let dir = scratch("real");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["../history-claude/tests/data", "../app/tests/data/history"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let fixture = entry.unwrap().path();
            if fixture.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let name = fixture.file_name().unwrap().to_str().unwrap().to_owned();
            let path = dir.join(&name);
            std::fs::copy(&fixture, &path).unwrap();
            check(&dir, &path, &name);
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_benchmark_generators_answer_alike_and_after_appends() {
    let dir = scratch("generated");
    for (name, text) in [
        ("dense", notesoup_benches::generate(1200, 7)),
        (
            "sparse",
            notesoup_benches::generate_bytes_sparse(300_000, 7),
        ),
    ] {
        let path = dir.join(format!("{name}.jsonl"));
        // The index covers the first two thirds; the rest is appended after it.
        let cut = text[..text.len() * 2 / 3].rfind('\n').unwrap() + 1;
        std::fs::write(&path, &text[..cut]).unwrap();
        check(&dir, &path, name);
        append(&path, &text.as_bytes()[cut..]);
        let whole = fresh(&path).unwrap();
        let mixed = cached(&dir, &path);
        agree(&mixed, &whole, &format!("{name} appended"));
        // The appended lines checked for each query in turn (the index is not rewritten
        // for a lag this small, so every read checks them again).
        agree_per_query(
            &path,
            Some(&cache(&dir)),
            &whole,
            &format!("{name} appended"),
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A transcript whose texts hide matches from the raw bytes: `é` written `\u00e9`, `/`
/// written `\/`, an ANSI escape as `\u001b`, multi-block texts, calls whose documents a
/// query can cross from name into input, pending calls, results of unknown calls, errors.
fn tricky() -> String {
    let mut lines = Vec::new();
    let mut parent: Option<String> = None;
    for i in 0..120 {
        let uuid = format!("u{i}");
        let mut row = json!({"uuid": uuid, "parentUuid": parent, "isSidechain": false,
                             "sessionId": "s1", "timestamp": format!("2026-12-03T10:{:02}:00Z", i % 60)});
        match i % 6 {
            0 => {
                row["type"] = json!("user");
                row["message"] = json!({"role": "user", "content": format!("café {i} at a/b/c \u{1b}[31mred\u{1b}[0m ✓")});
            }
            1 if i % 4 == 1 => {
                // One text block (its line holds it whole), with the query's bytes
                // outside it (thinking, another field) and after escaping backslashes.
                row["type"] = json!("assistant");
                row["message"] = json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "zebra-needle nnext in thinking", "signature": "s"},
                {"type": "text", "text": if i % 24 == 1 {
                    format!("real nnext in thinking, C:\\next {i} zebra-needle")
                } else {
                    format!("line\nnext {i} say \"n\" zebra-needle")
                }}]});
                row["toolUseResult"] = json!({"stdout": "zebra-needle nnext"});
            }
            1 => {
                row["type"] = json!("assistant");
                row["message"] = json!({"role": "assistant", "content": [
                    {"type": "text", "text": format!("first block {i}")},
                    {"type": "text", "text": "second block"},
                    {"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": format!("ls /tmp/{i} \"q\"")}},
                    {"type": "tool_use", "id": format!("p{i}"), "name": "Read", "input": {"file_path": "/etc/x"}}]});
            }
            2 => {
                row["type"] = json!("user");
                row["message"] = json!({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("t{}", i - 1), "is_error": i % 4 == 0,
                     "content": [{"type": "text", "text": format!("out é {i}")}, {"type": "text", "text": "tail/x"}]},
                    {"type": "tool_result", "tool_use_id": format!("nobody{i}"), "content": "orphan é"}]});
            }
            3 => {
                row["type"] = json!("assistant");
                row["message"] = json!({"role": "assistant", "content": [{"type": "tool_use", "id": format!("w{i}"), "name": "Write", "input": {"content": "é/é"}}]});
            }
            4 => {
                row["type"] = json!("attachment");
                row["attachment"] = json!({"type": "date"});
                row["rendered"] = json!([{"content": format!("today é {i}")}, {"content": [{"type": "text", "text": "more/é"}]}]);
            }
            _ => {
                row["type"] = json!("system");
                row["subtype"] = json!("informational");
                row["content"] = json!(format!(
                    "notice {i} http://x/y say \"hi {i}\" in C:\\dir\\{i}\tcol"
                ));
            }
        }
        let mut line = row.to_string();
        if matches!(i % 12, 0 | 2 | 4) {
            // As another writer might escape them (not every result: a call whose result
            // line is a candidate is decoded whatever its own line holds).
            line = line.replace('é', "\\u00e9").replace('/', "\\/");
        }
        lines.push(line);
        parent = Some(uuid);
    }
    lines.join("\n") + "\n"
}

#[test]
fn escapes_never_hide_a_match_and_marks_never_make_one() {
    let dir = scratch("tricky");
    let path = dir.join("s1.jsonl");
    let text = tricky();
    std::fs::write(&path, &text).unwrap();
    check(&dir, &path, "tricky");
    // These queries find events only through a `\u` or `\/` escape, across a call's name
    // and input, or through the short escapes (`\"`, `\\`, `\t`) the line writes them
    // with; the marks of a document (`--- result #N:`, `--- pending: …`, `(result of an
    // unknown call)`) hold the last three, which no search matches, lazy or whole.
    let whole = fresh(&path).unwrap();
    let lazy = cached(&dir, &path);
    for (query, found) in [
        ("é 6", true),
        ("at a/b/c", true),
        ("Bash {", true),
        ("sh {\"command", true),
        ("say \"hi 5\"", true),
        ("C:\\dir\\5", true),
        ("5\tcol", true),
        ("result #", false),
        ("--- pending", false),
        ("unknown call", false),
    ] {
        let args = ListArgs {
            query: Some(query.to_owned()),
            limit: Some(500),
            ..ListArgs::default()
        };
        let answer = whole.list(&args).unwrap();
        assert_eq!(
            answer.matched > 0,
            found,
            "{query:?} matches in the whole transcript: {}",
            answer.matched
        );
        assert_eq!(lazy.list(&args).unwrap(), answer, "{query:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A full page counts the rest of the matches from the raw bytes where a body's span surely
/// holds the query, without reading those rows again: rows damaged after the index was
/// read (outside their bodies: a read of one is refused) still count, on the page that
/// shows only the newest match, and the answer is the one the undamaged transcript gives.
#[test]
fn a_full_page_counts_sure_matches_without_decoding_them() {
    let dir = scratch("surely");
    let path = dir.join("s1.jsonl");
    let mut lines = Vec::new();
    let mut parent: Option<String> = None;
    for i in 0..40 {
        let uuid = format!("u{i}");
        let mut row = json!({"uuid": uuid, "parentUuid": parent, "isSidechain": false,
                             "sessionId": "s1", "timestamp": "2026-12-03T10:00:00Z"});
        if i % 2 == 0 {
            row["type"] = json!("user");
            row["message"] =
                json!({"role": "user", "content": format!("say \"zebra-needle\" {i}\nagain")});
        } else {
            row["type"] = json!("assistant");
            row["message"] = json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": format!("echo zebra-needle {i}")}}]});
        }
        lines.push(row.to_string());
        parent = Some(uuid);
    }
    let text = lines.join("\n") + "\n";
    std::fs::write(&path, &text).unwrap();
    let whole = fresh(&path).unwrap();
    let cache = cache(&dir);
    read_history(&path, &Options::default(), &Head::Leaf, Some(&cache), None).unwrap();
    // One warm read per query, each handed its query (what a list call does).
    let queries = ["zebra-needle", "echo zebra", "needle 3"];
    let lazies: Vec<History> = queries
        .iter()
        .map(|q| {
            read_history(
                &path,
                &Options::default(),
                &Head::Leaf,
                Some(&cache),
                Some(q),
            )
            .unwrap()
        })
        .collect();
    // Every line but the newest one no longer parses (same length, same bodies).
    let last = text[..text.len() - 1].rfind('\n').unwrap();
    let damaged =
        text[..last].replace("\"isSidechain\":false", "\"isSidechain\":fals3") + &text[last..];
    assert_eq!(damaged.len(), text.len());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .write_all(damaged.as_bytes())
        .unwrap();
    let first = ReadArgs {
        seq: Some(1),
        ..ReadArgs::default()
    };
    assert!(
        lazies[0].read(&first).is_err(),
        "a damaged row is refused when read"
    );
    for (query, lazy) in queries.into_iter().zip(&lazies) {
        let args = ListArgs {
            query: Some(query.to_owned()),
            limit: Some(1),
            ..ListArgs::default()
        };
        let answer = whole.list(&args).unwrap();
        assert!(answer.matched > 1, "{query:?}");
        assert_eq!(lazy.list(&args).unwrap(), answer, "{query:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A history over more bytes than one search thread takes (its lines searched in parts, one
/// thread each) lists every query, read for none or for another, as the whole transcript
/// does.
#[test]
fn a_search_split_over_threads_answers_alike() {
    let dir = scratch("split");
    let path = dir.join("dense.jsonl");
    std::fs::write(&path, notesoup_benches::generate_bytes(2_400_000, 11)).unwrap();
    let whole = fresh(&path).unwrap();
    let lazy = cached(&dir, &path);
    assert!(left_out(&lazy, &whole) > 0);
    let drawn = drawn(&whole);
    let step = drawn.len().div_ceil(8).max(1);
    let mut queries: Vec<String> = FIXED.iter().map(|q| (*q).to_owned()).collect();
    queries.extend(drawn.into_iter().step_by(step));
    for query in &queries {
        lists_agree(&lazy, &whole, query, "split");
    }
    let _ = std::fs::remove_dir_all(dir);
}
