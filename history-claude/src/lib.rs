//! The strict decoder of Claude Code 2.1.319's persisted JSONL transcripts into
//! `notesoup-history-core`'s model.
//!
//! This crate is pure: it takes the transcript's bytes (whole, or line by line through
//! [`Decoder`]) and does no IO; the helper binary reads the file. It decodes one session
//! file at a time:
//!
//! - **Seqs** are allocated over first-occurrence append order, before branch filtering:
//!   one per `user`/`assistant`/`system`/`attachment` row (a message, attachment or
//!   notice), plus one per tool use and one per tool result block. A repeated uuid
//!   allocates nothing (and must not conflict); other record types are ignored and
//!   allocate nothing.
//! - **The selected tree** follows the latest `parentUuid` links from the head; a compact
//!   boundary also joins its `logicalParentUuid` and its recorded preserved uuids, so old
//!   events stay readable. Preserved uuids that were never persisted are skipped. Tool
//!   results written as siblings of the selected branch (parallel tool calls) join it when
//!   they answer a selected call.
//! - **Windows** are `claude:<sessionId>:<ordinal>`: 0 at a root, each compact boundary
//!   advances it, a complete retained notesoup boot block (`<notesoup-boot
//!   window="claude:<id>:<n>">` … `</notesoup-boot>` in a user text or an attachment
//!   rendering) names it (re-anchoring it; it does not advance it again). Ancestry that
//!   stops at a missing record gives `claude:<sessionId>:unknown:<missingUuid>`. A
//!   duplicated row keeps the window of its first occurrence.
//! - **Refusals** ([`DecodeError`], each with its line): malformed committed lines,
//!   invalid schemas of the four supported types, conflicting duplicates, session or
//!   sidechain mismatches, `parentUuid` cycles. An unterminated final line that does not
//!   parse is a write in progress and is ignored.
//! - **One pass per line**: a line is parsed once, its message in place; a line that
//!   parse is not sure of (another shape, not UTF-8, a row that does not check) is decided
//!   field by field, the path every refusal and its reason come from. The one-pass parse
//!   accepts nothing the field-by-field one refuses and makes the same row (a test holds
//!   the two to that on every real line and thousands of mutations).
//! - **Resuming**: [`Decoder::snapshot`] serializes the state after the lines fed so far,
//!   and [`Decoder::resume`] continues from it, so a caller that keeps the state of a
//!   file's committed prefix decodes only the lines appended since (every line is still
//!   checked exactly once). The caller must vouch that the prefix is byte-identical.
//! - **Window facts**: [`window_facts`] reads a decoded transcript for the reset flow of a
//!   process that has no window record: the current window (never below an ordinal a
//!   retained boot named), the newest boot, the compactions since, and whether that boot is
//!   another session's (a fork).
//!
//! ```
//! use notesoup_history_claude::{decode, Head, Options};
//!
//! let jsonl = concat!(
//!     r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"s1","#,
//!     r#""message":{"role":"user","content":"list the files"}}"#, "\n",
//!     r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":false,"sessionId":"s1","#,
//!     r#""message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#, "\n",
//!     r#"{"type":"user","uuid":"u2","parentUuid":"a1","isSidechain":false,"sessionId":"s1","#,
//!     r#""message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Cargo.toml"}]}}"#, "\n",
//!     r#"{"type":"user","uuid":"u3","parentUuid":"u2","isSidechain":false,"sessionId":"s1","mes"#,
//! );
//! let transcript = decode(jsonl.as_bytes(), &Options::default(), &Head::Leaf)?;
//! // u1 → 1; a1 → 2 (+ tool use 3); u2 → 4 (+ tool result 5); the torn last line is ignored.
//! let seqs: Vec<u64> = transcript.events.iter().map(|e| e.seq).collect();
//! assert_eq!(seqs, [1, 2, 3, 4, 5]);
//! assert_eq!(transcript.session.window_id(&transcript.head_window), "claude:s1:0");
//! # Ok::<(), notesoup_history_claude::DecodeError>(())
//! ```

#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

use notesoup_history_core::{
    Body, Event, Harness, Role, SessionRef, Transcript, Window, WordHash, WordHashBuilder,
};

