//! Several helpers at once on one note, the way a main agent, its subagents and other
//! sessions call it: every `notes_read` → `notes_write {version}` loop retries on
//! `version_conflict`, and in the end no update is lost.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::Path;
use std::process::Command;

use notesoup_testkit::run_piped;
use serde_json::{Value, json};

const WRITERS: usize = 3;
const UPDATES: usize = 8;

fn helper(home: &Path, op: &str, request: &Value) -> Value {
    let out = run_piped(
        Command::new(env!("CARGO_BIN_EXE_notesoup-helper"))
            .arg(op)
            .env_clear()
            .env("NOTESOUP_HOME", home),
        request.to_string().as_bytes(),
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn concurrent_helpers_lose_no_update() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("notes-concurrency");
    let _ = std::fs::remove_dir_all(&dir);
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let home = dir.join("home");
    let cwd = project.to_str().unwrap().to_owned();
    let created = helper(
        &home,
        "notes_write",
        // A note is never blank: a heading line the counting below passes over.
        &json!({"cwd": cwd, "args": {"name": "log", "text": "# log\n"}}),
    );
    assert_eq!(created["ok"], true, "{created}");
    let conflicts: usize = std::thread::scope(|s| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (home, cwd) = (&home, &cwd);
                s.spawn(move || {
                    let mut conflicts = 0;
                    for u in 0..UPDATES {
                        loop {
                            let read = helper(
                                home,
                                "notes_read",
                                &json!({"cwd": cwd, "args": {"name": "log", "offset": 1}}),
                            );
                            assert_eq!(read["ok"], true, "{read}");
                            // The text after the header line is the note.
                            let body = read["text"]
                                .as_str()
                                .unwrap()
                                .split_once('\n')
                                .map_or("", |(_, b)| b);
                            let reply = helper(
                                home,
                                "notes_write",
                                &json!({"cwd": cwd, "args": {
                                    "name": "log",
                                    "text": format!("{body}w{w}-{u}\n"),
                                    "version": read["version"],
                                }}),
                            );
                            if reply["ok"] == true {
                                break;
                            }
                            assert_eq!(reply["error"]["code"], "version_conflict", "{reply}");
                            conflicts += 1;
                        }
                    }
                    conflicts
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let read = helper(&home, "notes_list", &json!({"cwd": cwd, "args": {}}));
    assert_eq!(read["notes"][0]["name"], "log", "{read}");
    let text = std::fs::read_to_string(
        std::fs::read_dir(home.join("brains"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
            .join("notes/log.md"),
    )
    .unwrap();
    let mut lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        lines.len(),
        WRITERS * UPDATES,
        "lost updates ({conflicts} conflicts):\n{text}"
    );
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines.len(), WRITERS * UPDATES, "{text}");
    eprintln!(
        "{} updates, {conflicts} version conflicts retried",
        WRITERS * UPDATES
    );
}
