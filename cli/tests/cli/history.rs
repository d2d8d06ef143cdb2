//! `notesoup history sessions`, `show` and `forget` over the real Claude, Pi and Codex
//! fixtures: pages, windows, refusals, ids and output a terminal can take.

use super::*;

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

/// Every history refusal: on stderr, in the CLI's own words (flags, never a tool's fields),
/// nothing on stdout; under `--json` the one error document. A flag's value no run could
/// take (an empty search, a limit of 0) exits 2, as a wrong command line does, so it is
/// told from a search that found nothing (1); one the session does not hold exits 1. An
/// empty search never panics.
#[test]
fn history_refusals_go_to_stderr_with_their_exit_status() {
    let world = World::new("refusals");
    let session = "claude:da56055c";
    let cases: [(&str, Vec<&str>); 11] = [
        ("empty_query_all", vec!["history", "search", ""]),
        ("empty_session", vec!["history", "show", ""]),
        (
            "unknown_harness",
            vec!["history", "show", "CLAUDE:da56055c"],
        ),
        (
            "no_id",
            vec!["history", "search", "bug", "--session", "claude:"],
        ),
        ("unknown_session", vec!["history", "show", "claude:ffff"]),
        (
            "empty_query_session",
            vec!["history", "search", "", "--session", session],
        ),
        (
            "bad_cursor",
            vec!["history", "show", session, "--cursor", "bogus"],
        ),
        (
            "unknown_cursor",
            vec!["history", "show", session, "--cursor", "s999"],
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
        // 2: a value no run could take; 1: a run that found nothing.
        let usage = !matches!(
            *name,
            "unknown_session" | "unknown_cursor" | "unknown_window" | "missing_seq"
        );
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
    // Ids are UUIDs, whose case does not matter: with a harness or without, whole or a
    // prefix.
    for upper in [
        "claude:DA56055C",
        "DA56055C-293E",
        "claude:DA56055C-293E-4422-B5B8-62B1C7E6C03D",
    ] {
        let json = world
            .run(&["history", "show", upper, "--json", "--limit", "1"])
            .json();
        assert_eq!(
            json["session"], "claude:da56055c-293e-4422-b5b8-62b1c7e6c03d",
            "{upper}"
        );
    }
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
        // Exit 2 for a session no run could name, 1 for one this run did not find.
        let exit = if code == "bad_session" { 2 } else { 1 };
        assert_eq!(refused.exit, exit, "{session}: {}", refused.shown());
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
    // Pi's `<time>_<id>`, which a piece of the id no longer matches), in any case (a UUID).
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
            "pi:01A23754-922A-7771-B755-13B58637F164",
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
    // One clause, the file named once (walk6 finding 6: "transcript <file>: the transcript
    // has ...").
    assert!(
        run.stderr.contains(
            "11111111-1111-4111-8111-111111111111.jsonl: no conversation row to start from\n"
        ),
        "{}",
        run.stderr
    );
}

/// On an 80-column terminal every line of `history sessions` fits: the ids are cut to
/// their shortest unique prefix (8 characters at least, which `history show` takes), so
/// the folder and the first prompt have room, and the header is cut too. Whole ids and rows
/// go into a pipe (CLI walkthrough, stop 44, finding 6: every row was 83 wide).
#[test]
fn history_sessions_fit_an_80_column_terminal() {
    let mut world = World::new("sessions-80");
    claude_session(
        &world,
        "cccc3333-0000-4000-8000-000000000001",
        "/work/app",
        "2026-11-03T10:00:00Z",
        "the answer",
    );
    claude_session(
        &world,
        "cccc3333-1111-4000-8000-000000000002",
        "/work/app",
        "2026-11-04T10:00:00Z",
        "another answer",
    );
    world.set("COLUMNS", "80");
    world.set("NO_COLOR", "1");
    let shown = world.run_on_terminal(&["history", "sessions", "--no-pager"]);
    for line in shown.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} chars: {line}",
            line.chars().count()
        );
    }
    // The two share `cccc3333-`: each is cut one character past it.
    assert!(shown.contains("claude:cccc3333-0 "), "{shown}");
    assert!(shown.contains("claude:cccc3333-1 "), "{shown}");
    assert!(shown.contains("claude:da56055c "), "{shown}");
    assert!(shown.contains("/work/app"), "{shown}");
    let piped = world.run(&["history", "sessions"]);
    assert!(
        piped
            .stdout
            .contains("claude:cccc3333-0000-4000-8000-000000000001"),
        "{}",
        piped.stdout
    );
}

