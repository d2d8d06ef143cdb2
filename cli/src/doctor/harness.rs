//! The harnesses' checks: each one's sessions where the history tools look, and the
//! history vault that outlives them.

use std::path::PathBuf;

use notesoup_history_store::{Corpus, Roots};
use notesoup_window::Host;

use super::{Check, Status, check};
use crate::Env;
use crate::docs::{Folder, SessionsDetail};

/// Each harness's sessions, found the way the history tools find them, naming the folders
/// looked in (from `notesoup_history_store::Corpus::folders`, the history tools' own rule).
pub(super) fn sessions_check(env: &Env, checks: &mut Vec<Check>) {
    let corpus = Corpus::new(Roots::default(), |name| env.var(name).map(str::to_owned));
    for harness in Host::HARNESSES {
        // Found as the history tools find them (the vault's too); nothing of them is read.
        let scanned = notesoup_app::history::corpus(Roots::default(), &env.helper_context())
            .scan(Some(harness));
        let total = scanned.sessions().len();
        let vault_only = scanned
            .sessions()
            .iter()
            .filter(|s| s.only_in_vault())
            .count();
        let name = harness.product();
        let folders: Vec<(PathBuf, &str)> = corpus
            .folders(harness)
            .into_iter()
            .map(|dir| {
                let state = match dir.metadata() {
                    Ok(m) if m.is_dir() => "found",
                    Ok(_) => "not a folder",
                    Err(_) => "missing",
                };
                (dir, state)
            })
            .collect();
        let looked = if folders.is_empty() {
            "looked nowhere: HOME is not set".to_owned()
        } else {
            format!(
                "looked in {}",
                folders
                    .iter()
                    .map(|(dir, state)| format!("{} ({state})", dir.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let mut line = if total > 0 {
            check(
                "sessions",
                Status::Ok,
                format!(
                    "{name}: {total} session{} found{}; {looked}",
                    if total == 1 { "" } else { "s" },
                    if vault_only > 0 {
                        format!(
                            " ({vault_only} only in the vault: {name} deleted {})",
                            if vault_only == 1 {
                                "its file"
                            } else {
                                "their files"
                            }
                        )
                    } else {
                        String::new()
                    }
                ),
                None,
            )
        } else {
            check(
                "sessions",
                Status::Skip,
                format!(
                    "{name}: no sessions found (not used here?); {looked}; if they are elsewhere, set {}",
                    folder_variable(harness)
                ),
                None,
            )
        };
        line.detail = Some(SessionsDetail {
            harness,
            sessions: total,
            folders: folders
                .into_iter()
                .map(|(path, state)| Folder { path, state })
                .collect(),
        });
        checks.push(line);
    }
}

fn folder_variable(harness: Host) -> &'static str {
    match harness {
        Host::Claude => "CLAUDE_CONFIG_DIR",
        Host::Pi => "PI_CODING_AGENT_SESSION_DIR",
        Host::Codex => "CODEX_HOME",
        // Never asked: an MCP client keeps no sessions (the loop is over the harnesses).
        Host::Mcp => "NOTESOUP_HOME",
    }
}

/// The history vault: off, or its size and the Claude sessions Claude's cleanup
/// (`cleanupPeriodDays`, from Claude's settings files, default 30) would soon delete that
/// it does not hold.
pub(super) fn vault_check(env: &Env, checks: &mut Vec<Check>) {
    let ctx = env.helper_context();
    if notesoup_app::vault::is_off(&ctx) {
        checks.push(check(
            "vault",
            Status::Skip,
            "the history vault is off (NOTESOUP_VAULT=off): sessions Claude deletes are gone",
            None,
        ));
        return;
    }
    let files = crate::limits::settings_files(env, env.cwd()).unwrap_or_default();
    let (days, from) = files
        .iter()
        .rev()
        .find_map(|f| {
            let days = f.value.as_ref()?.get("cleanupPeriodDays")?.as_u64()?;
            Some((days, f.path.display().to_string()))
        })
        .unwrap_or((
            notesoup_app::vault::CLAUDE_CLEANUP_DAYS,
            "Claude's default".to_owned(),
        ));
    let standing = match notesoup_app::vault::standing(&ctx, days, std::time::SystemTime::now()) {
        Ok(standing) => standing,
        Err(err) => {
            // No notes home: the notes check's fix is this one's too.
            let fix = if err.code() == "no_home" {
                "set NOTESOUP_HOME to an absolute folder you can write (the vault is under it)"
            } else {
                "run `notesoup history vault` to see which file, or set NOTESOUP_VAULT=off"
            };
            checks.push(check(
                "vault",
                Status::Fail,
                format!("the history vault cannot be read: {err}"),
                Some(fix.into()),
            ));
            return;
        }
    };
    // A vault that cannot be written keeps nothing more: the hooks' keeping fails quietly.
    if let Ok(root) = notesoup_app::vault::root(&ctx)
        && root.is_dir()
        && let Err(err) = rustix::fs::access(
            &root,
            rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
        )
    {
        checks.push(check(
            "vault",
            Status::Fail,
            format!(
                "the history vault {} cannot be written ({}): sessions a harness deletes from now on are lost",
                root.display(),
                std::io::Error::from(err)
            ),
            Some(format!(
                "make {} writable (`ls -ld {0}`), or set NOTESOUP_VAULT=off",
                root.display()
            )),
        ));
        return;
    }
    let held = format!(
        "{} session file{} kept ({} on disk)",
        standing.sessions,
        if standing.sessions == 1 { "" } else { "s" },
        crate::size::bytes(standing.stored)
    );
    if standing.at_risk > 0 {
        checks.push(check(
            "vault",
            Status::Warn,
            format!(
                "{held}; {} Claude session{} untouched for over {} days {} not in it, and Claude deletes sessions after {days} days (cleanupPeriodDays, {from})",
                standing.at_risk,
                if standing.at_risk == 1 { "" } else { "s" },
                days.saturating_sub(notesoup_app::vault::RISK_MARGIN_DAYS),
                if standing.at_risk == 1 { "is" } else { "are" },
            ),
            Some("notesoup history vault (keeps them; run it now and then, e.g. from cron)".into()),
        ));
    } else {
        checks.push(check("vault", Status::Ok, held, None));
    }
}
