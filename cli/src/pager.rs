//! Which pager a long text on a terminal goes through: `$PAGER` when set (set empty: none,
//! as git reads it), else `less` when it is on `PATH`, else none (the text is printed as it
//! is: a machine without `less`, such as a slim container, still shows it). [`Paged`]
//! writes the text into it as it is made.

use std::io::{self, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, poll};

use crate::programs::on_path;
use crate::{Env, Paging};

/// The pager command line to run through `/bin/sh -c`, or `None` for no pager: `PAGER=`
/// (set, but empty or blanks) turns the pager off, as it does for git.
pub fn pager_command(env: &Env) -> Option<String> {
    match env.var("PAGER") {
        Some(pager) if pager.trim().is_empty() => None,
        Some(pager) => Some(pager.to_owned()),
        None => on_path(env, "less").map(|_| "less".to_owned()),
    }
}

/// Whether a pager that exited with `code` could not run at all (the shell's 126: not
/// executable, 127: not found), so it showed nothing and the text is printed instead.
pub fn pager_failed_to_run(code: Option<i32>) -> bool {
    matches!(code, Some(126 | 127))
}

/// The terminal's height: `$LINES`, else 24.
pub fn rows(env: &Env) -> usize {
    env.var("LINES").and_then(|l| l.parse().ok()).unwrap_or(24)
}

/// The most text kept to print again should the pager turn out not to have run: more than
/// any pipe holds (Linux lets an unprivileged process grow one to 1 MiB), so once a pager
/// took more than this it has read some, and it ran.
const COPY_MAX: usize = 1 << 20;

/// Stdout on a terminal, through a pager when the text is long ([`crate::wants_pager`]): the
/// text is held until it has a screen's lines (or ends shorter, and is printed as it is),
/// then `$PAGER` starts and the rest is written into it as it is made, so its first screen
/// shows at once and a long text is never held whole. The pager waits on the command
/// while the person reads (the pipe is full); one the person quits makes writes fail with a
/// broken pipe, which ends a streaming command quietly. A pager that could not run (the
/// shell's 126 or 127) is passed over: what it was given is printed as it is, and so is
/// the rest. Dropping it ends the text and waits for the pager, so what goes to stderr
/// after (hints, the footer) is not drawn over the pager's screen.
pub struct Paged {
    stdout: Box<dyn Write>,
    rows: usize,
    command: Option<String>,
    /// `LESS=FRX` for the pager unless `LESS` is set: quit when the text fits, keep
    /// colours, leave the text on screen.
    less: bool,
    /// Run with `true` once the pager has started, `false` once it has ended or turned out
    /// not to run ([`crate::Env::with_pager_start`]).
    on_start: Option<fn(bool)>,
    state: State,
    paging: Paging,
}

enum State {
    /// Not started: the text so far and its line ends, until a screen's worth.
    Held(Vec<u8>, usize),
    /// The pager runs; `copy`: what it was given, while it may not have run at all.
    Paging {
        child: Child,
        stdin: ChildStdin,
        copy: Option<Vec<u8>>,
    },
    /// Printed as it is: no pager, or one that could not run.
    Direct,
}

impl Paged {
    /// Stdout (`stdout`, a terminal) through the pager `env` names, on a screen of
    /// [`rows`].
    pub fn new(stdout: Box<dyn Write>, env: &Env) -> Self {
        Self {
            stdout,
            rows: rows(env).max(2),
            command: pager_command(env),
            less: env.var("LESS").is_none(),
            on_start: env.pager_start(),
            state: State::Held(Vec::new(), 0),
            paging: Paging::default(),
        }
    }

    /// Set once the pager has started (a progress bar on stderr then stops drawing).
    pub fn paging(&self) -> Paging {
        self.paging.clone()
    }

