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

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use notesoup_history_claude::{Head, Options};
use notesoup_history_codex::{CodexFile, DECOMPRESSED_MAX_BYTES, file_ids};
use notesoup_history_core::{History, Selector, SessionSummary, Transcript};
use notesoup_history_pi::{PiFile, parent_session, session_id_from_file_name};
use notesoup_safe_fs::{FsError, open_regular, read_capped};
use notesoup_window::Host;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
}

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
    /// The file.
    pub path: PathBuf,
    modified: SystemTime,
    /// Codex: the segment id of a rewind segment file.
    segment: Option<String>,
    /// Codex: the time in the file name (orders a thread's files).
    time: String,
}

impl Corpus {
    /// The corpus under `roots`, else the folders the environment names: `var` looks up
    /// each of [`VARS`] (the crate reads no environment itself).
    pub fn new(roots: Roots, var: impl Fn(&str) -> Option<String>) -> Self {
        let vars = VARS
            .into_iter()
            .filter_map(|name| Some((name, PathBuf::from(var(name).filter(|v| !v.is_empty())?))))
            .collect();
        Self { roots, vars }
    }

    /// The folders searched for `harness`'s sessions, in order.
    pub fn folders(&self, harness: Host) -> Vec<PathBuf> {
        folders(harness, &self.roots, &self.vars)
    }

    /// Parses and resolves `selector` to the latest file of one session.
    pub fn resolve(&self, selector: &str) -> Result<Found, StoreError> {
        resolve(selector, &self.roots, &self.vars)
    }

    /// The whole history of the session `found` names: a Claude transcript ends at its
    /// last leaf (decoded through `cache` when given); a Pi or Codex session is read with
    /// the files it continues (`parentSession`, `history_base`).
    pub fn load(&self, found: &Found, cache: Option<&Cache>) -> Result<Transcript, StoreError> {
        self.load_among(found, cache, &|harness| {
            scan(harness, &self.roots, &self.vars)
        })
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
        if found.harness == Host::Claude {
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
            .flat_map(|h| scan(h, &self.roots, &self.vars))
            .collect();
        let mut sessions = latest_files(files.clone());
        sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.id.cmp(&b.id)));
        Scan { files, sessions }
    }

    /// [`Corpus::load`] with `files` listing a harness's session files.
    fn load_among(
        &self,
        found: &Found,
        cache: Option<&Cache>,
        files: &dyn Fn(Host) -> Vec<Found>,
    ) -> Result<Transcript, StoreError> {
        match found.harness {
            Host::Claude => {
                let options = Options {
                    session: Some(found.id.clone()),
                    sidechain: false,
                };
                read_transcript(&found.path, &options, &Head::Leaf, cache)
            }
            Host::Pi => load_pi(found, &files(Host::Pi), &self.roots, &self.vars),
            Host::Codex => load_codex(found, &files(Host::Codex)),
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
        summarize(found, &self.files)
    }
}

