//! The Claude Code checks: the binary and its version, the plugin, the plugin's helper.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::helper::{helper_runs, named_helper, platform_helper};
use super::process::{is_executable, on_path, process, run_bounded, said_line};
use super::{Check, Status, built_from, check};
use crate::{CLAUDE_CODE_VERSION, Env};

/// Claude Code found (`$CLAUDE`, else `claude` on PATH, else where Claude Code installs
/// itself: [`installed_claude`]) and its version the one notesoup targets. Returns the
/// binary.
pub(super) fn claude_check(env: &Env, checks: &mut Vec<Check>) -> Option<PathBuf> {
    let mut where_from = "";
    let found = env
        .var_set("CLAUDE")
        .map(PathBuf::from)
        .or_else(|| on_path(env, "claude"))
        .or_else(|| {
            let (bin, how) = installed_claude(env)?;
            where_from = how;
            Some(bin)
        });
    let cached = fetched_claude(env);
    let fetched = cached.clone().filter(|p| is_executable(p));
    let Some(bin) = found.clone().or_else(|| fetched.clone()) else {
        checks.push(not_found(env, cached.as_deref(), uses_claude(env)));
        return None;
    };
    if found.is_none() {
        let bin_dir = env.var_set("NOTESOUP_BIN_DIR").map_or_else(
            || {
                env.var("HOME").map_or_else(
                    || PathBuf::from("~/.local/bin"),
                    |h| Path::new(h).join(".local/bin"),
                )
            },
            PathBuf::from,
        );
        checks.push(check(
            "claude",
            Status::Warn,
            format!(
                "Claude Code {CLAUDE_CODE_VERSION} found at {} (fetched by scripts/install), but no `claude` on PATH",
                bin.display()
            ),
            Some(format!(
                "ln -s {} {}/claude (or set CLAUDE={0})",
                bin.display(),
                bin_dir.display()
            )),
        ));
        return Some(bin);
    }
    let output = run_bounded(process(&bin, env).arg("--version"), b"");
    let version = match output {
        Ok(o) if o.status.success() => said_line(&o.stdout, |_| true).unwrap_or_default(),
        Ok(o) => {
            checks.push(check(
                "claude",
                Status::Fail,
                format!("{} --version failed ({})", bin.display(), o.status),
                Some(format!(
                    "reinstall Claude Code ({}), or set CLAUDE to a working binary",
                    bin.display()
                )),
            ));
            return None;
        }
        Err(err) => {
            // A CLAUDE naming nothing is the variable's fault, not the install's.
            let fix = match (env.var_set("CLAUDE"), err.kind()) {
                (Some(named), std::io::ErrorKind::NotFound) => format!(
                    "CLAUDE={named} names no file: set CLAUDE to the Claude Code binary (`command -v claude` finds it), or unset it"
                ),
                _ => format!(
                    "reinstall Claude Code ({}), or set CLAUDE to a working binary",
                    bin.display()
                ),
            };
            checks.push(check(
                "claude",
                Status::Fail,
                format!("{} could not be run: {err}", bin.display()),
                Some(fix),
            ));
            return None;
        }
    };
    let number = version.split_whitespace().next().unwrap_or_default();
    if number == CLAUDE_CODE_VERSION {
        checks.push(check(
            "claude",
            Status::Ok,
            format!("Claude Code {number} at {}{where_from}", bin.display()),
            None,
        ));
    } else {
        checks.push(check(
            "claude",
            Status::Warn,
            format!(
                "Claude Code {number} at {}{where_from}: untested with notesoup, which is tested with {CLAUDE_CODE_VERSION} (its hooks and transcript format may differ)",
                bin.display()
            ),
            Some(format!(
                "nothing to do while it works; if notesoup misbehaves, say so in a report with `notesoup --version` and `{} --version`",
                bin.display()
            )),
        ));
    }
    Some(bin)
}

