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

/// The most doctor keeps of each stream a program writes: far more than a version line
/// or a plugin list; the rest is read and dropped, so the program never stalls on a full
/// pipe and doctor never holds an endless output.
const OUTPUT_MAX: usize = 4 * 1024 * 1024;

/// How long a stream is read on once the program exited: what it wrote is in the pipe by
/// then, and a process it left behind (holding the pipe open) is not its answer.
const AFTER_EXIT: std::time::Duration = std::time::Duration::from_secs(1);

/// One stream of a program, read on its own thread: at most [`OUTPUT_MAX`] bytes kept.
struct Drain {
    kept: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl Drain {
    fn start(mut pipe: Option<Box<dyn std::io::Read + Send>>) -> Self {
        let kept = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (tell, done) = std::sync::mpsc::channel();
        let into = std::sync::Arc::clone(&kept);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 16 * 1024];
            while let Some(pipe) = pipe.as_mut() {
                let n = match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                if let Ok(mut kept) = into.lock() {
                    let room = OUTPUT_MAX.saturating_sub(kept.len()).min(n);
                    kept.extend_from_slice(&chunk[..room]);
                }
            }
            let _ = tell.send(());
        });
        Self { kept, done }
    }

    /// What was read, once the stream ended or `deadline` passed.
    fn finish(self, deadline: std::time::Instant) -> Vec<u8> {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let _ = self.done.recv_timeout(left);
        self.kept
            .lock()
            .map(|kept| kept.clone())
            .unwrap_or_default()
    }
}

/// Runs `cmd` with `input` on its stdin, its stdout and stderr collected (at most
/// [`OUTPUT_MAX`] bytes of each), for at most [`RUN_LIMIT`]: past it the program is killed
/// and the call fails as timed out. Once it exited, its output is read for at most
/// [`AFTER_EXIT`] more: a process it left behind may hold the pipes open for ever.
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
    let stdout = Drain::start(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = Drain::start(child.stderr.take().map(|p| Box::new(p) as _));
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
    let deadline = deadline.min(std::time::Instant::now() + AFTER_EXIT);
    Ok(std::process::Output {
        status,
        stdout: stdout.finish(deadline),
        stderr: stderr.finish(deadline),
    })
}

/// The most of a program's line doctor shows (a version, an error).
const SAID_MAX: usize = 200;

/// The first line of `output` that `wanted` accepts (trimmed, not empty), as one row of at
/// most [`SAID_MAX`] characters (`…` where cut): what a program said, fit for doctor's line,
/// however much it wrote.
pub(super) fn said_line(output: &[u8], wanted: impl Fn(&str) -> bool) -> Option<String> {
    let text = String::from_utf8_lossy(output);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && wanted(l))?;
    let mut shown: String = line.chars().take(SAID_MAX).collect();
    if shown.len() < line.len() {
        shown.push('…');
    }
    Some(crate::clean::one_line(&shown))
}
