//! Setting up a run of the real Claude Code: where the binary, plugin and helper come
//! from, the isolated home and config, the environment, and how the session is driven.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;

use crate::E2eError;
use crate::drive::{RunCtx, path_str};
use crate::mode::Mode;
use crate::outcome::{CollectArgs, Outcome};
use crate::sandbox;
use crate::script::Script;
use crate::service::Service;

/// The fake key; its last 20 characters are pre-approved in `.claude.json`.
const API_KEY: &str = "sk-ant-fake-notesoup-e2e-key-000000000000";
/// Where anything that is not loopback goes: a dead local port.
const DEAD_PROXY: &str = "http://127.0.0.1:9";

/// Where the real Claude Code, the plugin and the helper come from.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The Claude Code 2.1.319 binary.
    pub claude: PathBuf,
    /// The plugin folder that is copied into every run (`plugins/claude`).
    pub plugin_src: PathBuf,
    /// The `notesoup-helper` binary staged into the copy's `bin/`, when found.
    pub helper: Option<PathBuf>,
    /// The repository root.
    pub repo: PathBuf,
}

impl Harness {
    /// Resolves everything from the environment, with the repository's defaults:
    /// `NOTESOUP_E2E_CLAUDE` (else `scripts/get-claude`), `NOTESOUP_E2E_PLUGIN_DIR`
    /// (else `plugins/claude`), `NOTESOUP_E2E_HELPER` (else the freshest build:
    /// `$CARGO_TARGET_DIR/release`, then `target/release`, then the plugin's own `bin/`).
    pub fn from_env() -> Result<Self, E2eError> {
        let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
        Self::resolve(
            var("NOTESOUP_E2E_CLAUDE"),
            var("NOTESOUP_E2E_PLUGIN_DIR"),
            var("NOTESOUP_E2E_HELPER"),
        )
    }

    /// Like [`Harness::from_env`], with explicit choices taking the place of the variables.
    pub fn resolve(
        claude: Option<PathBuf>,
        plugin_dir: Option<PathBuf>,
        helper: Option<PathBuf>,
    ) -> Result<Self, E2eError> {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let claude = if let Some(path) = claude {
            path
        } else {
            let script = repo.join("scripts/get-claude");
            let out = Command::new(&script)
                .stderr(Stdio::inherit())
                .output()
                .map_err(|e| E2eError::io(&script.display().to_string(), e))?;
            if !out.status.success() {
                return Err(E2eError::Setup(format!(
                    "{} failed ({})",
                    script.display(),
                    out.status
                )));
            }
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        };
        if !claude.is_file() {
            return Err(E2eError::Setup(format!(
                "no Claude Code binary at {}",
                claude.display()
            )));
        }
        let plugin_src = plugin_dir.unwrap_or_else(|| repo.join("plugins/claude"));
        let helper = if let Some(path) = helper {
            Some(path)
        } else {
            let mut candidates = Vec::new();
            if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
                candidates.push(PathBuf::from(dir).join("release/notesoup-helper"));
            }
            candidates.push(repo.join("target/release/notesoup-helper"));
            candidates.push(plugin_src.join("bin/notesoup-helper"));
            candidates.into_iter().find(|p| p.is_file())
        };
        Ok(Self {
            claude,
            plugin_src,
            helper,
            repo,
        })
    }

    /// A new session named `name` (the run dir is named after it) answered by `script`.
    pub fn session(&self, name: &str, script: Script) -> Session<'_> {
        Session {
            harness: self,
            name: name.to_owned(),
            script,
            plugin: true,
            env: Vec::new(),
            args: Vec::new(),
            timeout: Duration::from_secs(120),
            run_dir: fresh_run_dir(name),
            files: Vec::new(),
        }
    }
}

/// A session about to run; configure it, then call [`Session::run`].
pub struct Session<'h> {
    harness: &'h Harness,
    name: String,
    script: Script,
    plugin: bool,
    env: Vec<(String, String)>,
    args: Vec<String>,
    timeout: Duration,
    run_dir: PathBuf,
    files: Vec<(PathBuf, Vec<u8>)>,
}

