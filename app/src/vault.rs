//! The history vault for people: every session file of every harness kept in the vault
//! (`notesoup history vault`), a session forgotten (`notesoup history forget`). The store
//! is `notesoup-vault-store`; this module picks the files and names them.

use std::path::PathBuf;

use notesoup_history_store::Roots;
use notesoup_vault_store::{Vault, VaultError, vault_name};

use crate::{AppError, Context};

/// `NOTESOUP_VAULT=off` turns vaulting off.
pub const SWITCH: &str = "NOTESOUP_VAULT";

/// Whether the environment turned vaulting off (`NOTESOUP_VAULT=off`, `0` or `false`).
pub fn is_off(ctx: &Context) -> bool {
    ctx.var(SWITCH).is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false"
        )
    })
}

/// The vault folder: `vault/` under the notes home.
pub fn root(ctx: &Context) -> Result<PathBuf, AppError> {
    Ok(ctx.notes_home()?.join("vault"))
}

/// What one [`keep_all`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeepReport {
    /// Session files looked at.
    pub files: usize,
    /// Of those, the ones that had new bytes kept.
    pub grown: usize,
    /// Of those, the ones kept as a new version (new here, or rewritten).
    pub new_versions: usize,
    /// Raw bytes added to the vault by this run.
    pub added: u64,
    /// Files not kept, with why (a forgotten session is not one of them).
    pub failed: Vec<(PathBuf, String)>,
    /// The vault's sessions, raw and stored bytes, after the run.
    pub sessions: usize,
    /// Raw bytes of the newest versions.
    pub raw: u64,
    /// Bytes on disk.
    pub stored: u64,
}

/// Every session file of every harness brought into the vault; `progress` is told
/// (done, total) as it goes.
pub fn keep_all(
    ctx: &Context,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<KeepReport, AppError> {
    let vault = open(ctx)?;
    let scanned = crate::history::harness_corpus(Roots::default(), ctx).scan(None);
    let files = scanned.files();
    let mut report = KeepReport {
        files: files.len(),
        ..KeepReport::default()
    };
    for (done, found) in files.iter().enumerate() {
        progress(done, files.len());
        let Some(name) = vault_name(&found.path) else {
            continue;
        };
        match vault.keep(found.harness.name(), &name, &found.path) {
            Ok(kept) => {
                report.added += kept.added;
                report.grown += usize::from(kept.added > 0);
                report.new_versions += usize::from(kept.new_version);
            }
            Err(VaultError::Forgotten { .. }) => {}
            Err(err) => report.failed.push((found.path.clone(), err.to_string())),
        }
    }
    progress(files.len(), files.len());
    let listed = vault.sessions()?;
    report.sessions = listed.len();
    report.raw = listed.iter().map(|v| v.raw).sum();
    report.stored = listed.iter().map(|v| v.stored).sum();
    Ok(report)
}

/// What [`forget`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// The vault names removed (one per session file).
    pub removed: Vec<String>,
    /// The harness's own files of the session, left alone.
    pub originals: Vec<PathBuf>,
}

/// Removes every vaulted file of `harness:id` (`id` a whole session id) for good, with a
/// tombstone each so they are not vaulted again; the harness's own files are left alone
/// and named.
pub fn forget(ctx: &Context, harness: &str, id: &str) -> Result<Forgotten, AppError> {
    let vault = open(ctx)?;
    let scanned = crate::history::harness_corpus(Roots::default(), ctx).scan(None);
    let mut out = Forgotten::default();
    let mut names: Vec<String> = scanned
        .files()
        .iter()
        .filter(|f| f.harness.name() == harness && f.id == id)
        .inspect(|f| out.originals.push(f.path.clone()))
        .filter_map(|f| vault_name(&f.path))
        .collect();
    // Files the harness no longer has: named by their id in the vault.
    names.extend(
        vault
            .sessions()?
            .into_iter()
            .filter(|v| v.harness == harness && v.id.contains(id))
            .map(|v| v.id),
    );
    names.sort();
    names.dedup();
    for name in names {
        if vault.forget(harness, &name)? {
            out.removed.push(name);
        }
    }
    Ok(out)
}

