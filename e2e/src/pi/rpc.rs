//! Driving `pi --mode rpc` one step at a time: a step is a `prompt` command (a message or an
//! extension command), answered by a `response`; a step that starts a run is done at the
//! run's `agent_settled` event.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Child;
use std::sync::mpsc::{self, Receiver};
use std::time::Instant;

use serde_json::{Value, json};

use crate::E2eError;

/// One step of an RPC run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcStep {
    /// What is typed: a message, or an extension command (`/empty`).
    pub text: String,
    /// The step starts a run even though Pi answers `handled` (a command whose effect is a
    /// prompt of the extension's, such as `/empty`'s close-out): wait for it to settle.
    pub runs: bool,
    /// Done when its run's first model request is on its way (`turn_start`), not when the run
    /// settles: the next step comes while it streams.
    pub no_wait: bool,
    /// Sent as a `steer` command (a person typing while the run streams), not a `prompt`;
    /// done when the run settles.
    pub steer: bool,
}

impl RpcStep {
    /// A message (or a command answered `started`): done when its run settles.
    pub fn prompt(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            runs: false,
            no_wait: false,
            steer: false,
        }
    }

    /// A message done when its run's first request is made: the next step comes while the
    /// model answers it.
    pub fn prompt_until_request(text: &str) -> Self {
        Self {
            no_wait: true,
            ..Self::prompt(text)
        }
    }

    /// A person's message typed while the run streams (`steer`), done when the run settles.
    pub fn steer(text: &str) -> Self {
        Self {
            steer: true,
            ..Self::prompt(text)
        }
    }

    /// An extension command that starts a run of its own (done when that run settles).
    pub fn command_that_runs(text: &str) -> Self {
        Self {
            runs: true,
            ..Self::prompt(text)
        }
    }
}

/// Sends `steps` to a Pi started in rpc mode (stdin and stdout piped), each after the last
/// is done, then closes stdin. Returns the child (to be waited for) and Pi's stdout.
pub(super) fn drive(
    mut child: Child,
    steps: &[RpcStep],
    deadline: Instant,
) -> Result<(Child, String), E2eError> {
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| E2eError::Setup("pi's stdout is not piped".into()))?;
    let (tx, rx) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| E2eError::Setup("pi's stdin is not piped".into()))?;
    for (n, step) in steps.iter().enumerate() {
        let id = format!("step-{n}");
        let kind = if step.steer { "steer" } else { "prompt" };
        let command = json!({"type": kind, "message": step.text, "id": id});
        writeln!(stdin, "{command}").map_err(|e| E2eError::io("pi stdin", e))?;
        let response = until(&rx, &mut seen, deadline, |r| {
            r["type"] == "response" && r["id"] == id.as_str()
        })?;
        let started = response["data"]["disposition"] == "started";
        if step.no_wait {
            until(&rx, &mut seen, deadline, |r| r["type"] == "turn_start")?;
        } else if started || step.runs || step.steer {
            until(&rx, &mut seen, deadline, |r| r["type"] == "agent_settled")?;
        }
    }
    // End of input: Pi ends; read what it still writes, up to the deadline (the caller
    // kills a Pi that outlives it; the reader ends with Pi's stdout).
    drop(stdin);
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        seen.push_str(&line);
        seen.push('\n');
    }
    if reader.is_finished() {
        let _ = reader.join();
    }
    Ok((child, seen))
}

/// The next stdout line that is a JSON record `wanted` accepts (every line read is kept in
/// `seen`), or a timeout at `deadline`.
fn until(
    rx: &Receiver<String>,
    seen: &mut String,
    deadline: Instant,
    wanted: impl Fn(&Value) -> bool,
) -> Result<Value, E2eError> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx.recv_timeout(left).map_err(|_| E2eError::Timeout {
            what: format!("pi --mode rpc (read so far:\n{seen})"),
            secs: 0,
        })?;
        seen.push_str(&line);
        seen.push('\n');
        if let Ok(record) = serde_json::from_str::<Value>(&line)
            && wanted(&record)
        {
            return Ok(record);
        }
    }
}
