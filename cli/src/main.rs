//! `notesoup`: reads the process (arguments, environment, current folder, whether stdout
//! is a terminal), runs the command through the library, and prints: through a pager when
//! stdout is a terminal and the text is longer than the screen.

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::{SIGINT, SIGQUIT};

use notesoup_cli::{Env, Report, run_to};

/// mimalloc, not glibc's malloc: `notesoup mcp` is a long-lived process whose every history
/// call decodes and frees tens of MB on whichever thread answers it; glibc kept those freed
/// pages in per-thread arenas (RSS rose from 61 to 236 MiB between the 10th and the 40th
/// call on a 60 MB transcript), mimalloc gives them back (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // No transparent huge pages for this process (and the pager it starts): mimalloc asks
    // for them on its arenas, and the kernel then backs each touched 2 MiB whole, so a
    // search that decodes an 83 MB session held 31 MiB more, a search that decodes
    // nothing 70-100 MiB where 22 MiB are used, and the zeroing doubled the system time
    // (BENCHMARKS.md). Refused by an old kernel: it only costs memory.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    // The variables that are valid UTF-8, captured as the helper captures them.
    let vars = notesoup_app::Context::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let stdout = std::io::stdout();
    let env = Env::new(vars.vars(), cwd, stdout.is_terminal())
        .with_terminal(std::io::stderr().is_terminal(), columns(&stdout))
        .with_stdin_terminal(std::io::stdin().is_terminal())
        .with_zone(zone(&vars))
        .with_pager_start(hand_signals_to_pager);
    let report = run_to(std::env::args_os(), &env, Box::new(std::io::stdout()));
    let printed = print(&report, &env);
    ExitCode::from(if printed {
        report.exit
    } else {
        report.exit.max(1)
    })
}

/// The person's time zone: the zoneinfo file `TZ` or `/etc/localtime` names, else `TZ` read
/// as the C library reads it (a zone name in any case, a path, a POSIX rule) and the
/// system's zone; a `TZ` neither can read, or no zone at all, is UTC (and `doctor` says so).
fn zone(vars: &notesoup_app::Context) -> notesoup_cli::Zone {
    let (tz, tzdir) = (vars.var("TZ"), vars.var("TZDIR"));
    let found =
        notesoup_cli::named_zone(tz, tzdir).or_else(|| notesoup_cli::system_zone(tz, tzdir));
    notesoup_cli::Zone::found(found, tz)
}

/// Whether no pager runs now, read by the handlers [`hand_signals_to_pager`] installs.
static NO_PAGER: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Ctrl-C and Ctrl-\ on the terminal reach the pager too, whose they are while it shows
/// the text (less stops a search or `F` with them): while the pager runs notesoup lets
/// them pass and waits for the person to quit it, as git does; dying would hand the
/// terminal back to the shell while the pager still reads it. Once the pager has ended or
/// turned out not to run (`paging` false), they end notesoup as they would have (the
/// default action, emulated). Handlers, not "ignore", so the pager starts with the default
/// dispositions (exec resets handled signals, not ignored ones). Not installed (it cannot
/// fail for these two): notesoup behaves as it did.
fn hand_signals_to_pager(paging: bool) {
    let no_pager = NO_PAGER.get_or_init(|| {
        let no_pager = Arc::new(AtomicBool::new(true));
        for signal in [SIGINT, SIGQUIT] {
            let _ = signal_hook::flag::register_conditional_default(signal, Arc::clone(&no_pager));
        }
        no_pager
    });
    no_pager.store(!paging, Ordering::SeqCst);
}

/// The terminal's width in columns, when stdout is one.
fn columns(stdout: &std::io::Stdout) -> Option<usize> {
    let size = rustix::termios::tcgetwinsize(stdout).ok()?;
    Some(usize::from(size.ws_col))
}

/// Writes the report: what is left of stdout (`--help`: the run wrote the rest itself),
/// through the pager on a terminal, then stderr, so that the footer naming what to run next
/// comes last; a closed stdout (`notesoup ... | head`) is not an error. False when stdout
/// refused the text otherwise (a full disk: `notesoup --help > /dev/full`), said on stderr.
fn print(report: &Report, env: &Env) -> bool {
    let stdout: Box<dyn std::io::Write> = Box::new(std::io::stdout());
    let mut to: Box<dyn std::io::Write> = if report.pager {
        Box::new(notesoup_cli::Paged::new(stdout, env))
    } else {
        stdout
    };
    let written = to
        .write_all(report.stdout.as_bytes())
        .and_then(|()| to.flush());
    // The pager is waited for before stderr is written.
    drop(to);
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(report.stderr.as_bytes());
    match written {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            let _ = writeln!(
                stderr,
                "notesoup: could not write the output to stdout: {err}"
            );
            false
        }
        _ => true,
    }
}
