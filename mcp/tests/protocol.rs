//! Protocol tests against the server as a process. This test binary is its own server: with
//! `NOTESOUP_MCP_TEST_SERVE` set, `main` runs `notesoup_mcp::serve` on stdio (what
//! `notesoup mcp` does); otherwise it runs each test below against fresh copies of itself.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::missing_panics_doc,
    clippy::single_match_else,
    clippy::needless_pass_by_value,
    reason = "a test harness of its own (harness = false): it reports on stdout and panics on failure"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{Value, json};

const SERVE: &str = "NOTESOUP_MCP_TEST_SERVE";
/// Set: the server is started as `--project` starts it (the client's roots pick nothing).
const PINNED: &str = "NOTESOUP_MCP_TEST_PINNED";

fn main() {
    if std::env::var_os(SERVE).is_some() {
        let options = notesoup_mcp::Options {
            ctx: notesoup_app::Context::from_process(),
            cwd: std::env::current_dir().expect("a working folder"),
            follow_roots: std::env::var_os(PINNED).is_none(),
            on_root: None,
        };
        match notesoup_mcp::serve(options) {
            Ok(()) => std::process::exit(0),
            Err(err) => {
                eprintln!("{err}");
                std::process::exit(1);
            }
        }
    }
    let tests: &[(&str, fn())] = &[
        ("initialize_and_tools_list", initialize_and_tools_list),
        (
            "notes_tools_succeed_and_refuse",
            notes_tools_succeed_and_refuse,
        ),
        (
            "history_tools_succeed_and_refuse",
            history_tools_succeed_and_refuse,
        ),
        ("boot_resource", boot_resource),
        (
            "malformed_frames_get_errors_and_serving_goes_on",
            malformed_frames,
        ),
        (
            "stdin_closed_mid_request_exits_cleanly",
            stdin_closed_mid_request,
        ),
        (
            "frames_before_initialize_do_not_end_the_server",
            frames_before_initialize,
        ),
        (
            "bad_frames_leave_nothing_behind",
            bad_frames_leave_nothing_behind,
        ),
        (
            "a_peer_that_stops_reading_gets_back_pressure",
            back_pressure,
        ),
        (
            "roots_pick_the_brain_unless_the_folder_was_named",
            roots_pick_the_brain,
        ),
        (
            "pipelined_calls_take_effect_in_the_order_they_arrive",
            pipelined_calls_in_order,
        ),
        (
            "a_call_cancelled_while_it_waits_never_runs",
            cancelled_while_waiting,
        ),
        (
            "history_answers_say_the_vault_cannot_be_read",
            vault_unreadable,
        ),
    ];
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut failed = Vec::new();
    for (name, test) in tests {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        match std::panic::catch_unwind(test) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
        std::process::exit(101);
    }
    println!("test result: ok");
}

/// A scratch folder: the notesoup home, the harnesses' session folders and a project.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("notesoup-mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("project")).unwrap();
        std::fs::create_dir_all(dir.join("home")).unwrap();
        Self(dir)
    }
    fn home(&self) -> PathBuf {
        self.0.join("home")
    }
    fn project(&self) -> PathBuf {
        self.0.join("project")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The server's stdout lines, read by a thread (`None`: stdout closed), so a server
    /// that never answers fails the test after [`WAIT`] instead of hanging it.
    lines: Receiver<Option<String>>,
}

