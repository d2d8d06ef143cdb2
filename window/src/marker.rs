//! The boot block's marker lines, and the scans that find them in a text.
//!
//! A boot block opens with the line `<notesoup-boot window="<id>">` ([`OPEN`], the id,
//! `">`) and closes with the line `</notesoup-boot>` ([`CLOSE`]). Everything that writes or
//! reads either (boot, the decoders, the reset flow, the helper, the end-to-end tests) goes
//! through this module; the hooks modules parse neither. A text names a window only through
//! a complete block: the marker line at the start of a line, naming a valid numbered id,
//! and a closing line after it.
//!
//! Every scan here reads its text once, front to back, whatever it holds (a hostile text
//! of many marker lines and no closing line costs what its bytes cost).
//!
//! ```
//! use notesoup_window::marker;
//!
//! let text = "# notesoup\n<notesoup-boot window=\"claude:s1:0\">\nnotes\n</notesoup-boot>\n\nmore";
//! let (window, range) = marker::boot_block(text).unwrap();
//! assert_eq!(window.to_string(), "claude:s1:0");
//! assert_eq!(&text[..range.start], "# notesoup\n");
//! assert_eq!(&text[range.end..], "\n\nmore");
//! assert_eq!(marker::retained_window(text), Some(window));
//! ```

use std::ops::Range;

use crate::WindowId;

/// What a boot's marker line starts with; the window id and `">` follow.
pub const OPEN: &str = "<notesoup-boot window=\"";
/// The line that closes a boot block.
pub const CLOSE: &str = "</notesoup-boot>";

/// The raw id between the quotes of a marker line (numbered or `unknown:` ids alike),
/// `None` when `line` is not a marker line.
pub(crate) fn marker_id(line: &str) -> Option<&str> {
    line.trim_end().strip_prefix(OPEN)?.strip_suffix("\">")
}

/// The window a retained boot names when `text`'s **first line** is a marker line: the
/// whole id as written and its ordinal (`None` for an `unknown:` window or no number).
///
/// ```
/// use notesoup_window::marker::boot_marker;
/// assert_eq!(boot_marker("<notesoup-boot window=\"pi:s1:3\">\nnotes"), Some(("pi:s1:3", Some(3))));
/// assert_eq!(boot_marker("hello <notesoup-boot window=\"pi:s1:3\">"), None);
/// ```
pub fn boot_marker(text: &str) -> Option<(&str, Option<u64>)> {
    let id = marker_id(text.lines().next()?)?;
    let ordinal = id.rsplit(':').next().and_then(|n| n.parse().ok());
    Some((id, ordinal))
}

/// The window of the first **complete** boot block in `text`: a marker line at the start
/// of a line naming a valid numbered id, followed later by a [`CLOSE`] line.
pub fn retained_window(text: &str) -> Option<WindowId> {
    boot_block(text).map(|(window, _)| window)
}

/// Where the first complete boot block of `text` (as [`retained_window`] finds it) sits:
/// its window and the byte range from its marker line to the end of its [`CLOSE`] line
/// (the line break after it excluded). What cuts a boot out of a larger text, e.g. an
/// engine attachment holding several context blocks.
///
/// One pass: the first valid marker line is the only candidate (a later marker line can
/// only close with a line that closes the first one too), and the first closing line after
/// it ends the block.
pub fn boot_block(text: &str) -> Option<(WindowId, Range<usize>)> {
    let mut open: Option<(WindowId, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        match &open {
            None => {
                if bare.starts_with(OPEN)
                    && let Some(id) = WindowId::from_marker_line(bare)
                {
                    open = Some((id, start));
                }
            }
            Some(_) if bare.trim() == CLOSE => {
                let (id, at) = open?;
                return Some((id, at..start + bare.len()));
            }
            Some(_) => {}
        }
    }
    None
}

/// Every window id named by a marker opening anywhere in `text` (line start or not,
/// complete block or not), in order: what counts copies of a boot in a request.
///
/// ```
/// use notesoup_window::marker::marker_ids;
/// let text = "a <notesoup-boot window=\"claude:s:0\">\nx\n<notesoup-boot window=\"claude:s:1\">";
/// assert_eq!(marker_ids(text).collect::<Vec<_>>(), ["claude:s:0", "claude:s:1"]);
/// ```
pub fn marker_ids(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices(OPEN).filter_map(move |(at, _)| {
        let rest = &text[at + OPEN.len()..];
        // An id ends at its quote, and never runs into the next opening.
        let end = rest
            .find(['"', '<'])
            .filter(|&i| rest.as_bytes()[i] == b'"')?;
        Some(&rest[..end])
    })
}

/// The window a conversation is in by the boots it keeps: of `windows` (the kept boots'
/// windows, oldest first), the newest of those naming the highest ordinal. The one rule for
/// it: a transcript's window facts and a live conversation's kept boots both read by it.
///
/// ```
/// use notesoup_window::WindowId;
/// use notesoup_window::marker::newest_highest;
///
/// let w = |s: &str| s.parse::<WindowId>().unwrap();
/// let kept = [w("claude:a:1"), w("claude:b:2"), w("claude:a:0"), w("claude:c:2")];
/// assert_eq!(newest_highest(kept), Some(w("claude:c:2")));
/// assert_eq!(newest_highest([]), None);
/// ```
pub fn newest_highest(windows: impl IntoIterator<Item = WindowId>) -> Option<WindowId> {
    windows.into_iter().fold(None, |best, w| match best {
        Some(b) if b.ordinal() > w.ordinal() => Some(b),
        _ => Some(w),
    })
}

#[cfg(test)]
mod tests;
