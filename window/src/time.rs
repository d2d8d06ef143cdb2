//! The one way notesoup writes a moment for people (`YYYY-MM-DD HH:MM UTC`) and for
//! scripts (RFC 3339 in UTC, `YYYY-MM-DDTHH:MM:SSZ`), and the one way it reads a
//! moment a harness or a person wrote.

/// `YYYY-MM-DD HH:MM UTC` for `secs` seconds since the Unix epoch (the boot snapshot, the
/// notes tools and the command line all show note times this way).
///
/// ```
/// use notesoup_window::format_utc;
///
/// assert_eq!(format_utc(0), "1970-01-01 00:00 UTC");
/// assert_eq!(format_utc(1_733_152_245), "2024-12-02 15:10 UTC");
/// ```
pub fn format_utc(secs: u64) -> String {
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(secs / 86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// A moment as RFC 3339 in UTC, in whole seconds: what every `--json` document of notesoup
/// writes for a time. One shape for every time, whether a harness recorded milliseconds
/// or a file's mtime gave it, so `jq`'s `fromdateiso8601` and `date -d` read them all (as
/// they read gh's); an event's order is its `seq`, never its time.
///
/// ```
/// use notesoup_window::format_rfc3339;
///
/// assert_eq!(format_rfc3339(1_733_152_245_000), "2024-12-02T15:10:45Z");
/// assert_eq!(format_rfc3339(1_733_152_245_978), "2024-12-02T15:10:45Z");
/// ```
pub fn format_rfc3339(millis: u64) -> String {
    let secs = millis / 1000;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(secs / 86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Milliseconds since the Unix epoch of a moment written as ISO 8601 / RFC 3339: a date
/// (`2024-12-02`, midnight UTC), or a date and a time (`T` or a space between them) with
/// minutes, optional seconds and fraction, and an optional zone (`Z` or `±HH:MM`; none:
/// UTC). `None` for anything else, or a moment before 1970.
///
/// ```
/// use notesoup_window::parse_moment;
///
/// assert_eq!(parse_moment("2024-12-02T15:10:45.078Z"), Some(1_733_152_245_078));
/// assert_eq!(parse_moment("2024-12-02T17:10:45.078+02:00"), Some(1_733_152_245_078));
/// assert_eq!(parse_moment("2024-12-02"), Some(1_733_097_600_000));
/// assert_eq!(parse_moment("2 December"), None);
/// ```
pub fn parse_moment(text: &str) -> Option<u64> {
    let text = text.trim();
    let (date, rest) = match text.get(..10) {
        Some(date) => (date, text.get(10..)?),
        None => return None,
    };
    let days = days_from_date(date)?;
    let mut millis = i64::try_from(days).ok()?.checked_mul(86_400_000)?;
    if !rest.is_empty() {
        let rest = rest.strip_prefix(['T', 't', ' '])?;
        let (clock, offset) = split_zone(rest)?;
        millis = millis.checked_add(clock_millis(clock)?)?;
        millis = millis.checked_sub(offset)?;
    }
    u64::try_from(millis).ok()
}

/// Days since 1970-01-01 of `YYYY-MM-DD`.
fn days_from_date(date: &str) -> Option<u64> {
    let b = date.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let s = date.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) || y < 1970 {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        2 if y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The clock part and the zone's offset east of UTC, in milliseconds.
fn split_zone(rest: &str) -> Option<(&str, i64)> {
    if let Some(clock) = rest.strip_suffix(['Z', 'z']) {
        return Some((clock, 0));
    }
    match rest.rfind(['+', '-']) {
        Some(at) => {
            let zone = rest.get(at..)?;
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let hm = zone.get(1..)?;
            let (h, m) = hm.split_once(':').unwrap_or((hm.get(..2)?, hm.get(2..)?));
            let (h, m): (i64, i64) = (digits(h)?, digits(m)?);
            (h <= 23 && m <= 59).then_some((rest.get(..at)?, sign * (h * 60 + m) * 60_000))
        }
        None => Some((rest, 0)),
    }
}

/// Milliseconds into the day of `HH:MM[:SS[.fff…]]`.
fn clock_millis(clock: &str) -> Option<i64> {
    let mut parts = clock.splitn(3, ':');
    let h: i64 = digits(parts.next()?)?;
    let m: i64 = digits(parts.next()?)?;
    let (s, ms) = match parts.next() {
        None => (0, 0),
        Some(sec) => {
            let (whole, frac) = sec.split_once(['.', ',']).unwrap_or((sec, ""));
            let ms = if frac.is_empty() {
                0
            } else {
                if !frac.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                let three: String = frac.chars().chain("000".chars()).take(3).collect();
                three.parse().ok()?
            };
            (digits(whole)?, ms)
        }
    };
    (h <= 23 && m <= 59 && s <= 60).then_some(((h * 60 + m) * 60 + s) * 1000 + ms)
}

/// Two ASCII digits.
fn digits(s: &str) -> Option<i64> {
    (s.len() == 2 && s.bytes().all(|c| c.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Howard Hinnant's `days_from_civil`, for dates from 1970 on.
fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y % 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Howard Hinnant's `civil_from_days`, for days since 1970-01-01 (non-negative).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests;
