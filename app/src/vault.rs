//! The history vault for people: every session file of every harness kept in the vault
//! (`notesoup history vault`), a session forgotten (`notesoup history forget`). The store
//! is `notesoup-vault-store`; this module picks the files and names them.

use std::path::{Path, PathBuf};

use notesoup_history_store::{Found, Roots};
use notesoup_vault_store::{Vault, VaultError, vault_name};

use crate::{AppError, Context};

/// `NOTESOUP_VAULT=off` turns vaulting off.
pub const SWITCH: &str = "NOTESOUP_VAULT";

/// Whether the environment turned vaulting off (`NOTESOUP_VAULT=off`, `no`, `0` or `false`).
pub fn is_off(ctx: &Context) -> bool {
    ctx.var(SWITCH).is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "no" | "0" | "false"
        )
    })
}

/// The session files the harnesses have now, under `roots` and the folders the environment
/// names: what the vault keeps copies of (the history tools read these, and the vault's
/// copies of the ones that are gone: `history::corpus`).
pub fn originals(roots: Roots, ctx: &Context) -> notesoup_history_store::Corpus {
    notesoup_history_store::Corpus::new(roots, |name| ctx.var(name).map(str::to_owned))
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
    /// Of those, the ones brought up to date: new bytes kept, or a new version (an empty
    /// file's too).
    pub grown: usize,
    /// Of those, the ones kept as a new version (new here, or rewritten).
    pub new_versions: usize,
    /// Raw bytes added to the vault by this run.
    pub added: u64,
    /// Of those, the ones whose copy was damaged and was kept again from the original.
    pub renewed: usize,
    /// Files not kept, with why (a forgotten session is not one of them).
    pub failed: Vec<(PathBuf, String)>,
    /// Files cut shorter since they were kept, each with its session (`<harness>:<id>`):
    /// their copies begin with what is left and keep what was cut (it is read once the
    /// file is gone; `forget` removes it).
    pub cut: Vec<(PathBuf, String)>,
    /// Sessions only the vault holds whose copy cannot be read back (damaged), as
    /// `<harness>:<id>`: no original is left to keep them again from.
    pub damaged: Vec<String>,
    /// Sessions only the vault holds whose listing facts were recorded from the copy this
    /// run (an earlier notesoup kept it without them).
    pub facts_filled: usize,
    /// The vault's sessions, raw and stored bytes, after the run.
    pub sessions: usize,
    /// Raw bytes of the newest versions.
    pub raw: u64,
    /// Bytes on disk.
    pub stored: u64,
}

