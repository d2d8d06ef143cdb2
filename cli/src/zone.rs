//! Times as a person reads and types them: in their time zone, as `git log`, `gh` and `ls`
//! show them. The zone is `TZ` when it names one (a zone name, `:name`, a path into a
//! zoneinfo folder, or a POSIX rule such as `JST-9`), else the system's
//! (`/etc/localtime`), else UTC; `main` asks jiff for it and [`Env`](crate::Env) carries
//! it. `--json` never comes here: scripts get RFC 3339 in UTC
//! (`notesoup_window::format_rfc3339`), whatever the zone.
//!
//! A shown time names its zone. In UTC a table says it once in its header (`TIME (UTC)`),
//! as before; in any other zone each time carries the zone's abbreviation at that moment
//! (`2026-11-03 19:00 JST`), because an abbreviation belongs to a moment, not to a zone
//! (`CET` in winter, `CEST` in summer) and only it tells apart the two 01:30s of the night
//! the clocks go back.

mod system;

pub use system::{named_zone, system_zone};

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::{Offset, TimeZone};

/// Cells of a time with its zone's abbreviation: `YYYY-MM-DD HH:MM` and up to five letters
/// (the IANA database's longest, `+0545` or `CHADT`).
const STAMP_CELLS: usize = 16 + 1 + 5;

/// The zone a person's times are shown and read in.
#[derive(Debug, Clone)]
pub struct Zone {
    tz: TimeZone,
    /// Whether the zone is UTC ([`is_utc`]), found once.
    utc: bool,
    /// Where it came from, as `doctor` says it.
    from: Source,
}

/// Where a [`Zone`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// `TZ` named it: its value.
    Tz(String),
    /// The system's zone (`TZ` unset).
    System,
    /// `TZ` is set to something that is no zone: UTC in its place.
    Refused(String),
    /// No zone could be found (no `TZ`, no readable `/etc/localtime`): UTC.
    Missing,
    /// Set by the caller ([`Zone::utc`]).
    Given,
}

impl Zone {
    /// UTC: what a library caller gets unless it says otherwise.
    pub fn utc() -> Self {
        Self::of(TimeZone::UTC, Source::Given)
    }

    /// The zone `main` found: `found` is jiff's reading of `TZ` and of the system's zone
    /// (`TimeZone::try_system`), `tz` the value of `TZ` (named by `doctor` when it is no
    /// zone). Nothing found is UTC.
    pub fn found(found: Option<TimeZone>, tz: Option<&str>) -> Self {
        let tz_set = tz.filter(|t| !t.is_empty());
        match (found, tz_set) {
            (Some(zone), Some(value)) => Self::of(zone, Source::Tz(value.to_owned())),
            (Some(zone), None) => Self::of(zone, Source::System),
            (None, Some(value)) => Self::of(TimeZone::UTC, Source::Refused(value.to_owned())),
            (None, None) => Self::of(TimeZone::UTC, Source::Missing),
        }
    }

    fn of(tz: TimeZone, from: Source) -> Self {
        Self {
            utc: is_utc(&tz),
            tz,
            from,
        }
    }

    /// Whether every moment is at UTC's offset in this zone (`UTC`, `Etc/UTC`, `UTC0`).
    pub(crate) fn is_utc(&self) -> bool {
        self.utc
    }

    /// The zone as a person names it: its IANA name, else `UTC` or the rule it came from.
    pub(crate) fn name(&self) -> String {
        // A zone read from a file by its path has no name (`""`).
        match (self.tz.iana_name().filter(|n| !n.is_empty()), &self.from) {
            (Some(name), _) => name.to_owned(),
            (None, Source::Refused(_) | Source::Missing | Source::Given) => "UTC".to_owned(),
            (None, Source::Tz(value)) => value.clone(),
            (None, Source::System) if self.is_utc() => "UTC".to_owned(),
            (None, Source::System) => "the zone of /etc/localtime".to_owned(),
        }
    }