/// How long a test waits for any one line from the server.
const WAIT: Duration = Duration::from_secs(30);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(scratch: &Scratch) -> Self {
        Self::start_with(scratch, false)
    }

    /// A server started; `pinned`: as `--project` starts it.
    fn start_with(scratch: &Scratch, pinned: bool) -> Self {
        Self::spawn(
            Command::new(std::env::current_exe().unwrap()),
            scratch,
            pinned,
        )
    }

    /// A server started as the user `nobody` (uid 65534), by root.
    fn start_as_nobody(scratch: &Scratch) -> Self {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(std::env::current_exe().unwrap());
        Self::spawn(command, scratch, false)
    }

    /// `command` (this binary, or what runs it) started as the server.
    fn spawn(mut command: Command, scratch: &Scratch, pinned: bool) -> Self {
        let home = scratch.home();
        command.env_clear();
        if pinned {
            command.env(PINNED, "1");
        }
        let mut child = command
            .env(SERVE, "1")
            .env("HOME", &home)
            .env("NOTESOUP_HOME", home.join("notesoup"))
            .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
            .env("CODEX_HOME", home.join(".codex"))
            .env("PI_CODING_AGENT_DIR", home.join(".pi/agent"))
            .current_dir(scratch.project())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        Self {
            child,
            stdin,
            lines,
        }
    }

    /// A started server past the handshake.
    fn ready(scratch: &Scratch) -> Self {
        Self::shaken(Self::start(scratch))
    }

    /// `s` past the handshake.
    fn shaken(mut s: Self) -> Self {
        let init = s.request(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        s.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        s
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let line = match self.lines.recv_timeout(WAIT) {
            Ok(Some(line)) => line,
            Ok(None) | Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout"),
            Err(RecvTimeoutError::Timeout) => panic!("no line from the server within {WAIT:?}"),
        };
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"))
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        let reply = self.read();
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// A tool call's (text, isError).
    fn call(&mut self, id: u64, tool: &str, args: Value) -> (String, bool) {
        let r = self.request(id, "tools/call", json!({"name": tool, "arguments": args}));
        let result = &r["result"];
        (
            result["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{r}"))
                .to_owned(),
            result["isError"] == true,
        )
    }

    /// Closes stdin and waits: the exit status code.
    fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        match self.lines.recv_timeout(WAIT) {
            Ok(Some(line)) => panic!("unexpected output after close: {line}"),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {}
            Err(RecvTimeoutError::Timeout) => {
                panic!("the server did not exit within {WAIT:?} of stdin closing")
            }
        }
        self.child.wait().unwrap().code()
    }
}

fn initialize_and_tools_list() {
    let scratch = Scratch::new("list");
    let mut s = Server::ready(&scratch);
    let tools = s.request(2, "tools/list", json!({}));
    let listed: Vec<(String, String, Value)> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["description"].as_str().unwrap().to_owned(),
                t["inputSchema"].clone(),
            )
        })
        .collect();
    let names: Vec<&str> = listed.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "notes_list",
            "notes_read",
            "notes_write",
            "notes_edit",
            "notes_delete",
            "history_list",
            "history_read",
            "history_sessions"
        ]
    );
    // The plugin's own definitions, exactly: every tool but empty_brain.
    let specs: Vec<(String, String, Value)> = notesoup_app::tools::specs()
        .into_iter()
        .filter(|spec| !spec.reset_flow())
        .map(|spec| (spec.name.to_owned(), spec.description, spec.input_schema))
        .collect();
    assert_eq!(listed, specs);
    assert_eq!(s.finish(), Some(0));
}

