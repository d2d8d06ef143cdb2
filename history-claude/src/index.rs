//! The on-disk format of a transcript's index: what it vouches for ([`Covered`]), where each
//! covered line starts, and the decoder's structure-only state after them, checksummed
//! ([`write_index`], [`read_index`]); and the hash of a transcript's prefix the index
//! records ([`PrefixHash`]).
//!
//! Pure: it reads and writes the streams it is given; which file they are, where the index
//! is kept, and whether the transcript still matches what it vouches for are the caller's
//! (`notesoup-history-store`).
//!
//! Layout (integers little-endian): [`MAGIC`] (its last byte the format version), dev, ino,
//! covered length (u64 each), prefix hash (u128), the file's size (u64), modification and
//! status-change times and the time the index was written (i128 nanoseconds each), the
//! transcript's path (u64 length, bytes), the count of line starts (u64) and the starts
//! (u64 each, the last one the covered length), the decoder's state ([`Decoder::snapshot_to`]),
//! then an xxh3-64 checksum of everything before it, taken over [`BLOCK`]-sized pieces.

use std::io::{Read, Write};

use twox_hash::xxh3;

use crate::{Decoder, Options};

/// The file's first bytes; the last byte is the format version.
pub const MAGIC: &[u8; 8] = b"nsidx\0\0\x07";

/// The piece a transcript's prefix is hashed in (piece `i` covers `[i * BLOCK, (i + 1) *
/// BLOCK)`), and an index's checksum taken over.
pub const BLOCK: usize = 1 << 20;

/// What an index vouches for: the transcript's committed prefix, and the file as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Covered {
    /// The file's device.
    pub dev: u64,
    /// The file's inode.
    pub ino: u64,
    /// Bytes of the committed prefix (up to and including its last `\n`).
    pub len: u64,
    /// [`PrefixHash`] of those bytes.
    pub hash: u128,
    /// The file as it was before the indexed bytes were read.
    pub seen: Stat,
    /// When the index was written (nanoseconds since the epoch).
    pub written: i128,
}

/// What a file's metadata says of its content: size, and modification and status-change
/// times in nanoseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stat {
    /// Size in bytes.
    pub size: u64,
    /// Modification time.
    pub modified: i128,
    /// Status-change time.
    pub changed: i128,
}

/// What an index holds beside what it vouches for.
pub struct Index {
    /// What it vouches for.
    pub covered: Covered,
    /// The decoder's state after the covered lines (structure only).
    pub decoder: Decoder,
    /// Where each covered line starts, then the covered length.
    pub starts: Vec<u64>,
}

/// The hash of a prefix: xxh3-64 of each aligned [`BLOCK`] (the last one cut at the
/// prefix's end), seeded with its number, then xxh3-128 of the length and those hashes.
#[derive(Debug, Default)]
pub struct PrefixHash {
    /// Hashes of the whole blocks read so far.
    blocks: Vec<u64>,
}

impl PrefixHash {
    /// Adds the next whole block (`BLOCK` bytes; it is block number [`PrefixHash::whole`]).
    pub fn push(&mut self, block: &[u8]) {
        let number = self.blocks.len() as u64;
        self.blocks.push(xxh3::hash64_with_seed(block, number));
    }

    /// How many whole blocks were pushed.
    pub fn whole(&self) -> usize {
        self.blocks.len()
    }

