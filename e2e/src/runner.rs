//! Starting the real Claude Code against the scripted service, and what a run leaves.

use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::E2eError;
use crate::script::{Request, Script, content_text};
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

/// One message fed to a stream-json session.
#[derive(Clone, Debug)]
pub enum Input {
    /// A user message; waits for its `result` line before going on.
    Message(String),
    /// A user message sent without waiting (it is delivered into the running turn).
    Send(String),
    /// A raw stream-json input line (e.g. an interrupt `control_request`), not waited for.
    Raw(Value),
    /// Waits (at most this long) for one more `result` line than waited for so far;
    /// a result that never comes is recorded as a driver failure and the run goes on.
    AwaitResult(Duration),
    /// Waits (at most 30 s) until the service has received at least this many requests.
    AfterRequests(usize),
    /// Waits until the service got no request for this long.
    Idle(Duration),
    /// Sleeps.
    Wait(Duration),
}

/// One step of an interactive (tmux) session.
#[derive(Clone, Debug)]
pub enum Step {
    /// Types text literally.
    Type(String),
    /// Sends tmux key names (`Enter`, `Escape`, `C-c`, ...), space separated.
    Key(String),
    /// Sleeps.
    Sleep(Duration),
    /// Waits until the screen matches the regex (recorded as a failure on timeout).
    WaitFor(String, Duration),
    /// Waits until the service got no request for this long.
    Idle(Duration),
    /// Waits (at most 30 s) until the service has received at least this many requests.
    AfterRequests(usize),
    /// Saves the screen under this name.
    Capture(String),
}

/// How the session is driven.
#[derive(Clone, Debug)]
pub enum Mode {
    /// `claude -p PROMPT`.
    Print(String),
    /// `claude -p FIRST`, then `claude -p NEXT --continue` for each later prompt (same
    /// session, so a command can run while the session is idle with context behind it).
    PrintContinued(Vec<String>),
    /// `claude -p --input-format stream-json --output-format stream-json --verbose`.
    StreamJson(Vec<Input>),
    /// The interactive TUI in a tmux pane.
    Tmux(Vec<Step>),
}

impl Mode {
    fn label(&self) -> &'static str {
        match self {
            Self::Print(_) | Self::PrintContinued(_) => "print",
            Self::StreamJson(_) => "stream-json",
            Self::Tmux(_) => "tmux",
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
        for (relative, contents) in &self.files {
            let path = work.join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .map_err(|e| E2eError::io(&parent.display().to_string(), e))?;
            }
            fs::write(&path, contents).map_err(|e| E2eError::io(&path.display().to_string(), e))?;
        }
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

        let ctx = RunCtx {
            claude: &self.harness.claude,
            env: &env,
            args: &args,
            work: &work,
            run: &run,
            service: &service,
            deadline: Instant::now() + self.timeout,
        };
        let mut failures = Vec::new();
        let (exit_code, timed_out) = match mode {
            Mode::Print(prompt) => ctx.print(std::slice::from_ref(prompt))?,
            Mode::PrintContinued(prompts) => ctx.print(prompts)?,
            Mode::StreamJson(inputs) => ctx.stream_json(inputs, &mut failures)?,
            Mode::Tmux(steps) => ctx.tmux(steps, &mut failures)?,
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
        }))
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

fn path_str(path: &Path) -> String {
    path.display().to_string()
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

struct RunCtx<'a> {
    claude: &'a Path,
    env: &'a [(String, String)],
    args: &'a [String],
    work: &'a Path,
    run: &'a Path,
    service: &'a Service,
    deadline: Instant,
}

