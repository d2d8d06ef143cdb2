//! `notesoup doctor`: a machine with and without Claude Code and Pi, the plugin, the helper and
//! the fix each problem names.

use super::*;

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
    // (Codex too: its MCP server is not checked.)
    assert_eq!(json["counts"]["skip"], 8, "{json}");
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
    // A warning, as for Pi's extension: notesoup may be in use through Pi alone, and
    // nothing is broken, so doctor does not fail (walk7 finding 6).
    assert!(
        run.stdout
            .contains("warn plugin    the notesoup plugin is not installed in Claude Code"),
        "{}",
        run.stdout
    );
    assert_eq!(run.exit, 0, "{}", run.shown());
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

/// Claude Code installed where it installs itself, off doctor's PATH: the npm-local install
/// (`<config dir>/local/claude`, which people run through a shell alias, so it is never on
/// PATH) and the native one (`~/.local/bin/claude`, not on cron's PATH). doctor finds each,
/// says where, and goes on to check the plugin with it, instead of failing "not found"
/// (walk8 finding 1).
#[test]
fn doctor_finds_claude_code_where_it_installs_itself() {
    let world = World::new("doctor-installs");
    age_claude_files(&world, 0);
    let plugin = fake_helper(&world, env!("CARGO_PKG_VERSION"));
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    for (place, said) in [
        ("claude/local/claude", "Claude Code's local install"),
        ("home/.local/bin/claude", "Claude Code's native install"),
    ] {
        let installed = world.path(place);
        fs::create_dir_all(installed.parent().unwrap()).unwrap();
        fs::rename(
            if Path::new(&claude).exists() {
                PathBuf::from(&claude)
            } else {
                world.path("claude/local/claude")
            },
            &installed,
        )
        .unwrap();
        let run = world.run(&["doctor"]);
        let claude_line = run.stdout.lines().find(|l| l.contains(" claude ")).unwrap();
        assert!(
            claude_line.starts_with("ok   claude")
                && claude_line.contains(&format!("[TMP]/{place}"))
                && claude_line.contains(said),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("ok   plugin"), "{}", run.stdout);
        assert_eq!(run.exit, 0, "{}", run.shown());
    }
    // Nowhere at all: the failure names the places looked in.
    fs::remove_file(world.path("home/.local/bin/claude")).unwrap();
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert!(
        run.stdout
            .contains("none at [TMP]/claude/local/claude or [TMP]/home/.local/bin/claude"),
        "{}",
        run.stdout
    );
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
    // Its folder alone, no settings naming the package (what `pi remove` leaves): Pi does
    // not load it, and doctor does not say it does.
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("warn pi ") && run.stdout.contains("loads no notesoup extension"),
        "{}",
        run.stdout
    );
    fs::write(
        world.path("pi-agent/settings.json"),
        r#"{"packages": ["npm:@notesoup/pi"]}"#,
    )
    .unwrap();
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
    // scripts/install's link, its staged helper beside it (the npm package removed with
    // `pi remove`, which leaves its folder: with both, Pi would not start).
    fs::write(world.path("pi-agent/settings.json"), r#"{"packages": []}"#).unwrap();
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
            "ok   settings  Pi: notesoup margins valid: resetMarginTokens 8,192 (default), warningRunwayTokens 16,384 (default); compaction.reserveTokens 16,384"
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
        run.stdout.contains(
            "warn pi        Pi's folder [TMP]/pi-agent, but it loads no notesoup extension"
        ),
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

/// scripts/install's link and `pi install npm:@notesoup/pi` both there: Pi 1.6.0 loads both
/// and refuses to start (`Tool "notesoup_notes_list" conflicts`), so doctor fails with the
/// two ways to keep one (walk7: it said "ok pi" for the link alone). The npm package's
/// folder without the `packages` entry naming it (what `pi remove` leaves) is not loaded.
#[test]
fn doctor_fails_a_pi_extension_loaded_twice() {
    let mut world = World::new("doctor-pi-twice");
    with_pi(&mut world);
    let agent = world.path("pi-agent");
    let helper = helper_answering(env!("CARGO_PKG_VERSION"));
    for folder in ["extensions/notesoup", "npm/node_modules/@notesoup/pi"] {
        let dir = agent.join(folder);
        fs::create_dir_all(dir.join("bin")).unwrap();
        fs::write(dir.join("index.ts"), "// runs notesoup-helper\n").unwrap();
        fs::write(dir.join("bin/notesoup-helper"), &helper).unwrap();
        make_executable(&dir.join("bin/notesoup-helper"));
    }
    fs::write(agent.join("settings.json"), r#"{"packages": []}"#).unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("ok   pi        the Pi extension is at"),
        "{}",
        run.stdout
    );
    fs::write(
        agent.join("settings.json"),
        r#"{"packages": ["npm:@notesoup/pi"]}"#,
    )
    .unwrap();
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains("loads the notesoup extension twice: [TMP]/pi-agent/extensions/notesoup and [TMP]/pi-agent/npm/node_modules/@notesoup/pi"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "fix: keep one: rm [TMP]/pi-agent/extensions/notesoup, or pi remove npm:@notesoup/pi"
        ),
        "{}",
        run.stdout
    );
}

