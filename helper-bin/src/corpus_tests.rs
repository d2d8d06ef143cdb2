//! The mixed corpus: the real Claude, Pi and Codex fixtures copied into harness-shaped
//! folders, read through the history ops with `session` selectors.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::{Context, run};

const CLAUDE: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
const PI_MAIN: &str = "01a23754-8e37-7027-8822-e05ee3580bae";
const PI_FORK: &str = "01a23754-922a-7771-b755-13b58637f164";
const CODEX_BASE: &str = "01a23755-7b6b-79d2-9438-c01132a25971";
const CODEX_FORK: &str = "01a23756-b853-7e01-94a2-1ae0a322f736";
const CODEX_ZST: &str = "01a23756-dae0-73f0-a878-6043e965173e";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Copies every file under `from` into `to`, giving the n-th file the mtime `base + n s`.
fn copy_tree(from: &Path, to: &Path, clock: &mut SystemTime) {
    fs::create_dir_all(to).unwrap();
    let mut entries: Vec<PathBuf> = fs::read_dir(from)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target, clock);
        } else {
            fs::copy(&path, &target).unwrap();
            *clock += Duration::from_secs(1);
            fs::File::options()
                .write(true)
                .open(&target)
                .unwrap()
                .set_modified(*clock)
                .unwrap();
        }
    }
}

