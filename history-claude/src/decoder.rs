//! The line-by-line [`Decoder`]: each committed line checked once (the one-pass parse,
//! else the field-by-field one that names the refusal) and added to the uuid graph's
//! nodes, first occurrence first; [`decode`] feeds it a whole transcript.

use notesoup_history_core::{Body, Event, Role, SharedText, Transcript, Window};

use crate::DecodeError;
use crate::elided::{Elided, Fingerprint, fingerprint, fingerprint_of};
use crate::rows::{self, Kind, RawRow, Row};
use crate::spans::{self, TextSpan};
use crate::uuids::Uuids;

/// What the transcript must be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The session every row must name; `None`: the first conversation row's.
    pub session: Option<String>,
    /// Decode a subagent (sidechain) file instead of a main transcript.
    pub sidechain: bool,
}

/// Where the selected branch ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// The live head: the uuid of the latest successful main `session.append` result.
    Uuid(String),
    /// An offline session: the last non-attachment graph leaf in transcript order, else
    /// the last leaf.
    Leaf,
}

/// Batches of at least this many lines have their one-pass parse split over two threads.
const PARALLEL_LINES: usize = 256;
/// The most lines whose one-pass parses are held at once: a batch is parsed in runs of at
/// most this many, so what a line costs beyond its bytes is bounded whatever the batch (a
/// million empty lines in one batch once held ~430 bytes of parse each, 450 MB).
pub const FEED_LINES: usize = 4096;

/// A batch of committed lines fed at once holds at most about this many bytes (a longer
/// line alone).
const BATCH_BYTES: usize = 4 << 20;

/// Decodes a whole transcript: [`decode_from`] of its bytes.
pub fn decode(bytes: &[u8], options: &Options, head: &Head) -> Result<Transcript, DecodeError> {
    decode_from(bytes, options, head)
}

/// Decodes a whole transcript read from `reader`, line by line in batches of
/// [`4 × 256`](Decoder::feed) lines or about 4 MiB (whichever comes first), so a decode holds
/// a batch of the file, never the whole of it (a copy read from notesoup's vault, say). A
/// final fragment without a `\n` is a write in progress, fed as one ([`Decoder::line`]); a
/// read that fails is refused ([`DecodeError::Read`]). A line is as long as the reader gives
/// it (as [`LineReader`](notesoup_history_core::LineReader)'s): bound the reader (a file's
/// size when opened; a vault copy is at most its cap).
///
/// ```
/// use notesoup_history_claude::{Head, Options, decode_from};
///
/// let row = r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"s1","timestamp":"t","message":{"role":"user","content":"hi"}}"#;
/// let transcript = decode_from(format!("{row}\n").as_bytes(), &Options::default(), &Head::Leaf)?;
/// assert_eq!(transcript.events.len(), 1);
/// # Ok::<(), notesoup_history_claude::DecodeError>(())
/// ```
pub fn decode_from(
    mut reader: impl std::io::BufRead,
    options: &Options,
    head: &Head,
) -> Result<Transcript, DecodeError> {
    let mut decoder = Decoder::new(options.clone());
    let mut batch: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    let feed = |decoder: &mut Decoder, batch: &mut Vec<u8>, ends: &mut Vec<usize>| {
        let mut from = 0;
        let lines: Vec<&[u8]> = ends
            .iter()
            .map(|&end| {
                let line = &batch[from..end];
                from = end + 1;
                line
            })
            .collect();
        let fed = decoder.feed(&lines);
        batch.clear();
        ends.clear();
        fed
    };
    loop {
        let start = batch.len();
        let read = reader
            .read_until(b'\n', &mut batch)
            .map_err(|err| DecodeError::Read {
                line: decoder.line + ends.len() + 1,
                message: err.to_string(),
            })?;
        if read == 0 {
            break;
        }
        if batch.last() != Some(&b'\n') {
            // The final fragment: the lines before it first.
            let fragment = batch.split_off(start);
            feed(&mut decoder, &mut batch, &mut ends)?;
            decoder.line(&fragment, false)?;
            return decoder.finish(head);
        }
        ends.push(batch.len() - 1);
        if ends.len() == 4 * PARALLEL_LINES || batch.len() >= BATCH_BYTES {
            feed(&mut decoder, &mut batch, &mut ends)?;
        }
    }
    feed(&mut decoder, &mut batch, &mut ends)?;
    decoder.finish(head)
}

