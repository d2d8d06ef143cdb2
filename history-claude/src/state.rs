//! A [`Decoder`]'s state as bytes, so a caller can keep it between calls and resume
//! decoding at the first line it has not fed (seqs never move, so the prefix's state is
//! reusable). The state is **structure only**: the uuid graph (a parent that is one of the
//! state's rows written as that row's place: a resumed graph neither copies its uuid nor
//! looks it up; a repeat that moves the parent spells it out first), seqs, kinds, windows'
//! inputs (boundaries, boots), tool ids and names, and per row a 128-bit fingerprint of
//! its events and whether its text is blank, and where its bodies lie in its line
//! ([`TextSpan`]s, when the decoder recorded them); no texts or inputs. The rows' uuids and
//! timestamps are one text ahead of the rows, read back into one buffer that the resumed
//! rows and their events share ([`SharedText`]: no allocation a row). A resumed decoder's
//! rows from the state have placeholder bodies ([`crate::Skeleton`] says which), and a
//! repeat of such a row is checked against its fingerprint. The format is private to this crate and versioned; it carries no checksum
//! and no record of *which* bytes were fed: the caller stores those beside it and must
//! only resume a state over the byte-identical prefix it was made from.

use std::sync::Arc;

use notesoup_history_core::{Body, Event, Role, SharedText};

use crate::Options;
use crate::decoder::{Decoder, FirstParent, Node, Parent, Rare, Stamp, unplaced};
use crate::elided::{Elided, Fingerprint, blank_first, fingerprint};
use crate::rows::Kind;
use crate::spans::TextSpan;
use crate::uuids::{UuidIndex, Uuids, repeats, uuid_hash};

/// The format version written first; a state of another version is refused. It is raised
/// when what the decoder accepts changes too (8: lone surrogate escapes read, uuids over
/// 256 bytes refused), so no state vouches for a decode made by other rules. 9: the rows'
/// uuids and timestamps in one text ahead of the rows.
const VERSION: u32 = 9;
const MAGIC: &[u8; 8] = b"nsclst\0\x01";

/// Why saved decoder state cannot be resumed. The caller decodes from the start instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Not a decoder state, or one of another format version.
    #[error("not a decoder state of version {VERSION}")]
    Version,
    /// The bytes end, or hold a value that cannot be, at `at`.
    #[error("decoder state invalid at byte {at}: {reason}")]
    Invalid {
        /// The byte offset.
        at: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// The state was made for other [`Options`].
    #[error("decoder state made for other options")]
    Options,
}