/// Claude Code where it installs itself when it is not on this PATH, with how it gets run
/// from there: the npm-local install (`<config dir>/local/claude`, run through the shell
/// alias `alias claude="~/.claude/local/claude"` that Claude Code's own doctor asks for, so
/// never on PATH) and the native install (`~/.local/bin/claude`, on the person's PATH but
/// not always on the one doctor runs with: cron, an editor's task runner). Claude Code
/// 2.1.319 names both.
fn installed_claude(env: &Env) -> Option<(PathBuf, &'static str)> {
    install_places(env)
        .into_iter()
        .find(|(bin, _)| is_executable(bin))
}

/// Where [`installed_claude`] looks, each with how Claude Code gets run from there.
fn install_places(env: &Env) -> Vec<(PathBuf, &'static str)> {
    let config = env
        .var_set("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            env.var_set("HOME")
                .map(|home| Path::new(home).join(".claude"))
        });
    let local = config.map(|dir| {
        (
            dir.join("local/claude"),
            " (Claude Code's local install, which your shell runs through its alias)",
        )
    });
    let native = env.var_set("HOME").map(|home| {
        (
            Path::new(home).join(".local/bin/claude"),
            " (Claude Code's native install; its folder is not on this PATH)",
        )
    });
    [local, native].into_iter().flatten().collect()
}

/// Whether Claude Code was ever used here: its config folder (`CLAUDE_CONFIG_DIR`, else
/// `~/.claude`) exists. Someone who uses only Codex or Pi has none, and is not told to
/// install Claude Code.
fn uses_claude(env: &Env) -> bool {
    env.var_set("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            env.var_set("HOME")
                .map(|home| Path::new(home).join(".claude"))
        })
        .is_some_and(|dir| dir.is_dir())
}

/// When no Claude Code is found: a failure when Claude Code was used here (`used`), naming
/// where doctor looked (`cached`: where `scripts/install` fetches it) and how to get one;
/// else a skip (a harness not used here), saying the same.
fn not_found(env: &Env, cached: Option<&Path>, used: bool) -> Check {
    let npm = format!(
        "install Claude Code {CLAUDE_CODE_VERSION}: `npm install -g @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}`"
    );
    // Claude Code's own install places, where it was used here (one that never ran here
    // has none).
    let installs: Vec<String> = install_places(env)
        .into_iter()
        .filter(|_| used)
        .map(|(bin, _)| bin.display().to_string())
        .collect();
    let installed = match installs.as_slice() {
        [] => String::new(),
        places => format!(", none at {}", places.join(" or ")),
    };
    let fetched = cached.map_or_else(String::new, |cached| {
        format!(
            ", and none at {} (where scripts/install fetches it)",
            cached.display()
        )
    });
    let looked = format!("{installed}{fetched}");
    let fix = match (cached, built_from()) {
        (Some(_), Some(checkout)) => format!(
            "{npm}; or fetch it there with {}/scripts/get-claude; or set CLAUDE to a Claude Code binary",
            checkout.display()
        ),
        _ => format!("{npm}, or set CLAUDE to a Claude Code binary"),
    };
    if !used {
        return check(
            "claude",
            Status::Skip,
            format!(
                "Claude Code not found (not used here: no ~/.claude or CLAUDE_CONFIG_DIR): no `claude` on PATH, CLAUDE is not set{looked}; for notesoup in Claude Code, {fix}"
            ),
            None,
        );
    }
    check(
        "claude",
        Status::Fail,
        format!("Claude Code not found: no `claude` on PATH, CLAUDE is not set{looked}"),
        Some(fix),
    )
}