mod rows;
mod state;
mod summary;
#[cfg(test)]
mod tests;
mod window_facts;

pub use state::StateError;
pub use summary::summary;
pub use window_facts::{WindowFacts, WindowFactsError, window_facts};

use rows::{Kind, RawRow, Row};

/// Node index by uuid, keyed by the uuid's 64-bit hash (no copy of the uuid: the node
/// holds it); a uuid whose hash an earlier one already holds is kept by its text. Every
/// lookup compares the text, so a hash collision can never alias two uuids.
#[derive(Default)]
struct UuidIndex {
    by_hash: HashMap<u64, usize, WordHashBuilder>,
    collided: HashMap<String, usize>,
}

fn uuid_hash(uuid: &str) -> u64 {
    let mut h = WordHash::default();
    h.write(uuid.as_bytes());
    h.finish()
}

impl UuidIndex {
    fn with_capacity(n: usize) -> Self {
        let mut by_hash = HashMap::default();
        by_hash.reserve(n);
        Self {
            by_hash,
            collided: HashMap::new(),
        }
    }

    /// The node of `uuid` among `nodes` (the nodes this index was built over).
    fn get(&self, uuid: &str, nodes: &[(String, Node)]) -> Option<usize> {
        match self.by_hash.get(&uuid_hash(uuid)) {
            None => None,
            Some(&at) if nodes[at].0 == uuid => Some(at),
            Some(_) => self.collided.get(uuid).copied(),
        }
    }

    /// Records node `at` for `uuid`, which must not be recorded yet.
    fn insert(&mut self, uuid: &str, at: usize) {
        match self.by_hash.entry(uuid_hash(uuid)) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(at);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(uuid.to_owned(), at);
            }
        }
    }
}

/// Why a transcript cannot be decoded. Every variant names the line (1-based) or uuid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A committed (newline-terminated) line that is not a JSON object with a `type`.
    #[error("line {line}: not a transcript record: {reason}")]
    Malformed {
        /// The line.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// A user/assistant/system/attachment row that does not fit its schema.
    #[error("line {line}: invalid {kind} row: {reason}")]
    Schema {
        /// The line.
        line: usize,
        /// The row's type.
        kind: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// The same uuid recorded twice with different content.
    #[error("line {line}: uuid {uuid} conflicts with its first record on line {first_line}")]
    Conflict {
        /// The line of the conflicting repeat.
        line: usize,
        /// The uuid.
        uuid: String,
        /// The line of the first record.
        first_line: usize,
    },
    /// A row of another session.
    #[error("line {line}: row of session {found} in a transcript of session {expected}")]
    SessionMismatch {
        /// The line.
        line: usize,
        /// The session the transcript belongs to.
        expected: String,
        /// The session the row names.
        found: String,
    },
    /// A sidechain row in a main transcript, or the other way round.
    #[error("line {line}: {} row in a {} transcript", side(*found), side(!*found))]
    SidechainMismatch {
        /// The line.
        line: usize,
        /// The row's `isSidechain`.
        found: bool,
    },
    /// `parentUuid` links that loop.
    #[error("line {line}: the parent links of uuid {uuid} form a cycle")]
    Cycle {
        /// The line of a row on the cycle.
        line: usize,
        /// Its uuid.
        uuid: String,
    },
    /// The live head is not in the file yet (the write lags): retry shortly.
    #[error("head {head} is not in the transcript yet (the write may lag); retry shortly")]
    HeadNotWritten {
        /// The head asked for.
        head: String,
    },
    /// No conversation row could be the head.
    #[error("the transcript has no conversation row to start from")]
    NoLeaf,
}

fn side(sidechain: bool) -> &'static str {
    if sidechain { "sidechain" } else { "main" }
}

