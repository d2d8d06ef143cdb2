//! `notesoup`, the command line for people: the brain of a project (list, show, edit,
//! remove, trash, restore), every local session of Claude Code, Pi and Codex (list, search,
//! show), the budget points for this machine's settings, and `doctor`.
//!
//! A composer like `notesoup-helper`: it decides nothing itself. Notes go through
//! `notesoup-notes` (the same domain rule, names, limits and version checks as the plugin),
//! history through the application library's typed calls (the same selection, paging and
//! search as the model's tools), budget points through `notesoup-thresholds`. What this
//! crate adds is the terminal: tables, colour (on a terminal unless `NO_COLOR` is set,
//! or as `--color` says), times in the person's zone ([`Zone`]), a pager for long text,
//! `--json` for scripts (times in UTC), messages that name the file
//! and the fix, and exit codes (0 done, 1 refused or failed, 2 bad command line, 3 a note
//! changed under you or a newer note blocks a restore).
//!
//! [`run`] takes the arguments and an [`Env`] (the environment, the current folder and
//! whether stdout is a terminal) and returns a [`Report`], so every command runs
//! in-process in tests; [`run_to`] is the same run writing stdout itself.
//!
//! # Invariants
//!
//! - `notes edit` writes back only over the version it read, and creates a note only if it
//!   is still absent (checked under the store's lock). On a conflict nothing is written,
//!   the edited text stays in its file, and the exit status is 3.
//! - `notes restore` never overwrites a newer note without `--force`, and then the newer
//!   note goes to the trash first.
//! - `doctor` exits 1 exactly when a check fails.
//! - It never speaks the helper's JSON protocol: it calls the crates' typed functions.
//! - Only `main.rs` reads the process (arguments, environment, folder, terminal, time
//!   zone) and prints a [`Report`]; it hands the run its stdout ([`run_to`]), which a
//!   command that prints a whole session writes as it goes, on a terminal through the
//!   pager ([`Paged`], started once there is a screen of text, waited for before stderr).
//!   Besides these, only `notesoup mcp` (stdin and stdout, the server's, and its one start
//!   line on stderr) and a long search's progress bar (stderr, when it is a terminal)
//!   touch the streams.
//!
//! ```
//! use notesoup_cli::{Env, run};
//!
//! let tmp = std::env::temp_dir().join(format!("notesoup-cli-doc-{}", std::process::id()));
//! std::fs::create_dir_all(tmp.join("project")).unwrap();
//! let env = Env::new(
//!     [("NOTESOUP_HOME", tmp.join("home").to_str().unwrap())],
//!     tmp.join("project"),
//!     false,
//! );
//! let report = run(["notesoup", "notes", "list"], &env);
//! assert_eq!(report.exit, 0);
//! assert!(report.stdout.contains("No notes"));
//!
//! let report = run(["notesoup", "notes", "show", "nothing-here"], &env);
//! assert_eq!(report.exit, 1);
//! assert!(report.stderr.contains("no note named `nothing-here`"));
//! # std::fs::remove_dir_all(&tmp).unwrap();
//! ```

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::Parser;

/// The Claude Code version notesoup targets, as a literal so `--version` can `concat!` it.
macro_rules! claude_code_version {
    () => {
        "2.1.319"
    };
}

mod args;
mod clean;
mod docs;
mod doctor;
mod error;
mod folder;
mod furniture;
mod history;
mod limits;
mod mcp;
mod notes;
mod pager;
mod programs;
mod progress;
mod refusals;
mod size;
mod term;
mod usage;
mod zone;

pub use args::{Cli, Color, Command};
pub use error::{CliError, NoteNow};
pub use pager::{Paged, pager_command, pager_failed_to_run, rows};
pub use progress::Paging;
pub use term::{Style, wants_pager};
pub use zone::{Zone, named_zone, system_zone};

/// The Claude Code version notesoup is built and tested against (`scripts/get-claude`'s
/// default; a test checks the two agree). `doctor` says whether the installed one matches.
pub const CLAUDE_CODE_VERSION: &str = claude_code_version!();

/// The version and the git commit it was built from: what `notesoup mcp` says it is (its
/// clients need not be Claude Code's).
pub const BUILD_TEXT: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("NOTESOUP_GIT_COMMIT"),
    ")"
);

