//! Times in the person's zone: `TZ` (else the system's) for every time shown to a person,
//! and for the days `--since` and `--until` take; `--json` stays UTC whatever the zone.

use super::{World, claude_session};

/// `history sessions --json` with `args`: the sessions listed.
fn listed(world: &World, args: &[&str]) -> Vec<String> {
    let mut all = vec!["history", "sessions", "--json", "--limit", "100"];
    all.extend_from_slice(args);
    let run = world.run(&all);
    assert_eq!(run.exit, 0, "{}", run.shown());
    run.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap().to_owned())
        .collect()
}

/// How many sessions `history search` went through with `args`.
fn searched(world: &World, args: &[&str]) -> u64 {
    let mut all = vec!["history", "search", "Parser", "--json"];
    all.extend_from_slice(args);
    world.run(&all).json()["searched"].as_u64().unwrap()
}

#[test]
fn history_shows_times_in_tz_and_json_stays_utc() {
    let mut world = World::new("zone-tokyo");
    let utc_json = world.run(&["history", "sessions", "--json"]).stdout;
    world.set("TZ", "Asia/Tokyo");
    // 2026-12-02 15:18 UTC is past midnight in Tokyo.
    let sessions = world.run(&["history", "sessions"]);
    assert!(
        sessions.stdout.contains("UPDATED ") && !sessions.stdout.contains("(UTC)"),
        "{}",
        sessions.stdout
    );
    assert!(
        sessions
            .stdout
            .contains("claude:da56055c-293e-4422-b5b8-62b1c7e6c03d  2026-12-03 00:18 JST"),
        "{}",
        sessions.stdout
    );
    let show = world.run(&["history", "show", "claude:da56055c"]);
    assert!(
        show.stdout.contains("  2026-12-03 00:18 JST  "),
        "{}",
        show.stdout
    );
    let seq = world.run(&["history", "show", "claude:da56055c", "--seq", "17"]);
    assert!(
        seq.stdout.starts_with("#17  2026-12-03 00:18 JST  tool"),
        "{}",
        seq.stdout
    );
    let search = world.run(&["history", "search", "Say hello", "--harness", "claude"]);
    assert!(
        search.stdout.contains("updated 2026-12-03 00:18 JST"),
        "{}",
        search.stdout
    );
    // Scripts read UTC whatever the zone.
    assert_eq!(
        world.run(&["history", "sessions", "--json"]).stdout,
        utc_json
    );
    let doctor = world.run(&["doctor"]);
    assert!(
        doctor.stdout.contains("times show in Asia/Tokyo (from TZ)"),
        "{}",
        doctor.stdout
    );
}

#[test]
fn notes_show_times_in_tz() {
    let mut world = World::new("zone-notes");
    world.set("TZ", "America/New_York");
    let written = world.run_stdin(&["notes", "write", "plan"], b"the plan\n");
    assert_eq!(written.exit, 0, "{}", written.shown());
    let list = world.run(&["notes", "list"]);
    // The abbreviation of now in New York: EST or EDT, never UTC.
    let row = list.stdout.lines().find(|l| l.starts_with("plan")).unwrap();
    assert!(
        (row.contains(" EST  ") || row.contains(" EDT  ")) && !row.contains("UTC"),
        "{}",
        list.stdout
    );
    let json = world.run(&["notes", "list", "--json"]).json();
    assert!(
        json["notes"][0]["updated"].as_str().unwrap().ends_with('Z'),
        "{json}"
    );
}

