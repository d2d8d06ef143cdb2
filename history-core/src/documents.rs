//! The history for people: whole documents as data ([`Document`]: a message, or a tool
//! call with its result), in conversation order or newest first, filtered by role, window
//! and a [`Needle`], paged by the seq before which a page ends. The model's tools render
//! the same events into a 32 KiB answer (`tools`); a front end for people (the command
//! line) takes these instead and shapes them itself.
//!
//! What a document holds and which documents a search finds are the tools' rules: a
//! listed event (a paired result is shown with its call), the same roles by default, and a
//! match anywhere in the text the tools search (a call's name and input, its result).

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem;
use regex::{Regex, RegexBuilder};

use crate::pieces::{Literal, first_outside};
use crate::{Body, DEFAULT_ROLES, History, QueryError, Role, Seq};

/// Text to find: literal, case-sensitive unless `ignore_case`.
#[derive(Debug, Clone)]
pub struct Needle {
    text: String,
    /// Set for a case-insensitive needle (Unicode simple case folding).
    folded: Option<Regex>,
}

impl Needle {
    /// A needle for `text`; `None` when `text` is empty (nothing to find).
    ///
    /// ```
    /// use notesoup_history_core::Needle;
    ///
    /// let needle = Needle::new("Parse", true).unwrap();
    /// assert_eq!(needle.find_all("parse PARSE Ünparse"), vec![0..5, 6..11, 15..20]);
    /// assert!(Needle::new("", false).is_none());
    /// ```
    pub fn new(text: &str, ignore_case: bool) -> Option<Self> {
        if text.is_empty() {
            return None;
        }
        let folded = if ignore_case {
            // The escaped literal only: no pattern syntax reaches the engine.
            RegexBuilder::new(&regex::escape(text))
                .case_insensitive(true)
                .size_limit(folded_size_limit(text))
                .build()
                .ok()
        } else {
            None
        };
        Some(Self {
            text: text.to_owned(),
            folded,
        })
    }

    /// The text looked for.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether case is ignored.
    pub fn ignores_case(&self) -> bool {
        self.folded.is_some()
    }

    /// Whether `hay` holds the needle.
    pub fn is_in(&self, hay: &str) -> bool {
        match &self.folded {
            Some(re) => re.is_match(hay),
            None => memmem::find(hay.as_bytes(), self.text.as_bytes()).is_some(),
        }
    }

    /// Whether `hay` holds the needle outside `marks` (byte ranges of `hay`, ascending,
    /// apart): a match that overlaps one does not count ([`History::search_text`] says
    /// where a document's marks lie).
    pub(crate) fn is_in_outside(&self, hay: &str, marks: &[Range<usize>]) -> bool {
        if marks.is_empty() {
            return self.is_in(hay);
        }
        first_outside(hay, marks, |from| match &self.folded {
            Some(re) => re.find_at(hay, from).map(|m| m.range()),
            None => memmem::find(hay.as_bytes().get(from..)?, self.text.as_bytes())
                .map(|at| from + at..from + at + self.text.len()),
        })
        .is_some()
    }

    /// Every match in `hay`, left to right, not overlapping: byte ranges on char
    /// boundaries.
    pub fn find_all(&self, hay: &str) -> Vec<Range<usize>> {
        match &self.folded {
            Some(re) => re.find_iter(hay).map(|m| m.range()).collect(),
            None => memmem::find_iter(hay.as_bytes(), self.text.as_bytes())
                .map(|at| at..at + self.text.len())
                .collect(),
        }
    }
}

/// The compiled size a regex that finds `text` with case ignored is allowed: the engine's
/// default (10 MiB) refuses a long literal whose letters each have several cases (128 KiB
/// of Greek, one command-line argument, needs about 32 MiB), and a needle that could not be
/// built would be matched with case. So it grows with the text: 256 bytes a byte of it,
/// within 256 MiB (a text of more than 1 MiB, which no command line carries, may still be
/// refused).
pub fn folded_size_limit(text: &str) -> usize {
    text.len().saturating_mul(256).clamp(10 << 20, 256 << 20)
}