/// `notesoup --version`: the version, the git commit it was built from (`unknown` without
/// git, see `build.rs`) and the Claude Code version it is built for.
pub const VERSION_TEXT: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("NOTESOUP_GIT_COMMIT"),
    ", built for Claude Code ",
    claude_code_version!(),
    ")"
);

/// Exit status: done.
pub const EXIT_OK: u8 = 0;
/// Exit status: refused or failed (the message says what, which file, what to do).
pub const EXIT_FAILED: u8 = 1;
/// Exit status: the command line is wrong.
pub const EXIT_USAGE: u8 = 2;
/// Exit status: a note changed under you, or restore would overwrite a newer note.
pub const EXIT_CONFLICT: u8 = 3;

/// What a command may read of the outside world besides its arguments, captured once.
#[derive(Debug, Clone)]
pub struct Env {
    /// The variables, held as the helper library holds them (one capture of them).
    vars: notesoup_app::Context,
    cwd: PathBuf,
    stdout_terminal: bool,
    stderr_terminal: bool,
    stdin_terminal: bool,
    columns: Option<usize>,
    zone: Zone,
    /// What the process does as a pager starts and ends ([`Env::with_pager_start`]).
    pager_start: Option<fn(bool)>,
}

impl Env {
    /// An environment with exactly these variables, this current folder, and whether stdout
    /// is a terminal.
    pub fn new<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
        cwd: impl Into<PathBuf>,
        stdout_terminal: bool,
    ) -> Self {
        Self {
            vars: notesoup_app::Context::from_vars(vars),
            cwd: cwd.into(),
            stdout_terminal,
            stderr_terminal: false,
            stdin_terminal: false,
            columns: None,
            zone: Zone::utc(),
            pager_start: None,
        }
    }

    /// The same environment, with stderr a terminal (progress is shown there) and the
    /// terminal's width in columns, when known.
    #[must_use]
    pub fn with_terminal(mut self, stderr_terminal: bool, columns: Option<usize>) -> Self {
        self.stderr_terminal = stderr_terminal;
        self.columns = columns.filter(|c| *c > 0);
        self
    }

    /// The same environment, with stdin a terminal (a command that reads text from stdin
    /// refuses rather than waits for typing it did not ask for).
    #[must_use]
    pub fn with_stdin_terminal(mut self, stdin_terminal: bool) -> Self {
        self.stdin_terminal = stdin_terminal;
        self
    }

    /// The same environment, with times shown and read in `zone` (the person's: `main`
    /// finds it from `TZ` and the system; without this call, UTC).
    #[must_use]
    pub fn with_zone(mut self, zone: Zone) -> Self {
        self.zone = zone;
        self
    }

    /// The same environment, with `paging(true)` run once a pager has started and
    /// `paging(false)` once it has ended or turned out not to run: the process's own
    /// business (`main` hands Ctrl-C to the pager meanwhile), which a library does not do.
    #[must_use]
    pub fn with_pager_start(mut self, paging: fn(bool)) -> Self {
        self.pager_start = Some(paging);
        self
    }

    /// What to run as a pager starts and ends, when the process said.
    pub(crate) fn pager_start(&self) -> Option<fn(bool)> {
        self.pager_start
    }

    /// The zone a person's times are shown and read in.
    pub(crate) fn zone(&self) -> &Zone {
        &self.zone
    }

    /// Whether stdin is a terminal.
    pub(crate) fn stdin_terminal(&self) -> bool {
        self.stdin_terminal
    }

    /// Whether stderr is a terminal.
    pub(crate) fn stderr_terminal(&self) -> bool {
        self.stderr_terminal
    }

    /// The width in terminal cells rows are cut to when stdout is a terminal: `$COLUMNS`
    /// when set to a width (it wins over the terminal's size, as in `ls` and clap), else
    /// the terminal's, else 80; `None` (not cut) into a pipe or a file.
    pub(crate) fn width(&self) -> Option<usize> {
        if !self.stdout_terminal {
            return None;
        }
        Some(
            self.var("COLUMNS")
                .and_then(|c| c.trim().parse().ok())
                .filter(|c: &usize| *c > 0)
                .or(self.columns)
                .unwrap_or(80),
        )
    }

    /// One variable, `None` when unset.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.var(name)
    }

    /// Every variable.
    pub(crate) fn vars_iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.vars()
    }

    /// One variable, `None` when unset or empty.
    pub(crate) fn var_set(&self, name: &str) -> Option<&str> {
        self.var(name).filter(|v| !v.is_empty())
    }

    /// The current folder.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Whether stdout is a terminal.
    pub fn stdout_terminal(&self) -> bool {
        self.stdout_terminal
    }

    /// The helper library's context: the same variables.
    pub(crate) fn helper_context(&self) -> notesoup_app::Context {
        self.vars.clone()
    }

    /// `dir` made absolute against the current folder (default: the current folder), with
    /// no `.` or `..` left even when it does not exist ([`folder::absolute`]).
    pub(crate) fn folder(&self, dir: Option<&Path>) -> PathBuf {
        folder::absolute(&self.cwd, dir.unwrap_or(Path::new(".")))
    }
}

