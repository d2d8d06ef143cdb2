use std::os::unix::fs::{FileTypeExt, MetadataExt, symlink};

use notesoup_testkit::{Scratch, mkfifo};
use rstest::rstest;
use serde_json::json;

use super::*;

fn key() -> SessionKey {
    SessionKey::new(Host::Claude, "6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f").unwrap()
}

fn record_path(home: &Path) -> PathBuf {
    home.join("windows/claude/6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.json")
}

#[test]
fn a_written_record_reads_back_with_its_version_first() {
    let s = Scratch::new("roundtrip");
    let store = WindowStore::new(s.0.join("home"));
    let written = store
        .update(&key(), |prior| {
            assert!(matches!(prior, Ok(None)));
            Some(json!({"ordinal": 3, "warned": [2]}))
        })
        .unwrap()
        .unwrap();
    assert_eq!(written.state, json!({"ordinal": 3, "warned": [2]}));
    assert_eq!(store.read(&key()).unwrap(), Some(written.clone()));
    let text = std::fs::read_to_string(record_path(&store.home)).unwrap();
    assert!(
        text.starts_with("{\"v\":1,\"harness\":\"claude\",\"session\":\"6e9d0c1a-"),
        "{text}"
    );
    assert_eq!(store.path_of(&key()), record_path(&store.home));
}

#[test]
fn reading_a_missing_home_creates_nothing() {
    let s = Scratch::new("missing");
    let store = WindowStore::new(s.0.join("no-home"));
    assert_eq!(store.read(&key()).unwrap(), None);
    assert!(!store.remove(&key()).unwrap());
    assert!(s.tree().is_empty(), "{:?}", s.tree());
}

#[test]
fn an_unchanged_state_or_no_decision_is_not_rewritten() {
    let s = Scratch::new("unchanged");
    let store = WindowStore::new(&s.0);
    store.update(&key(), |_| Some(json!({"n": 1}))).unwrap();
    let inode = std::fs::metadata(record_path(&s.0)).unwrap().ino();

    let kept = store.update(&key(), |_| Some(json!({"n": 1}))).unwrap();
    assert_eq!(kept.map(|r| r.state), Some(json!({"n": 1})));
    let kept = store.update(&key(), |_| None).unwrap();
    assert_eq!(kept.map(|r| r.state), Some(json!({"n": 1})));
    assert_eq!(std::fs::metadata(record_path(&s.0)).unwrap().ino(), inode);

    store.update(&key(), |_| Some(json!({"n": 2}))).unwrap();
    assert_ne!(std::fs::metadata(record_path(&s.0)).unwrap().ino(), inode);
    assert_eq!(store.read(&key()).unwrap().unwrap().state, json!({"n": 2}));
}

#[test]
fn no_decision_on_no_record_writes_nothing() {
    let s = Scratch::new("none");
    let store = WindowStore::new(&s.0);
    assert_eq!(store.update(&key(), |_| None).unwrap(), None);
    assert_eq!(store.read(&key()).unwrap(), None);
}

#[test]
fn a_record_of_another_version_is_refused_then_rebuilt_by_the_caller() {
    let s = Scratch::new("version");
    let store = WindowStore::new(&s.0);
    store.update(&key(), |_| Some(json!({"n": 1}))).unwrap();
    let path = record_path(&s.0);
    let v2 = std::fs::read_to_string(&path)
        .unwrap()
        .replace("{\"v\":1,", "{\"v\":2,");
    std::fs::write(&path, v2).unwrap();

    let err = store.read(&key()).unwrap_err();
    assert!(
        matches!(&err, WindowStoreError::Version { found, .. } if found == "2"),
        "{err}"
    );
    assert!(err.is_stale_record());
    assert!(err.to_string().contains("rebuild"), "{err}");

    let rebuilt = store
        .update(&key(), |prior| {
            assert!(matches!(prior, Err(WindowStoreError::Version { .. })));
            Some(json!({"n": "rebuilt"}))
        })
        .unwrap();
    assert_eq!(rebuilt.map(|r| r.state), Some(json!({"n": "rebuilt"})));
    assert_eq!(
        store.read(&key()).unwrap().unwrap().state,
        json!({"n": "rebuilt"})
    );
}