impl Decoder {
    /// The state after the lines fed so far, as bytes for [`Decoder::resume`].
    pub fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing to a `Vec` cannot fail.
        let _ = self.snapshot_to(&mut out);
        out
    }

    /// [`Decoder::snapshot`], written to `sink` in pieces (so a large state is never held
    /// whole beside the decoder); only the sink's own errors are returned.
    pub fn snapshot_to(&self, sink: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut w = Writer(Vec::with_capacity(1 << 16));
        w.0.extend_from_slice(MAGIC);
        w.u32(VERSION);
        w.opt_str(self.options.session.as_deref());
        w.bool(self.options.sidechain);
        w.opt_str(self.session.as_deref());
        w.u64(self.line as u64);
        w.u64(self.next_seq);
        w.bool(self.done);
        w.u64(self.nodes.len() as u64);
        self.write_texts(&mut w, sink)?;
        // A resumed decoder fed nothing since has no map yet: one of just the parents
        // named by their uuid, the only ones looked up here.
        let wanted = self.nodes.iter().filter_map(|(_, n)| n.parent_uuid());
        let index = self
            .uuids
            .for_wanted(&self.nodes, wanted.map(String::as_str));
        for (uuid, node) in &self.nodes {
            w.u64(uuid.len() as u64);
            w.u64(node.first_line as u64);
            w.u8(match node.kind {
                Kind::User => 0,
                Kind::Assistant => 1,
                Kind::System => 2,
                Kind::Attachment => 3,
            });
            write_parent(&mut w, node.parent.as_ref(), &index, &self.nodes);
            match node.first_parent_kept() {
                FirstParent::Same => w.u8(0),
                FirstParent::Was(first) => {
                    w.u8(1);
                    w.opt_str(first.as_deref());
                }
            }
            w.opt_str(node.logical_parent().map(String::as_str));
            w.u64(node.preserved().len() as u64);
            for p in node.preserved() {
                w.str(p);
            }
            w.bool(node.compact);
            match node.boot() {
                None => w.u8(0),
                Some(n) => {
                    w.u8(1);
                    w.u64(n);
                }
            }
            w.bool(node.duplicated);
            match self.stamp(node) {
                None => w.u8(0),
                Some(timestamp) => {
                    w.u8(1);
                    w.u64(timestamp.len() as u64);
                }
            }
            w.u64(node.seq);
            let events = node.events(&self.events);
            let elided = node.elided.unwrap_or_else(|| Elided {
                fingerprint: fingerprint(events.iter().map(|e| (e.role, (&e.body).into()))),
                blank: blank_first(events),
            });
            w.0.extend_from_slice(&elided.fingerprint.to_le_bytes());
            w.bool(elided.blank);
            w.u64(events.len() as u64);
            for Event { role, body, .. } in events {
                w.u8(role_code(*role));
                match body {
                    Body::Text { .. } => w.u8(0),
                    Body::ToolCall { id, name, .. } => {
                        w.u8(1);
                        w.str(id);
                        w.str(name);
                    }
                    Body::ToolResult { id, is_error, .. } => {
                        w.u8(2);
                        w.str(id);
                        w.bool(*is_error);
                    }
                }
            }
            let spans = &self.spans[node.spans.clone()];
            w.u64(spans.len() as u64);
            for span in spans {
                w.u32(span.event);
                w.u32(span.start);
                w.u32(span.end);
                w.bool(span.escaped);
            }
            w.bool(node.spanned);
            if w.0.len() >= 1 << 16 {
                sink.write_all(&w.0)?;
                w.0.clear();
            }
        }
        sink.write_all(&w.0)
    }

    /// A row's timestamp (every event of a row carries it).
    fn stamp(&self, node: &Node) -> Option<&str> {
        let events = node.events(&self.events);
        events.first().and_then(|e| e.timestamp.as_deref())
    }

    /// The rows' uuids and timestamps, in one text ahead of the rows (a resumed decoder
    /// reads it into one buffer that its rows and events share); each row then gives the
    /// lengths of its own, in turn. What `w` holds is written to `sink` as it grows.
    fn write_texts(&self, w: &mut Writer, sink: &mut impl std::io::Write) -> std::io::Result<()> {
        let texts = || {
            self.nodes
                .iter()
                .flat_map(|(uuid, node)| [Some(&**uuid), self.stamp(node)].into_iter().flatten())
        };
        w.u64(texts().map(str::len).sum::<usize>() as u64);
        for text in texts() {
            w.0.extend_from_slice(text.as_bytes());
            if w.0.len() >= 1 << 16 {
                sink.write_all(&w.0)?;
                w.0.clear();
            }
        }
        Ok(())
    }

    /// A decoder that continues from `state` (made by [`Decoder::snapshot`] with the same
    /// `options`): feed it the lines that follow the ones the state covers. Any state that
    /// does not read back exactly is refused, never patched.
    pub fn resume(options: Options, state: &[u8]) -> Result<Decoder, StateError> {
        Self::resume_from(options, state, state.len() as u64)
    }

    /// [`Decoder::resume`] from a reader of exactly `len` bytes of state, read in pieces
    /// (so the state's bytes are never held whole beside the decoder it rebuilds); a
    /// read error is an [`StateError::Invalid`] at the offset it happened.
    pub fn resume_from(
        options: Options,
        state: impl std::io::Read,
        len: u64,
    ) -> Result<Decoder, StateError> {
        let mut r = Reader::new(state, len);
        if r.take(MAGIC.len())? != MAGIC || r.u32()? != VERSION {
            return Err(StateError::Version);
        }
        let session_option = r.opt_str()?;
        let sidechain = r.bool()?;
        if session_option != options.session || sidechain != options.sidechain {
            return Err(StateError::Options);
        }
        let session = r.opt_str()?;
        let line = r.usize()?;
        let next_seq = r.u64()?;
        let done = r.bool()?;
        let count = r.len(16)?;
        let mut texts = Texts {
            all: Arc::new(r.long_text()?),
            at: 0,
        };
        let mut nodes = Vec::with_capacity(count);
        let mut events = Vec::with_capacity(count);
        let mut hashes = Vec::with_capacity(count);
        let mut spans = Vec::new();
        let mut seq_end = 1;
        for _ in 0..count {
            let (uuid, node) = read_node(&mut r, &mut texts, &mut events, &mut spans)?;
            // Seqs are consecutive in node order: the state must say so.
            if node.seq != seq_end || node.first_line == 0 || node.first_line > line {
                return Err(r.invalid("row seq or line out of order"));
            }
            seq_end += node.event_count as u64;
            hashes.push(uuid_hash(&uuid));
            nodes.push((uuid, node));
        }
        // No uuid map is built here (one is, from these hashes, when first needed), but a
        // repeated uuid is refused all the same.
        if repeats(&hashes, |i| &*nodes[i].0) {
            return Err(r.invalid("repeated uuid"));
        }
        // A parent written as its place names one of the nodes (its uuid is not copied).
        if nodes
            .iter()
            .any(|(_, n)| matches!(n.parent, Some(Parent::At(at)) if at >= nodes.len()))
        {
            return Err(r.invalid("parent out of range"));
        }
        if seq_end != next_seq {
            return Err(r.invalid("next seq"));
        }
        if texts.at != texts.all.len() {
            return Err(r.invalid("texts left over"));
        }
        if r.at as u64 != r.len || r.more()? {
            return Err(r.invalid("trailing bytes"));
        }
        Ok(Decoder {
            options,
            session,
            line,
            next_seq,
            nodes,
            events,
            uuids: Uuids::unbuilt(hashes),
            done,
            spans,
            record_spans: false,
            picked: Vec::new(),
        })
    }

    /// How many lines have been fed (committed lines, plus a torn final fragment if one
    /// was fed).
    pub fn lines(&self) -> usize {
        self.line
    }
}

