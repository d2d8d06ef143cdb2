//! A document's text, piece by piece: built into a string where an answer shows it or
//! searches it ([`History::document_text`]), or tested for a literal in place where only its
//! fixed parts are at hand ([`History::may_match`]), from the one source of its format,
//! [`History::document_pieces`].

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem::Finder;

use crate::history::{Contains, History};
use crate::model::Body;

/// The longest literal [`Joined`] looks for without building the text (its joins are kept
/// on the stack); a longer one is looked for in the text built.
const SPAN: usize = 64;

/// A literal a list or a search looks for: its text and its `memmem` finder, made once.
pub(crate) struct Literal<'q> {
    /// The literal.
    pub(crate) text: &'q str,
    /// Its finder (the leftmost match, as `str::find` gives it).
    pub(crate) finder: Finder<'q>,
}

impl<'q> Literal<'q> {
    pub(crate) fn new(text: &'q str) -> Self {
        Self {
            text,
            finder: Finder::new(text),
        }
    }

    /// The leftmost match in `doc` that overlaps none of `marks` ([`first_outside`]).
    pub(crate) fn find_outside(&self, doc: &str, marks: &[Range<usize>]) -> Option<Range<usize>> {
        first_outside(doc, marks, |from| {
            let at = from + self.finder.find(doc.as_bytes().get(from..)?)?;
            Some(at..at + self.text.len())
        })
    }
}

/// Whether a literal occurs in a text fed to it in pieces, in order, which is never built:
/// inside one piece, or across the joins of several (a match that ends in a piece and began
/// before it lies in the last `len - 1` bytes fed before it and the first `len - 1` of it).
pub(crate) struct Joined<'f, 'q> {
    finder: &'f Finder<'q>,
    /// The last `needle.len() - 1` bytes fed (all of them while fewer were fed).
    tail: [u8; SPAN],
    kept: usize,
    found: bool,
}

impl<'f, 'q> Joined<'f, 'q> {
    /// `None` when the literal is empty or longer than [`SPAN`] bytes.
    pub(crate) fn new(finder: &'f Finder<'q>) -> Option<Self> {
        (1..=SPAN).contains(&finder.needle().len()).then_some(Self {
            finder,
            tail: [0; SPAN],
            kept: 0,
            found: false,
        })
    }

    /// The next piece of the text.
    pub(crate) fn feed(&mut self, piece: &[u8]) {
        if self.found || piece.is_empty() {
            return;
        }
        if self.finder.find(piece).is_some() {
            self.found = true;
            return;
        }
        let keep = self.finder.needle().len() - 1;
        if keep == 0 {
            return;
        }
        let head = &piece[..piece.len().min(keep)];
        if self.kept > 0 {
            let mut joint = [0; 2 * SPAN];
            joint[..self.kept].copy_from_slice(&self.tail[..self.kept]);
            joint[self.kept..self.kept + head.len()].copy_from_slice(head);
            if self.finder.find(&joint[..self.kept + head.len()]).is_some() {
                self.found = true;
                return;
            }
        }
        if piece.len() >= keep {
            self.tail[..keep].copy_from_slice(&piece[piece.len() - keep..]);
            self.kept = keep;
        } else {
            // The old tail's last bytes that stay among the last `keep`, then the piece.
            let old = (keep - piece.len()).min(self.kept);
            self.tail.copy_within(self.kept - old..self.kept, 0);
            self.tail[old..old + piece.len()].copy_from_slice(piece);
            self.kept = old + piece.len();
        }
    }

    /// A break in the text fed (a document's mark): no match runs across it.
    pub(crate) fn gap(&mut self) {
        self.kept = 0;
    }

    /// Whether the literal occurs in what was fed.
    pub(crate) fn found(&self) -> bool {
        self.found
    }
}

/// `n` in decimal, as `Display` writes it, in `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + u8::try_from(n % 10).unwrap_or_default();
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

/// The mark of a result the harness flagged as an error.
fn error_mark(is_error: bool) -> &'static str {
    if is_error { " (error)" } else { "" }
}

/// The first match `find` gives in `text` from a byte offset on (as `find(from)` returns it:
/// its range in `text`) that overlaps none of `marks` (ascending, apart): a match that
/// overlaps one is passed over and the search goes on from the character after its start.
pub(crate) fn first_outside(
    text: &str,
    marks: &[Range<usize>],
    mut find: impl FnMut(usize) -> Option<Range<usize>>,
) -> Option<Range<usize>> {
    let mut from = 0;
    loop {
        let hit = find(from)?;
        let overlaps = marks
            .iter()
            .any(|mark| mark.start < hit.end && hit.start < mark.end);
        if !overlaps {
            return Some(hit);
        }
        from = hit.start + text.get(hit.start..)?.chars().next()?.len_utf8();
    }
}

