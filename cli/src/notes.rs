//! `notesoup notes`: the brain of a project, through `notesoup-notes` (the same domain
//! rule, names, limits and version checks the plugin's tools use).

use std::path::{Path, PathBuf};

use notesoup_notes::{
    Brain, MAX_BRAIN_BYTES, MAX_NOTE_BYTES, NotesError, TRASH_DAYS, TRASH_KEEP, near_names,
    store_root,
};
use notesoup_window::format_rfc3339;

use crate::args::{NotesArgs, NotesCommand};
use crate::clean;
use crate::docs::{Keeps, Limits, ListDoc, NoteDoc, RestoreDoc, ShowDoc, TrashDoc, TrashRow};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env, Zone};

mod brains;
mod edit;
mod grep;
mod rm;
mod write;

/// The store root the environment names (`NOTESOUP_HOME`, `XDG_DATA_HOME`, `HOME`).
pub(crate) fn root(env: &Env) -> Result<PathBuf, NotesError> {
    store_root(
        env.var("NOTESOUP_HOME"),
        env.var("XDG_DATA_HOME"),
        env.var("HOME"),
    )
}

/// The brain of `--project` (default: the current folder); for a `--project` folder that
/// no longer exists, the brain it left behind, when there is one (`notes brains` lists it
/// as "folder gone").
fn open(env: &Env, project: Option<&Path>) -> Result<Brain, CliError> {
    let root = root(env).map_err(|e| CliError::notes(e, None))?;
    let folder = env.folder(project);
    match Brain::open(&root, &folder) {
        Ok(brain) => Ok(brain),
        Err(err) if project.is_some() && !folder.exists() => {
            match notesoup_notes::left_behind(&root, &folder) {
                Ok(Some(brain)) => Ok(brain),
                _ => Err(CliError::notes(err, None)),
            }
        }
        Err(err) => Err(CliError::notes(err, None)),
    }
}

pub(crate) fn run(args: &NotesArgs, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let brain = open(env, args.project.as_deref())?;
    let at = |e: NotesError| refusal(&brain, e);
    let done = match &args.command {
        None => list(&brain, "", env, out).map_err(at),
        Some(NotesCommand::List { folder }) => {
            list(&brain, folder.as_deref().unwrap_or_default(), env, out).map_err(at)
        }
        Some(NotesCommand::Show { name }) => {
            show(&brain, name, env.stdout_terminal(), out).map_err(at)
        }
        Some(NotesCommand::Edit { name }) => edit::edit(&brain, name, env, out),
        Some(NotesCommand::Write { name, file }) => {
            write::write(&brain, name, file.as_deref(), env, out)
        }
        Some(NotesCommand::Append { name, file }) => {
            write::append(&brain, name, file.as_deref(), env, out)
        }
        Some(NotesCommand::Rm { names }) => return Ok(rm::rm(&brain, names, out)),
        Some(NotesCommand::Grep { text, ignore_case }) => {
            return grep::grep(&brain, text, *ignore_case, out);
        }
        Some(NotesCommand::Trash) => trash(&brain, env, out).map_err(at),
        Some(NotesCommand::Restore { name, force }) => {
            restore(&brain, name, *force, env.zone(), out).map_err(at)
        }
        Some(NotesCommand::Brains) => return brains::brains(&brain, env, out),
    };
    done?;
    let listed_or_written = matches!(
        args.command,
        None | Some(
            NotesCommand::List { .. }
                | NotesCommand::Write { .. }
                | NotesCommand::Append { .. }
                | NotesCommand::Edit { .. }
        )
    );
    if listed_or_written && !brain.domain().exists() {
        out.hint(format!(
            "{} is gone: this is the brain it left behind (`notesoup notes brains` lists every brain).",
            brain.domain().display()
        ));
    } else if listed_or_written && !brain.keyed_on_git() && env.stderr_terminal() {
        // Advice for a person at a terminal; a script or cron job, which gets the same
        // brain every run, would only hear it every run.
        out.hint(format!(
            "{} is not in a git repository, so this brain belongs to that folder's path: moved or renamed, it starts a new brain (`notesoup notes brains` finds this one).",
            brain.domain().display()
        ));
    }
    Ok(EXIT_OK)
}