/// A row's parent: a parent among the `nodes` as its place (no text to read back, and no
/// lookup to resolve it), else its uuid, or none (`index`: finds every parent named by
/// its uuid among `nodes`).
fn write_parent(
    w: &mut Writer,
    parent: Option<&Parent>,
    index: &UuidIndex,
    nodes: &[(SharedText, Node)],
) {
    let at = match parent {
        Some(Parent::Uuid(uuid)) => index.get(uuid, nodes),
        Some(Parent::At(at)) => Some(*at),
        None => None,
    };
    match (at, parent.and_then(Parent::uuid)) {
        (Some(at), _) => {
            w.u8(2);
            w.u64(at as u64);
        }
        (None, Some(uuid)) => {
            w.u8(1);
            w.str(uuid);
        }
        (None, None) => w.u8(0),
    }
}

/// The state's text of uuids and timestamps, and where the next row's begin in it.
struct Texts {
    all: Arc<String>,
    at: usize,
}

impl Texts {
    /// The next `len` bytes of the text, shared; the reader `r` names where it fails.
    fn next(
        &mut self,
        len: usize,
        r: &Reader<impl std::io::Read>,
    ) -> Result<SharedText, StateError> {
        let end = self.at.checked_add(len);
        let text = end.and_then(|end| SharedText::within(&self.all, self.at..end));
        let (Some(end), Some(text)) = (end, text) else {
            return Err(r.invalid("text out of range"));
        };
        self.at = end;
        Ok(text)
    }
}