impl Found {
    /// When the file was last written (the Unix epoch when unknown).
    pub fn modified(&self) -> SystemTime {
        self.modified
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
                        .then(|| found(harness, id, path, None, ""))
                },
                &mut out,
            ),
            Host::Pi => walk(
                &root,
                1,
                &mut |path| {
                    let id = session_id_from_file_name(path.to_str()?)?;
                    Some(found(harness, id, path, None, ""))
                },
                &mut out,
            ),
            Host::Codex => walk(
                &root,
                3,
                &mut |path| {
                    let ids = file_ids(path.to_str()?)?;
                    Some(found(harness, ids.thread, path, ids.segment, ids.time))
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

fn found(harness: Host, id: &str, path: &Path, segment: Option<&str>, time: &str) -> Found {
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
    }
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

/// Parses and resolves `selector` to the latest file of one session.
fn resolve(selector: &str, roots: &Roots, vars: &Vars) -> Result<Found, StoreError> {
    let selector = Selector::parse(selector)?;
    let harness = selector.harness;
    let files = scan(harness, roots, vars);
    let sessions = latest_files(files.clone());
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

/// A Pi session's file and, following `parentSession`, the files it continues.
fn load_pi(
    found: &Found,
    files: &[Found],
    roots: &Roots,
    vars: &Vars,
) -> Result<Transcript, StoreError> {
    let index: HashMap<&str, &PathBuf> = files.iter().map(|f| (f.id.as_str(), &f.path)).collect();
    let mut paths = vec![found.path.clone()];
    let mut texts = vec![read(&found.path)?];
    let mut seen: HashSet<PathBuf> = HashSet::from([found.path.clone()]);
    while let (Some(path), Some(bytes)) = (paths.last(), texts.last())
        && paths.len() < MAX_CHAIN
    {
        let name = path.display().to_string();
        let Some(parent) = parent_session(&PiFile { name: &name, bytes })? else {
            break;
        };
        // By id under the sessions folder first (the home may have moved), else the path
        // as written; a parent that is gone ends the chain (gaps are reported missing).
        let by_id = session_id_from_file_name(&parent)
            .and_then(|id| index.get(id))
            .map(|p| (*p).clone());
        let as_written = || {
            let named = PathBuf::from(&parent);
            if !named.is_file() {
                return Ok(None);
            }
            // Followed only inside the Pi sessions folders, links resolved on both sides.
            let inside = fs::canonicalize(&named).is_ok_and(|real| {
                folders(Host::Pi, roots, vars)
                    .iter()
                    .filter_map(|root| fs::canonicalize(root).ok())
                    .any(|root| real.starts_with(root))
            });
            if inside {
                Ok(Some(named))
            } else {
                Err(StoreError::ParentOutside {
                    child: path.clone(),
                    parent: named,
                })
            }
        };
        let Some(path) = (match by_id {
            Some(path) => Some(path),
            None => as_written()?,
        }) else {
            break;
        };
        if !seen.insert(path.clone()) {
            return Err(StoreError::PiCycle { path });
        }
        texts.push(read(&path)?);
        paths.push(path);
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let files: Vec<PiFile<'_>> = names
        .iter()
        .zip(&texts)
        .map(|(name, bytes)| PiFile { name, bytes })
        .collect();
    Ok(notesoup_history_pi::decode(&files[0], &files[1..])?)
}

/// A Codex thread's file and, following `history_base`, the files it continues.
fn load_codex(found: &Found, all: &[Found]) -> Result<Transcript, StoreError> {
    let mut chain: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut at = found.path.clone();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    loop {
        if !seen.insert(at.clone()) || chain.len() >= MAX_CHAIN {
            return Err(StoreError::CodexCycle { path: at });
        }
        let bytes = read_codex(&at)?;
        let name = at.display().to_string();
        let meta = notesoup_history_codex::meta(&CodexFile {
            name: &name,
            bytes: &bytes,
        })?;
        chain.push((at.clone(), bytes));
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
            Some(file) => at.clone_from(&file.path),
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

/// A session's listing line from the start of its first file.
fn summarize(found: &Found, files: &[Found]) -> SessionSummary {
    let name = found.path.display().to_string();
    let result = match found.harness {
        Host::Pi => file_start(&found.path).and_then(|bytes| {
            notesoup_history_pi::summary(&PiFile {
                name: &name,
                bytes: &bytes,
            })
            .map_err(|e| e.to_string())
        }),
        Host::Codex => {
            // A thread's first file (its base, not a rewind segment) holds its first prompt.
            let first = files
                .iter()
                .filter(|f| f.harness == Host::Codex && f.id == found.id)
                .min_by(|a, b| (a.segment.is_some(), &a.time).cmp(&(b.segment.is_some(), &b.time)))
                .map_or_else(|| found.path.clone(), |f| f.path.clone());
            let name = first.display().to_string();
            let bytes = if first.extension().is_some_and(|e| e == "zst") {
                // Only the start shown is decompressed, never the whole file.
                open_regular(&first)
                    .map_err(|e| e.to_string())
                    .and_then(|(file, _)| {
                        notesoup_history_codex::decompress_head(&name, file, LISTING_BYTES)
                            .map_err(|e| e.to_string())
                    })
            } else {
                file_start(&first)
            };
            bytes.and_then(|bytes| {
                notesoup_history_codex::summary(&CodexFile {
                    name: &name,
                    bytes: &bytes,
                })
                .map_err(|e| e.to_string())
            })
        }
        Host::Claude => {
            file_start(&found.path).map(|bytes| notesoup_history_claude::summary(&found.id, &bytes))
        }
        Host::Mcp => Err("an MCP client keeps no sessions".to_owned()),
    };
    result.unwrap_or_else(|reason| SessionSummary {
        unreadable: Some(reason),
        ..SessionSummary::new(found.harness, found.id.clone())
    })
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

#[cfg(test)]
mod tests;
