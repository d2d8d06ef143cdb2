//! Locating offline sessions through `CLAUDE_CONFIG_DIR` or `~/.claude`, and the live head
//! binding when the explicit session is the current one.

use std::path::{Path, PathBuf};

use serde_json::json;

use notesoup_app::Context;

use crate::run;

const SID: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../app/tests/data/history/{SID}.jsonl"))
}

/// A scratch config dir holding the fixture as `projects/<slug>/<SID>.jsonl`.
fn config(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("notesoup-history-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let project = dir.join("projects/-tmp-some-project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(fixture(), project.join(format!("{SID}.jsonl"))).unwrap();
    dir
}

fn state(request: &serde_json::Value, ctx: &Context) -> serde_json::Value {
    run(Some("history_state"), request.to_string().as_bytes(), ctx).reply
}

#[test]
fn an_explicit_session_is_read_from_claude_config_dir_and_ends_at_its_last_leaf() {
    let dir = config("cfg");
    let ctx = Context::from_vars([("CLAUDE_CONFIG_DIR", dir.to_str().unwrap())]);
    let reply = state(&json!({"session": format!("claude:{SID}")}), &ctx);
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(reply["window"], format!("claude:{SID}:2"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn without_claude_config_dir_the_default_is_home_dot_claude() {
    let home = std::env::temp_dir().join(format!("notesoup-history-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let dir = config("home-cfg");
    std::fs::rename(&dir, home.join(".claude")).unwrap();
    let ctx = Context::from_vars([("HOME", home.to_str().unwrap())]);
    let reply = run(
        Some("history_list"),
        json!({"session": format!("claude:{SID}"), "query": "RESUMED-PROMPT"})
            .to_string()
            .as_bytes(),
        &ctx,
    )
    .reply;
    assert_eq!(reply["shown"], json!([61]), "{reply}");
    let _ = std::fs::remove_dir_all(home);
}

#[test]
fn the_current_session_named_explicitly_uses_the_live_head() {
    let dir = config("live");
    let ctx = Context::from_vars([("CLAUDE_CONFIG_DIR", dir.to_str().unwrap())]);
    let older_head = "0c1c5b74-8d0d-4f62-9b6c-dfd067b0b8aa";
    let reply = state(
        &json!({"session": format!("claude:{SID}"), "transcript_path": fixture(), "head": older_head}),
        &ctx,
    );
    assert_eq!(reply["window"], format!("claude:{SID}:1"), "{reply}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn session_ids_cannot_climb_out_of_the_projects_folder() {
    let ctx = Context::from_vars([("CLAUDE_CONFIG_DIR", "/nonexistent")]);
    let reply = state(&json!({"session": "claude:../../etc/passwd"}), &ctx);
    assert_eq!(reply["error"]["code"], "bad_session", "{reply}");
}

#[test]
fn explicit_selectors_need_no_head_of_the_current_session() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/tests/data/xharness");
    let roots = json!({
        "pi": data.join("pi-sessions"),
        "codex": data.join("codex-sessions"),
        "claude": data.join("claude-projects"),
    });
    let ctx = Context::from_vars([("HOME", "/nonexistent")]);
    let list = |request: serde_json::Value| {
        run(Some("history_list"), request.to_string().as_bytes(), &ctx).reply
    };
    // The current Claude session has a transcript but no head yet.
    for selector in [
        "pi:01a23754-922a-7771-b755-13b58637f164",
        "codex:01a23756-dae0-73f0-a878-6043e965173e",
    ] {
        let reply =
            list(json!({"session": selector, "transcript_path": fixture(), "roots": roots}));
        assert_eq!(reply["ok"], true, "{selector}: {reply}");
    }
    // Without a selector the current session still needs its head.
    let reply = list(json!({"transcript_path": fixture(), "roots": roots}));
    assert_eq!(reply["error"]["code"], "no_head", "{reply}");
}

#[rstest::rstest]
#[case("gemini")]
#[case("mcp")]
fn history_sessions_refuses_an_unknown_harness(#[case] name: &str) {
    let ctx = Context::from_vars([("HOME", "/nonexistent")]);
    let reply = run(
        Some("history_sessions"),
        json!({"harness": name}).to_string().as_bytes(),
        &ctx,
    )
    .reply;
    assert_eq!(reply["error"]["code"], "bad_request", "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("unknown harness `{name}`")),
        "{reply}"
    );
}

/// The history ops take the session fields and their tool's arguments in one object, and
/// refuse any other field, naming both sets.
#[test]
fn history_requests_refuse_unknown_fields_naming_every_known_one() {
    let ctx = Context::from_vars([("HOME", "/nonexistent")]);
    for (op, arg) in [("history_list", "`query`"), ("history_read", "`seq`")] {
        let request = json!({"session": "claude:x", "roots": {}, "sesion": "claude:x"});
        let reply = run(Some(op), request.to_string().as_bytes(), &ctx).reply;
        assert_eq!(reply["error"]["code"], "bad_request", "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("unknown field `sesion`"), "{message}");
        assert!(message.contains(arg), "{message}");
        assert!(
            message.contains(
                "or a session field: `transcript_path`, `head`, `session`, `agent_id`, `roots`"
            ),
            "{message}"
        );
    }
    // A session field of the wrong type is refused as such.
    let reply = run(
        Some("history_list"),
        json!({"session": 7}).to_string().as_bytes(),
        &ctx,
    )
    .reply;
    assert_eq!(reply["error"]["code"], "bad_request", "{reply}");
}
