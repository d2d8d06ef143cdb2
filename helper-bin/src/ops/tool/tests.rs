//! Op `tool`: the model's arguments are held to the schema (a model-supplied transcript or
//! session folders never reaches the history code), the binding comes from `bound` alone,
//! and `empty_brain` steps the session's flow kept on disk.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use notesoup_app::Context;

use crate::run;

const TRANSCRIPT: &str = "history/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl";
const HEAD: &str = "761ce4dd-d0ac-4f59-b058-a811b67e30c1";
const SESSION: &str = "6e9d2c1a-0000-4000-8000-0000000000aa";

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/tests/data")
}

struct Home(PathBuf);

impl Home {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("notesoup-op-tool-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("project")).unwrap();
        std::fs::create_dir_all(dir.join("home")).unwrap();
        Self(dir)
    }

    fn ctx(&self) -> Context {
        Context::from_vars([
            ("NOTESOUP_HOME", self.0.join("notesoup").to_str().unwrap()),
            ("HOME", self.0.join("home").to_str().unwrap()),
        ])
    }

    fn cwd(&self) -> String {
        self.0.join("project").to_str().unwrap().to_owned()
    }

    /// What the flow kept for the session says.
    fn kept(&self) -> notesoup_reset_flow::Snapshot {
        crate::tests::kept_flow(&self.0.join("notesoup"), SESSION)
    }

