//! The one way notesoup writes a moment for people: `YYYY-MM-DD HH:MM UTC`.

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
