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
//!   *before* reading them), and that status-change time lies more than [`RACY`] before
//!   the index was written. Every write to a file sets its status-change time to the
//!   kernel's clock, which no call can set back; a write after the recorded one lands at
//!   least [`RACY`] later on that clock, so it always shows as a different time. (A
//!   write in the same clock tick as the read could leave every time as it was: that is
//!   why a file changed within [`RACY`] of the index's writing is never trusted on its
//!   times alone, git's "racily clean" rule.) Then nothing of the prefix is read: the
//!   call does no work proportional to the file.
//! - or its prefix hashes (xxh3, every byte of it, read in this call) to the recorded
//!   value: a grown file (the live session's, after every turn), a touched one.
//!
//! Otherwise, and whenever the index is missing, of another version, fails its checksum
//! or does not read back, the file is decoded from its first byte and the index
//! rewritten. Refusals are never cached and no line is
//! skipped: the lines an index covers were checked when it was written, those after it
//! on every call until the index is rewritten. Writes go to a temporary
//! file renamed over the index, so a reader sees a whole old or a whole new index, and
//! concurrent helpers at worst both write a valid one. Nothing here is ever an error to
//! the caller: a cache that cannot be read or written is ignored.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use notesoup_history_claude::{DecodeError, Decoder, ElidedRow, Head, Options, Skeleton, TextSpan};
use notesoup_history_core::{Body, BodySource, Contains, History, Seq, Transcript};
use notesoup_safe_fs::Dir;
use twox_hash::xxh3;

use crate::{LINE_MAX_BYTES, StoreError};
use prescan::{Hits, Prescan};

/// The file's first bytes; the last byte is the format version.
const MAGIC: &[u8; 8] = b"nsidx\0\0\x07";
/// A file whose status-change time lies within this many nanoseconds before its index was
/// written is not trusted on its times (a write in the same clock tick would not show).
const RACY: i128 = 2_000_000_000;
/// The transcript is read, and its prefix hashed, in blocks of this size at aligned
/// offsets (block `i` covers `[i * BLOCK, (i + 1) * BLOCK)`).
const BLOCK: usize = 1 << 20;
/// The index is rewritten when the committed lines decoded past it reach this many
/// bytes, or a quarter of what it covers (smaller appends are decoded on every call).
const REWRITE_BYTES: u64 = 2 << 20;

/// Where indexes are kept, and how many.
#[derive(Debug, Clone)]
pub struct Cache {
    /// The folder (created on the first write).
    pub dir: PathBuf,
    /// Transcripts with fewer committed bytes get no index (they decode in a few ms).
    pub min_bytes: u64,
    /// At most this many indexes are kept; the least recently used go first.
    pub keep: usize,
    /// And at most this many bytes of them in all (the newest one is always kept): an
    /// index is about 0.6x its transcript, so a count alone could grow the cache to gigabytes.
    pub max_bytes: u64,
    /// Set by [`Cache::in_home`]: the notesoup home `dir` lies in, as `cache/history`.
    home: Option<PathBuf>,
}

impl Cache {
    /// The cache notesoup keeps: `dir`, indexes for transcripts of 1 MiB and more, the 64
    /// most recently used within 512 MiB in all. `dir` is a path its caller configured:
    /// links in it are followed once, when it is opened; nothing below it ever is.
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            min_bytes: 1 << 20,
            keep: 64,
            max_bytes: 512 << 20,
            home: None,
        }
    }

    /// The cache notesoup keeps under its home `home`: `cache/history`. Each call opens it
    /// once, as a folder handle, from the home down, never through a link: a `cache` or
    /// `cache/history` that is a link or anything but a folder means no index is read or
    /// written, and every create, replace and removal of an index is made relative to that
    /// handle, so a link swapped in while a call runs never moves one outside the home.
    pub fn in_home(home: &Path) -> Self {
        Self {
            home: Some(home.to_owned()),
            ..Self::new(home.join("cache").join("history"))
        }
    }

    /// The cache folder as an open handle, `None` when it cannot be opened (missing, a
    /// link, not a folder); with `create`, missing folders are made first.
    fn open(&self, create: bool) -> Option<Dir> {
        let Some(home) = &self.home else {
            return if create {
                Dir::create_all(&self.dir).ok().map(|(dir, _)| dir)
            } else {
                Dir::open(&self.dir).ok()
            };
        };
        let mut dir = if create {
            Dir::create_all(home).ok()?.0
        } else {
            Dir::open(home).ok()?
        };
        for name in ["cache", "history"] {
            dir = if create {
                dir.create_dir(name).ok()?.0
            } else {
                dir.open_dir(name).ok()??
            };
        }
        Some(dir)
    }
}

/// Why a transcript read failed: the file, or a decoder refusal.
enum ReadError {
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

/// What the index vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Covered {
    dev: u64,
    ino: u64,
    /// Bytes of the committed prefix (up to and including its last `\n`).
    len: u64,
    /// [`PrefixHash`] of those bytes.
    hash: u128,
    /// The file as it was before the indexed bytes were read.
    seen: Stat,
    /// When the index was written (nanoseconds since the epoch).
    written: i128,
}