/// Every session file of every harness brought into the vault, each copy read back whole
/// (a damaged one is kept again from the original); `progress` is told (done, total) as it
/// goes.
pub fn keep_all(
    ctx: &Context,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<KeepReport, AppError> {
    let vault = open(ctx)?;
    // One walk: the harnesses' files to keep, and the copies no original backs any more.
    let scanned = originals(Roots::default(), ctx)
        .with_vault(vault.clone())
        .scan(None);
    let (only_kept, harness_files): (Vec<&Found>, Vec<&Found>) =
        scanned.files().iter().partition(|f| f.only_in_vault());
    let files = one_per_name(harness_files.iter().copied());
    let mut report = KeepReport {
        files: harness_files.len(),
        ..KeepReport::default()
    };
    for (done, (found, name)) in files.iter().enumerate() {
        progress(done, files.len());
        match keep_checked(&vault, found.harness.name(), name, &found.path) {
            Ok((kept, renewed)) => {
                report.added += kept.added;
                // A new version is brought up to date too, an empty file's as well.
                report.grown += usize::from(kept.added > 0 || kept.new_version);
                report.new_versions += usize::from(kept.new_version);
                report.renewed += usize::from(renewed);
                if kept.cut {
                    report.cut.push((
                        found.path.clone(),
                        format!("{}:{}", found.harness, found.id),
                    ));
                }
            }
            Err(VaultError::Forgotten { .. }) => {}
            Err(err) => report.failed.push((found.path.clone(), err.to_string())),
        }
    }
    progress(files.len(), files.len());
    // The copies no original backs any more: read through, so a damaged one is said now,
    // not found when it is needed; one an earlier notesoup kept without the facts a listing
    // shows gets them from the copy itself, so listing it stops decompressing it.
    for found in only_kept {
        let name = found.vault_name().unwrap_or_default();
        let harness = found.harness.name();
        let checked = vault.check(harness, name).and_then(|_| {
            vault.fill_facts(harness, name, |copy| {
                notesoup_history_store::describe_copy(found, copy)
            })
        });
        match checked {
            Ok(filled) => report.facts_filled += usize::from(filled),
            Err(VaultError::Damaged { .. }) => {
                report.damaged.push(format!("{harness}:{}", found.id));
            }
            Err(_) => {}
        }
    }
    report.damaged.sort();
    report.damaged.dedup();
    let listed = vault.sessions()?;
    report.sessions = listed.len();
    report.raw = listed.iter().map(|v| v.raw).sum();
    report.stored = listed.iter().map(|v| v.stored).sum();
    Ok(report)
}

/// The harness's session `files` the vault keeps, each with its vault name: one file per
/// name. Two project folders can each hold a Claude session file of one id (one name in the
/// vault); the one written last is kept, so the two never take turns as the newest version
/// (each run a new version of the same session, the vault growing without end).
fn one_per_name<'a>(files: impl IntoIterator<Item = &'a Found>) -> Vec<(&'a Found, String)> {
    let mut by_name: std::collections::BTreeMap<(&str, String), &Found> =
        std::collections::BTreeMap::new();
    for found in files {
        let Some(name) = vault_name(&found.path) else {
            continue;
        };
        by_name
            .entry((found.harness.name(), name))
            .and_modify(|kept| {
                if found.modified() > kept.modified() {
                    *kept = found;
                }
            })
            .or_insert(found);
    }
    by_name
        .into_iter()
        .map(|((_, name), found)| (found, name))
        .collect()
}

/// Keeps `original`, then reads the copy through ([`Vault::check`], a piece at a time): a
/// copy the vault refuses as damaged is kept again from the original, which is still there
/// (true when it was).
fn keep_checked(
    vault: &Vault,
    harness: &str,
    name: &str,
    original: &Path,
) -> Result<(notesoup_vault_store::Kept, bool), VaultError> {
    let kept = vault.keep(harness, name, original)?;
    match vault.check(harness, name) {
        Err(VaultError::Damaged { .. }) => Ok((vault.renew(harness, name, original)?, true)),
        _ => Ok((kept, false)),
    }
}

/// What [`forget`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// The vault names removed (one per session file).
    pub removed: Vec<String>,
    /// The harness's own files of the session, left alone.
    pub originals: Vec<PathBuf>,
    /// What notesoup made of the session outside the vault and removed with it: the
    /// history indexes of its transcript (`cache/history`) and its window record and lock
    /// (`windows/<harness>`).
    pub derived: Derived,
    /// Forgotten by an earlier forget: nothing of it was in the vault any more, nothing
    /// else of it was left to remove, and it is not kept.
    pub already: bool,
}

/// The files notesoup derived from a forgotten session, removed by [`forget`] and
/// [`forget_before`] through the stores that own them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Derived {
    /// Its transcript's history indexes (history-store's [`notesoup_history_store::Cache`]).
    pub indexes: Vec<PathBuf>,
    /// Its window record, the record's lock and any temp file of it
    /// (`notesoup-window-store`).
    pub window: Vec<PathBuf>,
}

impl Derived {
    /// True when nothing was removed.
    pub fn is_empty(&self) -> bool {
        self.indexes.is_empty() && self.window.is_empty()
    }
}

