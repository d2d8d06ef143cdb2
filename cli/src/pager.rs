//! Which pager a long text on a terminal goes through: `$PAGER` when set, else `less` when
//! it is on `PATH`, else none (the text is printed as it is: a machine without `less`, such
//! as a slim container, still shows it). [`Paged`] writes the text into it as it is made.

use std::io::{self, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use crate::programs::on_path;
use crate::{Env, Paging};

/// The pager command line to run through `/bin/sh -c`, or `None` for no pager.
pub fn pager_command(env: &Env) -> Option<String> {
    if let Some(pager) = env.var("PAGER").filter(|p| !p.trim().is_empty()) {
        return Some(pager.to_owned());
    }
    on_path(env, "less").map(|_| "less".to_owned())
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
    /// Run just before the pager starts ([`Env::with_pager_start`]).
    on_start: Option<fn()>,
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
        // Said before it starts: what a bar draws on the terminal from now on is dropped.
        self.paging.start();
        if let Some(on_start) = self.on_start {
            on_start();
        }
        let Ok(mut child) = command.spawn() else {
            return self.stdout.write_all(&held);
        };
        let Some(stdin) = child.stdin.take() else {
            let _ = child.wait();
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
                self.state = State::Direct;
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
                if let (true, Some(kept)) = (failed, copy) {
                    let _ = self.stdout.write_all(&kept);
                }
            }
            State::Direct => {}
        }
        let _ = self.stdout.flush();
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
