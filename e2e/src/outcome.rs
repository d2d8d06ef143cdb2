//! What a run leaves: the request log, transcripts, output and logs, and the report a
//! failing scenario prints.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;

use serde_json::Value;

use crate::script::{Request, content_text};

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

pub(crate) struct CollectArgs {
    pub(crate) name: String,
    pub(crate) mode: &'static str,
    pub(crate) run: PathBuf,
    pub(crate) work: PathBuf,
    pub(crate) notes_home: PathBuf,
    pub(crate) config: PathBuf,
    pub(crate) requests: Vec<Value>,
    pub(crate) exit_code: Option<i32>,
    pub(crate) timed_out: bool,
    pub(crate) failures: Vec<String>,
    pub(crate) processes: Vec<ProcessRun>,
}

/// What one process of a [`crate::Mode::Processes`] chain was.
#[derive(Clone, Debug)]
pub struct ProcessRun {
    /// The number (`n`) the service gave the first request that came during it; every
    /// request of this process has `n` from here up to the next process's `first_request`.
    pub first_request: u64,
    /// The session it ran in, as its requests named it (`X-Claude-Code-Session-Id`);
    /// `None` when it made no request.
    pub session_id: Option<String>,
    /// Its exit code (`None` when killed or unknown).
    pub exit_code: Option<i32>,
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
    /// The processes of a [`crate::Mode::Processes`] run, in order (empty otherwise).
    pub processes: Vec<ProcessRun>,
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
    pub(crate) fn collect(a: CollectArgs) -> Self {
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
            processes: a.processes,
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
            .filter(|r| is_messages_path(r))
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

    /// The message requests that came during process `i` of a [`crate::Mode::Processes`]
    /// run (compaction requests included), in arrival order.
    pub fn process_requests(&self, i: usize) -> Vec<Request<'_>> {
        let Some(run) = self.processes.get(i) else {
            return Vec::new();
        };
        let end = self
            .processes
            .get(i + 1)
            .map_or(u64::MAX, |next| next.first_request);
        self.requests
            .iter()
            .filter(|r| {
                let n = r.get("n").and_then(Value::as_u64).unwrap_or(0);
                (run.first_request..end).contains(&n) && is_messages_path(r)
            })
            .filter_map(|r| r.get("body"))
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
        for (i, p) in self.processes.iter().enumerate() {
            let _ = writeln!(
                s,
                "--- process {i}: from request #{}, session {}, exit {:?}",
                p.first_request,
                p.session_id.as_deref().unwrap_or("?"),
                p.exit_code
            );
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

/// Whether a logged request went to `POST /v1/messages` (a model turn or a summary).
fn is_messages_path(r: &Value) -> bool {
    r.get("path")
        .and_then(Value::as_str)
        .is_some_and(|p| p.split('?').next().unwrap_or("").ends_with("/v1/messages"))
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
