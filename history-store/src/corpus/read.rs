//! Reading a session file's bytes: the harness's copy (a Codex `.jsonl.zst` decompressed
//! as it streams), else the vault's; and the raw-byte prefilter a search of many sessions
//! runs before any decode ([`Corpus::may_hold`]).

use std::io::Read as _;
use std::path::Path;

use notesoup_history_claude::RawQuery;
use notesoup_history_codex::DECOMPRESSED_MAX_BYTES;
use notesoup_safe_fs::{FsError, open_regular};
use notesoup_window::Host;

use super::{Corpus, Found};
use crate::{SESSION_FILE_MAX_BYTES, StoreError};

/// The bytes [`Corpus::may_hold`] looks at in one go.
pub(super) const WINDOW_BYTES: usize = 1 << 20;

/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

impl Corpus {
    /// A whole session file: the harness's copy (a `.jsonl.zst` decompressed), else the
    /// vault's, exactly as it was kept.
    pub(super) fn bytes(&self, found: &Found) -> Result<Vec<u8>, StoreError> {
        let Some(name) = &found.vaulted else {
            return if found.harness == Host::Codex {
                read_codex(&found.path)
            } else {
                read(&found.path)
            };
        };
        let bytes = self
            .vault
            .as_ref()
            .map(|vault| vault.read(found.harness.name(), name))
            .transpose()?
            .flatten()
            .ok_or_else(|| StoreError::NoFile {
                harness: found.harness,
                id: found.id.clone(),
            })?;
        if found.harness == Host::Codex && bytes.starts_with(&ZSTD_MAGIC) {
            // A `.jsonl.zst` rollout is kept as it was, compressed.
            let name = found.path.display().to_string();
            return Ok(notesoup_history_codex::decompress_from(
                &name,
                &bytes[..],
                DECOMPRESSED_MAX_BYTES,
            )?);
        }
        Ok(bytes)
    }

    /// False only when the session `found` names surely has no event that holds `query`
    /// (only a Claude transcript is looked at: its raw bytes, read in windows, with the
    /// decoder's raw search rules; any other session may hold it). What a search of many
    /// sessions skips without decoding.
    pub fn may_hold(&self, found: &Found, query: &RawQuery) -> Result<bool, StoreError> {
        if found.harness != Host::Claude {
            return Ok(true);
        }
        if found.vaulted.is_some() {
            return Ok(query.may_hold(&self.bytes(found)?));
        }
        let (file, meta) = open_regular(&found.path)?;
        let mut file = file.take(meta.len);
        let overlap = query.overlap();
        // No bigger than the file: most transcripts are read in one go.
        let size = usize::try_from(meta.len).map_or(WINDOW_BYTES, |len| len.min(WINDOW_BYTES));
        let mut window = vec![0u8; size.max(1) + overlap];
        let mut kept = 0;
        loop {
            let read = file
                .read(&mut window[kept..])
                .map_err(|source| StoreError::Transcript {
                    path: found.path.clone(),
                    source,
                })?;
            let end = kept + read;
            if query.may_hold(&window[..end]) {
                return Ok(true);
            }
            if read == 0 {
                return Ok(false);
            }
            // The last bytes again at the start: a pattern split across windows is found.
            let from = end.saturating_sub(overlap);
            window.copy_within(from..end, 0);
            kept = end - from;
        }
    }
}

/// A session file open for reading: a regular file, opened without blocking, of at most
/// [`SESSION_FILE_MAX_BYTES`] when opened.
fn open_session_file(path: &Path) -> Result<(std::fs::File, notesoup_safe_fs::Meta), StoreError> {
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

/// A whole session file: a regular file (checked on the open handle, opened without
/// blocking) of at most [`SESSION_FILE_MAX_BYTES`], read up to its size when it was opened
/// (a file that grows while it is read is read as it was then).
fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    let (file, meta) = open_session_file(path)?;
    let mut out = Vec::with_capacity(usize::try_from(meta.len).unwrap_or(0));
    file.take(meta.len)
        .read_to_end(&mut out)
        .map_err(|source| StoreError::SessionFile {
            path: path.to_owned(),
            source,
        })?;
    Ok(out)
}

/// A whole Codex rollout, a `.jsonl.zst` decompressed as it streams (both caps hold).
fn read_codex(path: &Path) -> Result<Vec<u8>, StoreError> {
    if path.extension().is_none_or(|e| e != "zst") {
        return read(path);
    }
    let (file, meta) = open_session_file(path)?;
    let name = path.display().to_string();
    Ok(notesoup_history_codex::decompress_from(
        &name,
        // Up to its size when it was opened (at most the cap, checked above).
        file.take(meta.len),
        DECOMPRESSED_MAX_BYTES,
    )?)
}
