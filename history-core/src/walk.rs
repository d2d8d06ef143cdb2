//! Which documents a list for a literal visits in a history with left-out bodies
//! ([`Walk`]): the ones the list would not pass over unread, found without visiting the
//! others.
//!
//! A list visits every position, and passes over a document with a left-out body unless
//! [`History::may_match`] says it may hold the literal: when the source names it (or the
//! call's result), when the document's fixed text (placeholders as they are, whole bodies
//! whole) holds the literal outside its marks (each a line break here), or when the literal may run from a call's name into its
//! left-out input. So a list for a literal without a line break need visit only the
//! documents with no left-out body, the ones the source names, and the ones whose fixed
//! text holds it, which one `memmem` pass over all those texts joined by line breaks
//! finds (a literal without one matches inside one text); and every position when the
//! literal may run from a name into an input. The visited ones go through the same steps
//! as before, so the answer is the same.

use std::collections::HashSet;

use crate::history::History;
use crate::model::Body;
use crate::pieces::{Literal, runs_into_input};
use crate::visits::{ENTRY_MAX, Walk};

impl Walk {
    /// The walk of `history`.
    pub(crate) fn new(history: &History) -> Self {
        let mut walk = Walk::default();
        let mut names = HashSet::new();
        for index in 0..history.events().len() {
            if history.document_of(index) != index || !history.listed(index) {
                continue;
            }
            if !history.elided_document(index) {
                walk.always.push(history.position(index));
                continue;
            }
            match &history.event_at(index).body {
                // Its document is its text alone, and that is left out.
                Body::Text { .. } => continue,
                Body::ToolCall { name, .. } => {
                    if history.elided(index).is_some() && names.insert(name.as_str()) {
                        walk.names.push(index);
                    }
                }
                Body::ToolResult { .. } => {}
            }
            let start = walk.fixed.len();
            // A mark is a line break here: no literal without one matches across it, and
            // a literal with one visits every position.
            history.fixed_pieces(index, |piece, mark| {
                walk.fixed.push_str(if mark { "\n" } else { piece });
            });
            if walk.fixed.len() - start > ENTRY_MAX {
                walk.fixed.truncate(start);
                walk.always.push(history.position(index));
            } else {
                walk.fixed.push('\n');
                walk.entries.push((start, index));
            }
        }
        walk.always.sort_unstable();
        walk
    }
}

impl History {
    /// Which documents a list for a literal must visit ([`Walk`]), made on first use;
    /// `None` when no body is left out (every document is searched in memory).
    pub(crate) fn walk(&self) -> Option<&Walk> {
        Some(self.walk_cell()?.get_or_init(|| Walk::new(self)))
    }

    /// The positions, ascending, a list for `literal` visits when it is bounded: the
    /// documents of the events `named` (the ones the source names), the ones whose fixed
    /// text holds it and the ones every list visits ([`Walk`]). `None`: every position
    /// (nothing is left out, the literal holds a line break or may run from a call's name
    /// into its left-out input, or more than a quarter of the events would be visited).
    pub(crate) fn bounded_positions(
        &self,
        literal: &Literal<'_>,
        named: &[usize],
    ) -> Option<Vec<usize>> {
        if literal.text.contains('\n') {
            return None;
        }
        let walk = self.walk()?;
        // Bounding pays only when it leaves most positions out (sorting them costs).
        if (walk.always.len() + named.len()) * 4 > self.events().len() {
            return None;
        }
        let name_of = |index: usize| match &self.event_at(index).body {
            Body::ToolCall { name, .. } => name.as_str(),
            _ => "",
        };
        if walk
            .names
            .iter()
            .any(|&index| runs_into_input(name_of(index), literal.text))
        {
            return None;
        }
        let mut out = walk.always.clone();
        let mut past = 0;
        for at in literal.finder.find_iter(walk.fixed.as_bytes()) {
            if at < past {
                continue;
            }
            let Some(entry) = walk
                .entries
                .partition_point(|&(start, _)| start <= at)
                .checked_sub(1)
            else {
                continue;
            };
            let (_, index) = walk.entries[entry];
            out.push(self.position(index));
            // The next match that counts starts in a later text.
            past = walk
                .entries
                .get(entry + 1)
                .map_or(usize::MAX, |&(start, _)| start);
        }
        out.extend(named.iter().map(|&i| self.position(self.document_of(i))));
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}
