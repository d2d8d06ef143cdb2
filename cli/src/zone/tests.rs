#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use jiff::Timestamp;
use jiff::tz::{TimeZone, TimeZoneDatabase};

use super::Zone;

fn zone(name: &str) -> Zone {
    Zone::found(Some(TimeZone::get(name).unwrap()), Some(name))
}

fn ms(rfc3339: &str) -> u64 {
    u64::try_from(rfc3339.parse::<Timestamp>().unwrap().as_millisecond()).unwrap()
}

#[test]
fn a_time_is_shown_in_the_zone_with_its_abbreviation() {
    let tokyo = zone("Asia/Tokyo");
    assert_eq!(
        tokyo.cell(ms("2026-11-03T10:00:00Z")),
        "2026-11-03 19:00 JST"
    );
    assert_eq!(
        tokyo.stamp(ms("2026-11-03T20:30:00Z")),
        "2026-11-04 05:30 JST"
    );
    assert_eq!(tokyo.header("TIME"), "TIME");
    assert!(!tokyo.is_utc());
}

#[test]
fn utc_says_its_zone_in_the_header_and_not_in_each_cell() {
    for utc in [zone("UTC"), zone("Etc/UTC"), Zone::utc()] {
        assert!(utc.is_utc(), "{utc:?}");
        assert_eq!(utc.cell(ms("2026-11-03T10:00:00Z")), "2026-11-03 10:00");
        assert_eq!(
            utc.stamp(ms("2026-11-03T10:00:00Z")),
            "2026-11-03 10:00 UTC"
        );
        assert_eq!(utc.header("TIME"), "TIME (UTC)");
    }
    let posix = Zone::found(Some(TimeZone::posix("UTC0").unwrap()), Some("UTC0"));
    assert!(posix.is_utc());
    assert!(
        !zone("Europe/London").is_utc(),
        "London is UTC only in winter"
    );
}

/// The night the clocks go back, the repeated hour is told apart by its abbreviation.
#[test]
fn the_repeated_hour_of_a_dst_change_is_told_apart() {
    let berlin = zone("Europe/Berlin");
    assert_eq!(
        berlin.cell(ms("2026-10-25T00:30:00Z")),
        "2026-10-25 02:30 CEST"
    );
    assert_eq!(
        berlin.cell(ms("2026-10-25T01:30:00Z")),
        "2026-10-25 02:30 CET"
    );
}

#[test]
fn a_tz_that_names_no_zone_is_utc_and_said() {
    let refused = Zone::found(None, Some("Nowhere/Atlantis"));
    assert!(refused.is_utc());
    assert_eq!(refused.name(), "UTC");
    let (line, warn) = refused.report();
    assert!(warn);
    assert!(line.contains("TZ=\"Nowhere/Atlantis\""), "{line}");
    let (_, warn) = Zone::found(None, None).report();
    assert!(!warn, "no zone at all is UTC, as the C library has it");
}

#[test]
fn a_time_past_the_calendar_is_shown_in_utc() {
    assert_eq!(zone("Asia/Tokyo").cell(u64::MAX), notesoup_window_max());
}

fn notesoup_window_max() -> String {
    let utc = notesoup_window::format_utc(u64::MAX / 1000);
    format!("{} UTC", utc.strip_suffix(" UTC").unwrap())
}

/// A machine without /usr/share/zoneinfo (a slim container) still knows the zones: the
/// binary carries the IANA database, and jiff reads it when the system has none.
#[test]
fn the_zones_are_bundled() {
    let tokyo = TimeZoneDatabase::bundled().get("Asia/Tokyo").unwrap();
    assert_eq!(tokyo.iana_name(), Some("Asia/Tokyo"));
}
