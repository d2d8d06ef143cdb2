//! The person's zone read from the one zoneinfo file that names it, before asking jiff.
//!
//! jiff's own search (`TimeZone::try_system`) first lists the whole zoneinfo tree, about
//! 1,800 entries in 20 folders, to look names up without regard to case: about 0.6 ms of
//! every `notesoup` run, a quarter of a `notesoup notes list`.
//! Nearly every machine names its zone exactly (`TZ=Europe/Berlin`, or `/etc/localtime`
//! linking to `/usr/share/zoneinfo/Europe/Berlin`), so that one file is read and parsed by
//! jiff, and a `TZ` that is no file's name but a POSIX rule (`JST-9`) is parsed by jiff as
//! one; anything else (a name in another case, `TZDIR`, no such zone) is `None`, and `main`
//! asks [`system_zone`].
//!
//! [`system_zone`] reads the rest as the C library does (a name in any case, under `TZDIR`,
//! a path to a zone file, `/etc/localtime`), as jiff's `TimeZone::try_system` would, but
//! through `safe-fs`: only a regular file, opened without blocking, at most [`TZIF_MAX`]
//! bytes. jiff reads whatever `TZ` names to its end: `TZ=/dev/zero` grew every `notesoup`
//! command by gigabytes a second, and a FIFO hung it.

use std::path::Path;

use jiff::tz::{TimeZone, TimeZoneDatabase};
use notesoup_safe_fs::{open_regular, read_capped};

/// Where Debian and most systems keep the IANA database.
const ZONEINFO: &str = "/usr/share/zoneinfo";

/// More than any zone file holds (the largest is a few KiB).
const TZIF_MAX: u64 = 256 * 1024;

/// The zone `tz` (the value of `TZ`) names, else the one `/etc/localtime` links to, read
/// from its file under `/usr/share/zoneinfo`, or the POSIX rule `tz` is; `None` when it is
/// neither, or `tzdir` (`TZDIR`) moves the database.
pub fn named_zone(tz: Option<&str>, tzdir: Option<&str>) -> Option<TimeZone> {
    if tzdir.is_some() {
        return None;
    }
    match tz {
        // An empty TZ is UTC, as the C library has it.
        Some("") => Some(TimeZone::UTC),
        Some(value) => zone_name(value).and_then(read).or_else(|| rule(value)),
        None => {
            let link = std::fs::read_link("/etc/localtime").ok()?;
            read(zone_name(link.to_str()?)?)
        }
    }
}

/// The zone name in a `TZ` value or a link's target: after a leading `:`, and after
/// `zoneinfo/` when it is a path; only the characters zone names use, and no `..`.
fn zone_name(value: &str) -> Option<&str> {
    let value = value.strip_prefix(':').unwrap_or(value);
    let name = match value.rfind("zoneinfo/") {
        Some(at) => value.get(at + "zoneinfo/".len()..)?,
        None => value,
    };
    let plain = name.split('/').all(|part| {
        !part.is_empty()
            && part != ".."
            && part != "."
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-'))
    });
    plain.then_some(name)
}

/// The POSIX rule `value` is (`JST-9`, `EST5EDT,M3.2.0,M11.1.0`); a value after `:` is a
/// name or a path, never a rule.
fn rule(value: &str) -> Option<TimeZone> {
    if value.starts_with(':') {
        return None;
    }
    TimeZone::posix(value).ok()
}

/// The zone in `/usr/share/zoneinfo/<name>`, when that is a zone file.
fn read(name: &str) -> Option<TimeZone> {
    zone_file(&Path::new(ZONEINFO).join(name), name)
}

/// The zone `tz` (the value of `TZ`) names, read as the C library reads it, when
/// [`named_zone`] found none: a POSIX rule; a zone name in any case, under `tzdir` (`TZDIR`,
/// else `/usr/share/zoneinfo`), else in notesoup's own copy of the database; a path to a
/// zone file. With `TZ` unset, `/etc/localtime`: the zone its link names, else the file.
/// `None` when nothing is a zone. Only a regular file of at most `TZIF_MAX` bytes (256 KiB) is read
/// (a FIFO or a device named by `TZ` is no zone).
pub fn system_zone(tz: Option<&str>, tzdir: Option<&str>) -> Option<TimeZone> {
    let database = Path::new(tzdir.unwrap_or(ZONEINFO));
    match tz {
        Some("") => Some(TimeZone::UTC),
        Some(value) => {
            if let Some(zone) = rule(value) {
                return Some(zone);
            }
            let path = value.strip_prefix(':').unwrap_or(value);
            zone_name(value)
                .and_then(|name| by_name(database, name))
                .or_else(|| zone_file(Path::new(path), ""))
        }
        None => {
            let local = Path::new("/etc/localtime");
            std::fs::read_link(local)
                .ok()
                .and_then(|link| by_name(database, zone_name(link.to_str()?)?))
                .or_else(|| zone_file(local, ""))
        }
    }
}

/// Zone `name` (a [`zone_name`]) from the database folder, else from the copy inside
/// notesoup, where names are matched in any case.
fn by_name(database: &Path, name: &str) -> Option<TimeZone> {
    zone_file(&database.join(name), name).or_else(|| TimeZoneDatabase::bundled().get(name).ok())
}

/// The zone file at `path`, named `name` (`""`: unnamed), when it is a regular file of at
/// most [`TZIF_MAX`] bytes holding a zone.
fn zone_file(path: &Path, name: &str) -> Option<TimeZone> {
    let (mut file, meta) = open_regular(path).ok()?;
    let data = read_capped(&mut file, meta.len, TZIF_MAX, path).ok()?;
    TimeZone::tzif(name, &data).ok()
}

#[cfg(test)]
mod tests;
