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
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use notesoup_history_claude::{Head, Options, RawQuery};
use notesoup_history_codex::{CodexFile, DECOMPRESSED_MAX_BYTES, file_ids};
use notesoup_history_core::{History, Selector, SessionSummary, Transcript};
use notesoup_history_pi::{PiFile, parent_session, session_id_from_file_name};
use notesoup_safe_fs::{FsError, open_regular, read_capped};
use notesoup_vault_store::{Vault, vault_name};
use notesoup_window::Host;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kept::Kept;
use crate::transcript_index::{Cache, read_transcript};
use crate::{SESSION_FILE_MAX_BYTES, StoreError};

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
}

/// The bytes [`Corpus::may_hold`] looks at in one go.
const WINDOW_BYTES: usize = 1 << 20;
/// The most bytes read from the start of a file for a listing line.
const LISTING_BYTES: u64 = 64 * 1024;
/// The largest Pi `settings.json` read.
const SETTINGS_MAX_BYTES: u64 = 1024 * 1024;
/// The longest history chain followed (forks of forks, segments of segments).
const MAX_CHAIN: usize = 64;

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
        }
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
        self.load_among(found, cache, &|harness| {
            scanned
                .files
                .iter()
                .filter(|f| f.harness == harness)
                .cloned()
                .collect()
        })
    }

    /// The history of the session `found` names, for an answer that searches it for `query`,
    /// if any: a Claude transcript through its index (only the lines that may hold the
    /// query decoded whole; see [`read_history`](crate::read_history)), any other session
    /// decoded whole ([`Corpus::load`]). With `kept`, a Claude transcript's history is the
    /// one kept for its file when the file is unchanged since it was read, and is kept for
    /// the next call otherwise ([`Kept`]): a later question, for any query, is a search of
    /// it, not a decode.
    pub fn history(
        &self,
        found: &Found,
        cache: Option<&Cache>,
        query: Option<&str>,
        kept: Option<&Kept>,
    ) -> Result<Arc<History>, StoreError> {
        if found.harness == Host::Claude && found.vaulted.is_none() {
            let options = Options {
                session: Some(found.id.clone()),
                sidechain: false,
            };
            let read = || crate::read_history(&found.path, &options, &Head::Leaf, cache, query);
            return match kept {
                Some(kept) => kept.history(&found.path, read),
                None => read().map(Arc::new),
            };
        }
        Ok(Arc::new(History::new(self.load(found, cache)?)?))
    }

    /// The history of a session a [`Scan`] found, for an answer that searches it for
    /// `query` (a Claude transcript through its index: only the lines that may hold the
    /// query are decoded whole; see [`read_history`](crate::read_history)).
    pub fn history_scanned(
        &self,
        scanned: &Scan,
        found: &Found,
        cache: Option<&Cache>,
        query: Option<&str>,
    ) -> Result<History, StoreError> {
        if found.harness == Host::Claude && found.vaulted.is_none() {
            let options = Options {
                session: Some(found.id.clone()),
                sidechain: false,
            };
            return crate::read_history(&found.path, &options, &Head::Leaf, cache, query);
        }
        Ok(History::new(self.load_scanned(scanned, found, cache)?)?)
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

    /// A whole session file: the harness's copy (a `.jsonl.zst` decompressed), else the
    /// vault's, exactly as it was kept.
    fn bytes(&self, found: &Found) -> Result<Vec<u8>, StoreError> {
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

    /// A Claude transcript only the vault holds, decoded whole to its last leaf.
    fn vaulted_claude(&self, found: &Found) -> Result<Transcript, StoreError> {
        let options = Options {
            session: Some(found.id.clone()),
            sidechain: false,
        };
        let bytes = self.bytes(found)?;
        notesoup_history_claude::decode(&bytes, &options, &Head::Leaf).map_err(|source| {
            StoreError::Claude {
                path: found.path.clone(),
                source,
            }
        })
    }

    /// [`Corpus::load`] with `files` listing a harness's session files.
    fn load_among(
        &self,
        found: &Found,
        cache: Option<&Cache>,
        files: &dyn Fn(Host) -> Vec<Found>,
    ) -> Result<Transcript, StoreError> {
        match found.harness {
            Host::Claude if found.vaulted.is_some() => self.vaulted_claude(found),
            Host::Claude => {
                let options = Options {
                    session: Some(found.id.clone()),
                    sidechain: false,
                };
                read_transcript(&found.path, &options, &Head::Leaf, cache)
            }
            Host::Pi => self.load_pi(found, &files(Host::Pi)),
            Host::Codex => self.load_codex(found, &files(Host::Codex)),
            // An MCP client has no sessions of its own: no scan finds one.
            Host::Mcp => Err(StoreError::NoFile {
                harness: found.harness,
                id: found.id.clone(),
            }),
        }
    }

    /// The recent sessions of `harness` (all harnesses when `None`), most recently written
    /// first: the first `limit` with their listing lines read, and how many there are in all.
    pub fn recent(&self, harness: Option<Host>, limit: usize) -> (Vec<SessionSummary>, usize) {
        let scanned = self.scan(harness);
        let shown = scanned
            .sessions
            .iter()
            .take(limit)
            .map(|f| scanned.summary(f))
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

    /// Every session found, most recently written first (its latest file).
    pub fn sessions(&self) -> &[Found] {
        &self.sessions
    }

    /// The listing line of a session this scan found (only the start of its first file is
    /// read).
    pub fn summary(&self, found: &Found) -> SessionSummary {
        self.reader.summarize(found, &self.files)
    }
}

impl Found {
    /// When the file was last written (the Unix epoch when unknown).
    pub fn modified(&self) -> SystemTime {
        self.modified
    }

    /// True when the harness no longer has this file and it is read from the vault.
    pub fn only_in_vault(&self) -> bool {
        self.vaulted.is_some()
    }
}

/// The set, non-empty [`VARS`].
type Vars = HashMap<&'static str, PathBuf>;

/// Every session file of `harness` under its folders.
fn scan(harness: Host, roots: &Roots, vars: &Vars) -> Vec<Found> {
    let mut out = Vec::new();
    for root in folders(harness, roots, vars) {
        match harness {
            Host::Claude => walk(
                &root,
                1,
                &mut |path| {
                    let id = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
                    // Older builds kept subagent transcripts beside the session.
                    (path.parent()? != root && !id.starts_with("agent-"))
                        .then(|| found_file(harness, id, path, None, ""))
                },
                &mut out,
            ),
            Host::Pi => walk(
                &root,
                1,
                &mut |path| {
                    let id = session_id_from_file_name(path.to_str()?)?;
                    Some(found_file(harness, id, path, None, ""))
                },
                &mut out,
            ),
            Host::Codex => walk(
                &root,
                3,
                &mut |path| {
                    let ids = file_ids(path.to_str()?)?;
                    Some(found_file(harness, ids.thread, path, ids.segment, ids.time))
                },
                &mut out,
            ),
            Host::Mcp => {}
        }
    }
    if harness == Host::Codex {
        // A plain file wins over its compressed twin.
        let plain: HashSet<PathBuf> = out
            .iter()
            .filter(|f| f.path.extension().is_some_and(|e| e == "jsonl"))
            .map(|f| f.path.clone())
            .collect();
        out.retain(|f| {
            f.path.extension().is_none_or(|e| e != "zst")
                || !plain.contains(&f.path.with_extension(""))
        });
    }
    out
}

fn found_file(harness: Host, id: &str, path: &Path, segment: Option<&str>, time: &str) -> Found {
    let modified = fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    Found {
        harness,
        id: id.to_owned(),
        path: path.to_owned(),
        modified,
        segment: segment.map(str::to_owned),
        time: time.to_owned(),
        vaulted: None,
    }
}

/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// A session file of `harness` only the vault holds, from its vault name (the harness's
/// file name without `.jsonl`: the id, Pi's `<time>_<id>`, Codex's `rollout-…`); `None`
/// for a name no file of that harness could have had.
fn vaulted(vault: &Vault, harness: Host, name: String, kept: SystemTime) -> Option<Found> {
    let file_name = format!("{name}.jsonl");
    let (id, segment, time) = match harness {
        Host::Claude => (name.clone(), None, String::new()),
        Host::Pi => (
            session_id_from_file_name(&file_name)?.to_owned(),
            None,
            String::new(),
        ),
        Host::Codex => {
            let ids = file_ids(&file_name)?;
            (
                ids.thread.to_owned(),
                ids.segment.map(str::to_owned),
                ids.time.to_owned(),
            )
        }
        Host::Mcp => return None,
    };
    if harness == Host::Claude && id.starts_with("agent-") {
        return None;
    }
    Some(Found {
        harness,
        // The name it had (the decoders read ids from it), under the vault's folder.
        path: vault.path_of(harness.name(), &file_name),
        id,
        modified: kept,
        segment,
        time,
        vaulted: Some(name),
    })
}

/// Calls `keep` on every file up to `depth` folders below `root`.
fn walk(
    root: &Path,
    depth: usize,
    keep: &mut dyn FnMut(&Path) -> Option<Found>,
    out: &mut Vec<Found>,
) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if depth > 0 {
                walk(&path, depth - 1, keep, out);
            }
        } else if let Some(f) = keep(&path) {
            out.push(f);
        }
    }
}

