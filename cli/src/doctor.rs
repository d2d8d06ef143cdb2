//! `notesoup doctor`: every check a person would otherwise do by hand, one line each
//! (ok / warn / fail) with the fix; the exit status is 1 when one fails.

use notesoup_app::history::SessionsArgs;

use crate::docs::{CheckRow, DoctorDoc, Folder, SessionsDetail};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

use notesoup_history_store::{Corpus, Roots};
use notesoup_thresholds::{NOTESOUP_DISABLED, margins, notesoup_disabled};
use notesoup_window::Host;
use serde_json::Value;

use crate::limits::{merged, policy, policy_env, settings_files};
use crate::term::{Out, Paint};
use crate::{CLAUDE_CODE_VERSION, EXIT_FAILED, EXIT_OK, Env};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
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
    settings_check(env, &mut checks);
    switches_check(env, &mut checks);
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    if out.json {
        out.json_doc(&DoctorDoc {
            ok: !failed,
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
        let summary = if failed {
            out.paint(Paint::Fail, "Something failed: see the fix lines above.")
        } else {
            out.paint(Paint::Ok, "Nothing failed.")
        };
        out.line(summary);
    }
    if failed { EXIT_FAILED } else { EXIT_OK }
}

/// A process started with exactly the captured environment.
fn process(program: &Path, env: &Env) -> Process {
    let mut p = Process::new(program);
    p.env_clear()
        .envs(env.vars_iter())
        .current_dir(env.cwd())
        .stdin(Stdio::null());
    p
}

/// `name` on the `PATH` the environment names: the first executable file.
fn on_path(env: &Env, name: &str) -> Option<PathBuf> {
    std::env::split_paths(env.var("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Claude Code found (`$CLAUDE`, else `claude` on PATH) and its version the one notesoup
/// targets. Returns the binary.
fn claude_check(env: &Env, checks: &mut Vec<Check>) -> Option<PathBuf> {
    let Some(bin) = env
        .var_set("CLAUDE")
        .map(PathBuf::from)
        .or_else(|| on_path(env, "claude"))
    else {
        checks.push(check(
            "claude",
            Status::Fail,
            "Claude Code not found: no `claude` on PATH and CLAUDE is not set",
            Some(format!(
                "install Claude Code {CLAUDE_CODE_VERSION} (npm install -g @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}), or set CLAUDE=/path/to/claude"
            )),
        ));
        return None;
    };
    let output = process(&bin, env).arg("--version").output();
    let version = match output {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Ok(o) => {
            checks.push(check(
                "claude",
                Status::Fail,
                format!("{} --version failed ({})", bin.display(), o.status),
                Some("reinstall Claude Code, or set CLAUDE to a working binary".into()),
            ));
            return None;
        }
        Err(err) => {
            checks.push(check(
                "claude",
                Status::Fail,
                format!("{} could not be run: {err}", bin.display()),
                Some("reinstall Claude Code, or set CLAUDE to a working binary".into()),
            ));
            return None;
        }
    };
    let number = version.split_whitespace().next().unwrap_or_default();
    if number == CLAUDE_CODE_VERSION {
        checks.push(check(
            "claude",
            Status::Ok,
            format!("Claude Code {number} at {}", bin.display()),
            None,
        ));
    } else {
        checks.push(check(
            "claude",
            Status::Warn,
            format!(
                "Claude Code {number} at {}: notesoup is built and tested against {CLAUDE_CODE_VERSION}",
                bin.display()
            ),
            Some(format!(
                "npm install -g @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} (hooks modules and the transcript format change between versions)"
            )),
        ));
    }
    Some(bin)
}

/// The plugin installed and enabled (`claude plugin list --json`), or named by
/// `CLAUDE_CODE_PLUGIN_DIRS`. Returns the plugin's folder.
fn plugin_check(env: &Env, claude: Option<&Path>, checks: &mut Vec<Check>) -> Option<PathBuf> {
    let fix_install = "from a notesoup checkout run `scripts/install`, or start Claude with `claude --plugin-dir <checkout>/plugins/claude`";
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
        checks.push(check(
            "plugin",
            Status::Fail,
            "not checked: Claude Code was not found",
            Some(fix_install.into()),
        ));
        return None;
    };
    let listed = process(claude, env)
        .args(["plugin", "list", "--json"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok());
    let Some(Value::Array(plugins)) = listed else {
        checks.push(check(
            "plugin",
            Status::Fail,
            format!("`{} plugin list --json` gave no list", claude.display()),
            Some(fix_install.into()),
        ));
        return None;
    };
    let ours = plugins.iter().find(|p| {
        p["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("notesoup@"))
    });
    let Some(plugin) = ours else {
        checks.push(check(
            "plugin",
            Status::Fail,
            "the notesoup plugin is not installed in Claude Code",
            Some(fix_install.into()),
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

/// The plugin's helper where its hooks module looks for it, in the same order
/// (`plugins/claude/hooks/notesoup.ts` `findHelper`): `bin/notesoup-helper` (a checkout's,
/// staged by `scripts/install`), else the one platform package npm installed beside a
/// plugin installed from npm (`node_modules/@notesoup/cli-<os>-<cpu>/bin/`).
fn plugin_helper(folder: &Path) -> PathBuf {
    let staged = folder.join("bin/notesoup-helper");
    if staged.exists() {
        return staged;
    }
    let scope = folder.join("node_modules/@notesoup");
    let mut platforms: Vec<PathBuf> = std::fs::read_dir(&scope)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cli-"))
        .map(|e| e.path().join("bin/notesoup-helper"))
        .filter(|p| p.exists())
        .collect();
    platforms.sort();
    platforms.into_iter().next().unwrap_or(staged)
}

/// The plugin's helper ([`plugin_helper`]), runnable, and the same version as this binary.
fn helper_check(env: &Env, folder: Option<&Path>, checks: &mut Vec<Check>) {
    let Some(folder) = folder else {
        checks.push(check(
            "helper",
            Status::Warn,
            "not checked: the plugin's folder is unknown",
            None,
        ));
        return;
    };
    let helper = plugin_helper(folder);
    // A plugin installed from npm has a package.json; a checkout's folder is the repository's.
    let fix = Some(if folder.join("package.json").exists() {
        "reinstall the plugin: `claude plugin install notesoup@notesoup` (npm brings the helper for this machine)".to_owned()
    } else {
        "from the notesoup checkout run `scripts/install` (it builds and stages the helper)"
            .to_owned()
    });
    if !is_executable(&helper) {
        checks.push(check(
            "helper",
            Status::Fail,
            format!("{} is missing", helper.display()),
            fix,
        ));
        return;
    }
    let reply = process(&helper, env)
        .arg("version")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(b"{}");
            }
            child.wait_with_output()
        })
        .ok()
        .and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok());
    let ours = notesoup_app::VERSION;
    match reply.as_ref().and_then(|r| r["version"].as_str()) {
        Some(v) if v == ours => checks.push(check(
            "helper",
            Status::Ok,
            format!("{} runs, version {v}", helper.display()),
            None,
        )),
        Some(v) => checks.push(check(
            "helper",
            Status::Fail,
            format!(
                "{} is version {v}, this notesoup is {ours}",
                helper.display()
            ),
            fix,
        )),
        None => checks.push(check(
            "helper",
            Status::Fail,
            format!("{} did not answer `version`", helper.display()),
            fix,
        )),
    }
}

/// The notes home exists or can be made, and a file can be written in it.
fn notes_home_check(env: &Env, checks: &mut Vec<Check>) {
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
            Some("set NOTESOUP_HOME to a folder you can write (or move that file away)".into()),
        ));
        return;
    }
    let probe = root.join(format!(".doctor-{}", std::process::id()));
    let result = std::fs::create_dir_all(&root)
        .and_then(|()| std::fs::write(&probe, b"ok"))
        .and_then(|()| std::fs::remove_file(&probe));
    match result {
        Ok(()) => checks.push(check(
            "notes",
            Status::Ok,
            format!("notes home {} is writable", root.display()),
            None,
        )),
        Err(err) => checks.push(check(
            "notes",
            Status::Fail,
            format!("notes home {} is not writable: {err}", root.display()),
            Some("fix its permissions, or set NOTESOUP_HOME to a folder you can write".into()),
        )),
    }
}

/// Each harness's sessions, found the way the history tools find them, naming the folders
/// looked in (from `notesoup_history_store::Corpus::folders`, the history tools' own rule).
fn sessions_check(env: &Env, checks: &mut Vec<Check>) {
    let corpus = Corpus::new(Roots::default(), |name| env.var(name).map(str::to_owned));
    for harness in Host::HARNESSES {
        let listed = notesoup_app::history::sessions(
            &env.helper_context(),
            &SessionsArgs {
                harness: Some(harness.name().to_owned()),
                limit: Some(1),
                roots: None,
            },
        );
        let total = listed.map_or(0, |listed| listed.total);
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
                    "{name}: {total} session{} found; {looked}",
                    if total == 1 { "" } else { "s" }
                ),
                None,
            )
        } else {
            check(
                "sessions",
                Status::Warn,
                format!("{name}: no sessions found; {looked}"),
                Some(format!(
                    "fine if you do not use {name}; if its sessions are elsewhere set {} (`notesoup history --help` lists every folder rule)",
                    folder_variable(harness)
                )),
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

/// Claude's settings files parse, the `notesoup` margins are whole numbers, and the
/// policy resolves with them.
fn settings_check(env: &Env, checks: &mut Vec<Check>) {
    let files = match settings_files(env, env.cwd()) {
        Ok(files) => files,
        Err(err) => {
            checks.push(check("settings", Status::Fail, err.to_string(), err.fix()));
            return;
        }
    };
    let settings = merged(&files);
    let mut bad = false;
    for m in margins(Some(&settings)) {
        if !m.valid {
            bad = true;
            let raw = m.raw.map(|r| r.to_string()).unwrap_or_default();
            checks.push(check(
                "settings",
                Status::Fail,
                format!("notesoup.{} = {raw} is not a whole number of tokens: it is ignored and {} applies", m.name, m.tokens),
                Some(format!("write a whole number, e.g. \"notesoup\": {{\"{}\": {}}}", m.name, m.tokens)),
            ));
        }
    }
    let vars = policy_env(env, &files);
    if let Err(err) = policy(&settings, &vars, None, None, None) {
        bad = true;
        checks.push(check("settings", Status::Fail, err.to_string(), None));
    }
    if !bad {
        let found: Vec<String> = files
            .iter()
            .filter(|f| f.value.is_some())
            .map(|f| f.path.display().to_string())
            .collect();
        let values: Vec<String> = margins(Some(&settings))
            .iter()
            .map(|m| {
                format!(
                    "{} {}{}",
                    m.name,
                    m.tokens,
                    if m.raw.is_none() { " (default)" } else { "" }
                )
            })
            .collect();
        checks.push(check(
            "settings",
            Status::Ok,
            format!(
                "notesoup margins valid: {}; {}",
                values.join(", "),
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
fn switches_check(env: &Env, checks: &mut Vec<Check>) {
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
            None,
        )),
        _ => checks.push(check(
            "compact",
            Status::Ok,
            "DISABLE_COMPACT is not set",
            None,
        )),
    }
}