impl RunCtx<'_> {
    fn command(&self) -> Command {
        let mut cmd = Command::new(self.claude);
        cmd.env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.work)
            // Its own process group, so a timeout ends claude and everything it started.
            .process_group(0);
        cmd
    }

    fn file(&self, name: &str) -> Result<fs::File, E2eError> {
        let path = self.run.join(name);
        fs::File::create(&path).map_err(|e| E2eError::io(&path.display().to_string(), e))
    }

    /// One `claude -p` per prompt in the same HOME and cwd; every prompt after the first
    /// resumes the session with `--continue`. Output is appended; the last exit counts.
    fn print(&self, prompts: &[String]) -> Result<(Option<i32>, bool), E2eError> {
        let (stdout, stderr) = (self.file("stdout")?, self.file("stderr")?);
        let mut last = (None, false);
        for (i, prompt) in prompts.iter().enumerate() {
            let mut cmd = self.command();
            cmd.arg("-p").arg(prompt);
            if i > 0 {
                cmd.arg("--continue");
            }
            cmd.args(self.args);
            let out = stdout.try_clone().map_err(|e| E2eError::io("stdout", e))?;
            let err = stderr.try_clone().map_err(|e| E2eError::io("stderr", e))?;
            cmd.stdin(Stdio::null()).stdout(out).stderr(err);
            let child = cmd
                .spawn()
                .map_err(|e| E2eError::io(&self.claude.display().to_string(), e))?;
            last = wait_bounded(child, self.deadline);
            if last.1 {
                break;
            }
        }
        Ok(last)
    }

    fn stream_json(
        &self,
        inputs: &[Input],
        failures: &mut Vec<String>,
    ) -> Result<(Option<i32>, bool), E2eError> {
        let mut cmd = self.command();
        cmd.args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .args(self.args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(self.file("stderr")?);
        let mut child = cmd
            .spawn()
            .map_err(|e| E2eError::io(&self.claude.display().to_string(), e))?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(&mut child);
            return Err(E2eError::Setup("stream-json: no pipes".into()));
        };
        let (reader, rx) = spawn_result_reader(stdout, self.file("stdout")?);
        let mut results = 0usize;
        let mut expected = 0usize;
        let mut eof = false;
        let wait_results =
            |expected: usize, results: &mut usize, eof: &mut bool, until: Instant| -> bool {
                while *results < expected && !*eof {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return false;
                    }
                    match rx.recv_timeout(left) {
                        Ok(_) => *results += 1,
                        Err(mpsc::RecvTimeoutError::Timeout) => return false,
                        Err(mpsc::RecvTimeoutError::Disconnected) => *eof = true,
                    }
                }
                true
            };
        let mut in_time = true;
        for input in inputs {
            let line = match input {
                Input::Message(text) | Input::Send(text) => Some(
                    json!({"type": "user", "message": {"role": "user", "content": text}})
                        .to_string(),
                ),
                Input::Raw(value) => Some(value.to_string()),
                Input::AfterRequests(n) => {
                    if !wait_requests(self.service, *n, self.deadline) {
                        failures.push(format!("stream-json: fewer than {n} requests arrived"));
                    }
                    None
                }
                Input::Wait(d) => {
                    thread::sleep(*d);
                    None
                }
                Input::Idle(quiet) => {
                    wait_idle(self.service, *quiet, self.deadline);
                    None
                }
                Input::AwaitResult(limit) => {
                    expected += 1;
                    let until = (Instant::now() + *limit).min(self.deadline);
                    if !wait_results(expected, &mut results, &mut eof, until) {
                        failures.push(format!(
                            "stream-json: result {expected} did not come within {limit:?}"
                        ));
                        expected = results;
                    }
                    None
                }
            };
            let Some(line) = line else { continue };
            if writeln!(stdin, "{line}")
                .and_then(|()| stdin.flush())
                .is_err()
            {
                failures.push(format!(
                    "stream-json: claude closed its input before: {line}"
                ));
                break;
            }
            if matches!(input, Input::Message(_)) {
                expected += 1;
                if !wait_results(expected, &mut results, &mut eof, self.deadline) {
                    in_time = false;
                    break;
                }
            }
        }
        drop(stdin);
        let (code, timed_out) = wait_bounded(child, self.deadline);
        // The reader ends at claude's EOF; a panicked reader lost only the stdout copy.
        let _ = reader.join();
        if !in_time {
            failures.push(format!(
                "stream-json: {results} of {expected} results before the deadline"
            ));
        }
        Ok((code, timed_out || !in_time))
    }

    /// The pane's command: claude under `env -i`, then its exit code, then a pause so
    /// the last screen can still be read.
    fn write_pane_script(&self) -> Result<PathBuf, E2eError> {
        let script = self.run.join("session.sh");
        let mut text = String::from("#!/bin/sh\n");
        let _ = writeln!(text, "cd {}", sh_quote(&path_str(self.work)));
        text.push_str("env -i");
        for (k, v) in self.env {
            let _ = write!(text, " {}", sh_quote(&format!("{k}={v}")));
        }
        let _ = write!(text, " {}", sh_quote(&path_str(self.claude)));
        for a in self.args {
            let _ = write!(text, " {}", sh_quote(a));
        }
        let _ = writeln!(text, " 2>{}", sh_quote(&path_str(&self.run.join("stderr"))));
        text.push_str("echo \"[claude exited $?]\"\nsleep 600\n");
        fs::write(&script, text).map_err(|e| E2eError::io(&script.display().to_string(), e))?;
        Ok(script)
    }

    fn tmux(
        &self,
        steps: &[Step],
        failures: &mut Vec<String>,
    ) -> Result<(Option<i32>, bool), E2eError> {
        let sock = self.run.join("tmux.sock");
        let script = self.write_pane_script()?;
        let tmux = |args: &[&str]| -> Result<std::process::Output, E2eError> {
            let mut cmd = Command::new("tmux");
            cmd.arg("-S").arg(&sock).args(args);
            cmd.output()
                .map_err(|e| E2eError::io("tmux (install it: apt-get install -y tmux)", e))
        };
        let script_cmd = format!("sh {}", sh_quote(&path_str(&script)));
        let started = tmux(&[
            "new-session",
            "-d",
            "-s",
            "cc",
            "-x",
            "160",
            "-y",
            "50",
            &script_cmd,
        ])?;
        // From here on the server this run started is ended on every way out.
        let _server = TmuxServer { sock: sock.clone() };
        if !started.status.success() {
            return Err(E2eError::Setup(format!(
                "tmux new-session failed: {}",
                String::from_utf8_lossy(&started.stderr)
            )));
        }
        let screen = || -> String {
            tmux(&["capture-pane", "-p", "-t", "cc"])
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default()
        };
        let mut timed_out = false;
        for step in steps {
            if Instant::now() > self.deadline {
                timed_out = true;
                failures.push(format!("tmux: deadline passed before step {step:?}"));
                break;
            }
            match step {
                Step::Type(text) => {
                    tmux(&["send-keys", "-t", "cc", "-l", text])?;
                }
                Step::Key(keys) => {
                    let mut args = vec!["send-keys", "-t", "cc"];
                    args.extend(keys.split_whitespace());
                    tmux(&args)?;
                }
                Step::Sleep(d) => thread::sleep(*d),
                Step::WaitFor(pattern, limit) => {
                    let re = regex::Regex::new(pattern).map_err(|e| {
                        E2eError::Setup(format!("bad waitfor regex {pattern:?}: {e}"))
                    })?;
                    let until = (Instant::now() + *limit).min(self.deadline);
                    let mut seen = false;
                    while Instant::now() < until {
                        if re.is_match(&screen()) {
                            seen = true;
                            break;
                        }
                        thread::sleep(Duration::from_millis(250));
                    }
                    if !seen {
                        failures.push(format!("tmux: screen never matched {pattern:?}"));
                    }
                }
                Step::Idle(quiet) => wait_idle(self.service, *quiet, self.deadline),
                Step::AfterRequests(n) => {
                    if !wait_requests(self.service, *n, self.deadline) {
                        failures.push(format!("tmux: fewer than {n} requests arrived"));
                    }
                }
                Step::Capture(name) => {
                    let path = self.run.join("screens").join(format!("{name}.txt"));
                    fs::write(&path, screen())
                        .map_err(|e| E2eError::io(&path.display().to_string(), e))?;
                }
            }
        }
        let last = screen();
        let _ = fs::write(self.run.join("stdout"), &last);
        let _ = fs::write(self.run.join("screens/final.txt"), &last);
        let code = regex::Regex::new(r"\[claude exited (\d+)\]")
            .ok()
            .and_then(|re| re.captures(&last).and_then(|c| c[1].parse().ok()));
        if Instant::now() > self.deadline {
            timed_out = true;
        }
        Ok((code, timed_out))
    }
}

