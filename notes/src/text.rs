//! What the model reads back from each operation: short, exact, with the version to send.

use std::fmt::Write as _;

use notesoup_window::{format_utc, thousands};

use crate::{Deleted, MAX_BRAIN_BYTES, MAX_NOTE_BYTES, Note, NoteInfo, Written};

/// The answer to `notes_list`: one line per note.
pub fn render_list(notes: &[NoteInfo], folder: &str) -> String {
    let total: u64 = notes.iter().map(|n| n.bytes).sum();
    let place = if folder.is_empty() {
        "the brain".to_owned()
    } else {
        format!("folder `{}`", folder.trim_end_matches('/'))
    };
    if notes.is_empty() {
        return format!("No notes in {place}. Create one with notes_write.");
    }
    let mut out = format!(
        "{} note{} in {place}, {} (limits: {} bytes a note, {} a brain):\n",
        notes.len(),
        if notes.len() == 1 { "" } else { "s" },
        bytes(total),
        thousands(MAX_NOTE_BYTES),
        thousands(MAX_BRAIN_BYTES)
    );
    for n in notes {
        let _ = writeln!(
            out,
            "- {} | {} bytes | {} | version {} | {}",
            n.name,
            n.bytes,
            format_utc(n.updated),
            n.version,
            n.first_line
        );
    }
    out
}

/// The answer to `notes_read`: a header line, then the lines asked for (`offset` is the
/// 1-based first line, `limit` the most lines), verbatim.
pub fn render_read(note: &Note, offset: Option<usize>, limit: Option<usize>) -> String {
    let lines: Vec<&str> = note.text.split_inclusive('\n').collect();
    let total = lines.len();
    let header = format!(
        "note `{}` | version {} | {} bytes, {total} line{} | updated {}",
        note.name,
        note.version,
        note.text.len(),
        if total == 1 { "" } else { "s" },
        format_utc(note.updated)
    );
    if offset.is_none() && limit.is_none() {
        return format!("{header}\n{}", note.text);
    }
    let first = offset.unwrap_or(1).max(1);
    let start = (first - 1).min(total);
    let end = limit.map_or(total, |l| start.saturating_add(l).min(total));
    if start >= end {
        return format!(
            "{header}\n(no lines from line {first}: the note has {total} line{})",
            if total == 1 { "" } else { "s" }
        );
    }
    format!(
        "{header} | showing lines {}-{end}\n{}",
        start + 1,
        lines[start..end].concat()
    )
}

/// The answer to `notes_write` and `notes_edit`.
pub fn render_written(written: &Written) -> String {
    format!(
        "{} note `{}`: {}, version {}.",
        if written.created { "Created" } else { "Saved" },
        written.name,
        bytes(written.bytes),
        written.version
    )
}

/// A size as people write it: `1 byte`, `65,536 bytes`.
fn bytes(n: u64) -> String {
    if n == 1 {
        "1 byte".to_owned()
    } else {
        format!("{} bytes", thousands(n))
    }
}

/// The answer to `notes_delete`.
pub fn render_delete(deleted: &Deleted) -> String {
    format!(
        "Deleted note `{}` (it was version {}); its text is kept in the trash at {} for a while.",
        deleted.name,
        deleted.version,
        deleted.trash.display()
    )
}