/// What to take from a history as documents.
#[derive(Debug, Clone, Default)]
pub struct DocQuery<'a> {
    /// Only documents that hold this.
    pub needle: Option<&'a Needle>,
    /// Only these roles (default: [`DEFAULT_ROLES`]).
    pub roles: Option<&'a [Role]>,
    /// Only this window: its id or its window part (`2`, `unknown:<id>`).
    pub window: Option<&'a str>,
    /// Only documents before the one with this seq in conversation order (the page
    /// before; a result's seq names its call's place).
    pub before: Option<Seq>,
    /// The most documents taken, the newest of those that qualify; `None`: all.
    pub limit: Option<usize>,
}

/// A tool call and its result, or a result whose call is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUse {
    /// The tool's name (`None`: the call is not in the history).
    pub name: Option<String>,
    /// The call's input as the harness recorded it (JSON text for the harnesses notesoup
    /// reads), when the call is known.
    pub input: Option<String>,
    /// The result, when one was recorded.
    pub result: Option<ToolResult>,
}

/// A tool's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The result's own seq.
    pub seq: Seq,
    /// Its visible text.
    pub text: String,
    /// The harness marked it as an error.
    pub is_error: bool,
}

/// One document: a message, attachment or notice, or a tool use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Its address (a tool use: the call's seq).
    pub seq: Seq,
    /// Who produced it.
    pub role: Role,
    /// The id of its window (`claude:<id>:2`).
    pub window: String,
    /// When it was recorded, in milliseconds since the Unix epoch, if the harness wrote a
    /// time notesoup can read.
    pub time: Option<u64>,
    /// Its visible text (empty for a tool use).
    pub text: String,
    /// The tool use, for a tool document.
    pub tool: Option<ToolUse>,
}

/// The documents of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocPage {
    /// The documents taken, in conversation order (oldest first).
    pub documents: Vec<Document>,
    /// How many documents qualify in all (before [`DocQuery::before`], if given).
    pub matched: usize,
    /// When older documents qualify that were not taken: the seq to give as
    /// [`DocQuery::before`] for the page before this one.
    pub before: Option<Seq>,
}

/// The documents of one query, decoded one at a time as they are taken: a [`DocPage`]
/// whose documents are not all held at once (a front end writes each as it comes, so a
/// whole session costs its decoded history and one document). Conversation order forward,
/// newest first from the back.
#[derive(Debug)]
pub struct DocStream<'h> {
    history: &'h History,
    /// The indices of the documents taken, in conversation order.
    taken: std::vec::IntoIter<usize>,
    matched: usize,
    before: Option<Seq>,
}

impl DocStream<'_> {
    /// How many documents qualify in all (before [`DocQuery::before`], if given).
    pub fn matched(&self) -> usize {
        self.matched
    }

    /// When older documents qualify that were not taken: the seq to give as
    /// [`DocQuery::before`] for the page before this one.
    pub fn before(&self) -> Option<Seq> {
        self.before
    }
}

impl Iterator for DocStream<'_> {
    type Item = Result<Document, QueryError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.taken.next().map(|index| self.history.document(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.taken.size_hint()
    }
}

impl DoubleEndedIterator for DocStream<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.taken
            .next_back()
            .map(|index| self.history.document(index))
    }
}

impl ExactSizeIterator for DocStream<'_> {}

impl History {
    /// The documents `query` asks for, newest last.
    ///
    /// # Errors
    /// A window or `before` seq the history does not hold, or a body that cannot be read.
    pub fn documents(&self, query: &DocQuery<'_>) -> Result<DocPage, QueryError> {
        let stream = self.document_stream(query)?;
        let (matched, before) = (stream.matched(), stream.before());
        Ok(DocPage {
            documents: stream.collect::<Result<_, _>>()?,
            matched,
            before,
        })
    }

