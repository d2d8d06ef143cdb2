//! `notesoup notes`: list, show, write, append, edit, rm, trash and restore, grep and brains,
//! against a real notes store.

use super::*;

#[test]
fn notes_list_show_rm_against_a_real_store() {
    let world = World::new("notes");
    seed(&world);
    insta::assert_snapshot!("notes_list", world.run(&["notes"]).shown());
    insta::assert_snapshot!(
        "notes_list_folder",
        world.run(&["notes", "list", "project/"]).shown()
    );
    // A folder with no notes is not an empty brain, and the JSON's bytes are the brain's.
    let none = world.run(&["notes", "list", "nope/"]);
    assert!(
        none.stdout.contains(": 3 notes,") && none.stdout.contains("; 0 notes under `nope/`"),
        "{}",
        none.stdout
    );
    assert!(
        none.stdout.contains("No notes under `nope/`."),
        "{}",
        none.stdout
    );
    // A note's name given as the folder says it is a note (walk6: `notes list plan` said
    // only that no notes are under `plan/`).
    let a_note = world.run(&["notes", "list", "plan"]);
    assert_eq!(a_note.exit, 0, "{}", a_note.shown());
    assert!(
        a_note.stdout.contains(
            "No notes under `plan/`: `plan` is a note (`notesoup notes show plan` shows it)."
        ),
        "{}",
        a_note.stdout
    );
    let json = world.run(&["notes", "list", "nope/", "--json"]).json();
    assert_eq!(json["folder"], "nope/");
    assert!(json["bytes"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(json["notes"].as_array().unwrap().len(), 0);
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

/// `notes edit` of a name that is no note (a typo of `todo`), left empty by the editor:
/// nothing is created, and it says so with the note meant, instead of "Note `todx`
/// unchanged." (walk8 finding 14), which reads as if `todx` were a note.
#[test]
fn an_edit_of_a_name_that_is_no_note_left_empty_says_so() {
    let mut world = World::new("edit-typo");
    seed(&world);
    world.set("EDITOR", "true");
    let run = world.run(&["notes", "edit", "todx"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert_eq!(
        run.stdout,
        "Nothing written: `todx` is not a note, and the editor left it empty.\n",
        "{}",
        run.shown()
    );
    assert!(
        run.stderr
            .contains("did you mean `todo`? (`notesoup notes edit todo`)"),
        "{}",
        run.shown()
    );
    assert!(world.brain().read("todx").is_err());
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

/// Neither VISUAL nor EDITOR set: `vi` on PATH, else `nano`, as git falls back.
#[test]
fn edit_falls_back_to_vi_then_nano_on_path() {
    let mut world = World::new("edit-fallback");
    seed(&world);
    let bin = world.path("bin");
    fs::create_dir_all(&bin).unwrap();
    let fake = |name: &str| {
        let path = bin.join(name);
        fs::write(
            &path,
            format!("#!/bin/sh\nset -e\nprintf '{name} was here\\n' >> \"$1\"\n"),
        )
        .unwrap();
        make_executable(&path);
    };
    world.set("PATH", bin.to_str().unwrap());
    fake("nano");
    let run = world.run(&["notes", "edit", "todo"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert_eq!(
        world.brain().read("todo").unwrap().text,
        "a: todo\nb: todo\nnano was here\n"
    );
    fake("vi");
    let run = world.run(&["notes", "edit", "todo"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert!(
        world
            .brain()
            .read("todo")
            .unwrap()
            .text
            .ends_with("nano was here\nvi was here\n"),
        "vi comes first"
    );
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
    // Neither VISUAL nor EDITOR, and no vi or nano on PATH.
    let bin = world.path("bin");
    fs::create_dir_all(&bin).unwrap();
    world.set("PATH", bin.to_str().unwrap());
    insta::assert_snapshot!(
        "edit_no_editor",
        world.run(&["notes", "edit", "plan"]).shown()
    );
    world.set("PATH", "/usr/bin:/bin");
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

/// An edit the store refuses (over the note's size limit) keeps the person's text, and the
/// fix names the file and the command that saves it, as for a failed editor.
#[test]
fn an_edit_over_the_limit_names_the_file_that_keeps_the_text() {
    let mut world = World::new("edit-too-large");
    seed(&world);
    let ed = editor(
        &world,
        "big",
        r#"head -c 100000 /dev/zero | tr '\0' a > "$1""#,
    );
    world.set("EDITOR", &ed);
    let run = world.run(&["notes", "edit", "plan"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(run.stderr.contains("over the limit"), "{}", run.stderr);
    let kept = run
        .raw_stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("file: "))
        .map_or_else(
            || panic!("no file named: {}", run.raw_stderr),
            std::path::PathBuf::from,
        );
    assert_eq!(
        fs::read(&kept).unwrap().len(),
        100_000,
        "{}",
        run.raw_stderr
    );
    assert!(
        run.raw_stderr.contains(&format!(
            "`notesoup notes write plan --file {}` saves it",
            kept.display()
        )),
        "{}",
        run.raw_stderr
    );
    assert_eq!(
        world.brain().read("plan").unwrap().text,
        "1. fix lex()\n2. ship\n"
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
    // On a terminal its control characters are shown, never obeyed.
    let shown = world.run_on_terminal(&["notes", "show", "evil"]);
    assert!(!shown.contains('\u{1b}'), "{shown}");
    assert!(shown.contains("body ^[[31mred\n"), "{shown}");
    // Into a pipe it is the note's text exactly, as `cat` writes a file: a CRLF note and
    // its control characters come back byte for byte.
    let show = world.run(&["notes", "show", "evil"]);
    assert_eq!(show.exit, 0, "{}", show.shown());
    assert_eq!(
        show.stdout,
        "title \u{1b}]0;pwned\u{7}\nbody \u{1b}[31mred\n"
    );
    world
        .brain()
        .write("crlf", "crlf\r\nline2\r\nno end", None)
        .unwrap();
    let out = world.command(&["notes", "show", "crlf"]).output().unwrap();
    assert_eq!(out.stdout, b"crlf\r\nline2\r\nno end");
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
    // Counts as the other refusals write them (walk9: `65536` here, `65,536` there).
    assert!(big.stderr.contains("over 65,536 bytes"), "{}", big.stderr);
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
    // A name given twice is one name: moved once, or refused once (walk9: refused twice).
    let twice = world.run(&["notes", "rm", "nope", "nope", "--json"]);
    assert_eq!(twice.exit, 1, "{}", twice.shown());
    assert_eq!(twice.json()["failed"].as_array().map(Vec::len), Some(1));
    assert_eq!(twice.stderr.matches("no note named `nope`").count(), 1);
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
    // A text over two lines can never match one line: refused as an empty one is, not
    // "no line holds" it with exit 1 (walk9).
    let two_lines = world.run(&["notes", "grep", "a: todo\nb: todo"]);
    assert_eq!(two_lines.exit, 2, "{}", two_lines.shown());
    assert!(
        two_lines.stderr.contains("line break"),
        "{}",
        two_lines.shown()
    );
    let shown = world.run_on_terminal(&["notes", "grep", "lex", "--color", "always"]);
    assert!(shown.contains("\u{1b}[1;31mlex\u{1b}[0m"), "{shown:?}");
}

/// `notes brains` lists every brain with its project folder; --json as data with RFC 3339
/// times; a folder outside git is told, at a terminal, that its brain is keyed on its path.
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
    // Said to a person at a terminal, not to a script.
    let listed = world.run_on_terminal(&["notes", "--project", other.to_str().unwrap()]);
    assert!(listed.contains("is not in a git repository"), "{listed}");
    assert!(
        !write.stderr.contains("not in a git repository"),
        "{}",
        write.shown()
    );
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

/// `notes write` over a note keeps the text it replaces in the trash and says how to get it
/// back (one slip for `append` loses nothing); `--json` says where it lies.
#[test]
fn notes_write_over_a_note_keeps_the_old_text_in_the_trash() {
    let world = World::new("notes-write-keeps");
    world.run_stdin(&["notes", "write", "precious"], b"precious original plan\n");
    let run = world.run_stdin(&["notes", "write", "precious"], b"oops\n");
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert!(
        run.stdout
            .contains("`notesoup notes restore precious --force` brings it back"),
        "{}",
        run.stdout
    );
    let trash = world.run(&["notes", "trash", "--json"]).json();
    assert_eq!(trash["trash"][0]["name"], "precious", "{trash}");
    let json = world
        .run_stdin(&["notes", "write", "precious", "--json"], b"again\n")
        .json();
    assert!(json["old_in_trash"].as_str().is_some(), "{json}");
    world.run(&["notes", "restore", "precious", "--force"]);
    let shown = world.run(&["notes", "show", "precious"]);
    assert_eq!(shown.stdout, "oops\n");
}

/// A name no note can have that means one the brain holds (`Plan`, `plan.md`, as its files
/// are named on disk) is refused as before (exit 2) and the fix names that note (walk6
/// finding 4: `notes show Plan` said only which character is not allowed).
#[test]
fn a_bad_name_that_means_a_note_names_it() {
    let world = World::new("bad-name-meant");
    seed(&world);
    for args in [
        &["notes", "show", "Plan"][..],
        &["notes", "show", "plan.md"],
        &["notes", "rm", "PLAN.md"],
        &["notes", "show", "Project/Build.md"],
    ] {
        let run = world.run(args);
        // rm goes on with the other names and exits 1 when any was not removed.
        let exit = if args[1] == "rm" { 1 } else { 2 };
        assert_eq!(run.exit, exit, "{args:?}: {}", run.shown());
        let meant = if args[2].starts_with("Project") {
            "did you mean `project/build`?"
        } else {
            "did you mean `plan`?"
        };
        assert!(run.stderr.contains(meant), "{args:?}: {}", run.stderr);
    }
    let rm = world.run(&["notes", "rm", "Plan", "--json"]).json();
    assert_eq!(rm["failed"][0]["near"], serde_json::json!(["plan"]), "{rm}");
    // A bad name that means no note gets the rule alone.
    let run = world.run(&["notes", "show", "Nope.md"]);
    assert_eq!(run.exit, 2, "{}", run.shown());
    assert!(
        !run.stderr.contains("did you mean") && run.stderr.contains("a name is segments"),
        "{}",
        run.stderr
    );
    // The note itself is untouched by the refused rm.
    assert_eq!(world.run(&["notes", "show", "plan"]).exit, 0);
}

/// A note's size is written as a count for people: one byte is a byte (walk6 finding 17:
/// "Appended 1 bytes").
#[test]
fn one_byte_is_a_byte() {
    let world = World::new("one-byte");
    let run = world.run_stdin(&["notes", "write", "fresh"], b"first\n");
    assert_eq!(run.exit, 0, "{}", run.shown());
    let one = world.run_stdin(&["notes", "append", "fresh"], b"x");
    assert!(
        one.stdout
            .starts_with("Appended 1 byte to note `fresh`: 7 bytes now,"),
        "{}",
        one.stdout
    );
    let tiny = world.run_stdin(&["notes", "write", "tiny"], b"x");
    assert!(
        tiny.stdout.starts_with("Created note `tiny`: 1 byte,"),
        "{}",
        tiny.stdout
    );
}

/// `--project` naming a project folder that is gone (deleted, or moved or renamed away)
/// opens the brain it left behind, which `notes brains` lists as "folder gone", so its
/// notes can be read and restored (walk6 finding 19: "cannot pick a brain: no such
/// folder", the notes reachable only by the brain's files).
#[test]
fn project_opens_the_brain_a_gone_folder_left_behind() {
    let world = World::new("notes-gone");
    let gone = world.path("gone/app");
    fs::create_dir_all(gone.join(".git")).unwrap();
    fs::create_dir_all(gone.join("src")).unwrap();
    let wrote = world.run_stdin(
        &[
            "notes",
            "--project",
            gone.to_str().unwrap(),
            "write",
            "plan",
        ],
        b"1. ship it\n",
    );
    assert_eq!(wrote.exit, 0, "{}", wrote.shown());
    fs::remove_dir_all(&gone).unwrap();
    // By the folder, by a relative path, and by a folder below the git root.
    for project in [
        gone.to_str().unwrap(),
        "../../gone/app",
        "../../gone/app/src",
    ] {
        let shown = world.run(&["notes", "--project", project, "show", "plan"]);
        assert_eq!(shown.exit, 0, "{project}: {}", shown.shown());
        assert_eq!(shown.stdout, "1. ship it\n", "{project}");
    }
    let listed = world.run(&["notes", "--project", "../../gone/app"]);
    assert!(
        listed.stdout.contains(": 1 note,")
            && listed
                .stderr
                .contains("[TMP]/gone/app is gone: this is the brain it left behind"),
        "{}",
        listed.shown()
    );
    // A gone folder no brain was written from is refused as before.
    let none = world.run(&["notes", "--project", "../../gone/other"]);
    assert_eq!(none.exit, 1, "{}", none.shown());
    assert!(none.stderr.contains("no such folder"), "{}", none.stderr);
    // So is a mistyped folder under a project that is still there: not its brain.
    seed(&world);
    let typo = world.run(&["notes", "--project", "../sbu", "show", "plan"]);
    assert_eq!(typo.exit, 1, "{}", typo.shown());
    assert!(typo.stderr.contains("no such folder"), "{}", typo.stderr);
}

/// `notes edit` with a TMPDIR that is no folder says it is TMPDIR, and what to do (walk6
/// finding 23: "could not create the file to edit …: No such file", fix "check the path").
#[test]
fn edit_names_a_tmpdir_it_cannot_use() {
    let mut world = World::new("edit-tmpdir");
    seed(&world);
    world.set("EDITOR", "true");
    let missing = world.path("no-such-tmp");
    world.set("TMPDIR", missing.to_str().unwrap());
    let run = world.run(&["notes", "edit", "plan"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stderr
            .contains("could not create the file to edit in [TMP]/no-such-tmp (TMPDIR)")
            && run
                .stderr
                .contains("fix:  set TMPDIR to a folder you can write, or unset it"),
        "{}",
        run.stderr
    );
    assert_eq!(
        world.brain().read("plan").unwrap().text,
        "1. fix lex()\n2. ship\n"
    );
}

/// A write that would take the brain past its limit says what makes room: deleting or
/// shortening notes (walk9: its fix said to split the note, which leaves the brain as large).
#[test]
fn a_full_brain_says_to_delete_notes_not_to_split_them() {
    let world = World::new("full");
    let brain = world.brain();
    let note = "a".repeat(usize::try_from(notesoup_notes::MAX_NOTE_BYTES).unwrap());
    for i in 0..notesoup_notes::MAX_BRAIN_BYTES / notesoup_notes::MAX_NOTE_BYTES {
        brain.write(&format!("n{i}"), &note, None).unwrap();
    }
    let run = world.run_stdin(&["notes", "write", "one-more"], b"x\n");
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        !run.stderr.contains("split") && run.stderr.contains("`notesoup notes rm NAME`"),
        "{}",
        run.stderr
    );
    let json = world
        .run_stdin(&["notes", "append", "one-more", "--json"], b"x\n")
        .json();
    assert_eq!(json["error"]["code"], "too_large", "{json}");
    let fix = json["error"]["fix"].as_str().unwrap_or_default();
    assert!(
        !fix.contains("split") && fix.contains("notesoup notes rm"),
        "{json}"
    );
}

/// A folder of notes given where a note's name goes says it is a folder, and what lists it,
/// as `notes list plan` says `plan` is a note (walk9: `notes show project` said only that
/// no note has that name).
#[test]
fn a_folder_given_as_a_note_says_it_is_a_folder() {
    let world = World::new("folder-as-note");
    let brain = world.brain();
    brain.write("project/build", "cargo build\n", None).unwrap();
    for args in [
        &["notes", "show", "project"][..],
        &["notes", "rm", "project"],
        &["notes", "show", "project/"],
    ] {
        let run = world.run(args);
        assert_eq!(
            run.exit,
            if args[2].ends_with('/') { 2 } else { 1 },
            "{}",
            run.shown()
        );
        if !args[2].ends_with('/') {
            assert!(
                run.stderr.contains(
                    "`project` is a folder of notes: `notesoup notes list project` lists them"
                ),
                "{}",
                run.stderr
            );
        }
    }
    assert_eq!(
        world.brain().read("project/build").unwrap().text,
        "cargo build\n"
    );
}

/// An edit that replaces a note's text keeps the text it replaced in the trash, as `notes
/// write` keeps it (walk9: a slip in the editor, the note cut to one line and saved, lost
/// the rest for good, where the same change by `notes write` could be restored).
#[test]
fn an_edit_keeps_the_text_it_replaced_in_the_trash() {
    let mut world = World::new("edit-keeps");
    seed(&world);
    let ed = editor(&world, "cut", r#"printf 'oops\n' > "$1""#);
    world.set("EDITOR", &ed);
    let run = world.run(&["notes", "edit", "plan"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert_eq!(world.brain().read("plan").unwrap().text, "oops\n");
    assert!(
        run.stdout
            .contains("`notesoup notes restore plan --force` brings it back"),
        "{}",
        run.stdout
    );
    let back = world.run(&["notes", "restore", "plan", "--force"]);
    assert_eq!(back.exit, 0, "{}", back.shown());
    assert_eq!(
        world.brain().read("plan").unwrap().text,
        "1. fix lex()\n2. ship\n"
    );
    // --json says where the old text went; an edit that changed nothing keeps nothing.
    let json = world.run(&["notes", "edit", "plan", "--json"]).json();
    assert!(json["old_in_trash"].is_string(), "{json}");
    world.set("EDITOR", "true");
    let json = world.run(&["notes", "edit", "plan", "--json"]).json();
    assert!(
        json.get("old_in_trash")
            .is_none_or(serde_json::Value::is_null),
        "{json}"
    );
}
