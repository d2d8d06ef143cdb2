//! Text from transcripts and notes made safe for a terminal, always: control characters
//! are shown escaped as `less` and `cat -v` show them (`^[` for escape, `^?` for delete,
//! `<U+009B>` for the C1 controls), so no transcript can move the cursor, recolour or
//! retitle the terminal; rows are one line, cut to the terminal's width with `…`.

use std::borrow::Cow;
use std::fmt::Write as _;

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
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        push_shown(c, &mut out);
    }
    out
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

/// `text` cut to at most `width` characters, ending in `…` when cut.
pub(crate) fn cut(text: &str, width: usize) -> Cow<'_, str> {
    if text.char_indices().nth(width).is_none() {
        return Cow::Borrowed(text);
    }
    let keep = width.saturating_sub(1);
    let end = text
        .char_indices()
        .nth(keep)
        .map_or(text.len(), |(at, _)| at);
    Cow::Owned(format!("{}…", &text[..end]))
}

/// The part of a row's `text` to show in `width` characters, starting a little before
/// byte `at` (a match) so that it is in view; `…` marks what was left out at the start.
pub(crate) fn around(text: &str, at: usize, width: usize) -> Cow<'_, str> {
    let lead = width / 4;
    let before = text[..at.min(text.len())].chars().count();
    if before <= lead {
        return cut(text, width);
    }
    let skip = before - lead;
    let start = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
    Cow::Owned(format!("…{}", cut(&text[start..], width.saturating_sub(1))))
}

#[cfg(test)]
mod tests;
