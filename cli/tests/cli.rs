//! The `notesoup` binary end to end: every subcommand against a real notes store and the
//! real Claude, Pi and Codex transcripts in `app/tests/data/`, in a temp HOME with
//! nothing but what each test puts there. Output is checked by insta snapshots
//! (`cli/tests/snapshots/`; `cargo insta review` after an intended change), with the temp
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
    /// (in Debian's base system, bsdutils).
    fn run_on_terminal(&self, args: &[&str]) -> String {
        let command = std::iter::once(BIN.to_owned())
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

#[test]
fn help_for_every_subcommand_has_an_example() {
    let world = World::new("help");
    let top = world.run(&["--help"]);
    assert_eq!(top.exit, 0);
    insta::assert_snapshot!("help", top.stdout);
    for sub in [
        "notes",
        "notes list",
        "notes show",
        "notes edit",
        "notes rm",
        "notes trash",
        "notes restore",
        "notes write",
        "notes append",
        "notes grep",
        "notes brains",
        "history",
        "history sessions",
        "history search",
        "history show",
        "history vault",
        "history forget",
        "limits",
        "doctor",
        "mcp",
        "completions",
        "man",
    ] {
        let mut args: Vec<&str> = sub.split(' ').collect();
        args.push("--help");
        let run = world.run(&args);
        assert_eq!(run.exit, 0, "{sub}: {}", run.stderr);
        assert!(
            run.stdout.contains("Example"),
            "`notesoup {sub} --help` has no example:\n{}",
            run.stdout
        );
    }
    insta::assert_snapshot!(
        "help_notes_edit",
        world.run(&["notes", "edit", "--help"]).stdout
    );
    insta::assert_snapshot!("help_doctor", world.run(&["doctor", "--help"]).stdout);
    insta::assert_snapshot!(
        "help_notes_restore",
        world.run(&["notes", "restore", "--help"]).stdout
    );
}

#[test]
fn a_wrong_command_line_exits_2_and_says_so() {
    let world = World::new("usage");
    let run = world.run(&["notes", "frobnicate"]);
    assert_eq!(run.exit, 2);
    insta::assert_snapshot!("usage_error", run.shown());
}

#[test]
fn notes_list_show_rm_against_a_real_store() {
    let world = World::new("notes");
    seed(&world);
    insta::assert_snapshot!("notes_list", world.run(&["notes"]).shown());
    insta::assert_snapshot!(
        "notes_list_folder",
        world.run(&["notes", "list", "project/"]).shown()
    );
    insta::assert_snapshot!("notes_show", world.run(&["notes", "show", "plan"]).shown());
    let rm = world.run(&["notes", "rm", "project/build"]);
    insta::assert_snapshot!("notes_rm", rm.shown());
    assert!(world.brain().read("project/build").is_err());
    insta::assert_snapshot!(
        "notes_show_missing",
        world.run(&["notes", "show", "project/build"]).shown()
    );
    insta::assert_snapshot!(
        "notes_bad_name",
        world.run(&["notes", "show", "../escape"]).shown()
    );
    // Another project's brain is another brain.
    let other = world.run(&["notes", "--project", world.path("other").to_str().unwrap()]);
    insta::assert_snapshot!("notes_other_project", other.shown());
}

/// The names the trash holds, newest first.
fn trash_names(world: &World) -> Vec<String> {
    world
        .brain()
        .trash()
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect()
}

#[test]
fn notes_trash_and_restore() {
    let world = World::new("trash");
    seed(&world);
    insta::assert_snapshot!("notes_trash_empty", world.run(&["notes", "trash"]).shown());
    let plan = world.brain().read("plan").unwrap();
    assert_eq!(world.run(&["notes", "rm", "plan"]).exit, 0);
    assert_eq!(world.run(&["notes", "rm", "project/build"]).exit, 0);
    insta::assert_snapshot!("notes_trash", world.run(&["notes", "trash"]).shown());
    let json = world.run(&["notes", "trash", "--json"]).json();
    let names: Vec<&str> = json["trash"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"plan") && names.contains(&"project/build"));

    // Restored: reads back exactly, and the trash entry is gone.
    let run = world.run(&["notes", "restore", "plan"]);
    insta::assert_snapshot!("notes_restore", run.shown());
    let back = world.brain().read("plan").unwrap();
    assert_eq!((back.text, back.version), (plan.text, plan.version));
    assert_eq!(trash_names(&world), ["project/build"]);

    // A newer note of that name: refused with exit 3, naming --force; nothing changes.
    world
        .brain()
        .write("project/build", "make\n", None)
        .unwrap();
    let refused = world.run(&["notes", "restore", "project/build"]);
    assert_eq!(refused.exit, 3, "{}", refused.shown());
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    insta::assert_snapshot!("notes_restore_newer", refused.shown());
    assert_eq!(world.brain().read("project/build").unwrap().text, "make\n");
    assert_eq!(trash_names(&world), ["project/build"]);
    let json = world.run(&["notes", "restore", "project/build", "--json"]);
    assert_eq!(json.exit, 3);
    assert_eq!(json.json()["error"]["code"], "exists");

    // --force: the deleted copy is back, the newer note is in the trash.
    let forced = world.run(&["notes", "restore", "project/build", "--force"]);
    insta::assert_snapshot!("notes_restore_force", forced.shown());
    assert_eq!(
        world.brain().read("project/build").unwrap().text,
        "cargo build --locked\n"
    );
    let trash = world.brain().trash().unwrap();
    assert_eq!(trash.len(), 1);
    assert_eq!(fs::read_to_string(&trash[0].file).unwrap(), "make\n");

    // Nothing of that name in the trash.
    insta::assert_snapshot!(
        "notes_restore_missing",
        world.run(&["notes", "restore", "never"]).shown()
    );
}

