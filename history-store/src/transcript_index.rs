//! Reading a Claude transcript through a persistent per-transcript index, so a call
//! decodes only the lines appended since the last one.
//!
//! The index is the decoder's structure-only state after the file's committed prefix
//! ([`Decoder::snapshot`]: no texts or inputs) and where each covered line starts, kept in
//! `<notesoup home>/cache/history/` beside what vouches for that prefix. The covered rows'
//! bodies stay in the transcript: [`read_history`] reads back only the lines an answer needs,
//! [`read_transcript`] all of them, each refused unless it still holds the row the index
//! fingerprinted (a rewrite while the call runs is refused as `transcript_changed`; one made
//! between a search's scan and its reads can only hide a match of rows it changed, and one
//! made before the scan can only change the count of matches a full page counts from the raw
//! bytes of rows it changed, which it never decodes, as a rewrite during any read of the
//! file could). The index also keeps where each covered row's texts and inputs lie in its
//! line (the decoder's spans), so a search counts a raw match inside one without decoding
//! the row. **Invariant:** a state is only resumed over a prefix that is
//! byte-identical to the one it was made from: the file must be the same (device and
//! inode), at least as long, and either
//!
//! - **unchanged since it was indexed**: its size, modification time and status-change
//!   time (nanoseconds) are the ones recorded when the indexed bytes were read (taken
//!   *before* reading them), and that status-change time lies more than [`RACY`](staleness::RACY) before
//!   the index was written. Every write to a file sets its status-change time to the
//!   kernel's clock, which no call can set back; a write after the recorded one lands at
//!   least [`RACY`](staleness::RACY) later on that clock, so it always shows as a different time. (A
//!   write in the same clock tick as the read could leave every time as it was: that is
//!   why a file changed within [`RACY`](staleness::RACY) of the index's writing is never trusted on its
//!   times alone, git's "racily clean" rule.) Then nothing of the prefix is read: the
//!   call does no work proportional to the file.
//! - or its prefix hashes (xxh3, every byte of it, read in this call) to the recorded
//!   value: a grown file (the live session's, after every turn), a touched one. An index
//!   that covers the whole file, vouched for so once the file's last change lies more
//!   than [`RACY`](staleness::RACY) back, is written again, so the calls after it go by
//!   the times alone.
//!
//! Otherwise, and whenever the index is missing, of another version, fails its checksum
//! or does not read back, the file is decoded from its first byte and the index
//! rewritten. Refusals are never cached and no line is
//! skipped: the lines an index covers were checked when it was written, those after it
//! on every call until the index is rewritten. Writes go to a temporary
//! file renamed over the index, so a reader sees a whole old or a whole new index, and
//! concurrent helpers at worst both write a valid one. Nothing here is ever an error to
//! the caller: a cache that cannot be read or written is ignored.
//!
//! A transcript is read up to its size when the call opened it: a file a writer appends to
//! while the call runs is read as it was then (a torn last line stays the unterminated
//! final line it was), never for as long as the writer goes on.
//!
//! One concern per file: the entry points and the scan that composes them (here), the cache
//! folder and its eviction (`cache`), whether an index still vouches for the file
//! (`staleness`), the block reader that hashes the prefix and feeds lines (`blocks`), the
//! lazy bodies and their search (`lazy`, with `prescan` beside the index's load). The
//! index's on-disk format and the raw search rules are `notesoup-history-claude`'s
//! ([`notesoup_history_claude::index`], [`notesoup_history_claude::RawQuery`]).

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use notesoup_history_claude::index::{Covered, Index, Stat};
use notesoup_history_claude::{DecodeError, Decoder, Head, Options, RawQuery, Skeleton};
use notesoup_history_core::{History, Transcript};

use crate::{LINE_MAX_BYTES, StoreError};
pub(crate) use blocks::read_at;
use blocks::{BlockReader, read_line};
use cache::{index_name, load_index, save_index, touch};
use lazy::{LineBodies, Search};
use prescan::Prescan;
use staleness::{identity, now_ns, refresh, stale, stat_of, unchanged};

pub use cache::Cache;

/// Why a transcript read failed: the file, or a decoder refusal.
pub(super) enum ReadError {
    Io(std::io::Error),
    Decode(DecodeError),
    /// Not a regular file, refused on the open handle.
    File(notesoup_safe_fs::FsError),
    /// A line over [`LINE_MAX_BYTES`].
    LineTooLong,
}

impl From<std::io::Error> for ReadError {
    fn from(err: std::io::Error) -> Self {
        ReadError::Io(err)
    }
}

impl From<DecodeError> for ReadError {
    fn from(err: DecodeError) -> Self {
        ReadError::Decode(err)
    }
}

/// Decodes the Claude transcript at `path`, resuming from its index in `cache` when the
/// index vouches for the file's prefix, and refreshing the index when it lags or is
/// unusable. Without a cache it is a streaming decode of the whole file. The index keeps
/// structure only, so the rows it covers are decoded again from their lines here: for
/// answers that need a few bodies, [`read_history`] decodes only those.
pub fn read_transcript(
    path: &Path,
    options: &Options,
    head: &Head,
    cache: Option<&Cache>,
) -> Result<Transcript, StoreError> {
    read_indexed(path, options, head, cache)
        .map(|(transcript, _)| transcript)
        .map_err(|err| store_error(path, err))
}

