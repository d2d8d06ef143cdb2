//! A `.jsonl.zst` rollout's JSONL, decompressed as it is read ([`Inflate`]): frame after
//! frame, each checksum verified, refused one byte past a cap.

use std::io::{self, BufRead, BufReader, Read};

use ruzstd::{FrameDecoder, StreamingDecoder};

use crate::CodexError;

/// Most bytes one `.jsonl.zst` rollout may decompress to: 128 MiB. Decompression streams
/// and stops one byte past it ([`CodexError::TooLarge`]), so a zstd bomb costs at most this
/// much memory plus the decoder's window (which `ruzstd` caps at 100 MiB).
pub const DECOMPRESSED_MAX_BYTES: u64 = 128 * 1024 * 1024;

/// The JSONL of a `.jsonl.zst` rollout (one or more zstd frames, as Codex writes them) as
/// a reader: decompressed as it is read, each frame's checksum verified (when it has one)
/// as the frame ends, and more than `limit` bytes refused ([`CodexError::TooLarge`]) after
/// producing at most one byte past it. So a zstd bomb costs the decoder's window, never
/// its output. A read that fails returns an [`io::Error`] wrapping the refusal, which
/// [`Inflate::failure`] keeps.
///
/// ```
/// use std::io::Read;
/// use notesoup_history_codex::{CodexError, Inflate};
///
/// // A hand-made frame: one RLE block repeating `x` 100 000 times.
/// let size: u32 = 100_000;
/// let header = 1 | (1 << 1) | (size << 3); // last block, RLE, its size
/// let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]; // magic, no size, 128 KiB window
/// zst.extend_from_slice(&header.to_le_bytes()[..3]);
/// zst.push(b'x');
///
/// let mut inflate = Inflate::new("a.jsonl.zst", &zst[..], 1000);
/// let mut head = [0; 1000];
/// inflate.read_exact(&mut head)?; // up to the cap, read as it is decompressed
/// assert!(inflate.read(&mut [0; 10]).is_err()); // one byte past it
/// assert!(matches!(inflate.failure(), Some(CodexError::TooLarge { limit: 1000, .. })));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Inflate<R: BufRead> {
    name: String,
    stage: Stage<R>,
    produced: u64,
    limit: u64,
    failure: Option<CodexError>,
}

/// Where an [`Inflate`] is in its input.
enum Stage<R: BufRead> {
    /// Before a frame (the first, or after one ended).
    Between(R),
    /// Inside a frame.
    Frame(Box<StreamingDecoder<R, FrameDecoder>>),
    /// Failed: nothing more is read.
    Gone,
}

impl<R: BufRead> Inflate<R> {
    /// The decompressed bytes of the file `name` (named in every refusal), read from
    /// `compressed`, at most `limit` of them.
    pub fn new(name: &str, compressed: R, limit: u64) -> Self {
        Self {
            name: name.to_owned(),
            stage: Stage::Between(compressed),
            produced: 0,
            limit,
            failure: None,
        }
    }

    /// Why a read failed ([`CodexError::Zstd`] or [`CodexError::TooLarge`]); `None` while
    /// none has.
    pub fn failure(&self) -> Option<&CodexError> {
        self.failure.as_ref()
    }

    /// The next decompressed bytes into `buf` (not empty); 0 at the input's end.
    fn step(&mut self, buf: &mut [u8]) -> Result<usize, CodexError> {
        let zstd = |message: String| CodexError::Zstd {
            file: self.name.clone(),
            message,
        };
        loop {
            match std::mem::replace(&mut self.stage, Stage::Gone) {
                Stage::Gone => return Ok(0),
                Stage::Between(mut input) => {
                    if input
                        .fill_buf()
                        .map_err(|e| zstd(e.to_string()))?
                        .is_empty()
                    {
                        self.stage = Stage::Between(input);
                        return Ok(0);
                    }
                    let decoder = StreamingDecoder::new(input).map_err(|e| zstd(e.to_string()))?;
                    self.stage = Stage::Frame(Box::new(decoder));
                }
                Stage::Frame(mut decoder) => {
                    // Up to the limit; there, one byte more is one too many.
                    let room = self.limit - self.produced;
                    let mut probe = [0u8; 1];
                    let into = if room == 0 {
                        &mut probe[..]
                    } else {
                        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
                        &mut buf[..want]
                    };
                    let n = decoder.read(into).map_err(|e| zstd(e.to_string()))?;
                    if n > 0 && room == 0 {
                        return Err(CodexError::TooLarge {
                            file: self.name.clone(),
                            limit: self.limit,
                        });
                    }
                    if n > 0 {
                        self.produced += n as u64;
                        self.stage = Stage::Frame(decoder);
                        return Ok(n);
                    }
                    // The frame ended.
                    let (input, frame) = (*decoder).into_parts();
                    if let (Some(stored), Some(computed)) = (
                        frame.get_checksum_from_data(),
                        frame.get_calculated_checksum(),
                    ) && stored != computed
                    {
                        return Err(zstd(format!(
                            "content checksum {computed:#010x} differs from the stored {stored:#010x}"
                        )));
                    }
                    self.stage = Stage::Between(input);
                }
            }
        }
    }
}

