//! Test support shared by the history decoders' robustness tests and the benchmark
//! generator: a tiny deterministic PRNG (splitmix64, no new dependency), random edits of
//! real transcripts, random bytes, and the checks every decoder must pass (answers fit
//! the budget; a prefix of a transcript keeps its seqs); the file-system tests'
//! fixtures ([`Scratch`] folders, [`mkfifo`]); and [`run_piped`], a process given its whole
//! stdin (the helper binary's request).
//!
//! It may read the environment (`NOTESOUP_FUZZ_ITERS`), fixture files and the temp
//! folder, because no shipped code runs it.
//!
//! # Invariants
//!
//! - Its randomness is seeded: equal seeds give equal edits, so a failure replays.
//! - Not published, and only ever a dev-dependency (and a dependency of the unpublished
//!   `benches`); a path-only workspace dependency, so `cargo package` drops it from the
//!   published crates.
//!
//! ```
//! use notesoup_testkit::{Rng, line_ends, mutate};
//!
//! let original = b"{\"a\":1}\n{\"b\":2}\n";
//! let mut a = Rng::new(7);
//! let mut b = Rng::new(7);
//! // Equal seeds, equal edits: a failure replays.
//! assert_eq!(mutate(&mut a, original), mutate(&mut b, original));
//! assert!(a.below(10) < 10);
//! assert_eq!(line_ends(original), [8, 16]);
//! ```

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::Path;

use notesoup_history_core::{
    ANSWER_LIMIT, Answer, Body, History, ListArgs, ReadArgs, Role, Seq, Transcript,
};

/// splitmix64: tiny, deterministic, good enough to drive mutations and generated text.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator started at `seed`; equal seeds give equal sequences.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        // The remainder is below `n`, itself a `usize`: the conversion cannot fail.
        usize::try_from(self.next_u64() % (n.max(1) as u64)).unwrap_or(0)
    }

    /// One random byte (one draw of `below(256)`).
    pub fn byte(&mut self) -> u8 {
        u8::try_from(self.below(256)).unwrap_or(0)
    }

    /// Up to `max - 1` random bytes (`below(max)` draws the length first).
    pub fn bytes(&mut self, max: usize) -> Vec<u8> {
        (0..self.below(max)).map(|_| self.byte()).collect()
    }
}

/// `NOTESOUP_FUZZ_ITERS` when set to a number (runs longer by hand), else `default`
/// (bounded for `scripts/test`).
pub fn iterations(default: usize) -> usize {
    std::env::var("NOTESOUP_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One random edit of `bytes`: flip a byte, cut a range, repeat or swap lines, tear the
/// tail, or insert junk.
pub fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return out;
    }
    match rng.below(6) {
        0 => {
            let at = rng.below(out.len());
            // 1..=255: the byte always changes.
            out[at] ^= u8::try_from(1 + rng.below(255)).unwrap_or(1);
        }
        1 => {
            let at = rng.below(out.len());
            let len = rng.below(64).min(out.len() - at);
            out.drain(at..at + len);
        }
        2 | 3 => {
            let mut lines: Vec<Vec<u8>> = out.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            let a = rng.below(lines.len());
            let b = rng.below(lines.len());
            if rng.below(2) == 0 {
                let copy = lines[a].clone();
                lines.insert(b, copy);
            } else {
                lines.swap(a, b);
            }
            out = lines.join(&b'\n');
        }
        4 => out.truncate(rng.below(out.len())),
        _ => {
            let at = rng.below(out.len());
            let junk = rng.bytes(16);
            out.splice(at..at, junk);
        }
    }
    out
}

/// A reader that gives its bytes, then fails every read: a disk gone in the middle of a
/// file.
pub struct FailsAfter<'a> {
    /// What it gives before it fails.
    pub bytes: &'a [u8],
}

impl std::io::Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.bytes.is_empty() {
            return Err(std::io::Error::other("the disk went away"));
        }
        self.bytes.read(buf)
    }
}

