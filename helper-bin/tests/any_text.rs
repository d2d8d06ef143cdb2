//! No panic on any text: every string in every `PROTOCOL.md` request (each value and each
//! object key, one at a time) is replaced by multi-byte and odd strings, and each op must
//! answer (a reply or a refusal), never `internal` (a caught panic). In process, through
//! [`notesoup_helper_bin::run`], so thousands of requests cost a second.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::Path;

use notesoup_app::Context;
use notesoup_helper_bin::run;
use serde_json::{Map, Value};

/// Text from outside that a byte slice cuts inside a character, or that is odd otherwise.
const ODD: [&str; 4] = [
    "日本語x",
    "claude-日本語-20250514",
    "é@ü-v日𝄞",
    "\u{0}\u{FEFF}a\u{301}\u{10FFFF}",
];

/// `(op, request)` for every `json op=` block of `PROTOCOL.md`.
fn requests(doc: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```json ") else {
            continue;
        };
        let mut body = String::new();
        for l in lines.by_ref().take_while(|l| !l.starts_with("```")) {
            body.push_str(l);
            body.push('\n');
        }
        if let Some(op) = info.split_whitespace().find_map(|w| w.strip_prefix("op=")) {
            out.push((op.to_owned(), body));
        }
    }
    out
}

/// Every variant of `value` with one string (a value or a key) replaced by `odd`, or with
/// `odd` appended to it (so a path or an id keeps its shape and gains the odd tail).
fn variants(value: &Value, odd: &str, out: &mut Vec<Value>) {
    let mut put = |v: Value| out.push(v);
    match value {
        Value::String(s) => {
            put(Value::String(odd.to_owned()));
            put(Value::String(format!("{s}{odd}")));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let mut inner = Vec::new();
                variants(item, odd, &mut inner);
                for v in inner {
                    let mut items = items.clone();
                    items[i] = v;
                    put(Value::Array(items));
                }
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let mut inner = Vec::new();
                variants(item, odd, &mut inner);
                for v in inner {
                    let mut map = map.clone();
                    map.insert(key.clone(), v);
                    put(Value::Object(map));
                }
                for renamed in [odd.to_owned(), format!("{key}{odd}")] {
                    let map: Map<String, Value> = map
                        .iter()
                        .map(|(k, v)| {
                            (
                                if k == key { renamed.clone() } else { k.clone() },
                                v.clone(),
                            )
                        })
                        .collect();
                    put(Value::Object(map));
                }
            }
        }
        _ => {}
    }
}

#[test]
fn every_string_of_every_op_answers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("PROTOCOL.md")).unwrap();
    let data = root.join("../app/tests/data");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("any-text");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let ctx = Context::from_vars([
        ("NOTESOUP_HOME", tmp.join("notesoup").to_str().unwrap()),
        ("HOME", tmp.join("home").to_str().unwrap()),
    ]);
    let (mut calls, mut failures) = (0, Vec::new());
    for (op, request) in requests(&doc) {
        let request = request
            .replace("$TMP", tmp.to_str().unwrap())
            .replace("$DATA", data.to_str().unwrap());
        let Ok(request) = serde_json::from_str::<Value>(&request) else {
            continue; // an example of a malformed request
        };
        for odd in ODD {
            let mut all = Vec::new();
            variants(&request, odd, &mut all);
            for variant in all {
                calls += 1;
                let response = run(Some(&op), variant.to_string().as_bytes(), &ctx);
                if response.reply["error"]["code"] == "internal" {
                    failures.push(format!("{op} {variant}"));
                }
            }
        }
    }
    assert!(
        calls > 1000,
        "only {calls} requests: PROTOCOL.md lost its examples?"
    );
    assert!(
        failures.is_empty(),
        "answered `internal`:\n{}",
        failures.join("\n")
    );
}