/// Every example `history show --help` gives runs on the project's own fixtures (one once
/// named a Codex prefix that fits three of them).
#[test]
fn the_show_examples_run_on_the_fixtures() {
    let world = World::new("show-examples");
    let help = world.run(&["history", "show", "--help"]);
    let examples: Vec<&str> = help
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  notesoup "))
        .collect();
    assert!(examples.len() >= 4, "{}", help.stdout);
    for example in examples {
        let run = Command::new("/bin/sh")
            .args(["-c", &format!("{BIN} {example}")])
            .env_clear()
            .envs(world.vars.iter().cloned())
            .current_dir(world.path("project/sub"))
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(0),
            "`notesoup {example}`: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

/// `history sessions` takes `--project`, `--since` and `--until` with `history search`'s
/// meaning: each filter keeps the same sessions in both (CLI walkthrough, finding 7: the
/// flags were refused).
#[test]
fn history_sessions_filter_as_search_does() {
    let world = World::new("sessions-filter");
    claude_session(
        &world,
        "aaaa1111",
        "/work/app",
        "2026-11-03T10:00:00Z",
        "the answer",
    );
    let listed = |args: &[&str]| {
        let mut all = vec!["history", "sessions", "--json", "--limit", "100"];
        all.extend_from_slice(args);
        let run = world.run(&all);
        assert_eq!(run.exit, 0, "{}", run.shown());
        let json = run.json();
        let sessions: Vec<String> = json["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["session"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(json["total"].as_u64(), Some(sessions.len() as u64));
        sessions
    };
    let searched = |args: &[&str]| {
        let mut all = vec!["history", "search", "a", "--json"];
        all.extend_from_slice(args);
        world.run(&all).json()["searched"].as_u64().unwrap()
    };
    assert_eq!(listed(&[]).len(), 8);
    assert_eq!(listed(&["--project", "/work"]), ["claude:aaaa1111"]);
    assert_eq!(listed(&["--until", "2026-11-03"]), ["claude:aaaa1111"]);
    assert!(listed(&["--project", "/elsewhere"]).is_empty());
    assert!(listed(&["--until", "2026-11-02"]).is_empty());
    for filter in [
        &["--project", "/work"][..],
        &["--project", "/elsewhere"],
        &["--since", "2026-12-01"],
        &["--since", "2026-12-01", "--until", "2026-12-02"],
        &["--until", "2026-11-03"],
        &["--since", "3d"],
        &["--harness", "pi", "--since", "2026-11-01"],
    ] {
        assert_eq!(
            listed(filter).len() as u64,
            searched(filter),
            "sessions and search keep different sessions for {filter:?}"
        );
    }
    // A folder nothing ran in is said, as search says it.
    let none = world.run(&["history", "sessions", "--project", "/elsewhere"]);
    assert!(
        none.stdout.contains("no session ran in /elsewhere"),
        "{}",
        none.shown()
    );
    let bad = world.run(&["history", "sessions", "--since", "last tuesday"]);
    assert_eq!(bad.exit, 2, "{}", bad.shown());
    assert!(bad.stderr.contains("--since"), "{}", bad.stderr);
}

/// A session is as recent as the last time its transcript records, not its file's last
/// write: a session file touched now stays where its events put it in `history sessions`,
/// is not `--since 1d`, and the search banner shows the time `sessions` shows (CLI
/// walkthrough, finding 4: a `touch` moved a three-week-old session to the top).
#[test]
fn a_touched_session_keeps_its_recorded_time() {
    let world = World::new("sessions-touched");
    let transcript =
        world.path("claude/projects/-tmp-project/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    fs::File::options()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_modified(SystemTime::now())
        .unwrap();
    let json = world.run(&["history", "sessions", "--json"]).json();
    let sessions = json["sessions"].as_array().unwrap();
    let claude = sessions
        .iter()
        .position(|s| s["harness"] == "claude")
        .unwrap();
    assert_ne!(claude, 0, "{json}");
    assert_eq!(
        sessions[claude]["updated"], "2026-12-02T15:18:58Z",
        "{json}"
    );
    let recent = world.run(&["history", "sessions", "--since", "1d", "--json"]);
    assert_eq!(recent.json()["total"], 0, "{}", recent.shown());
    let searched = world.run(&["history", "search", "Say hello", "--since", "1d"]);
    assert_eq!(searched.exit, 1, "{}", searched.shown());
    // The banner's time is the listing's.
    let banner = world.run(&["history", "search", "Say hello", "--harness", "claude"]);
    assert!(
        banner
            .stdout
            .contains("claude:da56055c-293e-4422-b5b8-62b1c7e6c03d  updated 2026-12-02 15:18"),
        "{}",
        banner.stdout
    );
    let listed = world.run(&["history", "sessions", "--harness", "claude"]);
    assert!(
        listed.stdout.contains("2026-12-02 15:18"),
        "{}",
        listed.stdout
    );
}

/// `--project` with a relative path finds the sessions of a project folder that is gone
/// (deleted or renamed since): its `..` is resolved as the shell's `cd` resolves it, so
/// `--project ../../gone` from `project/sub` is the folder the sessions ran in (walk6
/// finding 1: it was compared as `<cwd>/../../gone`, and nothing was found).
#[test]
fn project_names_a_gone_folder_by_a_relative_path() {
    let world = World::new("project-gone");
    let gone = world.path("gone/app");
    claude_session(
        &world,
        "bbbb2222",
        gone.to_str().unwrap(),
        "2026-11-03T10:00:00Z",
        "the answer",
    );
    for project in [
        "../../gone/app",
        "./../../gone/./app/",
        "../../gone/x/../app",
    ] {
        let listed = world.run(&["history", "sessions", "--json", "--project", project]);
        assert_eq!(listed.exit, 0, "{}", listed.shown());
        let json = listed.json();
        let sessions: Vec<&str> = json["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["session"].as_str().unwrap())
            .collect();
        assert_eq!(sessions, ["claude:bbbb2222"], "--project {project}");
        let found = world.run(&["history", "search", "answer", "-l", "--project", project]);
        assert_eq!(found.exit, 0, "--project {project}: {}", found.shown());
        assert_eq!(found.stdout, "claude:bbbb2222\n", "--project {project}");
    }
    // What is said of a folder nothing ran in names it without `..`.
    let none = world.run(&["history", "sessions", "--project", "../../gone/other"]);
    assert!(
        none.stdout
            .contains("no session ran in [TMP]/gone/other (no such folder here either)"),
        "{}",
        none.shown()
    );
}

/// Counts for people are written as every count notesoup writes for them, with a comma
/// between groups of three digits (`notesoup_window::thousands`), while a number in a
/// command to copy and in `--json` stays bare (walk6 finding 3: "40 of 11432 events" beside
/// limits' "159,040 tokens").
#[test]
fn counts_for_people_have_thousands_separators() {
    let world = World::new("thousands");
    let id = "cccc3333-0000-4000-8000-000000000001";
    let lines: Vec<String> = (0..1100)
        .map(|i| {
            serde_json::json!({
                "parentUuid": (i > 0).then(|| format!("u{}", i - 1)), "isSidechain": false,
                "type": "user", "message": {"role": "user", "content": format!("ping {i}")},
                "uuid": format!("u{i}"), "timestamp": "2026-11-03T10:00:00Z", "cwd": "/work/app",
                "sessionId": id, "version": "2.1.319"
            })
            .to_string()
        })
        .collect();
    let dir = world.path("claude/projects/-made");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let show = world.run(&["history", "show", "claude:cccc3333"]);
    assert!(
        show.stdout
            .starts_with(&format!("claude:{id}: 40 of 1,100 events\n")),
        "{}",
        show.stdout
    );
    let search = world.run(&["history", "search", "ping", "--harness", "claude"]);
    assert!(
        search.stderr.contains("1 of 2 sessions matched; 1,090 older matches not shown: notesoup history search ping --session claude:cccc3333"),
        "{}",
        search.stderr
    );
    let one = world.run(&["history", "search", "ping", "--session", "claude:cccc3333"]);
    assert!(
        one.stdout
            .starts_with(&format!("claude:{id}: 1,100 matches\n")),
        "{}",
        one.stdout
    );
    let json = world
        .run(&["history", "show", "claude:cccc3333", "--json"])
        .json();
    assert_eq!(json["matched"], 1100, "{json}");
    let notes = world.run(&["notes"]);
    assert!(
        notes.stdout.contains(" of 524,288 bytes"),
        "{}",
        notes.stdout
    );
}

/// Every time a `--json` document writes has one shape, `YYYY-MM-DDTHH:MM:SSZ`, whether a
/// harness recorded milliseconds or a file's mtime gave it, so `jq`'s `fromdateiso8601`
/// reads each one (user walkthrough 6, finding 13: one listing mixed `…:54.016Z` and
/// `…:54Z`, and jq refused the first).
#[test]
fn every_json_time_has_one_shape() {
    fn times<'v>(value: &'v serde_json::Value, out: &mut Vec<&'v str>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value.as_str()) {
                        ("time" | "started" | "updated" | "deleted", Some(time)) => out.push(time),
                        _ => times(value, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| times(v, out)),
            _ => {}
        }
    }
    let world = World::new("json-times");
    let mut seen = 0;
    for args in [
        &["history", "sessions", "--json"][..],
        &["history", "show", "claude:da56055c", "--json"],
        &["history", "show", "codex:", "--json"],
        &["history", "search", "prime", "--json"],
    ] {
        let run = world.run(args);
        let json = run.json();
        let mut found = Vec::new();
        times(&json, &mut found);
        for time in found {
            seen += 1;
            let shape: String = time
                .chars()
                .map(|c| if c.is_ascii_digit() { '9' } else { c })
                .collect();
            assert_eq!(shape, "9999-99-99T99:99:99Z", "{args:?}: {time}");
        }
    }
    assert!(seen > 20, "only {seen} times");
}

/// `--since` after `--until` is a command line no session can answer: both commands say so
/// and exit 2, rather than search and report nothing found (user walkthrough 6, finding 16).
#[test]
fn since_after_until_is_refused() {
    let world = World::new("since-after-until");
    for command in ["sessions", "search"] {
        let mut args = vec!["history", command];
        if command == "search" {
            args.push("prime");
        }
        args.extend(["--since", "2026-12-05", "--until", "2026-12-01"]);
        let run = world.run(&args);
        assert_eq!(run.exit, 2, "{}", run.shown());
        assert!(
            run.stderr
                .contains("--since 2026-12-05 is after --until 2026-12-01"),
            "{}",
            run.shown()
        );
        // One day given to both is that day, not a refusal.
        let n = args.len();
        args[n - 3] = "2026-12-01";
        let day = world.run(&args);
        assert_ne!(day.exit, 2, "{}", day.shown());
        assert!(!day.stderr.contains("is after"), "{}", day.shown());
    }
}
