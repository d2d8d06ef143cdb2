//! `notesoup doctor`: every check a person would otherwise do by hand, one line each
//! (ok / skip / warn / fail), each warning and failure with its fix; the exit status is 1 when one fails.

use std::path::{Path, PathBuf};

use crate::docs::{CheckRow, Counts, DoctorDoc, SessionsDetail};
use crate::term::{Out, Paint};
use crate::{EXIT_FAILED, EXIT_OK, Env};

mod claude;
mod codex;
mod harness;
mod helper;
mod pi;
mod pi_copies;
mod pi_trust;
mod process;
mod settings;
mod time;

use claude::{claude_check, helper_check, plugin_check};
use codex::codex_check;
use harness::{sessions_check, vault_check};
use pi::pi_check;
use settings::{notes_home_check, settings_check, switches_check};
use time::time_check;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    /// Not applicable here (a harness this machine does not use): neither good nor bad.
    Skip,
    Warn,
    Fail,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Skip => "skip",
            Self::Warn => "warn",
            Self::Fail => "fail",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone)]
struct Check {
    name: &'static str,
    status: Status,
    message: String,
    fix: Option<String>,
    /// More for `--json` (the session folders looked in).
    detail: Option<SessionsDetail>,
}

fn check(
    name: &'static str,
    status: Status,
    message: impl Into<String>,
    fix: Option<String>,
) -> Check {
    Check {
        name,
        status,
        message: message.into(),
        fix,
        detail: None,
    }
}

pub(crate) fn run(env: &Env, out: &mut Out) -> u8 {
    let mut checks = Vec::new();
    let claude = claude_check(env, &mut checks);
    let folder = plugin_check(env, claude.as_deref(), &mut checks);
    helper_check(env, folder.as_deref(), &mut checks);
    notes_home_check(env, &mut checks);
    sessions_check(env, &mut checks);
    pi_check(env, &mut checks);
    codex_check(env, &mut checks);
    vault_check(env, &mut checks);
    settings_check(env, &mut checks);
    switches_check(env, &mut checks);
    time_check(env, &mut checks);
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    let count = |status| checks.iter().filter(|c| c.status == status).count();
    let counts = Counts {
        ok: count(Status::Ok),
        skip: count(Status::Skip),
        warn: count(Status::Warn),
        fail: count(Status::Fail),
    };
    if out.json {
        out.json_doc(&DoctorDoc {
            ok: !failed,
            counts,
            checks: checks
                .iter()
                .map(|c| CheckRow {
                    check: c.name,
                    status: c.status.as_str(),
                    message: &c.message,
                    fix: c.fix.as_deref(),
                    detail: c.detail.as_ref(),
                })
                .collect(),
        });
    } else {
        for c in &checks {
            let (paint, label) = match c.status {
                Status::Ok => (Paint::Ok, "ok  "),
                Status::Skip => (Paint::Dim, "skip"),
                Status::Warn => (Paint::Warn, "warn"),
                Status::Fail => (Paint::Fail, "fail"),
            };
            out.line(format!(
                "{} {:<9} {}",
                out.paint(paint, label),
                c.name,
                c.message
            ));
            if let Some(fix) = &c.fix {
                out.line(format!("               fix: {fix}"));
            }
        }
        let tally = format!(
            "{} ok, {} skipped, {} warning{}, {} failed",
            counts.ok,
            counts.skip,
            counts.warn,
            if counts.warn == 1 { "" } else { "s" },
            counts.fail
        );
        let summary = if failed {
            out.paint(
                Paint::Fail,
                &format!("Something failed ({tally}): see the fix lines above."),
            )
        } else {
            out.paint(Paint::Ok, &format!("Nothing failed ({tally})."))
        };
        out.line(summary);
    }
    if failed { EXIT_FAILED } else { EXIT_OK }
}

/// The notesoup checkout this `notesoup` was built from, when it is still on this machine
/// (`scripts/install` and `cargo install --path cli` build in one), so a fix names its
/// scripts by their real paths. A release binary's build folder is not here: `None`.
fn built_from() -> Option<PathBuf> {
    // This notesoup installed from npm (the platform package's `bin/`) is the npm user's:
    // its fixes are npm's, even on the machine that built it, where that checkout is.
    let from_npm = std::env::current_exe().is_ok_and(|exe| {
        exe.to_string_lossy()
            .contains("/node_modules/@notesoup/cli-")
    });
    if from_npm {
        return None;
    }
    checkout(Path::new(env!("CARGO_MANIFEST_DIR")).parent()?)
}

/// `dir` when it is a notesoup checkout (it has `scripts/install`).
fn checkout(dir: &Path) -> Option<PathBuf> {
    dir.join("scripts/install")
        .is_file()
        .then(|| dir.to_path_buf())
}
