#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use jiff::Timestamp;
use jiff::civil::date;
use jiff::tz::{TimeZone, TimeZoneDatabase};

use super::Zone;

fn zone(name: &str) -> Zone {
    Zone::found(Some(TimeZone::get(name).unwrap()), Some(name))
}

fn ms(rfc3339: &str) -> u64 {
    u64::try_from(rfc3339.parse::<Timestamp>().unwrap().as_millisecond()).unwrap()
}

fn ms_signed(rfc3339: &str) -> i64 {
    rfc3339.parse::<Timestamp>().unwrap().as_millisecond()
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
fn a_day_starts_at_the_zones_midnight() {
    assert_eq!(
        zone("Asia/Tokyo").day_start(date(2026, 12, 1)),
        Some(ms_signed("2026-11-30T15:00:00Z"))
    );
    assert_eq!(
        zone("America/New_York").day_start(date(2026, 7, 1)),
        Some(ms_signed("2026-07-01T04:00:00Z"))
    );
    assert_eq!(
        zone("America/New_York").day_start(date(2026, 12, 1)),
        Some(ms_signed("2026-12-01T05:00:00Z"))
    );
    // Santiago skips midnight when summer time starts: the day begins at 01:00.
    assert_eq!(
        zone("America/Santiago").day_start(date(2026, 9, 6)),
        Some(ms_signed("2026-09-06T04:00:00Z"))
    );
    assert_eq!(
        zone("Asia/Tokyo").day_start(date(1970, 1, 1)),
        Some(ms_signed("1969-12-31T15:00:00Z"))
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