/// Copies claude's stdout to `out_file` and signals each `result` line.
fn spawn_result_reader(
    stdout: std::process::ChildStdout,
    mut out_file: fs::File,
) -> (thread::JoinHandle<()>, mpsc::Receiver<bool>) {
    let (tx, rx) = mpsc::channel::<bool>();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // The copy on disk is for people; losing it must not stop the run.
            let _ = writeln!(out_file, "{line}");
            let is_result = serde_json::from_str::<Value>(&line)
                .is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some("result"));
            if is_result && tx.send(true).is_err() {
                break;
            }
        }
    });
    (reader, rx)
}

/// The tmux server one run started (its own socket); dropping it ends the server and
/// the pane's processes with it.
struct TmuxServer {
    sock: PathBuf,
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.sock)
            .arg("kill-server")
            .output();
    }
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// How long an `AfterRequests` step waits at most (within the session's deadline).
const REQUESTS_WAIT: Duration = Duration::from_secs(30);

fn wait_requests(service: &Service, n: usize, deadline: Instant) -> bool {
    let deadline = deadline.min(Instant::now() + REQUESTS_WAIT);
    while service.request_count() < n {
        if Instant::now() > deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(50));
    }
    true
}

fn wait_idle(service: &Service, quiet: Duration, deadline: Instant) {
    let mut last = service.request_count();
    let mut since = Instant::now();
    while Instant::now() < deadline {
        thread::sleep(Duration::from_millis(200));
        let now = service.request_count();
        if now != last {
            last = now;
            since = Instant::now();
        } else if since.elapsed() >= quiet {
            return;
        }
    }
}