/// `--since DAY` and `--until DAY` are the person's calendar days, in `history sessions`
/// and `history search` alike: 2026-11-02 20:00 UTC is 2026-11-03 05:00 in Tokyo.
#[test]
fn a_day_given_to_since_and_until_is_a_local_day() {
    let mut world = World::new("zone-days");
    claude_session(
        &world,
        "aaaa1111",
        "/work/app",
        "2026-11-02T20:00:00Z",
        "it",
    );
    let only = ["--harness", "claude", "--project", "/work"];
    let with = |args: &[&'static str]| [&only[..], args].concat();
    for (zone, on_the_3rd) in [("UTC", false), ("Asia/Tokyo", true)] {
        world.set("TZ", zone);
        for (filter, kept) in [
            (&["--since", "2026-11-03"][..], on_the_3rd),
            (&["--until", "2026-11-02"], !on_the_3rd),
            (
                &["--since", "2026-11-03", "--until", "2026-11-03"],
                on_the_3rd,
            ),
            (
                &["--since", "2026-11-02", "--until", "2026-11-02"],
                !on_the_3rd,
            ),
            // A time with its zone is that moment in every zone.
            (&["--since", "2026-11-02T20:00Z"], true),
            (&["--since", "2026-11-02T20:00:01Z"], false),
        ] {
            let list = listed(&world, &with(filter));
            assert_eq!(
                list.len(),
                usize::from(kept),
                "TZ={zone} {filter:?}: {list:?}"
            );
            assert_eq!(
                searched(&world, &with(filter)),
                u64::from(kept),
                "TZ={zone} {filter:?}: search disagrees with sessions"
            );
        }
    }
    // A time without a zone is the person's too.
    world.set("TZ", "Asia/Tokyo");
    assert_eq!(
        listed(&world, &with(&["--since", "2026-11-03T05:00"])).len(),
        1
    );
    assert_eq!(
        listed(&world, &with(&["--since", "2026-11-03T05:01"])).len(),
        0
    );
}

/// New York's clocks go back on 2026-11-01 (at 06:00 UTC): that day has 25 hours, and its
/// two 01:30s are told apart by their zone.
#[test]
fn a_day_with_a_dst_change_counts_whole() {
    let mut world = World::new("zone-dst");
    world.set("TZ", "America/New_York");
    // 23:30 EST on 2026-11-01: past 24 hours after that day's midnight (04:00 UTC).
    claude_session(
        &world,
        "bbbb2222",
        "/work/late",
        "2026-11-02T04:30:00Z",
        "late",
    );
    claude_session(
        &world,
        "cccc3333",
        "/work/edt",
        "2026-11-01T05:30:00Z",
        "first",
    );
    claude_session(
        &world,
        "dddd4444",
        "/work/est",
        "2026-11-01T06:30:00Z",
        "second",
    );
    let late = ["--project", "/work/late"];
    let with = |args: &[&'static str]| [&late[..], args].concat();
    assert_eq!(listed(&world, &with(&["--until", "2026-11-01"])).len(), 1);
    assert_eq!(listed(&world, &with(&["--since", "2026-11-02"])).len(), 0);
    assert_eq!(searched(&world, &with(&["--until", "2026-11-01"])), 1);
    let sessions = world.run(&["history", "sessions", "--harness", "claude"]);
    for (id, time) in [
        ("claude:bbbb2222 ", " 2026-11-01 23:30 EST "),
        ("claude:dddd4444 ", " 2026-11-01 01:30 EST "),
        ("claude:cccc3333 ", " 2026-11-01 01:30 EDT "),
    ] {
        let row = sessions.stdout.lines().find(|l| l.starts_with(id));
        assert!(
            row.is_some_and(|r| r.contains(time)),
            "{id}{time}\n{}",
            sessions.stdout
        );
    }
}

/// A `TZ` that is no zone file's name is read as the C library reads it: a POSIX rule,
/// a zone name in another case.
#[test]
fn tz_is_read_as_the_c_library_reads_it() {
    let mut world = World::new("zone-rules");
    for tz in [
        "JST-9",
        "asia/tokyo",
        ":Asia/Tokyo",
        "/usr/share/zoneinfo/Asia/Tokyo",
    ] {
        world.set("TZ", tz);
        let sessions = world.run(&["history", "sessions", "--harness", "claude"]);
        assert!(
            sessions.stdout.contains("  2026-12-03 00:18 JST  "),
            "TZ={tz}\n{}",
            sessions.stdout
        );
    }
}

/// A `TZ` that names no zone shows UTC (as the C library does), and `doctor` says so.
#[test]
fn an_unknown_tz_is_utc_and_doctor_warns() {
    let mut world = World::new("zone-unknown");
    world.set("TZ", "Nowhere/Atlantis");
    let sessions = world.run(&["history", "sessions"]);
    assert_eq!(sessions.exit, 0, "{}", sessions.shown());
    assert!(
        sessions.stdout.contains("UPDATED (UTC)")
            && sessions.stdout.contains("  2026-12-02 15:18  "),
        "{}",
        sessions.stdout
    );
    let doctor = world.run(&["doctor"]);
    assert!(
        doctor.stdout.contains(
            "warn time      TZ=\"Nowhere/Atlantis\" is not a time zone notesoup can read: times show in UTC"
        ),
        "{}",
        doctor.stdout
    );
}

/// A `TZ` that names a FIFO (as a path, or a name under `TZDIR`) is no zone: never opened
/// to wait for a writer (nor a device read without end: `TZ=/dev/zero` grew every command
/// by gigabytes a second), so the command shows UTC at once and `doctor` warns.
#[test]
fn a_tz_naming_a_fifo_is_utc_at_once() {
    let mut world = World::new("zone-fifo");
    let database = world.path("zoneinfo");
    std::fs::create_dir_all(database.join("Fifo")).unwrap();
    let fifo = database.join("Fifo/Zone");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let path = fifo.to_str().unwrap().to_owned();
    for (tz, tzdir) in [
        (path.clone(), None),
        (format!(":{path}"), None),
        ("Fifo/Zone".to_owned(), Some(database.to_str().unwrap())),
    ] {
        world.set("TZ", &tz);
        match tzdir {
            Some(dir) => world.set("TZDIR", dir),
            None => world.unset("TZDIR"),
        }
        let hang = format!("TZ={tz} TZDIR={tzdir:?}: the command waited on the FIFO");
        let out = world.run_bounded(&["history", "sessions"], 60, &hang);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "TZ={tz}: {out:?}");
        assert!(stdout.contains("UPDATED (UTC)"), "TZ={tz}: {stdout}");
        let out = world.run_bounded(&["doctor"], 60, &hang);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("is not a time zone notesoup can read: times show in UTC"),
            "TZ={tz}: {stdout}"
        );
    }
}
