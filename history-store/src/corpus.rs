//! The local session corpus: every session of every harness on this machine, found by file
//! name in each harness's standard folders, read only when selected (or, for the
//! recent-sessions listing, only the first bytes of the sessions shown).
//!
//! Folders, first match wins ([`Roots`] is the notesoup setting):
//! - claude: `roots.claude` (a `projects` folder), else `$CLAUDE_CONFIG_DIR/projects`, else
//!   `~/.claude/projects`; files `<slug>/<sessionId>.jsonl`.
//! - pi: `roots.pi`, else `$PI_CODING_AGENT_SESSION_DIR`, else an absolute `sessionDir`
//!   in Pi's `settings.json`, else `$PI_CODING_AGENT_DIR/sessions`, else
//!   `~/.pi/agent/sessions` (the agent dir being `$PI_CODING_AGENT_DIR` or `~/.pi/agent`); files
//!   `[--<cwd>--/]<time>_<sessionId>.jsonl`.
//! - codex: `roots.codex` (a `sessions` folder), else `$CODEX_HOME/sessions`, else
//!   `~/.codex/sessions`, each with its sibling `archived_sessions`; files
//!   `YYYY/MM/DD/rollout-<time>-<threadId>[_<segmentId>].jsonl[.zst]` (plain wins over
//!   `.zst`).
//!
//! With a vault ([`Corpus::with_vault`]), a session file the harness no longer has but the
//! vault holds is found too ([`Found::only_in_vault`]) and read from the vault; a file the
//! harness still has is always read from the harness's copy.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use notesoup_history_core::{History, Selector, SessionSummary, Transcript};
use notesoup_vault_store::{Vault, vault_name};
use notesoup_window::Host;
use serde::{Deserialize, Serialize};

use crate::StoreError;
use crate::kept::Kept;
use crate::transcript_index::Cache;
use walk::{folders, found_file, latest_files, resolve, scan, vaulted};

mod at;
mod facts;
mod given;
mod last_time;
mod left_bodies;

pub use facts::{describe, describe_copy};
pub use last_time::TAIL_MAX_BYTES;

pub use left_bodies::LEFT_IN_FILE_BYTES;
mod load;
mod prefilter;
mod raw_needle;

pub use raw_needle::RawNeedle;
mod read;
mod summary;
mod walk;
pub use walk::session_of_vault_name;

/// The notesoup setting that overrides where each harness keeps its sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Roots {
    /// Claude's `projects` folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude: Option<String>,
    /// Pi's sessions folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi: Option<String>,
    /// Codex's `sessions` folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codex: Option<String>,
}

/// The environment variables the corpus reads (through [`Corpus::new`]'s lookup).
pub const VARS: [&str; 5] = [
    "HOME",
    "CLAUDE_CONFIG_DIR",
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "CODEX_HOME",
];

/// Every session of every harness under the folders [`Roots`] and the environment name.
#[derive(Debug, Clone)]
pub struct Corpus {
    roots: Roots,
    /// The [`VARS`] that are set and not empty.
    vars: HashMap<&'static str, PathBuf>,
    /// Where sessions the harnesses deleted are still read from, if anywhere.
    vault: Option<Vault>,
    /// The least size of a Pi or Codex body [`Corpus::history`] leaves in its file.
    left_in_file: usize,
}

/// One session file found by name.
#[derive(Debug, Clone)]
pub struct Found {
    /// The harness whose session this is.
    pub harness: Host,
    /// The session (thread) id.
    pub id: String,
    /// The file (for a file only the vault holds, `<vault>/<harness>/<its file name>`,
    /// named as the harness named it: nothing is at that path).
    pub path: PathBuf,
    modified: SystemTime,
    /// The file's size when it was found (`None`: only the vault holds it).
    size: Option<u64>,
    /// Codex: the segment id of a rewind segment file.
    segment: Option<String>,
    /// Codex: the time in the file name (orders a thread's files).
    time: String,
    /// The file's name in the vault when only the vault holds it.
    vaulted: Option<String>,
}

