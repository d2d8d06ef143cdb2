//! [`History`]: a decoded transcript indexed for the two tools: tool pairing, presentation
//! order, lookup by seq.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::hash::WordHashBuilder;
use crate::model::{Body, Event, Role, Seq, SessionRef, Transcript, Window};
use crate::seek::partition_from;
use crate::visits::Walk;

/// Why a [`Transcript`] cannot be indexed (a decoder bug, never user input).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// Events must come in strictly ascending seq order.
    #[error("event seq {seq} follows seq {previous}: events must be in ascending seq order")]
    SeqOrder {
        /// The offending seq.
        seq: Seq,
        /// The seq before it.
        previous: Seq,
    },
    /// Seq 0 is not an address.
    #[error("event seq 0 is not an address: seqs start at 1")]
    SeqZero,
    /// [`History::with_bodies`] needs one flag per event.
    #[error("{flags} elided-body flags for {events} events")]
    Elided {
        /// Flags given.
        flags: usize,
        /// Events in the transcript.
        events: usize,
    },
}

/// Where the bodies a decoder left out are: a [`History`] made by
/// [`History::with_bodies`] asks it for the bodies an answer shows, and, for a list that
/// searches for a literal, which bodies may hold it, so that search decodes only what can
/// match. A source may have been read for one literal (a reader may look for it while it
/// reads) and still answer for any other: one history serves many searches.
pub trait BodySource: Send + Sync {
    /// The whole body of the event `seq` (its transcript body is a placeholder). `Err` is
    /// the reason it cannot be had (the file changed under the index, say).
    fn body(&self, seq: Seq) -> Result<Body, String>;

    /// The elided events whose texts (visible text, a call's input, a result's text) may
    /// hold the literal `query`, in any order, each with whether it surely does
    /// ([`Contains::Surely`]: a list then counts it without asking for its body): every
    /// other elided event's texts do not. `None`: any of them may. Asked once per list.
    fn may_contain(&self, query: &str) -> Option<Vec<(Seq, Contains)>>;
}

/// What a [`BodySource`] knows of an elided body that may hold a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contains {
    /// It may: only the body itself can say.
    Maybe,
    /// It does (its text or input holds the query).
    Surely,
}

/// The bodies a [`History`] was made without.
#[derive(Clone)]
struct Elided {
    /// For each event index: `None` when its body is whole; `Some(blank)` when it is a
    /// placeholder (`blank`: a text that is blank).
    which: Vec<Option<bool>>,
    source: Arc<dyn BodySource>,
    /// Which documents a list for a literal must visit, made by the first list that asks.
    walk: OnceLock<Walk>,
}

impl std::fmt::Debug for Elided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elided")
            .field("count", &self.which.iter().filter(|e| e.is_some()).count())
            .finish_non_exhaustive()
    }
}

/// A presentation order other than seq order.
#[derive(Debug, Clone)]
struct Reordered {
    /// Event indexes in presentation order.
    order: Vec<usize>,
    /// For each event index: its position in `order`.
    position: Vec<usize>,
}

/// A transcript ready to query: events by seq, calls paired with results, and the
/// presentation order (numbered windows by ordinal, then unknown segments; seq order
/// inside each).
#[derive(Debug, Clone)]
pub struct History {
    transcript: Transcript,
    /// For each event index: the index of its paired call or result, if any.
    partner: Vec<Option<usize>>,
    /// The presentation order when it is not seq order (`None`: each event index is its
    /// own position, the usual case).
    reordered: Option<Reordered>,
    /// Bodies left out of `transcript`, and where they are.
    elided: Option<Elided>,
}