/// The history of the Claude transcript at `path` for the history tools: [`read_transcript`]
/// without decoding the bodies of the rows its index covers, nor of the rows this call
/// checks (those past the index): they are skimmed ([`Decoder::feed_skimmed`]: checked as
/// strictly, their bodies not built). Those bodies stay in the file, and the history reads
/// back only the lines an answer shows, or, for a search, the lines whose raw bytes may
/// hold the query; every answer is the one the whole transcript gives, whatever `query` is.
///
/// `query` is the literal the history will be searched for, if any (`history_list`'s): the
/// rows this call checks are skimmed noting the events one of whose decoded texts (visible
/// text, a call's input, a result's text) holds it ([`Decoder::feed_picking`]), so a
/// search for it counts those without decoding them and reads none of those lines again
/// but the ones it shows.
pub fn read_history(
    path: &Path,
    options: &Options,
    head: &Head,
    cache: Option<&Cache>,
    query: Option<&str>,
) -> Result<History, StoreError> {
    let keep = match query {
        // Any line may hold a query with a line break (texts are joined with them).
        Some(q) if q.contains('\n') => Keep::All,
        Some(q) => Keep::Holding(memchr::memmem::Finder::new(q.as_bytes())),
        None => Keep::None,
    };
    let searched = query
        .filter(|_| matches!(keep, Keep::Holding(_)))
        .map(RawQuery::new);
    let (scanned, _) = scan(path, options, cache, &keep, searched.as_ref())
        .map_err(|err| store_error(path, err))?;
    let mut decoder = scanned.decoder;
    let picked = decoder.take_picked();
    let skeleton = decoder
        .finish_skeleton(head)
        .map_err(|err| store_error(path, ReadError::Decode(err)))?;
    let source = LineBodies {
        file: scanned.file,
        starts: scanned.starts,
        rows: skeleton.rows,
        spans: skeleton.spans,
        search: searched.map(|query| Search {
            query,
            prescan: std::sync::Mutex::new(scanned.prescan),
            from: scanned.fresh_from,
            holding: picked,
        }),
    };
    Ok(History::with_bodies(
        skeleton.transcript,
        skeleton.elided,
        Arc::new(source),
    )?)
}

fn store_error(path: &Path, err: ReadError) -> StoreError {
    match err {
        ReadError::Io(source) => StoreError::Transcript {
            path: path.to_owned(),
            source,
        },
        ReadError::Decode(source) => StoreError::Claude {
            path: path.to_owned(),
            source,
        },
        ReadError::File(err) => StoreError::File(err),
        ReadError::LineTooLong => StoreError::LineTooLong {
            path: path.to_owned(),
            limit: LINE_MAX_BYTES,
        },
    }
}

/// [`read_transcript`], and how many bytes of the transcript its scan read (the lines read
/// again for the covered rows' bodies not counted).
fn read_indexed(
    path: &Path,
    options: &Options,
    head: &Head,
    cache: Option<&Cache>,
) -> Result<(Transcript, u64), ReadError> {
    let (scanned, read) = scan(path, options, cache, &Keep::All, None)?;
    let skeleton = scanned.decoder.finish_skeleton(head)?;
    let transcript = hydrate(skeleton, &scanned.file, &scanned.starts)?;
    Ok((transcript, read))
}

/// Every elided body of `skeleton` decoded again from its line in `file`.
fn hydrate(skeleton: Skeleton, file: &File, starts: &[u64]) -> Result<Transcript, ReadError> {
    skeleton.hydrate(|row| {
        let bytes = read_line(file, starts, row.line)?;
        row.reload(&bytes).map_err(ReadError::Decode)
    })
}

/// How a call keeps the rows it reads itself: whole, or skimmed (noting, for a query, the
/// events whose texts hold it).
#[allow(clippy::large_enum_variant, reason = "one per call, on the stack")]
pub(super) enum Keep<'q> {
    All,
    None,
    /// Skimmed, the events one of whose texts holds a query noted.
    Holding(memchr::memmem::Finder<'q>),
}

/// A transcript fed to its decoder, through the index where it vouches for the prefix.
struct Scanned {
    /// Every line fed; the rows the index covered, and the lines skimmed, have placeholder
    /// bodies.
    decoder: Decoder,
    /// The first line (0-based) this call checked: those before it were the index's.
    fresh_from: usize,
    /// Where each committed line starts, then the end of the last one.
    starts: Vec<u64>,
    /// The transcript, open (its lines are read again from this handle).
    file: File,
    /// The raw search of the lines the index covers, started beside the index's load.
    prescan: Option<Prescan>,
}