/// Removes what notesoup derived from `host`'s session `id` outside the vault (its
/// history indexes and its window record) into `derived`. The harness's files are never
/// touched.
fn forget_derived(
    ctx: &Context,
    host: notesoup_window::Host,
    id: &str,
    derived: &mut Derived,
) -> Result<(), AppError> {
    if let Some(cache) = ctx.history_cache() {
        derived.indexes.extend(cache.forget_session(host, id)?);
    }
    // An id no record could have been written under has none.
    if let Ok(key) = notesoup_window_store::SessionKey::new(host, id) {
        let store = notesoup_window_store::WindowStore::new(ctx.notes_home()?);
        derived.window.extend(store.forget(&key)?);
    }
    Ok(())
}

/// Removes every vaulted file of `harness:id` for good, with a tombstone each so they are
/// not vaulted again, and what notesoup derived from the session elsewhere ([`Derived`]);
/// the harness's own files are left alone and named. `id` must be a
/// session's whole id, of a session the harness has or the vault holds: a unique prefix is
/// refused with the whole id named ([`AppError::PartialId`]), an unknown id as the history
/// tools refuse it, so a typo never forgets a session it did not name, nor blocks one.
pub fn forget(ctx: &Context, harness: &str, id: &str) -> Result<Forgotten, AppError> {
    let vault = open(ctx)?;
    let host: notesoup_window::Host = harness.parse().map_err(AppError::Harness)?;
    let corpus = originals(Roots::default(), ctx).with_vault(vault.clone());
    let scanned = corpus.scan(Some(host));
    // A whole id in any case (ids are UUIDs, case-insensitive, as the selectors take them).
    let files: Vec<_> = scanned
        .files()
        .iter()
        .filter(|f| f.id.eq_ignore_ascii_case(id))
        .collect();
    if files.is_empty() {
        // Forgotten before, its file gone since: the tombstone of a file of it (named for
        // the session's whole id, as the harness named the file) says so.
        let tombstoned = vault.forgotten(harness)?.into_iter().find_map(|name| {
            notesoup_history_store::session_of_vault_name(host, &name)
                .filter(|whole| whole.eq_ignore_ascii_case(id))
        });
        if let Some(whole) = tombstoned {
            let mut out = Forgotten::default();
            forget_derived(ctx, host, &whole, &mut out.derived)?;
            out.already = out.derived.is_empty();
            return Ok(out);
        }
        // Not a whole id: the session a prefix names, or the refusal of one it names none of.
        let found = corpus.resolve(&format!("{harness}:{id}"))?;
        return Err(AppError::PartialId {
            given: format!("{harness}:{id}"),
            whole: format!("{harness}:{}", found.id),
        });
    }
    let mut out = Forgotten::default();
    let whole = files[0].id.clone();
    let mut names = Vec::new();
    for file in files {
        if file.only_in_vault() {
            names.extend(file.vault_name().map(str::to_owned));
        } else {
            out.originals.push(file.path.clone());
            names.extend(vault_name(&file.path));
        }
    }
    names.sort();
    names.dedup();
    out.already = !names.is_empty();
    for name in names {
        out.already &= vault.is_forgotten(harness, &name)?;
        if vault.forget(harness, &name)? {
            out.removed.push(name);
        }
    }
    forget_derived(ctx, host, &whole, &mut out.derived)?;
    out.already &= out.removed.is_empty() && out.derived.is_empty();
    Ok(out)
}