/// The plugin installed and enabled (`claude plugin list --json`), or named by
/// `CLAUDE_CODE_PLUGIN_DIRS`. Returns the plugin's folder.
pub(super) fn plugin_check(
    env: &Env,
    claude: Option<&Path>,
    checks: &mut Vec<Check>,
) -> Option<PathBuf> {
    let fix_install = install_plugin_fix();
    if let Some(dirs) = env.var_set("CLAUDE_CODE_PLUGIN_DIRS") {
        let found = std::env::split_paths(dirs).find(|d| {
            d.join("bin/notesoup-helper").exists() || d.join("claude/bin/notesoup-helper").exists()
        });
        if let Some(dir) = found {
            let dir = if dir.join("bin/notesoup-helper").exists() {
                dir
            } else {
                dir.join("claude")
            };
            checks.push(check(
                "plugin",
                Status::Ok,
                format!("loaded from CLAUDE_CODE_PLUGIN_DIRS: {}", dir.display()),
                None,
            ));
            return Some(dir);
        }
    }
    let Some(claude) = claude else {
        // Claude's own line failed already, with its fix.
        checks.push(check(
            "plugin",
            Status::Skip,
            "not checked: Claude Code was not found",
            None,
        ));
        return None;
    };
    let listed = run_bounded(process(claude, env).args(["plugin", "list", "--json"]), b"")
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok());
    let Some(Value::Array(plugins)) = listed else {
        checks.push(check(
            "plugin",
            Status::Fail,
            format!("`{} plugin list --json` gave no list", claude.display()),
            Some(fix_install.clone()),
        ));
        return None;
    };
    let ours = plugins.iter().find(|p| {
        p["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("notesoup@"))
    });
    let Some(plugin) = ours else {
        // A warning, as the Pi extension missing from a Pi that is here: notesoup may be in
        // use through Pi or MCP alone, and nothing installed is broken (fail is for that).
        checks.push(check(
            "plugin",
            Status::Warn,
            "the notesoup plugin is not installed in Claude Code",
            Some(fix_install.clone()),
        ));
        return None;
    };
    let id = plugin["id"].as_str().unwrap_or("notesoup");
    let folder = plugin["readFromFolder"]
        .as_str()
        .or_else(|| plugin["installPath"].as_str())
        .map(PathBuf::from);
    if plugin["enabled"] == Value::Bool(true) || plugin["projectEnabled"] == Value::Bool(true) {
        checks.push(check(
            "plugin",
            Status::Ok,
            format!(
                "{id} installed and enabled ({})",
                folder
                    .as_deref()
                    .map_or_else(|| "folder unknown".into(), |f| f.display().to_string())
            ),
            None,
        ));
        checks.extend(also_enabled(&plugins, id));
    } else {
        checks.push(check(
            "plugin",
            Status::Fail,
            format!("{id} is installed but disabled"),
            Some(format!("claude plugin enable {id}")),
        ));
    }
    folder
}

/// Another enabled plugin named notesoup (`scripts/install`'s `notesoup@notesoup-local`
/// beside the marketplace's `notesoup@notesoup`): Claude Code loads one hooks module of a
/// name and passes the other over ("another plugin of that name loads first"), so the
/// person's newer checkout, say, may not be the one running. A warning naming both.
fn also_enabled(plugins: &[Value], id: &str) -> Option<Check> {
    let enabled =
        |p: &&Value| p["enabled"] == Value::Bool(true) || p["projectEnabled"] == Value::Bool(true);
    let others: Vec<&str> = plugins
        .iter()
        .filter(enabled)
        .filter_map(|p| p["id"].as_str())
        .filter(|other| other.starts_with("notesoup@") && *other != id)
        .collect();
    let first = others.first()?;
    Some(check(
        "plugin",
        Status::Warn,
        format!(
            "{} notesoup plugins are enabled ({id}, {}): Claude Code runs the hooks of only one of them",
            others.len() + 1,
            others.join(", ")
        ),
        Some(format!(
            "keep one: claude plugin uninstall {first} (or claude plugin uninstall {id})"
        )),
    ))
}

/// The plugin's helper where its hooks module looks for it, in the same order
/// (`plugins/claude/hooks/notesoup.ts` `findHelper`): `bin/notesoup-helper` (a checkout's,
/// staged by `scripts/install`), else the one platform package npm installed beside a
/// plugin installed from npm (`node_modules/@notesoup/cli-<os>-<cpu>/bin/`).
fn plugin_helper(folder: &Path) -> PathBuf {
    let staged = folder.join("bin/notesoup-helper");
    if staged.exists() {
        return staged;
    }
    platform_helper(&folder.join("node_modules")).unwrap_or(staged)
}

