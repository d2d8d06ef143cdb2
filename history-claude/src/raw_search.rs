//! Which raw transcript lines may hold a literal, and which rows surely do, without decoding
//! them ([`RawQuery`]).
//!
//! **Which lines may hold it.** A row's texts are JSON strings of its line, decoded; a
//! call's input is a verbatim part of it. In a JSON string, a character is written as it
//! is, or as a `\u` escape, or (`/` only) as `\/`, or, for the characters JSON must escape,
//! as their one short escape (`\"`, `\\`, `\n`, `\t`, `\r`, `\b`, `\f`: [`short_escaped`];
//! other control characters only as `\u`). So a decoded text holds the literal only if the
//! raw line holds it written that way (its JSON-escaped form), or the line has a `\u`
//! escape, or (for a literal with `/`) a `\/` one; an input holds it only if the raw line
//! holds it as it is. A row whose every body with bytes has its span
//! ([`ElidedRow::spanned`](crate::ElidedRow::spanned)) needs no look for `\u` or `\/`: its
//! bodies are what its spans decode to, and a span holds neither.
//!
//! **Which rows surely hold it.** A raw match of the literal as it is inside one of a row's
//! [`TextSpan`]s is a match of that body when [`TextSpan::holds_match`] says so (given the
//! run of backslashes right before it), so a search counts it without decoding the row.
//!
//! A literal with a line break may be anywhere (texts are joined with line breaks): no
//! raw search is made for one.
//!
//! ```
//! use notesoup_history_claude::RawQuery;
//!
//! let query = RawQuery::new("say \"hi\"");
//! let line = br#"{"content":"she said: say \"hi\" twice"}"#;
//! assert_eq!(query.plain(line).count(), 0);
//! assert_eq!(query.escaped(line).count(), 1);
//! ```

use memchr::memmem::Finder;

use crate::{TextSpan, short_escaped};

/// A literal, ready to be found in raw transcript lines (see the module's docs).
#[derive(Debug, Clone)]
pub struct RawQuery {
    query: String,
    /// The literal as it is.
    plain: Finder<'static>,
    /// Its JSON-escaped form, when that differs.
    escaped: Option<Finder<'static>>,
    /// `\u`, and (for a literal with `/`) `\/`.
    escapes: [Option<Finder<'static>>; 2],
    /// Whether the backslashes before a plain match are counted: not for a literal with a
    /// backslash, a quote or a control character (no escaped text surely holds one, and an
    /// input's match needs no count).
    counted: bool,
}

impl RawQuery {
    /// The raw search for `query`.
    pub fn new(query: &str) -> Self {
        let escaped = short_escaped(query);
        Self {
            plain: Finder::new(query.as_bytes()).into_owned(),
            escaped: (escaped != query).then(|| Finder::new(escaped.as_bytes()).into_owned()),
            escapes: [
                Some(Finder::new(b"\\u").into_owned()),
                query
                    .contains('/')
                    .then(|| Finder::new(b"\\/").into_owned()),
            ],
            counted: !query.bytes().any(|b| b == b'\\' || b == b'"' || b < 0x20),
            query: query.to_owned(),
        }
    }

    /// The literal.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// Each match of the literal as it is in `lines` (whole lines): its offset, and how
    /// many backslashes run right before it on its line (0 when they are not counted; all
    /// [`TextSpan::holds_match`] needs of the line).
    pub fn plain<'a>(&'a self, lines: &'a [u8]) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.plain.find_iter(lines).map(move |at| {
            // A literal without a backslash: the runs before its matches never overlap.
            let run = if self.counted {
                lines[..at]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count()
            } else {
                0
            };
            (at, run)
        })
    }

    /// Each match of the literal's JSON-escaped form in `lines`, when that differs from
    /// the literal: its offset.
    pub fn escaped<'a>(&'a self, lines: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
        self.escaped.iter().flat_map(move |f| f.find_iter(lines))
    }

    /// Each escape in `lines` that may hide a match in a text its spans do not cover (`\u`,
    /// and `\/` for a literal with `/`): its offset.
    pub fn hiding<'a>(&'a self, lines: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
        self.escapes
            .iter()
            .flatten()
            .flat_map(move |f| f.find_iter(lines))
    }

    /// False only when no row of a transcript whose bytes are `bytes` can hold the literal:
    /// neither it, nor its escaped form, nor an escape that may hide it is in them, and it
    /// has no line break. A whole file read in windows must overlap them by
    /// [`RawQuery::overlap`] bytes.
    pub fn may_hold(&self, bytes: &[u8]) -> bool {
        self.query.contains('\n')
            || self.plain.find(bytes).is_some()
            || self.escaped(bytes).next().is_some()
            || self.hiding(bytes).next().is_some()
    }

    /// How many bytes consecutive windows of one file must share so that
    /// [`RawQuery::may_hold`] misses no pattern split between them.
    pub fn overlap(&self) -> usize {
        let escaped = self.escaped.as_ref().map_or(0, |f| f.needle().len());
        self.plain.needle().len().max(escaped).max(2) - 1
    }

    /// True when a plain match at byte `at` of a row's line, with `backslashes` right before
    /// it, is surely in the body `span` covers.
    pub fn holds(&self, span: &TextSpan, at: usize, backslashes: usize) -> bool {
        span.holds_match(at, &self.query, backslashes)
    }
}

#[cfg(test)]
mod tests {
    use super::RawQuery;

    #[test]
    fn a_file_may_hold_a_literal_written_as_is_escaped_or_behind_an_escape() {
        let q = RawQuery::new("say \"hi\"");
        assert!(!q.may_hold(br#"{"a":"nothing here, say hi"}"#));
        assert!(q.may_hold(br#"{"a":"she said: say \"hi\""}"#));
        assert!(q.may_hold(br#"{"a":"\u0041"}"#), "an escape may hide it");
        assert!(!RawQuery::new("a/b").may_hold(br#"{"a":"a b"}"#));
        assert!(RawQuery::new("a/b").may_hold(br#"{"a":"a\/b"}"#));
        assert!(
            RawQuery::new("two\nlines").may_hold(b"{}"),
            "a line break: anywhere"
        );
        assert_eq!(q.overlap(), r#"say \"hi\""#.len() - 1);
        assert_eq!(RawQuery::new("x").overlap(), 1, "`\\u` is two bytes");
    }
}