/// Forgets every vaulted session file whose original was last written before `before`
/// (milliseconds since the Unix epoch), each with its tombstone; the `harness:name` of
/// each removed.
pub fn forget_before(ctx: &Context, before: u64) -> Result<Vec<String>, AppError> {
    let vault = open(ctx)?;
    let cut = std::time::UNIX_EPOCH + std::time::Duration::from_millis(before);
    let mut removed = Vec::new();
    for v in vault.sessions()? {
        if v.kept < cut && vault.forget(&v.harness, &v.id)? {
            removed.push(format!("{}:{}", v.harness, v.id));
        }
    }
    Ok(removed)
}

/// The vault the history tools read deleted sessions from: `None` when vaulting is off or
/// nothing was ever vaulted (looking does not create it).
pub fn reader(ctx: &Context) -> Option<Vault> {
    if is_off(ctx) {
        return None;
    }
    let root = root(ctx).ok()?;
    // A vault folder that is not a plain folder (a link, say) is left to `Vault::open`
    // to refuse when something writes to it; the reader just finds nothing there.
    std::fs::symlink_metadata(&root)
        .is_ok_and(|m| m.is_dir())
        .then(|| Vault::open(&root).ok())
        .flatten()
}

fn open(ctx: &Context) -> Result<Vault, AppError> {
    Ok(Vault::open(&root(ctx)?)?)
}

/// Claude Code's default `cleanupPeriodDays`: transcripts untouched this long are deleted
/// at its next start.
pub const CLAUDE_CLEANUP_DAYS: u64 = 30;

/// Days before Claude's cleanup at which a session not in the vault counts as at risk.
pub const RISK_MARGIN_DAYS: u64 = 7;

/// How the vault stands against Claude Code's cleanup.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing {
    /// Session files the vault holds.
    pub sessions: usize,
    /// Their bytes on disk.
    pub stored: u64,
    /// Claude session files untouched for more than `cleanup − RISK_MARGIN_DAYS` days whose
    /// newest bytes the vault does not hold: Claude deletes them soon, and they would be lost.
    pub at_risk: usize,
    /// Claude session files in all.
    pub claude_files: usize,
}

/// The vault's sessions and size, and the Claude session files Claude's cleanup (after
/// `cleanup_days` untouched) would soon delete although the vault does not hold them whole.
pub fn standing(
    ctx: &Context,
    cleanup_days: u64,
    now: std::time::SystemTime,
) -> Result<Standing, AppError> {
    let root = root(ctx)?;
    // Read only: a vault that does not exist yet is not made by looking at it.
    let listed = if root.is_dir() {
        Vault::open(&root)?.sessions()?
    } else {
        Vec::new()
    };
    let stored = listed.iter().map(|v| v.stored).sum();
    let held: std::collections::BTreeMap<(String, String), u64> = listed
        .into_iter()
        .map(|v| ((v.harness, v.id), v.raw))
        .collect();
    let horizon = std::time::Duration::from_secs(
        cleanup_days
            .saturating_sub(RISK_MARGIN_DAYS)
            .saturating_mul(86_400),
    );
    let scanned = crate::history::harness_corpus(Roots::default(), ctx)
        .scan(Some(notesoup_window::Host::Claude));
    let mut standing = Standing {
        sessions: held.len(),
        stored,
        claude_files: scanned.files().len(),
        ..Standing::default()
    };
    for found in scanned.files() {
        let old = now
            .duration_since(found.modified())
            .is_ok_and(|age| age >= horizon);
        let len = std::fs::metadata(&found.path).map_or(0, |m| m.len());
        let kept = vault_name(&found.path)
            .and_then(|name| held.get(&(found.harness.name().to_owned(), name)))
            .is_some_and(|raw| *raw >= len);
        standing.at_risk += usize::from(old && !kept);
    }
    Ok(standing)
}
