//! `notesoup notes brains`: every brain on this machine, so notes left behind by a moved,
//! renamed or re-cloned project (or a folder outside git) can be found and opened.

use notesoup_notes::Brain;
use notesoup_window::format_rfc3339;

use crate::docs::{BrainRow, BrainsDoc};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// Lists every brain under the notes home; `current` marks the brain of this folder.
pub(super) fn brains(current: &Brain, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let root = super::root(env).map_err(|e| CliError::notes(e, None))?;
    let found =
        notesoup_notes::brains(&root).map_err(|e| CliError::notes(e, Some(root.clone())))?;
    let exists =
        |b: &notesoup_notes::BrainInfo| b.domain.as_deref().is_some_and(std::path::Path::is_dir);
    if out.json {
        out.json_doc(&BrainsDoc {
            ok: true,
            brains: found
                .iter()
                .map(|b| BrainRow {
                    project: &b.domain,
                    project_exists: exists(b),
                    current: b.dir == current.dir(),
                    brain: &b.dir,
                    notes: b.notes,
                    bytes: b.bytes,
                    updated: b.updated.map(|s| format_rfc3339(s.saturating_mul(1000))),
                })
                .collect(),
        });
        return Ok(EXIT_OK);
    }
    out.line(out.paint(
        Paint::Strong,
        &format!(
            "{} under {}",
            super::count(found.len(), "brain"),
            root.display()
        ),
    ));
    if found.is_empty() {
        out.line("No brains yet. Your agent starts one at its first note; so does `notesoup notes write NAME`.");
        return Ok(EXIT_OK);
    }
    out.line(out.paint(
        Paint::Dim,
        &format!(
            "  {:>5}  {:>7}  {:<stamp$}  PROJECT",
            "NOTES",
            "BYTES",
            "UPDATED",
            stamp = env.zone().stamp_width()
        ),
    ));
    for b in &found {
        let mark = if b.dir == current.dir() { "*" } else { " " };
        let project = match &b.domain {
            Some(d) if exists(b) => crate::clean::one_line(&d.display().to_string()),
            Some(d) => format!(
                "{} (folder gone: {})",
                crate::clean::one_line(&d.display().to_string()),
                b.dir.display()
            ),
            None => format!("unknown folder ({})", b.dir.display()),
        };
        out.line(format!(
            "{mark} {:>5}  {:>7}  {:<stamp$}  {project}",
            b.notes,
            b.bytes,
            b.updated.map_or_else(
                || "-".to_owned(),
                |s| env.zone().stamp(s.saturating_mul(1000))
            ),
            stamp = env.zone().stamp_width()
        ));
    }
    if found.iter().any(|b| b.dir == current.dir()) {
        out.hint("* this folder's brain. `notesoup notes --project DIR` opens the brain of DIR.");
    } else {
        out.hint(
            "This folder has no brain yet. `notesoup notes --project DIR` opens the brain of DIR.",
        );
    }
    Ok(EXIT_OK)
}