#[rstest]
#[case::not_json("{\"v\":1,", "not JSON")]
#[case::not_an_object("[1]", "not a JSON object")]
#[case::no_version("{\"harness\":\"claude\"}", "no `v` field")]
#[case::no_state(
    "{\"v\":1,\"harness\":\"claude\",\"session\":\"S\",\"written_at_ms\":1}",
    "no `state` field"
)]
#[case::session_not_a_string(
    "{\"v\":1,\"harness\":\"claude\",\"session\":7,\"written_at_ms\":1,\"state\":null}",
    "`session` is not a string"
)]
#[case::negative_time(
    "{\"v\":1,\"harness\":\"claude\",\"session\":\"S\",\"written_at_ms\":-1,\"state\":null}",
    "`written_at_ms` is not a non-negative integer"
)]
#[case::unknown_field(
    "{\"v\":1,\"harness\":\"claude\",\"session\":\"S\",\"written_at_ms\":1,\"state\":null,\"ordinal\":4}",
    "unknown field `ordinal`"
)]
fn a_malformed_record_is_refused_naming_what_is_wrong(#[case] text: &str, #[case] reason: &str) {
    let s = Scratch::new("malformed");
    let store = WindowStore::new(&s.0);
    let key = SessionKey::new(Host::Claude, "S").unwrap();
    std::fs::create_dir_all(s.0.join("windows/claude")).unwrap();
    std::fs::write(s.0.join("windows/claude/S.json"), text).unwrap();
    let err = store.read(&key).unwrap_err();
    assert!(
        matches!(&err, WindowStoreError::Malformed { reason: r, .. } if r.contains(reason)),
        "{err}"
    );
    assert!(err.is_stale_record());
}

#[test]
fn a_record_copied_from_another_session_is_refused() {
    let s = Scratch::new("copied");
    let store = WindowStore::new(&s.0);
    let parent = SessionKey::new(Host::Claude, "parent").unwrap();
    let fork = SessionKey::new(Host::Claude, "fork").unwrap();
    store
        .update(&parent, |_| Some(json!({"ordinal": 2})))
        .unwrap();
    std::fs::copy(
        s.0.join("windows/claude/parent.json"),
        s.0.join("windows/claude/fork.json"),
    )
    .unwrap();
    let err = store.read(&fork).unwrap_err();
    assert!(
        matches!(&err, WindowStoreError::OtherSession { found, expected, .. }
            if found == "claude:parent" && expected == "claude:fork"),
        "{err}"
    );
    assert!(err.is_stale_record());
}

