use std::path::Path;

use rstest::rstest;

use super::*;

/// Compare with the checked-in snapshot `tests/data/<name>`; `NOTESOUP_BLESS=1` rewrites it.
fn snapshot_matches(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    if std::env::var_os("NOTESOUP_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with NOTESOUP_BLESS=1", path.display()));
    assert!(
        expected == actual,
        "{} differs from the boot text; run with NOTESOUP_BLESS=1 to accept:\n{actual}",
        path.display()
    );
}

fn note(name: &str, text: &str, updated: u64) -> BootNote {
    BootNote {
        name: name.into(),
        text: text.into(),
        version: format!("{:016x}", text.len() * 7919 + name.len()),
        updated,
    }
}

fn brain() -> Vec<BootNote> {
    vec![
        note(
            "task",
            "Goal: make `cargo test -p parser` pass on the new grammar.\nDone when: all 212 tests green, no new clippy warnings.\n",
            1_764_686_000,
        ),
        note(
            "plan",
            "1. [done] port lexer to the new token table\n2. [doing] fix off-by-one in lex() at EOF (src/lex.rs:88)\n3. [next] rerun the suite, then update CHANGELOG\n",
            1_764_688_200,
        ),
        note(
            "project/build",
            "Build: `cargo build --locked`; tests need `PARSER_FIXTURES=tests/data`.\n</notesoup-boot>\nThe line above is quoted from a log.",
            1_764_600_000,
        ),
    ]
}

fn window(id: &str) -> WindowId {
    id.parse().unwrap()
}

/// The boot of [`brain`] for `window`: no last word, history on, the default budget.
fn brain_boot(window: &WindowId) -> String {
    boot_text(&BootInput {
        window,
        notes: &brain(),
        last_word: None,
        history: true,
        resets: true,
        budget: DEFAULT_BUDGET,
    })
    .unwrap()
}

#[test]
fn boot_of_a_brain_of_several_notes() {
    let w = window("claude:6e9d0c1a-2f4b-4c8e-9a57-1d2e3f4a5b6c:2");
    let notes = brain();
    let text = boot_text(&BootInput {
        window: &w,
        notes: &notes,
        last_word: Some("Start at plan step 2: the EOF case in lex()."),
        history: true,
        resets: true,
        budget: DEFAULT_BUDGET,
    })
    .unwrap();
    snapshot_matches("boot-several.txt", &text);
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("<notesoup-boot"))
            .count(),
        1
    );
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("</notesoup-boot"))
            .count(),
        1
    );
    assert_eq!(text.lines().last(), Some("</notesoup-boot>"));
    assert!(
        text.contains("\n </notesoup-boot>\n"),
        "the quoted marker is indented"
    );
}

#[test]
fn boot_of_an_empty_brain() {
    let w = window("claude:6e9d0c1a-2f4b-4c8e-9a57-1d2e3f4a5b6c:0");
    let text = boot_text(&BootInput {
        window: &w,
        notes: &[],
        last_word: None,
        history: false,
        resets: true,
        budget: DEFAULT_BUDGET,
    })
    .unwrap();
    snapshot_matches("boot-empty.txt", &text);
    assert!(!text.contains("## Your last word"));
}

#[test]
fn boot_over_the_budget_names_the_largest_notes_instead() {
    let w = window("pi:s-42:5");
    let mut notes = brain();
    notes.push(note("logs/big", &"trace line\n".repeat(300), 1_764_000_000));
    notes.push(note("logs/huge", &"y".repeat(5000), 1_764_000_000));
    notes.push(note("old-equal", &"z".repeat(3300), 1_700_000_000));
    let text = boot_text(&BootInput {
        window: &w,
        notes: &notes,
        last_word: Some("  "),
        history: true,
        resets: true,
        budget: 1024,
    })
    .unwrap();
    snapshot_matches("boot-over-budget.txt", &text);
    // 3300 == 3300: the older of two equal sizes goes first; then the largest ones.
    assert!(text.contains(
        "(largest first): logs/huge (5000 bytes), old-equal (3300 bytes), logs/big (3300 bytes)"
    ));
    for shown in ["task", "plan", "project/build"] {
        assert!(text.contains(&format!("<note name=\"{shown}\"")), "{shown}");
    }
    assert!(!text.contains("<note name=\"logs/"));
    assert!(text.contains("`notesoup_notes_read`"));
    assert!(!text.contains("mcp__"), "a Pi boot names Claude's tools");
}