/// What a command printed and how it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// What goes to stdout (under [`run_to`], what it did not write itself: text for a
    /// pager).
    pub stdout: String,
    /// What goes to stderr (errors, hints).
    pub stderr: String,
    /// The exit status (see the `EXIT_*` constants).
    pub exit: u8,
    /// Whether the report's stdout may go through a pager (a terminal, `--no-pager` not
    /// given, and the run did not write it itself: [`run`], or `--help` under [`run_to`]).
    pub pager: bool,
}

/// Run one command line (`argv[0]` is the program name), its stdout kept in the report.
pub fn run<I, T>(argv: I, env: &Env) -> Report
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with(argv, env, None)
}

/// [`run`], writing stdout to `stdout` (the process's) itself, on a terminal through the
/// pager ([`Paged`]): a command that prints a whole session writes it as it is made, and
/// stops when `stdout`'s reader goes away (`| head`, or the person quits the pager: no
/// error, exit status as if it had read all). The report's stdout holds only what was not
/// written (`--help`, which the caller prints).
pub fn run_to<I, T>(argv: I, env: &Env, stdout: Box<dyn std::io::Write>) -> Report
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with(argv, env, Some(stdout))
}

fn run_with<I, T>(argv: I, env: &Env, stdout: Option<Box<dyn std::io::Write>>) -> Report
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(err) => {
            let text = err.render().to_string();
            return if err.use_stderr() {
                Report {
                    // Under --json, the document every refusal writes, as well.
                    stdout: if usage::wants_json(&argv) {
                        usage::error_doc(&argv, &text)
                    } else {
                        String::new()
                    },
                    stderr: text,
                    exit: EXIT_USAGE,
                    ..Report::default()
                }
            } else {
                // --help and --version: printed on stdout, exit 0.
                Report {
                    stdout: text,
                    exit: EXIT_OK,
                    pager: env.stdout_terminal,
                    ..Report::default()
                }
            };
        }
    };
    let style = Style::new(cli.color, env);
    let pager = env.stdout_terminal && !cli.no_pager && !cli.json;
    let mut out = term::Out::new(style, Style::for_stderr(cli.color, env), cli.json);
    // The run writes the process's stdout itself, on a terminal through the pager (which
    // starts once there is a screen of text); without one the text is kept for the report.
    let kept_whole = stdout.is_none();
    if let Some(stdout) = stdout {
        out = if pager {
            let through = Paged::new(stdout, env);
            let paging = through.paging();
            out.writing_to_pager(through).paged(paging)
        } else {
            out.writing_to(stdout)
        };
    }
    let result = match &cli.command {
        Command::Notes(a) => notes::run(a, env, &mut out),
        Command::History(a) => history::run(a, env, &mut out),
        Command::Limits(a) => limits::run(a, env, &mut out),
        Command::Doctor => Ok(doctor::run(env, &mut out)),
        Command::Mcp(a) => mcp::run(a, env),
        Command::Completions { shell } => Ok(furniture::completions(*shell, &mut out)),
        Command::Man { out_dir } => furniture::man(out_dir.as_deref(), env, &mut out),
    };
    let mut exit = match result {
        Ok(exit) => exit,
        Err(err) => {
            out.error(&err);
            err.exit()
        }
    };
    out.flush();
    if let Some(source) = out.write_error() {
        out.error_line(&CliError::Io {
            what: "write the output to".to_owned(),
            path: "stdout".into(),
            source,
        });
        exit = exit.max(EXIT_FAILED);
    }
    let (stdout, stderr) = out.finish();
    Report {
        stdout,
        stderr,
        exit,
        pager: pager && kept_whole,
    }
}

/// Help texts end with the exit codes; kept here so `--help` and the docs share one table.
pub fn exit_codes() -> &'static str {
    args::EXIT_CODES
}