#[test]
fn a_record_over_the_limit_is_refused_unread_and_a_state_over_it_is_not_written() {
    let s = Scratch::new("large");
    let store = WindowStore::new(&s.0);
    store.update(&key(), |_| Some(json!({"n": 1}))).unwrap();
    let path = record_path(&s.0);
    std::fs::write(&path, vec![b' '; usize::try_from(RECORD_MAX).unwrap() + 1]).unwrap();
    let err = store.read(&key()).unwrap_err();
    assert!(matches!(err, WindowStoreError::TooLarge { .. }), "{err}");
    assert!(err.is_stale_record());

    std::fs::remove_file(&path).unwrap();
    store.update(&key(), |_| Some(json!({"n": 1}))).unwrap();
    let before = std::fs::read(&path).unwrap();
    let huge = "x".repeat(usize::try_from(RECORD_MAX).unwrap());
    let err = store
        .update(&key(), |_| Some(json!({ "boot": huge })))
        .unwrap_err();
    assert!(
        matches!(err, WindowStoreError::StateTooLarge { .. }),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(
        s.tree(),
        [
            "windows",
            "windows/claude",
            "windows/claude/.6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.lock",
            "windows/claude/6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.json"
        ]
    );
}

#[test]
fn a_link_in_the_records_place_is_refused_and_its_target_untouched() {
    let s = Scratch::new("link-record");
    let outside = Scratch::new("link-record-outside");
    std::fs::write(outside.0.join("victim"), "keep").unwrap();
    std::fs::create_dir_all(s.0.join("windows/claude")).unwrap();
    symlink(outside.0.join("victim"), record_path(&s.0)).unwrap();
    let store = WindowStore::new(&s.0);

    let err = store.read(&key()).unwrap_err();
    assert!(
        matches!(err, WindowStoreError::Fs(FsError::Link { .. })),
        "{err}"
    );
    assert!(!err.is_stale_record());
    let mut called = false;
    let err = store
        .update(&key(), |_| {
            called = true;
            Some(json!({}))
        })
        .unwrap_err();
    assert!(
        matches!(err, WindowStoreError::Fs(FsError::Link { .. })),
        "{err}"
    );
    assert!(
        !called,
        "the closure ran despite a link in the record's place"
    );
    assert_eq!(
        std::fs::read_to_string(outside.0.join("victim")).unwrap(),
        "keep"
    );
    assert!(
        record_path(&s.0)
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(outside.tree(), ["victim"]);
}

#[test]
fn a_link_in_the_windows_or_harness_folders_place_is_refused_and_nothing_outside_is_touched() {
    for inner in ["windows", "windows/claude"] {
        let s = Scratch::new("link-dir");
        let outside = Scratch::new("link-dir-outside");
        if let Some(parent) = Path::new(inner).parent() {
            std::fs::create_dir_all(s.0.join(parent)).unwrap();
        }
        symlink(&outside.0, s.0.join(inner)).unwrap();
        let store = WindowStore::new(&s.0);
        for err in [
            store.read(&key()).unwrap_err(),
            store.update(&key(), |_| Some(json!({}))).unwrap_err(),
            store.remove(&key()).unwrap_err(),
        ] {
            assert!(
                matches!(err, WindowStoreError::Fs(FsError::Link { .. })),
                "{inner}: {err}"
            );
        }
        assert!(outside.tree().is_empty(), "{inner}: {:?}", outside.tree());
    }
}

#[test]
fn a_fifo_in_the_records_or_a_folders_place_is_refused_without_waiting() {
    let s = Scratch::new("fifo-record");
    std::fs::create_dir_all(s.0.join("windows/claude")).unwrap();
    mkfifo(&record_path(&s.0));
    let store = WindowStore::new(&s.0);
    let err = store.read(&key()).unwrap_err();
    assert!(
        matches!(&err, WindowStoreError::Fs(FsError::NotRegular { kind, .. }) if *kind == "a FIFO"),
        "{err}"
    );
    let err = store.update(&key(), |_| Some(json!({}))).unwrap_err();
    assert!(
        matches!(err, WindowStoreError::Fs(FsError::NotRegular { .. })),
        "{err}"
    );
    assert!(
        record_path(&s.0)
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_fifo()
    );

    let s = Scratch::new("fifo-dir");
    mkfifo(&s.0.join("windows"));
    let store = WindowStore::new(&s.0);
    for err in [
        store.read(&key()).unwrap_err(),
        store.update(&key(), |_| Some(json!({}))).unwrap_err(),
    ] {
        assert!(
            matches!(err, WindowStoreError::Fs(FsError::NotDir { .. })),
            "{err}"
        );
    }
    assert_eq!(s.tree(), ["windows"]);
}

#[rstest]
#[case::parent("..")]
#[case::escape("../../etc/passwd")]
#[case::slash("a/b")]
#[case::hidden(".hidden")]
#[case::empty("")]
#[case::space("a b")]
#[case::nul("a\0b")]
#[case::quote("a\"b")]
#[case::too_long(&"s".repeat(SESSION_MAX + 1))]
fn a_session_id_that_could_name_another_path_is_refused(#[case] session: &str) {
    let err = SessionKey::new(Host::Claude, session).unwrap_err();
    assert!(matches!(err, WindowStoreError::BadKey { .. }), "{err}");
}

#[test]
fn a_hostile_key_is_quoted_clipped() {
    let long = format!("{}/", "s".repeat(5000));
    let err = SessionKey::new(Host::Claude, &long).unwrap_err();
    assert!(err.to_string().len() < 400, "{err}");
}

#[test]
fn a_session_id_of_the_longest_allowed_length_and_with_colons_is_a_file() {
    let s = Scratch::new("long");
    let store = WindowStore::new(&s.0);
    for session in ["s".repeat(SESSION_MAX), "agent:a1:b2".to_owned()] {
        let key = SessionKey::new(Host::Claude, &session).unwrap();
        store.update(&key, |_| Some(json!(1))).unwrap();
        assert_eq!(store.read(&key).unwrap().unwrap().state, json!(1));
    }
}

#[test]
fn with_session_reads_writes_and_removes_under_the_lock() {
    let s = Scratch::new("session");
    let store = WindowStore::new(&s.0);
    let out: Result<u64, WindowStoreError> = store.with_session(&key(), |session| {
        assert_eq!(session.key(), &key());
        assert_eq!(session.read()?, None);
        session.write(json!({"ordinal": 1}))?;
        assert_eq!(session.read()?.unwrap().state, json!({"ordinal": 1}));
        Ok(7)
    });
    assert_eq!(out.unwrap(), 7);
    assert!(store.remove(&key()).unwrap());
    assert_eq!(store.read(&key()).unwrap(), None);
    assert!(!store.remove(&key()).unwrap());
}

#[test]
fn concurrent_updaters_in_threads_lose_no_update() {
    let s = Scratch::new("threads");
    let home = s.0.clone();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let home = home.clone();
            std::thread::spawn(move || {
                let store = WindowStore::new(home);
                for _ in 0..25 {
                    store
                        .update(&key(), |prior| {
                            let n = prior.unwrap().map_or(0, |r| r.state.as_u64().unwrap());
                            Some(json!(n + 1))
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let store = WindowStore::new(home);
    assert_eq!(store.read(&key()).unwrap().unwrap().state, json!(100));
}

/// Sets `path`'s modification time `days` days back.
fn age(path: &Path, days: u64) {
    let at = SystemTime::now() - std::time::Duration::from_secs(days * 24 * 3600);
    notesoup_testkit::set_modified(path, at);
}

#[test]
fn a_sessions_first_write_sweeps_dead_temps_and_prunes_old_records_boundedly() {
    let s = Scratch::new("upkeep");
    let store = WindowStore::new(s.0.join("home"));
    let other = SessionKey::new(Host::Claude, "older-0").unwrap();
    store.update(&other, |_| Some(json!({"n": 0}))).unwrap();
    let dir = s.0.join("home/windows/claude");
    // Killed writers' temp files (another session's, old; this session's own, new), a live
    // writer's temp of another session (new: kept), old records (more than one upkeep
    // prunes), a recent one, and things of other shapes: a folder, a link to a canary, a
    // stray file.
    std::fs::write(dir.join(".older-0.json.4242.7.tmp"), "half").unwrap();
    age(&dir.join(".older-0.json.4242.7.tmp"), 1);
    std::fs::write(
        dir.join(".6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.json.4243.1.tmp"),
        "half",
    )
    .unwrap();
    std::fs::write(dir.join(".live-1.json.4244.1.tmp"), "being written").unwrap();
    for n in 1..=PRUNE_MAX + 3 {
        std::fs::write(dir.join(format!("old-{n}.json")), "{}").unwrap();
        age(&dir.join(format!("old-{n}.json")), 31);
    }
    age(&dir.join("older-0.json"), 29);
    std::fs::create_dir(dir.join("kept-folder.json")).unwrap();
    let canary = s.0.join("canary.json");
    std::fs::write(&canary, "canary").unwrap();
    age(&canary, 400);
    symlink(&canary, dir.join(".x.json.1.2.tmp")).unwrap();
    // The link's own time, not its target's.
    let touched = std::process::Command::new("touch")
        .args(["-h", "-d", "2 days ago"])
        .arg(dir.join(".x.json.1.2.tmp"))
        .status()
        .unwrap();
    assert!(touched.success());
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    age(&dir.join("notes.txt"), 400);
    store.update(&key(), |_| Some(json!({"n": 1}))).unwrap();
    let names = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let left = names(&dir);
    assert_eq!(
        left.iter().filter(|n| n.starts_with("old-")).count(),
        3,
        "{left:?}"
    );
    let temps: Vec<&String> = left
        .iter()
        .filter(|n| notesoup_safe_fs::temp_target(std::ffi::OsStr::new(n)).is_some())
        .collect();
    assert_eq!(temps, [".live-1.json.4244.1.tmp"], "{left:?}");
    for kept in [
        "older-0.json",
        "kept-folder.json",
        "notes.txt",
        "6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.json",
    ] {
        assert!(left.iter().any(|n| n == kept), "{kept}: {left:?}");
    }
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "canary");
    // A later write of the same session does no upkeep; the next session's first write
    // catches up on the rest.
    store.update(&key(), |_| Some(json!({"n": 2}))).unwrap();
    assert_eq!(
        names(&dir).iter().filter(|n| n.starts_with("old-")).count(),
        3
    );
    let next = SessionKey::new(Host::Claude, "next-0").unwrap();
    store.update(&next, |_| Some(json!({"n": 3}))).unwrap();
    assert_eq!(
        names(&dir).iter().filter(|n| n.starts_with("old-")).count(),
        0
    );
}

#[test]
fn one_sessions_lock_never_waits_on_anothers_and_a_wait_is_bounded() {
    let s = Scratch::new("locks");
    let store =
        WindowStore::new(s.0.join("home")).with_lock_wait(std::time::Duration::from_millis(200));
    let other = SessionKey::new(Host::Claude, "busy-session").unwrap();
    let (held, release) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
    let holder = {
        let store = store.clone();
        let other = other.clone();
        std::thread::spawn(move || {
            store
                .with_session(&other, |_| {
                    held.0.send(()).unwrap();
                    release.1.recv().unwrap();
                    Ok::<_, WindowStoreError>(())
                })
                .unwrap();
        })
    };
    held.1.recv().unwrap();
    // Another session goes on while the first is held (it waited on the harness folder's
    // lock before, and was refused here after the wait).
    store.update(&key(), |_| Some(json!({"n": 1}))).unwrap();
    // The held session's own next call waits the bounded time and is refused, clearly.
    let err = store.update(&other, |_| Some(json!({"n": 2}))).unwrap_err();
    assert!(
        err.to_string().contains("held by another notesoup process"),
        "{err}"
    );
    release.0.send(()).unwrap();
    holder.join().unwrap();
    store.update(&other, |_| Some(json!({"n": 3}))).unwrap();
    assert_eq!(store.read(&other).unwrap().unwrap().state, json!({"n": 3}));
}

/// `forget` removes the session's record, its lock and a temp file a killed writer of its
/// record left, and nothing of another session; a session with nothing removes nothing
/// (and makes no lock file on the way).
#[test]
fn forget_removes_the_sessions_record_lock_and_temps_only() {
    let s = Scratch::new("forget");
    let store = WindowStore::new(s.0.join("home"));
    let other = SessionKey::new(Host::Claude, "other-session").unwrap();
    for key in [key(), other.clone()] {
        store.update(&key, |_| Some(json!({"ordinal": 1}))).unwrap();
    }
    let folder = s.0.join("home/windows/claude");
    let own_temp = folder.join(".6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.json.4242.7.tmp");
    let other_temp = folder.join(".other-session.json.4242.8.tmp");
    std::fs::write(&own_temp, "{").unwrap();
    std::fs::write(&other_temp, "{").unwrap();
    let mut removed = store.forget(&key()).unwrap();
    removed.sort();
    assert_eq!(
        removed,
        [
            own_temp,
            folder.join(".6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f.lock"),
            record_path(&store.home),
        ]
    );
    let mut left: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            ".other-session.json.4242.8.tmp",
            ".other-session.lock",
            "other-session.json"
        ]
    );
    assert_eq!(store.forget(&key()).unwrap(), Vec::<PathBuf>::new());
    assert_eq!(
        std::fs::read_dir(&folder).unwrap().count(),
        3,
        "no lock made"
    );
    assert!(store.read(&other).unwrap().is_some());
}