impl Session<'_> {
    /// Runs without `--plugin-dir`.
    #[must_use]
    pub fn without_plugin(mut self) -> Self {
        self.plugin = false;
        self
    }

    /// Adds an environment variable for Claude Code.
    #[must_use]
    pub fn env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Adds command-line arguments for Claude Code.
    #[must_use]
    pub fn args(mut self, args: &[&str]) -> Self {
        self.args.extend(args.iter().map(|a| (*a).to_owned()));
        self
    }

    /// The wall-clock limit for the whole session (default 120 s).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Uses this run dir instead of a fresh one under the temp dir.
    #[must_use]
    pub fn run_dir(mut self, dir: &Path) -> Self {
        dir.clone_into(&mut self.run_dir);
        self
    }

    /// The session's cwd (inside the run dir), known before it runs.
    pub fn work_dir(&self) -> PathBuf {
        self.run_dir.join("work")
    }

    /// Writes a file (path relative to the work dir) before the session starts.
    #[must_use]
    pub fn file(mut self, relative: &str, contents: impl Into<Vec<u8>>) -> Self {
        self.files.push((PathBuf::from(relative), contents.into()));
        self
    }

    /// Runs the session to its end and collects what it left.
    pub fn run(self, mode: &Mode) -> Result<Outcome, E2eError> {
        let run = self.run_dir.clone();
        let home = run.join("home");
        let config = home.join(".claude");
        let work = run.join("work");
        let notes_home = run.join("notesoup-home");
        for dir in [&config, &work, &notes_home, &run.join("screens")] {
            fs::create_dir_all(dir).map_err(|e| E2eError::io(&dir.display().to_string(), e))?;
        }
        self.write_files(&work)?;
        let plugin = if self.plugin {
            Some(self.stage_plugin(&run)?)
        } else {
            None
        };
        seed_config(&config, &work)?;
        let slack = Duration::from_secs(30);
        let service = Service::start(
            self.script.clone(),
            &run.join("requests.jsonl"),
            self.timeout + slack,
        )?;

        let mut env: Vec<(String, String)> = vec![
            (
                "PATH".into(),
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            ),
            ("HOME".into(), path_str(&home)),
            ("CLAUDE_CONFIG_DIR".into(), path_str(&config)),
            ("TERM".into(), "xterm-256color".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("USER".into(), "e2e".into()),
            ("SHELL".into(), "/bin/bash".into()),
            ("TMPDIR".into(), std::env::temp_dir().display().to_string()),
            ("ANTHROPIC_BASE_URL".into(), service.base_url()),
            ("ANTHROPIC_API_KEY".into(), API_KEY.into()),
            ("NOTESOUP_HOME".into(), path_str(&notes_home)),
            ("NOTESOUP_LOG".into(), path_str(&run.join("mod.log"))),
        ];
        for name in [
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
            "DISABLE_TELEMETRY",
            "DISABLE_AUTOUPDATER",
            "DISABLE_ERROR_REPORTING",
            "DISABLE_BUG_COMMAND",
            "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY",
            "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL",
        ] {
            env.push((name.into(), "1".into()));
        }
        for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
            env.push((name.into(), DEAD_PROXY.into()));
        }
        for name in ["NO_PROXY", "no_proxy"] {
            env.push((name.into(), "127.0.0.1,localhost".into()));
        }
        env.extend(self.env.iter().cloned());

        let mut args: Vec<String> = Vec::new();
        if let Some(dir) = &plugin {
            args.extend(["--plugin-dir".into(), path_str(dir)]);
        }
        args.extend(["--debug-file".into(), path_str(&run.join("debug.log"))]);
        args.extend(self.args.iter().cloned());

        let confined = sandbox::confine(&run, &[service.addr()])?;
        let ctx = RunCtx {
            claude: &self.harness.claude,
            confined: confined.as_ref(),
            env: &env,
            args: &args,
            work: &work,
            run: &run,
            service: &service,
            deadline: Instant::now() + self.timeout,
        };
        let mut failures = Vec::new();
        let mut processes = Vec::new();
        let (exit_code, timed_out) = match mode {
            Mode::Processes(chain) => ctx.processes(chain, &mut processes, &mut failures)?,
            single => ctx.drive(single, &mut failures)?,
        };
        // Let the last request's log entry land before reading it.
        thread::sleep(Duration::from_millis(100));
        let mut service = service;
        service.stop();
        Ok(Outcome::collect(CollectArgs {
            name: self.name.clone(),
            mode: mode.label(),
            run,
            work,
            notes_home,
            config,
            requests: service.requests(),
            exit_code,
            timed_out,
            failures,
            processes,
        }))
    }

    /// Writes the files asked for with [`Session::file`] into the work dir.
    fn write_files(&self, work: &Path) -> Result<(), E2eError> {
        for (relative, contents) in &self.files {
            let path = work.join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .map_err(|e| E2eError::io(&parent.display().to_string(), e))?;
            }
            fs::write(&path, contents).map_err(|e| E2eError::io(&path.display().to_string(), e))?;
        }
        Ok(())
    }

    fn stage_plugin(&self, run: &Path) -> Result<PathBuf, E2eError> {
        let src = &self.harness.plugin_src;
        if !src.join(".claude-plugin/plugin.json").is_file() {
            return Err(E2eError::Setup(format!(
                "no plugin at {} (set NOTESOUP_E2E_PLUGIN_DIR)",
                src.display()
            )));
        }
        let dest = run
            .join("plugin")
            .join(src.file_name().unwrap_or_else(|| "claude".as_ref()));
        copy_tree(src, &dest)?;
        if let Some(helper) = &self.harness.helper {
            let bin = dest.join("bin");
            fs::create_dir_all(&bin).map_err(|e| E2eError::io(&bin.display().to_string(), e))?;
            let target = bin.join("notesoup-helper");
            if target != *helper {
                fs::copy(helper, &target)
                    .map_err(|e| E2eError::io(&helper.display().to_string(), e))?;
            }
        }
        Ok(dest)
    }
}

