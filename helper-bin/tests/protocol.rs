//! Runs every example in `PROTOCOL.md` through the real `notesoup-helper` binary.
//!
//! An example is a fenced block whose info string is `json op=<op>` (the request), followed
//! by a block `json reply` (optionally `exit=<n>`, default 0). The documented reply must be
//! a *subset* of the real one: every key shown must be present with the same value; the
//! string `"..."` matches any value. In requests and replies, `$TMP` is a scratch folder
//! shared by the examples of one `##`/`###` section (so a write can be followed by a read)
//! and `$DATA` is `app/tests/data`. The helper runs with a cleared environment plus
//! `NOTESOUP_HOME=$TMP/notesoup` and `HOME=$TMP/home`.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use notesoup_testkit::run_piped;
use serde_json::Value;

struct Example {
    section: String,
    line: usize,
    op: String,
    request: String,
    reply: String,
    exit: i32,
}

fn examples(doc: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut pending: Option<(usize, String, String)> = None;
    let mut lines = doc.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if line.starts_with("## ") || line.starts_with("### ") {
            line.trim_start_matches('#').trim().clone_into(&mut section);
            continue;
        }
        let Some(info) = line.strip_prefix("```json ") else {
            continue;
        };
        let mut body = String::new();
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        let words: Vec<&str> = info.split_whitespace().collect();
        if let Some(op) = words.iter().find_map(|w| w.strip_prefix("op=")) {
            assert!(
                pending.is_none(),
                "PROTOCOL.md:{}: request without reply",
                n + 1
            );
            pending = Some((n + 1, op.to_owned(), body));
        } else if words.first() == Some(&"reply") {
            let (line, op, request) = pending
                .take()
                .unwrap_or_else(|| panic!("PROTOCOL.md:{}: reply without request", n + 1));
            let exit = words
                .iter()
                .find_map(|w| w.strip_prefix("exit="))
                .map_or(0, |e| e.parse().expect("exit=<n>"));
            out.push(Example {
                section: section.clone(),
                line,
                op,
                request,
                reply: body,
                exit,
            });
        }
    }
    assert!(
        pending.is_none(),
        "PROTOCOL.md ends with a request without reply"
    );
    out
}

/// `expected` ⊆ `actual`, with `"..."` as a wildcard.
fn subset(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::String(s), _) if s == "..." => Ok(()),
        (Value::Object(e), Value::Object(a)) => e.iter().try_for_each(|(k, v)| {
            let sub = format!("{path}.{k}");
            a.get(k)
                .ok_or_else(|| format!("{sub} missing"))
                .and_then(|av| subset(v, av, &sub))
        }),
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => e
            .iter()
            .zip(a)
            .enumerate()
            .try_for_each(|(i, (ev, av))| subset(ev, av, &format!("{path}[{i}]"))),
        _ if expected == actual => Ok(()),
        _ => Err(format!("{path}: documented {expected}, got {actual}")),
    }
}

fn scratch(section: &str) -> PathBuf {
    let slug: String = section
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("protocol")
        .join(slug);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_protocol_example_holds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("PROTOCOL.md")).unwrap();
    let data = root.join("../app/tests/data");
    let all = examples(&doc);
    assert!(!all.is_empty(), "PROTOCOL.md has no examples");
    let mut failures = Vec::new();
    let mut current: Option<(String, PathBuf)> = None;
    for ex in &all {
        let tmp = match &current {
            Some((s, dir)) if *s == ex.section => dir.clone(),
            _ => {
                let dir = scratch(&ex.section);
                current = Some((ex.section.clone(), dir.clone()));
                dir
            }
        };
        let subst = |s: &str| {
            s.replace("$TMP", tmp.to_str().unwrap())
                .replace("$DATA", data.to_str().unwrap())
        };
        let out = run_piped(
            Command::new(env!("CARGO_BIN_EXE_notesoup-helper"))
                .arg(&ex.op)
                .env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .env("NOTESOUP_HOME", tmp.join("notesoup"))
                .env("HOME", tmp.join("home"))
                .current_dir(&tmp),
            subst(&ex.request).as_bytes(),
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let where_ = format!("PROTOCOL.md:{} ({})", ex.line, ex.op);
        if stdout.lines().count() != 1 {
            failures.push(format!("{where_}: stdout is not one line: {stdout:?}"));
            continue;
        }
        let actual: Value = serde_json::from_str(&stdout).unwrap();
        let expected: Value = serde_json::from_str(&subst(&ex.reply))
            .unwrap_or_else(|e| panic!("{where_}: documented reply is not JSON: {e}"));
        if out.status.code() != Some(ex.exit) {
            failures.push(format!(
                "{where_}: exit {:?}, documented {}; reply {actual}",
                out.status.code(),
                ex.exit
            ));
        }
        if let Err(diff) = subset(&expected, &actual, "$") {
            failures.push(format!("{where_}: {diff}; reply {actual}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{} PROTOCOL.md examples hold", all.len());
}