fn notes_tools_succeed_and_refuse() {
    let scratch = Scratch::new("notes");
    let mut s = Server::ready(&scratch);
    let (text, err) = s.call(
        2,
        "notes_write",
        json!({"name": "plan", "text": "1. ship the mcp server\n"}),
    );
    assert!(!err, "{text}");
    let (text, err) = s.call(3, "notes_read", json!({"name": "plan"}));
    assert!(!err && text.contains("1. ship the mcp server"), "{text}");
    let (text, err) = s.call(
        4,
        "notes_edit",
        json!({"name": "plan", "append": "2. test it\n"}),
    );
    assert!(!err, "{text}");
    let (text, err) = s.call(5, "notes_list", json!({}));
    assert!(!err && text.contains("plan"), "{text}");
    // Refusals: the store's own errors, as tool results the model reads.
    let (text, err) = s.call(
        6,
        "notes_write",
        json!({"name": "plan", "text": "x", "version": "0000000000000000"}),
    );
    assert!(err && text.contains("version"), "{text}");
    let (text, err) = s.call(7, "notes_read", json!({"name": "Bad Name"}));
    assert!(err, "{text}");
    // A field the schema does not declare is refused (the model sets no roots).
    let (text, err) = s.call(
        8,
        "notes_read",
        json!({"name": "plan", "roots": {"claude": "/"}}),
    );
    assert!(
        err && text.starts_with("notesoup bad_request: `notes_read` takes no argument `roots`"),
        "{text}"
    );
    let (text, err) = s.call(9, "notes_delete", json!({"name": "plan"}));
    assert!(!err, "{text}");
    let (text, err) = s.call(10, "notes_read", json!({"name": "plan"}));
    assert!(err, "{text}");
    // A tool this server does not serve is a JSON-RPC error (cli/tests/mcp_edge.rs checks
    // its words).
    for (id, tool) in [(11, "empty_brain"), (12, "no_such_tool")] {
        let r = s.request(id, "tools/call", json!({"name": tool, "arguments": {}}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
    assert_eq!(s.finish(), Some(0));
    // The note is on disk in the project's brain, whole.
    let brains = scratch.home().join("notesoup/brains");
    assert!(brains.is_dir(), "no brain under {}", brains.display());
}

fn history_tools_succeed_and_refuse() {
    let scratch = Scratch::new("history");
    // One Claude session on disk to list and read.
    let projects = scratch.home().join(".claude/projects/-p");
    std::fs::create_dir_all(&projects).unwrap();
    let id = "11111111-2222-3333-4444-555555555555";
    let line = json!({"type": "user", "uuid": "aaaaaaaa-0000-0000-0000-000000000001", "parentUuid": null, "sessionId": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p", "isSidechain": false, "userType": "external", "version": "2.1.319", "message": {"role": "user", "content": "remember the parser bug"}});
    std::fs::write(projects.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
    let mut s = Server::ready(&scratch);
    let (text, err) = s.call(2, "history_sessions", json!({}));
    assert!(!err && text.contains("claude:1111"), "{text}");
    let (text, err) = s.call(3, "history_list", json!({}));
    assert!(
        err && text.contains("session") && text.contains("history_sessions"),
        "{text}"
    );
    let (text, err) = s.call(4, "history_read", json!({"seq": 1}));
    assert!(err && text.contains("history_sessions"), "{text}");
    let (text, err) = s.call(5, "history_list", json!({"session": "claude:1111"}));
    assert!(!err && text.contains("remember the parser bug"), "{text}");
    let (text, err) = s.call(6, "history_list", json!({"session": "claude:ffff"}));
    assert!(err, "{text}");
    let (text, err) = s.call(7, "history_sessions", json!({"limit": 0}));
    assert!(err, "{text}");
    assert_eq!(s.finish(), Some(0));
}

/// `f` on `path` and everything below it (links not followed).
fn each_path(path: &Path, f: &dyn Fn(&Path)) {
    f(path);
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            each_path(&entry.unwrap().path(), f);
        }
    }
}

/// A vault that is there but cannot be read leaves the sessions only it holds out of the
/// server's history answers, and each says so, once: `history_sessions`, a `history_list`
/// of the session only the vault held (refused) and one of a session on disk. Before, they
/// were left out silently (the CLI's commands warned). As root, whom modes do not stop, the
/// server runs as `nobody` on a world it owns, the vault left root's, as the CLI's test of
/// the same runs `notesoup`.
fn vault_unreadable() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let scratch = Scratch::new("vault-unreadable");
    let projects = scratch.home().join(".claude/projects/-p");
    std::fs::create_dir_all(&projects).unwrap();
    let (kept, on_disk) = (
        "11111111-2222-3333-4444-555555555555",
        "66666666-7777-8888-9999-000000000000",
    );
    for (id, prompt) in [
        (kept, "only the vault keeps this"),
        (on_disk, "still on disk"),
    ] {
        let line = json!({"type": "user", "uuid": "aaaaaaaa-0000-0000-0000-000000000001", "parentUuid": null, "sessionId": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p", "isSidechain": false, "userType": "external", "version": "2.1.319", "message": {"role": "user", "content": prompt}});
        std::fs::write(projects.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
    }
    let home = scratch.home();
    let p = |rel: &str| home.join(rel).to_str().unwrap().to_owned();
    let ctx = notesoup_app::Context::from_vars([
        ("HOME".to_owned(), p("")),
        ("NOTESOUP_HOME".to_owned(), p("notesoup")),
        ("CLAUDE_CONFIG_DIR".to_owned(), p(".claude")),
    ]);
    notesoup_app::vault::keep_all(&ctx, &mut |_, _| {}).unwrap();
    std::fs::remove_file(projects.join(format!("{kept}.jsonl"))).unwrap();
    // While the vault reads, the server lists the session only it holds, and notes nothing.
    let mut s = Server::ready(&scratch);
    let (text, err) = s.call(2, "history_sessions", json!({}));
    assert!(
        !err && text.contains("claude:1111")
            && text.contains("vault only")
            && !text.contains("[notice"),
        "{text}"
    );
    assert_eq!(s.finish(), Some(0));

    let vault = home.join("notesoup/vault");
    let as_root = std::fs::metadata(&vault).unwrap().uid() == 0;
    let server = if as_root {
        let chown = |path: &Path, id: u32| {
            std::os::unix::fs::lchown(path, Some(id), Some(id)).unwrap();
        };
        each_path(&scratch.0, &|p| chown(p, 65534));
        each_path(&vault, &|p| chown(p, 0));
        std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o700)).unwrap();
        Server::start_as_nobody(&scratch)
    } else {
        std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o000)).unwrap();
        Server::start(&scratch)
    };
    let mut s = Server::shaken(server);
    let notice = "[notice: notesoup's history vault cannot be read (";
    let once = |text: &str| {
        assert_eq!(text.matches(notice).count(), 1, "{text}");
        assert!(
            text.contains("sessions whose files the harness deleted are left out.]"),
            "{text}"
        );
    };
    let (text, err) = s.call(2, "history_sessions", json!({}));
    assert!(!err && text.starts_with(notice), "{text}");
    once(&text);
    assert!(
        !text.contains("claude:1111") && text.contains("claude:6666"),
        "{text}"
    );
    let (text, err) = s.call(
        3,
        "history_list",
        json!({"session": format!("claude:{kept}")}),
    );
    assert!(err && text.starts_with("notesoup "), "{text}");
    once(&text);
    let (text, err) = s.call(4, "history_list", json!({"session": "claude:6666"}));
    assert!(
        !err && text.starts_with(notice) && text.contains("still on disk"),
        "{text}"
    );
    once(&text);
    assert_eq!(s.finish(), Some(0));
    if !as_root {
        std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}

fn boot_resource() {
    let scratch = Scratch::new("boot");
    let mut s = Server::ready(&scratch);
    let (_, err) = s.call(
        2,
        "notes_write",
        json!({"name": "project/goal", "text": "one brain, two agents\n"}),
    );
    assert!(!err);
    let list = s.request(3, "resources/list", json!({}));
    assert_eq!(
        list["result"]["resources"][0]["uri"], "notesoup://boot",
        "{list}"
    );
    let boot = s.request(4, "resources/read", json!({"uri": "notesoup://boot"}));
    let text = boot["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("<notesoup-boot window=\"mcp:")
            && text.contains("one brain, two agents")
            && !text.contains("empty_brain"),
        "{boot}"
    );
    // No reset flow over MCP: the boot never says the window is cleared, and history names
    // a session explicitly.
    assert!(
        !text.contains("cleared") && !text.contains("last word"),
        "{text}"
    );
    assert!(text.contains("`history_sessions` lists"), "{text}");
    let missing = s.request(5, "resources/read", json!({"uri": "notesoup://nope"}));
    assert!(missing["error"]["code"].is_i64(), "{missing}");
    // The same text as the `boot` prompt, for clients that offer prompts rather than
    // resources.
    let prompts = s.request(6, "prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"][0]["name"], "boot", "{prompts}");
    let prompt = s.request(7, "prompts/get", json!({"name": "boot"}));
    let message = &prompt["result"]["messages"][0];
    assert_eq!(message["role"], "user", "{prompt}");
    assert_eq!(message["content"]["text"].as_str(), Some(text), "{prompt}");
    let missing = s.request(8, "prompts/get", json!({"name": "nope"}));
    assert!(missing["error"]["code"].is_i64(), "{missing}");
    assert_eq!(s.finish(), Some(0));
}

fn malformed_frames() {
    let scratch = Scratch::new("malformed");
    let mut s = Server::ready(&scratch);
    s.send_line("{\"jsonrpc\":\"2.0\",\"id\":9,");
    let r = s.read();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(r["id"].is_null());
    s.send_line(r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"arguments":{}}}"#);
    let r = s.read();
    assert_eq!(r["id"], 10, "{r}");
    assert!(r["error"]["code"].is_i64(), "{r}");
    s.send_line(r#"{"jsonrpc":"2.0","id":13,"method":5}"#);
    let r = s.read();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(13), json!(-32600)),
        "{r}"
    );
    s.send_line(r#"{"jsonrpc":"2.0","id":11,"method":"no/such"}"#);
    let r = s.read();
    assert_eq!(r["id"], 11);
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // In JSON-RPC's words, for a method rmcp knows but this server does not serve too.
    assert_eq!(r["error"]["message"], "Method not found: no/such", "{r}");
    let r = s.request(14, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "boot"}, "argument": {"name": "a", "value": "b"}}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    assert_eq!(
        r["error"]["message"], "Method not found: completion/complete",
        "{r}"
    );
    // A method this server serves, with params that are not that method's: invalid params
    // naming the field (it was `-32601`, "Method not found: resources/read").
    for (id, method, params, field) in [
        (15, "resources/read", json!({}), "uri"),
        (16, "resources/read", json!({"uri": 7}), "string"),
        (17, "prompts/get", json!({"arguments": {}}), "name"),
    ] {
        let r = s.request(id, method, params);
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let message = r["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("Invalid params: `{method}`")) && message.contains(field),
            "{r}"
        );
    }
    // Every list is one page: a cursor (never given out) is invalid params, not the first
    // page again.
    for (id, method) in [
        (18, "tools/list"),
        (19, "resources/list"),
        (20, "prompts/list"),
        (21, "resources/templates/list"),
    ] {
        let r = s.request(id, method, json!({"cursor": "zzz"}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("cursor"),
            "{r}"
        );
    }
    // A line over the bound is refused without being held, and serving goes on.
    s.send_line(&format!(
        "{{\"x\":\"{}\"}}",
        "a".repeat(notesoup_mcp::MAX_LINE + 10)
    ));
    let r = s.read();
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let (text, err) = s.call(12, "notes_list", json!({}));
    assert!(!err, "{text}");
    assert_eq!(s.finish(), Some(0));
}

