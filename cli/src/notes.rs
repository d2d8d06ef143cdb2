//! `notesoup notes`: the brain of a project, through `notesoup-notes` (the same domain
//! rule, names, limits and version checks the plugin's tools use).

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{SystemTime, UNIX_EPOCH};

use notesoup_app::notes::NoteRow;
use notesoup_notes::{
    Brain, MAX_BRAIN_BYTES, MAX_NOTE_BYTES, NotesError, TRASH_DAYS, TRASH_KEEP, Version, store_root,
};
use notesoup_window::format_utc;

use crate::args::{NotesArgs, NotesCommand};
use crate::docs::{
    EditDoc, Keeps, Limits, ListDoc, RestoreDoc, RmDoc, ShowDoc, TrashDoc, TrashRow,
};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// The store root the environment names (`NOTESOUP_HOME`, `XDG_DATA_HOME`, `HOME`).
pub(crate) fn root(env: &Env) -> Result<PathBuf, NotesError> {
    store_root(
        env.var("NOTESOUP_HOME"),
        env.var("XDG_DATA_HOME"),
        env.var("HOME"),
    )
}

fn open(env: &Env, project: Option<&Path>) -> Result<Brain, CliError> {
    let root = root(env).map_err(|e| CliError::notes(e, None))?;
    Brain::open(&root, &env.folder(project)).map_err(|e| CliError::notes(e, None))
}

pub(crate) fn run(args: &NotesArgs, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let brain = open(env, args.project.as_deref())?;
    let at = |e: NotesError| CliError::notes(e, Some(brain.dir().to_path_buf()));
    match &args.command {
        None => list(&brain, "", out).map_err(at),
        Some(NotesCommand::List { folder }) => {
            list(&brain, folder.as_deref().unwrap_or_default(), out).map_err(at)
        }
        Some(NotesCommand::Show { name }) => show(&brain, name, out).map_err(at),
        Some(NotesCommand::Edit { name }) => edit(&brain, name, env, out),
        Some(NotesCommand::Rm { name }) => rm(&brain, name, out).map_err(at),
        Some(NotesCommand::Trash) => trash(&brain, out).map_err(at),
        Some(NotesCommand::Restore { name, force }) => {
            restore(&brain, name, *force, out).map_err(at)
        }
    }?;
    Ok(EXIT_OK)
}

fn list(brain: &Brain, folder: &str, out: &mut Out) -> Result<(), NotesError> {
    let notes = brain.list(folder.trim_end_matches('/'))?;
    let total: u64 = notes.iter().map(|n| n.bytes).sum();
    if out.json {
        out.json_doc(&ListDoc {
            ok: true,
            project: brain.domain(),
            brain: brain.dir(),
            bytes: total,
            limits: Limits {
                note_bytes: MAX_NOTE_BYTES,
                brain_bytes: MAX_BRAIN_BYTES,
            },
            notes: notes.iter().map(NoteRow::from).collect(),
        });
        return Ok(());
    }
    let header = format!(
        "Brain of {}: {}, {total} of {MAX_BRAIN_BYTES} bytes",
        brain.domain().display(),
        count(notes.len(), "note"),
    );
    table(
        out,
        &header,
        "No notes. `notesoup notes edit NAME` writes one; so does your agent.",
        "UPDATED",
        notes
            .iter()
            .map(|n| (n.name.as_str(), n.bytes, n.updated, n.first_line.as_str())),
    );
    Ok(())
}

/// `n` and `noun`, plural unless `n` is 1 (`1 note`, `3 notes`).
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A listing of notes for people: `header`, then `empty` when there are no `rows`, else one
/// line per (name, bytes, time in Unix seconds, first line) under the columns NAME, BYTES,
/// `when` and FIRST LINE. Whether any row was shown.
fn table<'r>(
    out: &mut Out,
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
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    out.line(out.paint(
        Paint::Dim,
        &format!(
            "{:<width$}  {:>6}  {:<20}  FIRST LINE",
            "NAME", "BYTES", when
        ),
    ));
    for (name, bytes, secs, first_line) in rows {
        let name = out.paint(Paint::Strong, &format!("{name:<width$}"));
        out.line(format!(
            "{name}  {bytes:>6}  {:<20}  {first_line}",
            format_utc(secs)
        ));
    }
    true
}

fn show(brain: &Brain, name: &str, out: &mut Out) -> Result<(), NotesError> {
    let note = brain.read(name)?;
    if out.json {
        out.json_doc(&ShowDoc {
            ok: true,
            name: &note.name,
            version: note.version.as_str(),
            updated: note.updated,
            text: &note.text,
        });
    } else {
        out.text(&note.text);
    }
    Ok(())
}

fn rm(brain: &Brain, name: &str, out: &mut Out) -> Result<(), NotesError> {
    let deleted = brain.delete(name, None)?;
    if out.json {
        out.json_doc(&RmDoc {
            ok: true,
            name: &deleted.name,
            version: deleted.version.as_str(),
            trash: &deleted.trash,
        });
    } else {
        out.line(format!("Moved note `{name}` to the trash."));
        out.hint(format!("`notesoup notes restore {name}` brings it back."));
    }
    Ok(())
}

