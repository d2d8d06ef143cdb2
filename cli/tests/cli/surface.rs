//! The command line itself: help, wrong and hostile arguments, colour and the pager, the
//! README's commands, completions and man pages, and the fix each refusal names.

use super::*;

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

/// Under `--json` a command line clap refuses gives the same error document as every
/// other refusal (stdout, `ok: false`, the code of the run's own exit-2 refusals, the
/// command's `--help` as the fix), its text still on stderr; without `--json`, stdout
/// stays empty (walk8 finding 2).
#[test]
fn a_wrong_command_line_under_json_is_a_json_error_document() {
    let world = World::new("usage-json");
    for (args, command) in [
        (
            &["history", "show", "pi:01a2", "--roles", "bogus", "--json"][..],
            "notesoup history show",
        ),
        (
            &["--json", "history", "list", "--bogus"][..],
            "notesoup history sessions",
        ),
        (&["notes", "show", "--json"][..], "notesoup notes show"),
    ] {
        let run = world.run(args);
        assert_eq!(run.exit, 2, "{}", run.shown());
        let doc: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", run.shown()));
        assert_eq!(doc["ok"], false, "{}", run.stdout);
        assert_eq!(doc["error"]["code"], "bad_argument", "{}", run.stdout);
        assert!(
            doc["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty() && !m.starts_with("error:")),
            "{}",
            run.stdout
        );
        assert_eq!(
            doc["error"]["fix"],
            format!("`{command} --help` says what it takes"),
            "{}",
            run.stdout
        );
        assert!(run.stderr.starts_with("error: "), "{}", run.shown());
    }
    // A `--json` after `--` is a search text, not the flag; and no --json, no document.
    let run = world.run(&["history", "search", "--roles", "bogus", "--", "--json"]);
    assert_eq!((run.exit, run.stdout.as_str()), (2, ""), "{}", run.shown());
}

/// `--limit` of `history show` and `history search` has a cap (`history sessions`' has
/// none): their --help names it, and a --limit past it is refused with the same range
/// (walk8 finding 9: only the refusal said it).
#[test]
fn the_cap_of_limit_is_in_help_where_there_is_one() {
    let world = World::new("limit-cap");
    let max = notesoup_history_core::MAX_LIMIT;
    for command in [
        &["history", "show", "claude:da56"][..],
        &["history", "search", "x"][..],
    ] {
        let help = world.run(&[command[0], command[1], "--help"]);
        assert!(
            help.stdout.contains(&format!("at most {max}")),
            "{command:?}: {}",
            help.stdout
        );
        let over = (max + 1).to_string();
        let run = world.run(&[command, &["--limit", &over]].concat());
        assert_eq!(run.exit, 2, "{}", run.shown());
        assert!(
            run.stderr.contains(&format!("use 1 to {max}")),
            "{}",
            run.shown()
        );
    }
}

#[test]
fn colour_on_a_terminal_unless_no_color_and_as_the_flag_says() {
    let mut world = World::new("colour");
    seed(&world);
    // A pipe: no colour.
    assert!(!world.run(&["notes"]).stdout.contains('\x1b'));
    // Asked for: colour, even under NO_COLOR (no-color.org: a flag given for this run wins).
    assert!(
        world
            .run(&["notes", "--color", "always"])
            .stdout
            .contains("\x1b[1m")
    );
    world.set("NO_COLOR", "1");
    let asked = world.run(&["notes", "show", "nothere", "--color", "always"]);
    assert!(
        asked.stderr.contains("\x1b[31mnotesoup:"),
        "{}",
        asked.stderr
    );
    assert!(
        world
            .run(&["notes", "--color", "always"])
            .stdout
            .contains("\x1b[1m")
    );
    // A real terminal: colour, unless NO_COLOR or TERM=dumb (on stdout and stderr alike),
    // or --color never.
    let out = world.run_on_terminal(&["notes", "--no-pager"]);
    assert!(out.contains("plan") && !out.contains('\x1b'), "{out:?}");
    world.unset("NO_COLOR");
    let out = world.run_on_terminal(&["notes", "--no-pager", "--color", "never"]);
    assert!(out.contains("plan") && !out.contains('\x1b'), "{out:?}");
    world.set("TERM", "dumb");
    let out = world.run_on_terminal(&["notes", "grep", "nomatch"]);
    assert!(
        out.contains("holds \"nomatch\"") && !out.contains('\x1b'),
        "{out:?}"
    );
    let out = world.run_on_terminal(&["notes", "--no-pager"]);
    assert!(out.contains("plan") && !out.contains('\x1b'), "{out:?}");
    world.unset("TERM");
    let out = world.run_on_terminal(&["notes", "grep", "nomatch"]);
    assert!(out.contains("\x1b[2mNo line"), "{out:?}");
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

/// A pager that cannot run does not swallow the text: with no `PAGER` and no `less` on
/// PATH (a slim container) the text is printed as it is, and a `PAGER` the shell cannot find
/// (exit 127) is passed over the same way (walk6 finding 21: only "sh: 1: less: not found"
/// was shown, and the listing was lost).
#[test]
fn a_pager_that_cannot_run_does_not_swallow_the_text() {
    let mut world = World::new("pager-missing");
    seed(&world);
    let empty = world.path("no-programs");
    fs::create_dir_all(&empty).unwrap();
    world.set("PATH", empty.to_str().unwrap());
    world.set("LINES", "3");
    let out = world.run_on_terminal(&["notes"]);
    assert!(
        out.contains("project/build") && !out.contains("not found"),
        "{out:?}"
    );
    world.set("PAGER", "no-such-pager");
    let out = world.run_on_terminal(&["notes"]);
    assert!(out.contains("project/build"), "{out:?}");
}

/// Ctrl-C while the pager shows the text belongs to the pager (less stops a search with
/// it): notesoup waits for the pager and exits as it would have, instead of dying and
/// handing the terminal back to the shell while the pager still reads it (walk7 finding
/// 17). The pager here sends SIGINT to notesoup (its parent) before it reads the text.
#[test]
fn ctrl_c_in_the_pager_does_not_end_notesoup_under_it() {
    let mut world = World::new("pager-sigint");
    seed(&world);
    let marker = world.path("paged");
    world.set(
        "PAGER",
        &format!("kill -INT $PPID; cat > {}", marker.display()),
    );
    world.set("LINES", "3");
    let out = Command::new("/usr/bin/script")
        .args([
            "-qec",
            &format!("{BIN} notes; echo notesoup-exit=$?"),
            "/dev/null",
        ])
        .env_clear()
        .envs(world.vars.iter().cloned())
        .current_dir(world.path("project/sub"))
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("notesoup-exit=0"), "{shown:?}");
    let paged = fs::read_to_string(&marker).unwrap();
    assert!(paged.contains("project/build"), "{paged}");
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
fn mcp_slot_answers() {
    let world = World::new("mcp");
    let run = world.run(&["mcp", "--help"]);
    assert_eq!(run.exit, 0);
}

/// `notesoup mcp` typed on a terminal says what it waits for (walk6 finding 8: it printed
/// its start line and seemed to hang); started by a client (stdin a pipe), its stderr is the
/// start line alone, as a client's log shows it.
#[test]
fn mcp_typed_on_a_terminal_says_what_it_waits_for() {
    let world = World::new("mcp-terminal");
    let waits = "It waits for an MCP client's JSON-RPC on stdin";
    // `script` gives it a terminal for stdin too, and ends it with an end of file.
    let typed = world.run_on_terminal(&["mcp"]);
    assert!(
        typed.contains("notesoup mcp ") && typed.contains(waits) && typed.contains("Ctrl-D"),
        "{typed}"
    );
    let piped = world.run(&["mcp"]);
    assert_eq!(piped.exit, 0, "{}", piped.shown());
    assert!(
        piped.stderr.starts_with("notesoup mcp ") && !piped.stderr.contains(waits),
        "{}",
        piped.stderr
    );
    assert_eq!(piped.stderr.lines().count(), 1, "{}", piped.stderr);
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
    // A session given as nothing or as a path is refused as given, not as `claude:<it>`,
    // as a value no run could take (exit 2).
    for bad in ["", "/tmp/x/da56055c.jsonl"] {
        let run = world.run(&["history", "show", bad]);
        assert_eq!(run.exit, 2, "{}", run.shown());
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

/// An error's `fix:` line tells something the error did not: no run of four words of the
/// fix repeats the message above it.
#[test]
fn a_fix_line_never_repeats_its_error() {
    let mut world = World::new("fixes");
    seed(&world);
    let bin = world.path("bin");
    fs::create_dir_all(&bin).unwrap();
    let words = |text: &str| -> Vec<String> {
        text.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let cases: [&[&str]; 10] = [
        &["notes", "show", "a.md"],
        &["notes", "show", "nothere"],
        &["notes", "restore", "nothere"],
        &["history", "show", "pi:01a23754"],
        &["history", "show", "01a2375"],
        &["history", "show", ""],
        &["history", "show", "claude:da56055c", "--seq", "999"],
        &["history", "search", "x", "--sessions", "0"],
        &["limits", "--cap", "abc"],
        &["notes", "edit", "plan"],
    ];
    world.set("PATH", bin.to_str().unwrap());
    for args in cases {
        let run = world.run(args);
        assert_ne!(run.exit, 0, "{args:?}: {}", run.shown());
        let message = run
            .stderr
            .lines()
            .find_map(|l| l.strip_prefix("notesoup: "))
            .unwrap_or_else(|| panic!("{args:?}: {}", run.shown()));
        let fix = run
            .stderr
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("fix: "))
            .unwrap_or_else(|| panic!("{args:?}: no fix: {}", run.shown()));
        let said: Vec<String> = words(message).windows(4).map(|w| w.join(" ")).collect();
        for run_of_four in words(fix).windows(4) {
            assert!(
                !said.contains(&run_of_four.join(" ")),
                "{args:?}: the fix repeats the error ({run_of_four:?}):\n{}",
                run.stderr
            );
        }
    }
}

/// Help written into a full disk is an error said on stderr, exit 1, as every command's
/// output is; a reader that goes away (`| head`) stays no error.
#[test]
fn help_into_a_full_disk_fails() {
    let world = World::new("help-full");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = world.command(&["--help"]).stdout(full).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("could not write the output to stdout: No space left on device"),
        "{stderr}"
    );
}
