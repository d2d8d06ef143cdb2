//! What the model reads back from each operation: short, exact, with the version to send.

use std::fmt::Write as _;

use crate::{Deleted, MAX_BRAIN_BYTES, MAX_NOTE_BYTES, Note, NoteInfo, Written};

/// `YYYY-MM-DD HH:MM UTC` for seconds since the Unix epoch.
pub fn format_utc(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// Howard Hinnant's `civil_from_days`, for days since 1970-01-01 (non-negative).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

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
        "{} note{} in {place}, {total} bytes (limits: {MAX_NOTE_BYTES} bytes a note, {MAX_BRAIN_BYTES} a brain):\n",
        notes.len(),
        if notes.len() == 1 { "" } else { "s" }
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
        "{} note `{}`: {} bytes, version {}.",
        if written.created { "Created" } else { "Saved" },
        written.name,
        written.bytes,
        written.version
    )
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
