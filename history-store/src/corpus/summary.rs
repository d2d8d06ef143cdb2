//! A session's listing line, from the start of its first file only.

use std::io::Read as _;
use std::path::Path;

use notesoup_history_codex::CodexFile;
use notesoup_history_core::SessionSummary;
use notesoup_history_pi::PiFile;
use notesoup_safe_fs::open_regular;
use notesoup_window::Host;

use super::{Corpus, Found};

/// The most bytes read from the start of a file for a listing line.
const LISTING_BYTES: u64 = 64 * 1024;

impl Corpus {
    /// A session's listing line from the start of its first file (its `updated` left
    /// `None`: [`Scan::updated`](super::Scan::updated) reads the tail).
    pub(super) fn summarize(&self, found: &Found, files: &[Found]) -> SessionSummary {
        let mut summary = self
            .summary_of(found, files)
            .unwrap_or_else(|reason| SessionSummary {
                unreadable: Some(reason),
                ..SessionSummary::new(found.harness, found.id.clone())
            });
        summary.vault_only = found.only_in_vault();
        summary
    }

    fn summary_of(&self, found: &Found, files: &[Found]) -> Result<SessionSummary, String> {
        // A Codex thread's first file (its base, not a rewind segment) holds its first prompt.
        let first = match found.harness {
            Host::Codex => files
                .iter()
                .filter(|f| f.harness == Host::Codex && f.id == found.id)
                .min_by(|a, b| (a.segment.is_some(), &a.time).cmp(&(b.segment.is_some(), &b.time)))
                .unwrap_or(found),
            _ => found,
        };
        let name = first.path.display().to_string();
        let bytes = if first.vaulted.is_some() {
            // Only the start shown: a `.jsonl.zst` kept compressed is decompressed no further.
            let mut bytes = Vec::new();
            self.reader(first)
                .map_err(|e| e.to_string())?
                .take(LISTING_BYTES)
                .read_to_end(&mut bytes)
                .map_err(|e| e.to_string())?;
            bytes
        } else if first.path.extension().is_some_and(|e| e == "zst") {
            // Only the start shown is decompressed, never the whole file.
            let (file, _) = open_regular(&first.path).map_err(|e| e.to_string())?;
            notesoup_history_codex::decompress_head(&name, file, LISTING_BYTES)
                .map_err(|e| e.to_string())?
        } else {
            file_start(&first.path)?
        };
        match found.harness {
            Host::Pi => notesoup_history_pi::summary(&PiFile {
                name: &name,
                bytes: &bytes,
            })
            .map_err(|e| e.to_string()),
            Host::Codex => notesoup_history_codex::summary(&CodexFile {
                name: &name,
                bytes: &bytes,
            })
            .map_err(|e| e.to_string()),
            Host::Claude => Ok(notesoup_history_claude::summary(&found.id, &bytes)),
            Host::Mcp => Err("an MCP client keeps no sessions".to_owned()),
        }
    }
}

/// The first [`LISTING_BYTES`] of a regular file (opened without blocking).
fn file_start(path: &Path) -> Result<Vec<u8>, String> {
    let (file, _) = open_regular(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(LISTING_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes)
}
