//! `notesoup limits`: Claude Code's and Pi's points from settings and the environment, caps, and
//! settings files no one should trust.

use super::*;

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

/// Under `DISABLE_COMPACT` the rows say what `--json`, doctor and the README say: no warning
/// and no clear; auto-compaction off alone still warns.
#[test]
fn limits_says_no_warning_under_disable_compact() {
    let mut world = World::new("limits-disable");
    world.set("DISABLE_COMPACT", "1");
    let run = world.run(&["limits"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    let row = |label: &str| {
        run.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        row("warning").contains("no warning: DISABLE_COMPACT is set"),
        "{}",
        run.stdout
    );
    assert!(
        row("clear").contains("no clear: DISABLE_COMPACT is set"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("warns the agent"), "{}", run.stdout);
    assert_eq!(
        world.run(&["limits", "--json"]).json()["warnings_enabled"],
        false
    );
    world.unset("DISABLE_COMPACT");
    world.set("DISABLE_AUTO_COMPACT", "1");
    let run = world.run(&["limits"]);
    assert!(
        run.stdout.contains("notesoup warns the agent"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("no automatic clear: auto-compaction is off"),
        "{}",
        run.stdout
    );
}

/// `limits` reads what Claude Code reads (the budget audit of stop 43, findings 7 and 10): a
/// settings file with one number beyond a double (`JSON.parse` reads it as `Infinity`) is
/// read, that value alone left out; and `autoCompactEnabled` falls back to Claude's global
/// config file (`.claude.json` in `$CLAUDE_CONFIG_DIR`, else the home folder) when no settings
/// file says it.
#[test]
fn limits_reads_the_settings_claude_code_reads() {
    let mut world = World::new("limits-as-claude");
    let clear = |world: &mut World| world.run(&["limits", "--json"]).json()["auto_clear"].clone();
    assert_eq!(clear(&mut world), true);
    fs::write(
        world.path("claude/settings.json"),
        r#"{"autoCompactEnabled": false, "notesoup": {"resetMarginTokens": 4096, "warningRunwayTokens": 1e400}}"#,
    )
    .unwrap();
    let json = world.run(&["limits", "--json"]).json();
    assert_eq!(json["auto_clear"], false, "{json}");
    assert!(json["settings"][0]["broken"].is_null(), "{json}");
    assert_eq!(json["margins"][0]["value"], 4096, "{json}");
    assert_eq!(json["margins"][1]["valid"], false, "{json}");
    // The global config: below every settings file.
    fs::write(world.path("claude/settings.json"), "{}").unwrap();
    fs::write(
        world.path("claude/.claude.json"),
        r#"{"autoCompactEnabled": false, "projects": {}}"#,
    )
    .unwrap();
    assert_eq!(clear(&mut world), false);
    let text = world.run(&["limits"]).stdout;
    assert!(text.contains("(autoCompactEnabled only)"), "{text}");
    fs::write(
        world.path("claude/settings.json"),
        r#"{"autoCompactEnabled": true}"#,
    )
    .unwrap();
    assert_eq!(clear(&mut world), true);
    // Without $CLAUDE_CONFIG_DIR the file is in the home folder.
    fs::write(world.path("claude/settings.json"), "{}").unwrap();
    world.unset("CLAUDE_CONFIG_DIR");
    assert_eq!(
        clear(&mut world),
        true,
        "a config of another folder was read"
    );
    fs::write(
        world.path("home/.claude.json"),
        r#"{"autoCompactEnabled": false}"#,
    )
    .unwrap();
    assert_eq!(clear(&mut world), false);
}

/// A variable the policy reads but Claude Code would not use (a percent that is no percent,
/// a window that is no size, a switch that is not on) is listed as ignored, not as if it
/// were in force (walk9: `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=abc` was listed as read, beside
/// points it did not change).
#[test]
fn limits_says_which_variables_are_ignored() {
    let mut world = World::new("ignored");
    world.set("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "abc");
    world.set("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "lots");
    world.set("DISABLE_AUTO_COMPACT", "0");
    let run = world.run(&["limits", "--window", "200k"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    for line in [
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=abc  (environment; ignored: not a percent above 0 and at most 100)",
        "CLAUDE_CODE_AUTO_COMPACT_WINDOW=lots  (environment; ignored: not a number of tokens)",
        "DISABLE_AUTO_COMPACT=0  (environment; off: only 1, true, yes or on turn it on)",
    ] {
        assert!(run.stdout.contains(line), "{line}\n{}", run.stdout);
    }
    // The points are those of no variable at all.
    assert!(
        run.stdout.contains("native    167,000 tokens"),
        "{}",
        run.stdout
    );
    world.set("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50");
    let json = world.run(&["limits", "--window", "200k", "--json"]).json();
    let env = json["env"].as_array().unwrap();
    let ignored = |name: &str| {
        env.iter()
            .find(|v| v["name"] == name)
            .map(|v| v["ignored"].clone())
    };
    assert_eq!(
        ignored("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"),
        Some(serde_json::Value::Null)
    );
    assert_eq!(
        ignored("CLAUDE_CODE_AUTO_COMPACT_WINDOW"),
        Some(serde_json::Value::from("not a number of tokens"))
    );
    // With auto-compaction off Claude ignores the percent, however good.
    world.set("DISABLE_AUTO_COMPACT", "1");
    let run = world.run(&["limits", "--window", "200k"]);
    assert!(
        run.stdout.contains(
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50  (environment; ignored: auto-compaction is off)"
        ),
        "{}",
        run.stdout
    );
}

/// A Pi setting Pi refuses: the fix names the settings file it was read from (walk9: it said
/// only "see `notesoup limits --help`", and the refusal shows no `Read:` list).
#[test]
fn a_pi_setting_pi_refuses_names_its_file() {
    let mut world = World::new("limits-pi-bad");
    let agent = world.path("pi-agent");
    fs::create_dir_all(&agent).unwrap();
    world.set("PI_CODING_AGENT_DIR", agent.to_str().unwrap());
    fs::write(
        agent.join("settings.json"),
        r#"{"compaction": {"reserveTokens": "x"}}"#,
    )
    .unwrap();
    let run = world.run(&["limits", "--harness", "pi"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    let fix = run
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("fix:"))
        .unwrap_or_default();
    assert!(
        fix.contains("[TMP]/pi-agent/settings.json") && fix.contains("compaction.reserveTokens"),
        "{}",
        run.stderr
    );
    let json = world.run(&["limits", "--harness", "pi", "--json"]).json();
    assert_eq!(json["error"]["code"], "unresolvable", "{json}");
}

/// A `--project` that names no folder (a typo) is refused, as `mcp --project` refuses it:
/// the settings of a folder that is not there are never shown as if they were read.
#[test]
fn limits_refuses_a_project_that_is_no_folder() {
    let world = World::new("limits-no-project");
    for harness in ["claude", "pi"] {
        let run = world.run(&["limits", "--harness", harness, "--project", "no-such-dir"]);
        assert_eq!(run.exit, 1, "{harness}: {}", run.shown());
        assert!(run.stdout.is_empty(), "{harness}: {}", run.shown());
        assert!(
            run.stderr.contains("--project") && run.stderr.contains("no such folder"),
            "{harness}: {}",
            run.shown()
        );
        let json = world
            .run(&[
                "limits",
                "--harness",
                harness,
                "--project",
                "no-such-dir",
                "--json",
            ])
            .json();
        assert_eq!(json["ok"], false, "{json}");
        assert_eq!(json["error"]["code"], "bad_cwd", "{json}");
    }
    // A file is no folder either.
    fs::write(world.path("a-file"), "x").unwrap();
    let run = world.run(&[
        "limits",
        "--project",
        &world.path("a-file").display().to_string(),
    ]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(run.stderr.contains("not a folder"), "{}", run.shown());
}
