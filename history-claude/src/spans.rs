//! Where a row's bodies lie in its line, so a search can count a match from the raw
//! bytes without decoding the row again ([`TextSpan`]).
//!
//! A span is found from the decoded row: a call's input is searched as it is (the decoder
//! keeps the input's bytes verbatim), a text as a JSON string writes it with the short
//! escapes only (`\"`, `\\`, `\n`, `\t`, `\r`, `\b`, `\f`), between quotes. The one-pass
//! parse may say where it read a body so written ([`find_in`]'s hint): that spares checking
//! the body's bytes there, and is taken only where the search would take it (its first
//! candidate place), so the spans are the same with or without it. A text that needs
//! another escape (a control character only `\u` can write), or that the line writes
//! otherwise (a `\u` or `\/` escape, several blocks joined), gets no span: a search then
//! decodes the row as before. So whatever a span's bytes are,
//! they are the body's text (or input) written that way, which is all [`TextSpan::holds`]
//! relies on.

use notesoup_history_core::{Body, Role};

/// Where one event's text or input lies in its row's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextSpan {
    /// The event's index in its row (0: the row's first event).
    pub event: u32,
    /// The byte range in the line (without the quotes of a text).
    pub start: u32,
    /// The end of that range (exclusive).
    pub end: u32,
    /// True: the bytes are the event's text written with the short escapes only; false:
    /// they are the call's input as it is.
    pub escaped: bool,
}

impl TextSpan {
    /// True when `query`, found in `line` (the row's whole line) at byte `at`, is surely in
    /// this event's text or input: the match lies inside the span, and in an escaped text
    /// the query has no `\`, `"` or control character (so its bytes are the text's own)
    /// and does not start right after an escaping backslash (an odd run of them before it,
    /// inside the span), where it would be the tail of an escape.
    pub fn holds(&self, line: &[u8], at: usize, query: &str) -> bool {
        let Some(stop) = at.checked_add(query.len()) else {
            return false;
        };
        if line.get(at..stop) != Some(query.as_bytes()) {
            return false;
        }
        let from = (self.start as usize).min(at);
        let backslashes = line[from..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        self.holds_match(at, query, backslashes)
    }

    /// [`TextSpan::holds`] for a match of `query` known to lie at byte `at` of the line,
    /// given how many backslashes run right before it there (`backslashes`: counted back
    /// to the span's start or further; the part inside the span is what counts).
    pub fn holds_match(&self, at: usize, query: &str, backslashes: usize) -> bool {
        let (start, end) = (self.start as usize, self.end as usize);
        let Some(stop) = at.checked_add(query.len()) else {
            return false;
        };
        if at < start || stop > end {
            return false;
        }
        if !self.escaped {
            return true;
        }
        if query.bytes().any(|b| b == b'\\' || b == b'"' || b < 0x20) {
            return false;
        }
        backslashes.min(at - start).is_multiple_of(2)
    }
}

/// `text` as a JSON string literal's body writes it with the short escapes (`\"`, `\\`,
/// `\n`, `\t`, `\r`, `\b`, `\f`; any other character as it is): the bytes a raw search of
/// a line looks for when the query is one of those characters.
///
/// ```
/// assert_eq!(notesoup_history_claude::short_escaped("say \"hi\"\n"), r#"say \"hi\"\n"#);
/// ```
pub fn short_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match u8::try_from(c).ok().map(short_escape) {
            Some(Ok(Some(e))) => {
                out.push('\\');
                out.push(char::from(e));
            }
            _ => out.push(c),
        }
    }
    out
}

/// The short escape JSON writes `byte` with (`None`: the byte is written as it is);
/// `Err` for a control character only a `\u` escape writes.
fn short_escape(byte: u8) -> Result<Option<u8>, ()> {
    Ok(Some(match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\t' => b't',
        b'\r' => b'r',
        0x08 => b'b',
        0x0c => b'f',
        0..0x20 => return Err(()),
        _ => return Ok(None),
    }))
}

/// The most candidate places a body is checked at, and the most bytes all searches of a
/// line may look at (a multiple of its length): the work stays linear in the line.
const CANDIDATES: usize = 8;
const BUDGET: usize = 8;
/// Bytes of a body's start that find its candidate places (a short needle is cheap to
/// prepare; each candidate is then checked whole).
const PREFIX: usize = 12;

/// The spans found for one row, and whether every body with bytes got one (then the row's
/// bodies are exactly what its spans decode to, and no `\u` or `\/` escape elsewhere in its
/// line can hide a match of them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) spans: Vec<TextSpan>,
    pub(crate) complete: bool,
}