/// A store refusal in the CLI's words; a missing note names the closest existing ones, or
/// says it is a folder of notes.
pub(crate) fn refusal(brain: &Brain, err: NotesError) -> CliError {
    if let NotesError::NotFound { name } = &err {
        let names: Vec<String> = brain
            .list("")
            .map(|notes| notes.into_iter().map(|n| n.name).collect())
            .unwrap_or_default();
        let near = near_names(name, names.iter().map(String::as_str));
        let under = format!("{name}/");
        return CliError::NoSuchNote {
            name: name.clone(),
            brain: brain.dir().to_path_buf(),
            near: near.into_iter().map(str::to_owned).collect(),
            folder: names.iter().any(|n| n.starts_with(&under)),
        };
    }
    if let NotesError::BadName { name, .. } = &err
        && let Some(meant) = meant(brain, name)
    {
        return CliError::Notes {
            source: err,
            brain: Some(brain.dir().to_path_buf()),
            meant: Some(meant),
        };
    }
    CliError::notes(err, Some(brain.dir().to_path_buf()))
}

/// The note a name no note can have most likely means: the name in lowercase and without
/// `.md` (as the brain's files are named), when the brain holds a note of that name.
fn meant(brain: &Brain, name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    let wanted = lower.strip_suffix(".md").unwrap_or(&lower);
    let notes = brain.list("").ok()?;
    notes.into_iter().map(|n| n.name).find(|n| n == wanted)
}

/// The brain's notes, or those under `folder`: the header and `bytes` always give the whole
/// brain's count and size (what its limit is about), the folder's count beside them. On a
/// terminal each row's first line is cut to its width.
fn list(brain: &Brain, folder: &str, env: &Env, out: &mut Out) -> Result<(), NotesError> {
    let folder = folder.trim_end_matches('/');
    let notes = brain.list(folder)?;
    let all = if folder.is_empty() {
        None
    } else {
        Some(brain.list("")?)
    };
    let whole = all.as_ref().unwrap_or(&notes);
    let total: u64 = whole.iter().map(|n| n.bytes).sum();
    if out.json {
        out.json_doc(&ListDoc {
            ok: true,
            project: brain.domain(),
            brain: brain.dir(),
            bytes: total,
            folder: (!folder.is_empty()).then(|| format!("{folder}/")),
            limits: Limits {
                note_bytes: MAX_NOTE_BYTES,
                brain_bytes: MAX_BRAIN_BYTES,
            },
            notes: notes.iter().map(NoteDoc::from).collect(),
        });
        return Ok(());
    }
    let mut header = format!(
        "Brain of {}: {}, {} of {} bytes",
        brain.domain().display(),
        count(whole.len(), "note"),
        notesoup_window::thousands(total),
        notesoup_window::thousands(MAX_BRAIN_BYTES),
    );
    let empty = if folder.is_empty() {
        "No notes. `notesoup notes edit NAME` writes one; so does your agent.".to_owned()
    } else {
        header = format!("{header}; {} under `{folder}/`", count(notes.len(), "note"));
        // A note's name given as a folder (`notes list plan`): say where it is.
        if whole.iter().any(|n| n.name == folder) {
            format!(
                "No notes under `{folder}/`: `{folder}` is a note (`notesoup notes show {folder}` shows it)."
            )
        } else {
            format!("No notes under `{folder}/`. `notesoup notes list` shows them all.")
        }
    };
    table(
        out,
        env,
        &header,
        &empty,
        "UPDATED",
        notes
            .iter()
            .map(|n| (n.name.as_str(), n.bytes, n.updated, n.first_line.as_str())),
    );
    Ok(())
}