/// Reads one row of the state (its uuid and timestamp from `texts`); its events go on the
/// end of `all`, its spans on the end of `all_spans`.
fn read_node(
    r: &mut Reader<impl std::io::Read>,
    texts: &mut Texts,
    all: &mut Vec<Event>,
    all_spans: &mut Vec<TextSpan>,
) -> Result<(SharedText, Node), StateError> {
    let len = r.usize()?;
    let uuid = texts.next(len, r)?;
    let first_line = r.usize()?;
    let kind = match r.u8()? {
        0 => Kind::User,
        1 => Kind::Assistant,
        2 => Kind::System,
        3 => Kind::Attachment,
        _ => return Err(r.invalid("row kind")),
    };
    let parent = read_parent(r)?;
    let first_parent = match r.u8()? {
        0 => FirstParent::Same,
        1 => FirstParent::Was(r.opt_str()?),
        _ => return Err(r.invalid("first parent")),
    };
    let logical_parent = r.opt_str()?;
    let n = r.len(4)?;
    let mut preserved = Vec::with_capacity(n);
    for _ in 0..n {
        preserved.push(r.str()?);
    }
    let compact = r.bool()?;
    let boot = match r.u8()? {
        0 => None,
        1 => Some(r.u64()?),
        _ => return Err(r.invalid("boot ordinal")),
    };
    let duplicated = r.bool()?;
    let timestamp = match r.u8()? {
        0 => None,
        1 => {
            let len = r.usize()?;
            Some(texts.next(len, r)?)
        }
        _ => return Err(r.invalid("timestamp")),
    };
    let seq = r.u64()?;
    let fingerprint = Fingerprint::from_le_bytes(r.array()?);
    let blank = r.bool()?;
    let n = r.len(2)?;
    if n == 0 {
        // The decoder never makes one: every row has its first event.
        return Err(r.invalid("row without events"));
    }
    let first_event = all.len();
    let stamp = Stamp {
        record: uuid,
        timestamp,
    };
    read_events(r, all, n, seq, &stamp)?;
    let first_span = all_spans.len();
    let count = r.len(13)?;
    for _ in 0..count {
        let span = TextSpan {
            event: r.u32()?,
            start: r.u32()?,
            end: r.u32()?,
            escaped: r.bool()?,
        };
        if span.event as usize >= n || span.start > span.end {
            return Err(r.invalid("span"));
        }
        all_spans.push(span);
    }
    let spans = first_span..all_spans.len();
    let spanned = r.bool()?;
    Ok((
        stamp.record,
        Node {
            first_line,
            kind,
            parent,
            rare: Rare::boxed(first_parent, logical_parent, preserved, boot),
            compact,
            duplicated,
            seq,
            first_event,
            event_count: n,
            elided: Some(Elided { fingerprint, blank }),
            spans,
            spanned,
        },
    ))
}

/// Reads a row's `n` events (its first at `seq`) onto the end of `all`, as placeholders:
/// their windows are set when the branch is selected (as `push_events` makes them), and
/// every one carries the row's `stamp`.
fn read_events(
    r: &mut Reader<impl std::io::Read>,
    all: &mut Vec<Event>,
    n: usize,
    seq: u64,
    stamp: &Stamp,
) -> Result<(), StateError> {
    all.reserve(n);
    for k in 0..n {
        let role = role_from(r.u8()?).ok_or_else(|| r.invalid("role"))?;
        let body = match r.u8()? {
            0 => Body::Text {
                text: String::new(),
            },
            1 => Body::ToolCall {
                id: r.str()?,
                name: r.str()?,
                input: String::new(),
            },
            2 => Body::ToolResult {
                id: r.str()?,
                text: String::new(),
                is_error: r.bool()?,
            },
            _ => return Err(r.invalid("event body")),
        };
        all.push(unplaced(seq + k as u64, role, body, stamp));
    }
    Ok(())
}

/// A row's parent: none, its uuid, or (one of the state's rows) that row's place.
fn read_parent(r: &mut Reader<impl std::io::Read>) -> Result<Option<Parent>, StateError> {
    Ok(match r.u8()? {
        0 => None,
        1 => Some(Parent::Uuid(r.str()?)),
        2 => Some(Parent::At(r.usize()?)),
        _ => return Err(r.invalid("parent")),
    })
}

fn role_code(role: Role) -> u8 {
    match role {
        Role::User => 0,
        Role::Assistant => 1,
        Role::Tool => 2,
        Role::Attachment => 3,
        Role::Notice => 4,
        Role::Summary => 5,
    }
}

fn role_from(code: u8) -> Option<Role> {
    Role::ALL.into_iter().find(|r| role_code(*r) == code)
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn bool(&mut self, v: bool) {
        self.0.push(u8::from(v));
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }
}

/// Reads a state from `src` through a window of bytes read ahead (at least [`PIECE`], more
/// for a longer value): each value is read from the window where it lies, a text copied
/// once, into its own `String`. Nothing past the state's length is read ahead.
struct Reader<R> {
    src: R,
    /// The window: `buf[pos..end]` read from `src` and not yet taken; the rest of `buf`
    /// is room for the next read (zeroed once, when it is made or grown).
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Offset of the next byte taken.
    at: usize,
    /// The state's length, as the caller gave it.
    len: u64,
}

/// How much a [`Reader`]'s window holds at least.
const PIECE: usize = 1 << 16;

