//! Runs the real Codex CLI 0.171.0 (`codex exec`) offline against a [`ResponsesService`],
//! with notesoup's MCP server registered, in an isolated HOME.
//!
//! Layout of a run dir (shared with a Claude [`crate::Session`] through `run_dir`, so both
//! agents work on the same project and the same brain): `work/` (the project, a git
//! repository), `notesoup-home/` (`NOTESOUP_HOME`), `codex-home/` (Codex's HOME; its
//! `.codex/config.toml` names the scripted provider and `[mcp_servers.notesoup]`).

use std::fmt::Write as _;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::E2eError;
use crate::responses::{Responder, ResponsesService};
use crate::sandbox::{self, install_root};

/// Where anything that is not loopback goes: a dead local port.
const DEAD_PROXY: &str = "http://127.0.0.1:9";

/// The Codex binary: `NOTESOUP_E2E_CODEX`, else what `scripts/get-codex` prints.
pub fn codex_binary() -> Result<PathBuf, E2eError> {
    if let Some(path) = std::env::var_os("NOTESOUP_E2E_CODEX") {
        return Ok(PathBuf::from(path));
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let script = repo.join("scripts/get-codex");
    let out = Command::new(&script)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| E2eError::io(&script.display().to_string(), e))?;
    if !out.status.success() {
        return Err(E2eError::Setup(format!("{} failed", script.display())));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// One `codex exec` run.
pub struct CodexRun {
    /// The Codex binary.
    pub codex: PathBuf,
    /// The `notesoup` binary Codex starts as its MCP server (`notesoup mcp`).
    pub notesoup: PathBuf,
    /// The run dir (see the module docs).
    pub run_dir: PathBuf,
    /// The wall-clock limit.
    pub timeout: Duration,
}

/// What a run left.
#[derive(Debug)]
pub struct CodexOutcome {
    /// The exit status code (`None`: killed at the deadline).
    pub status: Option<i32>,
    /// Codex's stdout.
    pub stdout: String,
    /// Codex's stderr.
    pub stderr: String,
    /// Every request the scripted API received.
    pub requests: Vec<Value>,
}

impl CodexOutcome {
    /// A one-screen account of the run, for a failing assertion.
    pub fn report(&self) -> String {
        let mut out = format!(
            "codex exit {:?}\n--- stdout\n{}\n--- stderr\n{}\n--- requests\n",
            self.status,
            self.stdout,
            tail(&self.stderr, 4000)
        );
        for r in &self.requests {
            let _ = writeln!(out, "{} turn={}", r["path"], r["turn"]);
        }
        out
    }
}

fn tail(text: &str, max: usize) -> &str {
    let start = text.len().saturating_sub(max);
    let start = (start..text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    &text[start..]
}

impl CodexRun {
    /// The project folder (`work/`).
    pub fn work_dir(&self) -> PathBuf {
        self.run_dir.join("work")
    }

    /// `NOTESOUP_HOME` of the run.
    pub fn notes_home(&self) -> PathBuf {
        self.run_dir.join("notesoup-home")
    }

    /// Runs `codex exec PROMPT` answered by `responder`.
    pub fn exec(&self, prompt: &str, responder: Responder) -> Result<CodexOutcome, E2eError> {
        let work = self.work_dir();
        let home = self.run_dir.join("codex-home");
        let codex_home = home.join(".codex");
        let notes_home = self.notes_home();
        for dir in [&work, &codex_home, &notes_home] {
            fs::create_dir_all(dir).map_err(|e| E2eError::io(&dir.display().to_string(), e))?;
        }
        if !work.join(".git").exists() {
            let status = Command::new("git")
                .args(["init", "-q"])
                .current_dir(&work)
                .status()
                .map_err(|e| E2eError::io("git init", e))?;
            if !status.success() {
                return Err(E2eError::Setup("git init failed".into()));
            }
        }
        let service = ResponsesService::start(responder, self.timeout + Duration::from_secs(10))?;
        let config = config_toml(&service.base_url(), &work, &self.notesoup, &notes_home);
        let path = codex_home.join("config.toml");
        fs::write(&path, config).map_err(|e| E2eError::io(&path.display().to_string(), e))?;
        let out_path = self.run_dir.join("codex.stdout");
        let err_path = self.run_dir.join("codex.stderr");
        let file =
            |p: &Path| fs::File::create(p).map_err(|e| E2eError::io(&p.display().to_string(), e));
        let confined = sandbox::confine(&self.run_dir, &[service.addr()])?;
        let mut command = match &confined {
            Some(confined) => confined.command(
                &self.codex,
                &[&install_root(&self.codex), &install_root(&self.notesoup)],
            ),
            None => Command::new(&self.codex),
        };
        let mut child = command
            .args(["exec", "--skip-git-repo-check", prompt])
            .current_dir(&work)
            .env_clear()
            .env(
                "PATH",
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            )
            .env("HOME", &home)
            .env("CODEX_HOME", &codex_home)
            .env("OPENAI_API_KEY", "sk-fake-notesoup-e2e")
            .env("LANG", "C.UTF-8")
            .env("TMPDIR", std::env::temp_dir())
            .env("HTTP_PROXY", DEAD_PROXY)
            .env("HTTPS_PROXY", DEAD_PROXY)
            .env("ALL_PROXY", DEAD_PROXY)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .stdin(Stdio::null())
            .stdout(file(&out_path)?)
            .stderr(file(&err_path)?)
            .spawn()
            .map_err(|e| E2eError::io(&self.codex.display().to_string(), e))?;
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            match child
                .try_wait()
                .map_err(|e| E2eError::io("wait codex", e))?
            {
                Some(status) => break status.code(),
                None if Instant::now() > deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                None => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        let read = |p: &Path| {
            let mut s = String::new();
            let _ = fs::File::open(p).and_then(|mut f| f.read_to_string(&mut s));
            s
        };
        let requests = service.requests();
        let log = requests.iter().fold(String::new(), |mut log, r| {
            let _ = writeln!(log, "{r}");
            log
        });
        let log_path = self.run_dir.join("codex-requests.jsonl");
        fs::write(&log_path, log).map_err(|e| E2eError::io(&log_path.display().to_string(), e))?;
        Ok(CodexOutcome {
            status,
            stdout: read(&out_path),
            stderr: read(&err_path),
            requests,
        })
    }
}

fn toml_str(path: &Path) -> String {
    format!("{:?}", path.display().to_string())
}

/// Codex's config: the scripted provider, no approvals, no updates or analytics, the work
/// dir trusted, and notesoup's MCP server.
fn config_toml(base_url: &str, work: &Path, notesoup: &Path, notes_home: &Path) -> String {
    format!(
        r#"model = "gpt-5.5"
model_provider = "e2e"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.e2e]
name = "e2e"
base_url = "{base_url}"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
daemon_auto_start = false
tool_search = false

[projects.{work}]
trust_level = "trusted"

[mcp_servers.notesoup]
command = {notesoup}
args = ["mcp"]
startup_timeout_sec = 30
tool_timeout_sec = 60

[mcp_servers.notesoup.env]
NOTESOUP_HOME = {notes_home}
"#,
        work = toml_str(work),
        notesoup = toml_str(notesoup),
        notes_home = toml_str(notes_home),
    )
}
