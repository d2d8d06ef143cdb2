//! History events as terminal rows: a header row, one row per event (seq, time, role, its
//! text on one line, cut to the terminal's width in cells; into a pipe or a file whole, a search's
//! around its match), window separators, matches painted; and
//! one whole event for `--seq`. Transcript text is always shown with its control
//! characters escaped.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::Zone;
use crate::clean::{around, cut, escaped, one_line};
use crate::term::{Out, Paint};
use notesoup_history_core::{Document, NO_VISIBLE_TEXT, Needle};

/// The columns before an event's text: seq, time, role and their gaps.
fn lead(zone: &Zone) -> usize {
    7 + 2 + zone.cell_width() + 2 + 10 + 2
}
/// The cells (terminal columns) of a search's row around its match when the width is
/// unknown (not a terminal).
const SEARCH_ROW_MAX: usize = 200;

/// The header row.
pub(crate) fn header(zone: &Zone, out: &mut Out) {
    let row = format!(
        "{:>7}  {:<time$}  {:<10}  TEXT",
        "SEQ",
        zone.header("TIME"),
        "ROLE",
        time = zone.cell_width()
    );
    out.line(out.paint(Paint::Dim, &row));
}

/// `YYYY-MM-DD HH:MM` of a time in milliseconds in the person's zone (with the zone's
/// abbreviation unless it is UTC), or `-`.
pub(crate) fn time_cell(zone: &Zone, ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".to_owned(), |ms| zone.cell(ms))
}

/// What a row shows of an event: its text, or a tool use as `name input → result`.
fn row_text(doc: &Document) -> String {
    let Some(tool) = &doc.tool else {
        return one_line(&doc.text);
    };
    let mut text = match (&tool.name, &tool.input) {
        (Some(name), Some(input)) => format!("{name} {input}"),
        _ => "(result of an unknown call)".to_owned(),
    };
    match &tool.result {
        Some(r) if r.is_error => {
            let _ = write!(text, " → error: {}", r.text);
        }
        Some(r) => {
            let _ = write!(text, " → {}", r.text);
        }
        None => text.push_str(" → (no result recorded)"),
    }
    one_line(&text)
}

/// One event as a row; with a needle, the row's text starts near its first match and
/// every match shown is painted.
pub(crate) fn event(
    doc: &Document,
    needle: Option<&Needle>,
    zone: &Zone,
    width: Option<usize>,
    out: &mut Out,
) {
    let text = row_text(doc);
    let first = needle.and_then(|n| n.find_all(&text).first().map(|m| m.start));
    // Into a pipe or a file a row of `show` is whole (`show --all > session.txt` keeps
    // every word); a search's row is the match in its context, as on a terminal (an event
    // can be a whole tool output of megabytes).
    let room = match (width, needle) {
        (Some(w), _) => Some(w.saturating_sub(lead(zone)).max(20)),
        (None, Some(_)) => Some(SEARCH_ROW_MAX),
        (None, None) => None,
    };
    let shown = match (room, first) {
        (None, _) => Cow::Borrowed(text.as_str()),
        (Some(room), Some(at)) => around(&text, at, room),
        (Some(room), None) => cut(&text, room),
    };
    let shown = match needle {
        Some(n) => out.painted(&shown, n),
        None => shown.into_owned(),
    };
    let role = doc.role.name();
    let role = match doc.tool.as_ref().and_then(|t| t.result.as_ref()) {
        Some(r) if r.is_error => out.paint(Paint::Warn, &format!("{role:<10}")),
        _ => format!("{role:<10}"),
    };
    out.line(format!(
        "{:>7}  {:<time$}  {role}  {shown}",
        format!("#{}", doc.seq),
        time_cell(zone, doc.time),
        time = zone.cell_width()
    ));
}

/// A window separator, when the window changes between rows.
pub(crate) fn window_line(window: &str, out: &mut Out) {
    out.line(out.paint(Paint::Strong, &format!("── window {window} ──")));
}

/// One whole event (`show --seq`): a heading, then every text in full.
pub(crate) fn whole(doc: &Document, zone: &Zone, out: &mut Out) {
    let heading = format!(
        "#{}  {}  {}  window {}",
        doc.seq,
        doc.time.map_or_else(|| "-".to_owned(), |ms| zone.stamp(ms)),
        doc.role.name(),
        doc.window
    );
    out.line(out.paint(Paint::Strong, &heading));
    match &doc.tool {
        None if doc.text.is_empty() => out.line(out.paint(Paint::Dim, NO_VISIBLE_TEXT)),
        None => out.text(&escaped(&doc.text)),
        Some(tool) => {
            if let (Some(name), Some(input)) = (&tool.name, &tool.input) {
                out.line(format!("tool: {}", escaped(name)));
                out.line(format!("input: {}", escaped(input)));
            } else {
                out.line("(the result of a call this history does not hold)");
            }
            match &tool.result {
                Some(r) => {
                    let label = if r.is_error { " (error)" } else { "" };
                    out.line(out.paint(Paint::Dim, &format!("result #{}{label}:", r.seq)));
                    out.text(&escaped(&r.text));
                }
                None => out.line(out.paint(Paint::Dim, "no result was recorded")),
            }
        }
    }
}
