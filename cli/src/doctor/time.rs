//! The time zone check: which zone the command shows times in and reads days in, and a
//! warning when `TZ` names no zone (times then show in UTC, which the person did not ask
//! for).

use super::{Check, Status, check};
use crate::Env;

/// The `time` line.
pub(super) fn time_check(env: &Env, checks: &mut Vec<Check>) {
    let (message, refused) = env.zone().report();
    checks.push(if refused {
        check(
            "time",
            Status::Warn,
            message,
            Some(
                "set TZ to a zone name such as Europe/Berlin (a file under /usr/share/zoneinfo), or unset it for the system's zone"
                    .into(),
            ),
        )
    } else {
        check("time", Status::Ok, message, None)
    });
}