impl History {
    /// Indexes `transcript`. Pairing runs in ascending seq (append) order: a result pairs
    /// with the latest earlier call of the same id that has no result yet; a call without
    /// one stays pending.
    pub fn new(transcript: Transcript) -> Result<Self, HistoryError> {
        let events = &transcript.events;
        let mut partner = vec![None; events.len()];
        // The open calls of each id form a stack, kept as links (no allocation per id):
        // `top` names an id's latest open call, `below` the call opened before each one
        // that was opened while another call of its id was (rare: ids are unique).
        let mut top: HashMap<&str, usize, WordHashBuilder> = HashMap::default();
        let mut below: HashMap<usize, usize, WordHashBuilder> = HashMap::default();
        // Unknown segments follow numbered windows, in the order their first event was
        // appended (no chronology is claimed between them): each missing id's first seq.
        let mut first_seq: HashMap<&str, Seq, WordHashBuilder> = HashMap::default();
        // One pass checks the seqs, pairs calls with results and tells whether the events
        // are already in presentation order (the usual case: then nothing is sorted).
        let mut previous = 0;
        let mut last_key = (0, 0, 0);
        let mut sorted = true;
        for (index, event) in events.iter().enumerate() {
            if event.seq == 0 {
                return Err(HistoryError::SeqZero);
            }
            if event.seq <= previous {
                return Err(HistoryError::SeqOrder {
                    seq: event.seq,
                    previous,
                });
            }
            previous = event.seq;
            match &event.body {
                Body::ToolCall { id, .. } => {
                    if let Some(open) = top.insert(id, index) {
                        below.insert(index, open);
                    }
                }
                Body::ToolResult { id, .. } => {
                    if let Some(call) = top.remove(id.as_str()) {
                        if let Some(previous) = below.remove(&call) {
                            top.insert(id, previous);
                        }
                        partner[index] = Some(call);
                        partner[call] = Some(index);
                    }
                }
                Body::Text { .. } => {}
            }
            let key = match &event.window {
                Window::Numbered(n) => (0, *n, event.seq),
                Window::Unknown { missing } => {
                    (1, *first_seq.entry(missing).or_insert(event.seq), event.seq)
                }
            };
            sorted &= key >= last_key;
            last_key = key;
        }
        let reordered = if sorted {
            None
        } else {
            // Each event's key once (a missing id's first seq is known by now).
            let keys: Vec<(u8, Seq, Seq)> = events
                .iter()
                .map(|event| match &event.window {
                    Window::Numbered(n) => (0, *n, event.seq),
                    Window::Unknown { missing } => (1, first_seq[missing.as_str()], event.seq),
                })
                .collect();
            let mut order: Vec<usize> = (0..events.len()).collect();
            order.sort_by_key(|&index| keys[index]);
            let mut position = vec![0; events.len()];
            for (pos, &index) in order.iter().enumerate() {
                position[index] = pos;
            }
            Some(Reordered { order, position })
        };
        Ok(Self {
            transcript,
            partner,
            reordered,
            elided: None,
        })
    }

    /// [`History::new`] of a transcript whose bodies are placeholders where `elided` says
    /// (one entry per event: `None` for a whole body, `Some(blank)` for a placeholder of
    /// the same kind, with the ids, names and error flag pairing needs, and `blank` true
    /// for a text that is blank); `source` gives the whole bodies. Answers are the ones the
    /// whole transcript gives: a list decodes only the bodies that may hold its query (and
    /// the ones it shows), a read the ones it shows.
    pub fn with_bodies(
        transcript: Transcript,
        elided: Vec<Option<bool>>,
        source: Arc<dyn BodySource>,
    ) -> Result<Self, HistoryError> {
        if elided.len() != transcript.events.len() {
            return Err(HistoryError::Elided {
                flags: elided.len(),
                events: transcript.events.len(),
            });
        }
        let mut history = Self::new(transcript)?;
        if elided.iter().any(Option::is_some) {
            history.elided = Some(Elided {
                which: elided,
                source,
                walk: OnceLock::new(),
            });
        }
        Ok(history)
    }

    /// `Some(blank)` when the body of the event at `index` is a placeholder.
    pub(crate) fn elided(&self, index: usize) -> Option<bool> {
        self.elided.as_ref().and_then(|e| e.which[index])
    }

