//! One brain, two agents: the real Codex CLI 0.171.0, offline against a scripted Responses
//! API, lists notesoup's tools through `notesoup mcp`, writes a note with `notes_write`
//! (the note is then on disk), reads it back with `notes_read` in a second run; then the
//! real Claude Code with the plugin, on the same project, boots with that note.
//!
//! Needs `scripts/get-codex`, `scripts/get-claude`, the `notesoup` binary
//! (`NOTESOUP_E2E_NOTESOUP`, else the freshest build under the target dir) and the release
//! helper, as `scripts/test` arranges.

use std::path::PathBuf;
use std::time::Duration;

use notesoup_e2e::{
    CodexRun, Harness, Mode, Reply, Script, Turn, call_outputs, codex_binary, fresh_run_dir,
    searched_tools, tool_names,
};
use serde_json::{Value, json};

const NOTE: &str = "codex/handoff";
const TEXT: &str = "Codex was here: the parser bug is in lex(), line 42.\n";

fn notesoup_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("NOTESOUP_E2E_NOTESOUP") {
        return PathBuf::from(path);
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        candidates.push(PathBuf::from(&dir).join("release/notesoup"));
        candidates.push(PathBuf::from(&dir).join("debug/notesoup"));
    }
    candidates.push(repo.join("target/release/notesoup"));
    candidates.push(repo.join("target/debug/notesoup"));
    candidates
        .into_iter()
        .filter(|p| p.is_file())
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("no notesoup binary: cargo build -p notesoup-cli (or set NOTESOUP_E2E_NOTESOUP)")
}

/// Codex's namespace for notesoup's MCP tools.
const NAMESPACE: &str = "mcp__notesoup";

/// notesoup's tools Codex made available in a request (after a tool search).
fn offered(body: &Value) -> Vec<String> {
    searched_tools(body)
        .into_iter()
        .filter(|(ns, _)| ns.as_deref() == Some(NAMESPACE))
        .map(|(_, name)| name)
        .collect()
}

/// A responder that calls `tool` with `args` once, then ends the turn.
fn call_once(tool: &'static str, args: Value) -> notesoup_e2e::Responder {
    let mut searched = false;
    Box::new(move |body: &Value| {
        if !searched {
            searched = true;
            return Turn::ToolSearch(format!("notesoup {tool}"));
        }
        if call_outputs(body).is_empty() && offered(body).iter().any(|n| n == tool) {
            Turn::Call {
                namespace: Some(NAMESPACE.into()),
                name: tool.into(),
                arguments: args.clone(),
            }
        } else {
            Turn::Text("done".into())
        }
    })
}

fn note_files(home: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let brains = home.join("brains");
    for brain in std::fs::read_dir(&brains).into_iter().flatten().flatten() {
        let path = brain.path().join("notes").join(format!("{NOTE}.md"));
        if path.is_file() {
            found.push(path);
        }
    }
    found
}

#[test]
fn one_brain_two_agents() {
    let run_dir = fresh_run_dir("codex-one-brain");
    let codex = CodexRun {
        codex: codex_binary().expect("scripts/get-codex"),
        notesoup: notesoup_binary(),
        run_dir: run_dir.clone(),
        timeout: Duration::from_secs(120),
    };

    // 1. Codex lists notesoup's tools and writes a note.
    let first = codex
        .exec(
            "Save a handoff note.",
            call_once("notes_write", json!({"name": NOTE, "text": TEXT})),
        )
        .expect("codex exec");
    let report = first.report();
    // Codex 0.171.0 defers MCP tools behind its `tool_search`: the scripted model searches,
    // and the next request carries notesoup's tools under the server's namespace.
    let first_body = &first
        .requests
        .first()
        .unwrap_or_else(|| panic!("no request\n{report}"))["body"];
    assert!(
        tool_names(first_body)
            .iter()
            .any(|n| n == "list_mcp_resources"),
        "{report}"
    );
    let body = &first
        .requests
        .get(1)
        .unwrap_or_else(|| panic!("no second request\n{report}"))["body"];
    let mut tools = offered(body);
    tools.sort();
    assert_eq!(
        tools,
        [
            "history_list",
            "history_read",
            "history_sessions",
            "notes_delete",
            "notes_edit",
            "notes_list",
            "notes_read",
            "notes_write"
        ],
        "{report}"
    );
    let outputs: Vec<String> = first
        .requests
        .iter()
        .flat_map(|r| call_outputs(&r["body"]))
        .collect();
    assert!(
        outputs.iter().any(|o| o.contains(NOTE)),
        "no notes_write result: {outputs:?}\n{report}"
    );
    assert_eq!(first.status, Some(0), "{report}");
    let files = note_files(&codex.notes_home());
    assert_eq!(files.len(), 1, "the note is not on disk\n{report}");
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), TEXT);

    // 2. A second Codex run reads it back.
    let second = codex
        .exec(
            "What does the handoff note say?",
            call_once("notes_read", json!({"name": NOTE})),
        )
        .expect("codex exec");
    let report = second.report();
    let outputs: Vec<String> = second
        .requests
        .iter()
        .flat_map(|r| call_outputs(&r["body"]))
        .collect();
    assert!(
        outputs
            .iter()
            .any(|o| o.contains("the parser bug is in lex()")),
        "{outputs:?}\n{report}"
    );
    assert_eq!(second.status, Some(0), "{report}");

    // 3. Claude Code with the plugin, in the same project, boots with Codex's note.
    claude_boots_with_the_note(&run_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
}

/// Claude Code with the plugin, in the run's project and notesoup home, boots with the note.
fn claude_boots_with_the_note(run_dir: &std::path::Path) {
    let harness = Harness::from_env().expect("Claude Code and the plugin");
    let outcome = harness
        .session(
            "codex-then-claude",
            Script::new().fallback(Reply::text("ok")),
        )
        .run_dir(run_dir)
        .run(&Mode::Print("What do your notes say?".into()))
        .expect("claude -p");
    let first_turn = outcome
        .message_bodies()
        .first()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        first_turn.contains("<notesoup-boot"),
        "no boot in Claude's first request\n{}",
        outcome.report()
    );
    assert!(
        first_turn.contains("the parser bug is in lex()"),
        "Codex's note is not in Claude's boot\n{}",
        outcome.report()
    );
}