impl Corpus {
    /// The corpus under `roots`, else the folders the environment names: `var` looks up
    /// each of [`VARS`] (the crate reads no environment itself).
    pub fn new(roots: Roots, var: impl Fn(&str) -> Option<String>) -> Self {
        let vars = VARS
            .into_iter()
            .filter_map(|name| Some((name, PathBuf::from(var(name).filter(|v| !v.is_empty())?))))
            .collect();
        Self {
            roots,
            vars,
            vault: None,
            left_in_file: LEFT_IN_FILE_BYTES,
        }
    }

    /// This corpus, its histories of Pi and Codex sessions ([`Corpus::history`]) leaving
    /// in the harness's files every body of at least `min_bytes` (of its texts), instead
    /// of [`LEFT_IN_FILE_BYTES`]: 0 leaves every body there.
    #[must_use]
    pub fn leaving_bodies_of(mut self, min_bytes: usize) -> Self {
        self.left_in_file = min_bytes;
        self
    }

    /// This corpus, also finding the session files `vault` holds that the harnesses no
    /// longer have, and reading them from it.
    #[must_use]
    pub fn with_vault(mut self, vault: Vault) -> Self {
        self.vault = Some(vault);
        self
    }

    /// The folders searched for `harness`'s sessions, in order.
    pub fn folders(&self, harness: Host) -> Vec<PathBuf> {
        folders(harness, &self.roots, &self.vars)
    }

    /// Parses and resolves `selector` to the latest file of one session.
    pub fn resolve(&self, selector: &str) -> Result<Found, StoreError> {
        let selector = Selector::parse(selector)?;
        resolve(&selector, &self.files(selector.harness))
    }

    /// The whole history of the session `found` names: a Claude transcript ends at its
    /// last leaf (decoded through `cache` when given); a Pi or Codex session is read with
    /// the files it continues (`parentSession`, `history_base`).
    pub fn load(&self, found: &Found, cache: Option<&Cache>) -> Result<Transcript, StoreError> {
        self.load_among(found, cache, &|harness| self.files(harness))
    }

    /// [`Corpus::load`] of a session a [`Scan`] found, its ancestor files looked up in the
    /// same scan (no second walk of the folders).
    pub fn load_scanned(
        &self,
        scanned: &Scan,
        found: &Found,
        cache: Option<&Cache>,
    ) -> Result<Transcript, StoreError> {
        self.load_among(found, cache, &|harness| scanned.files_of(harness))
    }

    /// The history of the session `found` names, for an answer that searches it for `query`,
    /// if any: a Claude transcript through its index (only the lines that may hold the
    /// query decoded whole; see [`read_history`](crate::read_history)); a Pi or Codex
    /// session with its large bodies left in the harness's files, read again where an answer
    /// shows them (which of them hold `query` is noted as they are decoded). With `kept`, a
    /// history is the one kept for the session's file (a Claude transcript, a Pi session's
    /// own file, a Codex thread's newest) when the file is unchanged since it was read, and
    /// is kept for the next call otherwise ([`Kept`]): a later question, for any query, is
    /// a search of it, not a decode. (The files a Pi fork or a Codex segment continues are
    /// read only up to where it left them, so what is appended to them changes nothing.)
    pub fn history(
        &self,
        found: &Found,
        cache: Option<&Cache>,
        query: Option<&str>,
        kept: Option<&Kept>,
    ) -> Result<Arc<History>, StoreError> {
        let files = |harness| self.files(harness);
        let read = || self.history_among(found, cache, &files, query);
        match kept {
            Some(kept) if found.vaulted.is_none() => kept.history(&found.path, read),
            _ => read().map(Arc::new),
        }
    }

    /// [`Corpus::history`] of a session a [`Scan`] found (nothing kept), its ancestor
    /// files looked up in the same scan.
    pub fn history_scanned(
        &self,
        scanned: &Scan,
        found: &Found,
        cache: Option<&Cache>,
        query: Option<&str>,
    ) -> Result<History, StoreError> {
        self.history_among(found, cache, &|harness| scanned.files_of(harness), query)
    }