    /// The hash of the prefix of `len` bytes made of the first `whole_blocks` blocks
    /// pushed and `partial`, the start of the next one (at most `whole_blocks` pushed).
    pub fn finish(&self, whole_blocks: usize, partial: Option<&[u8]>, len: u64) -> u128 {
        let mut bytes = Vec::with_capacity(8 * (whole_blocks + 2));
        bytes.extend_from_slice(&len.to_le_bytes());
        for h in &self.blocks[..whole_blocks.min(self.blocks.len())] {
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

/// Reads the index of the transcript at `transcript` (its path's bytes) from `r`, whose
/// length is `len`: `None` unless it is whole, of this format and of this transcript. It is
/// read in pieces, its checksum taken as the pieces pass, so its bytes are never held whole
/// beside the state they rebuild; a state whose checksum fails is dropped. `on_header` sees
/// what it vouches for as soon as that is read (before the decoder's state).
pub fn read_index(
    mut r: impl Read,
    len: u64,
    transcript: &[u8],
    options: &Options,
    on_header: impl FnOnce(&Covered),
) -> Option<Index> {
    let body_len = len.checked_sub(8)?;
    let mut body = Hashing {
        inner: &mut r,
        left: body_len,
        piece: Vec::with_capacity(BLOCK.min(usize::try_from(body_len).unwrap_or(BLOCK))),
        hashes: Vec::new(),
        len: 0,
    };
    let (covered, path) = read_header(&mut body, body_len)?;
    if path != transcript {
        return None;
    }
    // Where each indexed line starts, then where the last one ends (the covered length).
    let count = u64::from_le_bytes(array(&mut body)?);
    if count == 0 || count > body.left / 8 {
        return None;
    }
    on_header(&covered);
    let starts = read_starts(&mut body, usize::try_from(count).ok()?)?;
    let state_len = body.left;
    let decoder = Decoder::resume_from(options.clone(), &mut body, state_len).ok()?;
    if starts.len() != decoder.lines() + 1
        || starts.last() != Some(&covered.len)
        || starts.windows(2).any(|w| w[1] <= w[0])
    {
        return None;
    }
    let sum = body.finish();
    let recorded: [u8; 8] = array(&mut r)?;
    if sum.to_le_bytes() != recorded {
        return None;
    }
    Some(Index {
        covered,
        decoder,
        starts,
    })
}

/// The path of the transcript the index in `r` (of length `len`) was made of, read from
/// its header alone: `None` unless it begins as an index of this format does. What the
/// index vouches for is not checked (its checksum covers the whole file): this names whose
/// index a file is, so one of a session can be found and removed without reading it whole.
pub fn indexed_transcript(mut r: impl Read, len: u64) -> Option<Vec<u8>> {
    let body_len = len.checked_sub(8)?;
    read_header(&mut r, body_len).map(|(_, path)| path)
}

/// The fixed part of an index's header after [`MAGIC`]: dev, ino, covered length, prefix
/// hash, size, three times, and the path's length.
const HEADER_FIXED: u64 = 8 * 3 + 16 + 8 + 16 * 3 + 8;

/// An index's header from `r`, whose body (all but the checksum) is `body_len` bytes: what
/// it vouches for and the transcript's path (its bytes).
fn read_header(r: &mut impl Read, body_len: u64) -> Option<(Covered, Vec<u8>)> {
    if bytes(r, MAGIC.len())? != MAGIC {
        return None;
    }
    let dev = u64::from_le_bytes(array(r)?);
    let ino = u64::from_le_bytes(array(r)?);
    let len = u64::from_le_bytes(array(r)?);
    let hash = u128::from_le_bytes(array(r)?);
    let seen = Stat {
        size: u64::from_le_bytes(array(r)?),
        modified: i128::from_le_bytes(array(r)?),
        changed: i128::from_le_bytes(array(r)?),
    };
    let written = i128::from_le_bytes(array(r)?);
    let path_len = u64::from_le_bytes(array(r)?);
    let left = body_len.checked_sub(MAGIC.len() as u64 + HEADER_FIXED)?;
    if path_len > left {
        return None;
    }
    let path = bytes(r, usize::try_from(path_len).ok()?)?;
    let covered = Covered {
        dev,
        ino,
        len,
        hash,
        seen,
        written,
    };
    Some((covered, path))
}

/// Writes the index of the transcript at `transcript` (its path's bytes) to `out`,
/// streamed: what it vouches for, the line starts (the last one the covered length), the
/// decoder's state, and the checksum.
pub fn write_index<W: Write>(
    out: W,
    transcript: &[u8],
    covered: &Covered,
    starts: &[u64],
    decoder: &Decoder,
) -> std::io::Result<W> {
    let mut out = Checksummed {
        inner: out,
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
    out.write_all(&(transcript.len() as u64).to_le_bytes())?;
    out.write_all(transcript)?;
    out.write_all(&(starts.len() as u64).to_le_bytes())?;
    for start in starts {
        out.write_all(&start.to_le_bytes())?;
    }
    decoder.snapshot_to(&mut out)?;
    out.finish()
}

/// The next `count` line starts of `r`, read a piece at a time straight into their list
/// (no buffer of all their bytes beside it).
fn read_starts(r: &mut impl Read, count: usize) -> Option<Vec<u64>> {
    const PIECE: usize = 1024;
    let mut starts = Vec::with_capacity(count);
    let mut piece = [0; 8 * PIECE];
    while starts.len() < count {
        let n = (count - starts.len()).min(PIECE);
        let bytes = &mut piece[..8 * n];
        r.read_exact(bytes).ok()?;
        starts.extend(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())),
        );
    }
    Some(starts)
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

/// The checksum of an index body from the hashes of its `BLOCK`-sized pieces (each
/// xxh3-64 seeded with its number) and its length.
pub fn checksum(hashes: &[u64], len: u64) -> u64 {
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
