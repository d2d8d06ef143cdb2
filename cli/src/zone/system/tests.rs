#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::{named_zone, system_zone, zone_name};

#[test]
fn a_zone_is_named_as_tz_writes_it() {
    assert_eq!(zone_name("Europe/Berlin"), Some("Europe/Berlin"));
    assert_eq!(zone_name(":Europe/Berlin"), Some("Europe/Berlin"));
    assert_eq!(
        zone_name("/usr/share/zoneinfo/Etc/GMT+5"),
        Some("Etc/GMT+5")
    );
    assert_eq!(
        zone_name("../zoneinfo/America/Argentina/Salta"),
        Some("America/Argentina/Salta")
    );
    for not_a_name in [
        "",
        "/etc/passwd",
        "Europe/../../etc/passwd",
        "Europe//Berlin",
        "JST-9,M3",
    ] {
        assert_eq!(zone_name(not_a_name), None, "{not_a_name:?}");
    }
}

/// The zone read from its file is the zone jiff finds by name: same offsets, same name.
#[test]
fn a_named_zone_is_jiffs() {
    let at: Timestamp = "2026-07-01T12:00:00Z".parse().unwrap();
    for tz in [
        "Asia/Tokyo",
        ":America/New_York",
        "/usr/share/zoneinfo/Europe/Berlin",
    ] {
        let read = named_zone(Some(tz), None).unwrap();
        let name = zone_name(tz).unwrap();
        let jiff = TimeZone::get(name).unwrap();
        assert_eq!(read.iana_name(), Some(name));
        assert_eq!(read.to_offset(at), jiff.to_offset(at), "{tz}");
    }
    assert_eq!(named_zone(Some(""), None), Some(TimeZone::UTC));
}

/// A TZ that is no zone file's name may be a POSIX rule.
#[test]
fn a_posix_rule_is_a_zone() {
    let at: Timestamp = "2026-07-01T12:00:00Z".parse().unwrap();
    let jst = named_zone(Some("JST-9"), None).unwrap();
    assert_eq!(jst.to_offset(at), jiff::tz::offset(9));
    let new_york = named_zone(Some("EST5EDT,M3.2.0,M11.1.0"), None).unwrap();
    assert_eq!(new_york.to_offset(at), jiff::tz::offset(-4));
    assert!(named_zone(Some(":JST-9"), None).is_none());
}

/// The rest is left to jiff: a name in another case (jiff ignores case), a name no file
/// has, a folder, and any TZ when TZDIR moves the database.
#[test]
fn anything_else_is_left_to_jiff() {
    for tz in ["asia/tokyo", "Nowhere/Atlantis", "America"] {
        assert!(named_zone(Some(tz), None).is_none(), "{tz}");
    }
    assert!(named_zone(Some("Asia/Tokyo"), Some("/opt/zoneinfo")).is_none());
}

/// What [`named_zone`] leaves is read by [`system_zone`] as the C library reads it: a name
/// in another case, a path, a name under `TZDIR` or, missing there, in notesoup's own copy.
#[test]
fn the_rest_is_read_as_the_c_library_reads_it() {
    let at: Timestamp = "2026-07-01T12:00:00Z".parse().unwrap();
    for (tz, tzdir) in [
        ("asia/tokyo", None),
        ("/usr/share/zoneinfo/Asia/Tokyo", None),
        (":/usr/share/zoneinfo/Asia/Tokyo", None),
        ("Asia/Tokyo", Some("/nonexistent/zoneinfo")),
        ("JST-9", Some("/nonexistent/zoneinfo")),
    ] {
        let zone = system_zone(Some(tz), tzdir).unwrap();
        assert_eq!(zone.to_offset(at), jiff::tz::offset(9), "{tz} {tzdir:?}");
    }
    assert_eq!(system_zone(Some(""), None), Some(TimeZone::UTC));
}

/// Only a regular zone file is read: a device, a folder or no file at all is no zone (jiff
/// read `TZ=/dev/zero` to its end, which has none).
#[test]
fn only_zone_files_are_read() {
    for tz in [
        "/dev/zero",
        ":/dev/urandom",
        "/usr/share/zoneinfo",
        "/usr/share/zoneinfo/../../../dev/zero",
        "Nowhere/Atlantis",
    ] {
        assert!(system_zone(Some(tz), None).is_none(), "{tz}");
    }
    assert!(system_zone(Some("zero"), Some("/dev")).is_none());
}
