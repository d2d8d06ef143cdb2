//! The facts a listing shows of a session file the vault keeps ([`Facts`]): worked out from
//! the original when it is kept ([`describe`]) by the same rules a listing reads a file on
//! disk with, and read back for a file only the vault holds ([`Corpus::kept_facts`]).

use std::fs::File;
use std::path::Path;

use notesoup_vault_store::{Facts, KeptCopy, Summary, vault_name};
use notesoup_window::Host;

use super::at::Ranged;
use super::last_time::{copy_path, recorded_time};
use super::summary::{start_of, summary_from};
use super::{Corpus, Found};

/// The facts of the first `raw` bytes of `harness`'s session file `original`, open as
/// `file`, as a listing of it on disk reads them: the last time they record
/// ([`Scan::updated`](super::Scan::updated)'s rule), and the listing line of their start
/// when it reads whole (one that cannot be read is left to the copy, which says why). What
/// the vault records when it keeps a version
/// ([`Vault::describing`](notesoup_vault_store::Vault::describing)).
pub fn describe(harness: &str, original: &Path, file: &File, raw: u64) -> Facts {
    match harness.parse::<Host>() {
        Ok(host) => facts_of(host, original, file, raw),
        Err(_) => Facts::default(),
    }
}

/// [`describe`] of a version whose original is gone, read from the copy itself (its start
/// and its tail, only the pieces that hold them): what `notesoup history vault` records for
/// a copy an earlier notesoup kept without facts
/// ([`Vault::fill_facts`](notesoup_vault_store::Vault::fill_facts)). `found` is the file
/// only the vault holds; a Codex copy that is zstd frames is read as the `.jsonl.zst` it
/// was kept from.
pub fn describe_copy(found: &Found, copy: &KeptCopy) -> Facts {
    facts_of(found.harness, &copy_path(found, copy), copy, copy.len())
}

/// The facts of the first `raw` bytes of `host`'s session file `original`, as `file` gives
/// them.
fn facts_of(host: Host, original: &Path, file: &dyn Ranged, raw: u64) -> Facts {
    let id = vault_name(original).unwrap_or_default();
    let name = original.display().to_string();
    let summary = start_of(original, file, raw)
        .and_then(|start| summary_from(host, &id, &name, &start))
        .ok()
        .filter(|line| line.unreadable.is_none())
        .map(|line| Summary {
            started: line.started,
            cwd: line.cwd,
            first_prompt: line.first_prompt,
            parent: line.parent,
        });
    Facts {
        last_time: recorded_time(host, original, file, raw),
        summary,
    }
}

impl Corpus {
    /// The facts the vault recorded of the file only it holds that `found` names, when it
    /// recorded them for all its bytes; `None` otherwise (the copy is read instead, and
    /// says what is wrong with it).
    pub(super) fn kept_facts(&self, found: &Found) -> Option<Facts> {
        let (Some(name), Some(vault)) = (&found.vaulted, &self.vault) else {
            return None;
        };
        vault.facts(found.harness.name(), name).ok().flatten()
    }

    /// The copy of the file only the vault holds that `found` names, read a range at a time;
    /// `None` when there is none or its record is refused.
    pub(super) fn kept_copy(&self, found: &Found) -> Option<KeptCopy> {
        let (Some(name), Some(vault)) = (&found.vaulted, &self.vault) else {
            return None;
        };
        vault.copy(found.harness.name(), name).ok().flatten()
    }
}

#[cfg(test)]
mod tests;
