//! The Codex check: whether Codex runs `notesoup mcp` as its MCP server `notesoup`, and
//! whether the command it was given is there (`codex mcp get notesoup --json`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::process::{is_executable, on_path, process, run_bounded};
use super::{Check, Status, check};
use crate::Env;

/// The line to register it, for the fixes.
const ADD: &str = "codex mcp add notesoup -- notesoup mcp (installed without Rust: npm install -g notesoup first, or -- npx -y --prefer-offline notesoup mcp)";

/// `codex`: skip without Codex (`$CODEX`, else `codex` on PATH); else ok when its server
/// `notesoup` is enabled and its command is found, a warning otherwise, with the fix.
pub(super) fn codex_check(env: &Env, checks: &mut Vec<Check>) {
    let Some(codex) = env
        .var_set("CODEX")
        .map(PathBuf::from)
        .or_else(|| on_path(env, "codex"))
    else {
        checks.push(check(
            "codex",
            Status::Skip,
            "Codex not found (no `codex` on PATH, CODEX not set): its MCP server is not checked",
            None,
        ));
        return;
    };
    let server = run_bounded(
        process(&codex, env).args(["mcp", "get", "notesoup", "--json"]),
        b"",
    )
    .ok()
    .filter(|o| o.status.success())
    .and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok());
    let Some(server) = server else {
        checks.push(check(
            "codex",
            Status::Warn,
            format!(
                "Codex at {}, but it has no MCP server named notesoup",
                codex.display()
            ),
            Some(ADD.to_owned()),
        ));
        return;
    };
    let transport = &server["transport"];
    let command = transport["command"].as_str().unwrap_or_default();
    let line: Vec<&str> = std::iter::once(command)
        .chain(
            transport["args"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str),
        )
        .collect();
    let line = line.join(" ");
    let found = if command.contains('/') {
        is_executable(Path::new(command))
    } else {
        on_path(env, command).is_some()
    };
    let (status, message, fix) = if server["enabled"] == Value::Bool(false) {
        (
            Status::Warn,
            format!("Codex's MCP server notesoup (`{line}`) is disabled"),
            Some(
                "set enabled = true under [mcp_servers.notesoup] in ~/.codex/config.toml"
                    .to_owned(),
            ),
        )
    } else if !found {
        (
            Status::Warn,
            format!(
                "Codex runs `{line}` as its MCP server notesoup, but `{command}` is not on PATH here"
            ),
            Some(match std::env::current_exe() {
                Ok(exe) => format!(
                    "put it on PATH (npm install -g notesoup), or give Codex the full path: codex mcp remove notesoup, then codex mcp add notesoup -- {} mcp",
                    exe.display()
                ),
                Err(_) => "put it on PATH (npm install -g notesoup), or give Codex its full path"
                    .to_owned(),
            }),
        )
    } else {
        (
            Status::Ok,
            format!("Codex runs `{line}` as its MCP server notesoup"),
            None,
        )
    };
    checks.push(check("codex", status, message, fix));
}