/// The folders `harness` keeps sessions in.
fn folders(harness: Host, roots: &Roots, vars: &Vars) -> Vec<PathBuf> {
    let var = |name: &str| vars.get(name).cloned();
    let home = var("HOME");
    match harness {
        Host::Claude => roots
            .claude
            .as_deref()
            .map(PathBuf::from)
            .or_else(|| var("CLAUDE_CONFIG_DIR").map(|d| d.join("projects")))
            .or_else(|| home.map(|h| h.join(".claude/projects")))
            .into_iter()
            .collect(),
        Host::Pi => {
            let agent = var("PI_CODING_AGENT_DIR").or_else(|| home.map(|h| h.join(".pi/agent")));
            roots
                .pi
                .as_deref()
                .map(PathBuf::from)
                .or_else(|| var("PI_CODING_AGENT_SESSION_DIR"))
                .or_else(|| agent.as_deref().and_then(pi_session_dir_setting))
                .or_else(|| agent.map(|d| d.join("sessions")))
                .into_iter()
                .collect()
        }
        Host::Codex => {
            let sessions = roots
                .codex
                .as_deref()
                .map(PathBuf::from)
                .or_else(|| var("CODEX_HOME").map(|d| d.join("sessions")))
                .or_else(|| home.map(|h| h.join(".codex/sessions")));
            sessions
                .into_iter()
                .flat_map(|s| {
                    let archived = s.parent().map(|p| p.join("archived_sessions"));
                    std::iter::once(s).chain(archived)
                })
                .collect()
        }
        Host::Mcp => Vec::new(),
    }
}