/// A JSONL file of `lines`, each ending with a newline (empty for no lines).
pub fn jsonl(lines: &[&str]) -> String {
    let mut text = lines.join("\n");
    if !lines.is_empty() {
        text.push('\n');
    }
    text
}

/// Offsets just past each newline of `bytes`: the places a growing file can be cut.
pub fn line_ends(bytes: &[u8]) -> Vec<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

/// Both tools answer within the budget on any decoded history (errors are fine, panics
/// and oversized answers fail).
///
/// # Panics
/// When an answer is larger than [`ANSWER_LIMIT`].
pub fn answers_fit(t: Transcript) {
    let Ok(history) = History::new(t) else { return };
    for args in [
        ListArgs::default(),
        ListArgs {
            query: Some("e".into()),
            ..ListArgs::default()
        },
    ] {
        if let Ok(answer) = history.list(&args) {
            assert!(answer.text.as_str().len() <= ANSWER_LIMIT);
        }
    }
    let read = ReadArgs {
        from: Some(1),
        to: Some(500),
        ..ReadArgs::default()
    };
    if let Ok(answer) = history.read(&read) {
        assert!(answer.text.as_str().len() <= ANSWER_LIMIT);
    }
}

/// (record, index within record) → seq, for every selected event.
fn addresses(t: &Transcript) -> HashMap<(String, usize), Seq> {
    let mut out = HashMap::new();
    let mut last: Option<(&str, usize)> = None;
    for e in &t.events {
        let k = match last {
            Some((r, k)) if *r == *e.record => k + 1,
            _ => 0,
        };
        // Events of one record have consecutive seqs; index them by offset from the first.
        out.insert((e.record.to_string(), k), e.seq);
        last = Some((&e.record, k));
    }
    out
}

/// Every event `prefix` (an earlier state of the file) and `full` both hold has the same
/// seq in both: appending never moves an earlier address.
///
/// # Panics
/// When an event moved; the message names `what` and the event.
pub fn assert_prefix_stable(prefix: &Transcript, full: &Transcript, what: &str) {
    let full = addresses(full);
    for (key, seq) in addresses(prefix) {
        if let Some(later) = full.get(&key) {
            assert_eq!(*later, seq, "{what}: {key:?} moved");
        }
    }
}

/// Every event's text, a tool call's being its name: what a decoder test reads back.
pub fn texts(t: &Transcript) -> Vec<String> {
    t.events
        .iter()
        .map(|e| match &e.body {
            Body::Text { text } | Body::ToolResult { text, .. } => text.clone(),
            Body::ToolCall { name, .. } => name.clone(),
        })
        .collect()
}

/// Every event as (seq, role, window id, text), a tool call's text being `<name> <input>`:
/// what real-data tests compare against what the harness showed.
pub fn rows(t: &Transcript) -> Vec<(u64, Role, String, String)> {
    t.events
        .iter()
        .map(|e| {
            let text = match &e.body {
                Body::Text { text } | Body::ToolResult { text, .. } => text.clone(),
                Body::ToolCall { name, input, .. } => format!("{name} {input}"),
            };
            (e.seq, e.role, e.window.to_string(), text)
        })
        .collect()
}

/// The two tools over a real session with a tool call: a search for `query` lists the call
/// (its line names `tool`), and reading the first call's result (the seq after it) shows
/// the call, paired. Returns that read for the caller's own checks.
///
/// # Panics
/// When a tool refuses, the page lacks `tool`, there is no call, or the pair is not shown.
pub fn assert_tools_pair_calls(history: &History, query: &str, tool: &str) -> Answer {
    let page = history
        .list(&ListArgs {
            query: Some(query.into()),
            ..ListArgs::default()
        })
        .unwrap_or_else(|e| panic!("history_list {query:?}: {e}"));
    assert!(page.text.as_str().contains(tool), "{}", page.text.as_str());
    let call = history
        .events()
        .iter()
        .find(|e| matches!(e.body, Body::ToolCall { .. }))
        .unwrap_or_else(|| panic!("no tool call in {}", history.head_window_id()));
    let read = history
        .read(&ReadArgs {
            seq: Some(call.seq + 1),
            ..ReadArgs::default()
        })
        .unwrap_or_else(|e| panic!("history_read {}: {e}", call.seq + 1));
    assert_eq!(read.shown, vec![call.seq]);
    read
}