fn wait_bounded(mut child: Child, deadline: Instant) -> (Option<i32>, bool) {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (code_of(status), false),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(50)),
            _ => {
                kill_group(&mut child);
                return (None, true);
            }
        }
    }
}

fn code_of(status: ExitStatus) -> Option<i32> {
    status.code()
}

/// Kills the process group this harness started for `child` (and reaps `child`).
fn kill_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    // `kill` on our own group id: only what this run started.
    let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
    let _ = child.kill();
    let _ = child.wait();
}

/// One transcript file on disk.
#[derive(Clone, Debug)]
pub struct Transcript {
    /// Its path.
    pub path: PathBuf,
    /// Its rows (lines that are not JSON are skipped).
    pub rows: Vec<Value>,
}

impl Transcript {
    /// Whether this is a subagent's transcript.
    pub fn is_subagent(&self) -> bool {
        self.path.components().any(|c| c.as_os_str() == "subagents")
    }
}

struct CollectArgs {
    name: String,
    mode: &'static str,
    run: PathBuf,
    work: PathBuf,
    notes_home: PathBuf,
    config: PathBuf,
    requests: Vec<Value>,
    exit_code: Option<i32>,
    timed_out: bool,
    failures: Vec<String>,
}

/// Everything one session left behind. Printed in full when a scenario panics with it alive.
#[derive(Debug)]
pub struct Outcome {
    /// The scenario name.
    pub name: String,
    /// `print`, `stream-json` or `tmux`.
    pub mode: &'static str,
    /// The run dir (kept on failure or with `NOTESOUP_E2E_KEEP=1`).
    pub run_dir: PathBuf,
    /// The session's cwd.
    pub work: PathBuf,
    /// `NOTESOUP_HOME` for the session: where its notes are.
    pub notes_home: PathBuf,
    /// Claude's exit code (`None` when killed or unknown).
    pub exit_code: Option<i32>,
    /// Whether the session hit its deadline.
    pub timed_out: bool,
    /// Driver problems (a screen never matched, a result never came).
    pub failures: Vec<String>,
    /// Every request the service got, in arrival order.
    pub requests: Vec<Value>,
    /// The transcripts under the config dir's `projects/`.
    pub transcripts: Vec<Transcript>,
    /// What the session printed (the final screen in tmux mode).
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// The engine's `--debug-file` log.
    pub debug_log: String,
    /// The mod's log: `NOTESOUP_LOG` plus the debug-log lines that mention notesoup.
    pub mod_log: String,
    keep: bool,
}

