#![allow(
    clippy::unreadable_literal,
    reason = "JSON literals are written as the engine writes them (200000, not 200_000)"
)]

use rstest::rstest;
use serde_json::{Value, json};

use notesoup_app::Context;

use crate::run;

fn limits(input: &[u8]) -> crate::Response {
    run(
        Some("limits"),
        input,
        &Context::from_vars([("DISABLE_COMPACT", "1")]),
    )
}

fn limits_json(request: &Value) -> crate::Response {
    limits(request.to_string().as_bytes())
}

#[rstest]
#[case::empty_stdin(b"".as_slice())]
#[case::truncated(br#"{"usage": {"context": "#.as_slice())]
#[case::not_an_object(b"[]".as_slice())]
#[case::usage_string(br#"{"usage": "x"}"#.as_slice())]
#[case::usage_number(br#"{"usage": 1}"#.as_slice())]
#[case::usage_array(br#"{"usage": []}"#.as_slice())]
#[case::usage_bool(br#"{"usage": true}"#.as_slice())]
#[case::settings_string(br#"{"settings": "x"}"#.as_slice())]
#[case::settings_array(br#"{"settings": [1]}"#.as_slice())]
#[case::env_array(br#"{"env": []}"#.as_slice())]
#[case::env_string(br#"{"env": "A=1"}"#.as_slice())]
#[case::env_value_number(br#"{"env": {"DISABLE_COMPACT": 1}}"#.as_slice())]
#[case::env_value_null(br#"{"env": {"DISABLE_COMPACT": null}}"#.as_slice())]
#[case::model_number(br#"{"model": 4}"#.as_slice())]
#[case::model_object(br#"{"model": {}}"#.as_slice())]
#[case::cap_number(br#"{"cap": 100000}"#.as_slice())]
#[case::cap_bool(br#"{"cap": true}"#.as_slice())]
#[case::unknown_field(br#"{"usage": null, "window": 5}"#.as_slice())]
fn malformed_requests_are_bad_request(#[case] input: &[u8]) {
    let out = limits(input);
    assert_eq!(out.exit, 2, "{}", out.reply);
    assert_eq!(out.reply["error"]["code"], "bad_request", "{}", out.reply);
}

#[test]
fn the_process_environment_is_not_read() {
    // The context has DISABLE_COMPACT=1; only the request's env counts.
    let out = limits(b"{}");
    assert_eq!(out.reply["warnings_enabled"], true, "{}", out.reply);
}

#[test]
fn a_full_reply() {
    let request = json!({
        "usage": {"context": {"window": 200000, "tokens": 5000,
            "breakdown": {"autoCompactThreshold": 167000, "isAutoCompactEnabled": true}}},
        "settings": {"notesoup": {"resetMarginTokens": 4096}},
        "env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50", "UNRELATED": "x"},
        "model": "claude-sonnet-4-6",
        "cap": "150k"
    });
    let out = limits_json(&request);
    assert_eq!(out.exit, 0, "{}", out.reply);
    let mut reply = out.reply.clone();
    let key = reply.as_object_mut().unwrap().remove("key").unwrap();
    assert!(key.as_str().unwrap().starts_with("t1-"));
    assert_eq!(
        reply,
        json!({"ok": true, "unit": "tokens", "source": "breakdown", "native": 65000,
            "hard": 60904, "warning": 44520, "auto_clear": true, "warnings_enabled": true,
            "explicit_reset": true, "cap": 150000})
    );
}

#[rstest]
#[case::bad_cap(json!({"cap": "lots"}), "bad_cap")]
#[case::cap_too_small(json!({"cap": "50k"}), "bad_cap")]
#[case::no_room(json!({"settings": {"notesoup": {"resetMarginTokens": 200000}}}), "unresolvable")]
#[case::tiny_pct(json!({"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "0.5"}}), "unresolvable")]
fn refusals_are_understood_requests(#[case] request: Value, #[case] code: &str) {
    let out = limits_json(&request);
    assert_eq!(out.exit, 0, "{}", out.reply);
    assert_eq!(out.reply["ok"], false);
    assert_eq!(out.reply["error"]["code"], code);
    let message = out.reply["error"]["message"].as_str().unwrap();
    assert!(!message.contains('\n'), "{message}");
}

#[test]
fn cap_too_small_says_the_smallest_accepted() {
    // In percent mode the warning must be at least 1 % of 200K, so the floor is higher.
    let out = limits_json(&json!({"cap": "50k"}));
    let message = out.reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("smallest cap accepted is 59,576 tokens"),
        "{message}"
    );
    let out = limits_json(&json!({"usage": {"context": {"window": 200000}}, "cap": "50k"}));
    let message = out.reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("smallest cap accepted is 57,577 tokens"),
        "{message}"
    );
}

