//! Which raw bytes may hold a literal when case is ignored ([`FoldedQuery`]): the twin of
//! [`RawQuery::may_hold`](crate::RawQuery::may_hold) for a case-insensitive search, which
//! passes over files before any decode as the exact one does.
//!
//! A decoded text holds the literal with case ignored (Unicode simple case folding, as
//! `notesoup_history_core::Needle` matches it) only if the raw bytes hold it in some case
//! written as it is, or its JSON-escaped form in some case, or an escape that may hide it
//! (`\u`, and `\/` for a literal with `/`): the exact search's three tests, each with case
//! ignored. Case folding maps a letter to a letter, so it never makes or unmakes one of
//! JSON's escapes; a case variant of an escape (`\N` for `\n`) only makes a file look as if
//! it may hold the literal, never the other way round.
//!
//! ```
//! use notesoup_history_claude::FoldedQuery;
//!
//! let query = FoldedQuery::new("todo");
//! assert!(query.may_hold(br#"{"text":"a ToDo here"}"#));
//! assert!(!query.may_hold(br#"{"text":"nothing to do"}"#));
//! assert!(FoldedQuery::new("k").may_hold("KELVIN \u{212A}".as_bytes()));
//! ```

use memchr::memmem::Finder;
use regex::bytes::{Regex, RegexBuilder};

use notesoup_history_core::folded_size_limit;

use crate::short_escaped;

/// A literal, ready to be looked for in raw bytes with case ignored (see the module's docs).
#[derive(Debug, Clone)]
pub struct FoldedQuery {
    query: String,
    /// The literal and its JSON-escaped form, in any case; `None` when the pattern is too
    /// large for the engine, and then every file may hold the literal.
    forms: Option<Regex>,
    /// `\u`, and (for a literal with `/`) `\/`.
    escapes: [Option<Finder<'static>>; 2],
    /// How many bytes consecutive windows must share: a match is at most four bytes a
    /// character (folding maps one character to one, of any length in UTF-8).
    overlap: usize,
}

impl FoldedQuery {
    /// The case-insensitive raw search for `query`.
    pub fn new(query: &str) -> Self {
        let escaped = short_escaped(query);
        let mut pattern = regex::escape(query);
        if escaped != query {
            pattern.push('|');
            pattern.push_str(&regex::escape(&escaped));
        }
        Self {
            forms: RegexBuilder::new(&pattern)
                .case_insensitive(true)
                .size_limit(folded_size_limit(&pattern))
                .build()
                .ok(),
            escapes: [
                Some(Finder::new(b"\\u").into_owned()),
                query
                    .contains('/')
                    .then(|| Finder::new(b"\\/").into_owned()),
            ],
            overlap: (4 * escaped.chars().count()).max(2) - 1,
            query: query.to_owned(),
        }
    }

    /// The literal.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// False only when no text whose raw bytes are `bytes` can hold the literal with case
    /// ignored (see the module's docs). A whole file read in windows must overlap them by
    /// [`FoldedQuery::overlap`] bytes.
    pub fn may_hold(&self, bytes: &[u8]) -> bool {
        self.query.contains('\n')
            || self.forms.as_ref().is_none_or(|re| re.is_match(bytes))
            || self
                .escapes
                .iter()
                .flatten()
                .any(|f| f.find(bytes).is_some())
    }

    /// True when `text` holds the literal with case ignored (or the pattern was too large
    /// to say).
    pub fn found_in(&self, text: &str) -> bool {
        self.forms
            .as_ref()
            .is_none_or(|re| re.is_match(text.as_bytes()))
    }

    /// How many bytes consecutive windows of one file must share so that
    /// [`FoldedQuery::may_hold`] misses no match split between them.
    pub fn overlap(&self) -> usize {
        self.overlap
    }
}

#[cfg(test)]
mod tests {
    use super::FoldedQuery;

    #[test]
    fn a_file_may_hold_the_literal_in_any_case_escaped_or_behind_an_escape() {
        let q = FoldedQuery::new("Say \"Hi\"");
        assert!(!q.may_hold(br#"{"a":"nothing here, say hi"}"#));
        assert!(q.may_hold(br#"{"a":"she said: SAY \"hI\""}"#));
        assert!(q.may_hold(br#"{"a":"\u0041"}"#), "an escape may hide it");
        assert!(!FoldedQuery::new("A/b").may_hold(br#"{"a":"a b"}"#));
        assert!(FoldedQuery::new("A/b").may_hold(br#"{"a":"a\/B"}"#));
        assert!(FoldedQuery::new("two\nlines").may_hold(b"{}"));
        // Simple case folding beyond ASCII, both ways, as the documents' needle folds.
        assert!(FoldedQuery::new("\u{212A}elvin").may_hold(b"kelvin"));
        assert!(FoldedQuery::new("stra\u{df}e").may_hold("STRA\u{1e9e}E".as_bytes()));
        assert!(!FoldedQuery::new("strasse").may_hold("stra\u{df}e".as_bytes()));
        assert!(FoldedQuery::new("RESULT").found_in("--- result #3"));
        // A long literal whose letters each have several cases is still looked for (with
        // no pattern built, every file would be read as one that may hold it).
        let long = FoldedQuery::new(&"\u{3b1}\u{3b2}".repeat(32_000));
        assert!(!long.may_hold(b"{}"));
    }

    #[test]
    fn windows_overlap_by_the_longest_match_less_one() {
        // "k" may be the three bytes of the Kelvin sign; one character: 4 - 1.
        assert_eq!(FoldedQuery::new("k").overlap(), 3);
        assert_eq!(FoldedQuery::new("ab").overlap(), 7);
        // The escaped form is the longer: `\"` is two characters.
        assert_eq!(FoldedQuery::new("\"").overlap(), 7);
        // A match cut by a window's end: history-store's `may_hold_finds_a_literal_across_windows`.
    }
}