/// scripts/install's `notesoup@notesoup-local` beside the marketplace's `notesoup@notesoup`,
/// both enabled: Claude Code runs one hooks module of a name and passes the other over, so
/// doctor warns, naming both and how to keep one (walk7 finding 21: it named the first only).
#[test]
fn doctor_warns_of_two_notesoup_plugins_enabled() {
    let mut world = World::new("doctor-two-plugins");
    let plugin = fake_helper(&world, env!("CARGO_PKG_VERSION"));
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    world.set(
        "PATH",
        &format!(
            "{}:/usr/bin:/bin",
            Path::new(&claude).parent().unwrap().display()
        ),
    );
    let list: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(world.path("list.json")).unwrap()).unwrap();
    let mut second = list[0].clone();
    second["id"] = "notesoup@notesoup".into();
    fs::write(
        world.path("list.json"),
        serde_json::json!([list[0].clone(), second]).to_string(),
    )
    .unwrap();
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains("warn plugin    2 notesoup plugins are enabled (notesoup@notesoup-local, notesoup@notesoup): Claude Code runs the hooks of only one of them"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("fix: keep one: claude plugin uninstall notesoup@notesoup (or claude plugin uninstall notesoup@notesoup-local)"),
        "{}",
        run.stdout
    );
}

/// The `notesoup` npm installed (the platform package's `bin/notesoup`) gives npm's fixes,
/// even on the machine whose checkout built it (walk7 finding 7: "run <checkout>/scripts/install"
/// to a person who installed from npm).
#[test]
fn doctor_from_npm_names_npm_fixes() {
    let mut world = World::new("doctor-from-npm");
    let plugin = fake_helper(&world, env!("CARGO_PKG_VERSION"));
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    world.set(
        "PATH",
        &format!(
            "{}:/usr/bin:/bin",
            Path::new(&claude).parent().unwrap().display()
        ),
    );
    fs::write(world.path("list.json"), "[]").unwrap();
    let npm_bin = world.path("npm/node_modules/@notesoup/cli-linux-x64/bin/notesoup");
    fs::create_dir_all(npm_bin.parent().unwrap()).unwrap();
    fs::copy(BIN, &npm_bin).unwrap();
    let run = Run::new(
        &Command::new(&npm_bin)
            .arg("doctor")
            .env_clear()
            .envs(world.vars.iter().cloned())
            .current_dir(world.path("project/sub"))
            .output()
            .unwrap(),
        &world.root,
    );
    assert!(
        run.stdout
            .contains("fix: install the plugin: `claude plugin install notesoup@notesoup`"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("scripts/install"), "{}", run.stdout);
}

/// With Codex here, doctor says whether it runs notesoup's MCP server and whether the
/// command it was given is found (walk7 finding 16: README's `command = "notesoup"` with no
/// notesoup on PATH went unnoticed); without Codex the line is a skip.
#[test]
fn doctor_checks_codexs_mcp_server() {
    let mut world = World::new("doctor-codex");
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("skip codex     Codex not found"),
        "{}",
        run.stdout
    );
    let answer = world.path("codex-answer.json");
    let codex = world.path("codexbin/codex");
    fs::create_dir_all(codex.parent().unwrap()).unwrap();
    fs::write(
        &codex,
        format!(
            "#!/bin/sh
[ \"$*\" = 'mcp get notesoup --json' ] && [ -f '{0}' ] && cat '{0}' && exit 0\necho \"Error: No MCP server named 'notesoup' found.\" >&2\nexit 1\n",
            answer.display()
        ),
    )
    .unwrap();
    make_executable(&codex);
    world.set("CODEX", codex.to_str().unwrap());
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains(
            "warn codex     Codex at [TMP]/codexbin/codex, but it has no MCP server named notesoup"
        ),
        "{}",
        run.stdout
    );
    let server = |command: &str| {
        serde_json::json!({"name": "notesoup", "enabled": true,
            "transport": {"type": "stdio", "command": command, "args": ["mcp"]}})
        .to_string()
    };
    fs::write(&answer, server("notesoup-not-here")).unwrap();
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains("warn codex     Codex runs `notesoup-not-here mcp` as its MCP server notesoup, but `notesoup-not-here` is not on PATH here"),
        "{}",
        run.stdout
    );
    fs::write(&answer, server(BIN)).unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("ok   codex     Codex runs `"),
        "{}",
        run.stdout
    );
    // A Codex that cannot read its settings is not one without the server: its error is
    // shown, and the fix is not to add what may be there (review finding 7).
    fs::write(
        &codex,
        "#!/bin/sh\necho 'Error: failed to load bootstrap configuration' >&2\necho 'Caused by:' >&2\nexit 1\n",
    )
    .unwrap();
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains("warn codex     Codex at [TMP]/codexbin/codex: `codex mcp get notesoup --json` failed, so its MCP server is not checked: it said: Error: failed to load bootstrap configuration"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("codex mcp add"), "{}", run.stdout);
}

