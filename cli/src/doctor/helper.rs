//! The helper a host runs: found in the platform package npm installed, and checked to run
//! and to be this notesoup's version.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::process::{is_executable, process, run_bounded};
use super::{Check, Status, check};
use crate::Env;

/// The helper of the platform package npm installed into `node_modules`
/// (`@notesoup/cli-<os>-<cpu>/bin/notesoup-helper`: only the one matching this machine is
/// there), as the hooks module and the Pi extension find it.
pub(super) fn platform_helper(node_modules: &Path) -> Option<PathBuf> {
    let mut platforms: Vec<PathBuf> = std::fs::read_dir(node_modules.join("@notesoup"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cli-"))
        .map(|e| e.path().join("bin/notesoup-helper"))
        .filter(|p| p.exists())
        .collect();
    platforms.sort();
    platforms.into_iter().next()
}

/// The line `name` for `helper`: it runs, answers `version`, and is this binary's version;
/// else a failure with `fix`.
pub(super) fn helper_runs(env: &Env, name: &'static str, helper: &Path, fix: String) -> Check {
    if !is_executable(helper) {
        return check(
            name,
            Status::Fail,
            format!("{} is missing", helper.display()),
            Some(fix),
        );
    }
    let run = run_bounded(process(helper, env).arg("version"), b"{}");
    let reply = (run.as_ref().ok()).and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok());
    let ours = notesoup_app::VERSION;
    match reply.as_ref().and_then(|r| r["version"].as_str()) {
        Some(v) if v == ours => check(
            name,
            Status::Ok,
            format!("{} runs, version {v}", helper.display()),
            None,
        ),
        Some(v) => check(
            name,
            Status::Fail,
            format!(
                "{} is version {v}, this notesoup is {ours}",
                helper.display()
            ),
            Some(fix),
        ),
        None => check(
            name,
            Status::Fail,
            format!(
                "{} did not answer `version`{}",
                helper.display(),
                no_answer(&run)
            ),
            Some(fix),
        ),
    }
}

/// The helper a shell runs when the person named one (`NOTESOUP_HELPER`, which both shells
/// take first), and the fix that names it.
pub(super) fn named_helper(env: &Env) -> Option<(PathBuf, String)> {
    let set = env.var_set("NOTESOUP_HELPER")?;
    Some((
        PathBuf::from(set),
        format!(
            "NOTESOUP_HELPER is set to {set}: point it at a notesoup-helper of this version (not the notesoup command), or unset it"
        ),
    ))
}

/// Why a run gave no `version` answer, as the line's tail: it hung (and was stopped), it
/// could not start, or how it exited and the first line it wrote to stderr.
fn no_answer(run: &std::io::Result<std::process::Output>) -> String {
    match run {
        Err(err) if err.kind() == std::io::ErrorKind::TimedOut => {
            format!(": {err} (it was stopped)")
        }
        Err(err) => format!(": {err}"),
        Ok(out) => {
            let said = super::process::said_line(&out.stderr, |_| true);
            let code = out
                .status
                .code()
                .map_or_else(|| "by a signal".to_owned(), |c| format!("with status {c}"));
            match said {
                Some(line) => format!(" (it exited {code}: {line})"),
                None => format!(" (it exited {code})"),
            }
        }
    }
}
