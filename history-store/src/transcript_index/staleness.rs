//! Whether an index still vouches for its transcript without reading it (the module's
//! invariant in [`super`]: the times, git's "racily clean" rule), and when it is rewritten.

use notesoup_history_claude::index::{Covered, Stat};

/// A file whose status-change time lies within this many nanoseconds before its index was
/// written is not trusted on its times (a write in the same clock tick would not show).
pub(super) const RACY: i128 = 2_000_000_000;
/// The index is rewritten when the committed lines decoded past it reach this many
/// bytes, or a quarter of what it covers (smaller appends are decoded on every call).
pub(super) const REWRITE_BYTES: u64 = 2 << 20;

/// What `meta` says of the file's content.
#[cfg(unix)]
pub(super) fn stat_of(meta: &std::fs::Metadata) -> Stat {
    use std::os::unix::fs::MetadataExt;
    let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    Stat {
        size: meta.len(),
        modified: ns(meta.mtime(), meta.mtime_nsec()),
        changed: ns(meta.ctime(), meta.ctime_nsec()),
    }
}

/// Without a status-change time nothing is trusted on times: `changed` is the latest
/// possible, so [`unchanged`] never holds.
#[cfg(not(unix))]
pub(super) fn stat_of(meta: &std::fs::Metadata) -> Stat {
    Stat {
        size: meta.len(),
        modified: 0,
        changed: i128::MAX,
    }
}

/// Nanoseconds since the epoch now (0 when the clock is before it).
pub(super) fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// True when the file `now` (its metadata before this call reads it) is the one the index
/// `covered` was made from, by its times alone (see the module's invariant).
pub(super) fn unchanged(covered: &Covered, now: Stat) -> bool {
    now == covered.seen && covered.seen.changed.saturating_add(RACY) < covered.written
}

/// Whether a call that decoded the committed lines from byte `start` to `committed`
/// rewrites the index: a first one once the file reaches `min_bytes`, else when the lines
/// decoded past it reach [`REWRITE_BYTES`] or a quarter of what it covers.
pub(super) fn stale(start: u64, committed: u64, min_bytes: u64) -> bool {
    let lag = committed - start;
    if start == 0 {
        committed > 0 && committed >= min_bytes
    } else {
        lag > 0 && (lag >= REWRITE_BYTES || lag >= start / 4)
    }
}

/// Whether a call whose index vouched for the file by its hash alone (`hashed`: the file
/// was touched since, or indexed within [`RACY`] of its last change) writes the index again
/// although it does not lag: when it covers every committed line (`start == committed`) and
/// the file's last change, as `seen` before this call read it, lies more than [`RACY`]
/// before `now`, so the index written now is trusted on its times by every later call
/// until the file changes (git refreshes a racily clean index the same way). A file still
/// being written, or that has grown, is left to [`stale`]'s rule.
pub(super) fn refresh(hashed: bool, start: u64, committed: u64, seen: Stat, now: i128) -> bool {
    hashed && start > 0 && start == committed && seen.changed.saturating_add(RACY) < now
}

#[cfg(unix)]
pub(super) fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
pub(super) fn identity(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}
