//! The `notesoup` binary end to end: every subcommand against a real notes store and the
//! real Claude, Pi and Codex transcripts in `app/tests/data/`, in a temp HOME with
//! nothing but what each test puts there. Output is checked by insta snapshots
//! (`cli/tests/cli/snapshots/`; `cargo insta review` after an intended change), with the temp
//! folder written as `[TMP]` and note times as `[TIME]`.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use notesoup_notes::{Brain, store_root};

const BIN: &str = env!("CARGO_BIN_EXE_notesoup");

mod doctor;
mod history;
mod limits;
mod notes;
mod search;
mod stream;
mod surface;
mod vault;
mod width;
mod zone;

/// A temp machine: HOME, a notes home, a project (a git root), and each harness's session
/// folder holding copies of the real fixtures (with fixed, distinct modification times so
/// "newest first" is the same on every checkout).
struct World {
    root: PathBuf,
    vars: Vec<(String, String)>,
}

impl World {
    fn new(name: &str) -> Self {
        let root = std::env::temp_dir().join(format!("notesoup-cli-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for dir in ["home", "project/.git", "project/sub", "other", "tmp"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/tests/data/xharness");
        copy_tree(&data.join("claude-projects"), &root.join("claude/projects"));
        copy_tree(&data.join("pi-sessions"), &root.join("pi"));
        copy_tree(&data.join("codex-sessions"), &root.join("codex/sessions"));
        let p = |s: &str| root.join(s).to_str().unwrap().to_owned();
        let vars = vec![
            ("HOME".into(), p("home")),
            ("NOTESOUP_HOME".into(), p("notesoup")),
            ("CLAUDE_CONFIG_DIR".into(), p("claude")),
            ("PI_CODING_AGENT_SESSION_DIR".into(), p("pi")),
            ("CODEX_HOME".into(), p("codex")),
            ("TMPDIR".into(), p("tmp")),
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("COLUMNS".into(), "100".into()),
            // Times show in the person's zone: every test fixes it (another with `set`).
            ("TZ".into(), "UTC".into()),
        ];
        Self { root, vars }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn set(&mut self, name: &str, value: &str) {
        self.vars.retain(|(k, _)| k != name);
        self.vars.push((name.into(), value.into()));
    }

    fn unset(&mut self, name: &str) {
        self.vars.retain(|(k, _)| k != name);
    }

    fn brain(&self) -> Brain {
        let root = store_root(Some(self.path("notesoup").to_str().unwrap()), None, None).unwrap();
        Brain::open(&root, &self.path("project")).unwrap()
    }

    /// `notesoup <args>` to run in the project's `sub` folder with the world's variables
    /// alone.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .env_clear()
            .envs(self.vars.iter().cloned())
            .current_dir(self.path("project/sub"));
        command
    }

    /// `notesoup <args>` in the project's `sub` folder, stdout a pipe.
    fn run(&self, args: &[&str]) -> Run {
        let out = self.command(args).output().unwrap();
        Run::new(&out, &self.root)
    }

    /// `notesoup <args>` in the project's `sub` folder, killed past `limit` seconds (`hang`
    /// names the failure then): a test of something that once hung fails instead of hanging.
    fn run_bounded(&self, args: &[&str], limit: u64, hang: &str) -> Output {
        let mut child = self
            .command(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(limit);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{hang}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait_with_output().unwrap()
    }

    /// `notesoup <args>` in the project's `sub` folder with `input` on stdin.
    fn run_stdin(&self, args: &[&str], input: &[u8]) -> Run {
        use std::io::Write as _;
        let mut child = self
            .command(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A refusal may close stdin before reading it all: a broken pipe is fine.
        let _ = child.stdin.take().unwrap().write_all(input);
        Run::new(&child.wait_with_output().unwrap(), &self.root)
    }

    /// `notesoup <args>` with stdout on a terminal: a real pty from util-linux's `script`
    /// (in Debian's base system, bsdutils), of no size (`COLUMNS`, else 80, gives the width).
    fn run_on_terminal(&self, args: &[&str]) -> String {
        self.run_on_terminal_of(None, args)
    }

    /// [`World::run_on_terminal`] on a terminal `columns` wide (set with `stty`), when given.
    fn run_on_terminal_of(&self, columns: Option<u16>, args: &[&str]) -> String {
        let size = columns.map_or_else(String::new, |c| format!("stty cols {c} rows 50; "));
        let command = std::iter::once(format!("{size}{BIN}"))
            .chain(args.iter().map(|a| (*a).to_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        let out = Command::new("/usr/bin/script")
            .args(["-qec", &command, "/dev/null"])
            .env_clear()
            .envs(self.vars.iter().cloned())
            .current_dir(self.path("project/sub"))
            .output()
            .unwrap();
        scrub(&String::from_utf8_lossy(&out.stdout), &self.root)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    let mut files = Vec::new();
    collect(from, &mut files);
    files.sort();
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_000_000);
    for (i, file) in files.iter().enumerate() {
        let dest = to.join(file.strip_prefix(from).unwrap());
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::copy(file, &dest).unwrap();
        let f = fs::File::options().write(true).open(&dest).unwrap();
        f.set_modified(base + Duration::from_secs(60 * i as u64))
            .unwrap();
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The temp folder as `[TMP]`, note times as `[TIME]`, the parts of names that change per
/// run (process ids, the brain folder's hash of the temp path, trash entries' times) as
/// placeholders, and the line ends a pty adds removed.
fn scrub(text: &str, root: &Path) -> String {
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").unwrap();
    let edit_file = regex::Regex::new(r"notesoup-(\S+)-\d+-\d+\.md").unwrap();
    // The checkout this binary was built from, which doctor's fixes name (its scripts).
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = text
        .replace(root.to_str().unwrap(), "[TMP]")
        .replace(checkout.to_str().unwrap(), "[CHECKOUT]")
        .replace("\r\n", "\n");
    let text = time.replace_all(&text, "[TIME]");
    let text = edit_file.replace_all(&text, "notesoup-$1-[PID]-[MS].md");
    let brain = regex::Regex::new(r"brains/([a-z0-9_]+)-[0-9a-f]{16}").unwrap();
    let text = brain.replace_all(&text, "brains/$1-[HASH]");
    let trashed = regex::Regex::new(r"trash/\d{13}~").unwrap();
    trashed.replace_all(&text, "trash/[MS]~").into_owned()
}

struct Run {
    raw_stderr: String,
    stdout: String,
    stderr: String,
    exit: i32,
}

impl Run {
    fn new(out: &Output, root: &Path) -> Self {
        Self {
            raw_stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout: scrub(&String::from_utf8_lossy(&out.stdout), root),
            stderr: scrub(&String::from_utf8_lossy(&out.stderr), root),
            exit: out.status.code().unwrap_or(-1),
        }
    }

    /// Everything a person sees, for one snapshot.
    fn shown(&self) -> String {
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            self.exit, self.stdout, self.stderr
        )
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
}

fn seed(world: &World) {
    let brain = world.brain();
    brain
        .write("plan", "1. fix lex()\n2. ship\n", None)
        .unwrap();
    brain
        .write("project/build", "cargo build --locked\n", None)
        .unwrap();
    brain.write("todo", "a: todo\nb: todo\n", None).unwrap();
}

/// An editor script: the file to edit is its last argument.
fn editor(world: &World, name: &str, body: &str) -> String {
    let path = world.path(&format!("{name}.sh"));
    fs::write(&path, format!("#!/bin/sh\nset -e\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.to_str().unwrap().to_owned()
}

/// Each object of the JSON array `list` as its text field `text` and its number `count`.
fn text_and_count(list: &serde_json::Value, text: &str, count: &str) -> Vec<(String, u64)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o[text].as_str().unwrap().to_owned(),
                o[count].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The Claude session files' modification times set to `days` ago: doctor's vault line
/// weighs their age against Claude's cleanup, so a fixed time would change its answer as
/// the calendar moves.
fn age_claude_files(world: &World, days: u64) {
    let mut files = Vec::new();
    collect(&world.path("claude/projects"), &mut files);
    let at = SystemTime::now() - Duration::from_secs(days * 86_400);
    for file in files {
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }
}

/// Every warning and failure of a doctor report is followed by its fix line.
/// Every `warn` and `fail` line of a doctor run is followed by its fix, and the fix names
/// real paths and commands: no stand-in such as `<checkout>` or `/path/to/claude`. The
/// counts line adds up.
fn assert_every_problem_has_a_fix(run: &Run) {
    let stand_in = regex::Regex::new(r"<[a-z][a-z _-]*>|/path/to\b").unwrap();
    let lines: Vec<&str> = run.stdout.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("warn ") || line.starts_with("fail ") {
            let fix = lines
                .get(i + 1)
                .filter(|next| next.trim_start().starts_with("fix: "));
            let fix = fix.unwrap_or_else(|| panic!("no fix for `{line}`:\n{}", run.stdout));
            assert!(
                !stand_in.is_match(fix),
                "a stand-in instead of a real path in `{fix}`:\n{}",
                run.stdout
            );
        }
    }
    let count = |label: &str| lines.iter().filter(|l| l.starts_with(label)).count();
    let tally = format!(
        "{} ok, {} skipped, {} warning{}, {} failed",
        count("ok "),
        count("skip "),
        count("warn "),
        if count("warn ") == 1 { "" } else { "s" },
        count("fail ")
    );
    assert!(
        lines.last().is_some_and(|l| l.contains(&tally)),
        "the last line does not count {tally}:\n{}",
        run.stdout
    );
}

fn make_executable(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// A Claude session of two prompts and an answer, written into the world's Claude folder:
/// `cwd` is where it ran, the answer holds `answer` (raw control characters welcome).
fn claude_session(world: &World, id: &str, cwd: &str, started: &str, answer: &str) {
    let line = |uuid: &str, parent: Option<&str>, kind: &str, content: serde_json::Value| {
        serde_json::json!({
            "parentUuid": parent, "isSidechain": false, "type": kind,
            "message": {"role": kind, "content": content},
            "uuid": uuid, "timestamp": started, "cwd": cwd, "sessionId": id,
            "version": "2.1.319"
        })
        .to_string()
    };
    let text = |t: &str| serde_json::json!([{"type": "text", "text": t}]);
    let lines = [
        line(
            "u1",
            None,
            "user",
            serde_json::json!("Where is the Parser bug?"),
        ),
        line("a1", Some("u1"), "assistant", text(answer)),
        line("u2", Some("a1"), "user", serde_json::json!("thanks")),
    ];
    let dir = world.path("claude/projects/-made");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}
