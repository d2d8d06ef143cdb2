//! `notesoup history vault`: the copies it keeps, a session read from them once its file is
//! gone, and a damaged copy.

use super::*;

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
    insta::assert_snapshot!("history_vault", without_disk_size(&shown.shown()));

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
    // Neither a session nor --before: the error names both (walk6 finding 22: it named only
    // <SESSION>).
    let neither = world.run(&["history", "forget"]);
    assert_eq!(neither.exit, 2, "{}", neither.shown());
    assert!(
        neither.stderr.contains("<SESSION|--before <WHEN>>"),
        "{}",
        neither.stderr
    );
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
/// `history forget --before` goes by the time `history sessions` shows (the last time a
/// transcript records), not by when its file was last written: the world's files were
/// copied just now (as a restore from a backup copies them), and a cut just after one
/// session's last recorded time forgets exactly the sessions listed as updated before it
/// (walk8 finding 5: it forgot none).
#[test]
fn forget_before_goes_by_the_updated_time_history_sessions_shows() {
    let world = World::new("vault-before");
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let listed = world
        .run(&["history", "sessions", "--limit", "100", "--json"])
        .json();
    let updated = |name: &str| -> String {
        listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["session"] == name)
            .and_then(|s| s["updated"].as_str())
            .unwrap()
            .to_owned()
    };
    let da56 = "claude:da56055c-293e-4422-b5b8-62b1c7e6c03d";
    // Whole seconds in --json: the cut is the second after its last recorded time.
    let last = updated(da56);
    let cut = format!("{}59Z", &last[..last.len() - 3]);
    assert!(cut > last, "{cut} {last}");
    let older = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["updated"].as_str().is_some_and(|u| *u < *cut.as_str()))
        .count();
    let run = world.run(&["history", "forget", "--before", &cut, "--json"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    let removed = run.json()["removed"].clone();
    assert!(
        removed.as_array().unwrap().iter().any(|r| r == da56),
        "{cut}: {removed}"
    );
    assert_eq!(
        removed.as_array().map(Vec::len),
        Some(older),
        "{cut}: {removed}"
    );
}

/// `history vault`'s text with its space on disk as `[SIZE]`: the file system's blocks,
/// which differ from one file system to another
/// (`the_vaults_space_on_disk_is_what_du_counts` checks the figure).
fn without_disk_size(text: &str) -> String {
    match (text.find(" of transcripts in "), text.find(" on disk.")) {
        (Some(from), Some(to)) if from < to => {
            format!("{} of transcripts in [SIZE]{}", &text[..from], &text[to..])
        }
        _ => text.to_owned(),
    }
}

/// The space the vault says it takes is what `du` counts for its copies (each session's
/// folder and files, by their blocks), not only the compressed bytes: a copy of a small
/// session takes a few blocks more, and many small sessions made the figure a third
/// short of `du` (walk8 finding 13).
#[test]
fn the_vaults_space_on_disk_is_what_du_counts() {
    use std::os::unix::fs::MetadataExt as _;
    let world = World::new("vault-du");
    let kept = world.run(&["history", "vault", "--json"]).json();
    let mut du = 0;
    for harness in fs::read_dir(world.path("notesoup/vault")).unwrap() {
        let harness = harness.unwrap().path();
        if !harness.is_dir() {
            continue;
        }
        for session in fs::read_dir(&harness).unwrap() {
            let session = session.unwrap().path();
            if !session.is_dir() {
                continue;
            }
            du += fs::metadata(&session).unwrap().blocks() * 512;
            for file in fs::read_dir(&session).unwrap() {
                du += file.unwrap().metadata().unwrap().blocks() * 512;
            }
        }
    }
    assert_eq!(kept["stored_bytes"].as_u64(), Some(du), "{kept}");
}

/// `f` on `path` and everything below it (links not followed).
fn each_path(path: &Path, f: &dyn Fn(&Path)) {
    f(path);
    if path.is_dir() && !path.is_symlink() {
        for entry in fs::read_dir(path).unwrap() {
            each_path(&entry.unwrap().path(), f);
        }
    }
}

/// A vault that is there but cannot be read (made by another user: `sudo`, a restore)
/// leaves the sessions only it holds out of `history show`, `search` and `sessions`; each
/// says so on stderr, instead of "no claude session has the id" with no word of the vault
/// (walk8 finding 7). As root, whom modes do not stop, notesoup runs as `nobody` on a home
/// it owns, the vault left root's.
#[test]
fn a_vault_that_cannot_be_read_is_said_by_the_history_commands() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let world = World::new("vault-unreadable");
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    fs::remove_file(
        world.path("claude/projects/-tmp-project/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl"),
    )
    .unwrap();
    let vault = world.path("notesoup/vault");
    let as_root = fs::metadata(&vault).unwrap().uid() == 0;
    let run = |args: &[&str]| -> (i32, String) {
        let out = if as_root {
            Command::new("setpriv")
                .args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN])
                .args(args)
                .env_clear()
                .envs(world.vars.iter().cloned())
                .current_dir(world.path("project/sub"))
                .output()
                .unwrap()
        } else {
            world.command(args).output().unwrap()
        };
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    if as_root {
        let chown = |path: &Path, id: u32| {
            std::os::unix::fs::lchown(path, Some(id), Some(id)).unwrap();
        };
        each_path(&world.path("notesoup"), &|p| chown(p, 65534));
        each_path(&vault, &|p| chown(p, 0));
        fs::set_permissions(world.path("tmp"), fs::Permissions::from_mode(0o777)).unwrap();
    }
    fs::set_permissions(&vault, fs::Permissions::from_mode(0o700)).unwrap();
    if !as_root {
        fs::set_permissions(&vault, fs::Permissions::from_mode(0o000)).unwrap();
    }
    for args in [
        &["history", "show", "claude:da56"][..],
        &["history", "search", "RESUMED-PROMPT"][..],
        &["history", "sessions"][..],
    ] {
        let (_, stderr) = run(args);
        assert!(
            stderr.contains("the history vault cannot be read (")
                && stderr.contains("the sessions only it holds are left out"),
            "{args:?}: {stderr}"
        );
    }
    fs::set_permissions(&vault, fs::Permissions::from_mode(0o700)).unwrap();
}

