//! A session's listing line, from the start of its first file only.

use std::io::Read as _;
use std::path::Path;

use notesoup_history_codex::CodexFile;
use notesoup_history_core::SessionSummary;
use notesoup_history_pi::PiFile;
use notesoup_safe_fs::open_regular;
use notesoup_window::Host;

use super::at::Ranged;
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
            // The listing line the vault recorded when it kept the copy, else the copy's start.
            if let Some(summary) = self.kept_facts(first).and_then(|facts| facts.summary) {
                return Ok(SessionSummary {
                    started: summary.started,
                    cwd: summary.cwd,
                    first_prompt: summary.first_prompt,
                    parent: summary.parent,
                    ..SessionSummary::new(found.harness, found.id.clone())
                });
            }
            // Only the start shown: a `.jsonl.zst` kept compressed is decompressed no further.
            let mut bytes = Vec::new();
            self.reader(first)
                .map_err(|e| e.to_string())?
                .take(LISTING_BYTES)
                .read_to_end(&mut bytes)
                .map_err(|e| e.to_string())?;
            bytes
        } else {
            let (file, meta) = open_regular(&first.path).map_err(|e| e.to_string())?;
            start_of(&first.path, &file, meta.len)?
        };
        summary_from(found.harness, &found.id, &name, &bytes)
    }
}

/// The listing line of `harness`'s session `id` from `bytes`, the start of its file `name`
/// (at most [`LISTING_BYTES`] of it): its decoder's rule.
pub(super) fn summary_from(
    harness: Host,
    id: &str,
    name: &str,
    bytes: &[u8],
) -> Result<SessionSummary, String> {
    match harness {
        Host::Pi => {
            notesoup_history_pi::summary(&PiFile { name, bytes }).map_err(|e| e.to_string())
        }
        Host::Codex => {
            notesoup_history_codex::summary(&CodexFile { name, bytes }).map_err(|e| e.to_string())
        }
        Host::Claude => Ok(notesoup_history_claude::summary(id, bytes)),
        Host::Mcp => Err("an MCP client keeps no sessions".to_owned()),
    }
}

/// The start a listing line is read from, of the first `len` bytes of the session file
/// `path` open as `file`: at most [`LISTING_BYTES`] of them, a `.jsonl.zst` rollout's
/// decompressed (only as far as that, never the whole file).
pub(super) fn start_of(path: &Path, file: &dyn Ranged, len: u64) -> Result<Vec<u8>, String> {
    if path.extension().is_some_and(|e| e == "zst") {
        let name = path.display().to_string();
        return notesoup_history_codex::decompress_head(&name, file.range(0, len), LISTING_BYTES)
            .map_err(|e| e.to_string());
    }
    let mut bytes = Vec::new();
    file.range(0, len.min(LISTING_BYTES))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes)
}
