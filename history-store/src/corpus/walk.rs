//! Finding session files by name: the folders each harness keeps them in, one walk of
//! them, the files only the vault holds, and which file is a session's latest.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use notesoup_history_codex::file_ids;
use notesoup_history_core::Selector;
use notesoup_history_pi::session_id_from_file_name;
use notesoup_safe_fs::{open_regular, read_capped};
use notesoup_vault_store::Vault;
use notesoup_window::Host;
use serde_json::Value;

use super::{Found, Roots};
use crate::StoreError;

/// The largest Pi `settings.json` read.
const SETTINGS_MAX_BYTES: u64 = 1024 * 1024;

/// The set, non-empty [`VARS`].
pub(super) type Vars = HashMap<&'static str, PathBuf>;

/// How many folders below one of its roots `harness` keeps its session files: the walk's
/// depth, and the depth a handed session file is held to ([`super::Corpus::pi_session_file`]).
pub(super) const fn depth(harness: Host) -> usize {
    match harness {
        Host::Claude | Host::Pi => 1,
        Host::Codex => 3,
        Host::Mcp => 0,
    }
}

/// Every session file of `harness` under its folders.
pub(super) fn scan(harness: Host, roots: &Roots, vars: &Vars) -> Vec<Found> {
    let mut out = Vec::new();
    for root in folders(harness, roots, vars) {
        match harness {
            Host::Claude => walk(
                &root,
                depth(harness),
                &mut |path| {
                    let id = notesoup_history_claude::session_id_from_file_name(
                        path.file_name()?.to_str()?,
                    )?;
                    // Older builds kept subagent transcripts beside the session.
                    (path.parent()? != root && !id.starts_with("agent-"))
                        .then(|| found_file(harness, id, path, None, ""))
                },
                &mut out,
            ),
            Host::Pi => walk(
                &root,
                depth(harness),
                &mut |path| {
                    let id = session_id_from_file_name(path.to_str()?)?;
                    Some(found_file(harness, id, path, None, ""))
                },
                &mut out,
            ),
            Host::Codex => walk(
                &root,
                depth(harness),
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

pub(super) fn found_file(
    harness: Host,
    id: &str,
    path: &Path,
    segment: Option<&str>,
    time: &str,
) -> Found {
    let meta = fs::metadata(path).ok();
    let modified = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    Found {
        harness,
        id: id.to_owned(),
        path: path.to_owned(),
        modified,
        size: meta.map(|m| m.len()),
        segment: segment.map(str::to_owned),
        time: time.to_owned(),
        vaulted: None,
    }
}

/// A session file of `harness` only the vault holds, from its vault name (the harness's
/// file name without `.jsonl`: the id, Pi's `<time>_<id>`, Codex's `rollout-…`); `None`
/// for a name no file of that harness could have had.
pub(super) fn vaulted(
    vault: &Vault,
    harness: Host,
    name: String,
    kept: SystemTime,
) -> Option<Found> {
    let file_name = format!("{name}.jsonl");
    let (id, segment, time) = vault_name_ids(harness, &file_name)?;
    Some(Found {
        harness,
        // The name it had (the decoders read ids from it), under the vault's folder.
        path: vault.path_of(harness.name(), &file_name),
        id,
        modified: kept,
        size: None,
        segment,
        time,
        vaulted: Some(name),
    })
}

/// The session id of a vault name (the harness's file name without `.jsonl`: the id, Pi's
/// `<time>_<id>`, Codex's `rollout-…`), as each harness's own file-name reader finds it;
/// `None` for a name no session file of that harness could have had.
///
/// ```
/// use notesoup_history_store::session_of_vault_name;
/// use notesoup_window::Host;
/// let id = "01a23754-8e37-7027-8822-e05ee3580bae";
/// let of = |host, name: &str| session_of_vault_name(host, name);
/// assert_eq!(of(Host::Claude, id).as_deref(), Some(id));
/// assert_eq!(of(Host::Pi, &format!("2026-12-02T15-16-58-039Z_{id}")).as_deref(), Some(id));
/// let rollout = format!("rollout-2026-12-02T15-19-06-{id}_01a23756-8217-7b21-ab26-ecf2081c409d");
/// assert_eq!(of(Host::Codex, &rollout).as_deref(), Some(id));
/// assert_eq!(of(Host::Codex, id), None);
/// assert_eq!(of(Host::Claude, "agent-1"), None);
/// ```
pub fn session_of_vault_name(harness: Host, name: &str) -> Option<String> {
    vault_name_ids(harness, &format!("{name}.jsonl")).map(|(id, _, _)| id)
}

/// The session id, the Codex segment and the Codex time part of `file_name`, a session file
/// of `harness` (never a Claude subagent's).
fn vault_name_ids(harness: Host, file_name: &str) -> Option<(String, Option<String>, String)> {
    let ids = match harness {
        Host::Claude => (
            notesoup_history_claude::session_id_from_file_name(file_name)?.to_owned(),
            None,
            String::new(),
        ),
        Host::Pi => (
            session_id_from_file_name(file_name)?.to_owned(),
            None,
            String::new(),
        ),
        Host::Codex => {
            let ids = file_ids(file_name)?;
            (
                ids.thread.to_owned(),
                ids.segment.map(str::to_owned),
                ids.time.to_owned(),
            )
        }
        Host::Mcp => return None,
    };
    (!(harness == Host::Claude && ids.0.starts_with("agent-"))).then_some(ids)
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
pub(super) fn folders(harness: Host, roots: &Roots, vars: &Vars) -> Vec<PathBuf> {
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
pub(super) fn latest_files(files: Vec<Found>) -> Vec<Found> {
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
pub(super) fn resolve(selector: &Selector, files: &[Found]) -> Result<Found, StoreError> {
    let harness = selector.harness;
    let sessions = latest_files(files.to_vec());
    let id = selector
        .resolve(sessions.iter().map(|f| f.id.as_str()))?
        .to_owned();
    // Claude and Pi keep one file per session: two files with one id are two sessions.
    let copies: Vec<PathBuf> = files
        .iter()
        .filter(|f| f.id == id && f.segment.is_none() && harness != Host::Codex)
        .map(|f| f.path.clone())
        .collect();
    if copies.len() > 1 {
        return Err(StoreError::Duplicate {
            harness,
            id,
            files: copies,
        });
    }
    sessions
        .into_iter()
        .find(|f| f.id == id)
        .ok_or(StoreError::NoFile { harness, id })
}