/// Pi's own `sessionDir` setting in `<agent dir>/settings.json`, when it is absolute
/// (a relative one depends on the directory Pi was started in).
fn pi_session_dir_setting(agent: &Path) -> Option<PathBuf> {
    let path = agent.join("settings.json");
    let (mut file, meta) = open_regular(&path).ok()?;
    let text = read_capped(&mut file, meta.len, SETTINGS_MAX_BYTES, &path).ok()?;
    let settings: Value = serde_json::from_slice(&text).ok()?;
    let dir = PathBuf::from(settings.get("sessionDir")?.as_str()?);
    dir.is_absolute().then_some(dir)
}

/// The file that holds a session's latest state: Claude and Pi have one file per session;
/// a Codex thread's latest file is its newest segment (or its base).
fn latest_files(files: Vec<Found>) -> Vec<Found> {
    let mut by_id: HashMap<(Host, String), Found> = HashMap::new();
    for file in files {
        let key = (file.harness, file.id.clone());
        let newer = by_id.get(&key).is_none_or(|old| {
            (file.time.as_str(), file.segment.is_some())
                > (old.time.as_str(), old.segment.is_some())
        });
        if newer {
            by_id.insert(key, file);
        }
    }
    by_id.into_values().collect()
}

/// Resolves `selector` among `files` (its harness's) to the latest file of one session.
fn resolve(selector: &Selector, files: &[Found]) -> Result<Found, StoreError> {
    let harness = selector.harness;
    let sessions = latest_files(files.to_vec());
    let id = selector
        .resolve(sessions.iter().map(|f| f.id.as_str()))?
        .to_owned();
    // Claude and Pi keep one file per session: two files with one id are two sessions.
    let copies = files
        .iter()
        .filter(|f| f.id == id && f.segment.is_none() && harness != Host::Codex)
        .count();
    if copies > 1 {
        return Err(StoreError::Duplicate {
            harness,
            id,
            copies,
        });
    }
    sessions
        .into_iter()
        .find(|f| f.id == id)
        .ok_or(StoreError::NoFile { harness, id })
}

