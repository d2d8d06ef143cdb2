//! [`At`]: a range of an open file as a reader that reads at offsets, so whoever holds the
//! file (a vault keep, under its lock) finds its position where it left it; [`Ranged`]: a
//! session file's bytes a range at a time, the open file's or a vault copy's.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt as _;

use notesoup_vault_store::KeptCopy;

/// A session file's bytes, read a range at a time: an open original ([`At`]), or a kept
/// copy that has none ([`KeptCopy`], only the pieces holding the range decompressed).
pub(super) trait Ranged {
    /// The bytes `[from, to)`.
    fn range(&self, from: u64, to: u64) -> Box<dyn Read + '_>;
}

impl Ranged for File {
    fn range(&self, from: u64, to: u64) -> Box<dyn Read + '_> {
        Box::new(At::new(self, from, to))
    }
}

impl Ranged for KeptCopy {
    fn range(&self, from: u64, to: u64) -> Box<dyn Read + '_> {
        Box::new(KeptCopy::range(self, from, to))
    }
}

/// Bytes held in memory (a compressed rollout's decompressed tail).
impl Ranged for Vec<u8> {
    fn range(&self, from: u64, to: u64) -> Box<dyn Read + '_> {
        let end = usize::try_from(to).map_or(self.len(), |to| to.min(self.len()));
        let start = usize::try_from(from).map_or(end, |from| from.min(end));
        Box::new(&self[start..end])
    }
}

/// The bytes `[from, to)` of a file, read with `pread`.
pub(super) struct At<'a> {
    file: &'a File,
    next: u64,
    to: u64,
}

impl<'a> At<'a> {
    pub(super) fn new(file: &'a File, from: u64, to: u64) -> Self {
        Self {
            file,
            next: from,
            to,
        }
    }
}

impl Read for At<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.to.saturating_sub(self.next)).unwrap_or(usize::MAX);
        let want = out.len().min(left);
        if want == 0 {
            return Ok(0);
        }
        let got = self.file.read_at(&mut out[..want], self.next)?;
        self.next += got as u64;
        Ok(got)
    }
}
