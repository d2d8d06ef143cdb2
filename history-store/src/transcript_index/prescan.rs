//! One read of a transcript's covered lines on a thread of its own beside the index's load:
//! the raw search for a warm search's query, and the hashes of the prefix's whole blocks
//! ([`Prescan`]).

use std::fs::File;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use notesoup_history_claude::RawQuery;
use notesoup_history_claude::index::{BLOCK, PrefixHash};

use super::blocks::read_at;
use crate::LINE_MAX_BYTES;

/// The most matches a [`Prescan`] keeps: past it, the search reads the lines itself, as it
/// does without one (so the matches kept take at most a few MiB).
const PRESCAN_HITS: usize = 1 << 18;

/// One pass over a transcript's covered prefix, on a thread of its own while the index is
/// read and the history built: the raw search of its lines for a warm search's query, and
/// the hashes of its whole blocks when the file's times cannot vouch for the prefix (grown
/// since, as a live session's is after every turn; touched; indexed within the racy
/// window). Neither needs anything of the index but where the covered lines end, and both
/// read the same bytes, so they are read once, in aligned [`BLOCK`]s, through a second
/// handle of the call's file (never one opened again by path): what is hashed is what a
/// read in turn would have hashed, the same bytes of the same file read at another moment,
/// as any two blocks of one read are.
///
/// The search finds every match of the query as it is (with the run of backslashes right
/// before it, all that
/// [`TextSpan::holds_match`](notesoup_history_claude::TextSpan::holds_match) reads of the
/// line) and of its JSON-escaped form in the whole lines up to the covered length (a line
/// that runs across blocks is searched whole); which lines and rows those mean is decided
/// by [`LineBodies::scan`](super::LineBodies::scan) once the rows are known, by the same
/// rules as its own reads (the `\u` and `\/` escapes, which count only in the few lines of
/// rows not wholly spanned, it reads itself). A line over [`LINE_MAX_BYTES`] or more than
/// [`PRESCAN_HITS`] matches give no matches, and the search then reads the lines itself; a
/// file that ends early gives neither matches nor hashes (the reader then hashes the prefix
/// itself: [`BlockReader::adopt`](super::blocks::BlockReader::adopt) takes them). Dropped
/// unjoined (the index was not used), it stops at its next block.
pub(super) struct Prescan {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<Found>>,
    /// What it found, once joined for its hashes.
    found: Option<Found>,
}

/// What a [`Prescan`] found.
#[derive(Default)]
struct Found {
    hits: Option<Hits>,
    hash: Option<PrefixHash>,
}

/// What a [`Prescan`]'s search found.
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

impl Hits {
    /// Adds the matches in `lines` (whole lines), which start at byte `from` of the file;
    /// false once there are more than [`PRESCAN_HITS`].
    fn add(&mut self, query: &RawQuery, lines: &[u8], from: u64) -> bool {
        self.plain
            .extend(query.plain(lines).map(|(at, run)| (from + at as u64, run)));
        self.escaped
            .extend(query.escaped(lines).map(|at| from + at as u64));
        self.plain.len() + self.escaped.len() <= PRESCAN_HITS
    }
}

impl Prescan {
    /// Starts the pass over the first `len` bytes of `file` (whole lines): the search for
    /// `query`, if any, and the hashes of the whole blocks, if `hash`. `None` when there is
    /// nothing to do, or no thread or handle can be had (the search then reads the lines
    /// itself, and the reader hashes the prefix itself).
    pub(super) fn start(
        file: &File,
        query: Option<RawQuery>,
        len: u64,
        hash: bool,
    ) -> Option<Prescan> {
        let hash = hash && len >= BLOCK as u64;
        if query.is_none() && !hash {
            return None;
        }
        let file = file.try_clone().ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .spawn(move || Self::run(&file, query.as_ref(), len, hash, &stopped))
            .ok()?;
        Some(Prescan {
            stop,
            handle: Some(handle),
            found: None,
        })
    }

    fn run(
        file: &File,
        query: Option<&RawQuery>,
        len: u64,
        hash: bool,
        stop: &AtomicBool,
    ) -> Found {
        let mut hits = query.map(|_| Hits {
            len: 0,
            plain: Vec::new(),
            escaped: Vec::new(),
        });
        let mut hashes = hash.then(PrefixHash::default);
        let mut block = vec![0; BLOCK];
        // The start of the line that runs into the next block, from byte `line_at`.
        let mut line: Vec<u8> = Vec::new();
        let mut line_at = 0;
        let mut at = 0;
        while at < len {
            if stop.load(Ordering::Relaxed) {
                return Found::default();
            }
            let want = usize::try_from(len - at).map_or(BLOCK, |left| left.min(BLOCK));
            // Past the last whole block, only a search has anything to read.
            if hits.is_none() && (hashes.is_none() || want < BLOCK) {
                break;
            }
            let data = &mut block[..want];
            if read_at(file, data, at).is_err() {
                return Found::default();
            }
            if want == BLOCK
                && let Some(hashes) = &mut hashes
            {
                hashes.push(data);
            }
            if let (Some(found), Some(query)) = (&mut hits, query) {
                let searched = match memchr::memchr(b'\n', data) {
                    None => {
                        line.extend_from_slice(data);
                        line.len() <= LINE_MAX_BYTES
                    }
                    Some(first) => {
                        // The line begun before this block ends in it: searched whole.
                        line.extend_from_slice(&data[..first]);
                        let mut kept = found.add(query, &line, line_at);
                        line.clear();
                        let last = memchr::memrchr(b'\n', data).unwrap_or(first);
                        if first < last {
                            kept &= found.add(query, &data[first + 1..last], at + first as u64 + 1);
                        }
                        found.len = at + last as u64 + 1;
                        line.extend_from_slice(&data[last + 1..]);
                        line_at = found.len;
                        kept
                    }
                };
                if !searched {
                    hits = None;
                }
            }
            at += want as u64;
        }
        Found { hits, hash: hashes }
    }

    /// What the pass found, once it is done (joined the first time it is asked).
    fn found(&mut self) -> Option<&mut Found> {
        if let Some(handle) = self.handle.take() {
            self.found = handle.join().ok();
        }
        self.found.as_mut()
    }

    /// The hashes of the prefix's whole blocks, once every block is read (the search's
    /// matches stay for [`Prescan::join`]).
    pub(super) fn take_hash(&mut self) -> Option<PrefixHash> {
        self.found()?.hash.take()
    }

    /// What the search found, once it is done.
    pub(super) fn join(mut self) -> Option<Hits> {
        self.found()?.hits.take()
    }
}

impl Drop for Prescan {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
