//! `safe-floor count TEXT FILE` and `safe-floor validate TEXT FILE`: the least a reading of
//! one transcript under the project's rules can cost, for issue 30's history rows
//! (`benches/compare-rg.sh` times each against `rg -F -c` in the same run).
//!
//! Both read FILE as the history does, with `read(2)` into one 1 MiB buffer, never mapping
//! it (a mapping is an `unsafe` call, which the code rules exclude), and print the number
//! of lines holding TEXT, as `rg -F -c TEXT FILE` does. `count` does nothing else: it is
//! the floor of any answer that must see every byte (a warm search with no index of the
//! text). `validate` also passes every committed line through `serde_json`'s validating
//! parse, building nothing (`IgnoredAny`): the spec refuses a malformed committed line,
//! so a call with no index cannot do less, and it exits 1 on the first line it refuses.

use std::fs::File;
use std::io::{Read, Write};
use std::process::ExitCode;

use memchr::memmem;

/// The read buffer: the size the history reads a transcript in.
const PIECE: usize = 1 << 20;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (validate, text, path) = match args.as_slice() {
        [mode, text, path] if mode == "count" => (false, text, path),
        [mode, text, path] if mode == "validate" => (true, text, path),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "usage: safe-floor count|validate TEXT FILE"
            );
            return ExitCode::from(2);
        }
    };
    match run(validate, text.as_bytes(), path) {
        Ok(lines) => {
            let _ = writeln!(std::io::stdout(), "{lines}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "safe-floor: {path}: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The number of lines of the file at `path` holding `text`, each committed line first
/// validated when `validate` is set.
fn run(validate: bool, text: &[u8], path: &str) -> Result<u64, String> {
    let finder = memmem::Finder::new(text);
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; PIECE];
    // Bytes of a line begun in the last piece, kept at the buffer's start.
    let mut kept = 0;
    let mut lines = 0u64;
    let mut line_no = 0u64;
    loop {
        if kept == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = file.read(&mut buf[kept..]).map_err(|e| e.to_string())?;
        let end = kept + n;
        // The committed part: up to and including the last newline (all of it at the end).
        let cut = if n == 0 {
            end
        } else {
            let Some(at) = memchr::memrchr(b'\n', &buf[..end]) else {
                // No line ends in what was read: read on into the buffer.
                kept = end;
                continue;
            };
            at + 1
        };
        let whole = &buf[..cut];
        if validate {
            for line in whole.split(|&b| b == b'\n') {
                if line.is_empty() {
                    continue;
                }
                line_no += 1;
                // A torn final line (no newline) is tolerated, as the history tolerates it.
                let committed = n != 0 || whole.ends_with(b"\n");
                if committed && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err() {
                    return Err(format!("line {line_no} is not JSON"));
                }
            }
        }
        lines += count_lines(&finder, whole);
        if n == 0 {
            return Ok(lines);
        }
        buf.copy_within(cut..end, 0);
        kept = end - cut;
    }
}

/// How many lines of `bytes` hold the finder's text (each counted once, as `rg -c` does).
fn count_lines(finder: &memmem::Finder<'_>, bytes: &[u8]) -> u64 {
    let mut lines = 0;
    let mut at = 0;
    while let Some(found) = finder.find(&bytes[at..]) {
        lines += 1;
        let hit = at + found;
        match memchr::memchr(b'\n', &bytes[hit..]) {
            Some(nl) => at = hit + nl + 1,
            None => break,
        }
    }
    lines
}

#[cfg(test)]
mod tests;
