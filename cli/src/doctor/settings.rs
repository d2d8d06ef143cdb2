//! The checks of where notesoup keeps things and what configures it: the notes home,
//! Claude's settings and their margins, and the switches that turn notesoup or compaction off.

use notesoup_thresholds::{NOTESOUP_DISABLED, margins, notesoup_disabled};

use super::{Check, Status, check};
use crate::Env;
use crate::limits::{merged, policy, policy_env, settings_files};

/// The notes home exists or can be made, and a file can be written in it (checked with
/// `access(2)`, and a home not made yet by the kind of file system it would be made on, so
/// looking writes nothing and makes no folder).
pub(super) fn notes_home_check(env: &Env, checks: &mut Vec<Check>) {
    let root = match crate::notes::root(env) {
        Ok(root) => root,
        Err(err) => {
            checks.push(check(
                "notes",
                Status::Fail,
                err.to_string(),
                Some("set NOTESOUP_HOME to a folder you can write".into()),
            ));
            return;
        }
    };
    if root.exists() && !root.is_dir() {
        checks.push(check(
            "notes",
            Status::Fail,
            format!("notes home {} is not a folder", root.display()),
            Some(format!(
                "move {} away, or set NOTESOUP_HOME to a folder you can write",
                root.display()
            )),
        ));
        return;
    }
    // Looking makes nothing: a home not made yet is judged by the folder it will be made in.
    let Some(existing) = root.ancestors().find(|dir| dir.exists()) else {
        return;
    };
    let is_dir = existing.is_dir();
    // `access` passes there for root, but no folder of ours can be made in it.
    if let Some(kind) = pseudo_file_system(existing).filter(|_| existing != root) {
        checks.push(check(
            "notes",
            Status::Fail,
            format!(
                "notes home {} cannot be made: {} is the kernel's {kind} file system, where no folder can be made",
                root.display(),
                existing.display()
            ),
            Some("set NOTESOUP_HOME to a folder on a disk you can write".into()),
        ));
        return;
    }
    let result = if is_dir {
        rustix::fs::access(
            existing,
            rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
        )
        .map_err(std::io::Error::from)
    } else {
        Err(std::io::Error::other(format!(
            "{} is not a folder",
            existing.display()
        )))
    };
    match result {
        Ok(()) if existing == root => checks.push(check(
            "notes",
            Status::Ok,
            format!("notes home {} is writable", root.display()),
            None,
        )),
        Ok(()) => checks.push(check(
            "notes",
            Status::Ok,
            format!(
                "notes home {} is not made yet; it will be, in {} (writable)",
                root.display(),
                existing.display()
            ),
            None,
        )),
        Err(err) => checks.push(check(
            "notes",
            Status::Fail,
            format!("notes home {} is not writable: {err}", root.display()),
            // A file where a folder of the path must be: no permission makes it one.
            Some(if is_dir {
                format!(
                    "fix the permissions of {} (`ls -ld {0}`), or set NOTESOUP_HOME to a folder you can write",
                    existing.display()
                )
            } else {
                format!(
                    "set NOTESOUP_HOME to a folder you can write ({} is a file, not a folder)",
                    existing.display()
                )
            }),
        )),
    }
}

/// The kernel's own file system `dir` is on (`/proc`, `/sys` and their kind), where `access`
/// may pass but `mkdir` never makes a folder of ours; `None` for any other.
fn pseudo_file_system(dir: &std::path::Path) -> Option<&'static str> {
    let kind = rustix::fs::statfs(dir).ok()?.f_type;
    // The magic numbers of linux/magic.h.
    let named = [
        (0x9fa0, "proc"),
        (0x6265_6572, "sysfs"),
        (0x0027_e0eb, "cgroup"),
        (0x6367_7270, "cgroup2"),
        (0x6462_6720, "debugfs"),
        (0x7472_6163, "tracefs"),
        (0x7363_6673, "securityfs"),
        (0xcafe_4a11, "bpf"),
        (0x1cd1, "devpts"),
        (0x6265_6570, "configfs"),
        (0x6573_5543, "fusectl"),
        (0x6165_676c, "pstore"),
        (0xde5e_81e4, "efivarfs"),
    ];
    named
        .iter()
        .find(|(magic, _)| kind == *magic)
        .map(|(_, name)| *name)
}