/// Whether a match of `query` may run from a call named `name` across the space that follows
/// it into its input (`query`'s text before one of its spaces ends the name).
pub(crate) fn runs_into_input(name: &str, query: &str) -> bool {
    query
        .match_indices(' ')
        .any(|(at, _)| name.ends_with(&query[..at]))
}

impl History {
    /// The document at `index` (a call with its result) built from the bodies `body` gives,
    /// handed to `each` piece by piece: its text is their concatenation. The one source of
    /// a document's format. A piece is what the harness recorded (a name, the space after it,
    /// an input, a text) or, when `each` is told `true`, a **mark** the document adds around
    /// them (`--- result #N (error):`, `--- pending: …`, `(result of an unknown call)`, the
    /// line breaks around them), which a search never matches ([`first_outside`]).
    pub(crate) fn document_pieces<'a, E>(
        &'a self,
        index: usize,
        body: impl Fn(usize) -> Result<Cow<'a, Body>, E>,
        mut each: impl FnMut(&str, bool),
    ) -> Result<(), E> {
        match &*body(index)? {
            Body::Text { text } => each(text, false),
            Body::ToolCall { name, input, .. } => {
                each(name, false);
                each(" ", false);
                each(input, false);
                if let Some(result) = self.partner_index(index) {
                    if let Body::ToolResult { text, is_error, .. } = &*body(result)? {
                        let mut digits = [0; 20];
                        each("\n--- result #", true);
                        each(decimal(self.event_at(result).seq, &mut digits), true);
                        each(error_mark(*is_error), true);
                        each(":\n", true);
                        each(text, false);
                    }
                } else {
                    each("\n--- pending: no result was recorded", true);
                }
            }
            Body::ToolResult { text, is_error, .. } => {
                each("(result of an unknown call)", true);
                each(error_mark(*is_error), true);
                each("\n", true);
                each(text, false);
            }
        }
        Ok(())
    }

    /// The document at `index` with its left-out bodies as their placeholders (its fixed
    /// parts, and its whole bodies), handed to `each` piece by piece, each with whether it
    /// is a mark ([`History::document_pieces`]).
    pub(crate) fn fixed_pieces(&self, index: usize, each: impl FnMut(&str, bool)) {
        // Bodies as they are never fail.
        let _ = self.document_pieces(
            index,
            |i| Ok::<_, ()>(Cow::Borrowed(&self.event_at(i).body)),
            each,
        );
    }

    /// Whether the literal occurs in [`History::fixed_pieces`] of `index` outside its marks:
    /// what formatting them and [`Literal::find_outside`] would say, without formatting them
    /// (a literal longer than [`SPAN`] bytes is looked for in the text built).
    pub(crate) fn fixed_contains(&self, index: usize, literal: &Literal<'_>) -> bool {
        if let Some(mut joined) = Joined::new(&literal.finder) {
            self.fixed_pieces(index, |piece, mark| {
                if mark {
                    joined.gap();
                } else {
                    joined.feed(piece.as_bytes());
                }
            });
            return joined.found();
        }
        let (mut text, mut marks) = (String::new(), Vec::new());
        self.fixed_pieces(index, |piece, mark| {
            if mark {
                marks.push(text.len()..text.len() + piece.len());
            }
            text.push_str(piece);
        });
        literal.find_outside(&text, &marks).is_some()
    }

    /// False only when the document at `index`, whose bodies are partly left out, cannot
    /// hold the literal (`candidates`: [`History::candidates`] of it). A match the
    /// document's fixed parts and whole bodies do not show must overlap a left-out text or
    /// input: lie inside it (the source decides), run from a call's name across the space
    /// into its input, or cross a line break of the fixed parts (a query with `\n`: always
    /// decoded).
    pub(crate) fn may_match(
        &self,
        index: usize,
        literal: &Literal<'_>,
        candidates: &[Option<Contains>],
    ) -> bool {
        let source = |i: usize| candidates.get(i).copied().flatten().is_some();
        let query = literal.text;
        if query.contains('\n') {
            return true;
        }
        if let Body::Text { .. } = &self.event_at(index).body {
            // Its document is its text alone, and that is left out.
            return source(index);
        }
        let call = matches!(self.event_at(index).body, Body::ToolCall { .. });
        if source(index) || call && self.partner_index(index).is_some_and(source) {
            return true;
        }
        if self.fixed_contains(index, literal) {
            return true;
        }
        match &self.event_at(index).body {
            Body::ToolCall { name, .. } => {
                self.elided(index).is_some() && runs_into_input(name, query)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