fn stdin_closed_mid_request() {
    let scratch = Scratch::new("eof");
    let mut s = Server::ready(&scratch);
    let stdin = s.stdin.as_mut().unwrap();
    stdin.write_all(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notes_write","argu"#).unwrap();
    stdin.flush().unwrap();
    assert_eq!(s.finish(), Some(0));
    // Nothing was written: no note, and no temporary file left in the store.
    let leftovers: Vec<_> = walk(&scratch.home().join("notesoup"))
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "md") || p.to_string_lossy().contains("tmp/")
        })
        .filter(|p| p.is_file())
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A whole call sent just before stdin closes is still answered, and its note is whole.
    let mut s = Server::ready(&scratch);
    s.send_line(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "notes_write", "arguments": {"name": "last", "text": "written whole\n"}}}).to_string());
    drop(s.stdin.take());
    let reply = s.read();
    assert_eq!(reply["id"], 3, "{reply}");
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    assert_eq!(s.finish(), Some(0));
    let notes: Vec<_> = walk(&scratch.home().join("notesoup"))
        .into_iter()
        .filter(|p| p.ends_with("notes/last.md"))
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(
        std::fs::read_to_string(&notes[0]).unwrap(),
        "written whole\n"
    );
    // Before the handshake too.
    let s = Server::start(&scratch);
    assert_eq!(s.finish(), Some(0));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn frames_before_initialize() {
    let scratch = Scratch::new("preinit");
    let mut s = Server::start(&scratch);
    // A notification and a response before any request: nothing to act on, dropped (they
    // ended the server with exit 1 before).
    s.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.send_line(r#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    // A request before initialize is answered with an error saying to send `initialize`
    // first (invalid params, as MCP 2026-07-28 answers a request without its _meta), and
    // serving goes on; a ping is answered; a notification after either is still dropped.
    for (id, method) in [(5, "tools/list"), (7, "tools/call")] {
        let early = s.request(id, method, json!({"name": "notes_list", "arguments": {}}));
        assert_eq!(early["error"]["code"], -32602, "{early}");
        let message = early["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("`{method}` came before `initialize`"))
                && message.contains("send `initialize` first"),
            "{early}"
        );
        s.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
    let ping = s.request(6, "ping", json!({}));
    assert!(ping["result"].is_object(), "{ping}");
    s.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    // An `initialize` whose params are not an initialize's is told which field is wrong
    // (it was told it "came before `initialize`"), and the session has not begun.
    for (id, params) in [
        (
            8,
            json!({"protocolVersion": 5, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        ),
        (
            9,
            json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
        ),
    ] {
        let bad = s.request(id, "initialize", params);
        assert_eq!(bad["error"]["code"], -32602, "{bad}");
        let message = bad["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Invalid params: `initialize`")
                && !message.contains("came before")
                && (message.contains("string") || message.contains("clientInfo")),
            "{bad}"
        );
    }
    let init = s.request(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    s.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    let (text, err) = s.call(2, "notes_list", json!({}));
    assert!(!err, "{text}");
    assert_eq!(s.finish(), Some(0));
    // A request that describes itself, as MCP 2026-07-28 has no `initialize`, is served.
    let mut s = Server::start(&scratch);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let listed = s.request(3, "tools/list", json!({"_meta": meta}));
    assert_eq!(
        listed["result"]["tools"][0]["name"], "notes_list",
        "{listed}"
    );
    assert_eq!(s.finish(), Some(0));
}

/// The server's resident memory, in KiB (Linux `/proc`).
fn rss_kib(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

fn bad_frames_leave_nothing_behind() {
    let scratch = Scratch::new("badframes");
    let mut s = Server::ready(&scratch);
    // Warm up, then 200,000 bad frames, each answered: memory must not keep them (it grew
    // by ~577 bytes a frame, +100 MB, before).
    let bad = "{\"jsonrpc\":\"2.0\",\"id\":9,\n".repeat(1000);
    let round = |s: &mut Server| {
        s.stdin.as_mut().unwrap().write_all(bad.as_bytes()).unwrap();
        for _ in 0..1000 {
            assert_eq!(s.read()["error"]["code"], -32700);
        }
    };
    for _ in 0..20 {
        round(&mut s);
    }
    let before = rss_kib(&s.child);
    for _ in 0..200 {
        round(&mut s);
    }
    let after = rss_kib(&s.child);
    println!("bad frames: RSS {before} KiB after 20,000, {after} KiB after 220,000");
    assert!(
        after < before + 20 * 1024,
        "RSS grew from {before} to {after} KiB"
    );
    assert_eq!(s.finish(), Some(0));
}

fn back_pressure() {
    let scratch = Scratch::new("pressure");
    let home = scratch.home();
    // The server with its stdout read by nobody until the end (a peer that stops reading).
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env_clear()
        .env(SERVE, "1")
        .env("HOME", &home)
        .env("NOTESOUP_HOME", home.join("notesoup"))
        .current_dir(scratch.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let line = |stdin: &mut ChildStdin, v: Value| {
        stdin.write_all(format!("{v}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    line(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("\"init\""), "{first}");
    line(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    // 40,000 tools/list requests, no answer read (1.8 GB before). The writer blocks once
    // the pipes and the server's bounded queue are full: the server stopped reading.
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = {
        let sent = std::sync::Arc::clone(&sent);
        // The input stays open until every answer is read (the thread hands it back): an
        // end of input here would start rmcp's drain of the last answers, which gives a
        // reader 5 s (`QuitReason::Closed`), and a loaded machine's reader of 40,000
        // answers can be slower than that (seen once in ten runs beside a CI run).
        std::thread::spawn(move || {
            for id in 0..40_000 {
                let line =
                    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n");
                if stdin.write_all(line.as_bytes()).is_err() {
                    return stdin;
                }
                sent.store(id + 1, std::sync::atomic::Ordering::SeqCst);
            }
            stdin
        })
    };
    // Measure once the writer has finished or has made no progress for a second.
    let mut last = usize::MAX;
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = sent.load(std::sync::atomic::Ordering::SeqCst);
        if now == 40_000 || now == last {
            break;
        }
        last = now;
    }
    let held = rss_kib(&child);
    let sent_now = sent.load(std::sync::atomic::Ordering::SeqCst);
    println!("back-pressure: RSS {held} KiB with no answer read ({sent_now} requests written)");
    assert!(
        sent_now < 40_000,
        "the server read every request though none was answered"
    );
    assert!(held < 200 * 1024, "RSS {held} KiB with the answers unread");
    // Reading again drains it all: every request answered once. Not in a promised order:
    // rmcp writes each answer from a task of its own (`response_send_tasks.spawn` in its
    // service loop), the tasks meet at the transport's writer lock in whatever order the
    // runtime's threads reach it, and JSON-RPC matches answers by id (seen once in CI:
    // 167 before 128).
    let mut ids = Vec::with_capacity(40_000);
    for _ in 0..40_000 {
        let mut reply = String::new();
        stdout.read_line(&mut reply).unwrap();
        let r: Value = serde_json::from_str(&reply).unwrap();
        assert!(r["result"]["tools"].is_array(), "{r}");
        ids.push(r["id"].as_u64().unwrap_or_else(|| panic!("no id: {r}")));
    }
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..40_000),
        "some request unanswered or answered twice"
    );
    drop(writer.join().unwrap());
    let _ = child.kill();
    let _ = child.wait();
}

/// A client that declares roots has its first root that is a folder pick the brain (one
/// that is gone is passed over), unless the person named the folder (`--project`): then
/// its roots are not even asked.
fn roots_pick_the_brain() {
    for pinned in [false, true] {
        let scratch = Scratch::new(if pinned { "roots-pinned" } else { "roots" });
        let other = scratch.0.join("other");
        std::fs::create_dir_all(&other).unwrap();
        let mut s = Server::start_with(&scratch, pinned);
        let init = s.request(1, "initialize", json!({"protocolVersion": "2025-06-18",
            "capabilities": {"roots": {"listChanged": true}}, "clientInfo": {"name": "t", "version": "1"}}));
        assert!(init["result"].is_object(), "{init}");
        s.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        s.send_line(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "notes_write", "arguments": {"name": "where", "text": "here\n"}}})
            .to_string(),
        );
        let mut asked = false;
        let answer = loop {
            let msg = s.read();
            if msg["method"] == "roots/list" {
                asked = true;
                let roots = [
                    json!({"uri": "file:///nonexistent-notesoup-root"}),
                    json!({"uri": format!("file://{}", other.display())}),
                ];
                s.send_line(
                    &json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": roots}})
                        .to_string(),
                );
            } else if msg["id"] == 2 {
                break msg;
            }
        };
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        assert_eq!(asked, !pinned, "roots asked: {asked}");
        let brains: Vec<String> = std::fs::read_dir(scratch.home().join("notesoup/brains"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let want = if pinned { "project-" } else { "other-" };
        assert!(
            brains.len() == 1 && brains[0].starts_with(want),
            "pinned {pinned}: {brains:?}"
        );
        assert_eq!(s.finish(), Some(0));
    }
}

/// Calls sent one after another without waiting for their answers (JSON-RPC lets a client
/// pipeline) take effect in the order they were sent: a read after a write sees it, a
/// delete after them deletes it, a read after the delete finds nothing, every time.
fn pipelined_calls_in_order() {
    let scratch = Scratch::new("pipelined");
    let mut s = Server::ready(&scratch);
    for trial in 0..20_u64 {
        let name = format!("order/t{trial}");
        let text = "x".repeat(20_000) + &format!(" trial {trial}\n");
        let calls = [
            ("notes_write", json!({"name": name, "text": text})),
            ("notes_read", json!({"name": name})),
            ("notes_list", json!({})),
            ("notes_delete", json!({"name": name})),
            ("notes_read", json!({"name": name})),
        ];
        let first = 100 * (trial + 1);
        for (k, (tool, args)) in calls.iter().enumerate() {
            s.send_line(
                &json!({"jsonrpc": "2.0", "id": first + k as u64, "method": "tools/call",
                    "params": {"name": tool, "arguments": args}})
                .to_string(),
            );
        }
        let mut answers = std::collections::BTreeMap::new();
        while answers.len() < calls.len() {
            let msg = s.read();
            let id = msg["id"].as_u64().unwrap_or_else(|| panic!("{msg}"));
            let result = &msg["result"];
            answers.insert(
                id - first,
                (
                    result["content"][0]["text"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    result["isError"] == true,
                ),
            );
        }
        let said = |k: u64| &answers[&k];
        assert!(!said(0).1, "trial {trial}: write {:?}", said(0));
        assert!(
            !said(1).1 && said(1).0.contains(&format!("trial {trial}")),
            "trial {trial}: the read after the write: {:?}",
            said(1).0.get(..200)
        );
        assert!(
            said(2).0.contains(&name),
            "trial {trial}: list {:?}",
            said(2)
        );
        assert!(!said(3).1, "trial {trial}: delete {:?}", said(3));
        assert!(
            said(4).1 && said(4).0.contains("not_found"),
            "trial {trial}: the read after the delete {:?}",
            said(4).0.get(..200)
        );
    }
    assert_eq!(s.finish(), Some(0));
}

/// A `notes_write` cancelled (`notifications/cancelled`) while it waits its turn behind a
/// call still running never runs: no answer, and no note. The call ahead of it is held
/// without any timing: it waits on the server's `roots/list` question, which the client
/// answers only after the cancel has been read (the ping sent after it is answered).
fn cancelled_while_waiting() {
    let scratch = Scratch::new("cancelled");
    let mut s = Server::start(&scratch);
    let init = s.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18",
        "capabilities": {"roots": {}}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init["result"].is_object(), "{init}");
    s.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    let call = |id: u64, tool: &str, args: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}})
        .to_string()
    };
    s.send_line(&call(2, "notes_list", json!({})));
    let ask = s.read();
    assert_eq!(ask["method"], "roots/list", "{ask}");
    s.send_line(&call(
        3,
        "notes_write",
        json!({"name": "cancelled", "text": "no\n"}),
    ));
    s.send_line(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
            .to_string(),
    );
    let pong = s.request(4, "ping", json!({}));
    assert!(pong["result"].is_object(), "{pong}");
    let roots = [json!({"uri": format!("file://{}", scratch.project().display())})];
    s.send_line(
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": roots}}).to_string(),
    );
    let listed = s.read();
    assert_eq!(listed["id"], 2, "{listed}");
    // The next answer is the read's: the cancelled write has none.
    let (text, err) = s.call(5, "notes_read", json!({"name": "cancelled"}));
    assert!(
        err && text.contains("not_found"),
        "the cancelled write ran: {text}"
    );
    assert_eq!(s.finish(), Some(0));
}