/// Fills `out` with the spans of `events` (a row's, as the decoder made them from `line`):
/// every call input, result text or row text that `line` holds as [`TextSpan`] says.
/// Events without one are simply left out (and `out.complete` is then false).
pub(crate) fn find(line: &[u8], events: &[(Role, Body)], out: &mut Found) {
    find_in(
        line,
        events.iter().map(|(_, body)| match body {
            Body::Text { text } | Body::ToolResult { text, .. } => (text.as_bytes(), true, None),
            Body::ToolCall { input, .. } => (input.as_bytes(), false, None),
        }),
        out,
    );
}

/// [`find`] of a row's bodies given in event order as their bytes, whether they are a
/// text (written escaped) rather than a call's input (written as it is), and where the
/// line may write them: a part of `line` (between a text's quotes) that the parse says holds
/// the body written so. Such a hint only spares the check of the body's bytes, and only
/// where the search finds its first candidate place: the spans are the ones found without.
pub(crate) fn find_in<'a>(
    line: &[u8],
    bodies: impl Iterator<Item = (&'a [u8], bool, Option<&'a [u8]>)>,
    out: &mut Found,
) {
    out.complete = true;
    let mut budget = BUDGET.saturating_mul(line.len()).saturating_add(4096);
    // Tools follow the row's text in the line, in block order: each is looked for after
    // the last one found.
    let mut cursor = 0;
    for (k, (text, escaped, hint)) in bodies.enumerate() {
        let Ok(event) = u32::try_from(k) else {
            out.complete = false;
            break;
        };
        if text.is_empty() {
            continue;
        }
        let from = if k == 0 { 0 } else { cursor };
        let hint = hint.and_then(|part| place_in(line, part));
        let Some((start, end)) = find_one(line, from, text, escaped, hint, &mut budget) else {
            out.complete = false;
            continue;
        };
        let (Ok(s), Ok(e)) = (u32::try_from(start), u32::try_from(end)) else {
            out.complete = false;
            continue;
        };
        if k > 0 {
            cursor = end;
        }
        out.spans.push(TextSpan {
            event,
            start: s,
            end: e,
            escaped,
        });
    }
}

/// Where `part`, a part of `line`, lies in it (`None` when it is not a part of it).
fn place_in(line: &[u8], part: &[u8]) -> Option<(usize, usize)> {
    let start = (part.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= line.len()).then_some((start, end))
}

/// Charges `n` bytes of work to `budget`; false when it is spent.
fn charge(budget: &mut usize, n: usize) -> bool {
    let left = budget.checked_sub(n);
    *budget = left.unwrap_or(0);
    left.is_some()
}

/// Where `line` (from byte `from` on) holds `text`: as it is (`escaped` false), or
/// (`escaped`) between quotes written with the short escapes, the range between them.
/// `hint`: a range of `line` known to hold it so (a text's between its quotes), taken
/// without checking its bytes when it is the first candidate place the search finds
/// (which the search would check and take), with the same work charged.
fn find_one(
    line: &[u8],
    from: usize,
    text: &[u8],
    escaped: bool,
    hint: Option<(usize, usize)>,
    budget: &mut usize,
) -> Option<(usize, usize)> {
    // The text's first bytes as the line writes them find the candidates (a text's after
    // its opening quote).
    let mut needle = [0_u8; 2 * PREFIX + 1];
    let mut len = 0;
    if escaped {
        needle[0] = b'"';
        len = 1;
    }
    for &b in text.iter().take(PREFIX) {
        match short_escape(b) {
            Ok(Some(e)) if escaped => {
                needle[len] = b'\\';
                needle[len + 1] = e;
                len += 2;
            }
            // The text needs a `\u` escape: no place can hold it this way.
            Err(()) if escaped => return None,
            _ => {
                needle[len] = b;
                len += 1;
            }
        }
    }
    let rest = line.get(from..)?;
    if !charge(budget, rest.len()) {
        return None;
    }
    if let Some((start, end)) = hint
        && memchr::memmem::find(rest, &needle[..len])
            .is_some_and(|at| from + at + usize::from(escaped) == start)
    {
        return charge(budget, text.len()).then_some((start, end));
    }
    for at in memchr::memmem::find_iter(rest, &needle[..len]).take(CANDIDATES) {
        if !charge(budget, text.len()) {
            return None;
        }
        let start = from + at + usize::from(escaped);
        if !escaped {
            if line.get(start..start + text.len()) == Some(text) {
                return Some((start, start + text.len()));
            }
            continue;
        }
        match escaped_at(line, start, text) {
            Ok(Some(end)) => return Some((start, end)),
            Ok(None) => {}
            Err(()) => return None,
        }
    }
    None
}

