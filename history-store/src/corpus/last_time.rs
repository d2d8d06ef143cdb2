//! When a session was last active: the last time its file records, read from the file's
//! tail (the decoder of its harness says what time a line records), else when the file was
//! last written.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;
use std::time::UNIX_EPOCH;

use notesoup_safe_fs::open_regular;
use notesoup_window::Host;

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
    /// `history-pi`, `history-codex`); a file only the vault holds is read whole from its
    /// copy when it holds at most [`TAIL_MAX_BYTES`]. Else (no line in the last
    /// [`TAIL_MAX_BYTES`] records a time, a compressed `.jsonl.zst` rollout, a larger vault
    /// copy, a file that cannot be read) when the file was last written. `None` when neither
    /// is known.
    pub fn updated(&self, found: &Found) -> Option<u64> {
        let time_of = time_of(found.harness)?;
        let recorded = if found.vaulted.is_some() {
            self.vault_time(found, time_of)
        } else if found.path.extension().is_none_or(|e| e != "zst") {
            tail_time(&found.path, time_of)
        } else {
            None
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

impl Scan {
    /// The last time a file only the vault holds records, when its copy is plain lines of at
    /// most [`TAIL_MAX_BYTES`] (read whole: a copy is read from its start).
    fn vault_time(&self, found: &Found, time_of: TimeOf) -> Option<u64> {
        let (copy, compressed) = self.reader.vault_copy(found).ok()?;
        if compressed || copy.len() > TAIL_MAX_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        copy.take(TAIL_MAX_BYTES).read_to_end(&mut bytes).ok()?;
        time_of(&bytes)
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

/// The last time the lines at the end of the file at `path` record, read a tail at a time:
/// [`TAIL_FIRST_BYTES`], four times more while the tail holds no whole line with a time,
/// at most [`TAIL_MAX_BYTES`]. The file is only read.
fn tail_time(path: &Path, time_of: TimeOf) -> Option<u64> {
    let (mut file, meta) = open_regular(path).ok()?;
    let mut want = TAIL_FIRST_BYTES;
    let mut tail = Vec::new();
    loop {
        let from = meta.len.saturating_sub(want);
        tail.clear();
        file.seek(SeekFrom::Start(from)).ok()?;
        (&mut file)
            .take(meta.len - from)
            .read_to_end(&mut tail)
            .ok()?;
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
