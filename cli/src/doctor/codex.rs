//! The Codex check: whether Codex runs `notesoup mcp` as its MCP server `notesoup`, and
//! whether the command it was given is there (`codex mcp get notesoup --json`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::process::{is_executable, on_path, process, run_bounded, said_line};
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
    let server = match ask(&codex, env) {
        Ok(server) => server,
        Err(None) => {
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
        }
        Err(Some(why)) => {
            checks.push(check(
                "codex",
                Status::Warn,
                format!(
                    "Codex at {}: `codex mcp get notesoup --json` failed, so its MCP server is not checked: {why}",
                    codex.display()
                ),
                Some(
                    "run `codex mcp get notesoup` to see why (its settings are in ~/.codex/config.toml, or under CODEX_HOME)"
                        .to_owned(),
                ),
            ));
            return;
        }
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

/// What Codex says of its MCP server notesoup (`codex mcp get notesoup --json`): the server,
/// or `Err(None)` when Codex has none of that name (its words: "No MCP server named"), or
/// `Err(Some(why))` when Codex could not say (settings it cannot read, an older Codex).
fn ask(codex: &Path, env: &Env) -> Result<Value, Option<String>> {
    let asked = run_bounded(
        process(codex, env).args(["mcp", "get", "notesoup", "--json"]),
        b"",
    );
    match asked {
        Ok(o) if o.status.success() => serde_json::from_slice::<Value>(&o.stdout).map_err(|_| {
            Some("it answered no JSON (a Codex older than `codex mcp get --json`?)".to_owned())
        }),
        Ok(o) if said_line(&o.stderr, |l| l.contains("No MCP server named")).is_some() => Err(None),
        Ok(o) => Err(Some(
            said_line(&o.stderr, |l| l.starts_with("Error")).map_or_else(
                || format!("it exited {}", o.status),
                |line| format!("it said: {line}"),
            ),
        )),
        Err(err) => Err(Some(format!("it could not be run: {err}"))),
    }
}