/// A session forgotten once and gone from the harness, forgotten again: said to be
/// forgotten already (exit 0, `already_forgotten` in --json), as a cleanup script run twice
/// expects; it said "no claude session has the id" (exit 1), as if the first had not
/// happened (walk8 finding 18). An id never seen is still refused.
#[test]
fn forgetting_a_forgotten_session_again_says_so() {
    let world = World::new("vault-forget-twice");
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let id = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
    fs::remove_file(world.path(&format!("claude/projects/-tmp-project/{id}.jsonl"))).unwrap();
    let session = format!("claude:{id}");
    let first = world.run(&["history", "forget", &session]);
    assert_eq!(first.exit, 0, "{}", first.shown());
    assert!(
        first.stdout.contains("1 vaulted file removed"),
        "{}",
        first.shown()
    );
    let again = world.run(&["history", "forget", &session]);
    assert_eq!(again.exit, 0, "{}", again.shown());
    assert_eq!(
        again.stdout,
        format!(
            "{session} was forgotten already: the vault holds none of it, and it is not kept.\n"
        ),
        "{}",
        again.shown()
    );
    let doc = world.run(&["history", "forget", &session, "--json"]).json();
    assert_eq!(doc["already_forgotten"], true, "{doc}");
    let typo = world.run(&[
        "history",
        "forget",
        "claude:da56055c-293e-4422-b5b8-62b1c7e6c03e",
    ]);
    assert_eq!(typo.exit, 1, "{}", typo.shown());
}