/// How many first bytes `a` and `b` share (eight at a time).
fn common_prefix(left: &[u8], right: &[u8]) -> usize {
    let len = left.len().min(right.len());
    let mut at = 0;
    while at + 8 <= len {
        let (Ok(l), Ok(r)) = (
            <[u8; 8]>::try_from(&left[at..at + 8]),
            <[u8; 8]>::try_from(&right[at..at + 8]),
        ) else {
            break;
        };
        let diff = u64::from_le_bytes(l) ^ u64::from_le_bytes(r);
        if diff != 0 {
            return at + (diff.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < len && left[at] == right[at] {
        at += 1;
    }
    at
}

/// When `line` holds `text` from byte `start` on written with the short escapes, followed
/// by a quote: where the written text ends (`Ok(None)`: it does not; `Err`: the text needs
/// a `\u` escape). Every `\` of the text must be written `\\` (never matched as it is),
/// so every backslash of the span starts an escape or is an escaped one.
fn escaped_at(line: &[u8], start: usize, text: &[u8]) -> Result<Option<usize>, ()> {
    let mut p = start;
    let mut t = 0;
    let mut backslashes = memchr::memchr_iter(b'\\', text).peekable();
    loop {
        // Bytes written as they are run to the first difference, and never past a
        // backslash of the text.
        let limit = backslashes.peek().copied().unwrap_or(text.len());
        let Some(written) = line.get(p..) else {
            return Ok(None);
        };
        let same = common_prefix(&text[t..limit], written);
        p += same;
        t += same;
        if t == text.len() {
            return Ok((line.get(p) == Some(&b'"')).then_some(p));
        }
        if t == limit {
            backslashes.next();
        }
        let Some(e) = short_escape(text[t])? else {
            return Ok(None);
        };
        if line.get(p..p + 2) != Some(&[b'\\', e]) {
            return Ok(None);
        }
        p += 2;
        t += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> (Role, Body) {
        (Role::User, Body::Text { text: t.to_owned() })
    }

    #[test]
    fn a_text_is_found_escaped_and_a_hit_after_an_escape_is_not_its_own() {
        let line = br#"{"a":"x","message":{"content":"say \"hi\"\nnews\\nzebra"}}"#;
        let mut found = Found::default();
        find(line, &[text("say \"hi\"\nnews\\nzebra")], &mut found);
        assert!(found.complete);
        let spans = found.spans;
        assert_eq!(spans.len(), 1);
        let span = spans[0];
        assert_eq!(
            &line[span.start as usize..span.end as usize],
            br#"say \"hi\"\nnews\\nzebra"#
        );
        let at = |q: &str| memchr::memmem::find(line, q.as_bytes()).unwrap();
        assert!(span.holds(line, at("news"), "news"));
        // `\nnews`: "nnews" is not in the text; `\\n`: the n after an even run is.
        assert!(!span.holds(line, at("nnews"), "nnews"));
        assert!(span.holds(line, at("nzebra"), "nzebra"));
        assert!(!span.holds(line, at("hi\\"), "hi\\"));
        // Outside the span: the key.
        assert!(!span.holds(line, at("content"), "content"));
    }

    #[test]
    fn a_text_with_a_control_only_u_writes_gets_no_span() {
        let line = b"{\"c\":\"red \\u001b[31m\"}";
        let mut found = Found::default();
        find(line, &[text("red \u{1b}[31m")], &mut found);
        assert!(!found.complete, "a body without its span");
        let spans = found.spans;
        assert!(spans.is_empty());
    }

    #[test]
    fn an_input_is_found_as_it_is() {
        let line = br#"{"input":{"command":"ls \"q\""},"x":1}"#;
        let mut found = Found::default();
        find(
            line,
            &[
                text(""),
                (
                    Role::Tool,
                    Body::ToolCall {
                        id: "t".into(),
                        name: "Bash".into(),
                        input: r#"{"command":"ls \"q\""}"#.into(),
                    },
                ),
            ],
            &mut found,
        );
        assert!(found.complete, "an empty text needs no span");
        let spans = found.spans;
        assert_eq!(spans.len(), 1);
        assert!(!spans[0].escaped);
        let at = memchr::memmem::find(line, b"\"q").unwrap();
        assert!(spans[0].holds(line, at, "\"q"));
    }
}