impl Outcome {
    fn collect(a: CollectArgs) -> Self {
        let read = |p: &Path| fs::read_to_string(p).unwrap_or_default();
        let mut transcripts = Vec::new();
        collect_jsonl(&a.config.join("projects"), &mut transcripts);
        transcripts.sort_by(|x, y| x.path.cmp(&y.path));
        let debug_log = read(&a.run.join("debug.log"));
        let mut mod_log = read(&a.run.join("mod.log"));
        // The mod's own lines and the engine's lines about it, without MCP transport chatter.
        let ours = |l: &&str| {
            l.contains("notesoup")
                && !l.contains("MCP server \"notesoup\"")
                && !l.contains("[MCP] Server \"notesoup\"")
        };
        for line in debug_log.lines().filter(ours) {
            mod_log.push_str(line);
            mod_log.push('\n');
        }
        let mut requests = a.requests;
        requests.sort_by_key(|r| r.get("n").and_then(Value::as_u64).unwrap_or(0));
        Self {
            name: a.name,
            mode: a.mode,
            stdout: read(&a.run.join("stdout")),
            stderr: read(&a.run.join("stderr")),
            run_dir: a.run,
            work: a.work,
            notes_home: a.notes_home,
            exit_code: a.exit_code,
            timed_out: a.timed_out,
            failures: a.failures,
            requests,
            transcripts,
            debug_log,
            mod_log,
            keep: std::env::var_os("NOTESOUP_E2E_KEEP").is_some(),
        }
    }

    /// Keeps the run dir after this outcome is dropped.
    pub fn keep(&mut self) {
        self.keep = true;
    }

    /// The `POST /v1/messages` bodies, in arrival order.
    pub fn message_bodies(&self) -> Vec<&Value> {
        self.requests
            .iter()
            .filter(|r| {
                r.get("path")
                    .and_then(Value::as_str)
                    .is_some_and(|p| p.split('?').next().unwrap_or("").ends_with("/v1/messages"))
            })
            .filter_map(|r| r.get("body"))
            .collect()
    }