/// Dates the file at `path`: sets its modification time to `at`.
///
/// # Panics
/// When the file cannot be opened for writing or its time set.
pub fn set_modified(path: &Path, at: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|file| file.set_modified(at))
        .unwrap_or_else(|e| panic!("set the time of {}: {e}", path.display()));
}

/// Copies every file under `from` into `to`, folders made as needed (fixture trees into a
/// scratch home).
///
/// # Panics
/// When a file or folder cannot be read or written (a missing fixture fails the test).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    let entries = std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("fixture folder {}: {e}", from.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", from.display()))
            .path();
        let Some(name) = path.file_name() else {
            continue;
        };
        let target = to.join(name);
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target)
                .unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()));
        }
    }
}

/// The files directly in `dir` that `keep` accepts, as (file name, bytes), sorted by name.
///
/// # Panics
/// When `dir` or a file cannot be read (a missing fixture fails the test).
pub fn files_in(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<(String, Vec<u8>)> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("fixture folder {}: {e}", dir.display()));
    let mut out: Vec<(String, Vec<u8>)> = entries
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|p| keep(p))
        .map(|p| {
            let bytes =
                std::fs::read(&p).unwrap_or_else(|e| panic!("fixture {}: {e}", p.display()));
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (name.unwrap_or_default(), bytes)
        })
        .collect();
    out.sort();
    out
}

/// A scratch folder under the system temp folder, fresh for each call (process id and a
/// per-process count in its name) and removed on drop: the setup the file-system tests of
/// safe-fs, window-store, notes and history-store share.
#[derive(Debug)]
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    /// `<temp>/notesoup-<tag>-<pid>-<n>`, emptied and made.
    ///
    /// # Panics
    /// When the folder cannot be made (the test cannot run).
    pub fn new(tag: &str) -> Self {
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "notesoup-{tag}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("scratch {}: {e}", dir.display()));
        Self(dir)
    }

    /// The names directly in the folder, sorted.
    ///
    /// # Panics
    /// When the folder cannot be listed.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap_or_else(|e| panic!("{}: {e}", self.0.display()))
            .map(|e| {
                let entry = e.unwrap_or_else(|e| panic!("{}: {e}", self.0.display()));
                entry.file_name().to_string_lossy().into_owned()
            })
            .collect();
        names.sort();
        names
    }

    /// Every path below the folder, relative, sorted (links listed, not followed).
    ///
    /// # Panics
    /// When a folder below it cannot be listed.
    pub fn tree(&self) -> Vec<String> {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            let entries =
                std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            for entry in entries {
                let path = entry
                    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                    .path();
                let relative = path.strip_prefix(root).unwrap_or(&path);
                out.push(relative.display().to_string());
                if path.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                    walk(root, &path, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.0, &self.0, &mut out);
        out.sort();
        out
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Make a FIFO at `path` (its parent folders too) with `mkfifo(1)`: the hostile file the
/// no-wait tests put where a regular file belongs.
///
/// # Panics
/// When the FIFO cannot be made.
pub fn mkfifo(path: &Path) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
    }
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap_or_else(|e| panic!("mkfifo {}: {e}", path.display()));
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Runs `command` with `stdin` as its whole standard input, its stdout and stderr captured;
/// waits for it.
///
/// # Panics
/// When the process cannot be started or its input written.
pub fn run_piped(command: &mut std::process::Command, stdin: &[u8]) -> std::process::Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    child
        .stdin
        .take()
        .unwrap_or_else(|| panic!("{command:?}: no stdin"))
        .write_all(stdin)
        .unwrap_or_else(|e| panic!("{command:?}: writing stdin: {e}"));
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"))
}
