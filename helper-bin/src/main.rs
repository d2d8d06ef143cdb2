//! `notesoup-helper <op>`: reads one JSON request on stdin, writes one JSON reply on stdout.
//!
//! See `PROTOCOL.md` beside this crate for every op. This file only does the process IO;
//! [`notesoup_helper_bin::run`] answers the request.

use std::io::Write;
use std::process::ExitCode;

use notesoup_app::Context;
use notesoup_helper_bin::{read_request, run};

fn main() -> ExitCode {
    // A panic is a bug, but it must never reach the hooks module as garbage on stdout:
    // `run` catches it and answers `internal`. Keep the default hook's message off stdout.
    std::panic::set_hook(Box::new(|info| {
        let _ = writeln!(std::io::stderr(), "notesoup-helper: internal error: {info}");
    }));
    let op = std::env::args().nth(1);
    // A one-shot process: what a call is done with (a decoded history, up to ~70 MB on a
    // 100 MB transcript) is not freed piece by piece: the operating system reclaims it at
    // exit. BENCHMARKS.md ("Freeing the decoded history") says what that saves.
    let ctx = Context::from_process().retiring_with(std::mem::forget);
    let response = match read_request(std::io::stdin().lock()) {
        Ok(input) => run(op.as_deref(), &input, &ctx),
        Err(refused) => refused,
    };
    let mut stdout = std::io::stdout().lock();
    let mut line = response.reply.to_string();
    line.push('\n');
    if stdout
        .write_all(line.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(1);
    }
    ExitCode::from(response.exit)
}