    fn record(&self) -> PathBuf {
        self.0
            .join(format!("notesoup/windows/claude/{SESSION}.json"))
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs op `tool`; the exit status and the reply.
fn tool(home: &Home, request: &Value) -> (u8, Value) {
    let out = run(Some("tool"), request.to_string().as_bytes(), &home.ctx());
    (out.exit, out.reply)
}

/// The one `tool_result` of a reply: its text and whether it is an error.
fn result(reply: &Value) -> (String, bool) {
    let effects = reply["effects"].as_array().unwrap();
    let fx = effects
        .iter()
        .find(|fx| fx["type"] == "tool_result")
        .unwrap();
    (
        fx["text"].as_str().unwrap().to_owned(),
        fx["is_error"].as_bool().unwrap(),
    )
}

fn session() -> Value {
    json!({"harness": "claude", "id": SESSION, "process": "p1"})
}

#[test]
fn a_model_supplied_transcript_or_roots_is_refused_before_any_history_is_read() {
    let home = Home::new("refused");
    let elsewhere = data().join(TRANSCRIPT);
    let roots = json!({"claude": data().join("xharness/claude-projects")});
    for (name, args, field) in [
        (
            "mcp__notesoup__history_list",
            json!({"query": "x", "transcript_path": elsewhere, "head": HEAD}),
            "head",
        ),
        (
            "history_read",
            json!({"seq": 1, "transcript_path": elsewhere}),
            "transcript_path",
        ),
        ("history_list", json!({"roots": roots}), "roots"),
        (
            "mcp__notesoup__history_sessions",
            json!({"limit": 5, "roots": roots}),
            "roots",
        ),
        ("history_list", json!({"agent_id": "x"}), "agent_id"),
    ] {
        let (exit, reply) = tool(
            &home,
            &json!({"name": name, "args": args, "bound": {"cwd": home.cwd()}}),
        );
        assert_eq!((exit, &reply["ok"]), (0, &json!(true)), "{reply}");
        let (text, is_error) = result(&reply);
        assert!(is_error, "{name}: {text}");
        assert!(
            text.starts_with(&format!(
                "notesoup bad_request: `{}` takes no argument `{field}`",
                name.trim_start_matches("mcp__notesoup__")
            )),
            "{name}: {text}"
        );
    }
}

#[test]
fn the_binding_comes_from_bound_alone() {
    let home = Home::new("bound");
    let bound =
        json!({"cwd": home.cwd(), "transcript_path": data().join(TRANSCRIPT), "head": HEAD});
    let (exit, reply) = tool(
        &home,
        &json!({"name": "history_list", "args": {"limit": 1}, "bound": bound}),
    );
    assert_eq!(exit, 0, "{reply}");
    let (text, is_error) = result(&reply);
    assert!(!is_error, "{text}");
    assert!(
        text.contains("#62 assistant: Answer in the resumed session."),
        "{text}"
    );
    // A subagent's history call is the helper's to refuse, from the bound id.
    let mut sub = bound.clone();
    sub["agent_id"] = json!("a3db8ddc3ca0f7195");
    let (_, reply) = tool(
        &home,
        &json!({"name": "history_list", "args": {}, "bound": sub}),
    );
    assert!(
        result(&reply).0.starts_with("notesoup subagent: "),
        "{reply}"
    );
    // So is its listing of sessions, which would show the main session's first prompt.
    let (_, reply) = tool(
        &home,
        &json!({"name": "history_sessions", "args": {}, "bound": sub}),
    );
    let (text, is_error) = result(&reply);
    assert!(
        is_error && text.starts_with("notesoup subagent: `history_sessions`"),
        "{reply}"
    );
    // The shell cannot smuggle roots in through `bound` either: a malformed request.
    let mut smuggled = bound;
    smuggled["roots"] = json!({"claude": "/"});
    let (exit, reply) = tool(
        &home,
        &json!({"name": "history_sessions", "args": {}, "bound": smuggled}),
    );
    assert_eq!(
        (exit, &reply["error"]["code"]),
        (2, &json!("bad_request")),
        "{reply}"
    );
}

#[test]
fn notes_tools_use_the_bound_folder() {
    let home = Home::new("notes");
    let call = |name: &str, args: Value| {
        tool(
            &home,
            &json!({"name": name, "args": args, "bound": {"cwd": home.cwd()}}),
        )
    };
    let (_, reply) = call("notes_write", json!({"name": "plan", "text": "ship it"}));
    assert!(!result(&reply).1, "{reply}");
    let (_, reply) = call("mcp__notesoup__notes_read", json!({"name": "plan"}));
    let (text, is_error) = result(&reply);
    assert!(!is_error && text.contains("ship it"), "{text}");
    let (_, reply) = call("notes_frobnicate", json!({}));
    assert!(
        result(&reply).0.starts_with("notesoup unknown_tool: "),
        "{reply}"
    );
}

#[test]
fn empty_brain_steps_the_flow_kept_on_disk() {
    let home = Home::new("empty");
    let request = |args: Value, bound: Value| json!({"name": "mcp__notesoup__empty_brain", "args": args, "bound": bound, "session": session()});
    // Arguments outside the schema are refused and nothing is recorded.
    let (exit, reply) = tool(
        &home,
        &request(json!({"terminate": "yes"}), json!({"cwd": home.cwd()})),
    );
    assert_eq!(exit, 0);
    let (text, is_error) = result(&reply);
    assert!(
        is_error && text.contains("`terminate`: must be a boolean"),
        "{text}"
    );
    assert!(!home.record().exists());
    // A subagent's call is the flow's to refuse.
    let (_, reply) = tool(
        &home,
        &request(json!({}), json!({"cwd": home.cwd(), "agent_id": "a1"})),
    );
    assert!(result(&reply).1, "{reply}");
    // The main agent's call is answered and recorded: the request is pending, on disk.
    let (exit, reply) = tool(
        &home,
        &request(
            json!({"last_word": "finish the parser"}),
            json!({"cwd": home.cwd()}),
        ),
    );
    assert_eq!(exit, 0, "{reply}");
    let (text, is_error) = result(&reply);
    assert!(!is_error, "{text}");
    assert!(home.kept().pending, "{reply}");
    let record = std::fs::read_to_string(home.record()).unwrap();
    assert!(record.contains("finish the parser"), "{record}");
    // The same flow answers the next event stepped into it.
    let event = serde_json::from_value(json!({"type": "empty_brain", "agent": "main", "args": {}}))
        .unwrap();
    crate::tests::kept_step(&home.0.join("notesoup"), SESSION, "p1", event);
    assert!(home.kept().pending);
}

#[test]
fn empty_brain_without_a_session_is_a_malformed_request() {
    let home = Home::new("nosession");
    let (exit, reply) = tool(
        &home,
        &json!({"name": "empty_brain", "args": {}, "bound": {"cwd": home.cwd()}}),
    );
    assert_eq!(
        (exit, &reply["error"]["code"]),
        (2, &json!("bad_request")),
        "{reply}"
    );
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("needs `session`"),
        "{reply}"
    );
}

/// The budget facts of a context past the warning point (as op `hook` takes them).
fn past_the_warning_point() -> Value {
    json!({
        "usage": {"context": {"window": 200_000, "breakdown": {"autoCompactThreshold": 167_000, "isAutoCompactEnabled": true}}},
        "context": {"tokens": 150_000, "window": 200_000},
        "settings": {}, "env": {}, "model": "claude-sonnet-4-6",
    })
}

#[test]
fn the_budget_warning_rides_on_a_main_result_once_per_window() {
    let home = Home::new("warning");
    let call = |args: Value, bound: Value| {
        tool(
            &home,
            &json!({"name": "notes_write", "args": args, "bound": bound, "session": session(), "budget": past_the_warning_point()}),
        )
    };
    let main = json!({"cwd": home.cwd()});
    // A subagent's result and a refused call carry no warning and leave it due.
    let (_, reply) = call(
        json!({"name": "a", "text": "x"}),
        json!({"cwd": home.cwd(), "agent_id": "a1"}),
    );
    assert_eq!(reply["effects"].as_array().unwrap().len(), 1, "{reply}");
    let (_, reply) = call(json!({"name": "Bad Name", "text": "x"}), main.clone());
    assert!(result(&reply).1);
    assert_eq!(reply["effects"].as_array().unwrap().len(), 1, "{reply}");
    // The first main result past the point: the answer, then the warning with its text.
    let (exit, reply) = call(json!({"name": "plan", "text": "x"}), main.clone());
    assert_eq!(exit, 0, "{reply}");
    let effects = reply["effects"].as_array().unwrap();
    assert_eq!(effects.len(), 2, "{reply}");
    assert_eq!(effects[0]["type"], "tool_result");
    assert_eq!(effects[1]["type"], "warn");
    assert!(
        effects[1]["text"].as_str().unwrap().contains("empty_brain"),
        "{reply}"
    );
    assert!(home.kept().warned, "{reply}");
    // Delivered with that result: the next one carries none.
    let (_, reply) = call(json!({"name": "plan", "text": "y"}), main);
    assert_eq!(reply["effects"].as_array().unwrap().len(), 1, "{reply}");
    assert!(!result(&reply).1, "{reply}");
}
