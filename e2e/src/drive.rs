//! Driving one run of the real Claude Code: `-p` processes, a stream-json pipe or a tmux
//! pane, each bounded by the session's deadline.

use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::E2eError;
use crate::mode::{Input, Mode, Process, Resume, Step};
use crate::outcome::ProcessRun;
use crate::sandbox::{Confined, install_root};
use crate::service::Service;

#[derive(Clone, Copy)]
pub(crate) struct RunCtx<'a> {
    pub(crate) claude: &'a Path,
    /// The run's sandbox (`None` where the machine has none: see `crate::sandbox`).
    pub(crate) confined: Option<&'a Confined>,
    pub(crate) env: &'a [(String, String)],
    pub(crate) args: &'a [String],
    pub(crate) work: &'a Path,
    pub(crate) run: &'a Path,
    pub(crate) service: &'a Service,
    pub(crate) deadline: Instant,
}

impl RunCtx<'_> {
    /// Runs one session driven by `mode` (not a chain).
    pub(crate) fn drive(
        &self,
        mode: &Mode,
        failures: &mut Vec<String>,
    ) -> Result<(Option<i32>, bool), E2eError> {
        match mode {
            Mode::Print(prompt) => self.print(std::slice::from_ref(prompt)),
            Mode::PrintContinued(prompts) => self.print(prompts),
            Mode::StreamJson(inputs) => self.stream_json(inputs, failures),
            Mode::Tmux(steps) => self.tmux(steps, failures),
            Mode::Processes(_) => Err(E2eError::Setup(
                "a process of a chain cannot be a chain itself".into(),
            )),
        }
    }

    /// Runs `chain` one process after another, each with `--resume`/`--fork-session` of
    /// an earlier one's session as it asks; records what each was in `runs`. Every
    /// process's stdout and stderr are kept (`stdout.<i>`) and joined in order.
    pub(crate) fn processes(
        &self,
        chain: &[Process],
        runs: &mut Vec<ProcessRun>,
        failures: &mut Vec<String>,
    ) -> Result<(Option<i32>, bool), E2eError> {
        let mut last = (None, false);
        let (mut stdout, mut stderr) = (String::new(), String::new());
        for (i, process) in chain.iter().enumerate() {
            let mut args: Vec<String> = self.args.to_vec();
            let of = |j: usize| -> Result<String, E2eError> {
                runs.get(j)
                    .filter(|_| j < i)
                    .and_then(|r: &ProcessRun| r.session_id.clone())
                    .ok_or_else(|| {
                        E2eError::Setup(format!(
                            "process {i} resumes process {j}'s session, which is unknown"
                        ))
                    })
            };
            match process.session {
                Resume::New => {}
                Resume::Of(j) => args.extend(["--resume".into(), of(j)?]),
                Resume::ForkOf(j) => {
                    args.extend(["--resume".into(), of(j)?, "--fork-session".into()]);
                }
            }
            let first_request = self.service.request_count() as u64 + 1;
            let ctx = RunCtx {
                args: &args,
                ..*self
            };
            last = ctx.drive(&process.mode, failures)?;
            // Let the last request's log entry land before reading it.
            thread::sleep(Duration::from_millis(100));
            let session_id = self
                .service
                .requests()
                .iter()
                .filter(|r| r.get("n").and_then(Value::as_u64).unwrap_or(0) >= first_request)
                .find_map(|r| {
                    r.pointer("/headers/x-claude-code-session-id")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                });
            runs.push(ProcessRun {
                first_request,
                session_id,
                exit_code: last.0,
            });
            for (name, all) in [("stdout", &mut stdout), ("stderr", &mut stderr)] {
                let from = self.run.join(name);
                all.push_str(&fs::read_to_string(&from).unwrap_or_default());
                let _ = fs::rename(&from, self.run.join(format!("{name}.{i}")));
            }
            if last.1 {
                break;
            }
        }
        for (name, all) in [("stdout", &stdout), ("stderr", &stderr)] {
            let path = self.run.join(name);
            fs::write(&path, all).map_err(|e| E2eError::io(&path.display().to_string(), e))?;
        }
        Ok(last)
    }

    /// Claude Code, inside the run's sandbox when there is one.
    fn command(&self) -> Command {
        let mut cmd = match self.confined {
            Some(confined) => confined.command(self.claude, &[&install_root(self.claude)]),
            None => Command::new(self.claude),
        };
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
    pub(crate) fn print(&self, prompts: &[String]) -> Result<(Option<i32>, bool), E2eError> {
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

    pub(crate) fn stream_json(
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

    pub(crate) fn tmux(
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
        // In a sandbox the server is started inside it, so every pane it forks is too
        // (the socket is a file: a server outside would run anything asked of it outside).
        let mut server = TmuxServer::start(self, &sock)?;
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
        if !started.status.success() {
            server.end();
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
                Step::Touch(file) => {
                    let path = self.run.join("plugin").join(file);
                    let mut text = fs::read(&path)
                        .map_err(|e| E2eError::io(&path.display().to_string(), e))?;
                    text.push(b'\n');
                    fs::write(&path, text)
                        .map_err(|e| E2eError::io(&path.display().to_string(), e))?;
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

/// The tmux server one run started (its own socket; in a sandbox, the sandbox's process
/// that runs it); dropping it ends the server and the pane's processes with it.
struct TmuxServer {
    sock: PathBuf,
    child: Option<Child>,
}

impl TmuxServer {
    /// In a sandbox, its server started inside it; else nothing yet (`new-session`
    /// starts one).
    fn start(ctx: &RunCtx<'_>, sock: &Path) -> Result<Self, E2eError> {
        let child = match ctx.confined {
            Some(confined) => Some(start_sandboxed_tmux(confined, sock, ctx)?),
            None => None,
        };
        Ok(Self {
            sock: sock.to_owned(),
            child,
        })
    }

    fn end(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.sock)
            .arg("kill-server")
            .output();
        if let Some(mut child) = self.child.take() {
            kill_group(&mut child);
        }
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        self.end();
    }
}

/// How long a sandboxed tmux server may take to make its socket.
const TMUX_SERVER_START: Duration = Duration::from_secs(15);

/// Starts `tmux -D` (a server, not a daemon) inside the run's sandbox, with Claude Code's
/// install readable, and waits for its socket; the run's `new-session` then talks to it
/// from outside.
fn start_sandboxed_tmux(
    confined: &Confined,
    sock: &Path,
    ctx: &RunCtx<'_>,
) -> Result<Child, E2eError> {
    let run = ctx.run;
    let log = run.join("tmux-server.log");
    let log = fs::File::create(&log).map_err(|e| E2eError::io(&log.display().to_string(), e))?;
    let err = log
        .try_clone()
        .map_err(|e| E2eError::io("tmux-server.log", e))?;
    let mut child = confined
        .command(Path::new("tmux"), &[&install_root(ctx.claude)])
        .arg("-D")
        .arg("-S")
        .arg(sock)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| E2eError::io("tmux (install it: apt-get install -y tmux)", e))?;
    let until = Instant::now() + TMUX_SERVER_START;
    while !sock.exists() {
        let ended = matches!(child.try_wait(), Ok(Some(_)));
        if ended || Instant::now() > until {
            kill_group(&mut child);
            let log = fs::read_to_string(run.join("tmux-server.log")).unwrap_or_default();
            return Err(E2eError::Setup(format!(
                "the sandboxed tmux server made no socket: {}",
                log.trim()
            )));
        }
        thread::sleep(Duration::from_millis(50));
    }
    Ok(child)
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

pub(crate) fn path_str(path: &Path) -> String {
    path.display().to_string()
}
