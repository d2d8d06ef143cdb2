//! When a session was last active: the last time its file records, read from the file's
//! tail (the decoder of its harness says what time a line records), else when the file was
//! last written.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use notesoup_history_codex::{DECOMPRESSED_MAX_BYTES, Inflate};
use notesoup_safe_fs::open_regular;
use notesoup_vault_store::KeptCopy;
use notesoup_window::Host;

use super::at::Ranged;
use super::read::ZSTD_MAGIC;
use super::{Found, Scan};

/// The first tail read of a session file for its last time: enough for the last lines of
/// most sessions.
const TAIL_FIRST_BYTES: u64 = 16 * 1024;
/// The most of a file's end read for its last time (the tail grows four times each read
/// that holds no whole line with a time, up to this); past it, the file's last write.
pub const TAIL_MAX_BYTES: u64 = 16 * 1024 * 1024;

impl Scan {
    /// When the session `found` was last active, in milliseconds since the Unix epoch: the
    /// time of the last line of its file that records one, read from a bounded tail of the
    /// file (the decoder of its harness reads the lines: `last_time` of `history-claude`,
    /// `history-pi`, `history-codex`). For a file only the vault holds, the time the vault
    /// recorded when it kept the copy (read from the original's tail by the same rule,
    /// without decompressing the copy); of a copy kept without it (by an earlier notesoup),
    /// the copy's tail by the same rule, the pieces that hold it alone decompressed. Else
    /// (no line in the last [`TAIL_MAX_BYTES`] records a time, a file or a copy that cannot be
    /// read) when the file was last written.
    /// `None` when neither is known.
    pub fn updated(&self, found: &Found) -> Option<u64> {
        // A harness whose lines record no time has no session files.
        time_of(found.harness)?;
        let recorded = if found.vaulted.is_some() {
            // What the keep recorded (as [`recorded_time`] read the original), else the
            // copy's tail by the same rule (only the pieces that hold it are decompressed).
            match self.reader.kept_facts(found) {
                Some(facts) => facts.last_time,
                None => self
                    .reader
                    .kept_copy(found)
                    .and_then(|copy| copy_last_time(found, &copy)),
            }
        } else {
            open_regular(&found.path)
                .ok()
                .and_then(|(file, meta)| recorded_time(found.harness, &found.path, &file, meta.len))
        };
        recorded.or_else(|| {
            found
                .modified
                .duration_since(UNIX_EPOCH)
                .ok()
                .filter(|since| !since.is_zero())
                .and_then(|since| u64::try_from(since.as_millis()).ok())
        })
    }

    /// Every session this scan found, each with when it was last active ([`Scan::updated`]),
    /// newest first (ties by id).
    pub fn by_updated(&self) -> Vec<(&Found, Option<u64>)> {
        let mut sessions: Vec<_> = self.sessions.iter().map(|f| (f, self.updated(f))).collect();
        sessions.sort_by(|(a, at), (b, bt)| bt.cmp(at).then_with(|| a.id.cmp(&b.id)));
        sessions
    }
}

/// What time a harness's line records: its decoder's rule.
type TimeOf = fn(&[u8]) -> Option<u64>;

/// The decoder's rule for `harness`'s lines.
fn time_of(harness: Host) -> Option<TimeOf> {
    match harness {
        Host::Claude => Some(notesoup_history_claude::last_time),
        Host::Pi => Some(notesoup_history_pi::last_time),
        Host::Codex => Some(notesoup_history_codex::last_time),
        Host::Mcp => None,
    }
}

/// The last time the first `len` bytes of `harness`'s session file `path`, open as `file`,
/// record: their tail read by [`tail_time`]; of a compressed `.jsonl.zst` rollout, the tail
/// of what it decompresses to ([`inflated_tail`]: a zstd stream has no tail of its own to
/// read). `None` when no line of the tail records one, or the rollout does not decompress.
/// What a listing takes as the session's last activity, from its file or as the vault
/// recorded it when it was kept.
pub(super) fn recorded_time(
    harness: Host,
    path: &Path,
    file: &dyn Ranged,
    len: u64,
) -> Option<u64> {
    let time_of = time_of(harness)?;
    if path.extension().is_some_and(|e| e == "zst") {
        let tail = inflated_tail(&path.display().to_string(), file.range(0, len))?;
        return tail_time(&tail, tail.len() as u64, time_of);
    }
    tail_time(file, len, time_of)
}