impl DecodeError {
    /// A stable `snake_case` code.
    pub fn code(&self) -> &'static str {
        match self {
            DecodeError::Malformed { .. } => "transcript_malformed",
            DecodeError::Schema { .. } => "transcript_schema",
            DecodeError::Conflict { .. } => "transcript_conflict",
            DecodeError::SessionMismatch { .. } => "session_mismatch",
            DecodeError::SidechainMismatch { .. } => "sidechain_mismatch",
            DecodeError::Cycle { .. } => "transcript_cycle",
            DecodeError::HeadNotWritten { .. } => "head_not_written",
            DecodeError::NoLeaf => "no_leaf",
        }
    }

    /// True when the same call may succeed shortly (the file is still being written).
    pub fn retryable(&self) -> bool {
        matches!(self, DecodeError::HeadNotWritten { .. })
    }
}

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

/// Decodes a whole transcript.
pub fn decode(bytes: &[u8], options: &Options, head: &Head) -> Result<Transcript, DecodeError> {
    let mut decoder = Decoder::new(options.clone());
    let mut committed: Vec<&[u8]> = Vec::new();
    let mut rest = bytes;
    while let Some(end) = rest.iter().position(|&b| b == b'\n') {
        committed.push(&rest[..end]);
        rest = &rest[end + 1..];
        if committed.len() == 4 * PARALLEL_LINES {
            decoder.feed(&committed)?;
            committed.clear();
        }
    }
    decoder.feed(&committed)?;
    if !rest.is_empty() {
        decoder.line(rest, false)?;
    }
    decoder.finish(head)
}

/// A node of the uuid graph: one uuid, first occurrence first.
struct Node {
    first_line: usize,
    kind: Kind,
    parent: Option<String>,
    /// The first-recorded parent, kept apart only once a repeat changed `parent`.
    first_parent: FirstParent,
    logical_parent: Option<String>,
    preserved: Vec<String>,
    compact: bool,
    boot: Option<u64>,
    duplicated: bool,
    timestamp: Option<String>,
    /// Seq of the first event; the row's events have consecutive seqs.
    seq: u64,
    events: Vec<(Role, Body)>,
}

/// Where a node's first-recorded parent is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FirstParent {
    /// `parent` still is the first-recorded one (the usual case: no copy is kept).
    Same,
    /// A repeat changed `parent`; this was the first-recorded one.
    Was(Option<String>),
}

impl Node {
    /// The parent this row was first recorded with.
    fn first_parent(&self) -> Option<&String> {
        match &self.first_parent {
            FirstParent::Same => self.parent.as_ref(),
            FirstParent::Was(first) => first.as_ref(),
        }
    }
}

