//! A literal as the raw bytes of session files are searched for it ([`RawNeedle`]), and
//! which literals a Pi or Codex file's raw bytes judge ([`judged`]): the one rule the
//! prefilter of a search of many sessions and a search of the bodies left in their files
//! follow.

use notesoup_history_claude::{FoldedQuery, RawQuery};

/// The characters the decoders and the documents write between the JSON strings of a Pi or
/// Codex file's texts (JSON's punctuation, the space after a call's name, Pi's `!`). A
/// document's marks (`--- result #N:`) are never matched, so their characters are not here.
const ADDED: [char; 10] = ['"', '\\', ',', ':', '[', ']', '{', '}', ' ', '!'];
/// The characters of a number as JSON writes it.
const NUMBER: &str = "0123456789.eE+-";

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
}

/// True when a Pi or Codex session's documents can hold `needle` only inside one JSON
/// string of its files (see the module's docs), so that its files' raw bytes judge it.
/// Case folding maps letters to letters only, so the characters tested are the literal's
/// own.
pub(crate) fn judged(needle: &RawNeedle) -> bool {
    let query = needle.query();
    !query
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || ADDED.contains(&c))
        && !query.chars().all(|c| NUMBER.contains(c))
}

/// What a Claude transcript's raw bytes must hold for one of its documents to hold
/// `needle`: one of these sets of literals, each literal somewhere in the file; `None` when
/// its raw bytes cannot judge it (a literal with a line break, which may join two of a row's
/// blocks). Claude writes a call's name and its input (raw JSON) as they are shown, so the
/// one join a document adds around them is the space between the two: a match across it
/// is the part before the literal's first space (the end of a name, which has none) and
/// the part after it (the start of an input: empty, or beginning with the `{` Claude Code
/// writes every input with), each in the file on its own: for `Bash {"command"`, the whole
/// or both of `Bash` and `{"command"`. Any other literal is looked for whole, in one pass.
pub(crate) fn claude_needs(needle: &RawNeedle) -> Option<Vec<Vec<RawNeedle>>> {
    let query = needle.query();
    if query.contains('\n') {
        return None;
    }
    let ignore_case = matches!(needle, RawNeedle::Folded(_));
    let mut needs = vec![vec![needle.clone()]];
    if let Some(at) = query.find(' ')
        && (query[at + 1..].is_empty() || query[at + 1..].starts_with('{'))
    {
        let parts = [&query[..at], &query[at + 1..]]
            .into_iter()
            .filter(|part| !part.is_empty())
            .map(|part| RawNeedle::new(part, ignore_case))
            .collect();
        needs.push(parts);
    }
    Some(needs)
}
