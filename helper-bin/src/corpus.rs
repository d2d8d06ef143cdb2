//! The local session corpus: every session of every harness on this machine, found by file
//! name in each harness's standard folders, read only when selected (or, for the
//! recent-sessions listing, only the heads of the sessions shown).
//!
//! Folders, first match wins (the request's `roots` is the notesoup setting):
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

use notesoup_history_codex::{CodexFile, file_ids};
use notesoup_history_core::{HOSTS, Selector, SelectorError, SessionSummary, Transcript};
use notesoup_history_pi::{PiFile, session_id_from_file_name};
use serde::Deserialize;
use serde_json::Value;

use crate::{Context, OpError};

/// The notesoup setting that overrides where each harness keeps its sessions.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Roots {
    /// Claude's `projects` folder.
    #[serde(default)]
    pub(crate) claude: Option<String>,
    /// Pi's sessions folder.
    #[serde(default)]
    pub(crate) pi: Option<String>,
    /// Codex's `sessions` folder.
    #[serde(default)]
    pub(crate) codex: Option<String>,
}

/// The most bytes of a file head read for a listing line.
const HEAD_BYTES: u64 = 64 * 1024;
/// The longest history chain followed (forks of forks, segments of segments).
const MAX_CHAIN: usize = 64;

/// One session file found by name.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) host: &'static str,
    /// The session (thread) id.
    pub(crate) id: String,
    pub(crate) path: PathBuf,
    pub(crate) modified: SystemTime,
    /// Codex: the segment id of a rewind segment file.
    segment: Option<String>,
    /// Codex: the time in the file name (orders a thread's files).
    time: String,
}