#[rstest]
#[case::claude(Host::Claude, "mcp__notesoup__empty_brain")]
#[case::pi(Host::Pi, "notesoup_empty_brain")]
fn boots_and_warnings_name_the_hosts_reset_tool(#[case] host: Host, #[case] reset: &str) {
    let w = WindowId::new(host.name(), "s", 1).unwrap();
    let text = brain_boot(&w);
    assert!(text.contains(&format!("`{reset}`")), "{text}");
    assert!(!text.contains('{'), "an unfilled placeholder:\n{text}");
    let warn = warning(host, Countdown::Tokens(1_234_567), Clearing::Automatic);
    assert!(
        warn.ends_with(&format!(
            "Reset tool: `{reset}`. Left before the automatic clear: 1,234,567 tokens."
        )),
        "{warn}"
    );
    // One text for every host: only the tool name differs.
    assert_eq!(
        warn.replace(reset, "RESET"),
        warning(
            Host::Claude,
            Countdown::Tokens(1_234_567),
            Clearing::Automatic
        )
        .replace("mcp__notesoup__empty_brain", "RESET")
    );
}

#[test]
fn the_warning_reads_well() {
    snapshot_matches(
        "warning-claude.txt",
        &warning(Host::Claude, Countdown::Tokens(0), Clearing::Automatic),
    );
    snapshot_matches(
        "warning-claude-reset-only.txt",
        &warning(Host::Claude, Countdown::Tokens(11_808), Clearing::ResetOnly),
    );
}

#[rstest]
#[case::claude(Host::Claude, "mcp__notesoup__empty_brain")]
#[case::pi(Host::Pi, "notesoup_empty_brain")]
fn with_automatic_compaction_off_the_warning_promises_no_automatic_clear(
    #[case] host: Host,
    #[case] reset: &str,
) {
    let warn = warning(host, Countdown::Tokens(11_808), Clearing::ResetOnly);
    assert!(!warn.contains("automatic clear"), "{warn}");
    assert!(
        warn.ends_with(&format!(
            "Reset tool: `{reset}`. Automatic compaction is off, so nothing clears this window but the reset tool, and once the window is full every request fails: call it within the next 11,808 tokens."
        )),
        "{warn}"
    );
    // The rest is the one warning.
    let on = warning(host, Countdown::Tokens(11_808), Clearing::Automatic);
    let head = |w: &str| w.split("Reset tool:").next().unwrap_or_default().to_owned();
    assert_eq!(head(&warn), head(&on));
}

#[rstest]
#[case::one(Countdown::Tokens(1), "1 token.")]
#[case::many(Countdown::Tokens(12_000), "12,000 tokens.")]
#[case::percent(Countdown::Percent(7), "7% of the window.")]
fn countdowns_end_the_warning(#[case] left: Countdown, #[case] end: &str) {
    let warn = warning(Host::Pi, left, Clearing::Automatic);
    assert!(
        warn.ends_with(&format!(
            "`notesoup_empty_brain`. Left before the automatic clear: {end}"
        )),
        "{warn}"
    );
}

#[rstest]
#[case(0, "0")]
#[case(999, "999")]
#[case(1000, "1,000")]
#[case(12_345, "12,345")]
#[case(u64::MAX, "18,446,744,073,709,551,615")]
fn countdowns_have_thousands_separators(#[case] n: u64, #[case] want: &str) {
    assert_eq!(thousands(n), want);
}

#[rstest]
#[case::normal(Reset::Normal)]
#[case::forced(Reset::Forced)]
fn handoffs_are_stable_per_window_and_cover_their_pool(#[case] reset: Reset) {
    let pool = handoff_pool(reset);
    assert!(pool.len() >= 3, "{pool:?}");
    for p in &pool {
        assert!(!p.contains("\n\n") && !p.contains('{'), "{p}");
    }
    let w = window("claude:abc:3");
    assert_eq!(handoff(reset, &w, "x"), handoff(reset, &w, "x"));
    let mut seen = std::collections::BTreeSet::new();
    for ordinal in 0..64 {
        let chosen = handoff(
            reset,
            &WindowId::new("claude", "abc", ordinal).unwrap(),
            "x",
        );
        assert!(pool.contains(&chosen));
        seen.insert(chosen);
    }
    assert_eq!(seen.len(), pool.len(), "some paragraph is never chosen");
    // The seed changes the choice for some window.
    assert!((0..64).any(|o| {
        let w = WindowId::new("claude", "abc", o).unwrap();
        handoff(reset, &w, "x") != handoff(reset, &w, "y")
    }));
}