/// Claude's settings files parse, the `notesoup` margins are whole numbers, and the
/// policy resolves with them.
pub(super) fn settings_check(env: &Env, checks: &mut Vec<Check>) {
    let files = match settings_files(env, env.cwd()) {
        Ok(files) => files,
        Err(err) => {
            checks.push(check("settings", Status::Fail, err.to_string(), err.fix()));
            return;
        }
    };
    for f in &files {
        if let Some(why) = &f.broken {
            let err = crate::CliError::Settings {
                path: f.path.clone(),
                reason: why.clone(),
            };
            checks.push(check("settings", Status::Fail, err.to_string(), err.fix()));
        }
    }
    if files.iter().any(|f| f.broken.is_some()) {
        return;
    }
    let settings = merged(&files);
    let mut bad = false;
    let invalid = invalid_margins(&margins(Some(&settings)), "", "");
    bad |= !invalid.is_empty();
    checks.extend(invalid);
    let vars = policy_env(env, &files);
    if let Err(err) = policy(&settings, &vars, None, None, None) {
        bad = true;
        let file = files
            .iter()
            .rev()
            .find(|f| {
                f.value
                    .as_ref()
                    .is_some_and(|v| v.get("notesoup").is_some())
            })
            .or(files.first())
            .map_or_else(
                || "Claude's settings".to_owned(),
                |f| f.path.display().to_string(),
            );
        checks.push(check(
            "settings",
            Status::Fail,
            err.to_string(),
            Some(format!(
                "lower notesoup.resetMarginTokens / notesoup.warningRunwayTokens in {file} (or remove them for the defaults); `notesoup limits` shows the points"
            )),
        ));
    }
    if !bad {
        let found: Vec<String> = files
            .iter()
            .filter(|f| f.value.is_some())
            .map(|f| f.path.display().to_string())
            .collect();
        checks.push(check(
            "settings",
            Status::Ok,
            format!(
                "notesoup margins valid: {}; {}",
                margins_in_force(&margins(Some(&settings))),
                if found.is_empty() {
                    "no Claude settings files".to_owned()
                } else {
                    format!("read from {}", found.join(", "))
                }
            ),
            None,
        ));
    }
}

/// `NOTESOUP_DISABLED` and `DISABLE_COMPACT`, from the environment or a settings `env` block.
pub(super) fn switches_check(env: &Env, checks: &mut Vec<Check>) {
    let files = settings_files(env, env.cwd()).unwrap_or_default();
    let from_settings = |name: &str| {
        files.iter().rev().find_map(|f| {
            f.value.as_ref()?.get("env")?.get(name)?;
            Some(format!("the env block of {}", f.path.display()))
        })
    };
    // The one rule (notesoup-thresholds), as the helper answers the hooks module with it.
    let from_env = notesoup_disabled(env.var(NOTESOUP_DISABLED));
    match from_env
        .then(|| "the environment".to_owned())
        .or_else(|| from_settings(NOTESOUP_DISABLED))
    {
        Some(from) => checks.push(check(
            "disabled",
            Status::Warn,
            format!("NOTESOUP_DISABLED is set in {from}: the plugin registers nothing"),
            Some("unset NOTESOUP_DISABLED to use notesoup".into()),
        )),
        None => checks.push(check(
            "disabled",
            Status::Ok,
            "NOTESOUP_DISABLED is not set",
            None,
        )),
    }
    let vars = policy_env(env, &files);
    let settings = merged(&files);
    match policy(&settings, &vars, None, None, None) {
        Ok(p) if !p.warnings_enabled => {
            let from = vars
                .iter()
                .find(|(n, _, _)| *n == "DISABLE_COMPACT")
                .map_or_else(String::new, |(_, v, from)| {
                    format!("DISABLE_COMPACT={v} ({from})")
                });
            checks.push(check(
                "compact",
                Status::Warn,
                format!("{from}: no budget warnings and no resets; Claude cannot compact either"),
                Some("unset DISABLE_COMPACT (DISABLE_AUTO_COMPACT keeps resets and turns off only automatic clears)".into()),
            ));
        }
        Ok(p) if !p.auto_clear => checks.push(check(
            "compact",
            Status::Warn,
            "auto-compaction is off: notesoup warns, but clears only when the agent or you ask",
            Some(format!(
                "to let notesoup clear by itself, unset DISABLE_AUTO_COMPACT and set \"autoCompactEnabled\": true in {}",
                files.first().map_or_else(|| "~/.claude/settings.json".to_owned(), |f| f.path.display().to_string())
            )),
        )),
        _ => checks.push(check(
            "compact",
            Status::Ok,
            "DISABLE_COMPACT is not set",
            None,
        )),
    }
}

/// The margins in force as the ok line says them: `resetMarginTokens 8,192 (default), ...`.
pub(super) fn margins_in_force(margins: &[notesoup_thresholds::Margin]) -> String {
    margins
        .iter()
        .map(|m| {
            format!(
                "{} {}{}",
                m.name,
                notesoup_window::thousands(m.tokens),
                if m.raw.is_none() { " (default)" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A failing line for each margin setting that is not a whole number of tokens; `host` leads
/// the message (`"Pi: "`), `file` names where it is set (`" (<file>)"`).
pub(super) fn invalid_margins(
    margins: &[notesoup_thresholds::Margin],
    host: &str,
    file: &str,
) -> Vec<Check> {
    margins
        .iter()
        .filter(|m| !m.valid)
        .map(|m| {
            let raw = m.raw.as_ref().map(ToString::to_string).unwrap_or_default();
            check(
                "settings",
                Status::Fail,
                format!(
                    "{host}notesoup.{} = {raw}{file} is not a whole number of tokens: it is ignored and {} applies",
                    m.name,
                    notesoup_window::thousands(m.tokens)
                ),
                Some(format!(
                    "write a whole number, e.g. \"notesoup\": {{\"{}\": {}}}",
                    m.name, m.tokens
                )),
            )
        })
        .collect()
}