/// A line-by-line decoder, for reading a file without holding it whole.
pub struct Decoder {
    options: Options,
    session: Option<String>,
    line: usize,
    next_seq: u64,
    nodes: Vec<(String, Node)>,
    index: UuidIndex,
    done: bool,
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
            index: UuidIndex::default(),
            done: false,
        }
    }

    /// Feeds the next line, without its `\n`; `terminated` is false only for a final
    /// fragment with no `\n` after it (a write in progress when it does not parse).
    pub fn line(&mut self, line: &[u8], terminated: bool) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        self.line_parsed(line, terminated, rows::fast(line))
    }

    /// Feeds committed lines (each without its `\n`), in order: the same as
    /// [`Decoder::line`] for each, with the one-pass parse of a large batch split over two
    /// threads (the rows are still added, and any refusal found, in line order).
    pub fn feed(&mut self, lines: &[&[u8]]) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        let parsed: Vec<Option<rows::Fast>> = if lines.len() >= PARALLEL_LINES {
            let (first, second) = lines.split_at(lines.len() / 2);
            std::thread::scope(|scope| {
                let other =
                    scope.spawn(|| second.iter().map(|l| rows::fast(l)).collect::<Vec<_>>());
                let mut parsed: Vec<_> = first.iter().map(|l| rows::fast(l)).collect();
                match other.join() {
                    Ok(rest) => parsed.extend(rest),
                    // Cannot happen (the parse does not panic); parse the rest here then.
                    Err(_) => parsed.extend(second.iter().map(|l| rows::fast(l))),
                }
                parsed
            })
        } else {
            lines.iter().map(|l| rows::fast(l)).collect()
        };
        for (line, fast) in lines.iter().zip(parsed) {
            self.line_parsed(line, true, fast)?;
        }
        Ok(())
    }

    /// [`Decoder::line`] with the one-pass parse already made.
    fn line_parsed(
        &mut self,
        line: &[u8],
        terminated: bool,
        fast: Option<rows::Fast>,
    ) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        self.line += 1;
        let n = self.line;
        // One pass over the line for the usual record; anything it is not sure of is
        // decided (and refused, with its reason) by the field-by-field parse below.
        match fast {
            Some(rows::Fast::Row(row)) => return self.add(n, row),
            Some(rows::Fast::Other) => return Ok(()),
            None => {}
        }
        let raw: RawRow<'_> = match serde_json::from_slice(line) {
            Ok(raw) => raw,
            Err(_) if !terminated => {
                self.done = true;
                return Ok(());
            }
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
            return Ok(()); // metadata and other record types: no address
        };
        let row = rows::check(kind, &raw).map_err(|reason| DecodeError::Schema {
            line: n,
            kind: kind.name(),
            reason,
        })?;
        self.add(n, row)
    }

    fn add(&mut self, n: usize, row: Row) -> Result<(), DecodeError> {
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
        if let Some(at) = self.index.get(&row.uuid, &self.nodes) {
            let node = &mut self.nodes[at].1;
            if node.kind != row.kind || node.events != row.events || node.boot != row.boot {
                return Err(DecodeError::Conflict {
                    line: n,
                    uuid: row.uuid,
                    first_line: node.first_line,
                });
            }
            // A repeat allocates nothing; its links are the latest.
            if node.first_parent == FirstParent::Same && node.parent != row.parent {
                node.first_parent =
                    FirstParent::Was(std::mem::replace(&mut node.parent, row.parent));
            } else {
                node.parent = row.parent;
            }
            node.duplicated = true;
            if row.compact {
                node.logical_parent = row.logical_parent;
                node.preserved = row.preserved;
            }
            return Ok(());
        }
        let seq = self.next_seq;
        self.next_seq += row.events.len() as u64;
        self.index.insert(&row.uuid, self.nodes.len());
        self.nodes.push((
            row.uuid,
            Node {
                first_line: n,
                kind: row.kind,
                first_parent: FirstParent::Same,
                parent: row.parent,
                logical_parent: row.logical_parent,
                preserved: row.preserved,
                compact: row.compact,
                boot: row.boot,
                duplicated: false,
                timestamp: row.timestamp,
                seq,
                events: row.events,
            },
        ));
        Ok(())
    }

    /// Selects the branch ending at `head` and assigns windows.
    pub fn finish(self, head: &Head) -> Result<Transcript, DecodeError> {
        Graph::new(self).select(head)
    }
}

/// True for a user row holding tool results and no visible text.
fn results_only(node: &Node) -> bool {
    node.kind == Kind::User
        && node.events.len() > 1
        && matches!(node.events.first(), Some((_, Body::Text { text })) if text.trim().is_empty())
        && node.events[1..]
            .iter()
            .all(|(_, b)| matches!(b, Body::ToolResult { .. }))
}

/// A link from a node to its predecessor.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Root,
    Node(usize),
    Missing,
}

struct Graph {
    session: String,
    nodes: Vec<(String, Node)>,
    index: UuidIndex,
    /// Each node's latest parent, resolved.
    latest: Vec<Link>,
    /// Each node's first-recorded parent, resolved.
    first: Vec<Link>,
    /// Each boundary's logical parent (else its parent), resolved.
    logical: Vec<Link>,
}

/// Which parent links a walk follows: the latest ones (the selected branch) or the
/// first-recorded ones (original ancestry, behind a compact boundary).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Latest = 0,
    Original = 1,
}

#[derive(Clone)]
enum Ord {
    Unset,
    Busy,
    Done(Window),
}