/// A node of the uuid graph: one uuid, first occurrence first.
pub(crate) struct Node {
    pub(crate) first_line: usize,
    pub(crate) kind: Kind,
    /// The latest parent (`None`: a root).
    pub(crate) parent: Option<Parent>,
    /// What few rows have (`None`: none of it).
    pub(crate) rare: Option<Box<Rare>>,
    pub(crate) compact: bool,
    pub(crate) duplicated: bool,
    /// Seq of the first event; the row's events have consecutive seqs.
    pub(crate) seq: u64,
    /// Where the row's events are in the decoder's flat list (at least one: every
    /// conversation row has its message, notice or attachment event first).
    pub(crate) first_event: usize,
    pub(crate) event_count: usize,
    /// Set when the row's events are placeholders (resumed from a structure-only state):
    /// ids, names and flags are there, texts and inputs are not.
    pub(crate) elided: Option<Elided>,
    /// Where the row's bodies lie in its line: these of the decoder's flat list of spans
    /// (empty unless the decoder records them, [`Decoder::record_spans`]).
    pub(crate) spans: std::ops::Range<usize>,
    /// True when every body of the row with bytes has its span (see [`ElidedRow::spanned`]).
    pub(crate) spanned: bool,
}

/// A node's latest parent: by its uuid, or, when it is one of the nodes, by that node's place
/// (a resumed state names such a parent so, and so does [`Decoder`] for a row whose parent
/// was already a node: no uuid copied, no lookup left to resolve it). A repeat that compares
/// or moves the parent spells its uuid out first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Parent {
    Uuid(String),
    At(usize),
}

impl Parent {
    /// The uuid when it is kept (`None` for a parent named by its place).
    pub(crate) fn uuid(&self) -> Option<&String> {
        match self {
            Parent::Uuid(uuid) => Some(uuid),
            Parent::At(_) => None,
        }
    }
}

/// What few rows have, behind one pointer so that every node is the smaller for it (a
/// node is moved into its list and first touched once a row: 80 bytes fewer a row).
#[derive(Debug, Default)]
pub(crate) struct Rare {
    /// The first-recorded parent, kept apart only once a repeat changed `parent`.
    pub(crate) first_parent: FirstParent,
    /// A boundary's logical parent.
    pub(crate) logical_parent: Option<String>,
    /// A boundary's preserved uuids.
    pub(crate) preserved: Vec<String>,
    /// The ordinal of a boot's window.
    pub(crate) boot: Option<u64>,
}

impl Rare {
    /// These, boxed; `None` when there are none of them.
    pub(crate) fn boxed(
        first_parent: FirstParent,
        logical_parent: Option<String>,
        preserved: Vec<String>,
        boot: Option<u64>,
    ) -> Option<Box<Rare>> {
        let none = first_parent == FirstParent::Same
            && logical_parent.is_none()
            && preserved.is_empty()
            && boot.is_none();
        (!none).then(|| {
            Box::new(Rare {
                first_parent,
                logical_parent,
                preserved,
                boot,
            })
        })
    }
}

/// Where a node's first-recorded parent is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum FirstParent {
    /// `parent` still is the first-recorded one (the usual case: no copy is kept).
    #[default]
    Same,
    /// A repeat changed `parent`; this was the first-recorded one.
    Was(Option<String>),
}