    /// Starts the pager with the held text (printed as it is when there is no pager or it
    /// cannot be started).
    fn start(&mut self) -> io::Result<()> {
        let State::Held(held, _) = std::mem::replace(&mut self.state, State::Direct) else {
            return Ok(());
        };
        let Some(pager) = &self.command else {
            return self.stdout.write_all(&held);
        };
        let mut command = Command::new("/bin/sh");
        command.arg("-c").arg(pager).stdin(Stdio::piped());
        if self.less {
            command.env("LESS", "FRX");
        }
        // Said before it starts: what a bar draws on the terminal from now on is dropped,
        // and a Ctrl-C the pager gets from its first moment is its own.
        self.paging.start();
        self.said(true);
        let Ok(mut child) = command.spawn() else {
            self.paging.stop();
            self.said(false);
            return self.stdout.write_all(&held);
        };
        let Some(stdin) = child.stdin.take() else {
            let _ = child.wait();
            self.paging.stop();
            self.said(false);
            return self.stdout.write_all(&held);
        };
        self.state = State::Paging {
            child,
            stdin,
            copy: Some(Vec::new()),
        };
        self.give_pager(&held)
    }

    /// `buf` into the running pager. A broken pipe is the person quitting it (returned:
    /// the command stops), unless the pager could not run: then what it was given, and
    /// `buf`, are printed as they are.
    fn give_pager(&mut self, buf: &[u8]) -> io::Result<()> {
        let State::Paging { child, stdin, copy } = &mut self.state else {
            return self.stdout.write_all(buf);
        };
        match stdin.write_all(buf) {
            Ok(()) => {
                if let Some(kept) = copy {
                    kept.extend_from_slice(buf);
                    if kept.len() > COPY_MAX {
                        *copy = None;
                    }
                }
                Ok(())
            }
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe && copy.is_some() => {
                let failed = child
                    .wait()
                    .is_ok_and(|status| pager_failed_to_run(status.code()));
                if !failed {
                    return Err(err);
                }
                let kept = copy.take().unwrap_or_default();
                self.passed_over();
                self.stdout.write_all(&kept)?;
                self.stdout.write_all(buf)
            }
            Err(err) => Err(err),
        }
    }

    /// The text has ended: held text is paged when it is long enough, else printed; the
    /// pager is told the end and waited for (one that could not run has its text printed).
    fn end(&mut self) {
        if let State::Held(held, _) = &self.state
            && crate::wants_pager(&String::from_utf8_lossy(held), self.rows)
        {
            let _ = self.start();
        }
        match std::mem::replace(&mut self.state, State::Direct) {
            State::Held(held, _) => {
                let _ = self.stdout.write_all(&held);
            }
            State::Paging {
                mut child,
                stdin,
                copy,
            } => {
                drop(stdin);
                let failed = child
                    .wait()
                    .is_ok_and(|status| pager_failed_to_run(status.code()));
                self.said(false);
                if let (true, Some(kept)) = (failed, copy) {
                    self.paging.stop();
                    let _ = self.stdout.write_all(&kept);
                }
            }
            State::Direct => {}
        }
        let _ = self.stdout.flush();
    }
}

impl Paged {
    /// Tells the process the pager started (`true`) or ended (`false`).
    fn said(&self, paging: bool) {
        if let Some(on_start) = self.on_start {
            on_start(paging);
        }
    }

    /// The pager could not run: from now on the text is printed as it is.
    fn passed_over(&mut self) {
        self.state = State::Direct;
        self.paging.stop();
        self.said(false);
    }