    /// One walk of the folders of `harness` (all harnesses when `None`): every session,
    /// for a command that reads many of them.
    pub fn scan(&self, harness: Option<Host>) -> Scan {
        let files: Vec<Found> = Host::HARNESSES
            .into_iter()
            .filter(|h| harness.is_none_or(|want| want == *h))
            .flat_map(|h| self.files(h))
            .collect();
        let mut sessions = latest_files(files.clone());
        sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.id.cmp(&b.id)));
        Scan {
            files,
            sessions,
            reader: self.clone(),
        }
    }

    /// Every session file of `harness`: the harness's own, then those only the vault
    /// holds (a vault that cannot be listed adds none: the harness's files still answer).
    fn files(&self, harness: Host) -> Vec<Found> {
        let mut out = scan(harness, &self.roots, &self.vars);
        if let Some(vault) = &self.vault {
            let held: HashSet<String> = out.iter().filter_map(|f| vault_name(&f.path)).collect();
            let names = vault.names(harness.name()).unwrap_or_default();
            out.extend(
                names
                    .into_iter()
                    .filter(|(name, _)| !held.contains(name))
                    .filter_map(|(name, kept)| vaulted(vault, harness, name, kept)),
            );
        }
        out
    }

    /// The recent sessions of `harness` (all harnesses when `None`), most recently active
    /// first ([`Scan::by_updated`]: the last time each file records, else its last write):
    /// the first `limit` with their listing lines read, and how many there are in all.
    pub fn recent(&self, harness: Option<Host>, limit: usize) -> (Vec<SessionSummary>, usize) {
        let scanned = self.scan(harness);
        let shown = scanned
            .by_updated()
            .into_iter()
            .take(limit)
            .map(|(f, updated)| scanned.summary_with(f, updated))
            .collect();
        (shown, scanned.sessions.len())
    }
}

/// The session files one walk of the folders found ([`Corpus::scan`]).
#[derive(Debug, Clone)]
pub struct Scan {
    files: Vec<Found>,
    /// The latest file of each session, most recently written first.
    sessions: Vec<Found>,
    /// The corpus that scanned them (it reads what only the vault holds).
    reader: Corpus,
}

impl Scan {
    /// Every session file found (a Codex thread may have several).
    pub fn files(&self) -> &[Found] {
        &self.files
    }

    /// The session files found of `harness` (where the files a session continues are
    /// looked up).
    fn files_of(&self, harness: Host) -> Vec<Found> {
        self.files
            .iter()
            .filter(|f| f.harness == harness)
            .cloned()
            .collect()
    }

    /// Every session found, most recently written first (its latest file).
    pub fn sessions(&self) -> &[Found] {
        &self.sessions
    }

    /// The listing line of a session this scan found: the start of its first file, and
    /// when it was last active ([`Scan::updated`]: the tail of its latest file).
    pub fn summary(&self, found: &Found) -> SessionSummary {
        self.summary_with(found, self.updated(found))
    }

    /// [`Scan::summary`] with when the session was last active already known (`updated`,
    /// as [`Scan::updated`] or [`Scan::by_updated`] said it): only the start of its first
    /// file is read.
    pub fn summary_with(&self, found: &Found, updated: Option<u64>) -> SessionSummary {
        SessionSummary {
            updated,
            ..self.reader.summarize(found, &self.files)
        }
    }
}

impl Found {
    /// When the file was last written (the Unix epoch when unknown).
    pub fn modified(&self) -> SystemTime {
        self.modified
    }

    /// The file's size in bytes when it was found; `None` for a file only the vault holds
    /// (its size is not read when the vault is listed).
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// True when the harness no longer has this file and it is read from the vault.
    pub fn only_in_vault(&self) -> bool {
        self.vaulted.is_some()
    }

    /// The vault's name of the file when only the vault holds it (the harness's file name
    /// without `.jsonl`).
    pub fn vault_name(&self) -> Option<&str> {
        self.vaulted.as_deref()
    }
}

#[cfg(test)]
mod tests;