fn trash(brain: &Brain, out: &mut Out) -> Result<(), NotesError> {
    let trash = brain.trash()?;
    if out.json {
        out.json_doc(&TrashDoc {
            ok: true,
            project: brain.domain(),
            trash: trash
                .iter()
                .map(|t| TrashRow {
                    name: &t.name,
                    deleted_ms: t.deleted_ms,
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

fn restore(brain: &Brain, name: &str, force: bool, out: &mut Out) -> Result<(), NotesError> {
    let restored = brain.restore(name, force)?;
    if out.json {
        out.json_doc(&RestoreDoc {
            ok: true,
            name: &restored.name,
            version: restored.version.as_str(),
            bytes: restored.bytes,
            deleted_ms: restored.deleted_ms,
            replaced: restored.replaced.as_deref(),
        });
        return Ok(());
    }
    out.line(format!(
        "Restored note `{name}`: {} bytes, version {}, deleted {}.",
        restored.bytes,
        restored.version,
        format_utc(restored.deleted_ms / 1000)
    ));
    if let Some(replaced) = &restored.replaced {
        out.hint(format!(
            "The note it replaced is in the trash ({}); `notesoup notes restore {name} --force` swaps them back.",
            replaced.display()
        ));
    }
    Ok(())
}

/// `notes edit`: the note's text into a private file, `$VISUAL`/`$EDITOR` on it, then a
/// write carrying the version read first, so a concurrent write (the agent's) is never
/// overwritten: on a conflict nothing is written and the edited text stays in its file.
fn edit(brain: &Brain, name: &str, env: &Env, out: &mut Out) -> Result<(), CliError> {
    let at = |e: NotesError| CliError::notes(e, Some(brain.dir().to_path_buf()));
    notesoup_notes::check_name(name).map_err(at)?;
    let editor = env
        .var_set("VISUAL")
        .or_else(|| env.var_set("EDITOR"))
        .ok_or(CliError::NoEditor)?
        .to_owned();
    let (before, version) = match brain.read(name) {
        Ok(note) => (note.text, Some(note.version)),
        Err(NotesError::NotFound { .. }) => (String::new(), None),
        Err(err) => return Err(at(err)),
    };
    let file = edit_file(env, name, &before)?;
    let status = Process::new("/bin/sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("notesoup-editor")
        .arg(&file)
        .status();
    let editor_failed = |reason: String| CliError::Editor {
        command: editor.clone(),
        reason,
        file: file.clone(),
    };
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(editor_failed(format!("exited with {s}"))),
        Err(err) => return Err(editor_failed(format!("could not be started: {err}"))),
    }
    let after = read_back(&file)?;
    let done = |out: &mut Out, text: &str, version: Option<&Version>| {
        let _ = fs::remove_file(&file);
        if out.json {
            out.json_doc(&EditDoc {
                ok: true,
                name,
                version: version.map(Version::as_str),
                changed: text != before,
            });
        } else if text == before {
            out.line(format!("Note `{name}` unchanged."));
        } else {
            out.line(format!(
                "Saved note `{name}`: {} bytes, version {}.",
                text.len(),
                version.map_or("-", Version::as_str)
            ));
        }
    };
    if after == before {
        done(out, &after, version.as_ref());
        return Ok(());
    }
    if after.trim().is_empty() {
        return Err(CliError::EmptyNote {
            name: name.to_owned(),
        });
    }
    let conflict = |now: Option<String>| CliError::EditConflict {
        name: name.to_owned(),
        now: match (now, &version) {
            (None, _) => "was deleted".into(),
            (Some(v), None) => format!("was created (version {v})"),
            (Some(v), Some(_)) => format!("changed (now version {v})"),
        },
        kept: file.clone(),
    };
    // A new note is created only if it is still absent when written (checked under the
    // store's lock): an agent that created it meanwhile is a conflict, not an overwrite.
    let written = match &version {
        Some(v) => brain.write(name, &after, Some(v)),
        None => brain.create(name, &after),
    };
    match written {
        Ok(w) => {
            done(out, &after, Some(&w.version));
            Ok(())
        }
        Err(NotesError::VersionConflict { current, .. }) => Err(conflict(current)),
        Err(NotesError::Exists { version, .. }) => Err(conflict(Some(version))),
        Err(err) => Err(CliError::notes(err, Some(file.clone()))),
    }
}

/// The edited file's text, read only if it is still a regular file (never through a link,
/// without blocking: an editor that left a FIFO or a device in its place is refused at once,
/// and the note is not touched), at most a megabyte.
fn read_back(file: &std::path::Path) -> Result<String, CliError> {
    let refused = |source: std::io::Error| CliError::Io {
        what: "read back the edited note (the note was not changed)".into(),
        path: file.to_path_buf(),
        source,
    };
    let folder = file.parent().unwrap_or_else(|| std::path::Path::new("."));
    let name = file.file_name().unwrap_or_default();
    let bytes = notesoup_safe_fs::Dir::open(folder)
        .and_then(|dir| dir.read(name, 1024 * 1024))
        .map_err(|err| refused(std::io::Error::new(err.io_kind(), err.to_string())))?
        .ok_or_else(|| refused(std::io::ErrorKind::NotFound.into()))?;
    String::from_utf8(bytes)
        .map_err(|err| refused(std::io::Error::new(std::io::ErrorKind::InvalidData, err)))
}

/// A new private file holding `text`, named after the note (so the editor shows which).
fn edit_file(env: &Env, name: &str, text: &str) -> Result<PathBuf, CliError> {
    let dir = env
        .var_set("TMPDIR")
        .map_or_else(std::env::temp_dir, PathBuf::from);
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let path = dir.join(format!(
        "notesoup-{}-{}-{stamp}.md",
        name.replace('/', "~"),
        std::process::id()
    ));
    let io = |source| CliError::Io {
        what: "create the file to edit".into(),
        path: path.clone(),
        source,
    };
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path).map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    Ok(path)
}