    /// The message requests as views.
    pub fn message_requests(&self) -> Vec<Request<'_>> {
        self.message_bodies()
            .into_iter()
            .map(Request::new)
            .collect()
    }

    /// The message requests that are not compaction (summary) requests.
    pub fn model_turn_requests(&self) -> Vec<Request<'_>> {
        self.message_requests()
            .into_iter()
            .filter(|r| !r.is_compaction())
            .collect()
    }

    /// Rows of the main (non-subagent) transcripts, file by file.
    pub fn main_rows(&self) -> Vec<&Value> {
        self.transcripts
            .iter()
            .filter(|t| !t.is_subagent())
            .flat_map(|t| t.rows.iter())
            .collect()
    }

    /// The stream-json (or `--output-format json`) lines of stdout that parse as JSON.
    pub fn stdout_json(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// A plain account of the run: requests (one line each; whole entries with
    /// `NOTESOUP_E2E_FULL_LOG=1`), driver failures, the mod's log, stderr and stdout tails,
    /// and where everything is.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "=== e2e scenario {} ({}): exit {:?}{}; run dir {}",
            self.name,
            self.mode,
            self.exit_code,
            if self.timed_out { ", TIMED OUT" } else { "" },
            self.run_dir.display()
        );
        let _ = writeln!(
            s,
            "--- request log ({} requests; full bodies in {})",
            self.requests.len(),
            self.run_dir.join("requests.jsonl").display()
        );
        let full = std::env::var_os("NOTESOUP_E2E_FULL_LOG").is_some();
        for r in &self.requests {
            if full {
                let _ = writeln!(s, "{r}");
            } else {
                let _ = writeln!(s, "{}", summarize_request(r));
            }
        }
        if !self.failures.is_empty() {
            let _ = writeln!(s, "--- driver failures");
            for f in &self.failures {
                let _ = writeln!(s, "{f}");
            }
        }
        // The mod's own lines first (its `$.ui.log` and NOTESOUP_LOG), then the tail of
        // the engine's lines about it (loads, hooks settling, process runs, refusals).
        let (own, engine): (Vec<&str>, Vec<&str>) = self
            .mod_log
            .lines()
            .partition(|l| l.contains("[notesoup]") || !l.contains("[DEBUG]"));
        let _ = writeln!(s, "--- mod log: the mod's own lines ({})", own.len());
        s.push_str(&tail(&own.join("\n"), 200));
        let _ = writeln!(
            s,
            "--- mod log: the engine's lines about the mod (last 60 of {}; all in {})",
            engine.len(),
            self.run_dir.join("debug.log").display()
        );
        s.push_str(&tail(&engine.join("\n"), 60));
        let _ = writeln!(s, "--- stderr (tail)");
        s.push_str(&tail(&self.stderr, 40));
        let _ = writeln!(s, "--- stdout (tail)");
        s.push_str(&tail(&self.stdout, 40));
        let _ = writeln!(s, "--- transcripts");
        for t in &self.transcripts {
            let _ = writeln!(s, "{} ({} rows)", t.path.display(), t.rows.len());
        }
        s
    }
}

impl Drop for Outcome {
    fn drop(&mut self) {
        if thread::panicking() {
            // The test harness shows this beside the failed assertion.
            #[allow(
                clippy::print_stderr,
                reason = "a failing scenario must print its request log and the mod's log"
            )]
            {
                eprintln!("{}", self.report());
            }
            return;
        }
        if !self.keep {
            let _ = fs::remove_dir_all(&self.run_dir);
        }
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    let mut out = all[start..].join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn clip(text: &str, max: usize) -> String {
    let flat = text.replace('\n', "⏎");
    if flat.chars().count() <= max {
        return flat;
    }
    let head: String = flat.chars().take(max).collect();
    format!("{head}…")
}

fn summarize_request(r: &Value) -> String {
    let n = r.get("n").and_then(Value::as_u64).unwrap_or(0);
    let path = r.get("path").and_then(Value::as_str).unwrap_or("");
    let who = r.get("answered_by").and_then(Value::as_str).unwrap_or("");
    let status = r.get("status").and_then(Value::as_u64).unwrap_or(0);
    let Some(body) = r.get("body").filter(|b| b.is_object()) else {
        return format!("#{n} {path} → {who} {status}");
    };
    let req = Request::new(body);
    let tools = req.tool_names();
    let ours = tools
        .iter()
        .filter(|t| t.starts_with("mcp__notesoup__"))
        .count();
    let reply = r
        .get("reply")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("tool_use") => format!(
                        "tool_use {}",
                        b.get("name").and_then(Value::as_str).unwrap_or("?")
                    ),
                    Some("text") => format!(
                        "text {:?}",
                        clip(b.get("text").and_then(Value::as_str).unwrap_or(""), 60)
                    ),
                    Some(other) => other.to_owned(),
                    None => "?".to_owned(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let last = req
        .user_messages()
        .last()
        .map(|m| content_text(m.get("content")))
        .unwrap_or_default();
    format!(
        "#{n} {path} → {who} {status} | {} msgs, {} tools ({ours} notesoup){} | last user: {} | reply: {reply}",
        req.messages().len(),
        tools.len(),
        if req.is_compaction() {
            ", COMPACTION"
        } else {
            ""
        },
        clip(&last, 160),
    )
}

fn collect_jsonl(dir: &Path, out: &mut Vec<Transcript>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_jsonl(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            let rows = fs::read_to_string(&path)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            out.push(Transcript { path, rows });
        }
    }
}