impl Graph {
    fn new(decoder: Decoder) -> Self {
        let resolve = |uuid: Option<&String>| match uuid {
            None => Link::Root,
            Some(uuid) => decoder
                .index
                .get(uuid, &decoder.nodes)
                .map_or(Link::Missing, Link::Node),
        };
        // One lookup per node for the usual row; the first-recorded and logical links
        // differ from the latest only after a changing repeat or on a boundary.
        let latest: Vec<Link> = decoder
            .nodes
            .iter()
            .map(|(_, n)| resolve(n.parent.as_ref()))
            .collect();
        let first = decoder
            .nodes
            .iter()
            .zip(&latest)
            .map(|((_, n), &link)| match &n.first_parent {
                FirstParent::Same => link,
                FirstParent::Was(first) => resolve(first.as_ref()),
            })
            .collect();
        let logical = decoder
            .nodes
            .iter()
            .zip(&latest)
            .map(|((_, n), &link)| match &n.logical_parent {
                None => link,
                Some(lp) => resolve(Some(lp)),
            })
            .collect();
        Self {
            session: decoder.session.unwrap_or_default(),
            nodes: decoder.nodes,
            index: decoder.index,
            latest,
            first,
            logical,
        }
    }

    fn link(&self, uuid: Option<&String>) -> Link {
        match uuid {
            None => Link::Root,
            Some(uuid) => self
                .index
                .get(uuid, &self.nodes)
                .map_or(Link::Missing, Link::Node),
        }
    }

    /// The predecessor that decides a node's window, and the ancestry to continue in: a
    /// boundary's logical parent through original ancestry, else the latest parent (or,
    /// in original ancestry, the first-recorded one).
    fn window_parent(&self, i: usize, mode: Mode) -> (Link, Option<&String>, Mode) {
        let node = &self.nodes[i].1;
        if node.compact {
            let uuid = node.logical_parent.as_ref().or(node.parent.as_ref());
            return (self.logical[i], uuid, Mode::Original);
        }
        match mode {
            Mode::Latest => (self.latest[i], node.parent.as_ref(), Mode::Latest),
            Mode::Original => (self.first[i], node.first_parent(), Mode::Original),
        }
    }

    /// The next node of original ancestry: a boundary's logical parent, else the
    /// first-recorded parent. Every node has at most one, so cycles are found in one pass.
    fn original_next(&self, i: usize) -> Link {
        if self.nodes[i].1.compact {
            self.logical[i]
        } else {
            self.first[i]
        }
    }

    fn select(self, head: &Head) -> Result<Transcript, DecodeError> {
        let head = match head {
            Head::Uuid(uuid) => self
                .index
                .get(uuid, &self.nodes)
                .ok_or_else(|| DecodeError::HeadNotWritten { head: uuid.clone() })?,
            Head::Leaf => self.leaf()?,
        };
        let cut = self.cyclic_boundaries();
        let (mut selected, missing) = self.walk(head, &cut);
        self.join_sibling_results(&mut selected);

        let mut ords = [
            vec![Ord::Unset; self.nodes.len()],
            vec![Ord::Unset; self.nodes.len()],
        ];
        let mut windows = Vec::with_capacity(self.nodes.len());
        let mut head_window = Window::Numbered(0);
        let mut path = Vec::new();
        for (i, (_, node)) in self.nodes.iter().enumerate() {
            if !selected[i] {
                windows.push(None);
                continue;
            }
            // A repeated row keeps the window of its first record; everything else, and
            // the children of a repeated row, follow the latest links.
            let mode = if node.duplicated {
                Mode::Original
            } else {
                Mode::Latest
            };
            windows.push(Some(self.ordinal(i, mode, &cut, &mut ords, &mut path)?));
            if i == head {
                head_window = self.ordinal(i, Mode::Latest, &cut, &mut ords, &mut path)?;
            }
        }
        let count = self
            .nodes
            .iter()
            .zip(&windows)
            .filter(|(_, w)| w.is_some())
            .map(|((_, n), _)| n.events.len())
            .sum();
        let mut events = Vec::with_capacity(count);
        for ((uuid, node), window) in self.nodes.into_iter().zip(windows) {
            let Some(window) = window else { continue };
            // The last event takes the row's strings; the others copy them.
            let timestamp = node.timestamp;
            let mut rest = (node.seq..).zip(node.events).peekable();
            while let Some((seq, (role, body))) = rest.next() {
                if rest.peek().is_some() {
                    events.push(Event {
                        seq,
                        role,
                        window: window.clone(),
                        body,
                        record: uuid.clone(),
                        timestamp: timestamp.clone(),
                    });
                } else {
                    events.push(Event {
                        seq,
                        role,
                        window,
                        body,
                        record: uuid,
                        timestamp,
                    });
                    break;
                }
            }
        }
        Ok(Transcript {
            session: SessionRef {
                harness: Harness::Claude,
                id: self.session,
            },
            events,
            missing,
            head_window,
        })
    }

