//! Times in the person's zone: `TZ` (else the system's) for every time shown to a person;
//! `--json` stays UTC whatever the zone.

use super::World;

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