/// A scratch HOME with `~/.claude/projects`, `~/.pi/agent/sessions` and `~/.codex/sessions`
/// holding the fixtures; Claude's session is the most recently written.
fn home(name: &str) -> PathBuf {
    let home = std::env::temp_dir().join(format!("notesoup-corpus-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&home);
    let mut clock = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    copy_tree(
        &repo().join("history-pi/tests/data/agent/sessions"),
        &home.join(".pi/agent/sessions"),
        &mut clock,
    );
    copy_tree(
        &repo().join("history-codex/tests/data/codex-home/sessions"),
        &home.join(".codex/sessions"),
        &mut clock,
    );
    let project = home.join(".claude/projects/-tmp-project");
    fs::create_dir_all(&project).unwrap();
    let target = project.join(format!("{CLAUDE}.jsonl"));
    fs::copy(
        repo().join(format!("helper-bin/tests/data/history/{CLAUDE}.jsonl")),
        &target,
    )
    .unwrap();
    fs::File::options()
        .write(true)
        .open(&target)
        .unwrap()
        .set_modified(clock + Duration::from_secs(60))
        .unwrap();
    home
}

fn ask(op: &str, request: &Value, home: &Path) -> Value {
    let ctx = Context::from_vars([("HOME", home.to_str().unwrap())]);
    run(Some(op), request.to_string().as_bytes(), &ctx).reply
}

#[test]
fn every_harness_answers_history_list_by_selector_and_prefix() {
    let home = home("list");
    for (selector, needle) in [
        (format!("pi:{PI_MAIN}"), "pi-probe"),
        ("pi:01a23754-922a".to_owned(), "pi-probe"),
        (format!("codex:{CODEX_FORK}"), "codex-probe"),
        ("codex:01a23756-dae".to_owned(), "codex-probe"),
        (format!("claude:{CLAUDE}"), "RESUMED-PROMPT"),
        ("claude:da56".to_owned(), "RESUMED-PROMPT"),
    ] {
        let reply = ask(
            "history_list",
            &json!({"session": selector, "query": needle}),
            &home,
        );
        assert_eq!(reply["ok"], true, "{selector}: {reply}");
        assert!(
            !reply["shown"].as_array().unwrap().is_empty(),
            "{selector}: {reply}"
        );
        assert!(
            reply["text"].as_str().unwrap().contains(needle),
            "{selector}: {reply}"
        );
    }
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_codex_fork_reads_whole_through_the_rewind_segment_and_its_base() {
    let home = home("fork");
    let reply = ask(
        "history_list",
        &json!({"session": format!("codex:{CODEX_FORK}"), "roles": ["user"], "order": "oldest"}),
        &home,
    );
    let text = reply["text"].as_str().unwrap();
    let order = [
        "Please run a command that writes a probe file.",
        "Name a third prime number.",
        "Say goodbye in German instead.",
        "In this fork, name a colour.",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|p| text.find(p).unwrap_or_else(|| panic!("{p}: {text}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(
        !text.contains("Say goodbye in French."),
        "the rewound turn is not on the fork's history"
    );
    let state = ask(
        "history_state",
        &json!({"session": format!("codex:{CODEX_FORK}")}),
        &home,
    );
    assert_eq!(state["window"], format!("codex:{CODEX_FORK}:1"), "{state}");
    // The thread itself reads from its newest segment.
    let reply = ask(
        "history_list",
        &json!({"session": format!("codex:{CODEX_BASE}"), "query": "goodbye"}),
        &home,
    );
    let text = reply["text"].as_str().unwrap();
    assert!(
        text.contains("German") && !text.contains("French"),
        "{text}"
    );
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_pi_fork_reads_whole_and_its_parent_path_may_have_moved() {
    let home = home("pi");
    // The fork's parentSession names /tmp/xh/pirun/r3/...: found again by id.
    let reply = ask(
        "history_read",
        &json!({"session": format!("pi:{PI_FORK}"), "from": 1, "to": 40}),
        &home,
    );
    let text = reply["text"].as_str().unwrap();
    assert!(
        text.contains("List the files here with bash.")
            && text.contains("In this fork, name a colour instead."),
        "{reply}"
    );
    let state = ask(
        "history_state",
        &json!({"session": format!("pi:{PI_MAIN}")}),
        &home,
    );
    assert_eq!(state["window"], format!("pi:{PI_MAIN}:1"), "{state}");
    let _ = fs::remove_dir_all(home);
}

#[test]
fn bad_unknown_and_ambiguous_selectors_are_refused() {
    let home = home("refuse");
    for (selector, code) in [
        ("codex:01a2375", "ambiguous_session"),
        ("pi:01a23754", "ambiguous_session"),
        ("pi:ffff", "not_found"),
        ("gemini:abc", "bad_session"),
        ("pi:../../etc", "bad_session"),
        ("01a23754", "bad_session"),
    ] {
        let reply = ask("history_list", &json!({"session": selector}), &home);
        assert_eq!(reply["error"]["code"], code, "{selector}: {reply}");
    }
    // One Claude session id in two project folders is two sessions: refused, not picked.
    let other = home.join(".claude/projects/-another");
    fs::create_dir_all(&other).unwrap();
    fs::copy(
        home.join(format!(".claude/projects/-tmp-project/{CLAUDE}.jsonl")),
        other.join(format!("{CLAUDE}.jsonl")),
    )
    .unwrap();
    let reply = ask(
        "history_list",
        &json!({"session": format!("claude:{CLAUDE}")}),
        &home,
    );
    assert_eq!(reply["error"]["code"], "ambiguous_session", "{reply}");
    let _ = fs::remove_dir_all(home);
}

#[test]
fn malformed_and_corrupt_files_are_refused_with_the_reason() {
    let home = home("bad");
    let pi = home.join(".pi/agent/sessions/--w--/2026-12-02T15-00-00-000Z_badbad.jsonl");
    fs::create_dir_all(pi.parent().unwrap()).unwrap();
    fs::write(
        &pi,
        "{\"type\":\"session\",\"version\":3,\"id\":\"badbad\"}\n{oops\n{}\n",
    )
    .unwrap();
    let reply = ask("history_list", &json!({"session": "pi:badbad"}), &home);
    assert_eq!(reply["error"]["code"], "transcript_malformed", "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains(":2: the line is not valid JSON"),
        "{reply}"
    );
    let zst = home.join(format!(
        ".codex/sessions/2026/12/02/rollout-2026-12-02T15-19-28-{CODEX_ZST}.jsonl.zst"
    ));
    let mut bytes = fs::read(&zst).unwrap();
    bytes.truncate(bytes.len() / 2);
    fs::write(&zst, bytes).unwrap();
    let reply = ask(
        "history_list",
        &json!({"session": format!("codex:{CODEX_ZST}")}),
        &home,
    );
    assert_eq!(reply["error"]["code"], "transcript_malformed", "{reply}");
    // The listing still names both, saying why they cannot be read.
    let list = ask("history_sessions", &json!({"limit": 200}), &home);
    let text = list["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("codex:{CODEX_ZST}")) && text.contains("unreadable: "),
        "{text}"
    );
    let _ = fs::remove_dir_all(home);
}

#[test]
fn the_recent_listing_spans_harnesses_newest_first() {
    let home = home("recent");
    let reply = ask("history_sessions", &json!({}), &home);
    assert_eq!(reply["total"], 7, "{reply}"); // 1 claude, 2 pi, 4 codex threads
    let sessions: Vec<&str> = reply["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions[0], format!("claude:{CLAUDE}"));
    // Codex files were copied after Pi's: the last Codex file written leads them.
    assert_eq!(sessions[1], "codex:01a23756-dc4b-7611-8782-70c642f15bd0");
    assert_eq!(sessions.last().unwrap(), &format!("pi:{PI_MAIN}"));
    let fork = reply["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == format!("codex:{CODEX_FORK}"))
        .unwrap();
    assert_eq!(fork["parent"], format!("codex:{CODEX_BASE}"));
    assert_eq!(fork["first_prompt"], "In this fork, name a colour.");
    assert_eq!(fork["cwd"], "/tmp/xh/codexrun/c2/work");
    let base = reply["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == format!("codex:{CODEX_BASE}"))
        .unwrap();
    assert_eq!(
        base["first_prompt"],
        "Please run a command that writes a probe file."
    );
    let zst = reply["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == format!("codex:{CODEX_ZST}"))
        .unwrap();
    assert_eq!(
        zst["first_prompt"],
        "Please run a command that writes a probe file, then stop."
    );
    let pi = ask(
        "history_sessions",
        &json!({"harness": "pi", "limit": 1}),
        &home,
    );
    assert_eq!(pi["total"], 2);
    assert_eq!(pi["sessions"][0]["session"], format!("pi:{PI_FORK}"));
    assert!(
        pi["text"]
            .as_str()
            .unwrap()
            .contains("(1 of 2 sessions shown;"),
        "{pi}"
    );
    let bad = ask("history_sessions", &json!({"harness": "gemini"}), &home);
    assert_eq!(bad["error"]["code"], "bad_request");
    let _ = fs::remove_dir_all(home);
}

#[test]
fn harness_variables_and_the_notesoup_setting_move_the_folders() {
    let home = home("vars");
    let empty = std::env::temp_dir().join(format!("notesoup-corpus-empty-{}", std::process::id()));
    fs::create_dir_all(&empty).unwrap();
    let count = |vars: Vec<(&str, String)>, request: Value| {
        let ctx = Context::from_vars(vars);
        run(
            Some("history_sessions"),
            request.to_string().as_bytes(),
            &ctx,
        )
        .reply["total"]
            .clone()
    };
    let h = ("HOME", home.to_str().unwrap().to_owned());
    assert_eq!(count(vec![h.clone()], json!({})), 7);
    // Each harness's own variable replaces its default folder.
    let moved = vec![
        h.clone(),
        ("PI_CODING_AGENT_DIR", empty.to_str().unwrap().to_owned()),
        ("CODEX_HOME", empty.to_str().unwrap().to_owned()),
        ("CLAUDE_CONFIG_DIR", empty.to_str().unwrap().to_owned()),
    ];
    assert_eq!(count(moved.clone(), json!({})), 0);
    let session_dir = vec![
        h.clone(),
        (
            "PI_CODING_AGENT_SESSION_DIR",
            home.join(".pi/agent/sessions").to_str().unwrap().to_owned(),
        ),
    ];
    assert_eq!(count(session_dir, json!({"harness": "pi"})), 2);
    // Pi's own sessionDir setting, absolute, is honoured.
    let agent = home.join("agent-with-setting");
    fs::create_dir_all(&agent).unwrap();
    let setting = json!({"sessionDir": home.join(".pi/agent/sessions")});
    fs::write(agent.join("settings.json"), setting.to_string()).unwrap();
    let pi_setting = vec![
        h.clone(),
        ("PI_CODING_AGENT_DIR", agent.to_str().unwrap().to_owned()),
    ];
    assert_eq!(count(pi_setting, json!({"harness": "pi"})), 2);
    // The notesoup setting wins over the variables.
    let roots = json!({"roots": {
        "pi": home.join(".pi/agent/sessions"),
        "codex": home.join(".codex/sessions"),
        "claude": home.join(".claude/projects"),
    }});
    assert_eq!(count(moved, roots), 7);
    let _ = fs::remove_dir_all(home);
    let _ = fs::remove_dir_all(empty);
}

#[test]
fn explicit_selectors_need_no_head_of_the_current_session() {
    let home = home("nohead");
    // The current Claude session has a transcript but no head yet.
    let live = home.join(format!(".claude/projects/-tmp-project/{CLAUDE}.jsonl"));
    for selector in [format!("pi:{PI_FORK}"), format!("codex:{CODEX_ZST}")] {
        let reply = ask(
            "history_list",
            &json!({"session": selector, "transcript_path": live}),
            &home,
        );
        assert_eq!(reply["ok"], true, "{selector}: {reply}");
    }
    // Without a selector the current session still needs its head.
    let reply = ask("history_list", &json!({"transcript_path": live}), &home);
    assert_eq!(reply["error"]["code"], "no_head", "{reply}");
    let _ = fs::remove_dir_all(home);
}
