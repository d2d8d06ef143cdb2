//! Reading a session file for a decoder that reads it line by line: the harness's copy
//! (a Codex `.jsonl.zst` decompressed as it is read), else the vault's; a Codex rollout
//! with its `session_meta` read first.

use std::io::{BufRead, BufReader, Read as _, Seek as _, SeekFrom};
use std::path::Path;

use notesoup_history_codex::{DECOMPRESSED_MAX_BYTES, Inflate, Meta, meta_from};
use notesoup_safe_fs::{FsError, open_regular};
use notesoup_vault_store::Refusal;
use notesoup_window::Host;

use super::{Corpus, Found};
use crate::{SESSION_FILE_MAX_BYTES, StoreError};

/// The first bytes of a zstd frame.
pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// A session file read line by line is read in pieces of this size.
const READ_PIECE: usize = 256 << 10;

/// A Codex rollout opened for its decoder, which reads it once, line by line
/// ([`CodexSource`](notesoup_history_codex::CodexSource)).
pub(super) struct CodexOpened {
    /// Its `session_meta` (its first line, which names the file it continues).
    pub(super) meta: Meta,
    /// Its bytes from the start: the harness's file up to its length when opened, else the
    /// vault's copy.
    pub(super) reader: Box<dyn BufRead>,
    /// True when the bytes are zstd frames (a `.jsonl.zst`), which the decoder
    /// decompresses as it reads.
    pub(super) compressed: bool,
    /// The harness's file the bytes are read from, when they are its plain lines: a
    /// handle to read a line of it again (`None` for the vault's copy or a `.jsonl.zst`).
    pub(super) file: Option<std::fs::File>,
    /// Where the vault's copy keeps its refusal, when the bytes are the vault's.
    pub(super) refusal: Option<Refusal>,
}

/// A session file open for a decoder that reads it line by line ([`Corpus::opened`]).
pub(super) struct Opened {
    /// Its bytes from the start.
    pub(super) reader: Box<dyn BufRead + Send>,
    /// The harness's file the bytes are read from, when they are its plain lines: a
    /// handle to read a line of it again (`None` for the vault's copy or a `.jsonl.zst`).
    pub(super) file: Option<std::fs::File>,
    /// Where the vault's copy keeps its refusal, when the bytes are the vault's: a decoder
    /// says a failed read only in words (`io_error`), and the vault's word is `vault_damaged`.
    pub(super) refusal: Option<Refusal>,
}

impl Corpus {
    /// A Codex rollout open for its decoder: the harness's file through the handle
    /// [`open_session_file`] opened (read up to its size then, so a file growing while it
    /// is read is read as it was), else the vault's copy; its first line read for finding
    /// the file it continues, then the reader put back at the start.
    pub(super) fn open_codex(&self, found: &Found) -> Result<CodexOpened, StoreError> {
        let name = found.path.display().to_string();
        if found.vaulted.is_some() {
            // Its first line from one reading of the copy, the decode from another.
            let (mut head, compressed) = self.vault_copy(found)?;
            let meta = read_meta(&name, &mut head, compressed)
                .map_err(|err| head.take_failure().map_or(err, StoreError::from))?;
            let copy = self.vault_copy(found)?.0;
            let refusal = Some(copy.refusal());
            return Ok(CodexOpened {
                meta,
                reader: Box::new(copy),
                compressed,
                file: None,
                refusal,
            });
        }
        let (mut file, meta) = open_session_file(&found.path)?;
        let unreadable = |source| StoreError::SessionFile {
            path: found.path.clone(),
            source,
        };
        let compressed = found.path.extension().is_some_and(|e| e == "zst");
        let head = read_meta(
            &name,
            &mut BufReader::new((&file).take(meta.len)),
            compressed,
        )?;
        file.seek(SeekFrom::Start(0)).map_err(unreadable)?;
        let again = if compressed {
            None
        } else {
            Some(file.try_clone().map_err(unreadable)?)
        };
        let reader = Box::new(BufReader::with_capacity(READ_PIECE, file.take(meta.len)));
        Ok(CodexOpened {
            meta: head,
            reader,
            compressed,
            file: again,
            refusal: None,
        })
    }

