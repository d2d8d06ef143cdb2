//! The folder and time filters `history sessions` and `history search` share
//! (`--project`, `--since`, `--until`): read once from the command line into the app's
//! [`SessionFilter`], which both commands hand to the app.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use notesoup_app::history::SessionFilter;
use notesoup_window::Host;

use crate::args::SessionFilterArgs;
use crate::{CliError, Env, Zone};

/// The sessions `args` and `harness` keep (a `--project` read from the current folder).
pub(crate) fn session_filter(
    args: &SessionFilterArgs,
    harness: Option<Host>,
    env: &Env,
) -> Result<SessionFilter, CliError> {
    let since = args
        .since
        .as_deref()
        .map(|w| moment("--since", w, false, env.zone()))
        .transpose()?;
    let until = args
        .until
        .as_deref()
        .map(|w| moment("--until", w, true, env.zone()))
        .transpose()?;
    if let (Some(from), Some(to), Some(since_text), Some(until_text)) =
        (since, until, &args.since, &args.until)
        && from > to
    {
        // No session is in both: say so rather than search and find nothing.
        return Err(CliError::Refused {
            code: "bad_time",
            message: format!(
                "--since {since_text} is after --until {until_text}: no session can be in both"
            ),
            fix: "swap the two, or give --since a moment before --until".to_owned(),
        });
    }
    Ok(SessionFilter {
        harness,
        folder: args.project.as_ref().map(|p| env.folder(Some(p))),
        since,
        until,
    })
}

/// What a listing or a search says when `--project` kept no session: a folder with no
/// session is not a typo to stay silent about.
pub(crate) fn no_session_in(project: &Path) -> String {
    format!(
        "no session ran in {}{}",
        project.display(),
        if project.exists() {
            ""
        } else {
            " (no such folder here either)"
        }
    )
}

/// A `--since`/`--until` moment: a day (`--until`: its end), a time, or a time ago (`3d`,
/// `12h`, `2w`). A day and a time without a zone are the person's (`zone`), as `git log
/// --since` and `gh` read them: `2026-12-01` is from their midnight; a time with one
/// (`2026-12-01T09:00Z`, `+09:00`) is that moment.
pub(crate) fn moment(
    flag: &str,
    text: &str,
    end_of_day: bool,
    zone: &Zone,
) -> Result<u64, CliError> {
    let bad = || CliError::Refused {
        code: "bad_time",
        message: format!("{flag} {text:?} is not a day or a time"),
        fix: format!(
            "give a day ({flag} 2026-11-01), a time ({flag} 2026-11-01T09:00, or with its zone: 2026-11-01T09:00Z) or a time ago ({flag} 3d, 12h, 2w)"
        ),
    };
    let text = text.trim();
    if let Some(ago) = ago(text) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        return Ok(now.saturating_sub(ago));
    }
    // No session is older than 1970: a moment before it is 1970's first.
    let epoch = |ms: i64| u64::try_from(ms).unwrap_or(0);
    if let Ok(day) = Date::strptime("%Y-%m-%d", text) {
        // A day given to --until counts whole: up to the next day's start (the last day a
        // calendar holds, to the end of time).
        return if end_of_day {
            Ok(day
                .tomorrow()
                .ok()
                .and_then(|d| zone.day_start(d))
                .map_or(u64::MAX, |ms| epoch(ms - 1)))
        } else {
            zone.day_start(day).map(epoch).ok_or_else(bad)
        };
    }
    if let Ok(at) = text.parse::<Timestamp>() {
        return Ok(epoch(at.as_millisecond()));
    }
    let civil = text.parse::<DateTime>().map_err(|_| bad())?;
    zone.at(civil).map(epoch).ok_or_else(bad)
}

/// Milliseconds in `3d`, `12h`, `2w`, `30m`.
fn ago(text: &str) -> Option<u64> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let n: u64 = text.get(..text.len() - unit.len_utf8())?.parse().ok()?;
    let ms = match unit {
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        'w' => 7 * 86_400_000,
        _ => return None,
    };
    n.checked_mul(ms)
}