    /// Whether the person has quit the pager, asked without writing (a streaming command
    /// that finds nothing to write for long still stops soon after `q`): its end of the
    /// pipe is closed. A pager that could not run is passed over instead (its text
    /// printed as it is), and is not gone.
    pub(crate) fn reader_gone(&mut self) -> bool {
        let State::Paging { child, stdin, copy } = &mut self.state else {
            return false;
        };
        let mut fds = [PollFd::new(&*stdin, PollFlags::empty())];
        let closed = poll(&mut fds, Some(&rustix::event::Timespec::default()))
            .is_ok_and(|n| n > 0 && fds[0].revents().contains(PollFlags::ERR));
        if !closed || copy.is_none() {
            return closed;
        }
        // Closed while the pager may not have run: its status says which (a shell that
        // found no such command exits at once; a few tries cover its last moments).
        let mut status = None;
        for _ in 0..10 {
            status = child.try_wait().ok().flatten();
            if status.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if !status.is_some_and(|s| pager_failed_to_run(s.code())) {
            return true;
        }
        let kept = copy.take().unwrap_or_default();
        self.passed_over();
        // Printed now; a failure shows at the next write, as for any text.
        let _ = self.stdout.write_all(&kept);
        false
    }
}

impl Write for Paged {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.state {
            State::Held(held, lines) => {
                held.extend_from_slice(buf);
                *lines += buf.split(|b| *b == b'\n').count() - 1;
                if *lines >= self.rows {
                    self.start()?;
                }
            }
            State::Paging { .. } => self.give_pager(buf)?,
            State::Direct => self.stdout.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.state {
            // Held until a screen's worth or the end: whether to page is not known yet.
            State::Held(..) => Ok(()),
            State::Paging { stdin, .. } => stdin.flush(),
            State::Direct => self.stdout.flush(),
        }
    }
}

impl Drop for Paged {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::sync::{Arc, Mutex, PoisonError};

    use super::{Paged, pager_command};
    use crate::Env;

    /// What the process was told, in order (one test uses it).
    static TOLD: Mutex<Vec<bool>> = Mutex::new(Vec::new());

    fn told(paging: bool) {
        TOLD.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(paging);
    }

    /// A stdout the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// `PAGER` set empty is no pager (git's reading), unset is `less` when there is one, and
    /// any other value is run as it is.
    #[test]
    fn an_empty_pager_is_none() {
        let bin = std::env::temp_dir().join(format!("notesoup-pager-{}", std::process::id()));
        std::fs::create_dir_all(&bin).unwrap();
        let less = bin.join("less");
        std::fs::write(&less, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&less, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let path = bin.to_str().unwrap();
        let with = |pager: Option<&str>| {
            let mut vars = vec![("PATH", path)];
            vars.extend(pager.map(|p| ("PAGER", p)));
            pager_command(&Env::new(vars, "/", true))
        };
        assert_eq!(with(None).as_deref(), Some("less"));
        assert_eq!(with(Some("")), None);
        assert_eq!(with(Some("  ")), None);
        assert_eq!(with(Some("most -s")).as_deref(), Some("most -s"));
        std::fs::remove_dir_all(&bin).unwrap();
    }

    /// A pager the shell cannot run: the process is told it started and then that it
    /// ended (so Ctrl-C ends notesoup again, review of the streamed pager: it stayed the
    /// pager's for the whole run), and every line is printed once, in order.
    #[test]
    fn a_pager_that_cannot_run_hands_the_terminal_back() {
        let env =
            Env::new([("PAGER", "exit 127"), ("LINES", "3")], "/", true).with_pager_start(told);
        let stdout = Shared::default();
        let mut paged = Paged::new(Box::new(stdout.clone()), &env);
        for i in 0..5 {
            writeln!(paged, "line {i}").unwrap();
        }
        // The pager has exited by now or soon: asking finds it could not run.
        let mut gone = false;
        for _ in 0..500 {
            gone = paged.reader_gone();
            if !stdout.0.lock().unwrap().is_empty() || gone {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            !gone,
            "a pager that could not run is not one the person quit"
        );
        assert_eq!(*TOLD.lock().unwrap(), [true, false]);
        writeln!(paged, "line 5").unwrap();
        drop(paged);
        let text = String::from_utf8(stdout.0.lock().unwrap().clone()).unwrap();
        let want = "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\n";
        assert_eq!(text, want);
    }
}
