//! A literal as the raw bytes of session files are searched for it ([`RawNeedle`]), and
//! which literals a Pi or Codex file's raw bytes judge ([`judged`]): the one rule the
//! prefilter of a search of many sessions and a search of the bodies left in their files
//! follow.

use notesoup_history_claude::{FoldedQuery, RawQuery};

/// The characters the decoders and the documents write between the JSON strings of a Pi or
/// Codex file's texts (JSON's punctuation, the joins, Pi's `!`, the fixed parts' own).
const ADDED: [char; 13] = [
    '"', '\\', ',', ':', '[', ']', '{', '}', ' ', '!', '#', '(', ')',
];
/// The characters of a number as JSON writes it.
const NUMBER: &str = "0123456789.eE+-";
/// The words of a document's fixed parts, between characters in [`ADDED`] or line breaks.
const FIXED_WORDS: [&str; 11] = [
    "---", "result", "error", "of", "an", "unknown", "call", "pending", "no", "was", "recorded",
];

/// A literal as [`Scan::may_hold`](crate::Scan::may_hold) looks for it in raw bytes: as it
/// is, or with case ignored (the search's `-i`).
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant, reason = "one per search")]
pub enum RawNeedle {
    /// Case-sensitive.
    Exact(RawQuery),
    /// Case ignored (Unicode simple case folding).
    Folded(FoldedQuery),
}

impl RawNeedle {
    /// The raw search for `text`, with case ignored when `ignore_case`.
    pub fn new(text: &str, ignore_case: bool) -> Self {
        if ignore_case {
            Self::Folded(FoldedQuery::new(text))
        } else {
            Self::Exact(RawQuery::new(text))
        }
    }

    /// The literal.
    pub fn query(&self) -> &str {
        match self {
            Self::Exact(q) => q.query(),
            Self::Folded(q) => q.query(),
        }
    }

    pub(crate) fn may_hold(&self, bytes: &[u8]) -> bool {
        match self {
            Self::Exact(q) => q.may_hold(bytes),
            Self::Folded(q) => q.may_hold(bytes),
        }
    }

    pub(crate) fn overlap(&self) -> usize {
        match self {
            Self::Exact(q) => q.overlap(),
            Self::Folded(q) => q.overlap(),
        }
    }

    /// Whether `word` holds the literal (in any case, when case is ignored).
    fn in_word(&self, word: &str) -> bool {
        match self {
            Self::Exact(q) => word.contains(q.query()),
            Self::Folded(q) => q.found_in(word),
        }
    }
}

/// True when a Pi or Codex session's documents can hold `needle` only inside one JSON
/// string of its files (see the module's docs), so that its files' raw bytes judge it.
/// Case folding maps letters to letters only, so the characters tested are the literal's
/// own; a fixed word is tested in any case when case is ignored.
pub(crate) fn judged(needle: &RawNeedle) -> bool {
    let query = needle.query();
    !query
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || ADDED.contains(&c))
        && !query.chars().all(|c| NUMBER.contains(c))
        && !FIXED_WORDS.iter().any(|word| needle.in_word(word))
}
