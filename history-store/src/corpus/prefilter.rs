//! The raw-byte prefilter a search of many sessions runs before any decode
//! ([`Scan::may_hold`]): a session whose files cannot hold the literal is passed over
//! unread by any decoder, as `rg` passes over a file.
//!
//! A file is judged by [`RawNeedle`], the raw search rules of `history-claude`: a decoded
//! text holds the literal only if the file holds it as it is, JSON-escaped, or behind an
//! escape that may hide it (each in any case, when case is ignored). A Claude transcript is
//! judged on its own file, for the literal or, across the space between a call's name and
//! its input, for its two sides ([`claude_needs`]); a literal with a line break is decoded
//! for.
//!
//! A Pi session or a Codex thread is judged on every file its history is read from (the
//! files it continues: `parentSession`, `history_base`), and only for a literal that its
//! documents can hold only inside one JSON string of those files ([`judged`]): what the
//! decoders and the documents add around the strings is not in the files. They add a
//! call's input rewritten as compact JSON (keys sorted, no spaces, numbers rewritten: a
//! literal with JSON's punctuation or only a number's characters may match there alone),
//! line breaks between texts, a space between a call's name and its input, and `!` before a
//! Pi shell command (a document's marks, `--- result #N:` and the like, are never matched).
//! Any other literal is decoded for, in every session.

use std::collections::HashSet;
use std::io::Read;

use notesoup_history_codex::CodexError;
use notesoup_safe_fs::open_regular;
use notesoup_window::Host;

use super::load::{MAX_CHAIN, codex_base};
use super::raw_needle::{RawNeedle, claude_needs, judged};
use super::read::open_session_file;
use super::{Corpus, Found, Scan};
use crate::StoreError;

/// The bytes [`Scan::may_hold`] looks at in one go.
pub(super) const WINDOW_BYTES: usize = 1 << 20;

impl Scan {
    /// False only when the session `found` names surely has no document that holds `query`:
    /// no file its history is read from holds it (see the module's docs). What a search of
    /// many sessions skips without decoding. An error (a file that cannot be read) is the
    /// decoder's to report: the caller decodes.
    pub fn may_hold(&self, found: &Found, query: &RawNeedle) -> Result<bool, StoreError> {
        match found.harness {
            Host::Claude => match claude_needs(query) {
                Some(needs) => self.reader.file_may_hold(found, &needs, None),
                None => Ok(true),
            },
            Host::Pi | Host::Codex if judged(query) => self.chain_may_hold(found, query),
            _ => Ok(true),
        }
    }

    /// [`Scan::may_hold`] of a Pi session or Codex thread: each file of its chain in turn,
    /// the next found from the first line of the one before (as the decode finds it).
    fn chain_may_hold(&self, found: &Found, query: &RawNeedle) -> Result<bool, StoreError> {
        let mut at = found.clone();
        let needs = [vec![query.clone()]];
        let mut seen = HashSet::new();
        let mut head = Vec::new();
        loop {
            if !seen.insert(at.path.clone()) || seen.len() > MAX_CHAIN {
                return Ok(true); // a cycle or a chain too long: the decode reports it
            }
            if self.reader.file_may_hold(&at, &needs, Some(&mut head))? {
                return Ok(true);
            }
            let next = match at.harness {
                Host::Pi => self.reader.pi_parent(&at, &head, &|id| {
                    // As the decode's index of the Pi files: the last one with that id.
                    self.files
                        .iter()
                        .rev()
                        .find(|f| f.harness == Host::Pi && f.id == id)
                        .cloned()
                }),
                _ => codex_base(&at, &head, &self.files),
            };
            match next {
                Ok(Some(next)) => at = next,
                Ok(None) => return Ok(false),
                // A header the decoder cannot read: it reports why.
                Err(_) => return Ok(true),
            }
        }
    }
}

impl Corpus {
    /// False only when the file `found` names (a whole file, not its chain) surely holds
    /// none of `needs`: a set of literals each of whose byte patterns the file may hold
    /// somewhere (one set holding one literal: the literal itself); its raw bytes read in
    /// windows. `head`, when given, gets the file's first line (up to the first window's
    /// end), for finding the file it continues.
    fn file_may_hold(
        &self,
        found: &Found,
        needs: &[Vec<RawNeedle>],
        mut head: Option<&mut Vec<u8>>,
    ) -> Result<bool, StoreError> {
        let first_line = |bytes: &[u8], head: &mut Vec<u8>| {
            let end = bytes
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |at| at + 1);
            head.clear();
            head.extend_from_slice(&bytes[..end]);
        };
        let compressed = found.path.extension().is_some_and(|e| e == "zst");
        // A vault's copy, or a `.jsonl.zst` decompressed as it is read (as the decode reads
        // it, never whole); else the file, read up to its size when opened (a Pi or Codex
        // file as its decode reads it: at most the session file cap).
        let (mut file, len): (Box<dyn Read>, Option<u64>) = if found.vaulted.is_some() || compressed
        {
            (self.reader(found)?, None)
        } else {
            let (file, meta) = if found.harness == Host::Claude {
                open_regular(&found.path)?
            } else {
                open_session_file(&found.path)?
            };
            (Box::new(file.take(meta.len)), Some(meta.len))
        };
        let overlap = needs
            .iter()
            .flatten()
            .map(RawNeedle::overlap)
            .max()
            .unwrap_or(0);
        // Which literal of each set was seen, in this window or an earlier one.
        let mut seen: Vec<Vec<bool>> = needs.iter().map(|set| vec![false; set.len()]).collect();
        // No bigger than the file: most transcripts are read in one go.
        let size = len
            .and_then(|len| usize::try_from(len).ok())
            .map_or(WINDOW_BYTES, |len| len.min(WINDOW_BYTES));
        let mut window = vec![0u8; size.max(1) + overlap];
        let mut kept = 0;
        let mut first = true;
        loop {
            let read = file.read(&mut window[kept..]).map_err(|source| {
                // A `.jsonl.zst`'s refusal (corrupt, or over the cap) as the decode gives it.
                match source
                    .get_ref()
                    .and_then(|e| e.downcast_ref::<CodexError>())
                {
                    Some(refusal) => StoreError::Codex(refusal.clone()),
                    None => StoreError::Transcript {
                        path: found.path.clone(),
                        source,
                    },
                }
            })?;
            let end = kept + read;
            if let Some(head) = head.as_deref_mut()
                && first
            {
                first_line(&window[..end], head);
                first = false;
            }
            for (set, seen) in needs.iter().zip(&mut seen) {
                for (literal, seen) in set.iter().zip(seen.iter_mut()) {
                    *seen = *seen || literal.may_hold(&window[..end]);
                }
                if seen.iter().all(|&s| s) {
                    return Ok(true);
                }
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

#[cfg(test)]
mod tests;