/// Kills the processes whose ids a fake program wrote to a file, when the test ends.
struct LeftBehind(PathBuf);

impl Drop for LeftBehind {
    fn drop(&mut self) {
        for pid in fs::read_to_string(&self.0)
            .unwrap_or_default()
            .split_whitespace()
        {
            let _ = Command::new("kill").arg(pid).status();
        }
    }
}

/// A `claude` that leaves a process behind holding its output open (as a wrapper starting
/// an updater would): doctor reads what `claude` wrote and goes on, never waiting for the
/// end of an output that does not come.
#[test]
fn doctor_does_not_wait_on_a_process_claude_left_behind() {
    let mut world = World::new("doctor-left-behind");
    let plugin = fake_helper(&world, env!("CARGO_PKG_VERSION"));
    let claude = fake_claude(&world, notesoup_cli::CLAUDE_CODE_VERSION, true, &plugin);
    let pids = world.path("left-behind.pids");
    let _kill = LeftBehind(pids.clone());
    let script = fs::read_to_string(&claude).unwrap().replacen(
        "#!/bin/sh\n",
        &format!("#!/bin/sh\nsleep 600 &\necho $! >> '{}'\n", pids.display()),
        1,
    );
    fs::write(&claude, script).unwrap();
    world.set("CLAUDE", &claude);
    let out = world.run_bounded(
        &["doctor"],
        120,
        "doctor waited on the output of a process claude left behind",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let version = format!("Claude Code {}", notesoup_cli::CLAUDE_CODE_VERSION);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("ok   claude") && l.contains(&version)),
        "{stdout}"
    );
}

/// A `claude` whose output never ends: doctor keeps at most a bound of it (4 MiB), never
/// all of it.
#[test]
fn doctor_keeps_a_bounded_share_of_a_programs_output() {
    let mut world = World::new("doctor-flood");
    let claude = world.path("bin/claude");
    fs::create_dir_all(claude.parent().unwrap()).unwrap();
    // 16 MiB of one line, then the program exits.
    fs::write(
        &claude,
        "#!/bin/sh\nhead -c 16777216 /dev/zero | tr '\\0' x\necho\n",
    )
    .unwrap();
    make_executable(&claude);
    world.set("CLAUDE", claude.to_str().unwrap());
    let run = world.run(&["doctor"]);
    let shown = run.stdout.len() + run.stderr.len();
    assert!(
        shown < 8 * 1024 * 1024,
        "doctor kept {shown} bytes of claude's 16 MiB output"
    );
    // And shows a line of it, not megabytes on one line (review finding 6).
    let longest = run.stdout.lines().map(str::len).max().unwrap_or_default();
    assert!(
        longest < 1024,
        "a line of {longest} bytes: {:.300}",
        run.stdout
    );
}