/// Forgets every vaulted session file last active before `before` (milliseconds since the
/// Unix epoch), each with its tombstone, and what notesoup derived from its session
/// elsewhere ([`Derived`]); the `harness:name` of each removed. Last active
/// is what `history sessions` shows as a session's updated time: the last time its kept
/// lines record (the version's facts), and only for a copy whose facts are not recorded
/// (kept by an earlier notesoup) when its original was last written, so a file copied or
/// touched since (a restore from a backup) is not taken for a newer one.
pub fn forget_before(ctx: &Context, before: u64) -> Result<Forgotten, AppError> {
    let vault = open(ctx)?;
    let cut = std::time::UNIX_EPOCH + std::time::Duration::from_millis(before);
    let mut out = Forgotten::default();
    for v in vault.sessions()? {
        let recorded = vault
            .facts(&v.harness, &v.id)
            .ok()
            .flatten()
            .and_then(|facts| facts.last_time)
            .map(|ms| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms));
        if recorded.unwrap_or(v.kept) < cut && vault.forget(&v.harness, &v.id)? {
            out.removed.push(format!("{}:{}", v.harness, v.id));
            let session = v
                .harness
                .parse::<notesoup_window::Host>()
                .ok()
                .and_then(|host| {
                    notesoup_history_store::session_of_vault_name(host, &v.id).map(|id| (host, id))
                });
            if let Some((host, id)) = session {
                forget_derived(ctx, host, &id, &mut out.derived)?;
            }
        }
    }
    // The harnesses' files of what was removed, left alone: named, as a forget names them
    // (they will not be kept again while they last).
    if !out.removed.is_empty() {
        let scanned = originals(Roots::default(), ctx).scan(None);
        out.originals = scanned
            .files()
            .iter()
            .filter(|f| {
                vault_name(&f.path).is_some_and(|name| {
                    out.removed
                        .contains(&format!("{}:{name}", f.harness.name()))
                })
            })
            .map(|f| f.path.clone())
            .collect();
    }
    Ok(out)
}

/// Why the vault that is there cannot be read ([`reader`] finds nothing in it then, so the
/// sessions only it holds are left out of every history answer): its folder exists but
/// does not open (made by another user, say, or its mode changed). `None` when it reads,
/// is off, or was never made.
pub fn unreadable(ctx: &Context) -> Option<String> {
    if is_off(ctx) {
        return None;
    }
    let root = root(ctx).ok()?;
    if !std::fs::symlink_metadata(&root).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    // The vault's folder and its harnesses' folders listed, as a reading lists them.
    let listed =
        |dir: &Path| std::fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()));
    let harnesses = match listed(&root) {
        Ok(entries) => entries,
        Err(why) => return Some(why),
    };
    harnesses
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .find_map(|entry| listed(&entry.path()).err())
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

/// The vault as the keeps open it: each version kept with the facts a listing shows of it
/// (`notesoup_history_store::describe`), so `notesoup history sessions` reads them without
/// decompressing the copy once the harness deleted the original.
fn open(ctx: &Context) -> Result<Vault, AppError> {
    Ok(Vault::open(&root(ctx)?)?.describing(notesoup_history_store::describe))
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
    /// newest bytes the vault does not hold (and was not told to forget): Claude deletes
    /// them soon, and they would be lost.
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
    let scanned = originals(Roots::default(), ctx).scan(Some(notesoup_window::Host::Claude));
    let mut standing = Standing {
        sessions: held.len(),
        stored,
        claude_files: scanned.files().len(),
        ..Standing::default()
    };
    let vault = root.is_dir().then(|| Vault::open(&root)).transpose()?;
    for (found, name) in one_per_name(scanned.files()) {
        let old = now
            .duration_since(found.modified())
            .is_ok_and(|age| age >= horizon);
        let len = std::fs::metadata(&found.path).map_or(0, |m| m.len());
        let harness = found.harness.name();
        let kept = held
            .get(&(harness.to_owned(), name.clone()))
            .is_some_and(|raw| *raw >= len);
        // A session forgotten on purpose is not at risk: the vault will never keep it.
        let at_risk = old
            && !kept
            && !vault
                .as_ref()
                .is_some_and(|v| v.is_forgotten(harness, &name).unwrap_or(false));
        standing.at_risk += usize::from(at_risk);
    }
    Ok(standing)
}

/// The most bytes one hook call adds to the vault: the live transcript's growth at a
/// prompt, or the sweep's share at a session's start (about 13 ms on these machines; BENCHMARKS.md, "The history vault: what a hook pays").
pub const HOOK_BUDGET: u64 = 4 * 1024 * 1024;

