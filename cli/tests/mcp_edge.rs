//! `notesoup mcp` at its edges, through the real binary: a bad `--project` is refused at
//! start, the start line on stderr, the tools' titles and annotations, an unknown tool, and
//! the notes as resources. Each run writes a whole session to stdin and closes it; the
//! server answers every request, then exits.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// A scratch home (the notes home inside it) and a project folder.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("notesoup-mcp-edge-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("project")).unwrap();
        Self(dir)
    }
    fn project(&self) -> PathBuf {
        self.0.join("project")
    }
    fn store(&self) -> PathBuf {
        self.0.join("notesoup")
    }
    /// Writes note `name` into the project's brain, as the tools would.
    fn note(&self, name: &str, text: &str) {
        notesoup_notes::Brain::open(&self.store(), &self.project())
            .unwrap()
            .write(name, text, None)
            .unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `notesoup mcp` with `args`, fed the handshake and then `requests` (one JSON-RPC request
/// a line, ids from 2), stdin closed.
fn serve(scratch: &Scratch, args: &[&std::ffi::OsStr], requests: &[Value]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_notesoup"))
        .arg("mcp")
        .args(args)
        .env_clear()
        .env("HOME", &scratch.0)
        .env("NOTESOUP_HOME", scratch.store())
        .current_dir(scratch.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    input.extend(requests.iter().cloned());
    let text: String = input.iter().map(|v| v.to_string() + "\n").collect();
    let mut stdin = child.stdin.take().unwrap();
    // A server that refuses to start closes its stdin: a broken pipe is its answer.
    let _ = stdin.write_all(text.as_bytes());
    drop(stdin);
    child.wait_with_output().unwrap()
}

fn request(id: u64, method: &str, params: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The reply with `id` among the server's stdout lines.
fn reply(out: &Output, id: u64) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no reply {id} in {stdout}"))
}

fn project_arg(path: &Path) -> [&std::ffi::OsStr; 2] {
    ["--project".as_ref(), path.as_os_str()]
}

#[test]
fn a_folder_that_is_not_there_is_refused_at_start() {
    let scratch = Scratch::new("bad-project");
    let missing = scratch.0.join("no-such-folder");
    let file = scratch.0.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    for (bad, why) in [(&missing, "no such folder"), (&file, "not a folder")] {
        let out = serve(&scratch, &project_arg(bad), &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(out.stdout.is_empty(), "stdout carries JSON-RPC only");
        let lines: Vec<&str> = stderr.lines().collect();
        assert!(
            lines[0] == format!("notesoup: --project {}: {why}", bad.display()),
            "{stderr}"
        );
        assert!(
            lines[1].starts_with("  fix:  give --project the folder of an existing project"),
            "{stderr}"
        );
        assert_eq!(lines.len(), 2, "{stderr}");
    }
}

#[test]
fn the_start_line_names_the_version_the_brain_and_its_notes() {
    let scratch = Scratch::new("banner");
    let out = serve(&scratch, &project_arg(&scratch.project()), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let project = std::fs::canonicalize(scratch.project()).unwrap();
    let brain = notesoup_notes::Brain::open(&scratch.store(), &project).unwrap();
    let want = format!(
        "notesoup mcp {}: the brain of {} (0 notes, in {})\n",
        notesoup_cli::BUILD_TEXT,
        project.display(),
        brain.dir().display()
    );
    assert_eq!(stderr, want);
    // Its clients are Codex and other agents as often as Claude Code: it does not say
    // which Claude Code it was built for (`--version` and `doctor` do).
    assert!(!stderr.contains("Claude Code"), "{stderr}");
    scratch.note("plan", "ship it\n");
    let out = serve(&scratch, &[], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(" (1 note, in "), "{stderr}");
    scratch.note("project/goal", "one brain\n");
    let out = serve(&scratch, &[], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(" (2 notes, in "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn tools_carry_titles_and_annotations() {
    let scratch = Scratch::new("annotations");
    let out = serve(&scratch, &[], &[request(2, "tools/list", &json!({}))]);
    let tools = reply(&out, 2)["result"]["tools"].clone();
    let hints: Vec<(String, String, bool, bool, bool, bool)> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let a = &t["annotations"];
            assert_eq!(t["title"], a["title"], "{t}");
            let flag = |key: &str| a[key].as_bool().unwrap_or_else(|| panic!("{key}: {t}"));
            (
                t["name"].as_str().unwrap().to_owned(),
                t["title"].as_str().unwrap().to_owned(),
                flag("readOnlyHint"),
                flag("destructiveHint"),
                flag("idempotentHint"),
                flag("openWorldHint"),
            )
        })
        .collect();
    let row = |name: &str, title: &str, read_only, destructive, idempotent| {
        (
            name.to_owned(),
            title.to_owned(),
            read_only,
            destructive,
            idempotent,
            false,
        )
    };
    assert_eq!(
        hints,
        [
            row("notes_list", "List notes", true, false, true),
            row("notes_read", "Read a note", true, false, true),
            row("notes_write", "Write a note", false, true, true),
            row("notes_edit", "Edit a note", false, true, false),
            row("notes_delete", "Delete a note", false, true, true),
            row("history_list", "List and search history", true, false, true),
            row("history_read", "Read history events", true, false, true),
            row("history_sessions", "List sessions", true, false, true),
        ]
    );
}

#[test]
fn an_unknown_tool_is_an_error_naming_the_served_tools() {
    let scratch = Scratch::new("unknown");
    let call = |id, name: &str| request(id, "tools/call", &json!({"name": name, "arguments": {}}));
    let out = serve(
        &scratch,
        &[],
        &[call(2, "no_such_tool"), call(3, "empty_brain")],
    );
    for (id, name) in [(2, "no_such_tool"), (3, "empty_brain")] {
        let r = reply(&out, id);
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(
            r["error"]["message"],
            format!(
                "notesoup serves no tool `{name}`; its tools are notes_list, notes_read, notes_write, notes_edit, notes_delete, history_list, history_read, history_sessions"
            ),
            "{r}"
        );
    }
}

#[test]
fn notes_are_resources() {
    let scratch = Scratch::new("resources");
    scratch.note("plan", "# Plan\n1. ship\n");
    scratch.note("project/goal", "one brain, two agents\n");
    let read = |id, uri: &str| request(id, "resources/read", &json!({"uri": uri}));
    let out = serve(
        &scratch,
        &[],
        &[
            request(2, "resources/list", &json!({})),
            request(3, "resources/templates/list", &json!({})),
            read(4, "notesoup://note/plan"),
            read(5, "notesoup://note/project/goal"),
            read(6, "notesoup://note/project%2Fgoal"),
            read(7, "notesoup://note/gone"),
            read(8, "notesoup://note/Bad Name"),
        ],
    );
    let listed = reply(&out, 2)["result"]["resources"].clone();
    let uris: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "notesoup://boot",
            "notesoup://note/plan",
            "notesoup://note/project/goal"
        ]
    );
    assert_eq!(
        listed[1],
        json!({"uri": "notesoup://note/plan", "name": "plan", "description": "# Plan", "mimeType": "text/markdown", "size": 15})
    );
    let templates = reply(&out, 3)["result"]["resourceTemplates"].clone();
    assert_eq!(
        templates[0]["uriTemplate"], "notesoup://note/{+name}",
        "{templates}"
    );
    assert_eq!(templates[0]["mimeType"], "text/markdown", "{templates}");
    let content = |id| reply(&out, id)["result"]["contents"][0].clone();
    assert_eq!(
        content(4),
        json!({"uri": "notesoup://note/plan", "mimeType": "text/markdown", "text": "# Plan\n1. ship\n"})
    );
    assert_eq!(content(5)["text"], "one brain, two agents\n");
    assert_eq!(content(6)["text"], "one brain, two agents\n");
    let gone = reply(&out, 7)["error"].clone();
    assert_eq!(gone["code"], -32002, "{gone}");
    let project = std::fs::canonicalize(scratch.project()).unwrap();
    assert_eq!(
        gone["message"],
        format!(
            "this project's brain has no note `gone` ({}); resources/list lists its notes",
            project.display()
        )
    );
    let bad = reply(&out, 8)["error"].clone();
    assert_eq!(bad["code"], -32602, "{bad}");
    assert!(
        bad["message"]
            .as_str()
            .unwrap()
            .starts_with("notesoup://note/Bad Name does not name a note ("),
        "{bad}"
    );
}

/// A client's root that picks another folder's brain says so on stderr, in the start
/// line's words: the start line named the brain of the folder the server started in, so
/// without it the client's log points at notes the tools do not use (walk7 finding 18).
#[test]
fn a_root_that_picks_another_brain_is_said_on_stderr() {
    let scratch = Scratch::new("roots-line");
    let other = scratch.0.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let stderr = served_with_root(&scratch, &other);
    let brain = notesoup_notes::Brain::open(&scratch.store(), &other).unwrap();
    let want = format!(
        "notesoup mcp: the client's root picks the brain of {} (0 notes, in {})",
        other.display(),
        brain.dir().display()
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].contains(": the brain of "), "{stderr}");
    assert_eq!(lines[1], want, "{stderr}");
}

/// A client's root whose folder picks the brain the start line named says nothing more
/// (review: it was said whenever the folder differed from the server's).
#[test]
fn a_root_that_picks_the_same_brain_says_nothing_more() {
    let scratch = Scratch::new("roots-same");
    // A folder inside a git project picks the project's brain.
    std::fs::create_dir_all(scratch.project().join(".git")).unwrap();
    let sub = scratch.project().join("deeper");
    std::fs::create_dir_all(&sub).unwrap();
    let same = notesoup_notes::Brain::open(&scratch.store(), &sub).unwrap();
    let start = notesoup_notes::Brain::open(&scratch.store(), &scratch.project()).unwrap();
    assert_eq!(
        same.dir(),
        start.dir(),
        "the test needs a folder of the same brain"
    );
    let stderr = served_with_root(&scratch, &sub);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Serves `notesoup mcp` in the scratch project to a client whose one root is `root`,
/// through one `notes_list` call; what it said on stderr.
fn served_with_root(scratch: &Scratch, root: &Path) -> String {
    use std::io::{BufRead as _, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_notesoup"))
        .arg("mcp")
        .env_clear()
        .env("HOME", &scratch.0)
        .env("NOTESOUP_HOME", scratch.store())
        .current_dir(scratch.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
        "capabilities": {"roots": {"listChanged": true}}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(request(
        2,
        "tools/call",
        &json!({"name": "notes_list", "arguments": {}}),
    ));
    loop {
        let msg: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if msg["method"] == "roots/list" {
            let roots = [json!({"uri": format!("file://{}", root.display())})];
            send(json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": roots}}));
        } else if msg["id"] == 2 {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}