impl Node {
    /// The row's events among `all` (the flat list of the decoder that made this node).
    pub(crate) fn events<'a>(&self, all: &'a [Event]) -> &'a [Event] {
        &all[self.first_event..self.first_event + self.event_count]
    }

    /// A repeat of this row recorded `parent` (its parent spelled out as a uuid first): the
    /// latest parent, the first-recorded one kept apart when it changed.
    fn repeated_with(&mut self, parent: Option<String>) {
        let parent = parent.map(Parent::Uuid);
        if *self.first_parent_kept() == FirstParent::Same && self.parent != parent {
            let was = std::mem::replace(&mut self.parent, parent);
            self.rare_mut().first_parent =
                FirstParent::Was(was.as_ref().and_then(Parent::uuid).cloned());
        } else {
            self.parent = parent;
        }
        self.duplicated = true;
    }

    /// The latest parent's uuid when it is kept (`None` for a root, and for a parent named
    /// by its place: the graph follows resolved links, and reads a uuid only where a link
    /// is missing, which a place never is).
    pub(crate) fn parent_uuid(&self) -> Option<&String> {
        self.parent.as_ref().and_then(Parent::uuid)
    }

    /// The uuid of the parent this row was first recorded with, as [`Node::parent_uuid`].
    pub(crate) fn first_parent(&self) -> Option<&String> {
        match self.first_parent_kept() {
            FirstParent::Same => self.parent_uuid(),
            FirstParent::Was(first) => first.as_ref(),
        }
    }

    /// Where the first-recorded parent is ([`Rare::first_parent`]).
    pub(crate) fn first_parent_kept(&self) -> &FirstParent {
        self.rare
            .as_ref()
            .map_or(&FirstParent::Same, |r| &r.first_parent)
    }

    /// A boundary's logical parent ([`Rare::logical_parent`]).
    pub(crate) fn logical_parent(&self) -> Option<&String> {
        self.rare.as_ref().and_then(|r| r.logical_parent.as_ref())
    }

    /// A boundary's preserved uuids ([`Rare::preserved`]).
    pub(crate) fn preserved(&self) -> &[String] {
        self.rare.as_ref().map_or(&[], |r| &r.preserved)
    }

    /// The ordinal of a boot's window ([`Rare::boot`]).
    pub(crate) fn boot(&self) -> Option<u64> {
        self.rare.as_ref().and_then(|r| r.boot)
    }

    /// The rare fields, boxed now if they were not.
    fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// A repeat of this boundary recorded these links: they are the latest.
    fn relinked(&mut self, logical_parent: Option<String>, preserved: Vec<String>) {
        if self.rare.is_none() && logical_parent.is_none() && preserved.is_empty() {
            return;
        }
        let rare = self.rare_mut();
        rare.logical_parent = logical_parent;
        rare.preserved = preserved;
    }
}

/// The uuid and timestamp every event of a row shares (a resumed state's are ranges of one
/// buffer of them all).
pub(crate) struct Stamp {
    pub(crate) record: SharedText,
    pub(crate) timestamp: Option<SharedText>,
}

impl Stamp {
    /// A fed row's uuid and timestamp, shared: one buffer of the two.
    fn of(uuid: &str, timestamp: Option<&str>) -> Self {
        let (record, timestamp) = SharedText::pair(uuid, timestamp);
        Self { record, timestamp }
    }
}

/// Appends a row's events (role and body, in order) to `all` with consecutive seqs from
/// `seq`, each with the row's [`Stamp`]. Their windows are placeholders until the branch
/// is selected.
pub(crate) fn push_events(
    all: &mut Vec<Event>,
    stamp: &Stamp,
    seq: u64,
    events: Vec<(Role, Body)>,
) {
    for (k, (role, body)) in events.into_iter().enumerate() {
        all.push(unplaced(seq + k as u64, role, body, stamp));
    }
}

/// A row's event before its branch is selected: its row's [`Stamp`], a window
/// placeholder.
pub(crate) fn unplaced(seq: u64, role: Role, body: Body, stamp: &Stamp) -> Event {
    Event {
        seq,
        role,
        window: Window::Numbered(0),
        body,
        record: stamp.record.clone(),
        timestamp: stamp.timestamp.clone(),
    }
}

/// True when a repeat's events are the first occurrence's (role and body, in order).
fn same_events(first: &[Event], repeat: &[(Role, Body)]) -> bool {
    first.len() == repeat.len()
        && first
            .iter()
            .zip(repeat)
            .all(|(e, (role, body))| e.role == *role && e.body == *body)
}

/// What the field-by-field parse made of a line.
#[allow(
    clippy::large_enum_variant,
    reason = "made once per line and moved into the decoder: a box would be one more allocation per line"
)]
enum Parsed {
    Row(Row),
    /// A valid record of another type (metadata: no address).
    Other,
    /// An unterminated final fragment that does not parse: a write in progress.
    Torn,
}