/// The fewest new bytes a prompt keeps of the live session (its first keep excepted): a
/// copy kept in pieces of a few KiB takes 0.19 of the raw bytes, in pieces of 64 KiB the
/// 0.12 of a whole file (BENCHMARKS.md). The sweep keeps the rest of an ended session.
pub const LIVE_MIN: u64 = 64 * 1024;

/// How often a session's start sweeps the harnesses' older files into the vault.
pub const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// A hook's share of vaulting the live session: `transcript` (a `harness` session file)
/// kept up to [`HOOK_BUDGET`] more bytes, once [`LIVE_MIN`] are new. Nothing when vaulting is off; a line for the log
/// when it fails (a hook never fails for the vault).
pub fn keep_live(
    ctx: &Context,
    harness: notesoup_window::Host,
    transcript: &Path,
) -> Option<String> {
    if is_off(ctx) {
        return None;
    }
    let name = vault_name(transcript)?;
    let kept = open(ctx).and_then(|vault| {
        Ok(vault.keep_up_to(harness.name(), &name, transcript, LIVE_MIN..=HOOK_BUDGET)?)
    });
    match kept {
        Ok(_) | Err(AppError::Vault(VaultError::Forgotten { .. })) => None,
        Err(err) => Some(format!("vault: {name}: {err}")),
    }
}

/// When in a session a hook call does the vault's share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// The session starts: older session files are swept in ([`sweep`]).
    SessionStart,
    /// A prompt is submitted: the live session file's growth is kept ([`keep_live`]).
    Prompt,
}

/// A hook call's share of vaulting (each bounded by [`HOOK_BUDGET`]); a line for the log
/// when it failed, never an error (a hook never fails for the vault).
pub fn share(
    ctx: &Context,
    moment: Moment,
    harness: notesoup_window::Host,
    session_file: Option<&str>,
) -> Option<String> {
    match moment {
        Moment::SessionStart => sweep(ctx, std::time::SystemTime::now())
            .err()
            .map(|err| format!("vault sweep: {err}")),
        Moment::Prompt => keep_live(ctx, harness, Path::new(session_file?)),
    }
}

/// What one [`sweep`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Swept {
    /// Session files brought (further) into the vault.
    pub kept: usize,
    /// Raw bytes added.
    pub added: u64,
    /// Session files still not held whole (the next sweeps go on).
    pub behind: usize,
    /// Copies only the vault holds, kept by an earlier notesoup without the facts a listing
    /// shows, that got them from the copy (`fill_some`).
    pub facts_filled: usize,
}

/// At a session's start, at most once per [`SWEEP_EVERY`]: the harnesses' session files the
/// vault does not hold whole are kept, the longest untouched first (they are the ones a
/// harness's cleanup deletes next), within [`HOOK_BUDGET`] in all; with what that leaves,
/// the copies an earlier notesoup kept without facts whose originals are gone get them
/// (`fill_some`). `None` when it was not its time (or vaulting is off).
pub fn sweep(ctx: &Context, now: std::time::SystemTime) -> Result<Option<Swept>, AppError> {
    if is_off(ctx) {
        return Ok(None);
    }
    let vault = open(ctx)?;
    let recent = vault
        .last_swept()?
        .is_some_and(|at| now.duration_since(at).is_ok_and(|age| age < SWEEP_EVERY));
    if recent {
        return Ok(None);
    }
    // Marked first: two starts at once do not both sweep, and a failing sweep is not
    // retried at every start.
    vault.mark_swept()?;
    let listed = vault.held()?;
    let held: std::collections::HashMap<(String, String), u64> = listed
        .iter()
        .map(|v| ((v.harness.clone(), v.id.clone()), v.raw))
        .collect();
    let scanned = originals(Roots::default(), ctx).scan(None);
    let kept_files = one_per_name(scanned.files());
    let mut todo: Vec<_> = kept_files
        .iter()
        .filter_map(|(f, name)| {
            let len = std::fs::metadata(&f.path).ok()?.len();
            let raw = held
                .get(&(f.harness.name().to_owned(), name.clone()))
                .copied()
                .unwrap_or(0);
            (raw < len).then_some((f.modified(), *f, name))
        })
        .collect();
    todo.sort_by_key(|(modified, ..)| *modified);
    let mut swept = Swept::default();
    let mut budget = HOOK_BUDGET;
    for (_, found, name) in &todo {
        if budget == 0 {
            swept.behind += 1;
            continue;
        }
        match vault.keep_up_to(found.harness.name(), name, &found.path, 0..=budget) {
            Ok(kept) => {
                budget = budget.saturating_sub(kept.added.max(1));
                swept.kept += usize::from(kept.added > 0);
                swept.added += kept.added;
                swept.behind += usize::from(kept.behind > 0);
            }
            Err(VaultError::Forgotten { .. }) => {}
            // One file that cannot be kept does not stop the others.
            Err(_) => swept.behind += 1,
        }
    }
    // The copies with no original left and no facts file: kept by an earlier notesoup.
    let originals: std::collections::HashSet<(&str, &str)> = kept_files
        .iter()
        .map(|(f, name)| (f.harness.name(), name.as_str()))
        .collect();
    let bare: Vec<&notesoup_vault_store::Held> = listed
        .iter()
        .filter(|v| !v.facts && !originals.contains(&(v.harness.as_str(), v.id.as_str())))
        .collect();
    swept.facts_filled = fill_some(ctx, &vault, &bare, &mut budget);
    Ok(Some(swept))
}

