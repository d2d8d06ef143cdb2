//! `gen-transcript <bytes> [seed]`: writes a generated Claude transcript of at least
//! `<bytes>` bytes to stdout (for the whole-process comparison in BENCHMARKS.md).

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(bytes) = args.next().and_then(|b| b.parse::<usize>().ok()) else {
        let _ = writeln!(std::io::stderr(), "usage: gen-transcript <bytes> [seed]");
        return ExitCode::from(2);
    };
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(7);
    let text = notesoup_benches::generate_bytes(bytes, seed);
    if std::io::stdout().lock().write_all(text.as_bytes()).is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
