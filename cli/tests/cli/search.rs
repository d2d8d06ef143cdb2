//! `notesoup history search`: one session and all, filters, footers, and the sessions it could
//! not read.

use super::*;

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
    // Neither with --json (as rg): its document already has both; a script asking for
    // one is told, not handed the whole document as if it were the short form.
    for short in ["-l", "-c"] {
        let both = world.run(&["history", "search", "prime", short, "--json"]);
        assert_eq!(both.exit, 2, "{}", both.shown());
        assert_eq!(
            both.json()["error"]["code"],
            "bad_argument",
            "{}",
            both.shown()
        );
    }
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

/// Older matches left in several sessions: the footer says how to page any of them, in words
/// that say what it shows.
#[test]
fn a_search_footer_says_how_to_page_the_sessions_it_left_matches_of() {
    let world = World::new("footer-several");
    let run = world.run(&[
        "history",
        "search",
        "prime",
        "--limit",
        "1",
        "--harness",
        "codex",
    ]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    let footer = run.stderr.lines().last().unwrap_or_default();
    assert!(
        footer.ends_with(
            "older matches not shown: --session with one of the sessions above shows its older matches, page by page"
        ),
        "{}",
        run.shown()
    );
}

/// A Claude file with no conversation row (an empty one, or one of summaries only, as
/// Claude Code leaves them) holds no match: a search that reads it says nothing of it, as
/// `history sessions` lists it as a session with nothing said yet (walk6 finding 12: it was
/// "could not be read" under every search its bytes could hold).
#[test]
fn a_session_with_nothing_said_is_no_session_that_could_not_be_read() {
    let world = World::new("search-nothing-said");
    let dir = world.path("claude/projects/-tmp-project");
    fs::write(
        dir.join("abab0000-0000-4000-8000-000000000001.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"Say hello and wave\",\"leafUuid\":\"00000000-0000-4000-8000-000000000abc\"}\n",
    )
    .unwrap();
    fs::write(dir.join("abab0000-0000-4000-8000-000000000002.jsonl"), "").unwrap();
    // A text with a line break is decoded for in every session: the empty file too.
    for query in ["Say hello", "hello\nand", "SAY HELLO"] {
        let mut args = vec!["history", "search", query, "--harness", "claude"];
        if query.starts_with("SAY") {
            args.push("-i");
        }
        let run = world.run(&args);
        assert!(
            !run.stderr.contains("could not be read"),
            "{query:?}: {}",
            run.shown()
        );
        let mut json_args = args.clone();
        json_args.push("--json");
        let json = world.run(&json_args).json();
        assert_eq!(json["skipped"], serde_json::json!([]), "{query:?}: {json}");
    }
    let listed = world.run(&["history", "sessions", "--harness", "claude"]);
    assert!(
        listed
            .stdout
            .contains("claude:abab0000-0000-4000-8000-000000000001")
            && listed.stdout.contains("(nothing said in it yet)"),
        "{}",
        listed.stdout
    );
}

/// A search with no session to search says why, as `history sessions` does, not only "no
/// match … in 0 sessions" (walk6 finding 24): no sessions at all, or none the filters keep.
#[test]
fn a_search_of_no_session_says_why() {
    let mut world = World::new("search-none");
    let run = world.run(&["history", "search", "prime", "--since", "2999-01-01"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stderr.contains(
            "in 0 sessions; no session is of that --harness or active in that time (`notesoup history sessions` takes the same flags)"
        ),
        "{}",
        run.stderr
    );
    let empty = world.path("empty");
    fs::create_dir_all(&empty).unwrap();
    for var in [
        "CLAUDE_CONFIG_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "CODEX_HOME",
    ] {
        world.set(var, empty.to_str().unwrap());
    }
    let run = world.run(&["history", "search", "prime"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stderr.contains(
            "no match for \"prime\" in 0 sessions; no sessions found (`notesoup doctor` shows which folders are searched)"
        ),
        "{}",
        run.stderr
    );
}