impl<R: std::io::Read> Reader<R> {
    fn new(src: R, len: u64) -> Self {
        let window = usize::try_from(len).map_or(PIECE, |len| len.min(PIECE));
        Self {
            src,
            buf: vec![0; window],
            pos: 0,
            end: 0,
            at: 0,
            len,
        }
    }
    fn invalid(&self, reason: &'static str) -> StateError {
        StateError::Invalid {
            at: self.at,
            reason,
        }
    }
    /// Bytes of the state not taken yet.
    fn left(&self) -> u64 {
        self.len.saturating_sub(self.at as u64)
    }
    /// Makes the window hold the next `n` bytes.
    #[inline]
    fn need(&mut self, n: usize) -> Result<(), StateError> {
        if self.end - self.pos >= n {
            return Ok(());
        }
        self.refill(n)
    }
    /// Moves what the window holds to its start and reads on until it holds `n` bytes
    /// (growing it for a longer value), never past the state's length.
    #[cold]
    fn refill(&mut self, n: usize) -> Result<(), StateError> {
        if n as u64 > self.left() {
            return Err(self.invalid("unexpected end"));
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        // The bytes of the state not in the window yet.
        let unread = self.left().saturating_sub(self.end as u64);
        let stop = usize::try_from(unread)
            .map_or(self.buf.len(), |u| self.end.saturating_add(u))
            .min(self.buf.len());
        while self.end < n {
            match self.src.read(&mut self.buf[self.end..stop]) {
                Ok(0) => return Err(self.invalid("unexpected end")),
                Ok(got) => self.end += got,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(self.invalid("read error")),
            }
        }
        Ok(())
    }
    /// The next `n` bytes, where they lie in the window.
    fn take(&mut self, n: usize) -> Result<&[u8], StateError> {
        self.need(n)?;
        let from = self.pos;
        self.pos += n;
        self.at += n;
        Ok(&self.buf[from..from + n])
    }
    /// True when the source holds more bytes than the state's length.
    fn more(&mut self) -> Result<bool, StateError> {
        if self.pos < self.end {
            return Ok(true);
        }
        let mut probe = [0; 1];
        loop {
            match self.src.read(&mut probe) {
                Ok(got) => return Ok(got > 0),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(self.invalid("read error")),
            }
        }
    }
    /// The next `N` bytes, copied out of the window.
    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], StateError> {
        self.need(N)?;
        let mut out = [0; N];
        out.copy_from_slice(&self.buf[self.pos..self.pos + N]);
        self.pos += N;
        self.at += N;
        Ok(out)
    }
    #[inline]
    fn u8(&mut self) -> Result<u8, StateError> {
        Ok(self.array::<1>()?[0])
    }
    #[inline]
    fn bool(&mut self) -> Result<bool, StateError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.invalid("flag")),
        }
    }
    #[inline]
    fn u32(&mut self) -> Result<u32, StateError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    #[inline]
    fn u64(&mut self) -> Result<u64, StateError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    #[inline]
    fn usize(&mut self) -> Result<usize, StateError> {
        let v = self.u64()?;
        usize::try_from(v).map_err(|_| self.invalid("count"))
    }
    /// A count of items of at least `min` bytes each: never more than the bytes left
    /// could hold (so a corrupt count cannot ask for a huge allocation).
    fn len(&mut self, min: usize) -> Result<usize, StateError> {
        let n = self.usize()?;
        if n as u64 > self.left() / min as u64 {
            return Err(self.invalid("count"));
        }
        Ok(n)
    }
    fn str(&mut self) -> Result<String, StateError> {
        let n = self.usize()?;
        match std::str::from_utf8(self.take(n)?) {
            Ok(text) => Ok(text.to_owned()),
            Err(_) => Err(self.invalid("text")),
        }
    }
    fn opt_str(&mut self) -> Result<Option<String>, StateError> {
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(self.str()?)),
            _ => Err(self.invalid("optional text")),
        }
    }
    /// A long text (its length first), read through the window a piece at a time into a
    /// `String` of its own (the window never grows for it).
    fn long_text(&mut self) -> Result<String, StateError> {
        let n = self.usize()?;
        if n as u64 > self.left() {
            return Err(self.invalid("unexpected end"));
        }
        let mut bytes = Vec::with_capacity(n);
        while bytes.len() < n {
            let piece = (n - bytes.len()).min(PIECE);
            bytes.extend_from_slice(self.take(piece)?);
        }
        String::from_utf8(bytes).map_err(|_| self.invalid("text"))
    }
}