    /// The vault's copy of a session file a piece at a time ([`Corpus::vaulted_reader`]),
    /// and whether it is a Codex rollout's zstd frames (a `.jsonl.zst` kept as it was).
    pub(super) fn vault_copy(
        &self,
        found: &Found,
    ) -> Result<(notesoup_vault_store::VaultReader, bool), StoreError> {
        let mut copy = self.vaulted_reader(found)?;
        let magic = match copy.fill_buf() {
            Ok(start) => start.starts_with(&ZSTD_MAGIC),
            Err(source) => {
                return Err(match copy.take_failure() {
                    Some(failure) => failure.into(),
                    None => StoreError::SessionFile {
                        path: found.path.clone(),
                        source,
                    },
                });
            }
        };
        Ok((copy, found.harness == Host::Codex && magic))
    }

    /// The vault's copy of a session file as a reader that holds one piece of it at a time
    /// ([`VaultReader`](notesoup_vault_store::VaultReader)).
    pub(super) fn vaulted_reader(
        &self,
        found: &Found,
    ) -> Result<notesoup_vault_store::VaultReader, StoreError> {
        let missing = || StoreError::NoFile {
            harness: found.harness,
            id: found.id.clone(),
        };
        let (Some(name), Some(vault)) = (&found.vaulted, &self.vault) else {
            return Err(missing());
        };
        vault
            .reader(found.harness.name(), name)?
            .ok_or_else(missing)
    }

    /// A whole session file as a reader, for a decoder that reads it line by line: the
    /// harness's file through the handle opened here (a regular file of at most
    /// [`SESSION_FILE_MAX_BYTES`], read up to its size when it was opened), else the vault's
    /// copy from memory; a Codex `.jsonl.zst` decompressed as it is read (an [`Inflate`]
    /// capped at [`DECOMPRESSED_MAX_BYTES`], whose refusal a failed read wraps).
    pub(super) fn reader(&self, found: &Found) -> Result<Box<dyn BufRead + Send>, StoreError> {
        Ok(self.opened(found)?.reader)
    }

    /// [`Corpus::reader`], with the harness's file it reads when its bytes are the file's
    /// plain lines, and the vault copy's refusal when they are the vault's ([`Opened`]).
    pub(super) fn opened(&self, found: &Found) -> Result<Opened, StoreError> {
        let name = found.path.display().to_string();
        let inflate = |compressed: Box<dyn BufRead + Send>| -> Box<dyn BufRead + Send> {
            let inflate = Inflate::new(&name, compressed, DECOMPRESSED_MAX_BYTES);
            Box::new(BufReader::with_capacity(READ_PIECE, inflate))
        };
        if found.vaulted.is_some() {
            let (copy, compressed) = self.vault_copy(found)?;
            let refusal = Some(copy.refusal());
            let copy = Box::new(copy);
            return Ok(Opened {
                reader: if compressed { inflate(copy) } else { copy },
                file: None,
                refusal,
            });
        }
        let (file, meta) = open_session_file(&found.path)?;
        let again = file.try_clone().map_err(|source| StoreError::SessionFile {
            path: found.path.clone(),
            source,
        })?;
        let file = Box::new(BufReader::with_capacity(READ_PIECE, file.take(meta.len)));
        let compressed = found.path.extension().is_some_and(|e| e == "zst");
        let (reader, file) = if found.harness == Host::Codex && compressed {
            (inflate(file), None)
        } else {
            (file as Box<dyn BufRead + Send>, Some(again))
        };
        Ok(Opened {
            reader,
            file,
            refusal: None,
        })
    }
}

/// The `session_meta` of the rollout `name` (decompressed first when `compressed`), read
/// as its decoder reads it: only as much of the file as its first line takes.
fn read_meta(name: &str, reader: &mut dyn BufRead, compressed: bool) -> Result<Meta, StoreError> {
    if !compressed {
        return Ok(meta_from(name, reader)?);
    }
    let mut inflate = BufReader::new(Inflate::new(name, reader, DECOMPRESSED_MAX_BYTES));
    meta_from(name, &mut inflate)
        .map_err(|err| inflate.get_ref().failure().cloned().unwrap_or(err).into())
}

/// A session file open for reading: a regular file, opened without blocking, of at most
/// [`SESSION_FILE_MAX_BYTES`] when opened.
pub(super) fn open_session_file(
    path: &Path,
) -> Result<(std::fs::File, notesoup_safe_fs::Meta), StoreError> {
    let (file, meta) = open_regular(path)?;
    if meta.len > SESSION_FILE_MAX_BYTES {
        return Err(FsError::TooLarge {
            path: path.to_owned(),
            limit: SESSION_FILE_MAX_BYTES,
        }
        .into());
    }
    Ok((file, meta))
}
