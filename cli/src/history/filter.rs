//! The folder and time filters `history sessions` and `history search` share
//! (`--project`, `--since`, `--until`): read once from the command line into the app's
//! [`SessionFilter`], which both commands hand to the app.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use notesoup_app::history::SessionFilter;
use notesoup_window::{Host, parse_moment};

use crate::args::SessionFilterArgs;
use crate::{CliError, Env};

/// The sessions `args` and `harness` keep (a `--project` read from the current folder).
pub(crate) fn session_filter(
    args: &SessionFilterArgs,
    harness: Option<Host>,
    env: &Env,
) -> Result<SessionFilter, CliError> {
    Ok(SessionFilter {
        harness,
        folder: args.project.as_ref().map(|p| env.folder(Some(p))),
        since: args
            .since
            .as_deref()
            .map(|w| moment("--since", w, false))
            .transpose()?,
        until: args
            .until
            .as_deref()
            .map(|w| moment("--until", w, true))
            .transpose()?,
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

/// A `--since`/`--until` moment: a day (`--until`: its end), an RFC 3339 time, or a time
/// ago (`3d`, `12h`, `2w`).
pub(crate) fn moment(flag: &str, text: &str, end_of_day: bool) -> Result<u64, CliError> {
    let bad = || CliError::Refused {
        code: "bad_time",
        message: format!("{flag} {text:?} is not a day or a time"),
        fix: format!(
            "give a day ({flag} 2026-11-01), a time ({flag} 2026-11-01T09:00Z) or a time ago ({flag} 3d, 12h, 2w)"
        ),
    };
    if let Some(ago) = ago(text) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        return Ok(now.saturating_sub(ago));
    }
    let at = parse_moment(text).ok_or_else(bad)?;
    // A bare day given to --until counts whole.
    Ok(if end_of_day && text.trim().len() == 10 {
        at + 86_400_000 - 1
    } else {
        at
    })
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
