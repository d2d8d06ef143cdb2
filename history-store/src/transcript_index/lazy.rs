//! The bodies of the rows an index covered, read again from the transcript's lines only
//! where an answer shows them or a search may find its literal ([`LineBodies`]).

use std::fs::File;

use notesoup_history_claude::{ElidedRow, RawQuery, TextSpan};
use notesoup_history_core::{Body, BodySource, Contains, Seq, partition_from};

use super::ReadError;
use super::blocks::{SCAN_BYTES, read_at, read_line};
use super::prescan::{Hits, Prescan};
use crate::LINE_MAX_BYTES;

/// The most threads a search of the covered lines runs on.
const SCAN_THREADS: usize = 4;
/// Fewer bytes to search than this are searched on one thread (a thread costs more).
const SCAN_SPLIT_BYTES: u64 = 2 << 20;

/// The bodies of the rows an index covered, read again from the transcript's lines (through
/// the handle the call opened, so a file replaced since is never read): the [`BodySource`]
/// of [`read_history`](super::read_history).
///
/// Which lines may hold the literal and which rows surely do is [`RawQuery`]'s rule (the
/// literal as it is, its JSON-escaped form, the escapes that may hide it, the rows'
/// [`TextSpan`]s): one `memmem` pass over the covered lines (or the one a [`Prescan`] made
/// beside the index's load), and only the lines it marks are read again and decoded.
///
/// The lines from the first one this call checked on were skimmed for the query, and the
/// events whose decoded texts hold it noted: the search reads only the lines before, and
/// counts those events as surely holding it (the list decodes only the ones it shows). A
/// search for another literal reads every elided row's line once, by the same rules: one
/// history serves any number of searches (a server that keeps it answers each with a
/// search, not a decode).
pub(super) struct LineBodies {
    pub(super) file: File,
    pub(super) starts: Vec<u64>,
    pub(super) rows: Vec<ElidedRow>,
    /// Where the rows' bodies lie in their lines (each row names its own).
    pub(super) spans: Vec<TextSpan>,
    /// The one literal this history was read for, and what the read learnt of it.
    pub(super) search: Option<Search>,
}