    /// The documents `query` asks for, as [`History::documents`] takes them, each decoded
    /// only when the stream hands it on.
    ///
    /// # Errors
    /// A window or `before` seq the history does not hold, or a body a search cannot read
    /// (a body a document cannot read is that document's error).
    pub fn document_stream(&self, query: &DocQuery<'_>) -> Result<DocStream<'_>, QueryError> {
        let window = query.window.map(|w| self.resolve_window(w)).transpose()?;
        let end = match query.before {
            Some(seq) => self.cursor_position(&format!("s{seq}"))?,
            None => self.events().len(),
        };
        let roles = query.roles.unwrap_or(&DEFAULT_ROLES);
        let needle = query.needle;
        // What an index knows of the left-out bodies is for a case-sensitive literal.
        let literal = needle
            .filter(|n| !n.ignores_case())
            .map(|n| Literal::new(n.text()));
        let candidates = literal
            .as_ref()
            .map(|l| self.candidates(l.text))
            .unwrap_or_default();
        let mut taken = Vec::new();
        let mut matched = 0;
        let mut before = None;
        let mut scratch = String::new();
        let mut marks = Vec::new();
        for pos in (0..end).rev() {
            let index = self.at_position(pos);
            let event = self.event_at(index);
            if !self.listed(index) || !History::role_admits(Some(roles), event) {
                continue;
            }
            if window.as_ref().is_some_and(|w| *w != event.window) {
                continue;
            }
            if let Some(n) = needle {
                if self.elided_document(index)
                    && literal
                        .as_ref()
                        .is_some_and(|l| !self.may_match(index, l, &candidates))
                {
                    continue;
                }
                self.search_text(index, &mut scratch, &mut marks)?;
                if !n.is_in_outside(&scratch, &marks) {
                    continue;
                }
            }
            matched += 1;
            if query.limit.is_some_and(|limit| taken.len() >= limit) {
                if before.is_none() {
                    before = taken.last().map(|&i| self.event_at(i).seq);
                }
                continue;
            }
            taken.push(index);
        }
        taken.reverse();
        Ok(DocStream {
            history: self,
            taken: taken.into_iter(),
            matched,
            before,
        })
    }

    /// The whole document holding event `seq` (a tool result's is its call's, when the
    /// call is known).
    ///
    /// # Errors
    /// No event has this seq, or a body cannot be read.
    pub fn document_of_seq(&self, seq: Seq) -> Result<Document, QueryError> {
        let Some(index) = self.index_of(seq) else {
            let events = self.events();
            return Err(QueryError::SeqNotFound {
                seq,
                first: events.first().map_or(0, |e| e.seq),
                last: events.last().map_or(0, |e| e.seq),
            });
        };
        self.document(self.document_of(index))
    }

    /// The document at `index` (a listed event), bodies decoded.
    fn document(&self, index: usize) -> Result<Document, QueryError> {
        let event = self.event_at(index);
        let body = |i: usize| -> Result<Cow<'_, Body>, QueryError> {
            self.body(i).map_err(|reason| QueryError::Unreadable {
                seq: self.event_at(i).seq,
                reason,
            })
        };
        let result_of = |i: usize| -> Result<Option<ToolResult>, QueryError> {
            Ok(match &*body(i)? {
                Body::ToolResult { text, is_error, .. } => Some(ToolResult {
                    seq: self.event_at(i).seq,
                    text: text.clone(),
                    is_error: *is_error,
                }),
                _ => None,
            })
        };
        let (text, tool) = match &*body(index)? {
            Body::Text { text } => (text.clone(), None),
            Body::ToolCall { name, input, .. } => {
                let result = match self.partner_index(index) {
                    Some(r) => result_of(r)?,
                    None => None,
                };
                (
                    String::new(),
                    Some(ToolUse {
                        name: Some(name.clone()),
                        input: Some(input.clone()),
                        result,
                    }),
                )
            }
            Body::ToolResult { .. } => (
                String::new(),
                Some(ToolUse {
                    name: None,
                    input: None,
                    result: result_of(index)?,
                }),
            ),
        };
        Ok(Document {
            seq: event.seq,
            role: event.role,
            window: self.session().window_id(&event.window),
            time: event
                .timestamp
                .as_deref()
                .and_then(notesoup_window::parse_moment),
            text,
            tool,
        })
    }
}

#[cfg(test)]
mod tests;