    /// The rows reachable from `head`: latest parents, and behind a boundary its logical
    /// parent and preserved uuids through original ancestry; plus the ancestors that the
    /// walk needed and the file lacks (cut logical edges included), in the order met.
    fn walk(&self, head: usize, cut: &HashSet<usize>) -> (Vec<bool>, Vec<String>) {
        let mut selected = vec![false; self.nodes.len()];
        let mut visited = [vec![false; self.nodes.len()], vec![false; self.nodes.len()]];
        let mut missing: Vec<String> = Vec::new();
        let mut seen_missing: HashSet<&str> = HashSet::new();
        let mut stack = vec![(head, Mode::Latest)];
        while let Some((i, mode)) = stack.pop() {
            if std::mem::replace(&mut visited[mode as usize][i], true) {
                continue;
            }
            selected[i] = true;
            let node = &self.nodes[i].1;
            // The parent edge, through the links resolved once in `Graph::new`.
            let (parent, link) = match mode {
                Mode::Latest => (node.parent.as_ref(), self.latest[i]),
                Mode::Original => (node.first_parent(), self.first[i]),
            };
            match (link, parent) {
                (Link::Node(p), _) => stack.push((p, mode)),
                (Link::Missing, Some(uuid)) if seen_missing.insert(uuid) => {
                    missing.push(uuid.clone());
                }
                _ => {}
            }
            let mut edges: Vec<(Option<&String>, bool, Mode)> = Vec::new();
            if node.compact {
                if !cut.contains(&i) {
                    edges.push((node.logical_parent.as_ref(), true, Mode::Original));
                }
                edges.extend(
                    node.preserved
                        .iter()
                        .map(|p| (Some(p), false, Mode::Original)),
                );
            }
            for (uuid, required, next) in edges {
                match (self.link(uuid), uuid) {
                    (Link::Node(p), _) => stack.push((p, next)),
                    (Link::Missing, Some(uuid)) if required && seen_missing.insert(uuid) => {
                        missing.push(uuid.clone());
                    }
                    _ => {}
                }
            }
        }
        for &i in cut {
            if selected[i]
                && let Some(lp) = &self.nodes[i].1.logical_parent
                && seen_missing.insert(lp)
            {
                missing.push(lp.clone());
            }
        }
        (selected, missing)
    }

    /// The last non-attachment leaf in transcript order, else the last leaf.
    fn leaf(&self) -> Result<usize, DecodeError> {
        let mut referenced = vec![false; self.nodes.len()];
        // A tool-result row beside a sibling is one result of parallel calls: it joins the
        // branch (see `join_sibling_results`) rather than end one.
        let mut children = vec![0_usize; self.nodes.len()];
        for (i, (_, node)) in self.nodes.iter().enumerate() {
            // The links resolved once in `Graph::new` (a boundary's `logical` link is its
            // logical parent, else its parent: marked either way).
            if let Link::Node(p) = self.latest[i] {
                referenced[p] = true;
                children[p] += 1;
            }
            if node.compact {
                if let Link::Node(p) = self.logical[i] {
                    referenced[p] = true;
                }
                for p in &node.preserved {
                    if let Link::Node(p) = self.link(Some(p)) {
                        referenced[p] = true;
                    }
                }
            }
        }
        let sibling_result = |i: usize| {
            results_only(&self.nodes[i].1)
                && matches!(self.latest[i], Link::Node(p) if children[p] > 1)
        };
        let leaves = || (0..self.nodes.len()).rev().filter(|&i| !referenced[i]);
        leaves()
            .find(|&i| self.nodes[i].1.kind != Kind::Attachment && !sibling_result(i))
            .or_else(|| leaves().next())
            .ok_or(DecodeError::NoLeaf)
    }