    /// What `doctor` says of the zone: a line, and whether it is a warning (`TZ` names no
    /// zone).
    pub(crate) fn report(&self) -> (String, bool) {
        let name = self.name();
        match &self.from {
            Source::Tz(_) => (
                format!("times show in {name} (from TZ); --json stays UTC"),
                false,
            ),
            Source::System => (
                format!(
                    "times show in {name} (the system's zone; TZ overrides it); --json stays UTC"
                ),
                false,
            ),
            Source::Missing => (
                "times show in UTC: TZ is not set and the system names no zone (/etc/localtime)"
                    .to_owned(),
                false,
            ),
            Source::Given => (format!("times show in {name}"), false),
            Source::Refused(value) => (
                format!("TZ={value:?} is not a time zone notesoup can read: times show in UTC"),
                true,
            ),
        }
    }

    /// `YYYY-MM-DD HH:MM` of a moment in milliseconds, in this zone; with the zone's
    /// abbreviation after it unless the zone is UTC (a table's header names UTC once).
    pub(crate) fn cell(&self, ms: u64) -> String {
        if self.is_utc() {
            self.minute(ms).0
        } else {
            self.stamp(ms)
        }
    }

    /// The cells a [`Zone::cell`] takes in a column.
    pub(crate) fn cell_width(&self) -> usize {
        if self.is_utc() { 16 } else { STAMP_CELLS }
    }

    /// A column's header for times: `label (UTC)` in UTC (the cells do not say it), else
    /// `label` (each cell names its zone).
    pub(crate) fn header(&self, label: &str) -> String {
        if self.is_utc() {
            format!("{label} (UTC)")
        } else {
            label.to_owned()
        }
    }

    /// `YYYY-MM-DD HH:MM ZONE` of a moment in milliseconds, in this zone: a time standing
    /// alone in a sentence or a cell that always names its zone (`2026-11-03 10:00 UTC`).
    pub(crate) fn stamp(&self, ms: u64) -> String {
        let (minute, zone) = self.minute(ms);
        format!("{minute} {zone}")
    }

    /// The cells a [`Zone::stamp`] takes in a column.
    pub(crate) fn stamp_width(&self) -> usize {
        if self.is_utc() { 20 } else { STAMP_CELLS }
    }

    /// `YYYY-MM-DD HH:MM` and the zone's abbreviation at that moment. A moment past what a
    /// calendar holds (year 9999) is shown in UTC, as notesoup always showed it.
    fn minute(&self, ms: u64) -> (String, String) {
        let Some(at) = i64::try_from(ms)
            .ok()
            .and_then(|ms| Timestamp::from_millisecond(ms).ok())
        else {
            let utc = notesoup_window::format_utc(ms / 1000);
            let minute = utc.strip_suffix(" UTC").unwrap_or(&utc).to_owned();
            return (minute, "UTC".to_owned());
        };
        let civil = self.tz.to_datetime(at);
        let minute = format!(
            "{:04}-{:02}-{:02} {:02}:{:02}",
            civil.year(),
            civil.month(),
            civil.day(),
            civil.hour(),
            civil.minute()
        );
        let zone = self.tz.to_offset_info(at).abbreviation().to_owned();
        (minute, zone)
    }

    /// Milliseconds since the Unix epoch at which `day` begins in this zone: its midnight,
    /// or the first moment of the day where the clocks skip midnight (negative before
    /// 1970). `None` past what a calendar holds.
    pub(crate) fn day_start(&self, day: Date) -> Option<i64> {
        let start = day.to_zoned_datetime(self.tz.clone()).ok()?;
        Some(start.timestamp().as_millisecond())
    }

    /// Milliseconds since the Unix epoch of a wall-clock time in this zone (in the hour the
    /// clocks skip, the moment an hour later; in the hour they repeat, the first).
    pub(crate) fn at(&self, civil: jiff::civil::DateTime) -> Option<i64> {
        let at = civil.to_zoned_datetime(self.tz.clone()).ok()?;
        Some(at.timestamp().as_millisecond())
    }
}

/// Whether `tz` is at offset zero and its clocks never change (`Etc/UTC` is a database
/// file with no transition, not a fixed offset).
fn is_utc(tz: &TimeZone) -> bool {
    if let Ok(offset) = tz.to_fixed_offset() {
        return offset == Offset::UTC;
    }
    tz.to_offset(Timestamp::UNIX_EPOCH) == Offset::UTC
        && tz.following(Timestamp::MIN).next().is_none()
}

#[cfg(test)]
mod tests;