/// `pi install -l npm:@notesoup/pi` as Pi 1.6.0 lays it out (measured): the package in
/// `<project>/.pi/npm/node_modules/@notesoup/pi`, and `"packages": ["npm:@notesoup/pi"]` in
/// `<project>/.pi/settings.json`; the project is the folder Pi starts in (doctor's cwd,
/// `project/sub` here).
fn project_pi_copy(world: &World) -> PathBuf {
    let project = world.path("project/sub");
    let copy = project.join(".pi/npm/node_modules/@notesoup/pi");
    fs::create_dir_all(copy.join("bin")).unwrap();
    fs::write(copy.join("index.ts"), "// runs notesoup-helper\n").unwrap();
    fs::write(
        copy.join("bin/notesoup-helper"),
        helper_answering(env!("CARGO_PKG_VERSION")),
    )
    .unwrap();
    make_executable(&copy.join("bin/notesoup-helper"));
    fs::write(
        project.join(".pi/settings.json"),
        r#"{"packages": ["npm:@notesoup/pi"]}"#,
    )
    .unwrap();
    project
}

/// Pi's trust decision for `project` as `/trust` saves it: `<agent>/trust.json`, the
/// project's real path to `true` or `false`.
fn trust_pi_project(world: &World, project: &Path, trusted: bool) {
    let key = fs::canonicalize(project).unwrap();
    fs::write(
        world.path("pi-agent/trust.json"),
        serde_json::json!({ key.to_str().unwrap(): trusted }).to_string(),
    )
    .unwrap();
}