/// The field-by-field parse of line `n` (the path every refusal and its reason come from).
/// A lone surrogate escape (a string Claude Code cut inside an emoji) is read as U+FFFD,
/// as the one-pass parse leaves it here.
fn parse_slow(line: &[u8], n: usize, terminated: bool) -> Result<Parsed, DecodeError> {
    let replaced = notesoup_history_core::lone_surrogates_replaced(line);
    let line = replaced.as_deref().unwrap_or(line);
    let raw: RawRow<'_> = match serde_json::from_slice(line) {
        Ok(raw) => raw,
        Err(_) if !terminated => return Ok(Parsed::Torn),
        Err(err) => {
            return Err(DecodeError::Malformed {
                line: n,
                reason: err.to_string(),
            });
        }
    };
    let Some(kind_raw) = raw.kind else {
        return Err(DecodeError::Malformed {
            line: n,
            reason: "a record without `type`".into(),
        });
    };
    let kind_name: std::borrow::Cow<'_, str> =
        serde_json::from_str(kind_raw.get()).map_err(|err| DecodeError::Malformed {
            line: n,
            reason: format!("`type`: {err}"),
        })?;
    let Some(kind) = Kind::parse(&kind_name) else {
        return Ok(Parsed::Other); // metadata and other record types: no address
    };
    let row = rows::check(kind, &raw).map_err(|reason| DecodeError::Schema {
        line: n,
        kind: kind.name(),
        reason,
    })?;
    Ok(Parsed::Row(row))
}

/// The events line `n` of a transcript holds, decoded as the [`Decoder`] decodes it (the
/// one-pass parse, else the field-by-field one): `None` for a record of another type.
pub(crate) fn row_of(line: &[u8], n: usize) -> Result<Option<Row>, DecodeError> {
    match rows::fast(line) {
        Some(rows::Fast::Row(row)) => Ok(Some(row)),
        Some(rows::Fast::Other) => Ok(None),
        None => match parse_slow(line, n, true)? {
            Parsed::Row(row) => Ok(Some(row)),
            Parsed::Other | Parsed::Torn => Ok(None),
        },
    }
}

/// A selected transcript whose bodies may be elided: what [`Decoder::finish_skeleton`] gives.
#[derive(Debug, Clone)]
pub struct Skeleton {
    /// The selection: every event is there, with its seq, role, window, record and
    /// timestamp; an elided event's body is a placeholder of its kind (a text is empty, a
    /// call keeps its id and name with an empty input, a result its id and error flag with
    /// an empty text).
    pub transcript: Transcript,
    /// For each of `transcript.events`: `None` when its body is whole, `Some(blank)` when
    /// elided (`blank`: a text that is blank; false for calls and results).
    pub elided: Vec<Option<bool>>,
    /// The rows whose events were elided (selected or not), in seq order.
    pub rows: Vec<ElidedRow>,
    /// Where those rows' bodies lie in their lines ([`ElidedRow::spans`] names theirs).
    pub spans: Vec<TextSpan>,
}

impl Skeleton {
    /// The whole transcript: every elided body filled from `bodies`, which gives an
    /// elided row's bodies (in practice [`ElidedRow::reload`] of its line). The result is
    /// what a fresh decode of the same bytes gives.
    pub fn hydrate<E>(
        self,
        mut bodies: impl FnMut(&ElidedRow) -> Result<Vec<Body>, E>,
    ) -> Result<Transcript, E> {
        let Skeleton {
            mut transcript,
            elided,
            rows,
            ..
        } = self;
        let mut loaded: Option<(usize, Vec<Body>)> = None;
        for (event, elided) in transcript.events.iter_mut().zip(elided) {
            if elided.is_none() {
                continue;
            }
            let at = rows
                .partition_point(|r| r.seq <= event.seq)
                .saturating_sub(1);
            let Some(row) = rows.get(at) else { continue };
            if loaded.as_ref().is_none_or(|(r, _)| *r != at) {
                loaded = Some((at, bodies(row)?));
            }
            if let Some((_, row_bodies)) = &mut loaded
                && let Some(body) = usize::try_from(event.seq - row.seq)
                    .ok()
                    .and_then(|k| row_bodies.get_mut(k))
            {
                event.body = std::mem::replace(
                    body,
                    Body::Text {
                        text: String::new(),
                    },
                );
            }
        }
        Ok(transcript)
    }
}

