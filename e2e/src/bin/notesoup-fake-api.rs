//! `notesoup-fake-api`: the e2e crate's scripted Anthropic service as a process, for the
//! mod's load check (`plugins/claude/tests/load_check.py`), so the project keeps one fake
//! service, not two.
//!
//! Every model request is answered with one text reply (`--text`, default `ok`), streamed
//! like the real API; every request is appended to `--log` (JSONL: `path`, `body`, …, as
//! [`notesoup_e2e::Service`] writes it). The port goes to `--port-file` (written whole, then
//! renamed into place) once it is listening. It stops by itself after `--timeout-secs`
//! (default 300) or when killed. Exit 2 when it cannot start.

#![allow(clippy::print_stderr, reason = "reports why it could not start")]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use notesoup_e2e::{Reply, Script, Service};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("notesoup-fake-api: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut log = None;
    let mut port_file = None;
    let mut text = "ok".to_owned();
    let mut timeout = 300_u64;
    let mut tool_calls = 0_usize;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--log" => log = Some(PathBuf::from(value)),
            "--port-file" => port_file = Some(PathBuf::from(value)),
            "--text" => text = value,
            "--tool-calls" => {
                tool_calls = value
                    .parse()
                    .map_err(|_| format!("--tool-calls {value:?} is not a number"))?;
            }
            "--timeout-secs" => {
                timeout = value
                    .parse()
                    .map_err(|_| format!("--timeout-secs {value:?} is not a number"))?;
            }
            other => {
                return Err(format!(
                    "unknown option {other}; usage: notesoup-fake-api --log FILE --port-file FILE [--text TEXT] [--timeout-secs N]"
                ));
            }
        }
    }
    let log = log.ok_or("--log is required")?;
    let port_file = port_file.ok_or("--port-file is required")?;
    let timeout = Duration::from_secs(timeout);
    let mut script = Script::new();
    for _ in 0..tool_calls {
        script = script.then(Reply::tool(
            "Bash",
            serde_json::json!({"command": "true", "description": "bench"}),
        ));
    }
    let service = Service::start(script.fallback(Reply::text(&text)), &log, timeout)
        .map_err(|e| e.to_string())?;
    let url = service.base_url();
    let port = url.rsplit(':').next().unwrap_or_default();
    let partial = port_file.with_extension("partial");
    std::fs::write(&partial, port).map_err(|e| format!("{}: {e}", partial.display()))?;
    std::fs::rename(&partial, &port_file).map_err(|e| format!("{}: {e}", port_file.display()))?;
    // The service answers from its own threads; this one only keeps the process alive.
    std::thread::sleep(timeout);
    drop(service);
    Ok(())
}
