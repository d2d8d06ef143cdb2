//! `gen-transcript <bytes> [seed]`: writes a generated Claude transcript of at least
//! `<bytes>` bytes to stdout (for the whole-process comparison in BENCHMARKS.md);
//! `gen-transcript --events <n> [seed]`: one of at least `<n>` events (what the criterion
//! benches decode, with seed 42); `gen-transcript --sparse <bytes> [seed]`: tool results
//! of whole files (16–64 KB), about ten times fewer events per megabyte.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let by_events = args.first().is_some_and(|a| a == "--events");
    let sparse = args.first().is_some_and(|a| a == "--sparse");
    if by_events || sparse {
        args.remove(0);
    }
    let Some(size) = args.first().and_then(|b| b.parse::<usize>().ok()) else {
        let _ = writeln!(
            std::io::stderr(),
            "usage: gen-transcript [--sparse] <bytes> [seed] | gen-transcript --events <n> [seed]"
        );
        return ExitCode::from(2);
    };
    let seed = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(7);
    let text = if by_events {
        notesoup_benches::generate(size, seed)
    } else if sparse {
        notesoup_benches::generate_bytes_sparse(size, seed)
    } else {
        notesoup_benches::generate_bytes(size, seed)
    };
    if std::io::stdout().lock().write_all(text.as_bytes()).is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