/// The plugin's helper ([`plugin_helper`]), runnable, and the same version as this binary.
pub(super) fn helper_check(env: &Env, folder: Option<&Path>, checks: &mut Vec<Check>) {
    let Some(folder) = folder else {
        // The plugin's line failed already, with its fix.
        checks.push(check(
            "helper",
            Status::Skip,
            "not checked: the plugin's folder is unknown",
            None,
        ));
        return;
    };
    let helper = plugin_helper(folder);
    // A plugin installed from npm has a package.json; a checkout's is `<checkout>/plugins/claude`.
    let reinstall = "reinstall the plugin: `claude plugin install notesoup@notesoup` (npm brings the helper for this machine)";
    let checkout = folder
        .parent()
        .and_then(Path::parent)
        .and_then(super::checkout)
        .or_else(built_from);
    let fix = match checkout {
        Some(checkout) if !folder.join("package.json").exists() => format!(
            "run {}/scripts/install (it builds and stages the helper)",
            checkout.display()
        ),
        _ => reinstall.to_owned(),
    };
    let (helper, fix) = named_helper(env).unwrap_or((helper, fix));
    checks.push(helper_runs(env, "helper", &helper, fix));
}

/// How to install the plugin, with real paths: this notesoup's checkout's `scripts/install`
/// when it was built in one (and `--plugin-dir` once a helper is staged in its plugin: without
/// one that Claude starts with notesoup off), else the npm install.
fn install_plugin_fix() -> String {
    install_fix_for(built_from().as_deref())
}

/// [`install_plugin_fix`] for the checkout notesoup was built in, if any.
fn install_fix_for(checkout: Option<&Path>) -> String {
    match checkout {
        Some(checkout) if plugin_helper(&checkout.join("plugins/claude")).is_file() => format!(
            "run {0}/scripts/install (it installs the plugin read from {0}/plugins/claude), or start Claude with `claude --plugin-dir {0}/plugins/claude`",
            checkout.display()
        ),
        Some(checkout) => format!(
            "run {0}/scripts/install (it builds the helper and installs the plugin read from {0}/plugins/claude)",
            checkout.display()
        ),
        None => "install the plugin: `claude plugin install notesoup@notesoup`, once notesoup's marketplace is added (README, \"Install\")".to_owned(),
    }
}

/// Where `scripts/install` (through `scripts/get-claude`) keeps the Claude Code it fetched:
/// `${NOTESOUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/notesoup}/claude-code/<version>-linux-<cpu>/package/claude`.
fn fetched_claude(env: &Env) -> Option<PathBuf> {
    let cache = env
        .var_set("NOTESOUP_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            env.var_set("XDG_CACHE_HOME")
                .map(|d| Path::new(d).join("notesoup"))
        })
        .or_else(|| {
            env.var_set("HOME")
                .map(|h| Path::new(h).join(".cache/notesoup"))
        })?;
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        _ => return None,
    };
    Some(cache.join(format!(
        "claude-code/{CLAUDE_CODE_VERSION}-linux-{cpu}/package/claude"
    )))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

    use super::install_fix_for;

    /// `--plugin-dir` is offered only once the checkout's plugin has its helper: without it
    /// that Claude starts with notesoup off.
    #[test]
    fn plugin_dir_is_offered_only_with_a_staged_helper() {
        let checkout =
            std::env::temp_dir().join(format!("notesoup-install-fix-{}", std::process::id()));
        let bin = checkout.join("plugins/claude/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let fix = install_fix_for(Some(&checkout));
        assert!(
            fix.contains("scripts/install (it builds the helper"),
            "{fix}"
        );
        assert!(!fix.contains("--plugin-dir"), "{fix}");
        std::fs::write(bin.join("notesoup-helper"), "").unwrap();
        let fix = install_fix_for(Some(&checkout));
        assert!(fix.contains("--plugin-dir"), "{fix}");
        let _ = std::fs::remove_dir_all(&checkout);
        assert!(install_fix_for(None).contains("claude plugin install notesoup@notesoup"));
    }
}