/// Every combination of odd values in every field answers with a documented reply, never a
/// panic (`internal`).
#[test]
fn odd_values_everywhere_get_documented_replies() {
    let odd = [
        json!(null),
        json!(0),
        json!(-1),
        json!(1.5e300),
        json!("x"),
        json!([]),
        json!({}),
        json!(true),
    ];
    let usages: Vec<Value> = odd
        .iter()
        .flat_map(|v| {
            [
                json!({"context": v}),
                json!({"context": {"window": v, "breakdown": {"autoCompactThreshold": v}}}),
                json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": v,
                    "isAutoCompactEnabled": v, "rawMaxTokens": v}}}),
            ]
        })
        .chain([json!(null)])
        .collect();
    let settings: Vec<Value> = odd
        .iter()
        .flat_map(|v| {
            [
                json!({"autoCompactWindow": v, "autoCompactEnabled": v}),
                json!({"notesoup": v, "modelSettings": {"m": {"autoCompactWindow": v}}}),
                json!({"notesoup": {"resetMarginTokens": v, "warningRunwayTokens": v}}),
            ]
        })
        .collect();
    let envs = [
        "",
        " ",
        "abc",
        "1",
        "0.5",
        "-1",
        "1e400",
        "999999999999999999999",
        "2m",
        "50%",
    ];
    let caps = [
        None,
        Some("100k"),
        Some("0"),
        Some("1e9"),
        Some("99999999999999m"),
    ];
    let mut n = 0;
    for usage in &usages {
        for setting in &settings {
            for (i, value) in envs.iter().enumerate() {
                let env = json!({
                    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": value,
                    "CLAUDE_CODE_AUTO_COMPACT_WINDOW": value,
                    "CLAUDE_CODE_MAX_OUTPUT_TOKENS": value,
                    "DISABLE_AUTO_COMPACT": if i % 3 == 0 { *value } else { "0" },
                });
                let request = json!({"usage": usage, "settings": setting, "env": env,
                    "model": "m", "cap": caps[i % caps.len()]});
                let out = limits_json(&request);
                n += 1;
                let ok = out.reply["ok"].as_bool().unwrap();
                let code = out.reply["error"]["code"].as_str().unwrap_or("");
                assert!(
                    out.exit == 0 && (ok || ["bad_cap", "unresolvable"].contains(&code)),
                    "{request} -> {}",
                    out.reply
                );
                if ok {
                    let r = &out.reply;
                    let (native, hard, warning) = (
                        r["native"].as_u64().unwrap(),
                        r["hard"].as_u64().unwrap(),
                        r["warning"].as_u64().unwrap(),
                    );
                    assert!(
                        1 <= warning && warning <= hard && hard <= native,
                        "{request} -> {r}"
                    );
                }
            }
        }
    }
    assert!(n > 5000, "{n}");
}

/// The real engine's requests (recorded from Claude Code 2.1.319, see
/// `thresholds/tests/data/engine/`) through the op: the native point sits where the engine
/// auto-compacted (above the largest first reply that did not trigger it, at or below the
/// smallest that did), and a point below the margins is `unresolvable`.
#[test]
fn real_engine_requests() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../thresholds/tests/data/engine");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let out = limits_json(&fixture["limits_request"]);
        assert_eq!(out.exit, 0, "{}: {}", path.display(), out.reply);
        let trials = fixture["engine"]["trials"].as_array().unwrap();
        let tokens = |t: &&Value| t["first_reply_input_tokens"].as_u64().unwrap();
        let compacted = |t: &&Value| t["auto_compacted_next_turn"] == true;
        let lo = trials
            .iter()
            .filter(|t| !compacted(t))
            .map(|t| tokens(&t))
            .max();
        let hi = trials.iter().filter(compacted).map(|t| tokens(&t)).min();
        match (&out.reply["native"], hi) {
            (Value::Number(native), Some(hi)) => {
                let native = native.as_u64().unwrap();
                assert!(
                    lo.is_none_or(|lo| native > lo) && native <= hi,
                    "{}: {native} vs ({lo:?}, {hi}]",
                    path.display()
                );
            }
            (Value::Number(_), None) => {} // never compacted: off, or not enforced
            (_, Some(hi)) => {
                assert_eq!(out.reply["error"]["code"], "unresolvable", "{}", out.reply);
                assert!(
                    hi < 24_576,
                    "{}: engine point {hi} leaves room",
                    path.display()
                );
            }
            (_, None) => panic!("{}: {}", path.display(), out.reply),
        }
        n += 1;
    }
    assert!(n >= 25, "only {n} engine fixtures");
}
