//! Reading a transcript: in aligned blocks, hashing its prefix as it passes and feeding
//! whole lines on ([`BlockReader`]), and one line again by where it starts ([`read_line`]).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use notesoup_history_claude::index::{BLOCK, Covered, PrefixHash};
use notesoup_history_claude::{Decoder, FEED_LINES};

use super::{Keep, ReadError};
use crate::LINE_MAX_BYTES;

/// The most bytes of whole lines read at once when bodies are scanned (the lazy scan and
/// the warm search's prescan; a longer line is read alone).
pub(super) const SCAN_BYTES: u64 = 1 << 20;

/// The bytes of line `n` (1-based, without its `\n`) of `file`, whose lines start at
/// `starts` (the last entry: the end of the last line's `\n`).
pub(super) fn read_line(file: &File, starts: &[u64], n: usize) -> Result<Vec<u8>, ReadError> {
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

/// Reads `out.len()` bytes of `file` at `at`; a file that ends before them got shorter since
/// its lines were found (cut while read), and the error says so, not "failed to fill whole
/// buffer".
pub(crate) fn read_at(file: &File, out: &mut [u8], at: u64) -> std::io::Result<()> {
    read_exact_at(file, out, at).map_err(|err| {
        if err.kind() != std::io::ErrorKind::UnexpectedEof {
            return err;
        }
        let end = at.saturating_add(out.len() as u64);
        std::io::Error::new(
            err.kind(),
            format!("the file ends before bytes {at}..{end}: it got shorter since it was read"),
        )
    })
}

#[cfg(unix)]
fn read_exact_at(file: &File, out: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, at)
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, out: &mut [u8], at: u64) -> std::io::Result<()> {
    let mut file = file;
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(out)
}

/// Reads a file in aligned blocks, hashing each whole block, and feeds lines on.
pub(super) struct BlockReader {
    hash: PrefixHash,
    /// The last block read, and its number.
    last: Vec<u8>,
    last_number: usize,
    /// The buffer the next block is read into.
    spare: Vec<u8>,
    /// Bytes read so far (the offset of the next block).
    pub(super) offset: u64,
    /// True once the prefix was skipped unread: no prefix hash can be given then.
    skipped: bool,
    /// Bytes actually read from the file.
    pub(super) read: u64,
    /// Nothing at or past this offset is read: the file's size when the call opened it,
    /// so a file that grows while it is read is read as it was then.
    end: u64,
}

impl BlockReader {
    /// A reader of the first `end` bytes of a file (its size when the call opened it).
    pub(super) fn new(end: u64) -> Self {
        Self {
            end,
            hash: PrefixHash::default(),
            // Both made on the first block read (none, for a call that reads none).
            last: Vec::new(),
            last_number: 0,
            spare: Vec::new(),
            offset: 0,
            skipped: false,
            read: 0,
        }
    }

    /// Reads the next block (fewer bytes only at the end of the file, or at `end`) into
    /// `last`; false at the end, leaving `last` as it was.
    pub(super) fn next_block(&mut self, file: &mut File) -> std::io::Result<bool> {
        let want = usize::try_from(self.end.saturating_sub(self.offset))
            .map_or(BLOCK, |left| left.min(BLOCK));
        if want == 0 {
            // At the end (an unchanged file's index covers it all): no buffer is made.
            return Ok(false);
        }
        // Zeroed once: a spare buffer that held a whole block is read over as it is.
        if self.spare.len() != BLOCK {
            self.spare.clear();
            self.spare.resize(BLOCK, 0);
        }
        let mut filled = 0;
        while filled < want {
            match file.read(&mut self.spare[filled..want]) {
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
            // Blocks are read in order from byte 0 (a prefix skipped is never hashed).
            self.hash.push(&self.last);
        }
        self.offset += filled as u64;
        Ok(true)
    }

    /// Goes to byte `len` without reading the bytes before it (an unchanged file).
    pub(super) fn skip_to(&mut self, file: &mut File, len: u64) -> std::io::Result<()> {
        file.seek(SeekFrom::Start(len))?;
        self.offset = len;
        self.last.clear();
        self.skipped = true;
        Ok(())
    }

    /// Takes the hashes of the first whole blocks of the file, read and hashed beside this
    /// reader ([`Prescan::take_hash`](super::prescan::Prescan::take_hash)), as if it had read
    /// them itself: it goes on from the block after them. A reader that has read anything,
    /// or hashes of blocks past the bytes it may read, leaves it as it was.
    pub(super) fn adopt(&mut self, file: &mut File, hash: PrefixHash) -> std::io::Result<()> {
        let len = hash.whole() as u64 * BLOCK as u64;
        if self.offset != 0 || self.skipped || len > self.end {
            return Ok(());
        }
        file.seek(SeekFrom::Start(len))?;
        self.hash = hash;
        self.offset = len;
        self.read += len;
        Ok(())
    }

    /// Reads the prefix `covered` names and checks its hash; the block holding its end
    /// stays in `last` for [`BlockReader::decode_rest`].
    pub(super) fn verify(&mut self, file: &mut File, covered: &Covered) -> std::io::Result<bool> {
        while self.offset < covered.len {
            if !self.next_block(file)? {
                return Ok(false);
            }
        }
        Ok(self.prefix_hash(covered.len) == Some(covered.hash))
    }

    /// The hash of the prefix of `len` bytes, when the blocks read so far cover it and it
    /// ends in the last block read (or on its boundary).
    pub(super) fn prefix_hash(&self, len: u64) -> Option<u128> {
        if self.skipped {
            return None;
        }
        let whole = usize::try_from(len / BLOCK as u64).ok()?;
        let cut = usize::try_from(len % BLOCK as u64).ok()?;
        if whole > self.hash.whole() {
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
    pub(super) fn decode_rest(
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
                // The line's end in this block may take it over the limit too.
                if carry.len() + end > LINE_MAX_BYTES {
                    return Err(ReadError::LineTooLong);
                }
                carry.extend_from_slice(&rest[..end]);
                feed(decoder, &[&carry])?;
                carry.clear();
                rest = &rest[end + 1..];
            }
            // The block's whole lines in batches (the decoder parses a batch on two threads,
            // and adds its rows in order) of at most FEED_LINES: a block of empty lines
            // holds no more than that many slices at once.
            let mut lines: Vec<&[u8]> = Vec::with_capacity(1024);
            while let Some(end) = memchr::memchr(b'\n', rest) {
                lines.push(&rest[..end]);
                rest = &rest[end + 1..];
                if lines.len() == FEED_LINES {
                    feed(decoder, &lines)?;
                    lines.clear();
                }
            }
            feed(decoder, &lines)?;
            // Checked before the carry grows: a line past the cap is never held.
            if carry.len() + rest.len() > LINE_MAX_BYTES {
                return Err(ReadError::LineTooLong);
            }
            carry.extend_from_slice(rest);
            if !self.next_block(file)? {
                return Ok(carry);
            }
            from = 0;
        }
    }
}
