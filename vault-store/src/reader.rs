//! A kept version read piece by piece ([`VaultReader`]): what a decoder reads line by line
//! from the vault holds one piece of it at a time, never the whole copy.

use std::io::{BufRead, Read};
use std::sync::{Arc, Mutex, PoisonError};

use notesoup_safe_fs::Dir;

use crate::error::VaultError;
use crate::record::Record;

/// The newest version of one vaulted session's bytes, as a reader ([`Vault::reader`]): each
/// piece is read, decompressed (bounded by its recorded size) and checked (length and hash)
/// before any of its bytes are given, so a damaged copy is refused, never misread. A
/// refusal ends the reading with an error, and [`VaultReader::take_failure`] gives it as the
/// vault said it (or its [`Refusal`], to whoever handed the reader on).
///
/// [`Vault::reader`]: crate::Vault::reader
#[derive(Debug)]
pub struct VaultReader {
    session: Arc<Dir>,
    harness: String,
    id: String,
    version: u32,
    record: Record,
    /// The next piece to read.
    next: usize,
    /// The piece being given, and how much of it was given.
    piece: Vec<u8>,
    at: usize,
    /// The refusal that ended the reading, until someone takes it.
    failure: Refusal,
    /// The refusal in words, once there is one: the reading stays ended.
    said: Option<String>,
    /// Bytes of the next piece loaded that are passed over ([`VaultReader::starting_at`]).
    skip: usize,
}

/// Where a [`VaultReader`]'s refusal is kept for the one who opened it, after the reader
/// itself was handed on to a reader of lines that says a failed read only in words (a
/// decoder's `io_error`). Each reader has its own ([`VaultReader::refusal`]).
///
/// ```
/// # fn main() -> Result<(), notesoup_vault_store::VaultError> {
/// use std::io::Read;
/// # let dir = std::env::temp_dir().join(format!("vault-refusal-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// # let session = dir.join("s.jsonl");
/// # std::fs::write(&session, "{}\n").unwrap();
/// let vault = notesoup_vault_store::Vault::open(&dir.join("vault"))?;
/// vault.keep("pi", "s", &session)?;
/// let mut reader = vault.reader("pi", "s")?.expect("kept");
/// let refusal = reader.refusal();
/// let mut bytes = Vec::new();
/// reader.read_to_end(&mut bytes).expect("a whole copy");
/// assert!(refusal.take().is_none()); // read whole: nothing refused
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Refusal(Arc<Mutex<Option<VaultError>>>);

impl Refusal {
    /// The refusal that ended its reader's reading, taken; `None` while there is none (or
    /// once it was taken).
    pub fn take(&self) -> Option<VaultError> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    fn put(&self, failure: VaultError) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(failure);
    }
}

impl VaultReader {
    pub(crate) fn new(session: Dir, harness: &str, id: &str, version: u32, record: Record) -> Self {
        Self::shared(Arc::new(session), harness, id, version, record)
    }

    /// [`VaultReader::new`] of a session folder other readers hold too.
    pub(crate) fn shared(
        session: Arc<Dir>,
        harness: &str,
        id: &str,
        version: u32,
        record: Record,
    ) -> Self {
        Self {
            session,
            harness: harness.to_owned(),
            id: id.to_owned(),
            version,
            record,
            next: 0,
            piece: Vec::new(),
            at: 0,
            failure: Refusal::default(),
            said: None,
            skip: 0,
        }
    }

    /// This reader from the version's byte `offset` on: the pieces before the one that
    /// holds it are passed over without being read (nothing at all past the end).
    pub(crate) fn starting_at(mut self, offset: u64) -> Self {
        let mut start = 0u64;
        self.next = self.record.pieces.len();
        for (k, piece) in self.record.pieces.iter().enumerate() {
            if start + piece.raw > offset {
                self.next = k;
                self.skip = usize::try_from(offset - start).unwrap_or(usize::MAX);
                break;
            }
            start += piece.raw;
        }
        self
    }

    /// How many raw bytes the version holds.
    pub fn len(&self) -> u64 {
        self.record.raw
    }

    /// Whether the version holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.record.raw == 0
    }

    /// Why the reading ended with an error, as the vault says it
    /// ([`VaultError::Damaged`], say), taken (a later read says it again, in words only);
    /// `None` while it has not.
    pub fn take_failure(&mut self) -> Option<VaultError> {
        self.failure.take()
    }

    /// Where this reader's refusal is kept ([`Refusal`]), for the one who hands the reader
    /// on: [`Refusal::take`] is [`VaultReader::take_failure`].
    pub fn refusal(&self) -> Refusal {
        self.failure.clone()
    }

    fn damaged(&self, reason: String) -> VaultError {
        VaultError::Damaged {
            harness: self.harness.clone(),
            id: self.id.clone(),
            reason,
        }
    }

    /// Reads, decompresses and checks the next piece into `self.piece`.
    fn load_next(&mut self) -> Result<(), VaultError> {
        let k = self.next;
        let Some(piece) = self.record.pieces.get(k).copied() else {
            return Ok(());
        };
        let name = format!("v{}.{k}.zst", self.version);
        let packed = match self.session.read(&name, piece.stored) {
            Ok(Some(packed)) => packed,
            Ok(None) => return Err(self.damaged(format!("{name} is missing"))),
            Err(notesoup_safe_fs::FsError::TooLarge { .. }) => {
                return Err(self.damaged(format!("{name} is over {} bytes", piece.stored)));
            }
            Err(err) => return Err(err.into()),
        };
        if packed.len() as u64 != piece.stored {
            return Err(self.damaged(format!("{name} is not {} bytes", piece.stored)));
        }
        self.piece.clear();
        self.at = 0;
        zstd::stream::read::Decoder::new(&packed[..])
            .map_err(|source| crate::io(&self.session.child_path(&name), source))?
            .take(piece.raw + 1)
            .read_to_end(&mut self.piece)
            .map_err(|e| self.damaged(format!("{name}: {e}")))?;
        if self.piece.len() as u64 != piece.raw {
            self.piece.clear();
            return Err(self.damaged(format!("{name} does not hold {} bytes", piece.raw)));
        }
        if crate::xxh64(&self.piece) != piece.hash {
            self.piece.clear();
            return Err(self.damaged(format!("{name} does not match its hash")));
        }
        self.next += 1;
        Ok(())
    }
}

impl Read for VaultReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let given = self.fill_buf()?;
        let n = given.len().min(out.len());
        out[..n].copy_from_slice(&given[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for VaultReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if let Some(said) = &self.said {
            return Err(std::io::Error::other(said.clone()));
        }
        // Empty pieces are passed over; the end is an empty buffer.
        while self.at == self.piece.len() && self.next < self.record.pieces.len() {
            if let Err(failure) = self.load_next() {
                let said = failure.to_string();
                self.failure.put(failure);
                self.said = Some(said.clone());
                return Err(std::io::Error::other(said));
            }
            self.at = std::mem::take(&mut self.skip).min(self.piece.len());
        }
        Ok(&self.piece[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.piece.len());
    }
}