/// A fresh run dir for `name`: under `NOTESOUP_E2E_RUNS`, else `<tmp>/notesoup-e2e`.
pub fn fresh_run_dir(name: &str) -> PathBuf {
    let base = std::env::var_os("NOTESOUP_E2E_RUNS")
        .map_or_else(|| std::env::temp_dir().join("notesoup-e2e"), PathBuf::from);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    base.join(format!("{name}-{}-{nanos:09}", std::process::id()))
}

fn copy_tree(src: &Path, dest: &Path) -> Result<(), E2eError> {
    fs::create_dir_all(dest).map_err(|e| E2eError::io(&dest.display().to_string(), e))?;
    let entries = fs::read_dir(src).map_err(|e| E2eError::io(&src.display().to_string(), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| E2eError::io(&src.display().to_string(), e))?;
        let from = entry.path();
        let to = dest.join(entry.file_name());
        let kind = entry
            .file_type()
            .map_err(|e| E2eError::io(&from.display().to_string(), e))?;
        if kind.is_dir() {
            // Engine-written files from an earlier in-place session are not part of the plugin.
            if entry.file_name() == "node_modules" {
                continue;
            }
            copy_tree(&from, &to)?;
        } else {
            fs::copy(&from, &to).map_err(|e| E2eError::io(&from.display().to_string(), e))?;
        }
    }
    Ok(())
}

/// Onboarding done, the work dir trusted, the fake key approved.
fn seed_config(config: &Path, work: &Path) -> Result<(), E2eError> {
    let key_tail: String = API_KEY.chars().skip(API_KEY.len() - 20).collect();
    let mut projects = serde_json::Map::new();
    projects.insert(
        path_str(work),
        json!({"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []}),
    );
    let cfg = json!({
        "hasCompletedOnboarding": true,
        "theme": "dark",
        "numStartups": 1,
        "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
        "projects": projects,
    });
    let path = config.join(".claude.json");
    fs::write(&path, format!("{cfg:#}\n")).map_err(|e| E2eError::io(&path.display().to_string(), e))
}
