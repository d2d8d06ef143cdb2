//! The person's zone read from the one zoneinfo file that names it, before asking jiff.
//!
//! jiff's own search (`TimeZone::try_system`) first lists the whole zoneinfo tree, about
//! 1,800 entries in 20 folders, to look names up without regard to case: about 0.6 ms of
//! every `notesoup` run, a quarter of a `notesoup notes list`.
//! Nearly every machine names its zone exactly (`TZ=Europe/Berlin`, or `/etc/localtime`
//! linking to `/usr/share/zoneinfo/Europe/Berlin`), so that one file is read and parsed by
//! jiff, and a `TZ` that is no file's name but a POSIX rule (`JST-9`) is parsed by jiff as
//! one; anything else (a name in another case, `TZDIR`, no such zone) is `None`, and `main`
//! asks jiff.

use std::io::Read as _;
use std::path::Path;

use jiff::tz::TimeZone;

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
    let file = std::fs::File::open(Path::new(ZONEINFO).join(name)).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut data = Vec::new();
    file.take(TZIF_MAX).read_to_end(&mut data).ok()?;
    TimeZone::tzif(name, &data).ok()
}

#[cfg(test)]
mod tests;