/// `n` and `noun`, plural unless `n` is 1 (`1 note`, `3 notes`).
pub(crate) fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A listing of notes for people: `header`, then `empty` when there are no `rows`, else one
/// line per (name, bytes, time in Unix seconds, first line) under the columns NAME, BYTES,
/// `when` (in the person's zone) and FIRST LINE, each row cut to the terminal's width.
/// Whether any row was shown.
fn table<'r>(
    out: &mut Out,
    env: &Env,
    header: &str,
    empty: &str,
    when: &str,
    rows: impl Iterator<Item = (&'r str, u64, u64, &'r str)>,
) -> bool {
    out.line(out.paint(Paint::Strong, header));
    let rows: Vec<_> = rows.collect();
    if rows.is_empty() {
        out.line(empty);
        return false;
    }
    let (width, zone) = (env.width(), env.zone());
    let stamp = zone.stamp_width();
    let names = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    let fit = |row: &str| clean::cut(row, width.unwrap_or(usize::MAX)).into_owned();
    out.line(out.paint(
        Paint::Dim,
        &fit(&format!(
            "{:<names$}  {:>6}  {:<stamp$}  FIRST LINE",
            "NAME", "BYTES", when
        )),
    ));
    // After the name (never cut: it is what `show` takes), the rest of the row is cut to
    // what is left, the first line giving way.
    let room = width.map(|w| w.saturating_sub(names));
    for (name, bytes, secs, first_line) in rows {
        let name = out.paint(Paint::Strong, &format!("{name:<names$}"));
        let rest = format!(
            "  {bytes:>6}  {:<stamp$}  {}",
            zone.stamp(secs.saturating_mul(1000)),
            clean::one_line(first_line)
        );
        out.line(format!(
            "{name}{}",
            clean::cut(&rest, room.unwrap_or(usize::MAX))
        ));
    }
    true
}

/// The note's text: on a terminal with its control characters shown as `^[` and the like
/// (a note an agent wrote never drives the terminal), into a pipe or a file exactly as it is
/// (`show plan > plan.md` then `write plan --file plan.md` changes nothing), as `cat` and
/// `rg` write it.
fn show(brain: &Brain, name: &str, terminal: bool, out: &mut Out) -> Result<(), NotesError> {
    let note = brain.read(name)?;
    if out.json {
        out.json_doc(&ShowDoc {
            ok: true,
            name: &note.name,
            version: note.version.as_str(),
            updated: format_rfc3339(note.updated.saturating_mul(1000)),
            text: &note.text,
        });
    } else if terminal {
        out.text(&crate::clean::escaped(&note.text));
    } else {
        out.raw(&note.text);
    }
    Ok(())
}

fn trash(brain: &Brain, env: &Env, out: &mut Out) -> Result<(), NotesError> {
    let trash = brain.trash()?;
    if out.json {
        out.json_doc(&TrashDoc {
            ok: true,
            project: brain.domain(),
            trash: trash
                .iter()
                .map(|t| TrashRow {
                    name: &t.name,
                    deleted: format_rfc3339(t.deleted_ms),
                    bytes: t.bytes,
                    first_line: &t.first_line,
                    file: &t.file,
                })
                .collect(),
            keeps: Keeps {
                entries: TRASH_KEEP,
                days: TRASH_DAYS,
            },
        });
        return Ok(());
    }
    let header = format!(
        "Trash of {}: {} (it keeps the newest {TRASH_KEEP}, none older than {TRASH_DAYS} days)",
        brain.domain().display(),
        count(trash.len(), "deleted note"),
    );
    let shown = table(
        out,
        env,
        &header,
        "The trash is empty. `notesoup notes rm NAME` moves a note there.",
        "DELETED",
        trash.iter().map(|t| {
            let secs = t.deleted_ms / 1000;
            (t.name.as_str(), t.bytes, secs, t.first_line.as_str())
        }),
    );
    if !shown {
        return Ok(());
    }
    out.hint("`notesoup notes restore NAME` brings back the newest deleted copy of NAME.");
    Ok(())
}

fn restore(
    brain: &Brain,
    name: &str,
    force: bool,
    zone: &Zone,
    out: &mut Out,
) -> Result<(), NotesError> {
    let restored = brain.restore(name, force)?;
    if out.json {
        out.json_doc(&RestoreDoc {
            ok: true,
            name: &restored.name,
            version: restored.version.as_str(),
            bytes: restored.bytes,
            deleted: format_rfc3339(restored.deleted_ms),
            replaced: &restored.replaced,
        });
        return Ok(());
    }
    out.line(format!(
        "Restored note `{name}`: {} bytes, version {}, deleted {}.",
        restored.bytes,
        restored.version,
        zone.stamp(restored.deleted_ms)
    ));
    if let Some(replaced) = &restored.replaced {
        out.hint(format!(
            "The note it replaced is in the trash ({}); `notesoup notes restore {name} --force` swaps them back.",
            replaced.display()
        ));
    }
    Ok(())
}