/// A project copy (`pi install -l`) in a project Pi does not trust: Pi 1.6.0 ignores the
/// project's `.pi` packages, so doctor names that copy and how to trust the project (Pi's
/// prompt when undecided, `/trust` when "Do not trust" is saved); trusted, it is the copy
/// Pi loads (walkthrough: doctor named only the global folders).
#[test]
fn doctor_names_a_project_pi_extension_waiting_for_trust() {
    let mut world = World::new("doctor-pi-project");
    with_pi(&mut world);
    fs::create_dir_all(world.path("pi-agent")).unwrap();
    project_pi_copy(&world);
    let project = world.path("project/sub");
    let pi_line = |run: &Run| {
        run.stdout
            .lines()
            .skip_while(|l| !l.contains(" pi "))
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(
        pi_line(&run).starts_with("warn pi ")
            && pi_line(&run).contains("loads no notesoup extension here: this project's copy [TMP]/project/sub/.pi/npm/node_modules/@notesoup/pi (`pi install -l`) waits until Pi trusts [TMP]/project/sub")
            && pi_line(&run).contains("fix: start pi in [TMP]/project/sub and choose Trust at its \"Trust project folder?\" prompt"),
        "{}",
        run.stdout
    );
    trust_pi_project(&world, &project, false);
    let run = world.run(&["doctor"]);
    assert!(
        pi_line(&run).starts_with("warn pi ")
            && pi_line(&run)
                .contains("fix: in pi started in [TMP]/project/sub, run /trust and choose Trust"),
        "{}",
        run.stdout
    );
    trust_pi_project(&world, &project, true);
    let run = world.run(&["doctor"]);
    assert!(
        pi_line(&run).starts_with("ok   pi        the Pi extension is at [TMP]/project/sub/.pi/npm/node_modules/@notesoup/pi (installed from npm into this project)"),
        "{}",
        run.stdout
    );
    assert!(
        pi_helper_line(&run).starts_with("ok   pi-helper"),
        "{}",
        run.stdout
    );
}

/// A project copy beside a global one. scripts/install's link: once Pi trusts the project
/// it loads both and refuses to start (measured: `Tool "notesoup_notes_list" conflicts
/// with .../extensions/notesoup/index.ts`), so doctor fails naming both, with the command
/// that removes each; untrusted, it warns of that ahead. The global npm package: Pi 1.6.0
/// keeps one package of a name, the project's (measured: 10 tools, Pi starts), so that is ok.
#[test]
fn doctor_fails_a_trusted_project_pi_extension_beside_a_global_one() {
    let mut world = World::new("doctor-pi-project-twice");
    with_pi(&mut world);
    let agent = world.path("pi-agent");
    let link = agent.join("extensions/notesoup");
    fs::create_dir_all(&link).unwrap();
    fs::write(link.join("index.ts"), "// runs notesoup-helper\n").unwrap();
    let project = project_pi_copy(&world);
    let run = world.run(&["doctor"]);
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains("warn pi ")
            && run.stdout.contains("loads the notesoup extension at [TMP]/pi-agent/extensions/notesoup; this project's copy [TMP]/project/sub/.pi/npm/node_modules/@notesoup/pi (`pi install -l`) waits until Pi trusts [TMP]/project/sub, and then Pi loads both")
            && run.stdout.contains("fix: keep one: cd [TMP]/project/sub && pi remove -l --approve npm:@notesoup/pi, or rm [TMP]/pi-agent/extensions/notesoup"),
        "{}",
        run.stdout
    );
    trust_pi_project(&world, &project, true);
    let run = world.run(&["doctor"]);
    assert_eq!(run.exit, 1, "{}", run.shown());
    assert_every_problem_has_a_fix(&run);
    assert!(
        run.stdout.contains("fail pi ")
            && run.stdout.contains("loads the notesoup extension twice: [TMP]/pi-agent/extensions/notesoup and [TMP]/project/sub/.pi/npm/node_modules/@notesoup/pi")
            && run.stdout.contains("fix: keep one: rm [TMP]/pi-agent/extensions/notesoup, or cd [TMP]/project/sub && pi remove -l npm:@notesoup/pi"),
        "{}",
        run.stdout
    );
    // The global npm package instead of the link: one package to Pi, the project's kept.
    fs::remove_dir_all(&link).unwrap();
    let npm = agent.join("npm/node_modules/@notesoup/pi");
    fs::create_dir_all(&npm).unwrap();
    fs::write(npm.join("index.ts"), "// runs notesoup-helper\n").unwrap();
    fs::write(
        agent.join("settings.json"),
        r#"{"packages": ["npm:@notesoup/pi"]}"#,
    )
    .unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("ok   pi        the Pi extension is at [TMP]/project/sub/.pi/npm/node_modules/@notesoup/pi (installed from npm into this project)"),
        "{}",
        run.stdout
    );
    fs::remove_file(agent.join("trust.json")).unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("ok   pi        the Pi extension is at [TMP]/pi-agent/npm/node_modules/@notesoup/pi (installed from npm); this project's copy [TMP]/project/sub/.pi/npm/node_modules/@notesoup/pi (`pi install -l`) waits until Pi trusts [TMP]/project/sub, then Pi loads it instead"),
        "{}",
        run.stdout
    );
}

/// Pi's `defaultProjectTrust` in its global settings decides a project `trust.json` does
/// not (measured with Pi 1.6.0: `always` loaded the project's copy with no trust entry, a
/// saved `false` still won over it): `always` makes the project copy the one Pi loads,
/// `never` leaves it waiting, with `/trust` as the way (Pi does not ask then).
#[test]
fn doctor_takes_pis_default_project_trust() {
    let mut world = World::new("doctor-pi-default-trust");
    with_pi(&mut world);
    fs::create_dir_all(world.path("pi-agent")).unwrap();
    let project = project_pi_copy(&world);
    let settings = world.path("pi-agent/settings.json");
    fs::write(&settings, r#"{"defaultProjectTrust": "always"}"#).unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("ok   pi        the Pi extension is at [TMP]/project/sub/.pi/npm/node_modules/@notesoup/pi (installed from npm into this project)"),
        "{}",
        run.stdout
    );
    trust_pi_project(&world, &project, false);
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("warn pi ") && run.stdout.contains("run /trust and choose Trust"),
        "{}",
        run.stdout
    );
    fs::remove_file(world.path("pi-agent/trust.json")).unwrap();
    fs::write(&settings, r#"{"defaultProjectTrust": "never"}"#).unwrap();
    let run = world.run(&["doctor"]);
    assert!(
        run.stdout.contains("warn pi ") && run.stdout.contains("run /trust and choose Trust"),
        "{}",
        run.stdout
    );
}