/// A session file cut shorter after the vault kept it (its copy begins with what is left):
/// `history vault` names it and says the copy keeps what was cut, with how to remove the
/// copy; it said nothing, while `history show` reads the cut file (walk8 finding 4).
#[test]
fn history_vault_names_a_file_cut_shorter_than_its_copy() {
    let world = World::new("vault-cut");
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let id = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
    let file = world.path(&format!("claude/projects/-tmp-project/{id}.jsonl"));
    let text = fs::read_to_string(&file).unwrap();
    let head: String = text.split_inclusive('\n').take(3).collect();
    fs::write(&file, head).unwrap();
    let doc = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(doc["cut"][0]["session"], format!("claude:{id}"), "{doc}");
    assert_eq!(doc["cut"].as_array().map(Vec::len), Some(1), "{doc}");
    let run = world.run(&["history", "vault"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert!(
        run.stdout.contains(&format!(
            "is shorter than the vault's copy of claude:{id}, which keeps what was cut"
        )),
        "{}",
        run.shown()
    );
    assert!(
        run.stderr.contains(&format!(
            "`notesoup history forget claude:{id}` removes the copy"
        )),
        "{}",
        run.shown()
    );
}

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
    let kept = world.run(&["history", "vault"]);
    assert_eq!(kept.exit, 0, "{}", kept.shown());
    let run = world.run(&["doctor"]);
    assert!(vault_line(&run).starts_with("ok   vault"), "{}", run.stdout);
    // doctor writes the vault's size on disk as `history vault` does (walk6 finding 20:
    // "98 KiB" beside "98.7 KiB").
    let on_disk = kept
        .stdout
        .rsplit_once(" in ")
        .map(|(_, size)| size.trim_end_matches(" on disk.\n"))
        .unwrap();
    assert!(
        vault_line(&run).ends_with(&format!("kept ({on_disk} on disk)")),
        "{on_disk}: {}",
        run.stdout
    );
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

/// A first `history vault` brings every file up to date, an empty one too (Claude Code
/// leaves them): the files brought up to date count every one kept new, so its line never
/// says fewer brought up to date than new (walk6 finding 10: "416 brought up to date (417
/// new or rewritten)").
#[test]
fn history_vault_counts_an_empty_file_kept_new_as_brought_up_to_date() {
    let world = World::new("vault-empty");
    fs::write(
        world.path("claude/projects/-tmp-project/eeee0000-0000-4000-8000-000000000001.jsonl"),
        "",
    )
    .unwrap();
    let doc = world.run(&["history", "vault", "--json"]).json();
    let files = doc["files"].as_u64().unwrap();
    assert_eq!(
        (doc["grown"].as_u64(), doc["new_versions"].as_u64()),
        (Some(files), Some(files)),
        "{doc}"
    );
    let again = world.run(&["history", "vault", "--json"]).json();
    assert_eq!(
        (again["grown"].as_u64(), again["new_versions"].as_u64()),
        (Some(0), Some(0)),
        "{again}"
    );
}

/// A vault an earlier notesoup kept (its copies without the facts a listing shows), whose
/// originals are gone: `history sessions` lists the same before and after `history vault`,
/// which records the facts from the copies themselves; after it the listing no longer reads
/// the copies (damaged ones are listed as before, while `history show` refuses them).
#[test]
fn history_vault_records_the_facts_of_copies_kept_without_them() {
    let world = World::new("vault-fill");
    let sessions = || {
        world
            .run(&["history", "sessions", "--limit", "200", "--json"])
            .stdout
    };
    let from_files = sessions();
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let vault = world.path("notesoup/vault");
    // As an earlier notesoup left it: the same records and pieces, no facts.
    let facts_files = || -> Vec<PathBuf> {
        let mut out = Vec::new();
        for harness in fs::read_dir(&vault).unwrap().map(|e| e.unwrap().path()) {
            for session in fs::read_dir(&harness).into_iter().flatten() {
                let session = session.unwrap().path();
                out.extend(
                    fs::read_dir(&session)
                        .into_iter()
                        .flatten()
                        .map(|e| e.unwrap().path())
                        .filter(|p| p.extension().is_some_and(|e| e == "facts")),
                );
            }
        }
        out.sort();
        out
    };
    let recorded = facts_files();
    assert!(!recorded.is_empty());
    for facts in &recorded {
        fs::remove_file(facts).unwrap();
    }
    for dir in ["claude/projects", "pi", "codex/sessions"] {
        fs::remove_dir_all(world.path(dir)).unwrap();
        fs::create_dir_all(world.path(dir)).unwrap();
    }
    let unmarked = |text: String| text.replace("\"vault_only\": true", "\"vault_only\": false");
    let before = sessions();
    assert_eq!(unmarked(before.clone()), from_files);
    let run = world.run(&["history", "vault", "--json"]);
    assert_eq!(run.exit, 0, "{}", run.shown());
    assert_eq!(facts_files(), recorded, "every copy got its facts back");
    assert_eq!(sessions(), before);
    // Said: how many copies got their facts, in --json and in the text; a second run fills
    // none and says nothing of it.
    assert_eq!(
        run.json()["facts_filled"].as_u64(),
        Some(recorded.len() as u64),
        "{}",
        run.stdout
    );
    for facts in &recorded {
        fs::remove_file(facts).unwrap();
    }
    let text = world.run(&["history", "vault"]);
    assert_eq!(text.exit, 0, "{}", text.shown());
    let said = format!(
        "{} older copies whose session files are gone were indexed for fast listing.",
        recorded.len()
    );
    assert!(text.stdout.contains(&said), "{}", text.shown());
    let again = world.run(&["history", "vault"]);
    assert!(!again.stdout.contains("indexed"), "{}", again.shown());
    assert_eq!(
        world.run(&["history", "vault", "--json"]).json()["facts_filled"].as_u64(),
        Some(0)
    );
    // The copies' pieces damaged: the listing is the facts', a read is refused.
    for piece in fs::read_dir(vault.join("claude"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .flat_map(|session| fs::read_dir(session).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "zst"))
    {
        let mut packed = fs::read(&piece).unwrap();
        let mid = packed.len() / 2;
        packed[mid] ^= 0xff;
        fs::write(&piece, packed).unwrap();
    }
    assert_eq!(sessions(), before);
    let refused = world.run(&[
        "history",
        "show",
        "claude:da56055c-293e-4422-b5b8-62b1c7e6c03d",
    ]);
    assert_eq!(refused.exit, 1, "{}", refused.shown());
    assert!(refused.stderr.contains("damaged"), "{}", refused.shown());
}

/// The `.idx` files in the world's history index cache.
fn indexes(world: &World) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(world.path("notesoup/cache/history"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// `history forget` removes what notesoup made of the session under its home, beside its
/// vault copy: the history index of its transcript (`cache/history`) and its window record
/// with its lock (`windows/<harness>`), and says so (`--json`: `indexes_removed`,
/// `window_files_removed`). Another session's index and record stay, and the harness's
/// transcript is left as it was. Before, both outlived a forget.
#[test]
fn forget_removes_the_sessions_index_and_window_record() {
    use notesoup_window::Host;
    use notesoup_window_store::{SessionKey, WindowStore};
    let world = World::new("vault-forget-derived");
    let (id, other) = (
        "da56055c-293e-4422-b5b8-62b1c7e6c03d",
        "9fc454d3-ac4f-47d0-be8e-4fbf43dce5bb",
    );
    let folder = world.path("claude/projects/-tmp-project");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../app/tests/data/history/{other}.jsonl")),
        folder.join(format!("{other}.jsonl")),
    )
    .unwrap();
    // Past the 1 MiB a transcript needs for an index.
    for session in [id, other] {
        let file = folder.join(format!("{session}.jsonl"));
        let mut text = fs::read(&file).unwrap();
        while text.len() < 1 << 21 {
            text.extend_from_slice(b"{\"type\":\"progress\"}\n");
        }
        fs::write(&file, &text).unwrap();
    }
    let transcript = fs::read(folder.join(format!("{id}.jsonl"))).unwrap();
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    for session in [id, other] {
        let shown = world.run(&["history", "show", &format!("claude:{session}")]);
        assert_eq!(shown.exit, 0, "{}", shown.shown());
    }
    let indexed = indexes(&world);
    assert_eq!(indexed.len(), 2, "{indexed:?}");
    let store = WindowStore::new(world.path("notesoup"));
    let windows = world.path("notesoup/windows/claude");
    for session in [id, other] {
        let key = SessionKey::new(Host::Claude, session).unwrap();
        store
            .update(&key, |_| Some(serde_json::json!({"ordinal": 1})))
            .unwrap();
        assert!(windows.join(format!(".{session}.lock")).is_file());
    }

    let forget = world.run(&["history", "forget", &format!("claude:{id}")]);
    assert_eq!(forget.exit, 0, "{}", forget.shown());
    assert!(
        forget.stdout.contains(
            "Also removed what notesoup made of it under its home: its history index (1 file) and its window record and lock (2 files)."
        ),
        "{}",
        forget.shown()
    );
    let left = indexes(&world);
    assert_eq!(left.len(), 1, "{left:?}");
    for gone in [format!("{id}.json"), format!(".{id}.lock")] {
        assert!(!windows.join(&gone).exists(), "{gone} is left");
    }
    for kept in [format!("{other}.json"), format!(".{other}.lock")] {
        assert!(windows.join(&kept).is_file(), "{kept} went too");
    }
    // The harness's transcript is its own: left as it was.
    assert_eq!(
        fs::read(folder.join(format!("{id}.jsonl"))).unwrap(),
        transcript
    );

    // The other one, as data: the files removed, by path (`[TMP]` the world's folder).
    let doc = world
        .run(&["history", "forget", &format!("claude:{other}"), "--json"])
        .json();
    let shown = |path: &Path| {
        format!(
            "[TMP]/{}",
            path.strip_prefix(world.path("")).unwrap().display()
        )
    };
    assert_eq!(
        doc["indexes_removed"],
        serde_json::json!([shown(&left[0])]),
        "{doc}"
    );
    let mut window_files: Vec<&str> = doc["window_files_removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    window_files.sort_unstable();
    let (lock, record) = (
        windows.join(format!(".{other}.lock")),
        windows.join(format!("{other}.json")),
    );
    assert_eq!(window_files, [shown(&lock), shown(&record)], "{doc}");
    assert_eq!(doc["already_forgotten"], false, "{doc}");
    assert!(indexes(&world).is_empty() && !lock.exists() && !record.exists());
    // Nothing left of it: a second forget says it was forgotten already.
    let again = world
        .run(&["history", "forget", &format!("claude:{other}"), "--json"])
        .json();
    assert_eq!(again["already_forgotten"], true, "{again}");
    assert_eq!(
        again["window_files_removed"],
        serde_json::json!([]),
        "{again}"
    );
}

/// `history forget --before` removes the window record of each session it forgets too (a
/// Pi session's here, found by its file's name in the vault). Before, it stayed.
#[test]
fn forget_before_removes_the_window_records_of_what_it_forgets() {
    use notesoup_window::Host;
    use notesoup_window_store::{SessionKey, WindowStore};
    let world = World::new("vault-forget-before-derived");
    assert_eq!(world.run(&["history", "vault"]).exit, 0);
    let pi = "01a23754-8e37-7027-8822-e05ee3580bae";
    let key = SessionKey::new(Host::Pi, pi).unwrap();
    WindowStore::new(world.path("notesoup"))
        .update(&key, |_| Some(serde_json::json!({"ordinal": 0})))
        .unwrap();
    let record = world.path(&format!("notesoup/windows/pi/{pi}.json"));
    assert!(record.is_file());
    let doc = world
        .run(&["history", "forget", "--before", "2999-01-01", "--json"])
        .json();
    let mut removed: Vec<&str> = doc["window_files_removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    removed.sort_unstable();
    assert_eq!(
        removed,
        [
            format!("[TMP]/notesoup/windows/pi/.{pi}.lock"),
            format!("[TMP]/notesoup/windows/pi/{pi}.json"),
        ],
        "{doc}"
    );
    assert!(!record.exists());
}