/// The literal a history was read for (handed over once, to
/// [`read_history`](super::read_history)), and what the read knows of it; or, for a search
/// of another literal, that literal alone (`from` past every line, nothing `holding` it).
pub(super) struct Search {
    pub(super) query: RawQuery,
    /// The raw search of the lines the index covers, run while the index was read (taken
    /// by the list's one question).
    pub(super) prescan: std::sync::Mutex<Option<Prescan>>,
    /// The first line (0-based) this call checked (the ones before were the index's).
    pub(super) from: usize,
    /// The events of the rows skimmed there whose texts hold the query (seqs, in order):
    /// no other row skimmed there holds it.
    pub(super) holding: Vec<u64>,
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
        let query = &search.query;
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
        // The lines in parts of about equal bytes, one thread each (they end with the call).
        let parts = self.parts(last);
        let mut rest = &mut marks[..last];
        let mut found = Vec::new();
        std::thread::scope(|scope| {
            let mut running = Vec::new();
            for pair in parts.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let (mine, tail) = std::mem::take(&mut rest).split_at_mut(b - a);
                rest = tail;
                running.push(scope.spawn(move || {
                    let mut surely = Vec::new();
                    self.scan_lines(query, a, b, mine, &mut surely)
                        .map(|()| surely)
                }));
            }
            for thread in running {
                found.push(
                    thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                );
            }
        });
        for part in found {
            surely.extend(part?);
        }
        surely.sort_unstable();
        surely.dedup();
        Ok((marks, surely))
    }

    /// Where to split the lines `0..last` (0-based) for the scan's threads: boundaries of
    /// about equal bytes, one part per core (at most [`SCAN_THREADS`]), one part for fewer
    /// than [`SCAN_SPLIT_BYTES`].
    fn parts(&self, last: usize) -> Vec<usize> {
        let bytes = self.starts.get(last).copied().unwrap_or(0);
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let threads = if bytes < SCAN_SPLIT_BYTES {
            1
        } else {
            cores.clamp(1, SCAN_THREADS)
        };
        let mut parts = vec![0];
        for k in 1..threads {
            let target = bytes / threads as u64 * k as u64;
            let at = self.starts[..last].partition_point(|&s| s < target);
            if at > *parts.last().unwrap_or(&0) && at < last {
                parts.push(at);
            }
        }
        parts.push(last);
        parts
    }

    /// [`LineBodies::scan`] of the lines `a..b` (0-based): `marks` holds theirs (`marks[0]`
    /// is line `a`'s), and the events that surely hold the query are added to `surely`.
    fn scan_lines(
        &self,
        query: &RawQuery,
        a: usize,
        b: usize,
        marks: &mut [bool],
        surely: &mut Vec<(usize, u32)>,
    ) -> Result<(), ReadError> {
        let mut buf = Vec::new();
        // The row the last match was in: the matches come in file order.
        let mut near = 0;
        self.pieces(a, b, &mut buf, |buf, line, end, from| {
            // The line (0-based) holding byte `at` of the piece.
            let line_of = |at: usize| {
                line + self.starts[line..end].partition_point(|&s| s <= from + at as u64) - 1
            };
            for (at, run) in query.plain(buf) {
                let hit = line_of(at);
                marks[hit - a] = true;
                // The query as it is: inside a body's span, a match of that body.
                let begin = usize::try_from(self.starts[hit] - from).unwrap_or(0);
                let holds = |span: &TextSpan| query.holds(span, at - begin, run);
                self.surely(hit + 1, holds, surely, &mut near);
            }
            for at in query.escaped(buf) {
                marks[line_of(at) - a] = true;
            }
            // A `\u` or `\/` escape hides a match only in a row with a body its spans do not
            // cover (a span never holds one): only those rows' lines are searched for them.
            for (x, y) in self.unspanned(line, end) {
                let lo = usize::try_from(self.starts[x] - from).unwrap_or(0);
                let hi = usize::try_from(self.starts[y] - from).unwrap_or(0);
                let piece = buf.get(lo..hi).unwrap_or_default();
                for at in query.hiding(piece) {
                    marks[line_of(lo + at) - a] = true;
                }
            }
            Ok(())
        })
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
        query: &RawQuery,
        hits: &Hits,
        last: usize,
        marks: &mut [bool],
        surely: &mut Vec<(usize, u32)>,
    ) -> Result<(), ReadError> {
        let end = self.starts[last];
        let lines = &self.starts[..last];
        // The matches come in file order: each line and row is looked for from the last
        // match's on (a few probes near it, not a search of every line and row).
        let line_of = |offset: u64, near: &mut usize| {
            *near = partition_from(lines, *near, |&s| s <= offset);
            near.checked_sub(1)
        };
        let (mut near_line, mut near_row) = (0, 0);
        for &(offset, run) in hits.plain.iter().take_while(|(at, _)| *at < end) {
            let Some(line) = line_of(offset, &mut near_line) else {
                continue;
            };
            marks[line] = true;
            let at = usize::try_from(offset - lines[line]).unwrap_or(usize::MAX);
            let holds = |span: &TextSpan| query.holds(span, at, run);
            self.surely(line + 1, holds, surely, &mut near_row);
        }
        near_line = 0;
        for &offset in hits.escaped.iter().take_while(|&&at| at < end) {
            if let Some(line) = line_of(offset, &mut near_line) {
                marks[line] = true;
            }
        }
        let mut buf = Vec::new();
        for (a, b) in self.unspanned(0, last) {
            self.pieces(a, b, &mut buf, |buf, line, end, from| {
                for at in query.hiding(buf) {
                    let offset = from + at as u64;
                    let hit = self.starts[line..end].partition_point(|&s| s <= offset) - 1;
                    marks[line + hit] = true;
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
    /// span that `holds` the match found there; the row is looked for from row `near` on
    /// (the last match's), and `near` is left at its place.
    fn surely(
        &self,
        n: usize,
        holds: impl Fn(&TextSpan) -> bool,
        surely: &mut Vec<(usize, u32)>,
        near: &mut usize,
    ) {
        let index = partition_from(&self.rows, *near, |r| r.line < n);
        *near = index;
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

    fn may_contain(&self, query: &str) -> Option<Vec<(Seq, Contains)>> {
        // A literal with a line break may be anywhere (texts are joined with them).
        if query.contains('\n') {
            return None;
        }
        // Another literal than the one this history was read for: every elided row's line
        // is searched for it (no row was skimmed for it, none is known to hold it).
        let other;
        let search = match &self.search {
            Some(search) if search.query.query() == query => search,
            _ => {
                other = Search {
                    query: RawQuery::new(query),
                    prescan: std::sync::Mutex::new(None),
                    from: usize::MAX,
                    holding: Vec::new(),
                };
                &other
            }
        };
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
