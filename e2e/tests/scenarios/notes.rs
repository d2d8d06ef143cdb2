//! Scenario 2: the notes tools round trip.

use notesoup_e2e::{Match, Mode, Reply, Script};
use serde_json::Value;

use super::{run_clean, tool_results_text};

// ---------------------------------------------------------------------------------
// 2. Notes round trip.

fn files_under(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            out.push((path, text));
        }
    }
}

#[test]
fn s02_notes_round_trip() {
    let tool = |name: &str, input: Value| Reply::tool(&format!("mcp__notesoup__{name}"), input);
    let after = |needle: &str| Match::tool_result(true).and_user_contains(needle);
    let script = Script::new()
        .then(tool(
            "notes_write",
            serde_json::json!({"name": "plan", "text": "step one: MANGO-7"}),
        ))
        .then_when(
            Match::tool_result(true),
            tool(
                "notes_edit",
                serde_json::json!({"name": "plan", "old": "one", "new": "two"}),
            ),
        )
        .then_when(
            Match::tool_result(true),
            tool("notes_list", serde_json::json!({})),
        )
        .then_when(
            after("plan"),
            tool("notes_read", serde_json::json!({"name": "plan"})),
        )
        .then_when(
            Match::tool_result(true),
            Reply::text("Notes saved and checked."),
        )
        .fallback(Reply::text("(unexpected request)"));
    let out = run_clean(
        "s02-notes",
        script,
        &Mode::Print("Keep a plan note.".into()),
    );
    let requests = out.model_turn_requests();
    assert_eq!(requests.len(), 5, "write, edit, list, read, answer");
    let results: Vec<String> = requests[1..]
        .iter()
        .map(|r| tool_results_text(*r))
        .collect();
    for (i, body) in requests[1..].iter().enumerate() {
        let last = body.user_messages().last().copied().unwrap();
        assert!(
            !last.to_string().contains("\"is_error\":true"),
            "tool result {i} is an error: {}",
            results[i]
        );
    }
    assert!(
        results[2].contains("plan"),
        "notes_list does not list the note: {}",
        results[2]
    );
    assert!(
        results[3].contains("step two: MANGO-7"),
        "notes_read: {}",
        results[3]
    );
    let mut files = Vec::new();
    files_under(&out.notes_home, &mut files);
    let on_disk: Vec<_> = files
        .iter()
        .filter(|(_, t)| t.contains("MANGO-7"))
        .collect();
    assert_eq!(
        on_disk.len(),
        1,
        "the note on disk under {}: {files:?}",
        out.notes_home.display()
    );
    assert_eq!(on_disk[0].1.trim_end(), "step two: MANGO-7");
    assert_eq!(out.stdout.trim(), "Notes saved and checked.");
}