/// Feeds the transcript at `path` to a decoder, resuming from its index in `cache` when the
/// index vouches for the file's prefix, and refreshing the index when it lags or is
/// unusable; with how many bytes of the transcript it read.
///
/// Once the index's header names this file, one read of the lines it covers ([`Prescan`])
/// starts on a thread of its own while the rest of the index is read: their raw search for
/// `searched` (the query a search of the covered lines will look for), and the hashes of
/// their whole blocks when the file's times cannot vouch for them.
fn scan(
    path: &Path,
    options: &Options,
    cache: Option<&Cache>,
    keep: &Keep<'_>,
    searched: Option<&RawQuery>,
) -> Result<(Scanned, u64), ReadError> {
    // A regular file only, checked on the open handle; a FIFO is refused, not waited on.
    let (mut file, _) = notesoup_safe_fs::open_regular(path).map_err(ReadError::File)?;
    let meta = file.metadata()?;
    let (dev, ino) = identity(&meta);
    let seen = stat_of(&meta);
    let size = seen.size;
    // The cache folder, opened once: every index read, write and eviction of this call is
    // relative to this handle.
    let mut folder = cache.and_then(|c| c.open(false));
    let index_file = index_name(path);
    let ours = |covered: &Covered| covered.dev == dev && covered.ino == ino && covered.len <= size;
    let mut prescan = None;
    let index = folder
        .as_ref()
        .zip(cache)
        .and_then(|(dir, c)| {
            load_index(dir, &index_file, path, options, c.max_bytes, |covered| {
                if ours(covered) {
                    // Not vouched for by its times: its prefix is hashed as it is read.
                    let hash = !unchanged(covered, seen);
                    prescan = Prescan::start(&file, searched.cloned(), covered.len, hash);
                }
            })
        })
        .filter(|index| ours(&index.covered));
    let (mut reader, resumed) = vouched(&mut file, index, prescan.as_mut(), seen)?;
    // Vouched for by its hash, not its times: the index is written again once its times
    // can vouch (see `refresh`), so an index made within the racy window, or a file only
    // touched since, is not read and hashed whole on every later call.
    let hashed = resumed
        .as_ref()
        .is_some_and(|index| !unchanged(&index.covered, seen));
    if resumed.is_none() {
        // The index is not used: its search stops now, not after the decode from byte 0
        // it would run beside.
        prescan = None;
    }
    let (start, mut decoder, mut starts) = match resumed {
        Some(mut index) => {
            // The end of the last indexed line is the start of the next.
            index.starts.pop();
            (index.covered.len, index.decoder, index.starts)
        }
        None => (0, Decoder::new(options.clone()), Vec::new()),
    };
    if cache.is_some() {
        // The index it may write keeps where each row's bodies lie in its line.
        decoder.record_spans();
    }
    let fresh_from = starts.len();
    let torn = reader.decode_rest(&mut file, start, &mut decoder, &mut starts, keep)?;
    let committed = reader.offset - torn.len() as u64;
    starts.push(committed);
    if let Some(cache) = cache {
        if (stale(start, committed, cache.min_bytes)
            || refresh(hashed, start, committed, seen, now_ns()))
            && let Some(hash) = reader.prefix_hash(committed)
        {
            let covered = Covered {
                dev,
                ino,
                len: committed,
                hash,
                seen,
                written: now_ns(),
            };
            if folder.is_none() {
                folder = cache.open(true);
            }
            if let Some(dir) = &folder
                && save_index(dir, &index_file, path, &covered, &decoder, &starts)
            {
                cache::evict(dir, cache);
            }
        } else if start > 0
            && let Some(dir) = &folder
        {
            // Used: its time decides what eviction keeps.
            touch(dir, &index_file);
        }
    }
    if !torn.is_empty() {
        decoder.line(&torn, false)?;
    }
    Ok((
        Scanned {
            decoder,
            fresh_from,
            starts,
            file,
            prescan: prescan.filter(|_| fresh_from > 0),
        },
        reader.read,
    ))
}

/// The reader to go on with, and `index` when it vouches for the prefix of `file` (as
/// `seen` when the call opened it): on its times alone, or by the prefix's hash (the whole
/// blocks hashed by the `prescan` beside the load, the rest read here). Otherwise the
/// reader starts over from byte 0 of the same open file.
fn vouched(
    file: &mut File,
    index: Option<Index>,
    prescan: Option<&mut Prescan>,
    seen: Stat,
) -> std::io::Result<(BlockReader, Option<Index>)> {
    let mut reader = BlockReader::new(seen.size);
    let Some(index) = index else {
        return Ok((reader, None));
    };
    if unchanged(&index.covered, seen) {
        reader.skip_to(file, index.covered.len)?;
        return Ok((reader, Some(index)));
    }
    if let Some(hash) = prescan.and_then(Prescan::take_hash) {
        reader.adopt(file, hash)?;
    }
    if reader.verify(file, &index.covered)? {
        return Ok((reader, Some(index)));
    }
    // Not the prefix the index was made from.
    file.seek(SeekFrom::Start(0))?;
    Ok((BlockReader::new(seen.size), None))
}

mod blocks;
mod cache;
mod lazy;
mod prescan;
mod staleness;

#[cfg(test)]
mod tests;