impl<R: BufRead> Read for Inflate<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(failure) = &self.failure {
            return Err(io::Error::other(failure.clone()));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        self.step(buf).map_err(|failure| {
            self.failure = Some(failure.clone());
            io::Error::other(failure)
        })
    }
}

/// The JSONL inside a `.jsonl.zst` rollout (one or more zstd frames, as Codex writes
/// them), verifying each frame's checksum when it has one; more than
/// [`DECOMPRESSED_MAX_BYTES`] is refused with [`CodexError::TooLarge`].
pub fn decompress(name: &str, bytes: &[u8]) -> Result<Vec<u8>, CodexError> {
    decompress_from(name, bytes, DECOMPRESSED_MAX_BYTES)
}

/// [`decompress`] streaming from `compressed` (an open file, say), refusing more than
/// `limit` decompressed bytes after producing at most one byte past it.
///
/// ```
/// use notesoup_history_codex::{CodexError, decompress_from, decompress_head};
///
/// // A hand-made frame: one RLE block repeating `x` 100 000 times.
/// let size: u32 = 100_000;
/// let header = 1 | (1 << 1) | (size << 3); // last block, RLE, its size
/// let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]; // magic, no size, 128 KiB window
/// zst.extend_from_slice(&header.to_le_bytes()[..3]);
/// zst.push(b'x');
///
/// assert_eq!(decompress_from("a.jsonl.zst", &zst[..], 1 << 20)?.len(), 100_000);
/// let err = decompress_from("a.jsonl.zst", &zst[..], 1000).unwrap_err();
/// assert!(matches!(err, CodexError::TooLarge { limit: 1000, .. }));
/// // A listing needs only the head: decoding stops there.
/// assert_eq!(decompress_head("a.jsonl.zst", &zst[..], 64)?, vec![b'x'; 64]);
/// # Ok::<(), CodexError>(())
/// ```
pub fn decompress_from(
    name: &str,
    compressed: impl Read,
    limit: u64,
) -> Result<Vec<u8>, CodexError> {
    let mut inflate = Inflate::new(name, BufReader::new(compressed), limit);
    let mut out = Vec::new();
    match inflate.read_to_end(&mut out) {
        Ok(_) => Ok(out),
        Err(err) => Err(refusal(&inflate, &err)),
    }
}

/// The first `max` decompressed bytes of `compressed` (all of it when shorter): what a
/// session listing shows. Decoding stops there, so a huge or hostile file costs no more.
pub fn decompress_head(name: &str, compressed: impl Read, max: u64) -> Result<Vec<u8>, CodexError> {
    let mut inflate = Inflate::new(name, BufReader::new(compressed), max);
    let mut out = Vec::new();
    if let Err(err) = inflate.read_to_end(&mut out)
        && !matches!(inflate.failure(), Some(CodexError::TooLarge { .. }))
    {
        return Err(refusal(&inflate, &err));
    }
    out.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Ok(out)
}

/// The refusal behind `err`, a failed read of `inflate`.
fn refusal<R: BufRead>(inflate: &Inflate<R>, err: &io::Error) -> CodexError {
    inflate
        .failure()
        .cloned()
        .unwrap_or_else(|| CodexError::Zstd {
            file: inflate.name.clone(),
            message: err.to_string(),
        })
}
