//! Running the programs doctor checks (`claude`, the helper) with the captured
//! environment and a time limit, and finding them on PATH (`crate::programs`).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command as Process, Stdio};

use crate::Env;
pub(super) use crate::programs::{is_executable, on_path};

/// A process started with exactly the captured environment.
pub(super) fn process(program: &Path, env: &Env) -> Process {
    let mut p = Process::new(program);
    p.env_clear()
        .envs(env.vars_iter())
        .current_dir(env.cwd())
        .stdin(Stdio::null());
    p
}

/// How long doctor waits for a program it runs (`claude --version`, `claude plugin list`,
/// the helper's `version`): a hung one is reported, never waited on forever.
const RUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs `cmd` with `input` on its stdin, its stdout and stderr collected, for at most
/// [`RUN_LIMIT`]: past it the program is killed and the call fails as timed out.
pub(super) fn run_bounded(
    cmd: &mut Process,
    input: &[u8],
) -> std::io::Result<std::process::Output> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Both pipes are drained as the program writes (a long plugin list must not fill one
    // and stall the program until the limit).
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut out);
            }
            out
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let deadline = std::time::Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no answer within {} s", RUN_LIMIT.as_secs()),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}
