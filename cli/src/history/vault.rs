//! `notesoup history vault` and `notesoup history forget`: the vault, in people's words.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use notesoup_app::Context;
use notesoup_app::vault::{self, SWITCH};

use crate::docs::{CutFile, ForgetDoc, NotKept, VaultDoc};
use crate::size::bytes;
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_FAILED, EXIT_OK, Env, Zone};

/// `history vault`: every session file kept; what was kept and the space used.
pub(super) fn keep(ctx: &Context, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    if vault::is_off(ctx) {
        return Err(CliError::Refused {
            code: "vault_off",
            message: format!(
                "the vault is off ({SWITCH}={})",
                ctx.var(SWITCH).unwrap_or_default()
            ),
            fix: format!("unset {SWITCH} to keep copies of your sessions"),
        });
    }
    let started = Instant::now();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("keeping {pos}/{len} session files {wide_bar} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut shown = false;
    let report = vault::keep_all(ctx, &mut |done, of| {
        bar.set_length(u64::try_from(of).unwrap_or(u64::MAX));
        bar.set_position(u64::try_from(done).unwrap_or(u64::MAX));
        if !shown && env.stderr_terminal() && started.elapsed() >= Duration::from_secs(1) {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            shown = true;
        }
    })?;
    bar.finish_and_clear();
    let root = vault::root(ctx)?;
    if out.json {
        out.json_doc(&VaultDoc {
            ok: report.failed.is_empty() && report.damaged.is_empty(),
            vault: &root,
            files: report.files,
            grown: report.grown,
            new_versions: report.new_versions,
            renewed: report.renewed,
            facts_filled: report.facts_filled,
            added_bytes: report.added,
            sessions: report.sessions,
            raw_bytes: report.raw,
            stored_bytes: report.stored,
            failed: report
                .failed
                .iter()
                .map(|(file, error)| NotKept { file, error })
                .collect(),
            damaged: &report.damaged,
            cut: report
                .cut
                .iter()
                .map(|(file, session)| CutFile { file, session })
                .collect(),
        });
    } else {
        say(&report, &root, out);
    }
    Ok(if report.failed.is_empty() && report.damaged.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// `history vault`'s text for people: what `report` kept, filled and found damaged.
fn say(report: &vault::KeepReport, root: &std::path::Path, out: &mut Out) {
    out.line(format!(
        "Looked at {} session files for {}: {} brought up to date ({} new or rewritten), {} added.",
        report.files,
        root.display(),
        report.grown,
        report.new_versions,
        bytes(report.added)
    ));
    if report.renewed > 0 {
        out.line(out.paint(
            Paint::Warn,
            &match report.renewed {
                1 => "1 damaged copy was kept again from its original.".to_owned(),
                n => format!("{n} damaged copies were kept again from their originals."),
            },
        ));
    }
    if report.facts_filled > 0 {
        out.line(match report.facts_filled {
            1 => "1 older copy whose session file is gone was indexed for fast listing.".to_owned(),
            n => format!(
                "{} older copies whose session files are gone were indexed for fast listing.",
                super::count(n)
            ),
        });
    }
    out.line(format!(
        "The vault holds {} session files: {} of transcripts in {} on disk.",
        report.sessions,
        bytes(report.raw),
        bytes(report.stored)
    ));
    for session in &report.damaged {
        out.line(out.paint(
            Paint::Warn,
            &format!(
                "damaged: the vault's copy of {session} cannot be read, and the harness no longer has the session"
            ),
        ));
        out.hint(format!(
            "`notesoup history forget {session}` removes the damaged copy (nothing can restore it)"
        ));
    }
    for (path, session) in &report.cut {
        out.line(format!(
            "cut: {} is shorter than the vault's copy of {session}, which keeps what was cut (read once the file is gone)",
            crate::clean::one_line(&path.display().to_string())
        ));
        out.hint(format!(
            "if it was cut to remove something, `notesoup history forget {session}` removes the copy for good"
        ));
    }
    for (path, why) in &report.failed {
        out.line(out.paint(
            Paint::Warn,
            &format!(
                "not kept: {}: {why}",
                crate::clean::one_line(&path.display().to_string())
            ),
        ));
    }
}

/// `history forget <harness>:<id>` or `history forget --before WHEN` (clap allows exactly
/// one of the two).
pub(super) fn forget_command(
    ctx: &Context,
    session: Option<&str>,
    before: Option<&str>,
    zone: &Zone,
    out: &mut Out,
) -> Result<u8, CliError> {
    match (session, before) {
        (Some(session), _) => forget(ctx, session, out),
        (None, Some(before)) => forget_before(
            ctx,
            super::filter::moment("--before", before, false, zone)?,
            zone,
            out,
        ),
        (None, None) => Err(CliError::BadArgument {
            what: "name a session or give --before".into(),
            fix: "`notesoup history forget claude:<id>` or `notesoup history forget --before 2026-01-01`".into(),
        }),
    }
}

/// `history forget <harness>:<id>`.
fn forget(ctx: &Context, session: &str, out: &mut Out) -> Result<u8, CliError> {
    let Some((harness, id)) = session
        .split_once(':')
        .filter(|(h, id)| ["claude", "pi", "codex"].contains(h) && !id.is_empty())
    else {
        return Err(CliError::BadArgument {
            what: format!("{session:?} is not <harness>:<id>"),
            fix: "name the whole session, e.g. `notesoup history forget claude:da56055c-293e-4422-b5b8-62b1c7e6c03d` (`notesoup history sessions` lists them)".into(),
        });
    };
    let forgotten = vault::forget(ctx, harness, id).map_err(|err| match err {
        notesoup_app::AppError::PartialId { given, whole } => CliError::Refused {
            code: "partial_id",
            message: format!(
                "`{given}` is only the start of the session {whole}; nothing was forgotten"
            ),
            fix: format!(
                "to forget it for good, give its whole id: `notesoup history forget {whole}`"
            ),
        },
        err => err.into(),
    })?;
    if out.json {
        out.json_doc(&ForgetDoc {
            ok: true,
            session: Some(session),
            removed: &forgotten.removed,
            originals_left: &forgotten.originals,
            indexes_removed: &forgotten.derived.indexes,
            window_files_removed: &forgotten.derived.window,
            already_forgotten: forgotten.already,
        });
    } else {
        match forgotten.removed.len() {
            0 if forgotten.already => out.line(format!(
                "{session} was forgotten already: the vault holds none of it, and it is not kept."
            )),
            0 => out.line(format!(
                "{session} was not in the vault; it will not be kept from now on."
            )),
            n => out.line(format!(
                "Forgot {session}: {n} vaulted file{} removed for good; it will not be kept again.",
                if n == 1 { "" } else { "s" }
            )),
        }
        say_derived(&forgotten.derived, "it", out);
        for original in &forgotten.originals {
            out.hint(format!(
                "The harness still has it at {} (left alone: delete it there to remove it).",
                original.display()
            ));
        }
    }
    Ok(EXIT_OK)
}

/// `history forget --before WHEN`.
fn forget_before(ctx: &Context, before: u64, zone: &Zone, out: &mut Out) -> Result<u8, CliError> {
    let forgotten = vault::forget_before(ctx, before)?;
    let removed = &forgotten.removed;
    if out.json {
        out.json_doc(&ForgetDoc {
            ok: true,
            session: None,
            removed,
            originals_left: &forgotten.originals,
            indexes_removed: &forgotten.derived.indexes,
            window_files_removed: &forgotten.derived.window,
            already_forgotten: false,
        });
    } else {
        let n = removed.len();
        out.line(format!(
            "Forgot {n} vaulted session file{} last active before {}; {} not be kept again.",
            if n == 1 { "" } else { "s" },
            zone.stamp(before),
            if n == 1 { "it will" } else { "they will" }
        ));
        say_derived(&forgotten.derived, "them", out);
        for original in &forgotten.originals {
            out.hint(format!(
                "The harness still has {} (left alone: delete it there to remove it).",
                original.display()
            ));
        }
    }
    Ok(EXIT_OK)
}

/// What a forget removed beside the vault's copies: the history indexes notesoup made of
/// the transcripts and the window records (the harness's files are never among them).
fn say_derived(derived: &vault::Derived, of: &str, out: &mut Out) {
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if !derived.indexes.is_empty() {
        parts.push(format!("history index ({})", files(derived.indexes.len())));
    }
    if !derived.window.is_empty() {
        parts.push(format!(
            "window record and lock ({})",
            files(derived.window.len())
        ));
    }
    if !parts.is_empty() {
        out.line(format!(
            "Also removed what notesoup made of {of} under its home: its {}.",
            parts.join(" and its ")
        ));
    }
}