/// The last [`TAIL_MAX_BYTES`] (or a little more) of what the zstd frames `compressed`
/// decompress to, from the start of a line, or the whole of it when shorter. Decompressed
/// as they are read (at most [`DECOMPRESSED_MAX_BYTES`], as every read of a rollout), a
/// piece at a time, and only the pieces that may hold the tail are kept. `None` when it does
/// not decompress (Codex compresses a rollout older than a week when its next process
/// starts, so the file's last write is when it was compressed, not the session's last
/// activity).
fn inflated_tail(name: &str, compressed: Box<dyn Read + '_>) -> Option<Vec<u8>> {
    let compressed = std::io::BufReader::with_capacity(TAIL_PIECE, compressed);
    let mut inflate = Inflate::new(name, compressed, DECOMPRESSED_MAX_BYTES);
    let mut pieces: VecDeque<Vec<u8>> = VecDeque::new();
    let (mut kept, mut cut) = (0usize, false);
    let max = usize::try_from(TAIL_MAX_BYTES).unwrap_or(usize::MAX);
    loop {
        let mut piece = Vec::with_capacity(TAIL_PIECE);
        let n = (&mut inflate)
            .take(TAIL_PIECE as u64)
            .read_to_end(&mut piece)
            .ok()?;
        if n == 0 {
            break;
        }
        kept += n;
        pieces.push_back(piece);
        while pieces
            .front()
            .is_some_and(|front| kept - front.len() >= max)
        {
            kept -= pieces.pop_front().map_or(0, |front| front.len());
            cut = true;
        }
    }
    let mut tail = Vec::with_capacity(kept);
    while let Some(piece) = pieces.pop_front() {
        tail.extend_from_slice(&piece);
    }
    if cut {
        // It starts with the end of a line: not a line.
        let line = memchr::memchr(b'\n', &tail).map_or(tail.len(), |at| at + 1);
        tail.drain(..line);
    }
    Some(tail)
}

/// How much of a decompressed rollout [`inflated_tail`] reads at a time.
const TAIL_PIECE: usize = 1 << 20;

/// The last time the lines at the end of `file`'s first `len` bytes record, read a tail at a
/// time: [`TAIL_FIRST_BYTES`], four times more while the tail holds no whole line with a
/// time, at most [`TAIL_MAX_BYTES`]. The file is only read, at its offsets (its position
/// is not moved).
fn tail_time(file: &dyn Ranged, len: u64, time_of: TimeOf) -> Option<u64> {
    let mut want = TAIL_FIRST_BYTES;
    let mut tail = Vec::new();
    loop {
        let from = len.saturating_sub(want);
        tail.clear();
        file.range(from, len).read_to_end(&mut tail).ok()?;
        // A tail that starts mid-file starts with the end of a line: it is not a line.
        let lines = if from == 0 {
            &tail[..]
        } else {
            memchr::memchr(b'\n', &tail).map_or(&[][..], |at| &tail[at + 1..])
        };
        if let Some(time) = time_of(lines) {
            return Some(time);
        }
        if from == 0 || want >= TAIL_MAX_BYTES {
            return None;
        }
        want = (want * 4).min(TAIL_MAX_BYTES);
    }
}

/// The last time a copy kept without facts records, read from its tail by the rule
/// [`describe_copy`](super::describe_copy) records it by: what a listing shows of it until `notesoup history
/// vault` records its facts.
pub(super) fn copy_last_time(found: &Found, copy: &KeptCopy) -> Option<u64> {
    recorded_time(found.harness, &copy_path(found, copy), copy, copy.len())
}

/// The path a copy is read as: a Codex copy that is zstd frames as the `.jsonl.zst` it was
/// kept from, any other as `found`'s.
pub(super) fn copy_path(found: &Found, copy: &KeptCopy) -> PathBuf {
    let mut start = [0; ZSTD_MAGIC.len()];
    let compressed = found.harness == Host::Codex
        && copy
            .range(0, start.len() as u64)
            .read_exact(&mut start)
            .is_ok()
        && start == ZSTD_MAGIC;
    if compressed {
        found.path.with_extension("jsonl.zst")
    } else {
        found.path.clone()
    }
}