/// What filling the facts of a copy of `raw` bytes is charged against a hook's budget: its
/// bytes, at least [`FILL_FLOOR`] and at most the whole [`HOOK_BUDGET`]. A fill decompresses
/// at most two pieces (the first for the start, the last for the tail: 8 MiB raw), which
/// costs less than the keep of 4 MiB the budget stands for (compressing), and reads a
/// bounded head and tail of them.
fn fill_charge(raw: u64) -> u64 {
    raw.clamp(FILL_FLOOR, HOOK_BUDGET)
}

/// The least a fill is charged: each pays opening, locking and writing whatever its size
/// (3,000 copies of 2 KiB filled in one sweep took 0.86 s where the budget stands for tens
/// of milliseconds), so one sweep fills at most 16 copies.
pub const FILL_FLOOR: u64 = HOOK_BUDGET / 16;

/// The facts of `bare` copies (only the vault holds them, and none were recorded) filled
/// from each copy within what is left of `budget` (each charged [`fill_charge`], and only
/// when that is left): the sweep's share of what `notesoup history vault` does all at
/// once, so a listing stops decompressing the copies an earlier notesoup kept. How many
/// were filled. A damaged copy gets none (a listing says it is damaged); nothing here
/// fails the hook.
fn fill_some(
    ctx: &Context,
    vault: &Vault,
    bare: &[&notesoup_vault_store::Held],
    budget: &mut u64,
) -> usize {
    if !bare.iter().any(|v| fill_charge(v.raw) <= *budget) {
        return 0;
    }
    let wanted: std::collections::HashMap<(&str, &str), u64> = bare
        .iter()
        .map(|v| ((v.harness.as_str(), v.id.as_str()), v.raw))
        .collect();
    // Only now, with copies to fill: the walk that names what only the vault holds.
    let scanned = originals(Roots::default(), ctx)
        .with_vault(vault.clone())
        .scan(None);
    let mut filled = 0;
    for found in scanned.files().iter().filter(|f| f.only_in_vault()) {
        if *budget == 0 {
            break;
        }
        let (harness, Some(name)) = (found.harness.name(), found.vault_name()) else {
            continue;
        };
        let Some(raw) = wanted.get(&(harness, name)) else {
            continue;
        };
        let charge = fill_charge(*raw);
        if charge > *budget {
            continue;
        }
        *budget -= charge;
        let done = vault.fill_facts(harness, name, |copy| {
            notesoup_history_store::describe_copy(found, copy)
        });
        filled += usize::from(done.unwrap_or(false));
    }
    filled
}