/// A row whose events a structure-only state elided, and where to find them again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElidedRow {
    /// The seq of its first event (its events have consecutive seqs).
    pub seq: u64,
    /// How many events it has.
    pub events: usize,
    /// The transcript line (1-based) the row was first recorded on.
    pub line: usize,
    /// Where its bodies lie in that line: these of [`Skeleton::spans`] (a body without one
    /// must be decoded to be searched).
    pub spans: std::ops::Range<usize>,
    /// True when every body of the row with bytes has its span: they are then exactly what
    /// the spans decode to, so no `\u` or `\/` escape elsewhere in the line can hide a match
    /// of them (a span never holds one).
    pub spanned: bool,
    fingerprint: Fingerprint,
}

impl ElidedRow {
    /// `spans`: where the node's spans are in the skeleton's list.
    pub(crate) fn new(
        node: &Node,
        fingerprint: Fingerprint,
        spans: std::ops::Range<usize>,
    ) -> Self {
        Self {
            seq: node.seq,
            events: node.event_count,
            line: node.first_line,
            spans,
            spanned: node.spanned,
            fingerprint,
        }
    }

    /// The row's events, decoded again from `bytes`, the row's line (without its `\n`):
    /// refused ([`DecodeError::Changed`]) unless that line still holds the very events the
    /// state recorded (compared by their 128-bit fingerprint).
    pub fn reload(&self, bytes: &[u8]) -> Result<Vec<Body>, DecodeError> {
        let changed = DecodeError::Changed { line: self.line };
        let row = row_of(bytes, self.line)
            .map_err(|_| changed.clone())?
            .ok_or_else(|| changed.clone())?;
        if row.events.len() != self.events || fingerprint_of(&row.events) != self.fingerprint {
            return Err(changed);
        }
        Ok(row.events.into_iter().map(|(_, body)| body).collect())
    }
}

/// A line-by-line decoder, for reading a file without holding it whole.
pub struct Decoder {
    pub(crate) options: Options,
    pub(crate) session: Option<String>,
    pub(crate) line: usize,
    pub(crate) next_seq: u64,
    pub(crate) nodes: Vec<(SharedText, Node)>,
    /// Every row's events, node after node (so in seq order), each already as the
    /// [`Transcript`] holds it (its window is set when the branch is selected): the
    /// selection keeps them in place rather than copying every body into a new list.
    pub(crate) events: Vec<Event>,
    /// The uuid -> node map (a resumed decoder builds it when first needed).
    pub(crate) uuids: Uuids,
    pub(crate) done: bool,
    /// Every row's [`TextSpan`]s, node after node (each node names its own).
    pub(crate) spans: Vec<TextSpan>,
    /// Whether rows added from now on get their spans found.
    pub(crate) record_spans: bool,
    /// The seqs [`Decoder::feed_picking`] noted (never kept in a state).
    pub(crate) picked: Vec<u64>,
}

impl Decoder {
    /// A decoder expecting a transcript as `options` say.
    pub fn new(options: Options) -> Self {
        Self {
            session: options.session.clone(),
            options,
            line: 0,
            next_seq: 1,
            nodes: Vec::new(),
            events: Vec::new(),
            uuids: Uuids::default(),
            done: false,
            spans: Vec::new(),
            record_spans: false,
            picked: Vec::new(),
        }
    }

    /// From now on, finds where each new row's bodies lie in its line ([`TextSpan`]), for
    /// the state a [`Decoder::snapshot`] keeps: a caller that searches the rows of a
    /// resumed state can then count a raw match without decoding the row again. Off by
    /// default (it costs a search of each line).
    pub fn record_spans(&mut self) {
        self.record_spans = true;
    }

