//! `notesoup-e2e-sandbox PLAN -- COMMAND...`: the e2e sandbox from inside (see
//! `notesoup_e2e::sandbox`). Started by `unshare` as the first process of fresh user,
//! network, mount and PID namespaces: brings up loopback, hides the real home (binding back
//! the paths the plan keeps), relays the scripted services' ports to their unix sockets,
//! runs COMMAND and exits with its status. With no COMMAND it only sets up (the probe).
//! Exit 125 when the sandbox cannot be set up.

#![allow(
    clippy::print_stderr,
    reason = "reports why the sandbox could not be set up"
)]

use std::process::ExitCode;

use notesoup_e2e::sandbox::inside::{Plan, enter};

fn main() -> ExitCode {
    let result = Plan::parse(std::env::args_os().skip(1)).and_then(|plan| enter(&plan));
    match result {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("notesoup-e2e-sandbox: {e}");
            ExitCode::from(125)
        }
    }
}
