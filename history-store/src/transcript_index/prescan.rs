//! The raw search of a transcript's covered lines for a warm search's query, on a thread of
//! its own beside the index's load ([`Prescan`]).

use std::fs::File;
use std::sync::Arc;

use notesoup_history_claude::RawQuery;

use super::blocks::SCAN_BYTES;
use super::blocks::read_at;
use crate::LINE_MAX_BYTES;

/// The most matches a [`Prescan`] keeps: past it, the search reads the lines itself, as it
/// does without one (so the matches kept take at most a few MiB).
const PRESCAN_HITS: usize = 1 << 18;

/// The raw search of a transcript's covered lines for one query, run on a thread of its own
/// while the index is read and the history built: the one pass over the file a warm search
/// makes needs nothing of the index but where the covered lines end. It finds every match of
/// the query as it is (with the run of backslashes right before it, all that
/// [`TextSpan::holds_match`](notesoup_history_claude::TextSpan::holds_match) reads of the line)
/// and of its JSON-escaped form in the whole lines up to the covered length; which lines and
/// rows those mean is decided by [`LineBodies::scan`](super::LineBodies::scan) once the rows
/// are known, by the same rules as its own reads (the `\u` and `\/` escapes, which count only
/// in the few lines of rows not wholly spanned, it reads itself). A file that ends early, a
/// line over [`LINE_MAX_BYTES`] or more than [`PRESCAN_HITS`] matches give no result, and the
/// search then reads the lines itself. Dropped unjoined (the index was not used), it stops at
/// its next block.
pub(super) struct Prescan {
    stop: Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<Option<Hits>>>,
}

/// What a [`Prescan`] found.
pub(super) struct Hits {
    /// The bytes searched: the whole lines before this offset.
    pub(super) len: u64,
    /// Each match of the query as it is: its offset in the file, and how many backslashes
    /// run right before it on its line (0 for a query with a backslash, a quote or a
    /// control character: no escaped text surely holds one, and an input's match needs no
    /// count).
    pub(super) plain: Vec<(u64, usize)>,
    /// Each match of the query as JSON escapes it (when that differs): its offset.
    pub(super) escaped: Vec<u64>,
}

impl Prescan {
    /// Starts the search of the first `len` bytes of `file` (whole lines) for `query`;
    /// `None` when no thread or handle can be had (the search then reads the lines itself).
    pub(super) fn start(file: &File, query: RawQuery, len: u64) -> Option<Prescan> {
        let file = file.try_clone().ok()?;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .spawn(move || Self::run(&file, &query, len, &stopped))
            .ok()?;
        Some(Prescan {
            stop,
            handle: Some(handle),
        })
    }

    fn run(
        file: &File,
        query: &RawQuery,
        len: u64,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Option<Hits> {
        let mut buf = vec![0; usize::try_from(SCAN_BYTES).unwrap_or(1 << 20)];
        let mut hits = Hits {
            len: 0,
            plain: Vec::new(),
            escaped: Vec::new(),
        };
        while hits.len < len {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return None;
            }
            let from = hits.len;
            let want = usize::try_from(len - from).map_or(buf.len(), |left| left.min(buf.len()));
            read_at(file, &mut buf[..want], from).ok()?;
            // Whole lines only (no pattern holds a line break, so no match is cut).
            let Some(end) = memchr::memrchr(b'\n', &buf[..want]) else {
                // The end of the bytes searched, in a line that goes on past them.
                if want < buf.len() {
                    break;
                }
                // A line longer than the buffer: read it again into a larger one.
                if buf.len() > LINE_MAX_BYTES {
                    return None;
                }
                buf.resize((buf.len() * 2).min(LINE_MAX_BYTES + 1), 0);
                continue;
            };
            let lines = &buf[..end];
            hits.plain
                .extend(query.plain(lines).map(|(at, run)| (from + at as u64, run)));
            hits.escaped
                .extend(query.escaped(lines).map(|at| from + at as u64));
            if hits.plain.len() + hits.escaped.len() > PRESCAN_HITS {
                return None;
            }
            hits.len = from + end as u64 + 1;
        }
        Some(hits)
    }

    /// What it found, once it is done.
    pub(super) fn join(mut self) -> Option<Hits> {
        self.handle.take()?.join().ok().flatten()
    }
}

impl Drop for Prescan {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