    /// The whole body of the event at `index` (from the source when elided).
    pub(crate) fn body(&self, index: usize) -> Result<std::borrow::Cow<'_, Body>, String> {
        let event = &self.transcript.events[index];
        match (&self.elided, self.elided(index)) {
            (Some(elided), Some(_)) => elided.source.body(event.seq).map(std::borrow::Cow::Owned),
            _ => Ok(std::borrow::Cow::Borrowed(&event.body)),
        }
    }

    /// For each event index, what the source says of its body and `query` (`None`: it
    /// does not hold it, or it is whole); empty when nothing is elided.
    pub(crate) fn candidates(&self, query: &str) -> Vec<Option<Contains>> {
        self.candidates_named(query).0
    }

    /// [`History::candidates`], and the indexes of the events it names when the source
    /// named them (`None`: every elided event may hold `query`, or nothing is elided).
    pub(crate) fn candidates_named(
        &self,
        query: &str,
    ) -> (Vec<Option<Contains>>, Option<Vec<usize>>) {
        let Some(elided) = &self.elided else {
            return (Vec::new(), None);
        };
        match elided.source.may_contain(query) {
            None => (
                elided
                    .which
                    .iter()
                    .map(|e| e.map(|_| Contains::Maybe))
                    .collect(),
                None,
            ),
            Some(seqs) => {
                let mut out = vec![None; self.transcript.events.len()];
                let mut named = Vec::with_capacity(seqs.len());
                // The seqs come in ascending order from a source that walks its rows: each
                // is looked for from the place of the one before.
                let mut from = 0;
                for (seq, contains) in seqs {
                    if let Some(index) = self.index_from(seq, from) {
                        from = index;
                        if elided.which[index].is_some() {
                            out[index] = Some(contains);
                            named.push(index);
                        }
                    }
                }
                (out, Some(named))
            }
        }
    }

    /// Where the history with left-out bodies keeps which documents a list for a literal
    /// visits (`walk.rs` makes it on first use); `None` when no body is left out.
    pub(crate) fn walk_cell(&self) -> Option<&OnceLock<Walk>> {
        self.elided.as_ref().map(|elided| &elided.walk)
    }

    /// The session.
    pub fn session(&self) -> &SessionRef {
        &self.transcript.session
    }

    /// The selected events in seq order (for a history made by [`History::with_bodies`],
    /// elided bodies are placeholders here).
    pub fn events(&self) -> &[Event] {
        &self.transcript.events
    }

    /// Ancestors the selection needs but the transcript lacks.
    pub fn missing(&self) -> &[String] {
        &self.transcript.missing
    }

    /// The head's window.
    pub fn head_window(&self) -> &Window {
        &self.transcript.head_window
    }

    /// The head's window id, e.g. `claude:6e9d…:2`.
    pub fn head_window_id(&self) -> String {
        self.transcript
            .session
            .window_id(&self.transcript.head_window)
    }

    /// Every window of the selection, in presentation order.
    pub fn windows(&self) -> Vec<&Window> {
        let mut out: Vec<&Window> = Vec::new();
        for pos in 0..self.transcript.events.len() {
            let window = &self.transcript.events[self.at_position(pos)].window;
            if out.last() != Some(&window) {
                out.push(window);
            }
        }
        out
    }

    /// The event with this seq, if selected.
    pub fn event(&self, seq: Seq) -> Option<&Event> {
        self.index_of(seq)
            .map(|index| &self.transcript.events[index])
    }

    /// For a tool call, its result; for a tool result, its call.
    pub fn partner(&self, seq: Seq) -> Option<&Event> {
        let index = self.index_of(seq)?;
        self.partner[index].map(|other| &self.transcript.events[other])
    }

    pub(crate) fn index_of(&self, seq: Seq) -> Option<usize> {
        self.transcript
            .events
            .binary_search_by_key(&seq, |event| event.seq)
            .ok()
    }

    /// [`History::index_of`], searched from the event at `from` on when `seq` is not
    /// before it: first where it is when no seq between is missing (seqs ascend by one an
    /// event but across the rows a selection leaves out), else by [`partition_from`] (a
    /// few probes near `from` for a seq near it).
    fn index_from(&self, seq: Seq, from: usize) -> Option<usize> {
        let events = &self.transcript.events;
        let guess = events
            .get(from)
            .and_then(|e| seq.checked_sub(e.seq))
            .and_then(|ahead| usize::try_from(ahead).ok())
            .and_then(|ahead| from.checked_add(ahead));
        if let Some(guess) = guess
            && events.get(guess).is_some_and(|e| e.seq == seq)
        {
            return Some(guess);
        }
        let at = partition_from(events, from, |event| event.seq < seq);
        events.get(at).filter(|event| event.seq == seq).map(|_| at)
    }

    pub(crate) fn event_at(&self, index: usize) -> &Event {
        &self.transcript.events[index]
    }

    pub(crate) fn partner_index(&self, index: usize) -> Option<usize> {
        self.partner[index]
    }

    /// The index of the event at position `pos` of the presentation order.
    pub(crate) fn at_position(&self, pos: usize) -> usize {
        self.reordered.as_ref().map_or(pos, |r| r.order[pos])
    }

    /// The position of the event at `index` in the presentation order.
    pub(crate) fn position(&self, index: usize) -> usize {
        self.reordered.as_ref().map_or(index, |r| r.position[index])
    }

    /// The index of the event that documents `index`: a paired result is shown with its
    /// call.
    pub(crate) fn document_of(&self, index: usize) -> usize {
        match (&self.transcript.events[index].body, self.partner[index]) {
            (Body::ToolResult { .. }, Some(call)) => call,
            _ => index,
        }
    }

    /// True when the event appears as its own line in lists: not a paired result, and
    /// not an empty envelope (tool calls always do).
    pub(crate) fn listed(&self, index: usize) -> bool {
        let event = &self.transcript.events[index];
        match &event.body {
            Body::Text { text } => match self.elided(index) {
                Some(blank) => !blank,
                None => !crate::left_out::blank(text),
            },
            Body::ToolCall { .. } => true,
            Body::ToolResult { .. } => self.partner[index].is_none(),
        }
    }

    /// Whether the role filter `roles` admits the event.
    pub(crate) fn role_admits(roles: Option<&[Role]>, event: &Event) -> bool {
        roles.is_none_or(|roles| roles.contains(&event.role))
    }
}