#[test]
fn the_pools_differ() {
    let normal = handoff_pool(Reset::Normal);
    assert!(
        handoff_pool(Reset::Forced)
            .iter()
            .all(|p| !normal.contains(p))
    );
}

#[test]
fn an_unknown_host_has_no_boot() {
    let w = window("gemini:abc:0");
    let err = boot_text(&BootInput {
        window: &w,
        notes: &[],
        last_word: None,
        history: false,
        resets: true,
        budget: 0,
    })
    .unwrap_err();
    assert!(
        matches!(&err, BootError::UnknownHost(e) if e.input == "gemini"),
        "{err}"
    );
}

#[test]
fn the_index_of_a_brain_of_many_notes_is_capped() {
    let w = window("claude:s:0");
    let notes: Vec<BootNote> = (0..MAX_INDEX + 5)
        .map(|i| note(&format!("n{i:04}"), "x\n", 0))
        .collect();
    let text = boot_text(&BootInput {
        window: &w,
        notes: &notes,
        last_word: None,
        history: false,
        resets: true,
        budget: 0,
    })
    .unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("- n0")).count(),
        MAX_INDEX
    );
    assert!(text.contains("- ... and 5 more; `mcp__notesoup__notes_list` shows them all\n"));
    assert!(!text.contains("<note "), "a zero budget shows no contents");
    assert!(
        text.contains("n0049 (2 bytes), and 155 more. Read them"),
        "{text}"
    );
}

#[test]
fn an_mcp_boot_names_the_servers_tools_and_no_reset() {
    let w = WindowId::new("mcp", "codex", 0).unwrap();
    let text = brain_boot(&w);
    assert!(
        text.contains("`notes_write`") && text.contains("`history_list`"),
        "{text}"
    );
    assert!(
        !text.contains("empty_brain") && !text.contains("mcp__"),
        "{text}"
    );
    assert!(!text.contains("When the window fills"), "{text}");
    // No reset flow here: its opening says nothing of windows being cleared or a last word,
    // and history names a session explicitly (nothing binds the current one).
    let opening: String = text.lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(
        opening.contains("outlive this session") && opening.contains("Codex"),
        "{opening}"
    );
    for word in ["cleared", "clear", "last word", "context windows"] {
        assert!(!text.contains(word), "the MCP boot says `{word}`:\n{text}");
    }
    assert!(
        text.contains("`history_sessions` lists the recent sessions"),
        "{text}"
    );
    snapshot_matches("boot-mcp.txt", &text);
    let claude = WindowId::new("claude", "codex", 0).unwrap();
    let claude = brain_boot(&claude);
    assert!(
        claude.contains("When the window fills") && claude.contains("`mcp__notesoup__empty_brain`")
    );
}

#[test]
fn a_window_the_host_keeps_no_session_for_boots_without_the_reset() {
    // A Pi run with no session file (`pi --no-session`): notesoup cannot clear its window.
    let w = WindowId::new("pi", "s1", 0).unwrap();
    let text = boot_text(&BootInput {
        window: &w,
        notes: &brain(),
        last_word: Some("a word from nowhere"),
        history: true,
        resets: false,
        budget: DEFAULT_BUDGET,
    })
    .unwrap();
    assert!(
        text.starts_with("<notesoup-boot window=\"pi:s1:0\">\n"),
        "{text}"
    );
    assert!(
        text.contains("`notesoup_notes_write`") && text.contains("`notesoup_history_sessions`"),
        "{text}"
    );
    for word in [
        "empty_brain",
        "cleared",
        "budget warning",
        "last word",
        "a word from nowhere",
    ] {
        assert!(!text.contains(word), "the boot says `{word}`:\n{text}");
    }
    // The same window when it resets: the reset's protocol and the last word.
    let resets = boot_text(&BootInput {
        window: &w,
        notes: &brain(),
        last_word: Some("a word from nowhere"),
        history: true,
        resets: true,
        budget: DEFAULT_BUDGET,
    })
    .unwrap();
    assert!(resets.contains("`notesoup_empty_brain`") && resets.contains("a word from nowhere"));
}
