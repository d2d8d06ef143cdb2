//! Text from transcripts and notes made safe for a terminal, always: control characters
//! are shown escaped as `less` and `cat -v` show them (`^[` for escape, `^?` for delete,
//! `<U+009B>` for the C1 controls), so no transcript can move the cursor, recolour or
//! retitle the terminal; rows are one line, cut to the terminal's width in cells with `…`.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `text` with every control character except line breaks and tabs escaped.
///
/// ```ignore
/// assert_eq!(escaped("a\x1b[2mb\n"), "a^[[2mb\n");
/// ```
pub(crate) fn escaped(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c => push_shown(c, &mut out),
        }
    }
    Cow::Owned(out)
}

/// `text` as one row: runs of whitespace (line breaks included) become one space, the
/// ends are trimmed, and other control characters are escaped.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4096));
    let mut space = false;
    let mut rest = text.trim();
    while !rest.is_empty() {
        let run = shown_run(rest.as_bytes());
        let c = if run > 0 { None } else { rest.chars().next() };
        if c.is_some_and(char::is_whitespace) {
            space = true;
        } else if space {
            out.push(' ');
            space = false;
        }
        match c {
            // Every byte of the run is ASCII: `run` is a char boundary.
            None => {
                out.push_str(&rest[..run]);
                rest = &rest[run..];
            }
            Some(c) => {
                if !c.is_whitespace() {
                    push_shown(c, &mut out);
                }
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// The length of the run `bytes` starts with that a row shows as it is: printable ASCII,
/// from a character that is no space, with single spaces between such characters (a space
/// beside other whitespace is collapsed with it, and a space at the end may be followed by
/// more). Copied whole, as a row of `show --all` into a file can be a tool output of
/// megabytes.
fn shown_run(bytes: &[u8]) -> usize {
    let printable = |b: Option<&u8>| b.is_some_and(|b| (0x21..=0x7e).contains(b));
    let mut run = 0;
    while run < bytes.len() {
        if printable(bytes.get(run)) {
            run += 1;
        } else if run > 0 && bytes.get(run) == Some(&b' ') && printable(bytes.get(run + 1)) {
            run += 2;
        } else {
            break;
        }
    }
    run
}

/// `c` as a terminal shows it safely.
fn push_shown(c: char, out: &mut String) {
    match u32::from(c) {
        0x7f => out.push_str("^?"),
        n @ 0..=0x1f => {
            out.push('^');
            // `^@` to `^_`: the character 64 places on, as `cat -v` writes it.
            out.push(char::from_u32(n + 0x40).unwrap_or('?'));
        }
        n @ 0x80..=0x9f => {
            let _ = write!(out, "<U+{n:04X}>");
        }
        _ => out.push(c),
    }
}

/// The terminal cells `text` takes: two for CJK, full-width and emoji, none for a combining
/// mark, one for the rest. Every row the CLI fits to a terminal is measured here.
pub(crate) fn width(text: &str) -> usize {
    // No character takes more cells than it has bytes (a two-cell one has three or four).
    if text.is_ascii() {
        return text.len();
    }
    UnicodeWidthStr::width(text)
}

/// `text` cut to at most `width` terminal cells, ending in `…` when cut.
pub(crate) fn cut(text: &str, width: usize) -> Cow<'_, str> {
    if text.len() <= width || self::width(text) <= width {
        return Cow::Borrowed(text);
    }
    let room = width.saturating_sub(1);
    Cow::Owned(format!("{}…", &text[..fitting(text, room)]))
}

/// The byte length of the longest start of `text` that takes at most `room` cells.
fn fitting(text: &str, room: usize) -> usize {
    // Character by character first; then the whole start measured as a terminal shows it
    // (a variation selector can widen the character before it), backing off while it is
    // wider.
    let mut cells = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        cells += UnicodeWidthChar::width(c).unwrap_or(0);
        if cells > room {
            break;
        }
        end = at + c.len_utf8();
    }
    while end > 0 && self::width(&text[..end]) > room {
        end = text[..end]
            .char_indices()
            .next_back()
            .map_or(0, |(at, _)| at);
    }
    end
}

/// The part of a row's `text` to show in `width` cells, starting a little before byte `at`
/// (a match) so that it is in view; `…` marks what was left out at the start.
pub(crate) fn around(text: &str, at: usize, width: usize) -> Cow<'_, str> {
    let lead = width / 4;
    let at = at.min(text.len());
    if self::width(&text[..at]) <= lead {
        return cut(text, width);
    }
    // Back from the match, as many characters as take `lead` cells.
    let mut cells = 0;
    let mut start = at;
    for (i, c) in text[..at].char_indices().rev() {
        cells += UnicodeWidthChar::width(c).unwrap_or(0);
        if cells > lead {
            break;
        }
        start = i;
    }
    Cow::Owned(format!("…{}", cut(&text[start..], width.saturating_sub(1))))
}

#[cfg(test)]
mod tests;