    /// Boundaries whose logical parent leads back to themselves through original ancestry
    /// (a fork copies the post-compaction chain with the preserved rows re-parented under
    /// the summary, first written there): that edge is ancestry the file does not hold.
    fn cyclic_boundaries(&self) -> HashSet<usize> {
        const NEW: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; self.nodes.len()];
        let mut cut = HashSet::new();
        let mut path = Vec::new();
        for start in 0..self.nodes.len() {
            path.clear();
            let mut at = start;
            loop {
                match state[at] {
                    NEW => {
                        state[at] = ON_PATH;
                        path.push(at);
                        match self.original_next(at) {
                            Link::Node(p) => at = p,
                            Link::Root | Link::Missing => break,
                        }
                    }
                    ON_PATH => {
                        // A cycle: the boundaries on it cut their logical edges. One
                        // without a boundary is a parent cycle, which `ordinal` refuses.
                        if let Some(pos) = path.iter().rposition(|&x| x == at) {
                            cut.extend(path[pos..].iter().filter(|&&c| self.nodes[c].1.compact));
                        }
                        break;
                    }
                    _ => break,
                }
            }
            for &p in &path {
                state[p] = DONE;
            }
        }
        cut
    }

    /// Adds unselected tool-result rows whose parent is selected and that answer a
    /// selected call (parallel tool calls write their results as siblings).
    fn join_sibling_results(&self, selected: &mut [bool]) {
        let calls: HashSet<&str, WordHashBuilder> = self
            .nodes
            .iter()
            .zip(selected.iter())
            .filter(|(_, s)| **s)
            .flat_map(|((_, node), _)| node.events.iter())
            .filter_map(|(_, body)| match body {
                Body::ToolCall { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        for i in 0..self.nodes.len() {
            let node = &self.nodes[i].1;
            if selected[i] || node.kind != Kind::User {
                continue;
            }
            let Link::Node(p) = self.latest[i] else {
                continue;
            };
            let answers_selected = node.events[1..].iter().all(
                |(_, b)| matches!(b, Body::ToolResult { id, .. } if calls.contains(id.as_str())),
            );
            if selected[p] && results_only(node) && answers_selected {
                selected[i] = true;
            }
        }
    }

    /// The window of node `i` through `mode` ancestry (memoised; refuses cycles).
    fn ordinal(
        &self,
        i: usize,
        mode: Mode,
        cut: &HashSet<usize>,
        ords: &mut [Vec<Ord>; 2],
        path: &mut Vec<(usize, Mode)>,
    ) -> Result<Window, DecodeError> {
        path.clear();
        let (mut at, mut at_mode) = (i, mode);
        let mut base = loop {
            match &ords[at_mode as usize][at] {
                Ord::Done(window) => break window.clone(),
                Ord::Busy => {
                    return Err(DecodeError::Cycle {
                        line: self.nodes[at].1.first_line,
                        uuid: self.nodes[at].0.clone(),
                    });
                }
                Ord::Unset => {}
            }
            ords[at_mode as usize][at] = Ord::Busy;
            path.push((at, at_mode));
            if cut.contains(&at) {
                let lp = self.nodes[at].1.logical_parent.clone().unwrap_or_default();
                break Window::Unknown { missing: lp };
            }
            match self.window_parent(at, at_mode) {
                (Link::Root, _, _) => break Window::Numbered(0),
                (Link::Missing, uuid, _) => {
                    break Window::Unknown {
                        missing: uuid.cloned().unwrap_or_default(),
                    };
                }
                (Link::Node(p), _, next) => (at, at_mode) = (p, next),
            }
        };
        // `base` is the window of the predecessor of the last node on the path (a
        // memoised node's own window, or what a root, a gap or a cut boundary starts from).
        for &(node, node_mode) in path.iter().rev() {
            base = self.step(node, base);
            ords[node_mode as usize][node] = Ord::Done(base.clone());
        }
        Ok(base)
    }

    /// The window of `node` given its predecessor's window.
    fn step(&self, node: usize, before: Window) -> Window {
        let n = &self.nodes[node].1;
        if let Some(ordinal) = n.boot {
            return Window::Numbered(ordinal);
        }
        match (n.compact, before) {
            (true, Window::Numbered(k)) => Window::Numbered(k + 1),
            (_, window) => window,
        }
    }
}