/// Every session file of `host` under its folders.
fn scan(host: &'static str, roots: &Roots, ctx: &Context) -> Vec<Found> {
    let mut out = Vec::new();
    for root in folders(host, roots, ctx) {
        match host {
            "claude" => walk(
                &root,
                1,
                &mut |path| {
                    let id = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
                    // Older builds kept subagent transcripts beside the session.
                    (path.parent()? != root && !id.starts_with("agent-"))
                        .then(|| found(host, id, path, None, ""))
                },
                &mut out,
            ),
            "pi" => walk(
                &root,
                1,
                &mut |path| {
                    let id = session_id_from_file_name(path.to_str()?)?;
                    Some(found(host, id, path, None, ""))
                },
                &mut out,
            ),
            _ => walk(
                &root,
                3,
                &mut |path| {
                    let ids = file_ids(path.to_str()?)?;
                    Some(found(host, ids.thread, path, ids.segment, ids.time))
                },
                &mut out,
            ),
        }
    }
    if host == "codex" {
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

fn found(host: &'static str, id: &str, path: &Path, segment: Option<&str>, time: &str) -> Found {
    let modified = fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    Found {
        host,
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

/// The folders `host` keeps sessions in.
fn folders(host: &str, roots: &Roots, ctx: &Context) -> Vec<PathBuf> {
    let var = |name: &str| ctx.var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = var("HOME");
    match host {
        "claude" => roots
            .claude
            .as_deref()
            .map(PathBuf::from)
            .or_else(|| var("CLAUDE_CONFIG_DIR").map(|d| d.join("projects")))
            .or_else(|| home.map(|h| h.join(".claude/projects")))
            .into_iter()
            .collect(),
        "pi" => {
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
        _ => {
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
    }
}

/// Pi's own `sessionDir` setting in `<agent dir>/settings.json`, when it is absolute
/// (a relative one depends on the directory Pi was started in).
fn pi_session_dir_setting(agent: &Path) -> Option<PathBuf> {
    let text = fs::read(agent.join("settings.json")).ok()?;
    let settings: Value = serde_json::from_slice(&text).ok()?;
    let dir = PathBuf::from(settings.get("sessionDir")?.as_str()?);
    dir.is_absolute().then_some(dir)
}

/// The file that holds a session's latest state: Claude and Pi have one file per session;
/// a Codex thread's head is its newest segment (or its base).
fn heads(files: Vec<Found>) -> Vec<Found> {
    let mut by_id: HashMap<(&'static str, String), Found> = HashMap::new();
    for file in files {
        let key = (file.host, file.id.clone());
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

/// Parses and resolves `selector` to the head file of one session.
pub(crate) fn resolve(selector: &str, roots: &Roots, ctx: &Context) -> Result<Found, OpError> {
    let selector = Selector::parse(selector).map_err(|err| selector_error(&err))?;
    let host = HOSTS
        .into_iter()
        .find(|h| *h == selector.host)
        .unwrap_or("claude");
    let files = scan(host, roots, ctx);
    let sessions = heads(files.clone());
    let id = selector
        .resolve(sessions.iter().map(|f| f.id.as_str()))
        .map_err(|err| selector_error(&err))?
        .to_owned();
    // Claude and Pi keep one file per session: two files with one id are two sessions.
    let copies = files
        .iter()
        .filter(|f| f.id == id && f.segment.is_none() && host != "codex")
        .count();
    if copies > 1 {
        return Err(OpError::new(
            "ambiguous_session",
            format!(
                "session {host}:{id} has {copies} files under its folder; name it by its transcript_path or move one"
            ),
        ));
    }
    sessions
        .into_iter()
        .find(|f| f.id == id)
        .ok_or_else(|| OpError::new("not_found", format!("no file of session {host}:{id}")))
}

fn selector_error(err: &SelectorError) -> OpError {
    OpError::new(err.code(), err.to_string())
}

/// The whole history of a Pi or Codex session: its file and, following `parentSession`
/// or `history_base`, the files it continues.
pub(crate) fn load(found: &Found, roots: &Roots, ctx: &Context) -> Result<Transcript, OpError> {
    match found.host {
        "pi" => load_pi(found, roots, ctx),
        _ => load_codex(found, roots, ctx),
    }
}

fn load_pi(found: &Found, roots: &Roots, ctx: &Context) -> Result<Transcript, OpError> {
    let index: HashMap<String, PathBuf> = scan("pi", roots, ctx)
        .into_iter()
        .map(|f| (f.id, f.path))
        .collect();
    let mut paths = vec![found.path.clone()];
    let mut texts = vec![read(&found.path)?];
    let mut seen: HashSet<PathBuf> = HashSet::from([found.path.clone()]);
    while paths.len() < MAX_CHAIN {
        let last = texts.last().map(Vec::as_slice).unwrap_or_default();
        let Some(parent) = pi_parent(last) else { break };
        // By id under the sessions folder first (the home may have moved), else the path
        // as written; a parent that is gone ends the chain (gaps are reported missing).
        let by_id = session_id_from_file_name(&parent)
            .and_then(|id| index.get(id))
            .cloned();
        let Some(path) = by_id.or_else(|| Some(PathBuf::from(&parent)).filter(|p| p.is_file()))
        else {
            break;
        };
        if !seen.insert(path.clone()) {
            return Err(OpError::new(
                "history_cycle",
                format!(
                    "pi session files name each other as parents: {}",
                    path.display()
                ),
            ));
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
    notesoup_history_pi::decode(&files[0], &files[1..])
        .map_err(|err| OpError::new(err.code(), err.to_string()))
}

/// The `parentSession` of a Pi file's header line.
fn pi_parent(bytes: &[u8]) -> Option<String> {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let header: Value = serde_json::from_slice(&bytes[..end]).ok()?;
    header.get("parentSession")?.as_str().map(str::to_owned)
}

fn load_codex(found: &Found, roots: &Roots, ctx: &Context) -> Result<Transcript, OpError> {
    let all = scan("codex", roots, ctx);
    let mut chain: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut at = found.path.clone();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    loop {
        if !seen.insert(at.clone()) || chain.len() >= MAX_CHAIN {
            return Err(OpError::new(
                "history_cycle",
                format!("codex history_base links loop at {}", at.display()),
            ));
        }
        let bytes = read_codex(&at)?;
        let name = at.display().to_string();
        let meta = notesoup_history_codex::meta(&CodexFile {
            name: &name,
            bytes: &bytes,
        })
        .map_err(|err| OpError::new(err.code(), err.to_string()))?;
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
    notesoup_history_codex::decode(&files).map_err(|err| OpError::new(err.code(), err.to_string()))
}

fn read(path: &Path) -> Result<Vec<u8>, OpError> {
    fs::read(path).map_err(|err| io_error(path, &err))
}

fn read_codex(path: &Path) -> Result<Vec<u8>, OpError> {
    let bytes = read(path)?;
    if path.extension().is_some_and(|e| e == "zst") {
        let name = path.display().to_string();
        return notesoup_history_codex::decompress(&name, &bytes)
            .map_err(|err| OpError::new(err.code(), err.to_string()));
    }
    Ok(bytes)
}

fn io_error(path: &Path, err: &std::io::Error) -> OpError {
    let code = if err.kind() == std::io::ErrorKind::NotFound {
        "not_found"
    } else {
        "io_error"
    };
    OpError::new(code, format!("session file {}: {err}", path.display()))
}

/// The recent sessions of `host` (all harnesses when `None`), most recently written
/// first: the first `limit` with their heads read, and how many there are in all.
pub(crate) fn recent(
    host: Option<&str>,
    limit: usize,
    roots: &Roots,
    ctx: &Context,
) -> (Vec<SessionSummary>, usize) {
    let files: Vec<Found> = HOSTS
        .into_iter()
        .filter(|h| host.is_none_or(|want| want == *h))
        .flat_map(|h| scan(h, roots, ctx))
        .collect();
    let mut sessions = heads(files.clone());
    sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.id.cmp(&b.id)));
    let total = sessions.len();
    let shown = sessions
        .iter()
        .take(limit)
        .map(|f| summarize(f, &files))
        .collect();
    (shown, total)
}

/// A session's listing line from the head of its first file.
fn summarize(found: &Found, files: &[Found]) -> SessionSummary {
    let name = found.path.display().to_string();
    let result = match found.host {
        "pi" => head(&found.path).and_then(|bytes| {
            notesoup_history_pi::summary(&PiFile {
                name: &name,
                bytes: &bytes,
            })
            .map_err(|e| e.to_string())
        }),
        "codex" => {
            // A thread's first file (its base, not a rewind segment) holds its first prompt.
            let first = files
                .iter()
                .filter(|f| f.host == "codex" && f.id == found.id)
                .min_by(|a, b| (a.segment.is_some(), &a.time).cmp(&(b.segment.is_some(), &b.time)))
                .map_or_else(|| found.path.clone(), |f| f.path.clone());
            let name = first.display().to_string();
            let bytes = if first.extension().is_some_and(|e| e == "zst") {
                read(&first).map_err(|e| e.message).and_then(|b| {
                    notesoup_history_codex::decompress(&name, &b).map_err(|e| e.to_string())
                })
            } else {
                head(&first)
            };
            bytes.and_then(|bytes| {
                notesoup_history_codex::summary(&CodexFile {
                    name: &name,
                    bytes: &bytes,
                })
                .map_err(|e| e.to_string())
            })
        }
        _ => head(&found.path).map(|bytes| claude_summary(&found.id, &bytes)),
    };
    result.unwrap_or_else(|reason| SessionSummary {
        host: found.host.into(),
        id: found.id.clone(),
        unreadable: Some(reason),
        ..SessionSummary::default()
    })
}

fn head(path: &Path) -> Result<Vec<u8>, String> {
    let file = fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(HEAD_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes)
}

/// A Claude transcript's listing line: start, cwd and first prompt from its first user row.
fn claude_summary(id: &str, bytes: &[u8]) -> SessionSummary {
    let mut summary = SessionSummary {
        host: "claude".into(),
        id: id.to_owned(),
        ..SessionSummary::default()
    };
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(row) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if summary.started.is_none() {
            summary.started = row
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if summary.cwd.is_none() {
            summary.cwd = row.get("cwd").and_then(Value::as_str).map(str::to_owned);
        }
        let is_prompt = row.get("type").and_then(Value::as_str) == Some("user")
            && row.get("isMeta").and_then(Value::as_bool) != Some(true)
            && row.get("isCompactSummary").and_then(Value::as_bool) != Some(true);
        if !is_prompt {
            continue;
        }
        let text = match row.pointer("/message/content") {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .and_then(|b| b.get("text").and_then(Value::as_str))
                .map(str::to_owned),
            _ => None,
        };
        if let Some(text) = text.filter(|t| !t.starts_with('<')) {
            summary.first_prompt = Some(text);
            break;
        }
    }
    summary
}

#[cfg(test)]
#[path = "corpus_tests.rs"]
mod tests;