/// What a file's metadata says of its content: size, and modification and status-change
/// times in nanoseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Stat {
    size: u64,
    modified: i128,
    changed: i128,
}

impl Stat {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        Self {
            size: meta.len(),
            modified: ns(meta.mtime(), meta.mtime_nsec()),
            changed: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Without a status-change time nothing is trusted on times: `changed` is the
    /// latest possible, so [`Covered::unchanged`] never holds.
    #[cfg(not(unix))]
    fn of(meta: &std::fs::Metadata) -> Self {
        Self {
            size: meta.len(),
            modified: 0,
            changed: i128::MAX,
        }
    }
}

/// Nanoseconds since the epoch now (0 when the clock is before it).
fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

impl Covered {
    /// True when the file `now` (its metadata before this call reads it) is the one the
    /// index was made from, by its times alone (see the module's invariant).
    fn unchanged(&self, now: Stat) -> bool {
        now == self.seen && self.seen.changed.saturating_add(RACY) < self.written
    }
}

/// The hash of a prefix: xxh3-64 of each aligned block (the last one cut at the prefix's
/// end), seeded with its number, then xxh3-128 of the length and those hashes.
#[derive(Default)]
struct PrefixHash {
    /// Hashes of the whole blocks read so far.
    blocks: Vec<u64>,
}

impl PrefixHash {
    fn finish(&self, whole_blocks: usize, partial: Option<&[u8]>, len: u64) -> u128 {
        let mut bytes = Vec::with_capacity(8 * (whole_blocks + 2));
        bytes.extend_from_slice(&len.to_le_bytes());
        for h in &self.blocks[..whole_blocks] {
            bytes.extend_from_slice(&h.to_le_bytes());
        }
        if let Some(part) = partial.filter(|p| !p.is_empty()) {
            bytes.extend_from_slice(
                &xxh3::hash64_with_seed(part, whole_blocks as u64).to_le_bytes(),
            );
        }
        xxh3::hash128(&bytes)
    }
}

/// The name of `transcript`'s index in the cache folder.
fn index_name(transcript: &Path) -> String {
    let key = xxh3::hash64(transcript.as_os_str().as_encoded_bytes());
    format!("claude-{key:016x}.idx")
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
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
    let searched = query.filter(|_| matches!(keep, Keep::Holding(_)));
    let (scanned, _) =
        scan(path, options, cache, &keep, searched).map_err(|err| store_error(path, err))?;
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
            query: query.to_owned(),
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

/// The bytes of line `n` (1-based, without its `\n`) of `file`, whose lines start at
/// `starts` (the last entry: the end of the last line's `\n`).
fn read_line(file: &File, starts: &[u64], n: usize) -> Result<Vec<u8>, ReadError> {
    let bad = || ReadError::Io(std::io::Error::other(format!("line {n} is not indexed")));
    let (Some(&from), Some(&next)) = (starts.get(n.wrapping_sub(1)), starts.get(n)) else {
        return Err(bad());
    };
    let len = next.checked_sub(from + 1).ok_or_else(bad)?;
    let len = usize::try_from(len).map_err(|_| ReadError::LineTooLong)?;
    if len > LINE_MAX_BYTES {
        return Err(ReadError::LineTooLong);
    }
    let mut out = vec![0; len];
    read_at(file, &mut out, from)?;
    Ok(out)
}

#[cfg(unix)]
fn read_at(file: &File, out: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, at)
}

#[cfg(not(unix))]
fn read_at(file: &File, out: &mut [u8], at: u64) -> std::io::Result<()> {
    let mut file = file;
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(out)
}

/// How a call keeps the rows it reads itself: whole, or skimmed (noting, for a query, the
/// events whose texts hold it).
#[allow(clippy::large_enum_variant, reason = "one per call, on the stack")]
enum Keep<'q> {
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
/// With `searched` (the query a search of the covered lines will look for), once the index's
/// header names this file, the raw search of the lines it covers ([`Prescan`]) starts on a
/// thread of its own while the rest of the index is read.
fn scan(
    path: &Path,
    options: &Options,
    cache: Option<&Cache>,
    keep: &Keep<'_>,
    searched: Option<&str>,
) -> Result<(Scanned, u64), ReadError> {
    // A regular file only, checked on the open handle; a FIFO is refused, not waited on.
    let (mut file, _) = notesoup_safe_fs::open_regular(path).map_err(ReadError::File)?;
    let meta = file.metadata()?;
    let (dev, ino) = identity(&meta);
    let seen = Stat::of(&meta);
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
                if let Some(query) = searched.filter(|_| ours(covered)) {
                    prescan = Prescan::start(&file, query, covered.len);
                }
            })
        })
        .filter(|(covered, _)| ours(covered));
    let mut reader = BlockReader::new();
    let mut resumed = None;
    if let Some((covered, indexed)) = index {
        if covered.unchanged(seen) {
            reader.skip_to(&mut file, covered.len)?;
            resumed = Some((covered.len, indexed));
        } else if reader.verify(&mut file, &covered)? {
            resumed = Some((covered.len, indexed));
        } else {
            // Not the prefix the index was made from: start over, from byte 0 of the
            // same open file.
            reader = BlockReader::new();
            file.seek(SeekFrom::Start(0))?;
        }
    }
    if resumed.is_none() {
        // The index is not used: its search stops now, not after the decode from byte 0
        // it would run beside.
        prescan = None;
    }
    let (start, mut decoder, mut starts) = match resumed {
        Some((len, mut indexed)) => {
            // The end of the last indexed line is the start of the next.
            indexed.starts.pop();
            (len, indexed.decoder, indexed.starts)
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
        let lag = committed - start;
        let stale = if start == 0 {
            committed > 0 && committed >= cache.min_bytes
        } else {
            lag > 0 && (lag >= REWRITE_BYTES || lag >= start / 4)
        };
        if stale && let Some(hash) = reader.prefix_hash(committed) {
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
                && write_index(dir, &index_file, path, &covered, &decoder, &starts)
            {
                evict(dir, cache);
            }
        } else if start > 0
            && let Some(dir) = &folder
            && let Ok(Some((file, _))) = dir.open_file(&index_file)
        {
            // Used: its time decides what eviction keeps.
            let _ = file.set_modified(std::time::SystemTime::now());
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

/// The bodies of the rows an index covered, read again from the transcript's lines (through
/// the handle the call opened, so a file replaced since is never read): the [`BodySource`]
/// of [`read_history`].
///
/// **Which lines may hold a query.** A row's texts are JSON strings of its line, decoded;
/// a call's input is a verbatim part of it. In a JSON string, a character is written as it
/// is, or as a `\u` escape, or (`/` only) as `\/`, or, for the characters JSON must escape,
/// as their one short escape (`\"`, `\\`, `\n`, `\t`, `\r`, `\b`, `\f`; other control
/// characters only as `\u`). So a decoded text holds the query only if the raw line holds the
/// query written that way (its JSON-escaped form), or the line has a `\u` escape, or (for a
/// query with `/`) a `\/` one; an input holds it only if the raw line holds it as it is.
/// Those lines are found with one `memmem` pass over the covered lines per query (a query
/// with a line break may be anywhere: texts are joined with line breaks). A row whose every
/// body with bytes has its span ([`ElidedRow::spanned`]) is not searched for `\u` or `\/`:
/// its bodies are what its spans decode to, and a span holds neither.
///
/// **Which rows surely hold it.** The index keeps where each row's texts and inputs lie in
/// its line ([`TextSpan`]): a raw match of the query inside one of them is a match of that
/// body when [`TextSpan::holds`] says so, and the list counts it without decoding the row.
///
/// The lines from the first one this call checked on were skimmed for the query, and the
/// events whose decoded texts hold it noted: the search reads only the lines before, and
/// counts those events as surely holding it (the list decodes only the ones it shows).
struct LineBodies {
    file: File,
    starts: Vec<u64>,
    rows: Vec<ElidedRow>,
    /// Where the rows' bodies lie in their lines (each row names its own).
    spans: Vec<TextSpan>,
    /// The one literal this history was read for, and what the read learnt of it.
    search: Option<Search>,
}

/// The search a [`Prescan`] makes, and [`LineBodies::scan`] when it has none: for each
/// query, the raw bytes a decoded text holding it must hold (see [`LineBodies`]): the query
/// as it is, its JSON-escaped form when that differs, a `\u` escape, and (for a query with
/// `/`) a `\/` one.
fn finders(query: &str) -> [Option<memchr::memmem::Finder<'static>>; 4] {
    let escaped = notesoup_history_claude::short_escaped(query);
    [
        Some(memchr::memmem::Finder::new(query.as_bytes()).into_owned()),
        (escaped != query).then(|| memchr::memmem::Finder::new(escaped.as_bytes()).into_owned()),
        Some(memchr::memmem::Finder::new(b"\\u").into_owned()),
        query
            .contains('/')
            .then(|| memchr::memmem::Finder::new(b"\\/").into_owned()),
    ]
}

/// The most bytes of whole lines [`LineBodies::scan`] reads at once (a longer line is read
/// alone).
const SCAN_BYTES: u64 = 1 << 20;

/// The literal a history was read for (handed over once, to [`read_history`]), and what
/// the read knows of it.
struct Search {
    query: String,
    /// The raw search of the lines the index covers, run while the index was read (taken
    /// by the list's one question).
    prescan: std::sync::Mutex<Option<Prescan>>,
    /// The first line (0-based) this call checked (the ones before were the index's).
    from: usize,
    /// The events of the rows skimmed there whose texts hold the query (seqs, in order):
    /// no other row skimmed there holds it.
    holding: Vec<u64>,
}

impl LineBodies {
    fn row(&self, seq: Seq) -> Option<&ElidedRow> {
        let at = self.rows.partition_point(|r| r.seq <= seq).checked_sub(1)?;
        self.rows.get(at).filter(|r| seq < r.seq + r.events as u64)
    }

    /// For each line up to the last elided row's, whether it may hold `query`, and the
    /// rows' events that surely do (row index and event index, in order; see the type's
    /// docs).
    #[allow(clippy::type_complexity, reason = "a private helper's two results")]
    fn scan(&self, search: &Search) -> Result<(Vec<bool>, Vec<(usize, u32)>), ReadError> {
        let query = search.query.as_str();
        let rows_end = self.rows.last().map_or(0, |r| r.line);
        let mut marks = vec![false; rows_end];
        let mut surely: Vec<(usize, u32)> = Vec::new();
        // The lines this call checked for the query: none to read.
        let last = rows_end.min(search.from);
        if let Some(hits) = self.prescanned(search, last) {
            self.mark_hits(query, &hits, last, &mut marks, &mut surely)?;
            surely.sort_unstable();
            surely.dedup();
            return Ok((marks, surely));
        }
        let finders = finders(query);
        let mut buf = Vec::new();
        self.pieces(0, last, &mut buf, |buf, line, end, from| {
            for (n, finder) in finders.iter().enumerate() {
                let Some(finder) = finder else { continue };
                // A `\u` or `\/` escape hides a match only in a row with a body its spans
                // do not cover (a span never holds one): only those rows' lines are searched
                // for them.
                let pieces = if n < 2 {
                    vec![(line, end)]
                } else {
                    self.unspanned(line, end)
                };
                for (a, b) in pieces {
                    let lo = usize::try_from(self.starts[a] - from).unwrap_or(0);
                    let hi = usize::try_from(self.starts[b] - from).unwrap_or(0);
                    let piece = buf.get(lo..hi).unwrap_or_default();
                    for at in finder.find_iter(piece).map(|at| lo + at) {
                        let offset = from + at as u64;
                        let hit = self.starts[line..end].partition_point(|&s| s <= offset) - 1;
                        marks[line + hit] = true;
                        if n == 0 {
                            // The query as it is: inside a body's span, a match of that body.
                            let begin =
                                usize::try_from(self.starts[line + hit] - from).unwrap_or(0);
                            let stop = usize::try_from(self.starts[line + hit + 1] - from)
                                .unwrap_or(0)
                                .saturating_sub(1);
                            if let Some(bytes) = buf.get(begin..stop) {
                                self.surely(
                                    line + hit + 1,
                                    |span| span.holds(bytes, at - begin, query),
                                    &mut surely,
                                );
                            }
                        }
                    }
                }
            }
            Ok(())
        })?;
        surely.sort_unstable();
        surely.dedup();
        Ok((marks, surely))
    }

    /// The matches this call's [`Prescan`] found, when it covered the lines before `last`
    /// (0-based).
    fn prescanned(&self, search: &Search, last: usize) -> Option<Hits> {
        let hits = search.prescan.lock().ok()?.take()?.join()?;
        (*self.starts.get(last)? <= hits.len).then_some(hits)
    }

    /// [`LineBodies::scan`]'s marks from the matches a [`Prescan`] found: the lines before
    /// `last` (0-based) that may hold `query`, and the rows' events that surely do, by the
    /// same rules as the scan's own reads: a match of the query as it is inside a body's
    /// span is a match of that body; a `\u` or `\/` escape counts only in the line of a row
    /// with a body its spans do not cover (those lines are read here).
    fn mark_hits(
        &self,
        query: &str,
        hits: &Hits,
        last: usize,
        marks: &mut [bool],
        surely: &mut Vec<(usize, u32)>,
    ) -> Result<(), ReadError> {
        let end = self.starts[last];
        let lines = &self.starts[..last];
        let line_of = |offset: u64| lines.partition_point(|&s| s <= offset).checked_sub(1);
        for &(offset, run) in hits.plain.iter().take_while(|(at, _)| *at < end) {
            let Some(line) = line_of(offset) else {
                continue;
            };
            marks[line] = true;
            let at = usize::try_from(offset - lines[line]).unwrap_or(usize::MAX);
            self.surely(line + 1, |span| span.holds_match(at, query, run), surely);
        }
        for &offset in hits.escaped.iter().take_while(|&&at| at < end) {
            if let Some(line) = line_of(offset) {
                marks[line] = true;
            }
        }
        let [_, _, escapes @ ..] = finders(query);
        let mut buf = Vec::new();
        for (a, b) in self.unspanned(0, last) {
            self.pieces(a, b, &mut buf, |buf, line, end, from| {
                for finder in escapes.iter().flatten() {
                    for at in finder.find_iter(buf) {
                        let offset = from + at as u64;
                        let hit = self.starts[line..end].partition_point(|&s| s <= offset) - 1;
                        marks[line + hit] = true;
                    }
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Reads the lines `a..b` (0-based) into `buf` in pieces of whole lines within
    /// [`SCAN_BYTES`] (a longer line alone), calling `each(piece, first, end, from)` for
    /// each: lines `first..end`, the first at byte `from` of the file.
    fn pieces(
        &self,
        a: usize,
        b: usize,
        buf: &mut Vec<u8>,
        mut each: impl FnMut(&[u8], usize, usize, u64) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        let mut line = a;
        while line < b {
            // Whole lines from `line` on, at least one, within SCAN_BYTES when they fit.
            let from = self.starts[line];
            let mut end = line + 1;
            while end < b && self.starts[end + 1] - from <= SCAN_BYTES {
                end += 1;
            }
            let len =
                usize::try_from(self.starts[end] - from).map_err(|_| ReadError::LineTooLong)?;
            if len > LINE_MAX_BYTES + 1 && end == line + 1 {
                return Err(ReadError::LineTooLong);
            }
            buf.resize(len, 0);
            read_at(&self.file, buf, from)?;
            each(buf, line, end, from)?;
            line = end;
        }
        Ok(())
    }

    /// The runs of lines (0-based, `[a, b)`) among `line..end` that first recorded a row
    /// with a body its spans do not cover ([`ElidedRow::spanned`] false).
    fn unspanned(&self, line: usize, end: usize) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        let first = self.rows.partition_point(|r| r.line <= line);
        for row in self.rows[first..].iter().take_while(|r| r.line <= end) {
            if row.spanned {
                continue;
            }
            let at = row.line - 1;
            match out.last_mut() {
                Some((_, b)) if *b == at => *b = at + 1,
                _ => out.push((at, at + 1)),
            }
        }
        out
    }

    /// Adds to `surely` the events of the row first recorded on line `n` (1-based) with a
    /// span that `holds` the match found there.
    fn surely(&self, n: usize, holds: impl Fn(&TextSpan) -> bool, surely: &mut Vec<(usize, u32)>) {
        let index = self.rows.partition_point(|r| r.line < n);
        let Some(row) = self.rows.get(index).filter(|r| r.line == n) else {
            return;
        };
        for span in self.spans.get(row.spans.clone()).unwrap_or_default() {
            if surely.last() != Some(&(index, span.event)) && holds(span) {
                surely.push((index, span.event));
            }
        }
    }
}

impl BodySource for LineBodies {
    fn body(&self, seq: Seq) -> Result<Body, String> {
        let row = self
            .row(seq)
            .ok_or_else(|| format!("seq {seq} is not in the index"))?;
        let bytes = read_line(&self.file, &self.starts, row.line).map_err(|err| match err {
            ReadError::Io(err) => err.to_string(),
            ReadError::Decode(err) => err.to_string(),
            ReadError::File(err) => err.to_string(),
            ReadError::LineTooLong => format!("line {} is too long", row.line),
        })?;
        let bodies = row.reload(&bytes).map_err(|err| err.to_string())?;
        usize::try_from(seq - row.seq)
            .ok()
            .and_then(|k| bodies.into_iter().nth(k))
            .ok_or_else(|| format!("seq {seq} is not in its row"))
    }

    fn searched(&self) -> Option<&str> {
        self.search.as_ref().map(|s| s.query.as_str())
    }

    fn may_contain(&self) -> Option<Vec<(Seq, Contains)>> {
        let search = self.search.as_ref()?;
        // Unreadable now: any body may hold it, and decoding it says why.
        let (marks, surely) = self.scan(search).ok()?;
        let mut surely = surely.into_iter().peekable();
        let mut seqs = Vec::new();
        for (index, row) in self.rows.iter().enumerate() {
            if !marks.get(row.line - 1).copied().unwrap_or(true) {
                continue;
            }
            for k in 0..row.events {
                // `surely` is in (row, event) order.
                while surely
                    .peek()
                    .is_some_and(|&(r, e)| (r, e as usize) < (index, k))
                {
                    surely.next();
                }
                let contains = if surely
                    .peek()
                    .is_some_and(|&(r, e)| (r, e as usize) == (index, k))
                {
                    Contains::Surely
                } else {
                    Contains::Maybe
                };
                seqs.push((row.seq + k as u64, contains));
            }
        }
        // The rows this call skimmed for the query: the events that hold it, for sure.
        seqs.extend(search.holding.iter().map(|&seq| (seq, Contains::Surely)));
        Some(seqs)
    }
}

/// Reads a file in aligned blocks, hashing each whole block, and feeds lines on.
struct BlockReader {
    hash: PrefixHash,
    /// The last block read, and its number.
    last: Vec<u8>,
    last_number: usize,
    /// The buffer the next block is read into.
    spare: Vec<u8>,
    /// Bytes read so far (the offset of the next block).
    offset: u64,
    /// True once the prefix was skipped unread: no prefix hash can be given then.
    skipped: bool,
    /// Bytes actually read from the file.
    read: u64,
}

impl BlockReader {
    fn new() -> Self {
        Self {
            hash: PrefixHash::default(),
            last: Vec::with_capacity(BLOCK),
            last_number: 0,
            spare: Vec::with_capacity(BLOCK),
            offset: 0,
            skipped: false,
            read: 0,
        }
    }

    /// Reads the next block (fewer bytes only at the end of the file) into `last`; false
    /// at the end, leaving `last` as it was.
    fn next_block(&mut self, file: &mut File) -> std::io::Result<bool> {
        // Zeroed once: a spare buffer that held a whole block is read over as it is.
        if self.spare.len() != BLOCK {
            self.spare.clear();
            self.spare.resize(BLOCK, 0);
        }
        let mut filled = 0;
        while filled < BLOCK {
            match file.read(&mut self.spare[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
        if filled == 0 {
            return Ok(false);
        }
        self.spare.truncate(filled);
        self.read += filled as u64;
        std::mem::swap(&mut self.last, &mut self.spare);
        self.last_number = usize::try_from(self.offset / BLOCK as u64).unwrap_or(usize::MAX);
        if filled == BLOCK {
            self.hash
                .blocks
                .push(xxh3::hash64_with_seed(&self.last, self.last_number as u64));
        }
        self.offset += filled as u64;
        Ok(true)
    }

    /// Goes to byte `len` without reading the bytes before it (an unchanged file).
    fn skip_to(&mut self, file: &mut File, len: u64) -> std::io::Result<()> {
        file.seek(SeekFrom::Start(len))?;
        self.offset = len;
        self.last.clear();
        self.skipped = true;
        Ok(())
    }

    /// Reads the prefix `covered` names and checks its hash; the block holding its end
    /// stays in `last` for [`BlockReader::decode_rest`].
    fn verify(&mut self, file: &mut File, covered: &Covered) -> std::io::Result<bool> {
        while self.offset < covered.len {
            if !self.next_block(file)? {
                return Ok(false);
            }
        }
        Ok(self.prefix_hash(covered.len) == Some(covered.hash))
    }

    /// The hash of the prefix of `len` bytes, when the blocks read so far cover it and it
    /// ends in the last block read (or on its boundary).
    fn prefix_hash(&self, len: u64) -> Option<u128> {
        if self.skipped {
            return None;
        }
        let whole = usize::try_from(len / BLOCK as u64).ok()?;
        let cut = usize::try_from(len % BLOCK as u64).ok()?;
        if whole > self.hash.blocks.len() {
            return None;
        }
        if cut == 0 {
            return Some(self.hash.finish(whole, None, len));
        }
        if whole != self.last_number || cut > self.last.len() {
            return None;
        }
        Some(self.hash.finish(whole, Some(&self.last[..cut]), len))
    }

    /// Feeds every committed line from byte `start` to the end of the file to `decoder`;
    /// returns the unterminated final fragment, not fed.
    fn decode_rest(
        &mut self,
        file: &mut File,
        start: u64,
        decoder: &mut Decoder,
        starts: &mut Vec<u64>,
        keep: &Keep<'_>,
    ) -> Result<Vec<u8>, ReadError> {
        let mut carry = Vec::new();
        // Lines are contiguous: each starts one byte after the last one's end.
        let mut next = start;
        let mut feed = |decoder: &mut Decoder, lines: &[&[u8]]| {
            for line in lines {
                starts.push(next);
                next += line.len() as u64 + 1;
            }
            match keep {
                Keep::All => decoder.feed(lines),
                Keep::None => decoder.feed_skimmed(lines),
                Keep::Holding(finder) => {
                    decoder.feed_picking(lines, |text| finder.find(text.as_bytes()).is_some())
                }
            }
        };
        // The block already read (by `verify`) may hold the first bytes after `start`.
        let block_start = self.offset - self.last.len() as u64;
        let mut from = usize::try_from(start.saturating_sub(block_start)).unwrap_or(usize::MAX);
        if self.offset == 0 || from >= self.last.len() {
            if !self.next_block(file)? {
                return Ok(carry);
            }
            from = 0;
        }
        loop {
            let block = &self.last[from..];
            let mut rest = block;
            if !carry.is_empty()
                && let Some(end) = memchr::memchr(b'\n', rest)
            {
                carry.extend_from_slice(&rest[..end]);
                feed(decoder, &[&carry])?;
                carry.clear();
                rest = &rest[end + 1..];
            }
            // The block's whole lines in one batch (the decoder parses a batch on two
            // threads, and adds its rows in order).
            let mut lines: Vec<&[u8]> = Vec::with_capacity(1024);
            while let Some(end) = memchr::memchr(b'\n', rest) {
                lines.push(&rest[..end]);
                rest = &rest[end + 1..];
            }
            feed(decoder, &lines)?;
            carry.extend_from_slice(rest);
            if carry.len() > LINE_MAX_BYTES {
                return Err(ReadError::LineTooLong);
            }
            if !self.next_block(file)? {
                return Ok(carry);
            }
            from = 0;
        }
    }
}

/// The index at `index_file`, when it is whole, of this format and of this transcript.
/// It is read in pieces, its checksum taken as the pieces pass, so its bytes are never
/// held whole beside the state they rebuild; a state whose checksum fails is dropped.
fn load_index(
    dir: &Dir,
    index_file: &str,
    transcript: &Path,
    options: &Options,
    limit: u64,
    on_header: impl FnOnce(&Covered),
) -> Option<(Covered, Indexed)> {
    // A regular file (never through a link) within the cache's whole budget, else no
    // index (a fresh decode).
    let (mut file, meta) = dir.open_file(index_file).ok()??;
    if meta.len > limit {
        return None;
    }
    let body_len = meta.len.checked_sub(8)?;
    let mut body = Hashing {
        inner: &mut file,
        left: body_len,
        piece: Vec::with_capacity(BLOCK.min(usize::try_from(body_len).unwrap_or(BLOCK))),
        hashes: Vec::new(),
        len: 0,
    };
    if bytes(&mut body, MAGIC.len())? != MAGIC {
        return None;
    }
    let dev = u64::from_le_bytes(array(&mut body)?);
    let ino = u64::from_le_bytes(array(&mut body)?);
    let len = u64::from_le_bytes(array(&mut body)?);
    let hash = u128::from_le_bytes(array(&mut body)?);
    let seen = Stat {
        size: u64::from_le_bytes(array(&mut body)?),
        modified: i128::from_le_bytes(array(&mut body)?),
        changed: i128::from_le_bytes(array(&mut body)?),
    };
    let written = i128::from_le_bytes(array(&mut body)?);
    let path_len = u64::from_le_bytes(array(&mut body)?);
    if path_len > body.left
        || bytes(&mut body, usize::try_from(path_len).ok()?)?
            != transcript.as_os_str().as_encoded_bytes()
    {
        return None;
    }
    // Where each indexed line starts, then where the last one ends (the covered length).
    let count = u64::from_le_bytes(array(&mut body)?);
    if count == 0 || count > body.left / 8 {
        return None;
    }
    let covered = Covered {
        dev,
        ino,
        len,
        hash,
        seen,
        written,
    };
    on_header(&covered);
    let raw = bytes(&mut body, usize::try_from(count * 8).ok()?)?;
    let starts: Vec<u64> = raw
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
    let state_len = body.left;
    let decoder = Decoder::resume_from(options.clone(), &mut body, state_len).ok()?;
    if starts.len() != decoder.lines() + 1
        || starts.last() != Some(&len)
        || starts.windows(2).any(|w| w[1] <= w[0])
    {
        return None;
    }
    let sum = body.finish();
    let mut recorded = [0; 8];
    file.read_exact(&mut recorded).ok()?;
    if sum.to_le_bytes() != recorded {
        return None;
    }
    Some((covered, Indexed { decoder, starts }))
}

/// What an index holds beside what it vouches for.
struct Indexed {
    /// The decoder's state after the covered lines (structure only).
    decoder: Decoder,
    /// Where each covered line starts, then the covered length.
    starts: Vec<u64>,
}

/// The next `n` bytes of `r`.
fn bytes(r: &mut impl Read, n: usize) -> Option<Vec<u8>> {
    let mut out = vec![0; n];
    r.read_exact(&mut out).ok()?;
    Some(out)
}

/// The next `N` bytes of `r`.
fn array<const N: usize>(r: &mut impl Read) -> Option<[u8; N]> {
    let mut out = [0; N];
    r.read_exact(&mut out).ok()?;
    Some(out)
}

/// Reads at most `left` bytes of an index body, hashing them in `BLOCK`-sized pieces for
/// [`checksum`] as they pass.
struct Hashing<R: Read> {
    inner: R,
    left: u64,
    piece: Vec<u8>,
    hashes: Vec<u64>,
    len: u64,
}

impl<R: Read> Hashing<R> {
    /// The [`checksum`] of every byte read.
    fn finish(mut self) -> u64 {
        if !self.piece.is_empty() {
            let seed = self.hashes.len() as u64;
            self.hashes.push(xxh3::hash64_with_seed(&self.piece, seed));
        }
        checksum(&self.hashes, self.len)
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let cap = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(out.len())
            .min(BLOCK - self.piece.len());
        if cap == 0 {
            return Ok(0);
        }
        let n = self.inner.read(&mut out[..cap])?;
        self.piece.extend_from_slice(&out[..n]);
        self.left -= n as u64;
        self.len += n as u64;
        if self.piece.len() == BLOCK {
            let seed = self.hashes.len() as u64;
            self.hashes.push(xxh3::hash64_with_seed(&self.piece, seed));
            self.piece.clear();
        }
        Ok(n)
    }
}

/// The checksum of an index body from the hashes of its `BLOCK`-sized pieces.
fn checksum(hashes: &[u64], len: u64) -> u64 {
    let mut bytes = Vec::with_capacity(8 * (hashes.len() + 1));
    bytes.extend_from_slice(&len.to_le_bytes());
    for h in hashes {
        bytes.extend_from_slice(&h.to_le_bytes());
    }
    xxh3::hash64(&bytes)
}

/// A writer that hashes what passes through it in `BLOCK`-sized pieces and ends with
/// the [`checksum`] of it all.
struct Checksummed<W: Write> {
    inner: W,
    piece: Vec<u8>,
    hashes: Vec<u64>,
    len: u64,
}

impl<W: Write> Checksummed<W> {
    fn piece_done(&mut self) -> std::io::Result<()> {
        let seed = self.hashes.len() as u64;
        self.hashes.push(xxh3::hash64_with_seed(&self.piece, seed));
        self.inner.write_all(&self.piece)?;
        self.len += self.piece.len() as u64;
        self.piece.clear();
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<W> {
        if !self.piece.is_empty() {
            self.piece_done()?;
        }
        let sum = checksum(&self.hashes, self.len);
        self.inner.write_all(&sum.to_le_bytes())?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, mut data: &[u8]) -> std::io::Result<usize> {
        let n = data.len();
        while !data.is_empty() {
            let take = (BLOCK - self.piece.len()).min(data.len());
            self.piece.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.piece.len() == BLOCK {
                self.piece_done()?;
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes the index atomically in the cache folder `dir` (a new temporary file, streamed,
/// renamed over it, all relative to the handle); true when it was written (failures are
/// otherwise ignored).
fn write_index(
    dir: &Dir,
    index_file: &str,
    transcript: &Path,
    covered: &Covered,
    decoder: &Decoder,
    starts: &[u64],
) -> bool {
    dir.replace_with(index_file, |file| {
        let path_bytes = transcript.as_os_str().as_encoded_bytes();
        let mut out = Checksummed {
            inner: file,
            piece: Vec::with_capacity(BLOCK),
            hashes: Vec::new(),
            len: 0,
        };
        out.write_all(MAGIC)?;
        for v in [covered.dev, covered.ino, covered.len] {
            out.write_all(&v.to_le_bytes())?;
        }
        out.write_all(&covered.hash.to_le_bytes())?;
        out.write_all(&covered.seen.size.to_le_bytes())?;
        for v in [covered.seen.modified, covered.seen.changed, covered.written] {
            out.write_all(&v.to_le_bytes())?;
        }
        out.write_all(&(path_bytes.len() as u64).to_le_bytes())?;
        out.write_all(path_bytes)?;
        out.write_all(&(starts.len() as u64).to_le_bytes())?;
        for start in starts {
            out.write_all(&start.to_le_bytes())?;
        }
        decoder.snapshot_to(&mut out)?;
        out.finish().map(drop)
    })
    .is_ok()
}

/// How old a temporary file in the cache must be before eviction removes it (a writer
/// still streaming an index is never that slow; one that was killed left it behind).
const STALE_TEMP_SECS: u64 = 600;

/// Keeps the most recently used indexes in the cache folder `dir`, at most `cache.keep` of
/// them and `cache.max_bytes` in all (the newest always), and removes temporary files a
/// helper left behind (older than ten minutes). Everything is listed, inspected and
/// removed relative to the handle, never through a link (a link in the folder is left
/// alone); failures are ignored.
fn evict(dir: &Dir, cache: &Cache) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    let now = std::time::SystemTime::now();
    let mut indexes = Vec::new();
    for entry in entries {
        if entry.kind != notesoup_safe_fs::Kind::File {
            continue;
        }
        let Ok(Some(meta)) = dir.metadata(&entry.name) else {
            continue;
        };
        let name = entry.name.to_string_lossy();
        let temp = notesoup_safe_fs::temp_target(&entry.name)
            .is_some_and(|(target, _)| target.to_string_lossy().starts_with("claude-"))
            // The name an earlier version gave its temporary files.
            || (name.starts_with("claude-") && name.contains(".tmp."));
        if temp {
            if now
                .duration_since(meta.modified)
                .is_ok_and(|age| age.as_secs() > STALE_TEMP_SECS)
            {
                let _ = dir.remove_file(&entry.name);
            }
        } else if name.starts_with("claude-") && name.ends_with(".idx") {
            indexes.push((meta.modified, meta.len, entry.name));
        }
    }
    // Newest first; keep while both budgets hold.
    indexes.sort_by(|a, b| b.cmp(a));
    let mut total = 0_u64;
    for (n, (_, len, name)) in indexes.iter().enumerate() {
        total = total.saturating_add(*len);
        if n > 0 && (n >= cache.keep || total > cache.max_bytes) {
            let _ = dir.remove_file(name);
        }
    }
}

mod prescan;

#[cfg(test)]
mod tests;