#[test]
fn notes_json_is_one_document_with_versions() {
    let world = World::new("notes-json");
    seed(&world);
    let list = world.run(&["notes", "--json"]).json();
    assert_eq!(list["ok"], true);
    let names: Vec<&str> = list["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["plan", "project/build", "todo"]);
    assert_eq!(
        list["notes"][0]["version"],
        world.brain().read("plan").unwrap().version.as_str()
    );
    let show = world.run(&["notes", "show", "plan", "--json"]).json();
    assert_eq!(show["text"], "1. fix lex()\n2. ship\n");
    let missing = world.run(&["notes", "show", "nope", "--json"]);
    assert_eq!(missing.exit, 1);
    insta::assert_snapshot!("notes_show_missing_json", missing.stdout);
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

#[test]
fn edit_writes_back_with_the_version_check() {
    let mut world = World::new("edit");
    seed(&world);
    let ed = editor(&world, "ed", r#"sed -i 's/a: todo/a: done/' "$1""#);
    world.set("EDITOR", &ed);
    let run = world.run(&["notes", "edit", "todo"]);
    insta::assert_snapshot!("edit_saved", run.shown());
    assert_eq!(
        world.brain().read("todo").unwrap().text,
        "a: done\nb: todo\n"
    );
    // VISUAL wins over EDITOR; an unchanged file writes nothing.
    world.set("VISUAL", "true");
    insta::assert_snapshot!(
        "edit_unchanged",
        world.run(&["notes", "edit", "todo"]).shown()
    );
    // A new note starts empty.
    world.unset("VISUAL");
    let new = editor(&world, "new", r#"printf 'fresh\n' > "$1""#);
    world.set("EDITOR", &new);
    assert_eq!(world.run(&["notes", "edit", "ideas/fresh"]).exit, 0);
    assert_eq!(world.brain().read("ideas/fresh").unwrap().text, "fresh\n");
    // The temp files are gone.
    assert_eq!(fs::read_dir(world.path("tmp")).unwrap().count(), 0);
}

#[test]
fn edit_never_loses_a_concurrent_write() {
    let mut world = World::new("edit-race");
    seed(&world);
    // While the person edits `todo`, the agent (another process, through the same store)
    // changes it; then the person saves.
    let agent = editor(
        &world,
        "agent",
        r#"sed -i 's/b: todo/b: agent did it/' "$1""#,
    );
    let person = editor(
        &world,
        "person",
        &format!(
            "EDITOR={agent} {BIN} notes edit todo >/dev/null\nsed -i 's/a: todo/a: person did it/' \"$1\""
        ),
    );
    world.set("EDITOR", &person);
    let run = world.run(&["notes", "edit", "todo"]);
    assert_eq!(run.exit, 3, "{}", run.shown());
    insta::assert_snapshot!("edit_conflict", run.shown());
    // The agent's write stands; the person's text is kept in the named file.
    assert_eq!(
        world.brain().read("todo").unwrap().text,
        "a: todo\nb: agent did it\n"
    );
    let kept = run
        .raw_stderr
        .lines()
        .find_map(|l| l.strip_prefix("  file: "))
        .unwrap();
    assert_eq!(
        fs::read_to_string(kept).unwrap(),
        "a: person did it\nb: todo\n"
    );
}

#[test]
fn edit_of_a_new_note_never_overwrites_one_the_agent_created_meanwhile() {
    let mut world = World::new("edit-create-race");
    // The person starts a note that does not exist; while the editor is open the agent
    // (another process, through the same store) creates it; then the person saves.
    let agent = editor(&world, "agent", r#"printf 'from the agent\n' > "$1""#);
    let person = editor(
        &world,
        "person",
        &format!(
            "EDITOR={agent} {BIN} notes edit ideas/new >/dev/null\nprintf 'from the person\\n' > \"$1\""
        ),
    );
    world.set("EDITOR", &person);
    let run = world.run(&["notes", "edit", "ideas/new"]);
    assert_eq!(run.exit, 3, "{}", run.shown());
    insta::assert_snapshot!("edit_create_conflict", run.shown());
    assert_eq!(
        world.brain().read("ideas/new").unwrap().text,
        "from the agent\n"
    );
    let kept = run
        .raw_stderr
        .lines()
        .find_map(|l| l.strip_prefix("  file: "))
        .unwrap();
    assert_eq!(fs::read_to_string(kept).unwrap(), "from the person\n");
}

#[test]
fn edit_refuses_without_an_editor_or_when_it_fails() {
    let mut world = World::new("edit-fail");
    seed(&world);
    insta::assert_snapshot!(
        "edit_no_editor",
        world.run(&["notes", "edit", "plan"]).shown()
    );
    world.set("EDITOR", "false");
    let run = world.run(&["notes", "edit", "plan"]);
    assert_eq!(run.exit, 1);
    assert!(
        run.stderr
            .contains("the editor `false` exited with exit status: 1"),
        "{}",
        run.stderr
    );
    assert_eq!(
        world.brain().read("plan").unwrap().text,
        "1. fix lex()\n2. ship\n"
    );
    // Nothing was edited: no copy of the note is left behind, and none is named.
    let left = |world: &World| {
        fs::read_dir(world.path("tmp"))
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("notesoup-plan-")
            })
            .count()
    };
    assert_eq!(left(&world), 0, "{}", run.stderr);
    assert!(!run.stderr.contains("--file"), "{}", run.stderr);
    // Edited, then failed (vim's :cq after a change): the text is kept, and named.
    let ed = editor(&world, "cq", r#"printf 'half done\n' > "$1"; exit 1"#);
    world.set("EDITOR", &ed);
    let run = world.run(&["notes", "edit", "plan"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert_eq!(left(&world), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("notesoup notes write plan --file"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_editor_that_leaves_a_fifo_is_refused_at_once_and_the_note_kept() {
    let mut world = World::new("edit-fifo");
    seed(&world);
    let ed = editor(&world, "fifo", r#"rm "$1"; mkfifo "$1""#);
    world.set("EDITOR", &ed);
    // Reading the FIFO back would wait for a writer that never comes: bounded here so the
    // old behaviour fails the test instead of hanging it.
    let out = world.run_bounded(
        &["notes", "edit", "plan"],
        30,
        "notes edit hung on a FIFO left by the editor",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    assert_eq!(
        world.brain().read("plan").unwrap().text,
        "1. fix lex()\n2. ship\n"
    );
}

#[test]
fn a_relative_notesoup_home_is_refused_with_the_fix() {
    let mut world = World::new("relative-home");
    world.set("NOTESOUP_HOME", "notes-here");
    let run = world.run(&["notes"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(run.stderr.contains("absolute path"), "{}", run.stderr);
    assert!(!world.path("project/sub/notes-here").exists());
}

#[test]
fn history_sessions_of_every_harness() {
    let world = World::new("sessions");
    insta::assert_snapshot!(
        "history_sessions",
        world.run(&["history", "sessions"]).shown()
    );
    insta::assert_snapshot!(
        "history_sessions_pi",
        world
            .run(&["history", "sessions", "--harness", "pi", "--limit", "1"])
            .shown()
    );
    let json = world.run(&["history", "sessions", "--json"]).json();
    assert_eq!(json["total"], 7);
    assert_eq!(json["sessions"].as_array().unwrap().len(), 7);
    // Newest first by when each file was last written, which each row says (`updated`).
    let updated: Vec<&str> = json["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["updated"].as_str().unwrap())
        .collect();
    assert!(updated.windows(2).all(|w| w[0] >= w[1]), "{updated:?}");
    // `list`, as the other tools' list commands are named, is the same command.
    assert_eq!(world.run(&["history", "list", "--json"]).json(), json);
    let bad = world.run(&["history", "sessions", "--limit", "0"]);
    insta::assert_snapshot!("history_sessions_bad_limit", bad.shown());
}

/// A person's listing is not the model's: more sessions than fit the model's 32 KiB answer
/// are all listed when asked for, and the footer names the limit that lists them all (it
/// once stopped at what fit, and named the limit just given).
#[test]
fn history_sessions_lists_as_many_as_asked() {
    let mut world = World::new("many-sessions");
    world.set("CLAUDE_CONFIG_DIR", world.path("many").to_str().unwrap());
    let dir = world.path("many/projects/-work-app");
    fs::create_dir_all(&dir).unwrap();
    let prompt =
        "a first prompt long enough that a few hundred of them fill the model's answer ".repeat(2);
    for i in 0..300 {
        let id = format!("00000000-0000-4000-8000-{i:012}");
        let row = serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null,
            "isSidechain": false, "sessionId": id, "cwd": "/work/app",
            "message": {"role": "user", "content": format!("{prompt}{i}")}});
        fs::write(dir.join(format!("{id}.jsonl")), format!("{row}\n")).unwrap();
    }
    let listed = world
        .run(&[
            "history",
            "sessions",
            "--harness",
            "claude",
            "--limit",
            "250",
            "--json",
        ])
        .json();
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 250);
    assert_eq!(listed["total"], 300);
    let text = world.run(&[
        "history",
        "sessions",
        "--harness",
        "claude",
        "--limit",
        "250",
        "--no-pager",
    ]);
    assert_eq!(text.stdout.lines().count(), 251, "a header and 250 rows");
    assert!(
        text.stderr
            .contains("250 of 300 sessions shown; --limit 300 shows them all"),
        "{}",
        text.stderr
    );
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

#[test]
fn history_search_one_session_and_all() {
    let world = World::new("search");
    insta::assert_snapshot!(
        "history_search_session",
        world
            .run(&[
                "history",
                "search",
                "prime",
                "--session",
                "pi:01a23754-8e37",
                "--limit",
                "2"
            ])
            .shown()
    );
    insta::assert_snapshot!(
        "history_search_all",
        world.run(&["history", "search", "even prime"]).shown()
    );
    insta::assert_snapshot!(
        "history_search_none",
        world
            .run(&["history", "search", "no such text anywhere"])
            .shown()
    );
    // -l and -c (as rg): the matching sessions alone, and each with its count, in the
    // order and with the counts the JSON gives.
    let all = world.run(&["history", "search", "prime", "--json"]).json();
    let hits = text_and_count(&all["sessions"], "session", "matches");
    assert!(hits.len() > 1, "{all}");
    let listed = world.run(&["history", "search", "prime", "-l"]);
    assert_eq!(listed.exit, 0, "{}", listed.shown());
    let want: Vec<&str> = hits.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(listed.stdout.lines().collect::<Vec<_>>(), want);
    let counted = world.run(&["history", "search", "prime", "--count"]);
    let want: Vec<String> = hits.iter().map(|(s, n)| format!("{s}:{n}")).collect();
    assert_eq!(counted.stdout.lines().collect::<Vec<_>>(), want);
    assert_eq!(
        world
            .run(&["history", "search", "no such text anywhere", "-l"])
            .exit,
        1
    );
    // A --project no session ran in says so, not only "in 0 sessions".
    let nowhere = world.run(&[
        "history",
        "search",
        "prime",
        "--project",
        "/no/such/project",
    ]);
    assert_eq!(nowhere.exit, 1, "{}", nowhere.shown());
    assert!(
        nowhere.stderr.contains(
            "in 0 sessions; no session ran in /no/such/project (no such folder here either)"
        ),
        "{}",
        nowhere.stderr
    );
    let json = world
        .run(&[
            "history",
            "search",
            "In this fork, name a colour.",
            "--json",
        ])
        .json();
    let sessions: Vec<&str> = json["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["codex:01a23756-b853-7e01-94a2-1ae0a322f736"]);
    assert_eq!(json["searched"], 7);
}

/// A session with a committed line that is no record is refused (the spec's "malformed
/// committed JSONL lines still refuse explicitly"), and a search says so with the line,
/// not only "no match".
#[test]
fn history_search_names_a_session_it_could_not_read() {
    let world = World::new("search-torn");
    let file =
        world.path("claude/projects/-tmp-project/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    let text = fs::read_to_string(&file).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(3, r#"{"type":"user","mess"#);
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let run = world.run(&["history", "search", "first window", "--harness", "claude"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stderr
            .contains("claude:da56055c-293e-4422-b5b8-62b1c7e6c03d could not be read: transcript ")
            && run.stderr.contains("line 4: not a transcript record")
            && run
                .stderr
                .contains("1 session could not be read (said above)"),
        "{}",
        run.stderr
    );
    let json = world
        .run(&[
            "history",
            "search",
            "first window",
            "--harness",
            "claude",
            "--json",
        ])
        .json();
    assert_eq!(
        json["skipped"][0]["session"], "claude:da56055c-293e-4422-b5b8-62b1c7e6c03d",
        "{json}"
    );
}

#[test]
fn history_show_pages_windows_and_seqs() {
    let world = World::new("show");
    insta::assert_snapshot!(
        "history_show",
        world
            .run(&["history", "show", "claude:da56055c", "--limit", "4"])
            .shown()
    );
    insta::assert_snapshot!(
        "history_show_cursor",
        world
            .run(&[
                "history",
                "show",
                "claude:da56055c",
                "--limit",
                "4",
                "--cursor",
                "s54"
            ])
            .shown()
    );
    insta::assert_snapshot!(
        "history_show_window",
        world
            .run(&[
                "history",
                "show",
                "codex:01a23756-b853",
                "--window",
                "0",
                "--limit",
                "3"
            ])
            .shown()
    );
    insta::assert_snapshot!(
        "history_show_seq",
        world
            .run(&["history", "show", "claude:da56055c", "--seq", "21"])
            .shown()
    );
    let json = world
        .run(&[
            "history",
            "show",
            "pi:01a23754-8e37",
            "--limit",
            "2",
            "--json",
        ])
        .json();
    assert_eq!(json["ok"], true);
    assert_eq!(json["session"], "pi:01a23754-8e37-7027-8822-e05ee3580bae");
    assert_eq!(json["events"].as_array().unwrap().len(), 2);
    insta::assert_snapshot!(
        "history_show_ambiguous",
        world.run(&["history", "show", "pi:01a23754"]).shown()
    );
    insta::assert_snapshot!(
        "history_show_unknown",
        world.run(&["history", "show", "gemini:abc"]).shown()
    );
}

/// `limits --harness pi` reads what Pi reads, as the Pi extension resolves it: the global
/// settings file, the project's over it once Pi trusts the project (`trust.json`), the
/// default model's override and its window in `models.json`; a reserve not below the
/// window is refused naming it, and a model that is not `provider/id` is a usage error.
#[test]
fn limits_for_pi_reads_what_pi_reads() {
    let mut world = World::new("limits-pi");
    let agent = world.path("pi-agent");
    fs::create_dir_all(&agent).unwrap();
    world.set("PI_CODING_AGENT_DIR", agent.to_str().unwrap());
    fs::write(
        agent.join("settings.json"),
        r#"{"compaction": {"reserveTokens": 30000}, "notesoup": {"warningRunwayTokens": "abc"}}"#,
    )
    .unwrap();
    let project = world.path("project/sub");
    fs::create_dir_all(project.join(".pi")).unwrap();
    fs::write(
        project.join(".pi/settings.json"),
        r#"{"notesoup": {"resetMarginTokens": 4000}}"#,
    )
    .unwrap();
    let points = |world: &World, args: &[&str]| {
        let json = world
            .run(&[&["limits", "--harness", "pi", "--json"], args].concat())
            .json();
        [&json["native"], &json["clear"], &json["warning"]].map(|v| v.as_u64().unwrap_or(0))
    };
    // Not trusted: the project's margin is not read (200000 − 30000; 8192; the runway's
    // default, the global "abc" ignored).
    insta::assert_snapshot!(
        "limits_pi",
        world.run(&["limits", "--harness", "pi"]).shown()
    );
    assert_eq!(points(&world, &[]), [170_000, 161_808, 145_424]);
    // Trusted (the nearest decided folder: its parent), the project's margin counts.
    let parent = fs::canonicalize(world.path("project")).unwrap();
    fs::write(
        agent.join("trust.json"),
        format!(r#"{{"{}": true}}"#, parent.display()),
    )
    .unwrap();
    assert_eq!(
        points(&world, &["--window", "100k"]),
        [70_000, 66_000, 49_616]
    );
    // The default model's override, and its window from models.json.
    fs::write(
        agent.join("settings.json"),
        r#"{"defaultProvider": "anthropic", "defaultModel": "m1",
            "compaction": {"reserveTokens": 30000, "modelOverrides": {"anthropic/m1": {"reserveTokens": 50000}}}}"#,
    )
    .unwrap();
    fs::write(
        agent.join("models.json"),
        r#"{"providers": {"anthropic": {"modelOverrides": {"m1": {"contextWindow": 150000}}}}}"#,
    )
    .unwrap();
    assert_eq!(points(&world, &[]), [100_000, 96_000, 79_616]);
    assert_eq!(
        points(&world, &["--model", "anthropic/m2"]),
        [170_000, 166_000, 149_616]
    );
    let run = world.run(&["limits", "--harness", "pi", "--model", "m1"]);
    assert_eq!(run.exit, 2, "{}", run.shown());
    assert!(
        run.stderr.contains("--model anthropic/claude-sonnet-4-5"),
        "{}",
        run.stderr
    );
    fs::write(
        project.join(".pi/settings.json"),
        r#"{"compaction": {"modelOverrides": {"anthropic/m1": {"reserveTokens": 250000}}}}"#,
    )
    .unwrap();
    let run = world.run(&["limits", "--harness", "pi"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stderr.contains(
            "Pi's compaction.reserveTokens is 250,000, not below the model's 150,000-token window"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn limits_from_settings_and_environment() {
    let mut world = World::new("limits");
    insta::assert_snapshot!("limits_default", world.run(&["limits"]).shown());
    fs::write(
        world.path("claude/settings.json"),
        r#"{"notesoup": {"resetMarginTokens": 4096}, "env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}}"#,
    )
    .unwrap();
    fs::create_dir_all(world.path("project/.claude")).unwrap();
    fs::write(
        world.path("project/.claude/settings.json"),
        r#"{"autoCompactWindow": 400000, "notesoup": {"warningRunwayTokens": "lots"}}"#,
    )
    .unwrap();
    world.set("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "500k");
    let run = world.run(&[
        "limits",
        "--project",
        "..",
        "--window",
        "1m",
        "--model",
        "claude-opus-4-7",
    ]);
    insta::assert_snapshot!("limits_settings", run.shown());
    let json = world
        .run(&[
            "limits",
            "--project",
            "..",
            "--window",
            "1m",
            "--cap",
            "300k",
            "--json",
        ])
        .json();
    // The numbers are notesoup-thresholds' own: min(400k settings, 500k env) then the cap.
    assert_eq!(json["source"], "window");
    assert_eq!(json["cap"], 300_000);
    // The JSON names the points as the text does: warning, clear, native.
    assert!(json.get("hard").is_none(), "{json}");
    assert!(json["clear"].as_u64().unwrap() < json["native"].as_u64().unwrap());
    assert_eq!(json["margins"][1]["valid"], false);
    insta::assert_snapshot!(
        "limits_bad_cap",
        world.run(&["limits", "--cap", "a lot"]).shown()
    );
    // A window too small for the margins: the fix says by how much and what to change.
    let small = world.run(&["limits", "--window", "2k"]);
    assert_eq!(small.exit, 1, "{}", small.shown());
    assert!(
        small
            .stderr
            .contains("tokens too small for the margins: give a larger --window"),
        "{}",
        small.stderr
    );
    // A window of 0 tokens is no window: refused, not taken as none given.
    let zero = world.run(&["limits", "--window", "0"]);
    assert_eq!(zero.exit, 2, "{}", zero.shown());
    // A cap over the window says it changes nothing there.
    let clamped = world.run(&["limits", "--window", "200k", "--cap", "1.5m"]);
    assert!(
        clamped.stdout.contains(
            "Cap: --cap 1.5m (1,500,000 tokens) is more than the window's 200,000 tokens, so it changes nothing here."
        ),
        "{}",
        clamped.stdout
    );
    fs::write(world.path("claude/settings.json"), "{not json").unwrap();
    // Ignored as Claude Code ignores it (the snapshot says so beside it); doctor fails it.
    insta::assert_snapshot!("limits_bad_settings", world.run(&["limits"]).shown());
    let doctor = world.run(&["doctor"]);
    assert!(
        doctor
            .stdout
            .contains("fail settings  settings file [TMP]/claude/settings.json is not valid JSON"),
        "{}",
        doctor.stdout
    );
    assert_every_problem_has_a_fix(&doctor);
}

/// `limits --cap` with no `--window`: a cap of 200K or less places the points in tokens,
/// the same in any window at least that large; a larger one is clamped to the classic
/// 200K window, in percent, as the helper places it with no window known.
#[test]
fn limits_with_a_cap_and_no_window() {
    let world = World::new("limits-cap");
    // A cap without --window places the points in tokens, the same in any window at least
    // as large, not in percent of a 200K one; a figure as notesoup prints it is read back.
    let points = |stdout: &str| -> Vec<String> {
        stdout.lines().skip(1).take(3).map(str::to_owned).collect()
    };
    let in_1m = world.run(&["limits", "--cap", "100k", "--window", "1m"]);
    for cap in ["100k", "100,000"] {
        let capped = world.run(&["limits", "--cap", cap]);
        assert_eq!(capped.exit, 0, "{}", capped.shown());
        assert_eq!(points(&capped.stdout), points(&in_1m.stdout));
        assert!(
            capped.stdout.contains(" tokens  notesoup warns")
                && capped.stdout.contains("Decided by: the cap (--cap)"),
            "{}",
            capped.stdout
        );
    }
    let capped = world.run(&["limits", "--cap", "100k", "--json"]).json();
    assert_eq!(
        (&capped["source"], &capped["window"], &capped["cap"]),
        (
            &serde_json::json!("cap"),
            &serde_json::Value::Null,
            &serde_json::json!(100_000)
        ),
        "{capped}"
    );
    // A cap above the classic 200K window with no --window: clamped to it, in percent, as
    // the helper gives it in a session with no window known.
    let over = world.run(&["limits", "--cap", "1.5m", "--json"]).json();
    assert_eq!(
        (&over["unit"], &over["cap"], &over["source"]),
        (
            &serde_json::json!("percent"),
            &serde_json::json!(200_000),
            &serde_json::json!("percent")
        ),
        "{over}"
    );
}

#[test]
fn limits_and_doctor_take_a_multi_byte_model_id() {
    // A model id or a modelSettings key is the settings file's text, any UTF-8: the
    // date-suffix rule once sliced it by bytes and both commands exited 101.
    let world = World::new("limits-utf8");
    fs::write(
        world.path("claude/settings.json"),
        r#"{"model": "日本語x", "modelSettings": {"日本語x": {"autoCompactWindow": 300000}}}"#,
    )
    .unwrap();
    let limits = world.run(&["limits", "--model", "日本語x", "--window", "1m"]);
    assert_eq!(limits.exit, 0, "{}", limits.shown());
    let doctor = world.run(&["doctor"]);
    assert_ne!(doctor.exit, 101, "{}", doctor.shown());
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

/// A history vault that cannot be written fails doctor: the hooks' keeping would fail
/// quietly, and sessions a harness deletes would be lost. Made read-only with its mode, or
/// (as root, whom modes do not stop) as a read-only mount in a namespace of its own.
#[test]
fn doctor_fails_a_vault_that_cannot_be_written() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let world = World::new("doctor-vault-ro");
    let home = world
        .vars
        .iter()
        .find(|(n, _)| n == "NOTESOUP_HOME")
        .map(|(_, v)| PathBuf::from(v))
        .unwrap();
    let vault = home.join("vault");
    fs::create_dir_all(&vault).unwrap();
    // Made by root when this runs as root.
    let out = if fs::metadata(&vault).unwrap().uid() == 0 {
        let vault = vault.to_str().unwrap();
        Command::new("unshare")
            .args(["-m", "sh", "-c"])
            .arg(format!(
                "mount --bind {vault} {vault} && mount -o remount,bind,ro {vault} && exec {BIN} doctor"
            ))
            .env_clear()
            .envs(world.vars.iter().cloned())
            .current_dir(world.path("project/sub"))
            .output()
            .unwrap()
    } else {
        fs::set_permissions(&vault, fs::Permissions::from_mode(0o555)).unwrap();
        let out = world.run_bounded(&["doctor"], 60, "doctor hung");
        fs::set_permissions(&vault, fs::Permissions::from_mode(0o755)).unwrap();
        out
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("fail vault     the history vault") && stdout.contains("cannot be written"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A notes home on the kernel's own file system: `access` passes there (as root), but no
/// folder can be made; the session would turn notesoup off, so doctor fails it.
#[test]
fn doctor_fails_a_notes_home_on_the_kernels_file_system() {
    let mut world = World::new("doctor-proc");
    world.set("NOTESOUP_HOME", "/proc/notesoup-doctor-test");
    let proc_home = world.run(&["doctor"]);
    assert!(
        proc_home.stdout.contains(
            "fail notes     notes home /proc/notesoup-doctor-test cannot be made: /proc is the kernel's proc file system"
        ),
        "{}",
        proc_home.stdout
    );
}

#[test]
fn doctor_on_a_machine_without_claude() {
    let mut world = World::new("doctor-bare");
    // Nothing of the harnesses either.
    world.set("CLAUDE_CONFIG_DIR", world.path("nothing").to_str().unwrap());
    world.set(
        "PI_CODING_AGENT_SESSION_DIR",
        world.path("nothing").to_str().unwrap(),
    );
    world.set("CODEX_HOME", world.path("nothing").to_str().unwrap());
    world.set("NOTESOUP_DISABLED", "1");
    // A notes home that is a file: nothing can be written there.
    fs::write(world.path("not-a-folder"), "x").unwrap();
    world.set(
        "NOTESOUP_HOME",
        world.path("not-a-folder").to_str().unwrap(),
    );
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1);
    assert_every_problem_has_a_fix(&run);
    insta::assert_snapshot!("doctor_bare", run.shown());
    let json = world.run(&["doctor", "--json"]).json();
    assert_eq!(json["ok"], false);
    // The counts are those of the checks, skip counted as skip.
    for status in ["ok", "skip", "warn", "fail"] {
        let n = json["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["status"] == status)
            .count();
        assert_eq!(json["counts"][status], n, "{status}: {json}");
    }
    // Claude Code too is a harness not used here (no config folder): a skip, not a failure.
    assert_eq!(json["counts"]["skip"], 7, "{json}");
    assert_eq!(json["checks"][0]["status"], "skip", "{json}");
    // Claude Code used here (its config folder exists) but not found: a failure with its fix.
    fs::create_dir_all(world.path("claude-used")).unwrap();
    world.set(
        "CLAUDE_CONFIG_DIR",
        world.path("claude-used").to_str().unwrap(),
    );
    let used = world.run(&["doctor", "--json"]).json();
    assert_eq!(used["checks"][0]["check"], "claude", "{used}");
    assert_eq!(used["checks"][0]["status"], "fail", "{used}");
    assert!(
        used["checks"][0]["fix"]
            .as_str()
            .is_some_and(|f| f.contains("npm install -g @anthropic-ai/claude-code@")),
        "{used}"
    );
    world.set("CLAUDE_CONFIG_DIR", world.path("nothing").to_str().unwrap());
    // Looking makes nothing: a notes home not made yet is judged by where it will be made.
    world.set(
        "NOTESOUP_HOME",
        world.path("fresh/notesoup").to_str().unwrap(),
    );
    let fresh = world.run(&["doctor"]);
    assert!(
        fresh
            .stdout
            .contains("ok   notes     notes home [TMP]/fresh/notesoup is not made yet"),
        "{}",
        fresh.stdout
    );
    assert!(!world.path("fresh").exists(), "doctor made the notes home");
    // A notes home under a file: no permission makes the file a folder, so the fix is the
    // variable (it said to fix the permissions of a path `ls -ld` cannot find).
    world.set(
        "NOTESOUP_HOME",
        world.path("not-a-folder/notes").to_str().unwrap(),
    );
    let under = world.run(&["doctor"]);
    assert!(
        under.stdout.contains(
            "fix: set NOTESOUP_HOME to a folder you can write ([TMP]/not-a-folder is a file, not a folder)"
        ),
        "{}",
        under.stdout
    );
    // Each harness's check names the folders it looked in, and what it found there.
    let sessions: Vec<&serde_json::Value> = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "sessions")
        .collect();
    assert_eq!(sessions.len(), 3);
    let codex = &sessions[2]["detail"];
    assert_eq!(codex["harness"], "codex");
    assert_eq!(codex["folders"][0]["path"], "[TMP]/nothing/sessions");
    assert_eq!(codex["folders"][0]["state"], "missing");
    assert_eq!(
        codex["folders"][1]["path"],
        "[TMP]/nothing/archived_sessions"
    );
    // Without HOME or any harness variable there is nowhere to look.
    for var in [
        "HOME",
        "CLAUDE_CONFIG_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "CODEX_HOME",
    ] {
        world.unset(var);
    }
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout
            .contains("Pi: no sessions found (not used here?); looked nowhere: HOME is not set"),
        "{}",
        run.stdout
    );
}

/// A fake `claude` answering `--version` and `plugin list --json` as the real 2.1.319 does
/// (recorded), with the plugin read in place from `plugin`.
fn fake_claude(world: &World, version: &str, enabled: bool, plugin: &Path) -> String {
    let list = format!(
        r#"[{{"id":"notesoup@notesoup-local","version":"0.1.0","scope":"user","enabled":{enabled},"installPath":"{home}/.claude/plugins/cache/notesoup-local/notesoup/0.1.0","readFromFolder":"{plugin}","folderVersion":"0.1.0","installedAt":"2026-12-02T19:02:27.895Z","lastUpdated":"2026-12-02T19:02:27.895Z","projectEnabled":false}}]"#,
        home = world.path("home").display(),
        plugin = plugin.display(),
    );
    fs::write(world.path("list.json"), list).unwrap();
    let path = world.path("bin/claude");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(
        &path,
        format!(
            "#!/bin/sh\ncase \"$*\" in\n  --version) echo '{version} (Claude Code)' ;;\n  'plugin list --json') cat '{}' ;;\n  *) exit 1 ;;\nesac\n",
            world.path("list.json").display()
        ),
    )
    .unwrap();
    make_executable(&path);
    path.to_str().unwrap().to_owned()
}

fn make_executable(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// A staged helper answering `version` with `version`.
fn fake_helper(world: &World, version: &str) -> PathBuf {
    let plugin = world.path("plugin");
    fs::create_dir_all(plugin.join("bin")).unwrap();
    let helper = plugin.join("bin/notesoup-helper");
    fs::write(&helper, format!("#!/bin/sh\ncat >/dev/null\necho '{{\"ok\":true,\"version\":\"{version}\",\"ops\":[]}}'\n")).unwrap();
    make_executable(&helper);
    plugin
}

#[test]
fn doctor_with_claude_and_the_plugin() {
    let mut world = World::new("doctor-ok");
    age_claude_files(&world, 0);
    let plugin = fake_helper(&world, env!("CARGO_PKG_VERSION"));
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    world.set(
        "PATH",
        &format!(
            "{}:/usr/bin:/bin",
            Path::new(&claude).parent().unwrap().display()
        ),
    );
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert_every_problem_has_a_fix(&run);
    insta::assert_snapshot!("doctor_ok", run.shown());

    // Another Claude version, the plugin disabled, a stale helper, a bad margin.
    let plugin = fake_helper(&world, "0.0.1");
    fake_claude(&world, "2.0.0", false, &plugin);
    fs::write(
        world.path("claude/settings.json"),
        r#"{"notesoup": {"resetMarginTokens": -5}}"#,
    )
    .unwrap();
    world.set("DISABLE_COMPACT", "1");
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1);
    assert_every_problem_has_a_fix(&run);
    insta::assert_snapshot!("doctor_problems", run.shown());
    // No claim of a downgrade: another version is named untested, with what was tested.
    assert!(!run.stdout.contains("npm install -g"), "{}", run.stdout);

    // Margins that leave no room, and auto-compaction off: each with its fix.
    fs::write(
        world.path("claude/settings.json"),
        r#"{"notesoup": {"resetMarginTokens": 900000}}"#,
    )
    .unwrap();
    world.unset("DISABLE_COMPACT");
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(run.stdout.contains("fail settings"), "{}", run.stdout);
    fs::write(
        world.path("claude/settings.json"),
        r#"{"autoCompactEnabled": false}"#,
    )
    .unwrap();
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(run.stdout.contains("warn compact"), "{}", run.stdout);

    // The plugin not installed: the fix names this checkout's scripts/install and plugin
    // folder by their paths (the checkout this notesoup was built from).
    fs::write(world.path("list.json"), "[]").unwrap();
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    // (`--plugin-dir` is offered too once the checkout's plugin has its helper staged: the
    // doctor module's own test.)
    assert!(
        run.stdout
            .contains("fix: run [CHECKOUT]/scripts/install (it ")
            && run
                .stdout
                .contains("installs the plugin read from [CHECKOUT]/plugins/claude)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("skip helper "), "{}", run.stdout);
}

/// With no `claude` on PATH, doctor finds the Claude Code `scripts/install` fetched into
/// its cache, says it is not on PATH with the command that puts it there, and goes on to
/// check the plugin with it.
#[test]
fn doctor_finds_the_claude_code_the_install_fetched() {
    let mut world = World::new("doctor-fetched");
    age_claude_files(&world, 0);
    let plugin = fake_helper(&world, env!("CARGO_PKG_VERSION"));
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    let cpu = if cfg!(target_arch = "aarch64") {
        "arm64"
    } else {
        "x64"
    };
    let cached = world.path(&format!(
        "cache/notesoup/claude-code/{}-linux-{cpu}/package/claude",
        notesoup_cli::CLAUDE_CODE_VERSION
    ));
    fs::create_dir_all(cached.parent().unwrap()).unwrap();
    fs::copy(&claude, &cached).unwrap();
    make_executable(&cached);
    fs::remove_file(&claude).unwrap();
    world.set("XDG_CACHE_HOME", world.path("cache").to_str().unwrap());
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    let claude_line = run.stdout.lines().find(|l| l.contains(" claude ")).unwrap();
    assert!(
        claude_line.starts_with("warn") && claude_line.contains("fetched by scripts/install"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "fix: ln -s {}",
            "[TMP]/cache/notesoup/claude-code"
        )),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("ok   plugin"), "{}", run.stdout);
}

/// Pi "installed" (a `PI` that prints its version) with its agent folder in the world.
fn with_pi(world: &mut World) {
    let pi = world.path("pibin/pi");
    fs::create_dir_all(pi.parent().unwrap()).unwrap();
    fs::write(&pi, "#!/bin/sh\necho 1.6.0\n").unwrap();
    make_executable(&pi);
    world.set("PI", pi.to_str().unwrap());
    world.set(
        "PI_CODING_AGENT_DIR",
        world.path("pi-agent").to_str().unwrap(),
    );
}

/// A helper script answering `version` with `version`.
fn helper_answering(version: &str) -> String {
    format!(
        "#!/bin/sh\ncat >/dev/null\necho '{{\"ok\":true,\"version\":\"{version}\",\"ops\":[]}}'\n"
    )
}

/// doctor's `pi-helper` line.
fn pi_helper_line(run: &Run) -> String {
    run.stdout
        .lines()
        .find(|l| l.contains("pi-helper"))
        .unwrap_or_default()
        .to_owned()
}

/// Pi here without the extension is a warning with the install line; with it, ok; with no
/// Pi at all, skip.
#[test]
fn doctor_checks_the_pi_extension_when_pi_is_here() {
    let mut world = World::new("doctor-pi");
    age_claude_files(&world, 0);
    let run = world.run(&["doctor"]);
    assert!(run.stdout.contains("skip pi "), "{}", run.stdout);
    with_pi(&mut world);
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains("warn pi ")
            && run.stdout.contains("[TMP]/pi-agent/extensions/notesoup"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("pi install npm:@notesoup/pi"),
        "{}",
        run.stdout
    );
    // Installed by `pi install npm:@notesoup/pi`: the helper is the platform package's,
    // found up from the extension's folder as Node finds it.
    let npm = world.path("pi-agent/npm/node_modules/@notesoup");
    fs::create_dir_all(npm.join("pi")).unwrap();
    fs::write(npm.join("pi/index.ts"), "export default () => {};\n").unwrap();
    let run = world.run(&["doctor"]);
    assert!(run.stdout.contains("ok   pi "), "{}", run.stdout);
    assert!(
        run.stdout.contains("(installed from npm)"),
        "{}",
        run.stdout
    );
    assert!(
        pi_helper_line(&run).starts_with("fail pi-helper"),
        "{}",
        run.stdout
    );
    assert_every_problem_has_a_fix(&run);
    let bin = npm.join("cli-linux-x64/bin");
    fs::create_dir_all(&bin).unwrap();
    let helper = bin.join("notesoup-helper");
    fs::write(&helper, helper_answering(env!("CARGO_PKG_VERSION"))).unwrap();
    make_executable(&helper);
    let run = world.run(&["doctor"]);
    assert!(
        pi_helper_line(&run).starts_with("ok   pi-helper")
            && pi_helper_line(&run).contains("cli-linux-x64/bin/notesoup-helper runs"),
        "{}",
        run.stdout
    );
    fs::write(&helper, helper_answering("0.0.1")).unwrap();
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        pi_helper_line(&run).contains("is version 0.0.1"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("reinstall: pi install npm:@notesoup/pi"),
        "{}",
        run.stdout
    );
    // scripts/install's link is looked at first, its staged helper beside it.
    let ext = world.path("pi-agent/extensions/notesoup");
    fs::create_dir_all(ext.join("bin")).unwrap();
    fs::write(ext.join("index.ts"), "export default () => {};\n").unwrap();
    fs::write(
        ext.join("bin/notesoup-helper"),
        helper_answering(env!("CARGO_PKG_VERSION")),
    )
    .unwrap();
    make_executable(&ext.join("bin/notesoup-helper"));
    let run = world.run(&["doctor"]);
    assert!(run.stdout.contains("ok   pi "), "{}", run.stdout);
    assert!(
        pi_helper_line(&run).contains("extensions/notesoup/bin/notesoup-helper runs"),
        "{}",
        run.stdout
    );
}

/// With Pi here, its settings are checked as notesoup reads them: margins that are whole
/// numbers, a reserve below the window, a file Pi can parse (Pi ignores a broken one).
#[test]
fn doctor_checks_pis_settings_when_pi_is_here() {
    let mut world = World::new("doctor-pi-settings");
    age_claude_files(&world, 0);
    with_pi(&mut world);
    let settings = world.path("pi-agent/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let line = |run: &Run| {
        run.stdout
            .lines()
            .filter(|l| l.contains("settings  Pi:"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let run = world.run(&["doctor"]);
    assert_eq!(
        line(&run),
        [
            "ok   settings  Pi: notesoup margins valid: resetMarginTokens 8192 (default), warningRunwayTokens 16384 (default); compaction.reserveTokens 16384"
        ],
        "{}",
        run.stdout
    );
    fs::write(&settings, r#"{"notesoup": {"warningRunwayTokens": "abc"}}"#).unwrap();
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        line(&run)[0].starts_with("fail settings  Pi: notesoup.warningRunwayTokens = \"abc\""),
        "{}",
        run.stdout
    );
    assert!(
        line(&run)[0].contains("(pi-agent/settings.json)")
            || line(&run)[0].contains("[TMP]/pi-agent/settings.json)"),
        "the file holding it is named: {}",
        run.stdout
    );
    fs::write(&settings, r#"{"compaction": {"reserveTokens": 250000}}"#).unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout
            .contains("fix: change compaction in [TMP]/pi-agent/settings.json"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run)[0].starts_with("fail settings  Pi: Pi's compaction.reserveTokens is 250,000"),
        "{}",
        run.stdout
    );
    fs::write(&settings, "{ not json").unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        line(&run)[0].starts_with("warn settings  Pi: "),
        "{}",
        run.stdout
    );
    assert_every_problem_has_a_fix(&run);
}

/// Pi run through npx or an alias is not on PATH: its folder is enough for doctor to check
/// the extension (and say where it looked).
#[test]
fn doctor_checks_pi_by_its_folder_when_pi_is_not_on_path() {
    let mut world = World::new("doctor-pi-folder");
    age_claude_files(&world, 0);
    let agent = world.path("pi-agent");
    fs::create_dir_all(&agent).unwrap();
    world.set("PI_CODING_AGENT_DIR", agent.to_str().unwrap());
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout
            .contains("warn pi        Pi's folder [TMP]/pi-agent, but no notesoup extension"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("ok   settings  Pi: "), "{}", run.stdout);
}

/// An extension named in the extensions list of Pi's settings (a checkout's `plugins/pi`,
/// relative to the settings folder) is found, its helper staged beside it; the helper
/// `NOTESOUP_HELPER` names, when set, is the one checked, and its fix names the variable.
#[test]
fn doctor_finds_a_pi_extension_listed_in_pis_settings_and_the_named_helper() {
    let mut world = World::new("doctor-pi-listed");
    age_claude_files(&world, 0);
    with_pi(&mut world);
    let listed = world.path("checkout/plugins/pi");
    fs::create_dir_all(listed.join("bin")).unwrap();
    fs::write(
        listed.join("index.ts"),
        "// spawns notesoup-helper pi_hook\nexport default () => {};\n",
    )
    .unwrap();
    fs::create_dir_all(world.path("pi-agent")).unwrap();
    fs::write(
        world.path("pi-agent/settings.json"),
        r#"{"extensions": ["../checkout/plugins/pi"]}"#,
    )
    .unwrap();
    fs::write(
        listed.join("bin/notesoup-helper"),
        helper_answering(env!("CARGO_PKG_VERSION")),
    )
    .unwrap();
    make_executable(&listed.join("bin/notesoup-helper"));
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout
            .contains("(in the extensions of Pi's settings.json)"),
        "{}",
        run.stdout
    );
    assert!(
        pi_helper_line(&run).starts_with("ok   pi-helper")
            && pi_helper_line(&run).contains("checkout/plugins/pi/bin/notesoup-helper"),
        "{}",
        run.stdout
    );
    world.set("NOTESOUP_HELPER", "/bin/true");
    let run = world.run(&["doctor"]);
    assert!(
        pi_helper_line(&run).starts_with(
            "fail pi-helper /bin/true did not answer `version` (it exited with status 0)"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("fix: NOTESOUP_HELPER is set to /bin/true"),
        "{}",
        run.stdout
    );
}

#[test]
fn doctor_finds_the_helper_of_a_plugin_installed_from_npm() {
    // A plugin installed from the npm registry: no bin/, the helper in the platform
    // package npm installed (where the hooks module looks), and a package.json.
    let mut world = World::new("doctor-npm");
    let plugin = world.path("npm-plugin");
    let bin = plugin.join("node_modules/@notesoup/cli-linux-x64/bin");
    fs::create_dir_all(&bin).unwrap();
    fs::write(plugin.join("package.json"), "{}").unwrap();
    let helper = bin.join("notesoup-helper");
    let answer = |version: &str| {
        format!(
            "#!/bin/sh\ncat >/dev/null\necho '{{\"ok\":true,\"version\":\"{version}\",\"ops\":[]}}'\n"
        )
    };
    fs::write(&helper, answer(env!("CARGO_PKG_VERSION"))).unwrap();
    make_executable(&helper);
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    world.set(
        "PATH",
        &format!(
            "{}:/usr/bin:/bin",
            Path::new(&claude).parent().unwrap().display()
        ),
    );
    let run = world.run(&["doctor"]);
    let line = |run: &Run| {
        run.stdout
            .lines()
            .find(|l| l.contains("helper"))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        line(&run).contains("cli-linux-x64/bin/notesoup-helper runs"),
        "{}",
        run.shown()
    );
    // Another version there: named, with the npm fix (not the checkout's scripts/install).
    fs::write(&helper, answer("0.0.1")).unwrap();
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(line(&run).contains("is version 0.0.1"), "{}", run.shown());
    assert!(
        run.stdout
            .contains("claude plugin install notesoup@notesoup"),
        "{}",
        run.shown()
    );
}

#[test]
fn doctor_reports_a_helper_that_never_answers_instead_of_waiting_forever() {
    let mut world = World::new("doctor-hung");
    let plugin = fake_helper(&world, env!("CARGO_PKG_VERSION"));
    fs::write(
        plugin.join("bin/notesoup-helper"),
        "#!/bin/sh\nexec sleep 600\n",
    )
    .unwrap();
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    world.set(
        "PATH",
        &format!(
            "{}:/usr/bin:/bin",
            Path::new(&claude).parent().unwrap().display()
        ),
    );
    // Bounded here too, so the old behaviour fails the test rather than hanging it.
    let out = world.run_bounded(
        &["doctor"],
        90,
        "notesoup doctor waited on a helper that never answers",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("did not answer `version`: no answer within 20 s (it was stopped)"),
        "{stdout}"
    );
}

#[test]
fn colour_only_on_a_terminal_and_never_under_no_color() {
    let mut world = World::new("colour");
    seed(&world);
    // A pipe: no colour.
    assert!(!world.run(&["notes"]).stdout.contains('\x1b'));
    // Asked for: colour, unless NO_COLOR.
    assert!(
        world
            .run(&["notes", "--color", "always"])
            .stdout
            .contains("\x1b[1m")
    );
    world.set("NO_COLOR", "1");
    assert!(
        !world
            .run(&["notes", "--color", "always"])
            .stdout
            .contains('\x1b')
    );
    // A real terminal: colour, unless NO_COLOR.
    let out = world.run_on_terminal(&["notes", "--no-pager"]);
    assert!(out.contains("plan") && !out.contains('\x1b'), "{out:?}");
    world.unset("NO_COLOR");
    let out = world.run_on_terminal(&["notes", "--no-pager"]);
    assert!(out.contains("\x1b[1mplan"), "{out:?}");
    // stderr is coloured by whether it is a terminal: redirected to a file while stdout is
    // on the terminal, it gets no escapes; on the terminal, its label is red.
    let err = world.path("err.txt");
    let shown =
        world.run_on_terminal(&["notes", "show", "nothere", &format!("2>{}", err.display())]);
    let written = fs::read_to_string(&err).unwrap();
    assert!(
        written.contains("notesoup: no note named") && !written.contains('\x1b'),
        "{written:?} ({shown:?})"
    );
    let out = world.run_on_terminal(&["notes", "show", "nothere"]);
    assert!(out.contains("\x1b[31mnotesoup:"), "{out:?}");
}

#[test]
fn a_pager_only_for_long_text_on_a_terminal() {
    let mut world = World::new("pager");
    seed(&world);
    let marker = world.path("paged");
    world.set("PAGER", &format!("cat > {}", marker.display()));
    world.set("LINES", "3");
    // A pipe never pages.
    world.run(&["notes"]);
    assert!(!marker.exists());
    world.run_on_terminal(&["notes"]);
    let paged = fs::read_to_string(&marker).unwrap();
    assert!(paged.contains("project/build"), "{paged}");
    fs::remove_file(&marker).unwrap();
    // --no-pager, and short text on a tall terminal, print directly.
    let out = world.run_on_terminal(&["notes", "--no-pager"]);
    assert!(out.contains("project/build") && !marker.exists(), "{out:?}");
    world.set("LINES", "50");
    let out = world.run_on_terminal(&["notes"]);
    assert!(out.contains("project/build") && !marker.exists(), "{out:?}");
}

/// The commands README's "Using it" names, in order: every code span that is a `notesoup`
/// command, and in a table row the spans that continue the row's command (`show NAME`
/// after `notesoup notes`).
fn readme_commands() -> Vec<String> {
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let section = readme
        .split("\n## Using it\n")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let span = regex::Regex::new(r"`([^`]+)`").unwrap();
    let mut out = Vec::new();
    for line in section.lines() {
        let spans: Vec<&str> = span
            .captures_iter(line)
            .map(|c| c.get(1).unwrap().as_str())
            .collect();
        let row_command = spans
            .first()
            .filter(|s| line.starts_with("| `") && s.starts_with("notesoup "));
        for s in &spans {
            if s.starts_with("notesoup ") {
                out.push((*s).to_owned());
            } else if let Some(row) = row_command
                && s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            {
                out.push(format!("{row} {s}"));
            }
        }
    }
    out
}

#[test]
fn every_command_readme_shows_works() {
    let mut world = World::new("readme");
    seed(&world);
    world.set("EDITOR", "true");
    let commands = readme_commands();
    for first in [
        "notesoup doctor",
        "notesoup notes",
        "notesoup notes edit NAME",
        "notesoup history sessions",
        "notesoup history search \"TEXT\"",
        "notesoup notes restore NAME",
        "notesoup limits",
    ] {
        assert!(
            commands.iter().any(|c| c == first),
            "README no longer shows `{first}`: {commands:?}"
        );
    }
    let file = world.path("tmp/readme-note.md");
    fs::write(&file, "from a file\n").unwrap();
    for command in &commands {
        let line = command
            .replace("NAME...", "NAME")
            .replace("NAME", "plan")
            .replace("\"TEXT\"", "prime")
            .replace("TEXT", "todo")
            .replace("FILE", file.to_str().unwrap())
            .replace("<harness>:<id>", "pi:01a23754-8e37");
        let args: Vec<&str> = line.split(' ').skip(1).collect();
        // What reads a note's text from stdin gets one.
        let run = world.run_stdin(&args, b"from stdin\n");
        if command == "notesoup doctor" {
            // No Claude Code in this world: doctor says so and exits 1.
            assert_eq!(run.exit, 1, "{command}: {}", run.shown());
            assert!(run.stdout.contains("Something failed"), "{}", run.stdout);
        } else {
            assert_eq!(
                run.exit,
                0,
                "`{command}` (run as `{line}`): {}",
                run.shown()
            );
        }
    }
}

#[test]
fn the_claude_version_is_the_one_get_claude_fetches() {
    let script =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/get-claude"))
            .unwrap();
    let default = format!("CLAUDE_VERSION:-{}", notesoup_cli::CLAUDE_CODE_VERSION);
    assert!(
        script.contains(&default),
        "scripts/get-claude's default is not {}",
        notesoup_cli::CLAUDE_CODE_VERSION
    );
}

/// Where doctor looks for the Claude Code `scripts/install` fetched is where
/// `scripts/get-claude` puts it: with a Claude Code at the path doctor names, get-claude
/// finds it there and prints it, rather than fetching (its npm here fails).
#[test]
fn doctor_looks_where_get_claude_fetches() {
    let mut world = World::new("doctor-get-claude");
    world.set("XDG_CACHE_HOME", world.path("cache").to_str().unwrap());
    let run = world.run(&["doctor"]);
    let looked = regex::Regex::new(r"none at (\S+) \(where scripts/install fetches it\)")
        .unwrap()
        .captures(&run.stdout)
        .unwrap_or_else(|| panic!("doctor names no cache path:\n{}", run.stdout))[1]
        .replace("[TMP]", world.root.to_str().unwrap());
    let bin = world.path("fakebin");
    fs::create_dir_all(&bin).unwrap();
    fs::write(
        bin.join("npm"),
        "#!/bin/sh\necho 'no network here' >&2\nexit 1\n",
    )
    .unwrap();
    make_executable(&bin.join("npm"));
    let cached = PathBuf::from(&looked);
    fs::create_dir_all(cached.parent().unwrap()).unwrap();
    fs::write(
        &cached,
        format!(
            "#!/bin/sh\necho '{} (Claude Code)'\n",
            notesoup_cli::CLAUDE_CODE_VERSION
        ),
    )
    .unwrap();
    make_executable(&cached);
    let out = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/get-claude"))
        .env_clear()
        .env("HOME", world.path("home"))
        .env("XDG_CACHE_HOME", world.path("cache"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "get-claude did not find {looked}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), looked);
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("(fetched by scripts/install)"),
        "{}",
        run.stdout
    );
}

#[test]
fn mcp_slot_answers() {
    let world = World::new("mcp");
    let run = world.run(&["mcp", "--help"]);
    assert_eq!(run.exit, 0);
}

/// Every history refusal: on stderr, in the CLI's own words (flags, never a tool's fields),
/// nothing on stdout; under `--json` the one error document. A flag's value no run could
/// take (an empty search, a limit of 0) exits 2, as a wrong command line does, so it is
/// told from a search that found nothing (1); one the session does not hold exits 1. An
/// empty search never panics.
#[test]
fn history_refusals_go_to_stderr_with_their_exit_status() {
    let world = World::new("refusals");
    let session = "claude:da56055c";
    let cases: [(&str, Vec<&str>); 6] = [
        ("empty_query_all", vec!["history", "search", ""]),
        (
            "empty_query_session",
            vec!["history", "search", "", "--session", session],
        ),
        (
            "bad_cursor",
            vec!["history", "show", session, "--cursor", "bogus"],
        ),
        (
            "unknown_window",
            vec!["history", "show", session, "--window", "5"],
        ),
        (
            "missing_seq",
            vec!["history", "show", session, "--seq", "999"],
        ),
        (
            "zero_limit",
            vec!["history", "show", session, "--limit", "0"],
        ),
    ];
    let mut shown = String::new();
    for (name, args) in &cases {
        let run = world.run(args);
        let usage = name.starts_with("empty_query") || *name == "zero_limit";
        assert_eq!(
            run.exit,
            if usage { 2 } else { 1 },
            "{name}: {}",
            run.shown()
        );
        assert_eq!(run.stdout, "", "{name}: {}", run.shown());
        assert!(
            !run.stderr.contains("history_list"),
            "{name}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("history_read"),
            "{name}: {}",
            run.stderr
        );
        shown.push_str("== ");
        shown.push_str(name);
        shown.push('\n');
        shown.push_str(&run.shown());
        let mut json_args = args.clone();
        json_args.push("--json");
        let json = world.run(&json_args);
        assert_eq!(json.exit, run.exit, "{name} --json: {}", json.shown());
        assert_eq!(json.json()["ok"], false, "{name} --json");
        assert!(json.json()["error"]["code"].is_string(), "{name} --json");
    }
    insta::assert_snapshot!("history_refusals", shown);
}

/// Emptying a note in the editor is a refusal (exit 1, on stderr, the note untouched), not
/// a bad command line (exit 2).
#[test]
fn an_emptied_note_is_refused_with_exit_1() {
    let mut world = World::new("edit-empty");
    seed(&world);
    let ed = editor(&world, "empty", r#": > "$1""#);
    world.set("EDITOR", &ed);
    let run = world.run(&["notes", "edit", "todo"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("is empty; nothing was written"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("notesoup notes rm todo"),
        "{}",
        run.stderr
    );
    assert_eq!(
        world.brain().read("todo").unwrap().text,
        "a: todo\nb: todo\n"
    );
    let copies = fs::read_dir(world.path("tmp"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("notesoup-todo-")
        })
        .count();
    assert_eq!(copies, 0, "the emptied copy is removed");
    let json = world.run(&["notes", "edit", "todo", "--json"]);
    assert_eq!(
        (json.exit, &json.json()["error"]["code"]),
        (1, &"empty_note".into())
    );
}

/// No input makes `notesoup` panic: every subcommand with hostile arguments ends with one
/// of the documented exit codes and no panic message.
#[test]
fn hostile_arguments_never_panic() {
    let mut world = World::new("hostile");
    seed(&world);
    world.set("EDITOR", "true");
    let long = "x".repeat(100_000);
    let words = [
        "",
        ":",
        "claude:",
        "a:b:c",
        "../..",
        "-",
        "claude:da56055c:2",
        "s0",
        "s99999999999999999999",
        "0",
        "99999999999999999999",
        "\u{1b}[2J",
        &long,
    ];
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for w in words {
        runs.push(vec!["notes", "list", w]);
        runs.push(vec!["notes", "show", w]);
        runs.push(vec!["notes", "rm", w]);
        runs.push(vec!["notes", "restore", w]);
        runs.push(vec!["notes", "edit", w]);
        runs.push(vec!["notes", "write", w]);
        runs.push(vec!["notes", "append", w]);
        runs.push(vec!["notes", "write", "plan", "--file", w]);
        runs.push(vec!["notes", "rm", w, w]);
        runs.push(vec!["notes", "grep", w]);
        runs.push(vec!["notes", "grep", "-i", w]);
        runs.push(vec!["history", "sessions", "--limit", w]);
        runs.push(vec!["history", "show", w]);
        runs.push(vec!["history", "show", "claude:da56055c", "--window", w]);
        runs.push(vec!["history", "show", "claude:da56055c", "--cursor", w]);
        runs.push(vec!["history", "show", "claude:da56055c", "--limit", w]);
        runs.push(vec!["history", "show", "claude:da56055c", "--seq", w]);
        runs.push(vec![
            "history",
            "show",
            "claude:da56055c",
            "--seq",
            "1",
            "--offset",
            w,
        ]);
        runs.push(vec!["history", "search", w]);
        runs.push(vec!["history", "search", w, "--session", "claude:da56055c"]);
        runs.push(vec!["history", "search", "x", "--session", w]);
        runs.push(vec!["history", "search", "x", "--sessions", w]);
        runs.push(vec!["history", "search", "x", "--limit", w]);
        runs.push(vec!["limits", "--cap", w]);
    }
    for (i, args) in runs.iter().enumerate() {
        // `--json` on every third run: the same code paths, half the processes.
        for json in [false, true]
            .into_iter()
            .take(if i % 3 == 0 { 2 } else { 1 })
        {
            let mut args = args.clone();
            if json {
                args.push("--json");
            }
            let run = world.run(&args);
            let shown: String = format!("{args:?}").chars().take(200).collect();
            assert!(
                [0, 1, 2, 3].contains(&run.exit) && !run.raw_stderr.contains("panicked"),
                "{shown}: exit {}\n{}",
                run.exit,
                run.stderr.chars().take(2000).collect::<String>()
            );
        }
    }
}

/// No panic on any text in what the settings readers read: a model id, a `modelSettings`
/// key, the margins, the window and every policy variable (from the environment and from a
/// settings file's `env` block), multi-byte or odd, give an answer or a refusal, never a
/// crash (exit 101).
#[test]
fn settings_readers_answer_any_text() {
    let mut world = World::new("any-text");
    fs::create_dir_all(world.path("project/.claude")).unwrap();
    for odd in [
        "日本語x",
        "x日本語xxxxxxxxx",
        "claude-日本語-20250514",
        "é@ü-v日",
        "𝄞k",
        "\u{FEFF}1\u{3000}",
        "a\u{301}\u{301}m",
    ] {
        let mut env = serde_json::Map::new();
        for name in notesoup_thresholds::Env::NAMES {
            env.insert(name.into(), odd.into());
            world.set(name, odd);
        }
        let settings = serde_json::json!({
            "autoCompactWindow": odd,
            "modelSettings": {odd: {"autoCompactWindow": 400_000}, "x": odd},
            "notesoup": {"resetMarginTokens": odd, odd: 1},
            "env": env,
        });
        fs::write(
            world.path("project/.claude/settings.json"),
            settings.to_string(),
        )
        .unwrap();
        for args in [
            &["limits", "--project", "..", "--model", odd][..],
            &["limits", "--project", "..", "--model", odd, "--json"],
            &["limits", "--project", "..", "--cap", odd],
            &["limits", "--project", "..", "--window", odd],
            &["doctor"],
        ] {
            let run = world.run(args);
            assert!(
                run.exit != 101 && !run.raw_stderr.contains("panicked"),
                "{args:?} with {odd:?}: exit {}\n{}",
                run.exit,
                run.stderr
            );
        }
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

/// `history search`: every session by default, exit 0 on a match and 1 on none (grep and
/// rg), `-i`, and the folder, harness and time filters, in one run each.
#[test]
fn history_search_covers_every_session_and_filters_them() {
    let world = World::new("search-all");
    claude_session(
        &world,
        "aaaa1111",
        "/work/app",
        "2026-11-03T10:00:00Z",
        "the parser bug is in lex()",
    );
    let found = world.run(&["history", "search", "parser bug", "--json"]);
    assert_eq!(found.exit, 0, "{}", found.shown());
    let json = found.json();
    // The 7 fixture sessions and this one: every session, not the 20 most recent.
    assert_eq!(json["searched"], 8);
    let sessions: Vec<&str> = json["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["claude:aaaa1111"]);
    // Case: only -i finds "Parser bug" in the prompt as well.
    let insensitive = world
        .run(&["history", "search", "-i", "PARSER BUG", "--json"])
        .json();
    assert_eq!(insensitive["sessions"][0]["matches"], 2);
    assert_eq!(
        world.run(&["history", "search", "PARSER BUG"]).exit,
        1,
        "case counts without -i"
    );
    // Nothing matched: exit 1, nothing on stdout, the footer says so.
    let none = world.run(&["history", "search", "no such text anywhere"]);
    assert_eq!(
        (none.exit, none.stdout.as_str()),
        (1, ""),
        "{}",
        none.shown()
    );
    assert!(none.stderr.contains("no match"), "{}", none.stderr);
    // The filters narrow what is searched.
    let count = |args: &[&str]| {
        let mut all = vec!["history", "search", "parser bug", "--json"];
        all.extend_from_slice(args);
        let run = world.run(&all);
        (run.exit, run.json()["searched"].as_u64().unwrap())
    };
    assert_eq!(count(&["--project", "/work"]), (0, 1));
    assert_eq!(count(&["--project", "/elsewhere"]), (1, 0));
    assert_eq!(count(&["--harness", "pi"]), (1, 2));
    assert_eq!(count(&["--until", "2026-11-03"]), (0, 1));
    assert_eq!(count(&["--until", "2026-11-02"]), (1, 0));
    assert_eq!(count(&["--sessions", "3"]).1, 3);
    let bad = world.run(&["history", "search", "x", "--since", "last tuesday"]);
    assert_eq!(bad.exit, 2, "{}", bad.shown());
    assert!(bad.stderr.contains("--since"), "{}", bad.stderr);
}

/// `history show`: conversation order by default, `--reverse` newest first, `--all`
/// every event, `--roles`; `--json` events are data (RFC 3339 times, a tool's input as
/// JSON, its result).
#[test]
fn history_show_orders_pages_and_gives_data() {
    let world = World::new("show-order");
    let seqs = |args: &[&str]| -> Vec<u64> {
        let mut all = vec!["history", "show", "claude:da56055c", "--json"];
        all.extend_from_slice(args);
        world.run(&all).json()["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(seqs(&["--limit", "3"]), [59, 61, 62]);
    assert_eq!(seqs(&["--limit", "3", "--reverse"]), [62, 61, 59]);
    assert_eq!(seqs(&["--limit", "3", "--cursor", "s59"]), [47, 48, 54]);
    assert_eq!(seqs(&["--all"]).len(), 25);
    assert_eq!(seqs(&["--all", "--roles", "tool"]), [17, 19]);
    let json = world
        .run(&[
            "history",
            "show",
            "claude:da56055c",
            "--seq",
            "17",
            "--json",
        ])
        .json();
    let event = &json["events"][0];
    assert_eq!(event["role"], "tool");
    let time = regex::Regex::new(r"^2026-12-02T15:18:\d\d(\.\d{3})?Z$").unwrap();
    assert!(time.is_match(event["time"].as_str().unwrap()), "{event}");
    assert_eq!(event["tool"]["name"], "Bash");
    assert_eq!(event["tool"]["input"]["command"], "echo one > one.txt");
    assert_eq!(event["tool"]["result"]["is_error"], false);
}

/// Transcript text never reaches the terminal raw: escape sequences are shown as `^[`,
/// piped or not; matches are painted only when colour is on; rows fit the terminal.
#[test]
fn history_output_is_safe_and_fits_the_terminal() {
    let world = World::new("clean");
    claude_session(
        &world,
        "bbbb2222",
        "/work/app",
        "2026-11-03T10:00:00Z",
        "bug \u{1b}[2J\u{1b}]0;pwned\u{7} here, and a very long line that goes on and on and on and on and on and on and on and on and on and on and on and on and on",
    );
    let piped = world.run(&["history", "show", "claude:bbbb2222"]);
    assert!(!piped.stdout.contains('\u{1b}'), "{}", piped.stdout);
    assert!(
        piped.stdout.contains("bug ^[[2J^[]0;pwned^G here"),
        "{}",
        piped.stdout
    );
    let whole = world.run(&["history", "show", "claude:bbbb2222", "--seq", "2"]);
    assert!(!whole.stdout.contains('\u{1b}') && whole.stdout.contains("^[[2J"));
    let json = world
        .run(&["history", "show", "claude:bbbb2222", "--json"])
        .json();
    assert!(
        json["events"][1]["text"]
            .as_str()
            .unwrap()
            .contains('\u{1b}'),
        "data stays data"
    );
    // On a terminal (COLUMNS=100): every row fits, cut with `…`; a match is painted.
    let shown = world.run_on_terminal(&["history", "search", "bug", "--color", "always"]);
    let sgr = regex::Regex::new("\u{1b}\\[[0-9;]*m").unwrap();
    for line in shown.lines() {
        let plain = sgr.replace_all(line, "");
        assert!(
            plain.chars().count() <= 100,
            "{} chars: {plain}",
            plain.chars().count()
        );
    }
    assert!(shown.contains("\u{1b}[1;31mbug\u{1b}[0m"), "{shown}");
    assert!(shown.contains('…'), "{shown}");
    let plain = world.run(&["history", "search", "bug"]);
    assert!(
        !plain.stdout.contains("\u{1b}["),
        "no colour into a pipe: {}",
        plain.stdout
    );
}

/// The footer that names the next page comes after the output, in the CLI's flags.
#[test]
fn history_footer_comes_last_in_the_commands_own_words() {
    let world = World::new("footer");
    let out = Command::new("/bin/sh")
        .args([
            "-c",
            &format!("{BIN} history show claude:da56055c --limit 2 2>&1"),
        ])
        .env_clear()
        .envs(world.vars.iter().cloned())
        .current_dir(world.path("project/sub"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("older events: notesoup history show claude:da56055c-293e-4422-b5b8-62b1c7e6c03d --limit 2 --cursor s61"),
        "{text}"
    );
    assert!(
        !text.contains("history_list") && !text.contains("\"cursor\""),
        "{text}"
    );
}

/// A bare id (or unique prefix) names a session of whichever harness has it; one that
/// fits several harnesses' sessions, or none, is refused in people's words.
#[test]
fn history_show_takes_a_bare_id_of_any_harness() {
    let world = World::new("bare-id");
    let json = world
        .run(&["history", "show", "da56055c", "--json", "--limit", "1"])
        .json();
    assert_eq!(
        json["session"],
        "claude:da56055c-293e-4422-b5b8-62b1c7e6c03d"
    );
    let json = world
        .run(&["history", "show", "01a23754-8e", "--json", "--limit", "1"])
        .json();
    assert_eq!(json["session"], "pi:01a23754-8e37-7027-8822-e05ee3580bae");
    // `01a2375` starts Pi and Codex ids alike.
    let both = world.run(&["history", "show", "01a2375"]);
    assert_eq!(both.exit, 1, "{}", both.shown());
    assert!(
        both.stderr.contains("fits several sessions")
            && both.stderr.contains("pi:")
            && both.stderr.contains("codex:"),
        "{}",
        both.stderr
    );
    let none = world.run(&["history", "show", "ffff"]);
    assert_eq!(none.exit, 1);
    assert!(
        none.stderr.contains("no session of any harness"),
        "{}",
        none.stderr
    );
}

/// Note text reaches the terminal with its control characters escaped (`show`, and the
/// first line in `list`); a missing note is refused in the CLI's words, not the tools'.
#[test]
fn notes_output_is_safe_and_speaks_the_clis_words() {
    let world = World::new("notes-clean");
    world
        .brain()
        .write(
            "evil",
            "title \u{1b}]0;pwned\u{7}\nbody \u{1b}[31mred\n",
            None,
        )
        .unwrap();
    let show = world.run(&["notes", "show", "evil"]);
    assert_eq!(show.exit, 0, "{}", show.shown());
    assert!(!show.stdout.contains('\u{1b}'), "{}", show.stdout);
    assert!(show.stdout.contains("body ^[[31mred\n"), "{}", show.stdout);
    let list = world.run(&["notes", "list"]);
    assert!(
        !list.stdout.contains('\u{1b}') && list.stdout.contains("title ^[]0;pwned^G"),
        "{}",
        list.stdout
    );
    let json = world.run(&["notes", "show", "evil", "--json"]).json();
    assert!(
        json["text"].as_str().unwrap().contains('\u{1b}'),
        "data stays data"
    );
    let missing = world.run(&["notes", "show", "nope"]);
    assert_eq!(missing.exit, 1);
    assert!(
        missing.stderr.contains("no note named `nope`"),
        "{}",
        missing.stderr
    );
    assert!(!missing.stderr.contains("notes_list"), "{}", missing.stderr);
}

/// Every command path of `cmd`'s tree (a command with subcommands, and each leaf).
fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
    for sub in cmd.get_subcommands() {
        let mut path = prefix.to_vec();
        path.push(sub.get_name().to_owned());
        if sub.has_subcommands() {
            out.push(path.clone());
            walk(sub, &path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every subcommand (walked from the command tree, so a new one is walked too) with
/// hostile arguments, in-process: no panic, and an exit status among the documented four.
/// `mcp` serves stdin and `notes edit` starts an editor: both are left out.
#[test]
fn every_subcommand_survives_hostile_arguments() {
    use clap::CommandFactory;
    let world = World::new("hostile-walk");
    // stdin a terminal: `notes write`/`append` without --file refuse instead of reading
    // the test's own stdin.
    let env = notesoup_cli::Env::new(world.vars.clone(), world.path("project/sub"), false)
        .with_stdin_terminal(true);
    let long = "x".repeat(100_000);
    let values = [
        "",
        "..",
        "/",
        "-1",
        "18446744073709551616",
        "é\u{1b}[2J",
        "a:b:c",
        "claude:",
        ":",
        "s",
        "0",
        long.as_str(),
        "--",
        "\u{7f}\u{9b}",
    ];
    let mut paths: Vec<Vec<String>> = Vec::new();
    let root = notesoup_cli::Cli::command();
    walk(&root, &[], &mut paths);
    let skipped = |p: &[String]| {
        p.first().is_some_and(|c| c == "mcp" || c == "help") || p.iter().any(|c| c == "edit")
    };
    let mut runs = 0;
    for path in paths.iter().filter(|p| !skipped(p)) {
        let mut cmd = &root;
        for name in path {
            cmd = cmd.find_subcommand(name).unwrap();
        }
        let flags: Vec<String> = cmd
            .get_arguments()
            .filter(|a| a.get_action().takes_values())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        let mut lines: Vec<Vec<String>> = vec![vec!["--no-such-flag".into()]];
        for v in values {
            lines.push(vec![v.to_owned()]);
            lines.push(vec![v.to_owned(), v.to_owned()]);
            for flag in &flags {
                lines.push(vec!["s".into(), flag.clone(), v.to_owned()]);
            }
        }
        for extra in lines {
            let mut argv = vec!["notesoup".to_owned()];
            argv.extend(path.iter().cloned());
            argv.extend(extra);
            let report = std::panic::catch_unwind(|| notesoup_cli::run(argv.clone(), &env))
                .unwrap_or_else(|_| panic!("panicked: {argv:?}"));
            assert!(report.exit <= 3, "exit {} for {argv:?}", report.exit);
            runs += 1;
        }
    }
    assert!(runs > 500, "{runs} runs");
}

/// `notes write` and `notes append` take the text from stdin or --file (`-` is stdin), with
/// the store's limits; an empty text, a text over a note's size and no text at all are
/// refused and change nothing; a refused edit's kept file is written back by the command its
/// message names.
#[test]
fn notes_write_and_append_from_stdin_or_a_file() {
    let world = World::new("write");
    seed(&world);
    let created = world.run_stdin(&["notes", "write", "idea"], b"1. try memmem\n");
    insta::assert_snapshot!("notes_write_created", created.shown());
    assert_eq!(world.brain().read("idea").unwrap().text, "1. try memmem\n");
    let replaced = world.run_stdin(&["notes", "write", "plan", "--json"], b"new plan\n");
    assert_eq!(replaced.exit, 0, "{}", replaced.stderr);
    let doc = replaced.json();
    assert_eq!(
        (doc["ok"].as_bool(), doc["created"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(
        doc["version"],
        world.brain().read("plan").unwrap().version.as_str()
    );
    let file = world.path("tmp/from-file.md");
    fs::write(&file, "from a file\n").unwrap();
    let run = world.run(&[
        "notes",
        "write",
        "project/build",
        "--file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.exit, 0, "{}", run.stderr);
    assert_eq!(
        world.brain().read("project/build").unwrap().text,
        "from a file\n"
    );
    let run = world.run_stdin(&["notes", "write", "dash", "--file", "-"], b"dash\n");
    assert_eq!(
        (run.exit, world.brain().read("dash").unwrap().text.as_str()),
        (0, "dash\n")
    );

    let appended = world.run_stdin(&["notes", "append", "idea"], b"2. measure\n");
    insta::assert_snapshot!("notes_append", appended.shown());
    assert_eq!(
        world.brain().read("idea").unwrap().text,
        "1. try memmem\n2. measure\n"
    );
    let run = world.run_stdin(&["notes", "append", "fresh"], b"first\n");
    assert!(
        run.stdout.starts_with("Created note `fresh`"),
        "{}",
        run.stdout
    );

    let before = world.brain().snapshot().unwrap();
    let empty = world.run_stdin(&["notes", "write", "plan"], b"  \n");
    insta::assert_snapshot!("notes_write_empty", empty.shown());
    let huge = vec![b'x'; 64 * 1024 + 1];
    let big = world.run_stdin(&["notes", "append", "plan"], &huge);
    assert_eq!(big.exit, 1, "{}", big.shown());
    assert!(big.stderr.contains("over 65536 bytes"), "{}", big.stderr);
    let missing = world.run(&["notes", "write", "plan", "--file", "/nonexistent/x.md"]);
    assert_eq!(missing.exit, 1, "{}", missing.shown());
    // A name no note can have is a value no run could take: exit 2.
    let bad = world.run_stdin(&["notes", "write", "../x"], b"x\n");
    assert_eq!(bad.exit, 2, "{}", bad.shown());
    assert!(bad.stderr.contains("segments"), "{}", bad.stderr);
    assert_eq!(
        world.brain().snapshot().unwrap(),
        before,
        "refusals changed nothing"
    );

    // A conflicting edit keeps the text in a file; the fix names `notes write --file`.
    let mut world = world;
    let plan_file = world.brain().dir().join("notes/plan.md");
    world.set(
        "EDITOR",
        &format!(
            "sh -c 'echo mine > \"$1\"; echo theirs > {}' x",
            plan_file.display()
        ),
    );
    let conflict = world.run(&["notes", "edit", "plan"]);
    assert_eq!(conflict.exit, 3, "{}", conflict.shown());
    let line = conflict
        .raw_stderr
        .lines()
        .find(|l| l.contains("notes write plan --file"))
        .unwrap_or_else(|| panic!("no write command in {}", conflict.raw_stderr));
    let path = line
        .split("--file ")
        .nth(1)
        .unwrap()
        .split('`')
        .next()
        .unwrap();
    assert!(Path::new(path).exists(), "{path}");
    let back = world.run(&["notes", "write", "plan", "--file", path]);
    assert_eq!(back.exit, 0, "{}", back.shown());
    assert_eq!(world.brain().read("plan").unwrap().text, "mine\n");
}

/// `notes rm` takes several names: the notes are moved, each name that is not a note is
/// reported with the closest names, and the exit status is 1 when any was not moved.
#[test]
fn notes_rm_several_and_did_you_mean() {
    let world = World::new("rm-many");
    seed(&world);
    let run = world.run(&["notes", "rm", "plan", "todoo", "project/build"]);
    insta::assert_snapshot!("notes_rm_several", run.shown());
    assert!(world.brain().read("plan").is_err() && world.brain().read("project/build").is_err());
    assert_eq!(
        world.brain().read("todo").unwrap().text,
        "a: todo\nb: todo\n"
    );
    let json = world.run(&["notes", "rm", "todo", "build", "--json"]);
    assert_eq!(json.exit, 1);
    let doc = json.json();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["removed"][0]["name"], "todo");
    assert_eq!(doc["failed"][0]["name"], "build");
    assert_eq!(doc["failed"][0]["code"], "not_found");
    let show = world.run(&["notes", "show", "tdo"]);
    assert_eq!(show.exit, 1);
    assert!(
        show.stderr.contains("no note named `tdo`"),
        "{}",
        show.stderr
    );
    world.brain().write("project/plan", "x\n", None).unwrap();
    let moved = world.run(&["notes", "show", "plan"]);
    insta::assert_snapshot!("notes_show_did_you_mean", moved.shown());
}

/// `notes grep`: `name:line: text` for each matching line (escaped, highlighted on a
/// terminal), -i, --json as data, exit 1 when nothing matched, exit 2 on an empty text.
#[test]
fn notes_grep_finds_lines() {
    let world = World::new("grep");
    seed(&world);
    world
        .brain()
        .write("esc", "TODO \u{1b}[2Jcleared\nnothing\n", None)
        .unwrap();
    let run = world.run(&["notes", "grep", "todo"]);
    insta::assert_snapshot!("notes_grep", run.shown());
    let run = world.run(&["notes", "grep", "-i", "todo", "--json"]);
    assert_eq!(run.exit, 0);
    let doc = run.json();
    let hits = text_and_count(&doc["matches"], "name", "line");
    assert_eq!(
        hits,
        [("esc".into(), 1), ("todo".into(), 1), ("todo".into(), 2)]
    );
    let escaped = world.run(&["notes", "grep", "cleared"]);
    assert_eq!(
        escaped.stdout,
        "esc:1: TODO ^[[2Jcleared\n",
        "{}",
        escaped.shown()
    );
    let none = world.run(&["notes", "grep", "zebra"]);
    assert_eq!(
        (none.exit, none.stdout.as_str()),
        (1, ""),
        "{}",
        none.shown()
    );
    let empty = world.run(&["notes", "grep", ""]);
    assert_eq!(empty.exit, 2, "{}", empty.shown());
    let shown = world.run_on_terminal(&["notes", "grep", "lex", "--color", "always"]);
    assert!(shown.contains("\u{1b}[1;31mlex\u{1b}[0m"), "{shown:?}");
}

/// `notes brains` lists every brain with its project folder; --json as data with RFC 3339
/// times; a folder outside git is told that its brain is keyed on its path.
#[test]
fn notes_brains_and_a_folder_outside_git() {
    let world = World::new("brains");
    seed(&world);
    let other = world.path("other");
    let write = world.run_stdin(
        &["notes", "--project", other.to_str().unwrap(), "write", "x"],
        b"y\n",
    );
    insta::assert_snapshot!("notes_write_outside_git", write.shown());
    let in_git = world.run(&["notes"]);
    assert!(
        !in_git.stderr.contains("not in a git repository"),
        "{}",
        in_git.stderr
    );
    insta::assert_snapshot!("notes_brains", world.run(&["notes", "brains"]).shown());
    let doc = world.run(&["notes", "brains", "--json"]).json();
    let rfc3339 = regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$").unwrap();
    let brains = doc["brains"].as_array().unwrap();
    assert_eq!(brains.len(), 2);
    for b in brains {
        assert!(rfc3339.is_match(b["updated"].as_str().unwrap()), "{b}");
    }
    assert_eq!(brains.iter().filter(|b| b["current"] == true).count(), 1);
    // Every notes time in --json is RFC 3339 UTC.
    let list = world.run(&["notes", "list", "--json"]).json();
    assert!(
        rfc3339.is_match(list["notes"][0]["updated"].as_str().unwrap()),
        "{list}"
    );
    let show = world.run(&["notes", "show", "plan", "--json"]).json();
    assert!(
        rfc3339.is_match(show["updated"].as_str().unwrap()),
        "{show}"
    );
    assert_eq!(world.run(&["notes", "rm", "plan"]).exit, 0);
    let trash = world.run(&["notes", "trash", "--json"]).json();
    assert!(
        rfc3339.is_match(trash["trash"][0]["deleted"].as_str().unwrap()),
        "{trash}"
    );
}

/// `history show --json` and `history search --json` are data, pinned by snapshots: each
/// event an object (seq, role, RFC 3339 time, window, text; a tool's name, input and
/// result), the same field names as the text's words.
#[test]
fn history_json_is_data() {
    let world = World::new("history-json");
    let show = world.run(&[
        "history",
        "show",
        "claude:da56055c",
        "--seq",
        "21",
        "--json",
    ]);
    assert_eq!(show.exit, 0, "{}", show.shown());
    insta::assert_snapshot!("history_show_json", show.stdout);
    let page = world.run(&[
        "history",
        "show",
        "claude:da56055c",
        "--limit",
        "3",
        "--json",
    ]);
    assert_eq!(page.exit, 0, "{}", page.shown());
    insta::assert_snapshot!("history_show_page_json", page.stdout);
    let search = world.run(&["history", "search", "prime", "--json"]);
    assert_eq!(search.exit, 0, "{}", search.shown());
    insta::assert_snapshot!("history_search_json", search.stdout);
}

/// `history forget` takes a session's whole id only: a prefix, a piece of an id, an
/// unknown or an invalid one is refused and nothing is removed or tombstoned; a session only
/// the vault holds is forgotten by its whole id.
#[test]
fn history_forget_takes_a_whole_id_only() {
    let world = World::new("forget");
    let first = world.run(&["history", "vault", "--json"]);
    assert_eq!(first.exit, 0, "{}", first.shown());
    let files = first.json()["files"].as_u64().unwrap();
    // Only a whole id forgets: a prefix, a piece of an id, an unknown or an invalid one is
    // refused, and nothing is removed or tombstoned.
    for (session, code) in [
        ("claude:da56055c", "partial_id"),
        ("claude:1", "not_found"),
        ("claude:293e-4422", "not_found"),
        ("claude:00000000-0000-0000-0000-000000000000", "not_found"),
        ("claude:*", "bad_session"),
        ("pi:../claude", "bad_session"),
    ] {
        let refused = world.run(&["history", "forget", session, "--json"]);
        assert_eq!(refused.exit, 1, "{session}: {}", refused.shown());
        assert_eq!(
            refused.json()["error"]["code"],
            code,
            "{session}: {}",
            refused.shown()
        );
    }
    let prefix = world.run(&["history", "forget", "claude:da56055c"]);
    assert!(
        prefix
            .stderr
            .contains("notesoup history forget claude:da56055c-293e-4422-b5b8-62b1c7e6c03d"),
        "the fix names the whole id: {}",
        prefix.stderr
    );
    let kept = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(
        kept["sessions"].as_u64(),
        Some(files),
        "nothing forgotten: {kept}"
    );
    assert_eq!(
        fs::read_dir(world.path("notesoup/vault/claude"))
            .unwrap()
            .filter(|e| e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".forgotten"))
            .count(),
        0,
        "no tombstone"
    );

    // A session only the vault holds is forgotten by its whole id too (its vault name is
    // Pi's `<time>_<id>`, which a piece of the id no longer matches).
    fs::remove_file(world.path(
        "pi/--tmp-xh-pirun-r3-work--/2026-12-02T15-16-59-050Z_01a23754-922a-7771-b755-13b58637f164.jsonl",
    ))
    .unwrap();
    let refused = world.run(&["history", "forget", "pi:922a"]);
    assert_eq!(refused.exit, 1, "{}", refused.shown());
    let gone = world
        .run(&[
            "history",
            "forget",
            "pi:01a23754-922a-7771-b755-13b58637f164",
            "--json",
        ])
        .json();
    assert_eq!(
        gone["removed"],
        serde_json::json!(["2026-12-02T15-16-59-050Z_01a23754-922a-7771-b755-13b58637f164"]),
        "{gone}"
    );
    assert_eq!(gone["originals_left"], serde_json::json!([]), "{gone}");
    let after = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(after["sessions"].as_u64(), Some(files - 1), "{after}");
}

/// `history vault` keeps every session file of every harness (a second run adds nothing,
/// a grown file adds its new bytes), `history forget` removes one for good and it is not
/// kept again, and `NOTESOUP_VAULT=off` refuses.
#[test]
fn history_vault_keeps_every_session_and_forget_removes_one() {
    use std::os::unix::fs::PermissionsExt as _;
    let mut world = World::new("vault");
    let first = world.run(&["history", "vault", "--json"]);
    assert_eq!(first.exit, 0, "{}", first.shown());
    let doc = first.json();
    let files = doc["files"].as_u64().unwrap();
    assert!(files >= 7, "{doc}");
    assert_eq!(doc["new_versions"].as_u64(), Some(files), "{doc}");
    assert_eq!(doc["sessions"].as_u64(), Some(files), "{doc}");
    let (raw, stored) = (
        doc["raw_bytes"].as_u64().unwrap(),
        doc["stored_bytes"].as_u64().unwrap(),
    );
    assert!(stored > 0 && stored < raw, "{doc}");
    let mode = fs::metadata(world.path("notesoup/vault"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);

    let again = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(
        (again["added_bytes"].as_u64(), again["grown"].as_u64()),
        (Some(0), Some(0))
    );
    let transcript =
        world.path("claude/projects/-tmp-project/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    let mut text = fs::read(&transcript).unwrap();
    text.extend_from_slice(b"{\"type\":\"progress\"}\n");
    fs::write(&transcript, &text).unwrap();
    let grown = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(
        (grown["added_bytes"].as_u64(), grown["grown"].as_u64()),
        (Some(20), Some(1))
    );
    let shown = world.run(&["history", "vault"]);
    insta::assert_snapshot!("history_vault", shown.shown());

    let forget = world.run(&[
        "history",
        "forget",
        "claude:da56055c-293e-4422-b5b8-62b1c7e6c03d",
    ]);
    assert_eq!(forget.exit, 0, "{}", forget.shown());
    assert!(
        forget.stdout.contains("1 vaulted file removed"),
        "{}",
        forget.stdout
    );
    assert!(
        forget.stderr.contains("The harness still has it"),
        "{}",
        forget.stderr
    );
    let after = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(
        after["sessions"].as_u64(),
        Some(files - 1),
        "not kept again: {after}"
    );
    let bad = world.run(&["history", "forget", "da56055c"]);
    assert_eq!(bad.exit, 2, "{}", bad.shown());
    let none = world
        .run(&["history", "forget", "--before", "2000-01-01", "--json"])
        .json();
    assert_eq!(none["removed"].as_array().map(Vec::len), Some(0), "{none}");
    let all = world
        .run(&["history", "forget", "--before", "2999-01-01", "--json"])
        .json();
    assert_eq!(
        all["removed"].as_array().map(|a| a.len() as u64),
        Some(files - 1),
        "{all}"
    );
    // Each one's original is still the harness's, and named, as a forget of one names it.
    assert_eq!(
        all["originals_left"].as_array().map(|a| a.len() as u64),
        Some(files - 1),
        "{all}"
    );
    let left = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(
        left["sessions"].as_u64(),
        Some(0),
        "tombstoned, not kept again: {left}"
    );
    for value in ["off", "no", "0", "FALSE"] {
        world.set("NOTESOUP_VAULT", value);
        let off = world.run(&["history", "vault"]);
        assert_eq!(off.exit, 1, "NOTESOUP_VAULT={value}: {}", off.shown());
        assert!(
            off.stderr.contains("unset NOTESOUP_VAULT"),
            "{}",
            off.stderr
        );
    }
}

/// A Claude session file of one id in two project folders: the vault keeps the one
/// written last, once (runs after it add no version: they took turns as the newest), and
/// reading the session is refused naming both files, with a fix in the person's words.
#[test]
fn a_session_in_two_project_folders_is_kept_once_and_named_when_refused() {
    let world = World::new("vault-twice");
    let id = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
    let first = world.path(&format!("claude/projects/-tmp-project/{id}.jsonl"));
    let second = world.path(&format!("claude/projects/-tmp-moved/{id}.jsonl"));
    fs::create_dir_all(second.parent().unwrap()).unwrap();
    let mut text = fs::read(&first).unwrap();
    text.extend_from_slice(b"{\"type\":\"progress\"}\n");
    fs::write(&second, &text).unwrap();
    fs::File::options()
        .write(true)
        .open(&first)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    let runs: Vec<serde_json::Value> = (0..3)
        .map(|_| world.run(&["history", "vault", "--json"]).json())
        .collect();
    for run in &runs[1..] {
        assert_eq!(run["new_versions"].as_u64(), Some(0), "{run}");
        assert_eq!(run["added_bytes"].as_u64(), Some(0), "{run}");
    }
    assert_eq!(
        fs::read_dir(world.path(&format!("notesoup/vault/claude/{id}")))
            .unwrap()
            .filter(|e| e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".record"))
            .count(),
        1,
        "one version"
    );
    let show = world.run(&["history", "show", &format!("claude:{id}")]);
    assert_eq!(show.exit, 1, "{}", show.shown());
    for folder in ["-tmp-project", "-tmp-moved"] {
        let file = format!("[TMP]/claude/projects/{folder}/{id}.jsonl");
        assert!(show.stderr.contains(&file), "names {file}: {}", show.stderr);
    }
    assert!(!show.stderr.contains("transcript_path"), "{}", show.stderr);
    assert!(
        show.stderr
            .contains("move the file that is not this session"),
        "{}",
        show.stderr
    );
}

/// doctor's vault line: with a short `cleanupPeriodDays`, Claude sessions near it and not
/// in the vault are a warning whose fix is `notesoup history vault`; after it, ok; off, skip.
#[test]
fn doctor_warns_of_sessions_claude_will_delete_before_the_vault_holds_them() {
    let mut world = World::new("doctor-vault");
    age_claude_files(&world, 5);
    let vault_line = |run: &Run| {
        run.stdout
            .lines()
            .find(|l| l.contains(" vault "))
            .unwrap_or_default()
            .to_owned()
    };
    let run = world.run(&["doctor"]);
    assert!(vault_line(&run).starts_with("ok   vault"), "{}", run.stdout);
    // Five days old: with an 8-day cleanup they are within the 7-day margin.
    fs::write(
        world.path("claude/settings.json"),
        r#"{"cleanupPeriodDays": 8}"#,
    )
    .unwrap();
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    let line = vault_line(&run);
    assert!(
        line.starts_with("warn vault") && line.contains("after 8 days"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("fix: notesoup history vault"),
        "{}",
        run.stdout
    );
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let run = world.run(&["doctor"]);
    assert!(vault_line(&run).starts_with("ok   vault"), "{}", run.stdout);
    // A session forgotten on purpose is not at risk: the vault will never keep it again.
    let forget = world.run(&[
        "history",
        "forget",
        "claude:da56055c-293e-4422-b5b8-62b1c7e6c03d",
    ]);
    assert_eq!(forget.exit, 0, "{}", forget.shown());
    let run = world.run(&["doctor"]);
    assert!(vault_line(&run).starts_with("ok   vault"), "{}", run.stdout);
    world.set("NOTESOUP_VAULT", "off");
    let run = world.run(&["doctor"]);
    assert!(vault_line(&run).starts_with("skip vault"), "{}", run.stdout);
}

/// A session the harness deleted is read from the vault exactly as from its file: every
/// history command answers byte for byte as before the delete (Claude; Pi with the parent
/// it forks; Codex with its rewind segment and its `.jsonl.zst` rollout), the listing
/// keeps its order and marks each session `vault only`, and with the vault off they are
/// gone.
#[test]
fn a_deleted_session_is_read_from_the_vault_as_from_its_file() {
    let mut world = World::new("vault-read");
    let listing = |world: &World| {
        let mut doc = world
            .run(&["history", "sessions", "--limit", "200", "--json"])
            .json();
        let mut marks = Vec::new();
        for s in doc["sessions"].as_array_mut().unwrap() {
            marks.push(s["vault_only"].as_bool().unwrap());
            s.as_object_mut().unwrap().remove("vault_only");
        }
        (doc, marks)
    };
    let (before, marks) = listing(&world);
    assert!(marks.iter().all(|m| !m), "{before}");
    let selectors: Vec<String> = before["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap().to_owned())
        .collect();
    for harness in ["claude:", "pi:", "codex:"] {
        assert!(
            selectors.iter().any(|s| s.starts_with(harness)),
            "{selectors:?}"
        );
    }
    // Each answer with its vault marks taken out, and how many it had: the marks are
    // the one difference a delete makes.
    let answers = |world: &World| {
        let unmarked = |text: String, marks: &mut usize| {
            let mut text = text;
            for (mark, unmarked) in [
                ("\"vault_only\": true", "\"vault_only\": false"),
                (" (vault only: the harness deleted its file)", ""),
                ("  vault only", ""),
            ] {
                *marks += text.matches(mark).count();
                text = text.replace(mark, unmarked);
            }
            text
        };
        let mut out = Vec::new();
        let mut marks = 0;
        for sel in &selectors {
            for args in [
                vec!["history", "show", sel, "--json"],
                vec!["history", "show", sel],
                vec!["history", "show", sel, "--limit", "2", "--json"],
                vec!["history", "search", "the", "-i", "--session", sel, "--json"],
            ] {
                let run = world.run(&args);
                let stdout = unmarked(run.stdout, &mut marks);
                out.push((args.join(" "), run.exit, stdout, run.stderr));
            }
        }
        let run = world.run(&["history", "search", "the", "-i"]);
        let stdout = unmarked(run.stdout, &mut marks);
        out.push(("search all".into(), run.exit, stdout, run.stderr));
        let run = world.run(&["history", "search", "the", "-i", "--json"]);
        let stdout = unmarked(run.stdout, &mut marks);
        out.push(("search all --json".into(), run.exit, stdout, run.stderr));
        (out, marks)
    };
    let (answered, marks) = answers(&world);
    assert_eq!(marks, 0, "nothing is marked while the files are there");
    // Exit 1 is a search with no match; anything else is a refusal.
    let failed: Vec<_> = answered.iter().filter(|(_, exit, ..)| *exit > 1).collect();
    assert!(failed.is_empty(), "{failed:#?}");

    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    for dir in ["claude/projects", "pi", "codex/sessions"] {
        fs::remove_dir_all(world.path(dir)).unwrap();
        fs::create_dir_all(world.path(dir)).unwrap();
    }
    let (after, marks) = listing(&world);
    assert_eq!(after, before, "the listing, but for its marks");
    assert!(marks.iter().all(|m| *m), "{after}");
    let text = world.run(&["history", "sessions"]).stdout;
    assert_eq!(
        text.matches("vault only").count(),
        selectors.len(),
        "{text}"
    );
    let (after, marks) = answers(&world);
    for (want, got) in answered.iter().zip(after) {
        assert_eq!(*want, got, "{}", want.0);
    }
    // Every show and --session search marks its session (three each), and both searches
    // over all mark every session they found matches in.
    assert!(marks > selectors.len() * 4, "{marks} marks");
    // Doctor says which sessions are only in the vault now.
    let doctor = world.run(&["doctor"]).stdout;
    assert!(
        doctor.contains("only in the vault: Claude Code deleted"),
        "{doctor}"
    );

    world.set("NOTESOUP_VAULT", "off");
    let (off, _) = listing(&world);
    assert_eq!(off["sessions"].as_array().map(Vec::len), Some(0), "{off}");
}

/// A damaged vault copy is refused, never misread: with the original there, `history
/// vault` finds it and keeps the session again; with the original gone, reading the session
/// says the copy is damaged.
#[test]
fn a_damaged_vault_copy_is_refused_and_kept_again() {
    let world = World::new("vault-damaged");
    let sid = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let damage = |piece: &str| {
        let path = world.path(&format!("notesoup/vault/claude/{sid}/{piece}"));
        let mut bytes = fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0xff;
        fs::write(&path, bytes).unwrap();
    };
    damage("v1.0.zst");
    let again = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(again["renewed"].as_u64(), Some(1), "{again}");
    let text = world.run(&["history", "vault"]);
    assert!(!text.stdout.contains("damaged"), "{}", text.stdout);

    damage("v2.0.zst");
    let original = world.path(&format!("claude/projects/-tmp-project/{sid}.jsonl"));
    let aside = world.path("aside.jsonl");
    fs::rename(&original, &aside).unwrap();
    let refused = world.run(&["history", "show", &format!("claude:{sid}")]);
    assert_eq!(refused.exit, 1, "{}", refused.shown());
    assert!(refused.stderr.contains("damaged"), "{}", refused.shown());
    fs::rename(&aside, &original).unwrap();
    let read = world.run(&["history", "show", &format!("claude:{sid}")]);
    assert_eq!(read.exit, 0, "read from the original: {}", read.shown());
}

/// A search decodes only the Claude transcripts whose raw bytes may hold the text (in any
/// case, with `-i`): a damaged transcript without it is passed over like any other (as `rg`
/// does), one with it is reported as not searched.
#[test]
fn search_decodes_only_transcripts_that_may_hold_the_text() {
    let world = World::new("search-prefilter");
    let project = world.path("claude/projects/-tmp-project");
    fs::write(
        project.join("0b1e0000-0000-4000-8000-000000000001.jsonl"),
        "not json\n",
    )
    .unwrap();
    fs::write(
        project.join("0b1e0000-0000-4000-8000-000000000002.jsonl"),
        "not json, but PAPAYA-9\n",
    )
    .unwrap();
    // As it is, and ignoring case (the bytes hold the text in another case): the one that
    // may hold it is decoded (and reported), the other passed over.
    for args in [&["PAPAYA-9"][..], &["papaya-9", "-i"]] {
        let doc = world
            .run(&[&["history", "search", "--json"], args].concat())
            .json();
        let skipped: Vec<&str> = doc["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["session"].as_str())
            .collect();
        assert_eq!(
            skipped,
            ["claude:0b1e0000-0000-4000-8000-000000000002"],
            "{args:?}: {doc}"
        );
    }
}

/// `history show --seq` of an event with no visible text (a tool-only or thinking-only
/// row) says so, as a read does, rather than printing its heading alone.
#[test]
fn an_event_with_no_visible_text_says_so() {
    let world = World::new("no-text");
    // Lists skip such events; a read of each seq finds one.
    let seq = (1..200)
        .find(|seq| {
            let run = world.run(&[
                "history",
                "show",
                "claude:da56055c",
                "--seq",
                &seq.to_string(),
                "--json",
            ]);
            run.exit == 0 && {
                let doc = run.json();
                let event = &doc["events"][0];
                event["text"] == "" && event["name"].is_null() && event["seq"] == *seq
            }
        })
        .expect("an event with no visible text in the fixture");
    let shown = world.run(&[
        "history",
        "show",
        "claude:da56055c",
        "--seq",
        &seq.to_string(),
    ]);
    assert_eq!(shown.exit, 0, "{}", shown.shown());
    assert!(
        shown
            .stdout
            .contains("(no visible text was recorded for this event)"),
        "{}",
        shown.stdout
    );
}

/// A project folder whose name is not UTF-8: its brain is written, `--json` documents are
/// whole (the name shown with U+FFFD, never `null`), and `notes brains` finds the folder it
/// belongs to (the brain records the path's own bytes).
#[test]
fn a_project_folder_whose_name_is_not_utf8() {
    use std::io::Write as _;
    use std::os::unix::ffi::OsStrExt as _;
    let world = World::new("latin1");
    let folder = world
        .path("other")
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    fs::create_dir_all(&folder).unwrap();
    let project = folder.as_os_str().to_owned();
    let run = |args: &[&str]| {
        let mut all: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        all.push("--project".into());
        all.push(project.clone());
        let out = Command::new(env!("CARGO_BIN_EXE_notesoup"))
            .args(&all)
            .env_clear()
            .envs(world.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let mut write = Command::new(env!("CARGO_BIN_EXE_notesoup"))
        .args(["notes", "write", "plan", "--project"])
        .arg(&project)
        .env_clear()
        .envs(world.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    write.stdin.take().unwrap().write_all(b"1. ship\n").unwrap();
    assert!(write.wait().unwrap().success());
    let (code, listed) = run(&["notes", "--json"]);
    assert_eq!(code, Some(0), "{listed}");
    let doc: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert!(
        doc["project"].as_str().unwrap().ends_with("caf\u{fffd}"),
        "{doc}"
    );
    let (code, brains) = run(&["notes", "brains", "--json"]);
    assert_eq!(code, Some(0), "{brains}");
    let doc: serde_json::Value = serde_json::from_str(&brains).unwrap();
    let mine = doc["brains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["current"] == true)
        .unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(mine["project_exists"], true, "{doc}");
}

/// The fix lines say what to do about what happened: a note deleted while it was edited
/// names `restore`, unreadable input names its cause (not UTF-8, no such file, a folder).
#[test]
fn fix_lines_fit_the_cause() {
    let mut world = World::new("fixes");
    seed(&world);
    let person = editor(
        &world,
        "person",
        &format!("{BIN} notes rm todo >/dev/null\nprintf 'mine\\n' > \"$1\""),
    );
    world.set("EDITOR", &person);
    let run = world.run(&["notes", "edit", "todo"]);
    assert_eq!(run.exit, 3, "{}", run.shown());
    assert!(
        run.stderr.contains("`notesoup notes restore todo`"),
        "{}",
        run.stderr
    );
    for (args, input, fix) in [
        (
            vec!["notes", "write", "x"],
            &b"a\xff\n"[..],
            "give text in UTF-8",
        ),
        (
            vec!["notes", "write", "x", "--file", "/nonexistent-notesoup"],
            &b""[..],
            "check the path",
        ),
        (
            vec!["notes", "write", "x", "--file", "/"],
            &b""[..],
            "give a file, not a folder",
        ),
    ] {
        let run = world.run_stdin(&args, input);
        assert_eq!(run.exit, 1, "{args:?}: {}", run.shown());
        assert!(run.stderr.contains(fix), "{args:?}: {}", run.stderr);
    }
}

/// A --project that cannot pick a brain is said in the person's words: the flag's folder
/// and why, never the tools' "session folder" or the system's error number.
#[test]
fn a_bad_project_folder_is_said_in_words() {
    let world = World::new("bad-project");
    for (folder, why) in [
        ("/nonexistent-notesoup", "no such folder"),
        ("/etc/hostname", "not a folder"),
    ] {
        let run = world.run(&["notes", "--project", folder]);
        assert_eq!(run.exit, 1, "{}", run.shown());
        assert!(
            run.stderr
                .contains(&format!("`{folder}` cannot pick a brain: {why}")),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("session folder") && !run.stderr.contains("os error"));
    }
}

/// Small things said right: a long search text is not echoed back whole; `notes brains`
/// from a folder without a brain does not explain a `*` no row has; the manual's NAME
/// line does not repeat the command's name.
#[test]
fn small_things_said_right() {
    let world = World::new("small");
    let long = "q".repeat(1000);
    let run = world.run(&["history", "search", &long]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stderr.len() < 300 && run.stderr.contains("(1000 characters)"),
        "{}",
        run.stderr
    );
    let other = world.path("other");
    let wrote = world.run_stdin(
        &["notes", "write", "x", "--project", other.to_str().unwrap()],
        b"x\n",
    );
    assert_eq!(wrote.exit, 0, "{}", wrote.shown());
    let run = world.run(&["notes", "brains"]);
    assert!(!run.stdout.contains("\n*"), "{}", run.stdout);
    assert!(run.stderr.contains("has no brain yet"), "{}", run.stderr);
    // A session given as nothing or as a path is refused as given, not as `claude:<it>`.
    for bad in ["", "/tmp/x/da56055c.jsonl"] {
        let run = world.run(&["history", "show", bad]);
        assert_eq!(run.exit, 1, "{}", run.shown());
        assert!(
            run.stderr
                .contains(&format!("session selector `{bad}` has no valid session id")),
            "{}",
            run.stderr
        );
    }
    // Into a pipe, `show` rows are whole and a search's rows the match in its context.
    let row = |run: &Run| {
        run.stdout
            .lines()
            .find(|l| l.trim_start().starts_with("#45 "))
            .unwrap_or_else(|| panic!("{}", run.stdout))
            .chars()
            .count()
    };
    let shown = world.run(&["history", "show", "claude:da56055c", "--all"]);
    let found = world.run(&[
        "history",
        "search",
        "covers the earlier",
        "--session",
        "claude:da56055c",
    ]);
    assert!(row(&shown) > 300, "{}", shown.stdout);
    assert!(row(&found) < 300, "{}", found.stdout);
    let man = world.run(&["man"]);
    let name = man
        .stdout
        .lines()
        .skip_while(|l| *l != ".SH NAME")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    assert!(name.starts_with("notesoup \\- The command line"), "{name}");
}

/// doctor's fixes name the variable at fault: a `CLAUDE` naming no file, a relative
/// `NOTESOUP_HOME` (for the vault's check too, which lives under it).
#[test]
fn doctor_fixes_name_the_variable_at_fault() {
    let mut world = World::new("doctor-vars");
    world.set("CLAUDE", "/nonexistent-claude");
    world.set("NOTESOUP_HOME", "relative/notes");
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout
            .contains("fix: CLAUDE=/nonexistent-claude names no file"),
        "{}",
        run.stdout
    );
    let vault = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("fail vault"))
        .nth(1)
        .unwrap_or_default();
    assert!(vault.contains("set NOTESOUP_HOME"), "{}", run.stdout);
}

/// `completions` and `man` take `--json` as every command does: one document holding
/// the script or the page (they printed the script or the roff as it is).
#[test]
fn completions_and_man_take_json() {
    let world = World::new("furniture-json");
    let completions = world.run(&["completions", "bash", "--json"]).json();
    assert_eq!(completions["ok"], true);
    assert_eq!(completions["shell"], "bash");
    assert!(completions["script"].as_str().unwrap().contains("notesoup"));
    let man = world.run(&["man", "--json"]).json();
    assert!(man["page"].as_str().unwrap().contains(".SH NAME"), "{man}");
    let dir = world.path("man");
    let wrote = world
        .run(&["man", "--out-dir", dir.to_str().unwrap(), "--json"])
        .json();
    assert_eq!(wrote["ok"], true, "{wrote}");
    assert!(dir.join("notesoup.1").is_file());
}

/// The next-page line a page ends with, copied and run, gives the next page of the same
/// listing: the roles and the limit asked for are in it.
#[test]
fn the_next_page_line_repeats_every_flag_of_the_page() {
    let world = World::new("next-page");
    let next = |run: &Run, lead: &str| -> Vec<String> {
        let line = run
            .stderr
            .lines()
            .find_map(|l| l.strip_prefix(lead))
            .unwrap_or_else(|| panic!("{}", run.stderr));
        let command = line.split("   (").next().unwrap();
        command
            .split_whitespace()
            .skip(1)
            .map(str::to_owned)
            .collect()
    };
    let roles_of = |run: &Run| -> Vec<String> {
        let doc = run.json();
        doc["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["role"].as_str().unwrap().to_owned())
            .collect()
    };
    let first = world.run(&[
        "history",
        "show",
        "claude:da56055c",
        "--roles",
        "user",
        "--limit",
        "2",
    ]);
    let mut args = next(&first, "older events: ");
    assert!(args.contains(&"--roles".to_owned()), "{args:?}");
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let second = world.run(&args);
    let roles = roles_of(&second);
    assert_eq!(roles.len(), 2, "{roles:?}");
    assert!(roles.iter().all(|r| r == "user"), "{roles:?}");
    let first = world.run(&[
        "history",
        "search",
        "e",
        "--session",
        "claude:da56055c",
        "--roles",
        "user",
        "--limit",
        "2",
    ]);
    let mut args = next(&first, "older matches: ");
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let second = world.run(&args);
    let roles = roles_of(&second);
    assert_eq!(roles.len(), 2, "{roles:?}");
    assert!(roles.iter().all(|r| r == "user"), "{roles:?}");
    // A limit over the most a page holds is refused, as its message says.
    let over = world.run(&["history", "show", "claude:da56055c", "--limit", "501"]);
    assert_eq!(over.exit, 2, "{}", over.shown());
}

/// `history vault` reads through the copies no original backs any more, and names a
/// damaged one (exit 1) with what can be done, instead of leaving it to be found when the
/// session is read.
#[test]
fn history_vault_names_a_damaged_copy_only_the_vault_holds() {
    let world = World::new("vault-damaged");
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let id = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
    fs::remove_file(world.path(&format!("claude/projects/-tmp-project/{id}.jsonl"))).unwrap();
    let clean = world.run(&["history", "vault", "--json"]);
    assert_eq!(clean.exit, 0, "{}", clean.shown());
    let piece = world.path(&format!("notesoup/vault/claude/{id}/v1.0.zst"));
    let mut packed = fs::read(&piece).unwrap();
    let mid = packed.len() / 2;
    packed[mid] ^= 0x40;
    fs::write(&piece, packed).unwrap();
    let run = world.run(&["history", "vault", "--json"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert_eq!(
        run.json()["damaged"],
        serde_json::json!([format!("claude:{id}")])
    );
    let text = world.run(&["history", "vault"]);
    assert!(
        text.stderr
            .contains(&format!("`notesoup history forget claude:{id}`")),
        "{}",
        text.shown()
    );
}

/// A search over every session whose older matches are all of one session ends with the
/// command that pages that session (not a placeholder to fill in).
#[test]
fn a_search_footer_names_the_one_session_it_left_matches_of() {
    let world = World::new("footer-one");
    let run = world.run(&[
        "history",
        "search",
        "prime",
        "--limit",
        "1",
        "--harness",
        "codex",
        "--sessions",
        "1",
    ]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    let footer = run.stderr.lines().last().unwrap_or_default();
    assert!(
        footer.contains("not shown: notesoup history search prime --session codex:"),
        "{}",
        run.shown()
    );
}

/// A session file the harness made before anything was said (Claude Code leaves empty
/// ones): listed as such, not as a blank row, and `show` says why there is nothing.
#[test]
fn an_empty_session_file_is_listed_and_refused_as_empty() {
    let world = World::new("empty-session");
    let dir = world.path("claude/projects/-tmp-empty");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("11111111-1111-4111-8111-111111111111.jsonl"), "").unwrap();
    let run = world.run(&["history", "sessions", "--harness", "claude"]);
    let row = run
        .stdout
        .lines()
        .find(|l| l.starts_with("claude:11111111"))
        .unwrap_or_default();
    assert!(row.ends_with("(nothing said in it yet)"), "{}", run.stdout);
    let run = world.run(&["history", "show", "claude:11111111"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stderr.contains("nothing was said in this session yet"),
        "{}",
        run.stderr
    );
}

/// A FIFO where a harness's settings file should be is said as ignored at once, never
/// waited on (for a writer that never comes): Claude's and Pi's, in limits and doctor.
#[test]
fn a_fifo_as_a_settings_file_is_refused_at_once() {
    let mut world = World::new("settings-fifo");
    let agent = world.path("pi-agent");
    fs::create_dir_all(&agent).unwrap();
    world.set("PI_CODING_AGENT_DIR", agent.to_str().unwrap());
    for fifo in [
        agent.join("settings.json"),
        world.path("claude/settings.json"),
    ] {
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
    }
    for args in [
        &["limits", "--harness", "pi"][..],
        &["limits"][..],
        &["doctor"][..],
    ] {
        let out = world.run_bounded(args, 30, &format!("{args:?} waited on a FIFO"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("not a regular file"), "{args:?}: {stdout}");
    }
}
