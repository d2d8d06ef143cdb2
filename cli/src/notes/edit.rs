//! `notesoup notes edit`: the note in `$VISUAL`/`$EDITOR` (else `vi`, else `nano`), written
//! back only if nobody changed it meanwhile.

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{SystemTime, UNIX_EPOCH};

use notesoup_notes::{Brain, NotesError, Version};

use crate::docs::EditDoc;
use crate::term::Out;
use crate::{CliError, Env, NoteNow};

/// `notes edit`: the note's text into a private file, `$VISUAL`/`$EDITOR` on it, then a
/// write carrying the version read first, so a concurrent write (the agent's) is never
/// overwritten: on a conflict nothing is written and the edited text stays in its file.
pub(super) fn edit(brain: &Brain, name: &str, env: &Env, out: &mut Out) -> Result<(), CliError> {
    let at = |e: NotesError| super::refusal(brain, e);
    notesoup_notes::check_name(name).map_err(at)?;
    let editor = editor(env)?;
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
    // The file is kept only when it holds text of the person's that was not saved.
    let editor_failed = |reason: String| CliError::Editor {
        command: editor.clone(),
        reason,
        file: match read_back(&file) {
            Ok(text) if text == before => {
                let _ = fs::remove_file(&file);
                None
            }
            _ => Some(file.clone()),
        },
        name: name.to_owned(),
    };
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(editor_failed(format!("exited with {s}"))),
        Err(err) => return Err(editor_failed(format!("could not be started: {err}"))),
    }
    let after = read_back(&file)?;
    let done = |out: &mut Out, text: &str, version: Option<&Version>, kept: Option<&Path>| {
        let _ = fs::remove_file(&file);
        if out.json {
            out.json_doc(&EditDoc {
                ok: true,
                name,
                version: version.map(Version::as_str),
                changed: text != before,
                old_in_trash: kept.map(Path::to_path_buf),
            });
        } else if text == before && version.is_none() {
            // A name that is no note (a typo, often): say so, and the notes it may mean.
            out.line(format!(
                "Nothing written: `{name}` is not a note, and the editor left it empty."
            ));
            if let Some(near) = near_note(brain, name) {
                out.hint(format!(
                    "did you mean `{near}`? (`notesoup notes edit {near}`)"
                ));
            }
        } else if text == before {
            out.line(format!("Note `{name}` unchanged."));
        } else {
            saved(out, name, text.len(), version, kept.is_some());
        }
    };
    if after == before {
        done(out, &after, version.as_ref(), None);
        return Ok(());
    }
    if after.trim().is_empty() {
        let _ = fs::remove_file(&file);
        return Err(CliError::EmptyNote {
            name: name.to_owned(),
        });
    }
    let conflict = |now: Option<String>| CliError::EditConflict {
        name: name.to_owned(),
        now: match (now, &version) {
            (None, _) => NoteNow::Deleted,
            (Some(v), None) => NoteNow::Created(v),
            (Some(v), Some(_)) => NoteNow::Changed(v),
        },
        kept: file.clone(),
    };
    // A new note is created only if it is still absent when written (checked under the
    // store's lock): an agent that created it meanwhile is a conflict, not an overwrite.
    // The text an edit replaces is kept in the trash, as a person's `notes write` keeps it:
    // a slip in the editor, saved, is restored with `notes restore NAME --force`.
    let written = match &version {
        Some(v) => brain.write_keeping(name, &after, Some(v)),
        None => brain.create(name, &after),
    };
    match written {
        Ok(w) => {
            done(out, &after, Some(&w.version), w.kept_old.as_deref());
            Ok(())
        }
        Err(NotesError::VersionConflict { current, .. }) => Err(conflict(current)),
        Err(NotesError::Exists { version, .. }) => Err(conflict(Some(version))),
        Err(source) => Err(CliError::EditRefused {
            name: name.to_owned(),
            kept: file.clone(),
            source,
        }),
    }
}

/// What a saved edit says: the note's size and version, and where the text it replaced went.
fn saved(out: &mut Out, name: &str, bytes: usize, version: Option<&Version>, kept: bool) {
    out.line(format!(
        "Saved note `{name}`: {bytes} bytes, version {}.",
        version.map_or("-", Version::as_str)
    ));
    if kept {
        out.line(format!(
            "The text it replaced is in the trash: `notesoup notes restore {name} --force` brings it back."
        ));
    }
}

/// The brain's note closest to `name`, when one is near enough to be what was meant.
fn near_note(brain: &Brain, name: &str) -> Option<String> {
    let names: Vec<String> = brain.list("").ok()?.into_iter().map(|n| n.name).collect();
    notesoup_notes::near_names(name, names.iter().map(String::as_str))
        .first()
        .map(|near| (*near).to_owned())
}

/// The editors tried, in order, when neither `VISUAL` nor `EDITOR` is set (as git falls
/// back to `vi`; `nano` where there is no `vi`).
const FALLBACK_EDITORS: [&str; 2] = ["vi", "nano"];

/// The editor command: `$VISUAL`, else `$EDITOR`, else the first of [`FALLBACK_EDITORS`]
/// on PATH.
fn editor(env: &Env) -> Result<String, CliError> {
    if let Some(set) = env.var_set("VISUAL").or_else(|| env.var_set("EDITOR")) {
        return Ok(set.to_owned());
    }
    FALLBACK_EDITORS
        .iter()
        .find(|name| crate::programs::on_path(env, name).is_some())
        .map(|name| (*name).to_owned())
        .ok_or(CliError::NoEditor {
            tried: &FALLBACK_EDITORS,
        })
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
    let from_tmpdir = env.var_set("TMPDIR").is_some();
    let dir = env
        .var_set("TMPDIR")
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
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
    // The folder itself missing or refusing: said as TMPDIR's fault, with its fix.
    let mut file = options.open(&path).map_err(|source| CliError::TempDir {
        dir: dir.clone(),
        from_tmpdir,
        source,
    })?;
    file.write_all(text.as_bytes()).map_err(io)?;
    Ok(path)
}
