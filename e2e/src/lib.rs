//! End-to-end harness for notesoup against the real Claude Code.
//!
//! Two pieces, composed by the scenario tests in `tests/` and by the `notesoup-demo`
//! binary (`notesoup-fake-api` runs the service alone, for the mod's load check):
//!
//! - [`Service`]: a scripted Anthropic Messages service on 127.0.0.1 (an ephemeral
//!   port). It answers `POST /v1/messages` (streaming SSE exactly as the real API does:
//!   `message_start`, `content_block_start/delta/stop` for text, thinking and
//!   `tool_use` with `input_json_delta`, `message_delta` with stop reason and usage,
//!   `message_stop`), `count_tokens` and any other path, and logs every request with
//!   its full body to a JSONL file. What it answers comes from a [`Script`]: rules
//!   matched on request content, an ordered queue of [`Reply`]s, and a fallback.
//! - [`Session`]: starts the real Claude Code in the [`sandbox`] (only loopback, the real
//!   home hidden) with an isolated HOME and config dir, fake credentials, telemetry off, a
//!   dead proxy for anything not on loopback, and a copy of the plugin; in `-p`,
//!   stream-json or interactive (tmux) mode. It returns an
//!   [`Outcome`]: the request log, transcripts on disk, stdout/stderr, the engine's
//!   debug log and the mod's log lines. A scenario that panics while an `Outcome` is
//!   alive prints the request log and the mod's log.
//!
//! [`Spawns`] counts the helper processes each notesoup hook call started, from the
//! engine's debug log (the target: at most one per hook event; BENCHMARKS.md quotes it).
//! The Codex runner (`codex`, with a scripted Responses API in `responses`) drives the
//! real Codex CLI 0.171.0 through `notesoup mcp` the same way, and the Pi runner ([`PiRun`])
//! the real Pi coding agent 1.6.0 (`pi -p`, Node and Pi from `scripts/get-pi`) with the
//! extension `plugins/pi` against the same [`Service`] (`tests/pi.rs`, feature `real-pi`).
//!
//! # Invariants
//!
//! - Every run is bounded: the service and the engine stop at a deadline.
//! - A run touches nothing outside its run folder (its own HOME, config and notesoup
//!   home, a copy of the plugin).
//! - Nothing leaves the machine and no engine reads the real home: every engine (Claude
//!   Code in each mode, Pi, Codex) runs in the [`sandbox`], whose network namespace has only
//!   loopback and whose mount namespace lays an empty tmpfs over the real home; on a machine
//!   that cannot make one, fake credentials and a dead proxy remain, and the reason is
//!   printed once (`tests/scenarios/sandbox.rs` shows the sandbox holds).
//!
//! Running the scenarios: `cargo test -p notesoup-e2e --features real-claude` (what
//! `scripts/test` runs, after `scripts/get-claude` and a release build of the helper);
//! `--features e2e-pending` adds the scenarios the mod cannot pass yet. Variables:
//!
//! | variable | default |
//! |---|---|
//! | `NOTESOUP_E2E_CLAUDE` | the path `scripts/get-claude` prints (fetched once from npm) |
//! | `NOTESOUP_E2E_PLUGIN_DIR` | the repository's `plugins/claude` (copied into every run) |
//! | `NOTESOUP_E2E_HELPER` | `$CARGO_TARGET_DIR/release`, `target/release`, then the plugin's `bin/` |
//! | `NOTESOUP_E2E_RUNS` | `<tmp>/notesoup-e2e` (one run dir per session) |
//! | `NOTESOUP_E2E_KEEP` | unset: a passing run's dir is removed (a failing one is kept) |
//! | `NOTESOUP_E2E_FULL_LOG` | unset: a failing run prints one line per request, not whole bodies |
//! | `NOTESOUP_E2E_SANDBOX` | unset: sandboxed where the machine can; `off`, or `require` (no sandbox is an error) |
//! | `NOTESOUP_E2E_SANDBOX_TOOL` | `notesoup-e2e-sandbox` beside the test binary |
//!
//! The service alone, driven by a plain HTTP client:
//!
//! ```
//! use std::io::{Read, Write};
//! use std::time::Duration;
//! use notesoup_e2e::{Reply, Script, Service};
//!
//! let dir = std::env::temp_dir().join(format!("notesoup-e2e-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let script = Script::new().then(Reply::text("hello"));
//! let service = Service::start(script, &dir.join("requests.jsonl"), Duration::from_secs(30)).unwrap();
//! let addr = service.base_url().trim_start_matches("http://").to_owned();
//! let body = r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
//! let mut tcp = std::net::TcpStream::connect(addr).unwrap();
//! write!(tcp, "POST /v1/messages?beta=true HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
//! let mut answer = String::new();
//! tcp.read_to_string(&mut answer).unwrap();
//! assert!(answer.contains("event: message_start"));
//! assert!(answer.contains(r#""text":"hello""#));
//! assert!(answer.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
//! assert_eq!(service.requests()[0]["body"]["messages"][0]["content"], "hi");
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod codex;
mod drive;
mod mode;
mod outcome;
mod pi;
mod responses;
mod runner;
pub mod sandbox;
mod script;
mod service;
mod spawns;
#[cfg(test)]
mod tests;

pub use codex::{CodexOutcome, CodexRun, codex_binary};
pub use mode::{Input, Mode, Process, Resume, Step};
pub use outcome::{Outcome, ProcessRun, Transcript};
pub use pi::{PI_MODEL, PiOutcome, PiRun, RpcStep, pi_binaries};
pub use responses::{Responder, ResponsesService, Turn, call_outputs, searched_tools, tool_names};
pub use runner::{Harness, Session, fresh_run_dir};
pub use sandbox::{Confined, Sandbox, install_root};
pub use script::{Block, COMPACTION_MARKER, Match, Reply, Request, Script, Usage, content_text};
pub use service::{Service, sse_events};
pub use spawns::{EventSpawns, Spawns};

/// What can go wrong while setting up or running a scenario.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum E2eError {
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done (usually a path or a command).
        what: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Something the harness needs is missing or unusable.
    #[error("setup: {0}")]
    Setup(String),
    /// The session did not finish in time.
    #[error("timed out after {secs} s: {what}")]
    Timeout {
        /// What was being waited for.
        what: String,
        /// The limit, in seconds.
        secs: u64,
    },
}

impl E2eError {
    pub(crate) fn io(what: &str, source: std::io::Error) -> Self {
        Self::Io {
            what: what.to_owned(),
            source,
        }
    }
}
