//! Runs the real Pi coding agent 1.6.0 offline against a scripted Anthropic [`Service`],
//! with notesoup's Pi extension loaded (`-e plugins/pi`), in an isolated HOME: one prompt
//! in `-p` ([`PiRun::print`]), or steps in `--mode rpc` ([`PiRun::rpc`], `rpc.rs`).
//!
//! Layout of a run dir: `work/` (the project), `notesoup-home/` (`NOTESOUP_HOME`),
//! `pi-home/` (Pi's HOME: `.pi/agent/models.json` routes Pi's `anthropic` provider to the
//! service, `.pi/agent/settings.json` picks the model and turns off what would reach out),
//! `requests.jsonl`, `pi.stdout`, `pi.stderr` (the extension's log with `NOTESOUP_PI_LOG`).

use std::fmt::Write as _;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::sandbox::{self, Confined, install_root};
use crate::{E2eError, Script, Service};

mod rpc;
pub use rpc::RpcStep;

/// Where anything that is not loopback goes: a dead local port.
const DEAD_PROXY: &str = "http://127.0.0.1:9";
/// The model Pi is told to use (its built-in `anthropic` provider; a 200000-token window).
pub const PI_MODEL: &str = "claude-sonnet-4-5";

/// Node and Pi's `cli.js`: `NOTESOUP_E2E_PI_NODE` and `NOTESOUP_E2E_PI_CLI`, else the two
/// lines `scripts/get-pi` prints (it fetches them once from npm).
pub fn pi_binaries() -> Result<(PathBuf, PathBuf), E2eError> {
    if let (Some(node), Some(cli)) = (
        std::env::var_os("NOTESOUP_E2E_PI_NODE"),
        std::env::var_os("NOTESOUP_E2E_PI_CLI"),
    ) {
        return Ok((PathBuf::from(node), PathBuf::from(cli)));
    }
    let script = repo().join("scripts/get-pi");
    let out = Command::new(&script)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| E2eError::io(&script.display().to_string(), e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    match (out.status.success(), lines.as_slice()) {
        (true, [node, cli]) => Ok((PathBuf::from(node), PathBuf::from(cli))),
        _ => Err(E2eError::Setup(format!(
            "{} failed or printed no node and cli lines",
            script.display()
        ))),
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// One `pi -p` run.
pub struct PiRun {
    /// Node (Pi 1.6.0 needs at least 22.19).
    pub node: PathBuf,
    /// Pi's `dist/bundle/cli.js`.
    pub cli: PathBuf,
    /// The helper the extension runs (`NOTESOUP_HELPER`).
    pub helper: PathBuf,
    /// The run dir (see the module docs).
    pub run_dir: PathBuf,
    /// The wall-clock limit.
    pub timeout: Duration,
    /// Merged over the generated `settings.json` (e.g. `{"compaction": {...}}`).
    pub settings: Value,
    /// More variables for Pi's environment (e.g. `NOTESOUP_DISABLED`).
    pub env: Vec<(String, String)>,
}

/// What a run left.
#[derive(Debug)]
pub struct PiOutcome {
    /// The exit status code (`None`: killed at the deadline).
    pub status: Option<i32>,
    /// Pi's stdout (the final answer in `-p`).
    pub stdout: String,
    /// Pi's stderr (the extension's log).
    pub stderr: String,
    /// Every request the scripted API received.
    pub requests: Vec<Value>,
}

impl PiOutcome {
    /// A one-screen account of the run, for a failing assertion.
    pub fn report(&self) -> String {
        let tail = |text: &str| {
            let start = text.len().saturating_sub(3000);
            let start = (start..text.len())
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(0);
            text[start..].to_owned()
        };
        let mut out = format!(
            "pi exit {:?}\n--- stdout (end)\n{}\n--- stderr\n{}\n--- requests\n",
            self.status,
            tail(&self.stdout),
            self.stderr
        );
        for r in &self.requests {
            let body = &r["body"];
            let last = body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .map(|m| crate::content_text(Some(&m["content"])))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{} msgs={} tools={} last={:?}",
                r["path"],
                body["messages"].as_array().map_or(0, Vec::len),
                body["tools"].as_array().map_or(0, Vec::len),
                last.chars().take(120).collect::<String>()
            );
        }
        out
    }
}

impl Drop for PiRun {
    /// A passing run's dir is removed (a failing one, or any with `NOTESOUP_E2E_KEEP`, is kept).
    fn drop(&mut self) {
        if !std::thread::panicking() && std::env::var_os("NOTESOUP_E2E_KEEP").is_none() {
            let _ = fs::remove_dir_all(&self.run_dir);
        }
    }
}

impl PiRun {
    /// The project folder (`work/`).
    pub fn work_dir(&self) -> PathBuf {
        self.run_dir.join("work")
    }

    /// `NOTESOUP_HOME` of the run.
    pub fn notes_home(&self) -> PathBuf {
        self.run_dir.join("notesoup-home")
    }

    /// Runs `pi -p PROMPT -e plugins/pi` answered by `script`.
    pub fn print(&self, prompt: &str, script: Script) -> Result<PiOutcome, E2eError> {
        self.print_with(&[], prompt, script)
    }

    /// Runs `pi ARGS -p PROMPT -e plugins/pi` answered by `script` (`ARGS`: more of Pi's
    /// options, such as `--no-session`).
    pub fn print_with(
        &self,
        args: &[&str],
        prompt: &str,
        script: Script,
    ) -> Result<PiOutcome, E2eError> {
        let (service, _confined, mut command) = self.prepare(script)?;
        let mut child = command
            .args(args)
            .args(["-p", prompt])
            .stdin(Stdio::null())
            .stdout(self.file("pi.stdout")?)
            .spawn()
            .map_err(|e| E2eError::io(&self.node.display().to_string(), e))?;
        let status = self.wait(&mut child)?;
        Ok(self.outcome(status, &service))
    }

    /// Runs `pi --mode rpc -e plugins/pi` answered by `script`, sending `steps` one at a
    /// time (see [`RpcStep`]); then closes stdin, and Pi ends.
    pub fn rpc(&self, steps: &[RpcStep], script: Script) -> Result<PiOutcome, E2eError> {
        let (service, _confined, mut command) = self.prepare(script)?;
        let child = command
            .args(["--mode", "rpc"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| E2eError::io(&self.node.display().to_string(), e))?;
        let deadline = Instant::now() + self.timeout;
        let (mut child, stdout) = rpc::drive(child, steps, deadline)?;
        let status = self.wait(&mut child)?;
        let path = self.run_dir.join("pi.stdout");
        fs::write(&path, &stdout).map_err(|e| E2eError::io(&path.display().to_string(), e))?;
        Ok(self.outcome(status, &service))
    }

    /// The run's folders and Pi's settings, the scripted service, the run's sandbox (kept
    /// until Pi ends) and the command that starts Pi in it with the extension (its stderr
    /// to `pi.stderr`), to be given its mode.
    fn prepare(&self, script: Script) -> Result<(Service, Option<Confined>, Command), E2eError> {
        let work = self.work_dir();
        let home = self.run_dir.join("pi-home");
        let agent = home.join(".pi/agent");
        let notes_home = self.notes_home();
        for dir in [&work, &agent, &notes_home] {
            fs::create_dir_all(dir).map_err(|e| E2eError::io(&dir.display().to_string(), e))?;
        }
        let log = self.run_dir.join("requests.jsonl");
        let service = Service::start(script, &log, self.timeout + Duration::from_secs(10))?;
        let models = json!({"providers": {"anthropic": {"baseUrl": service.base_url()}}});
        let mut settings = json!({
            "defaultProvider": "anthropic", "defaultModel": PI_MODEL,
            "defaultThinkingLevel": "off", "cacheWarming": "off", "quietStartup": true,
            "enableInstallTelemetry": false, "collapseChangelog": true,
        });
        if let (Some(base), Some(extra)) = (settings.as_object_mut(), self.settings.as_object()) {
            base.extend(extra.clone());
        }
        for (name, value) in [("models.json", models), ("settings.json", settings)] {
            let path = agent.join(name);
            fs::write(&path, value.to_string())
                .map_err(|e| E2eError::io(&path.display().to_string(), e))?;
        }
        let node_bin = self.node.parent().unwrap_or(Path::new("/"));
        let path = format!(
            "{}:{}",
            node_bin.display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
        );
        let extension = repo().join("plugins/pi");
        let confined = sandbox::confine(&self.run_dir, &[service.addr()])?;
        let mut command = match &confined {
            Some(confined) => confined.command(
                &self.node,
                &[
                    &install_root(&self.node),
                    &install_root(&self.cli),
                    &install_root(&self.helper),
                    &extension,
                ],
            ),
            None => Command::new(&self.node),
        };
        command
            .arg(&self.cli)
            .arg("-e")
            .arg(&extension)
            .current_dir(&work)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &home)
            .env("ANTHROPIC_API_KEY", "sk-ant-fake-notesoup-e2e")
            .env("PI_OFFLINE", "1")
            .env("PI_SKIP_VERSION_CHECK", "1")
            .env("PI_TELEMETRY", "0")
            .env("LANG", "C.UTF-8")
            .env("TMPDIR", std::env::temp_dir())
            .env("HTTP_PROXY", DEAD_PROXY)
            .env("HTTPS_PROXY", DEAD_PROXY)
            .env("http_proxy", DEAD_PROXY)
            .env("https_proxy", DEAD_PROXY)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env("NOTESOUP_HELPER", &self.helper)
            .env("NOTESOUP_HOME", &notes_home)
            .env("NOTESOUP_PI_LOG", "1")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stderr(self.file("pi.stderr")?);
        Ok((service, confined, command))
    }

    fn file(&self, name: &str) -> Result<fs::File, E2eError> {
        let path = self.run_dir.join(name);
        fs::File::create(&path).map_err(|e| E2eError::io(&path.display().to_string(), e))
    }

    /// Waits for Pi to end, killing it at the deadline (`None`).
    fn wait(&self, child: &mut std::process::Child) -> Result<Option<i32>, E2eError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            match child.try_wait().map_err(|e| E2eError::io("wait pi", e))? {
                Some(status) => return Ok(status.code()),
                None if Instant::now() > deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Ok(None);
                }
                None => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    fn outcome(&self, status: Option<i32>, service: &Service) -> PiOutcome {
        let read = |name: &str| {
            let mut s = String::new();
            let _ =
                fs::File::open(self.run_dir.join(name)).and_then(|mut f| f.read_to_string(&mut s));
            s
        };
        PiOutcome {
            status,
            stdout: read("pi.stdout"),
            stderr: read("pi.stderr"),
            requests: service.requests(),
        }
    }
}
