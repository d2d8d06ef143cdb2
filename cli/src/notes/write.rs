//! `notesoup notes write` and `notesoup notes append`: a note's text from stdin or a file.

use std::io::Read;
use std::path::Path;

use notesoup_notes::{Brain, Edit, MAX_NOTE_BYTES, Written};

use crate::docs::WrittenDoc;
use crate::term::Out;
use crate::{CliError, Env};

/// `notes write NAME`: the whole note, created or replaced (as the agent's `notes_write`);
/// the text it replaces is kept in the trash, as `rm` keeps a note.
pub(super) fn write(
    brain: &Brain,
    name: &str,
    file: Option<&Path>,
    env: &Env,
    out: &mut Out,
) -> Result<(), CliError> {
    change(brain, name, file, env, out, Change::Replace, |text| {
        brain.write_keeping(name, &text, None)
    })
}

/// `notes append NAME`: the text added at the note's end, exactly as given (the agent's
/// `notes_edit` append); a missing note is created.
pub(super) fn append(
    brain: &Brain,
    name: &str,
    file: Option<&Path>,
    env: &Env,
    out: &mut Out,
) -> Result<(), CliError> {
    change(brain, name, file, env, out, Change::Append, |text| {
        brain.edit(name, &Edit::Append(text), None)
    })
}

/// What `notes write` or `notes append` does to a note that exists.
#[derive(Clone, Copy)]
enum Change {
    /// Replaces its text.
    Replace,
    /// Adds text at its end.
    Append,
}

/// The name checked, the text read, `apply` run on it, and what it did reported.
fn change(
    brain: &Brain,
    name: &str,
    file: Option<&Path>,
    env: &Env,
    out: &mut Out,
    what: Change,
    apply: impl FnOnce(String) -> Result<Written, notesoup_notes::NotesError>,
) -> Result<(), CliError> {
    notesoup_notes::check_name(name).map_err(|e| super::refusal(brain, e))?;
    let text = input(name, file, env)?;
    let given = text.len();
    let written = apply(text).map_err(|e| super::refusal(brain, e))?;
    report(&written, what, given, out);
    Ok(())
}

/// `n` bytes for people: `1 byte`, `11 bytes`, `65,536 bytes`.
fn byte_count(n: u64) -> String {
    format!(
        "{} byte{}",
        notesoup_window::thousands(n),
        if n == 1 { "" } else { "s" }
    )
}

/// What was written: `Created note …: N bytes`, `Replaced note …: N bytes`, or for an
/// append the bytes added and the note's size now.
fn report(written: &Written, what: Change, given: usize, out: &mut Out) {
    if out.json {
        out.json_doc(&WrittenDoc {
            ok: true,
            name: &written.name,
            version: written.version.as_str(),
            bytes: written.bytes,
            created: written.created,
            old_in_trash: written.kept_old.clone(),
        });
    } else {
        let (name, version) = (&written.name, &written.version);
        let bytes = byte_count(written.bytes);
        out.line(match what {
            _ if written.created => format!("Created note `{name}`: {bytes}, version {version}."),
            Change::Replace => format!("Replaced note `{name}`: {bytes}, version {version}."),
            Change::Append => format!(
                "Appended {} to note `{name}`: {bytes} now, version {version}.",
                byte_count(u64::try_from(given).unwrap_or(u64::MAX))
            ),
        });
        if written.kept_old.is_some() {
            out.line(format!(
                "The text it replaced is in the trash: `notesoup notes restore {} --force` brings it back.",
                written.name
            ));
        }
    }
}

/// The text to write: from `file` (`-` is stdin), else stdin unless it is a terminal; at
/// most a note's bytes, UTF-8, not empty. A FIFO given as --file (`<(command)`) is read: the
/// person named it.
fn input(name: &str, file: Option<&Path>, env: &Env) -> Result<String, CliError> {
    let from_stdin = file.is_none_or(|f| f == Path::new("-"));
    if from_stdin && file.is_none() && env.stdin_terminal() {
        return Err(CliError::NoInput);
    }
    let from = match file {
        Some(f) if !from_stdin => f.display().to_string(),
        _ => "stdin".to_owned(),
    };
    let io = |source: std::io::Error| CliError::Io {
        what: "read the text from".into(),
        path: file.map_or_else(|| "stdin".into(), Path::to_path_buf),
        source,
    };
    let mut bytes = Vec::new();
    let limit = MAX_NOTE_BYTES + 1;
    match file {
        Some(f) if !from_stdin => {
            std::fs::File::open(f)
                .map_err(io)?
                .take(limit)
                .read_to_end(&mut bytes)
                .map_err(io)?;
        }
        _ => {
            std::io::stdin()
                .lock()
                .take(limit)
                .read_to_end(&mut bytes)
                .map_err(io)?;
        }
    }
    if bytes.len() as u64 > MAX_NOTE_BYTES {
        return Err(CliError::InputTooLarge {
            from,
            limit: MAX_NOTE_BYTES,
        });
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    if text.trim().is_empty() {
        return Err(CliError::EmptyInput {
            from,
            name: name.to_owned(),
        });
    }
    Ok(text)
}