    /// Feeds the next line, without its `\n`; `terminated` is false only for a final
    /// fragment with no `\n` after it (a write in progress when it does not parse).
    pub fn line(&mut self, line: &[u8], terminated: bool) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        self.line_parsed(line, terminated, rows::fast(line), None, &[])
    }

    /// Feeds committed lines (each without its `\n`), in order: the same as
    /// [`Decoder::line`] for each, with the one-pass parse of a large batch split over two
    /// threads (the rows are still added, and any refusal found, in line order).
    pub fn feed(&mut self, lines: &[&[u8]]) -> Result<(), DecodeError> {
        self.feed_as(lines, true, None)
    }

    /// [`Decoder::feed`], skimming every row: each is checked exactly as
    /// [`Decoder::feed`] checks it (the same parse, the same refusals) but kept as a
    /// structure-only state keeps a row (placeholder bodies, the whole ones' fingerprint),
    /// so [`Decoder::finish_skeleton`] lists it among the rows to read again from their
    /// lines ([`ElidedRow::reload`]).
    pub fn feed_skimmed(&mut self, lines: &[&[u8]]) -> Result<(), DecodeError> {
        self.feed_as(lines, false, None)
    }

    /// [`Decoder::feed_skimmed`], noting each event of a new row whose text (a visible
    /// text, a call's input, a result's text, decoded) `pick` picks:
    /// [`Decoder::take_picked`] gives their seqs. A search for a query picked this way
    /// knows which skimmed rows hold it without reading any of them again.
    pub fn feed_picking(
        &mut self,
        lines: &[&[u8]],
        pick: impl Fn(&str) -> bool + Sync,
    ) -> Result<(), DecodeError> {
        self.feed_as(lines, false, Some(&pick))
    }

    /// The seqs [`Decoder::feed_picking`] noted so far, in order (taken: none are left).
    pub fn take_picked(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.picked)
    }

    /// The lines' rows kept `whole` or skimmed, noting the events `pick` picks.
    fn feed_as(
        &mut self,
        lines: &[&[u8]],
        whole: bool,
        pick: Option<&(dyn Fn(&str) -> bool + Sync)>,
    ) -> Result<(), DecodeError> {
        for run in lines.chunks(FEED_LINES) {
            self.feed_run(run, whole, pick)?;
        }
        Ok(())
    }

    /// [`Decoder::feed_as`] of at most [`FEED_LINES`] lines.
    fn feed_run(
        &mut self,
        lines: &[&[u8]],
        whole: bool,
        pick: Option<&(dyn Fn(&str) -> bool + Sync)>,
    ) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        // The one-pass parse of a line (its row kept whole or skimmed), and the spans of its
        // row when they are recorded (found on the same thread, from the texts as the parse
        // holds them, whether the row is kept whole or skimmed).
        let record = self.record_spans;
        let parse = |line: &&[u8]| {
            let mut found = spans::Found::default();
            let mut picked = Vec::new();
            let fast = rows::skim(
                line,
                whole,
                record.then_some(&mut found),
                pick.map(|pick| (pick as &dyn Fn(&str) -> bool, &mut picked)),
            );
            (fast, found, picked)
        };
        let parsed: Vec<_> = if lines.len() >= PARALLEL_LINES {
            let (first, second) = lines.split_at(lines.len() / 2);
            std::thread::scope(|scope| {
                let other = scope.spawn(|| second.iter().map(parse).collect::<Vec<_>>());
                let mut parsed: Vec<_> = first.iter().map(parse).collect();
                match other.join() {
                    Ok(rest) => parsed.extend(rest),
                    // Cannot happen (the parse does not panic); parse the rest here then.
                    Err(_) => parsed.extend(second.iter().map(parse)),
                }
                parsed
            })
        } else {
            lines.iter().map(parse).collect()
        };
        for (line, (fast, found, picked)) in lines.iter().zip(parsed) {
            self.line_parsed(line, true, fast, Some(found), &picked)?;
        }
        Ok(())
    }

    /// [`Decoder::line`] with the one-pass parse already made (and, when `found` is given,
    /// the spans of its row, if they are recorded).
    fn line_parsed(
        &mut self,
        line: &[u8],
        terminated: bool,
        fast: Option<rows::Fast>,
        found: Option<spans::Found>,
        picked: &[u32],
    ) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        self.line += 1;
        let n = self.line;
        // One pass over the line for the usual record; anything it is not sure of is
        // decided (and refused, with its reason) by the field-by-field parse below.
        match fast {
            Some(rows::Fast::Row(row)) => return self.add(n, row, line, found, picked),
            Some(rows::Fast::Other) => return Ok(()),
            None => {}
        }
        match parse_slow(line, n, terminated)? {
            Parsed::Row(row) => self.add(n, row, line, None, &[]),
            Parsed::Other => Ok(()),
            Parsed::Torn => {
                self.done = true;
                Ok(())
            }
        }
    }

    /// A new row's parent as its node keeps it: named by its place when it is already a
    /// node, as a resumed state names it (one lookup here rather than one by the graph and
    /// one by the index's writer, and no copy of its uuid kept), else by its uuid.
    fn parent_link(&mut self, parent: Option<String>) -> Option<Parent> {
        let uuid = parent?;
        Some(
            match self.uuids.built(&self.nodes).get(&uuid, &self.nodes) {
                Some(at) => Parent::At(at),
                None => Parent::Uuid(uuid),
            },
        )
    }

    /// Adds the row of line `n` (`line`: its bytes; `found`: its spans, when already found).
    fn add(
        &mut self,
        n: usize,
        row: Row,
        line: &[u8],
        found: Option<spans::Found>,
        picked: &[u32],
    ) -> Result<(), DecodeError> {
        match &self.session {
            Some(expected) if *expected != row.session_id => {
                return Err(DecodeError::SessionMismatch {
                    line: n,
                    expected: expected.clone(),
                    found: row.session_id,
                });
            }
            Some(_) => {}
            None => self.session = Some(row.session_id.clone()),
        }
        if row.is_sidechain != self.options.sidechain {
            return Err(DecodeError::SidechainMismatch {
                line: n,
                found: row.is_sidechain,
            });
        }
        if let Some(at) = self.uuids.built(&self.nodes).get(&row.uuid, &self.nodes) {
            if let Some(Parent::At(p)) = self.nodes[at].1.parent {
                self.nodes[at].1.parent = self
                    .nodes
                    .get(p)
                    .map(|(uuid, _)| Parent::Uuid(uuid.to_string()));
            }
            let node = &mut self.nodes[at].1;
            // Whole events are compared as they are; where either side is elided, by
            // their fingerprints.
            let same = match (node.elided, row.elided) {
                (Some(first), Some(repeat)) => first.fingerprint == repeat.fingerprint,
                (Some(first), None) => fingerprint_of(&row.events) == first.fingerprint,
                (None, Some(repeat)) => {
                    let first = node.events(&self.events);
                    first.len() == row.events.len()
                        && fingerprint(first.iter().map(|e| (e.role, (&e.body).into())))
                            == repeat.fingerprint
                }
                (None, None) => same_events(node.events(&self.events), &row.events),
            };
            if node.kind != row.kind || !same || node.boot() != row.boot {
                return Err(DecodeError::Conflict {
                    line: n,
                    uuid: row.uuid,
                    first_line: node.first_line,
                });
            }
            // A repeat allocates nothing; its links are the latest.
            node.repeated_with(row.parent);
            if row.compact {
                node.relinked(row.logical_parent, row.preserved);
            }
            return Ok(());
        }
        let parent = self.parent_link(row.parent);
        let seq = self.next_seq;
        self.next_seq += row.events.len() as u64;
        self.uuids
            .built(&self.nodes)
            .insert(&row.uuid, self.nodes.len());
        let first_event = self.events.len();
        let event_count = row.events.len();
        let first_span = self.spans.len();
        let spanned = self.record_spans && {
            let found = match found {
                Some(found) => found,
                None if row.elided.is_none() => {
                    let mut found = spans::Found::default();
                    spans::find(line, &row.events, &mut found);
                    found
                }
                // Placeholder bodies say nothing of where the whole ones lie.
                None => spans::Found::default(),
            };
            self.spans.extend(found.spans);
            found.complete
        };
        let spans = first_span..self.spans.len();
        self.picked
            .extend(picked.iter().map(|&k| seq + u64::from(k)));
        let stamp = Stamp::of(&row.uuid, row.timestamp.as_deref());
        push_events(&mut self.events, &stamp, seq, row.events);
        self.nodes.push((
            stamp.record,
            Node {
                first_line: n,
                kind: row.kind,
                parent,
                rare: Rare::boxed(
                    FirstParent::Same,
                    row.logical_parent,
                    row.preserved,
                    row.boot,
                ),
                compact: row.compact,
                duplicated: false,
                seq,
                first_event,
                event_count,
                elided: row.elided,
                spans,
                spanned,
            },
        ));
        Ok(())
    }
}