impl Corpus {
    /// A Pi session's file and, following `parentSession`, the files it continues.
    fn load_pi(&self, found: &Found, files: &[Found]) -> Result<Transcript, StoreError> {
        let index: HashMap<&str, &Found> = files.iter().map(|f| (f.id.as_str(), f)).collect();
        let mut chain = vec![found.clone()];
        let mut texts = vec![self.bytes(found)?];
        let mut seen: HashSet<PathBuf> = HashSet::from([found.path.clone()]);
        while let (Some(at), Some(bytes)) = (chain.last(), texts.last())
            && chain.len() < MAX_CHAIN
        {
            let name = at.path.display().to_string();
            let Some(parent) = parent_session(&PiFile { name: &name, bytes })? else {
                break;
            };
            // By id under the sessions folders (or in the vault) first (the home may have
            // moved), else the path as written; a parent that is gone ends the chain (gaps
            // are reported missing).
            let by_id = session_id_from_file_name(&parent)
                .and_then(|id| index.get(id))
                .map(|f| (*f).clone());
            let as_written = || {
                let named = PathBuf::from(&parent);
                if !named.is_file() {
                    return Ok(None);
                }
                // Followed only inside the Pi sessions folders, links resolved on both sides.
                let inside = fs::canonicalize(&named).is_ok_and(|real| {
                    self.folders(Host::Pi)
                        .iter()
                        .filter_map(|root| fs::canonicalize(root).ok())
                        .any(|root| real.starts_with(root))
                });
                if inside {
                    let id = session_id_from_file_name(&parent).unwrap_or_default();
                    Ok(Some(found_file(Host::Pi, id, &named, None, "")))
                } else {
                    Err(StoreError::ParentOutside {
                        child: at.path.clone(),
                        parent: named,
                    })
                }
            };
            let Some(next) = (match by_id {
                Some(next) => Some(next),
                None => as_written()?,
            }) else {
                break;
            };
            if !seen.insert(next.path.clone()) {
                return Err(StoreError::PiCycle { path: next.path });
            }
            texts.push(self.bytes(&next)?);
            chain.push(next);
        }
        let names: Vec<String> = chain.iter().map(|f| f.path.display().to_string()).collect();
        let files: Vec<PiFile<'_>> = names
            .iter()
            .zip(&texts)
            .map(|(name, bytes)| PiFile { name, bytes })
            .collect();
        Ok(notesoup_history_pi::decode(&files[0], &files[1..])?)
    }

    /// A Codex thread's file and, following `history_base`, the files it continues.
    fn load_codex(&self, found: &Found, all: &[Found]) -> Result<Transcript, StoreError> {
        let mut chain: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        let mut at = found.clone();
        let mut seen: HashSet<PathBuf> = HashSet::new();
        loop {
            if !seen.insert(at.path.clone()) || chain.len() >= MAX_CHAIN {
                return Err(StoreError::CodexCycle { path: at.path });
            }
            let bytes = self.bytes(&at)?;
            let name = at.path.display().to_string();
            let meta = notesoup_history_codex::meta(&CodexFile {
                name: &name,
                bytes: &bytes,
            })?;
            chain.push((at.path.clone(), bytes));
            let Some(base) = meta.history_base else { break };
            // A base is a segment (by segment id) or a thread's base file (by thread id).
            let next = all
                .iter()
                .find(|f| f.segment.as_deref() == Some(base.thread_id.as_str()))
                .or_else(|| {
                    all.iter()
                        .find(|f| f.segment.is_none() && f.id == base.thread_id)
                });
            match next {
                Some(file) => at.clone_from(file),
                None => break, // the decoder reports the base as missing
            }
        }
        chain.reverse();
        let names: Vec<String> = chain.iter().map(|(p, _)| p.display().to_string()).collect();
        let files: Vec<CodexFile<'_>> = names
            .iter()
            .zip(&chain)
            .map(|(name, (_, bytes))| CodexFile { name, bytes })
            .collect();
        Ok(notesoup_history_codex::decode(&files)?)
    }

    /// A session's listing line from the start of its first file.
    fn summarize(&self, found: &Found, files: &[Found]) -> SessionSummary {
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
            let mut bytes = self.bytes(first).map_err(|e| e.to_string())?;
            bytes.truncate(usize::try_from(LISTING_BYTES).unwrap_or(usize::MAX));
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

/// The first [`LISTING_BYTES`] of a regular file (opened without blocking).
fn file_start(path: &Path) -> Result<Vec<u8>, String> {
    let (file, _) = open_regular(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(LISTING_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes)
}

mod given;

#[cfg(test)]
mod tests;
