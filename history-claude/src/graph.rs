//! The uuid graph of a fed transcript: the selected branch from the head, the windows,
//! and the [`Transcript`] handed over.

use std::collections::{HashMap, HashSet};

use notesoup_history_core::{
    Body, Event, SessionRef, SharedText, Transcript, Window, WordHashBuilder,
};
use notesoup_window::Host;

use crate::decoder::{Decoder, ElidedRow, FirstParent, Node, Parent, Skeleton};
use crate::elided::blank_first;
use crate::rows::Kind;
use crate::spans::TextSpan;
use crate::uuids::UuidIndex;
use crate::{DecodeError, Head};

/// True for a user row holding tool results and no visible text (`all`: the decoder's
/// flat event list).
pub(crate) fn results_only(node: &Node, all: &[Event]) -> bool {
    let events = node.events(all);
    let blank = match node.elided {
        Some(elided) => elided.blank,
        None => blank_first(events),
    };
    node.kind == Kind::User
        && events.len() > 1
        && matches!(
            events.first(),
            Some(Event {
                body: Body::Text { .. },
                ..
            })
        )
        && blank
        && events[1..]
            .iter()
            .all(|e| matches!(e.body, Body::ToolResult { .. }))
}

/// How a fed [`Decoder`] hands its transcript over: through the graph of its nodes.
impl Decoder {
    /// Selects the branch ending at `head` and assigns windows.
    pub fn finish(self, head: &Head) -> Result<Transcript, DecodeError> {
        Graph::new(self, head)
            .select(head)
            .map(|(transcript, _, _, _)| transcript)
    }

    /// [`Decoder::finish`] for a decoder that may have resumed a structure-only state
    /// ([`Decoder::resume`]): the events of the rows that state covered are placeholders
    /// (ids, names and flags, no texts or inputs), and [`Skeleton`] says which, and on which
    /// line each such row was first recorded, so a caller can decode just the lines an
    /// answer needs ([`ElidedRow::reload`]).
    pub fn finish_skeleton(self, head: &Head) -> Result<Skeleton, DecodeError> {
        Graph::new(self, head)
            .select(head)
            .map(|(transcript, elided, rows, spans)| Skeleton {
                transcript,
                elided,
                rows,
                spans,
            })
    }
}

/// A link from a node to its predecessor.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Root,
    Node(usize),
    Missing,
}

pub(crate) struct Graph {
    session: String,
    nodes: Vec<(SharedText, Node)>,
    /// The decoder's flat event list.
    events: Vec<Event>,
    /// The decoder's flat list of spans.
    spans: Vec<TextSpan>,
    index: UuidIndex,
    /// Each node's latest parent, resolved (the first-recorded and logical parents, which
    /// differ from it only after a changing repeat or on a boundary, are resolved when
    /// asked: [`Graph::first`], [`Graph::logical`]).
    latest: Vec<Link>,
}

/// Which parent links a walk follows: the latest ones (the selected branch) or the
/// first-recorded ones (original ancestry, behind a compact boundary).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Latest = 0,
    Original = 1,
}

/// A node's window as [`Graph::ordinal`] memoises it: not yet known, being found (met
/// again on the path: a cycle), or else the place of the window in a [`Windows`] table
/// (a `Vec` never holds `usize::MAX - 1` windows).
const UNSET: usize = usize::MAX;
const BUSY: usize = usize::MAX - 1;

/// The distinct windows of a selection, each kept once: nodes name theirs by its place
/// (a word a node rather than a window each, and no copy of a window's text).
#[derive(Default)]
struct Windows {
    all: Vec<Window>,
    at: HashMap<Window, usize>,
}

impl Windows {
    /// The place of `window`, added if new.
    fn place(&mut self, window: Window) -> usize {
        // Consecutive nodes are mostly in one window.
        if let Some(last) = self.all.last()
            && *last == window
        {
            return self.all.len() - 1;
        }
        if let Some(&at) = self.at.get(&window) {
            return at;
        }
        let at = self.all.len();
        self.all.push(window.clone());
        self.at.insert(window, at);
        at
    }

    fn get(&self, at: usize) -> &Window {
        &self.all[at]
    }
}

impl Graph {
    /// The graph of `decoder`'s nodes, for the selection of the branch ending at `head`.
    pub(crate) fn new(decoder: Decoder, head: &Head) -> Self {
        // Every uuid the graph looks up: the head, and the links a node names by text (a
        // resumed decoder fed nothing since finds just these, without its whole map).
        let head_uuid = match head {
            Head::Uuid(uuid) => Some(uuid.as_str()),
            Head::Leaf => None,
        };
        let named = decoder.nodes.iter().flat_map(|(_, n)| {
            let first = match n.first_parent_kept() {
                FirstParent::Same => None,
                FirstParent::Was(first) => first.as_ref(),
            };
            [n.parent_uuid(), first, n.logical_parent()]
                .into_iter()
                .flatten()
                .chain(n.preserved())
                .map(String::as_str)
        });
        let index = decoder
            .uuids
            .into_index(&decoder.nodes, head_uuid.into_iter().chain(named));
        let resolve = |uuid: Option<&String>| match uuid {
            None => Link::Root,
            Some(uuid) => index
                .get(uuid, &decoder.nodes)
                .map_or(Link::Missing, Link::Node),
        };
        // No lookup for a parent named by its place (every state row's, and every fed row's
        // whose parent came first); the first-recorded and logical links, which differ from
        // the latest only after a changing repeat or on a boundary, are resolved when asked.
        let latest: Vec<Link> = decoder
            .nodes
            .iter()
            .map(|(_, n)| match &n.parent {
                Some(Parent::At(at)) => Link::Node(*at),
                _ => resolve(n.parent_uuid()),
            })
            .collect();
        Self {
            session: decoder.session.unwrap_or_default(),
            nodes: decoder.nodes,
            events: decoder.events,
            spans: decoder.spans,
            index,
            latest,
        }
    }

    /// Node `i`'s first-recorded parent, resolved: its latest one unless a repeat moved it.
    fn first(&self, i: usize) -> Link {
        match self.nodes[i].1.first_parent_kept() {
            FirstParent::Same => self.latest[i],
            FirstParent::Was(first) => self.link(first.as_ref()),
        }
    }

    /// A boundary's logical parent (else node `i`'s latest parent), resolved.
    fn logical(&self, i: usize) -> Link {
        match self.nodes[i].1.logical_parent() {
            None => self.latest[i],
            Some(lp) => self.link(Some(lp)),
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
            let uuid = node.logical_parent().or(node.parent_uuid());
            return (self.logical(i), uuid, Mode::Original);
        }
        match mode {
            Mode::Latest => (self.latest[i], node.parent_uuid(), Mode::Latest),
            Mode::Original => (self.first(i), node.first_parent(), Mode::Original),
        }
    }

    /// The next node of original ancestry: a boundary's logical parent, else the
    /// first-recorded parent. Every node has at most one, so cycles are found in one pass.
    fn original_next(&self, i: usize) -> Link {
        if self.nodes[i].1.compact {
            self.logical(i)
        } else {
            self.first(i)
        }
    }

    /// The selected transcript, with for each of its events whether its body was elided
    /// (and then whether it is a blank text), every elided row, and the spans they name.
    #[allow(clippy::type_complexity, reason = "a private helper's four results")]
    pub(crate) fn select(
        self,
        head: &Head,
    ) -> Result<(Transcript, Vec<Option<bool>>, Vec<ElidedRow>, Vec<TextSpan>), DecodeError> {
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

        let mut ords = [vec![UNSET; self.nodes.len()], vec![UNSET; self.nodes.len()]];
        let mut table = Windows::default();
        // Each node's window (a place in `table`; UNSET for a node not selected).
        let mut windows = Vec::with_capacity(self.nodes.len());
        let mut head_window = Window::Numbered(0);
        let mut path = Vec::new();
        for (i, (_, node)) in self.nodes.iter().enumerate() {
            if !selected[i] {
                windows.push(UNSET);
                continue;
            }
            // A repeated row keeps the window of its first record; everything else, and
            // the children of a repeated row, follow the latest links.
            let mode = if node.duplicated {
                Mode::Original
            } else {
                Mode::Latest
            };
            windows.push(self.ordinal(i, mode, &cut, &mut ords, &mut table, &mut path)?);
            if i == head {
                let at = self.ordinal(i, Mode::Latest, &cut, &mut ords, &mut table, &mut path)?;
                head_window = table.get(at).clone();
            }
        }
        // The selected rows' events stay where they are, their windows set; the others
        // are dropped in place (no body is copied).
        let mut events = self.events;
        let mut keep = vec![false; events.len()];
        let mut elided = vec![None; events.len()];
        let mut rows = Vec::with_capacity(self.nodes.len());
        // The nodes are walked in place (no node moved).
        for ((_, node), window) in self.nodes.iter().zip(windows) {
            let range = node.first_event..node.first_event + node.event_count;
            if let Some(e) = node.elided {
                rows.push(ElidedRow::new(node, e.fingerprint, node.spans.clone()));
                elided[range.clone()].fill(Some(false));
                elided[node.first_event] = Some(e.blank);
            }
            if window == UNSET {
                continue;
            }
            let window = table.get(window);
            for event in &mut events[range.clone()] {
                event.window.clone_from(window);
            }
            keep[range].fill(true);
        }
        let mut kept = keep.iter();
        events.retain(|_| kept.next().copied().unwrap_or(false));
        let mut kept = keep.iter();
        elided.retain(|_| kept.next().copied().unwrap_or(false));
        let transcript = Transcript {
            session: SessionRef {
                harness: Host::Claude,
                id: self.session,
            },
            events,
            missing,
            head_window,
        };
        Ok((transcript, elided, rows, self.spans))
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
            // The parent edge, through the latest links resolved in `Graph::new`.
            let (parent, link) = match mode {
                Mode::Latest => (node.parent_uuid(), self.latest[i]),
                Mode::Original => (node.first_parent(), self.first(i)),
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
                    edges.push((node.logical_parent(), true, Mode::Original));
                }
                edges.extend(
                    node.preserved()
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
                && let Some(lp) = self.nodes[i].1.logical_parent()
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
            // The latest links resolved in `Graph::new`, and a boundary's logical link (its
            // logical parent, else its parent: marked either way).
            if let Link::Node(p) = self.latest[i] {
                referenced[p] = true;
                children[p] += 1;
            }
            if node.compact {
                if let Link::Node(p) = self.logical(i) {
                    referenced[p] = true;
                }
                for p in node.preserved() {
                    if let Link::Node(p) = self.link(Some(p)) {
                        referenced[p] = true;
                    }
                }
            }
        }
        let sibling_result = |i: usize| {
            results_only(&self.nodes[i].1, &self.events)
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
        // The rows that may join: unselected tool-result rows under a selected parent
        // (none, on a branch that holds every row: then no call ids are gathered).
        let joining = |i: usize, selected: &[bool]| {
            let node = &self.nodes[i].1;
            !selected[i]
                && node.kind == Kind::User
                && matches!(self.latest[i], Link::Node(p) if selected[p])
                && results_only(node, &self.events)
        };
        if !(0..self.nodes.len()).any(|i| joining(i, selected)) {
            return;
        }
        let calls: HashSet<&str, WordHashBuilder> = self
            .nodes
            .iter()
            .zip(selected.iter())
            .filter(|(_, s)| **s)
            .flat_map(|((_, node), _)| node.events(&self.events))
            .filter_map(|e| match &e.body {
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
            let answers_selected = node.events(&self.events)[1..].iter().all(
                |e| matches!(&e.body, Body::ToolResult { id, .. } if calls.contains(id.as_str())),
            );
            if selected[p] && results_only(node, &self.events) && answers_selected {
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
        ords: &mut [Vec<usize>; 2],
        windows: &mut Windows,
        path: &mut Vec<(usize, Mode)>,
    ) -> Result<usize, DecodeError> {
        path.clear();
        let (mut at, mut at_mode) = (i, mode);
        // What the path starts from, the window of the predecessor of its last node: a
        // memoised node's, by its place in `windows`, or (no place yet) what a root, a gap
        // or a cut boundary starts from.
        let (mut place, mut base) = loop {
            match ords[at_mode as usize][at] {
                UNSET => {}
                BUSY => {
                    return Err(DecodeError::Cycle {
                        line: self.nodes[at].1.first_line,
                        uuid: self.nodes[at].0.to_string(),
                    });
                }
                // `i` itself is memoised.
                done if path.is_empty() => return Ok(done),
                done => break (done, None),
            }
            ords[at_mode as usize][at] = BUSY;
            path.push((at, at_mode));
            // Only boundaries are ever cut (most nodes are not one: no lookup for them).
            if self.nodes[at].1.compact && cut.contains(&at) {
                let lp = self.nodes[at]
                    .1
                    .logical_parent()
                    .cloned()
                    .unwrap_or_default();
                break (UNSET, Some(Window::Unknown { missing: lp }));
            }
            match self.window_parent(at, at_mode) {
                (Link::Root, _, _) => break (UNSET, Some(Window::Numbered(0))),
                (Link::Missing, uuid, _) => {
                    let missing = uuid.cloned().unwrap_or_default();
                    break (UNSET, Some(Window::Unknown { missing }));
                }
                (Link::Node(p), _, next) => (at, at_mode) = (p, next),
            }
        };
        // The path holds `i` at least (it was not memoised), last in this loop. A node
        // that is neither a boundary nor a boot keeps its predecessor's window ([`step`]):
        // its place, once known, with no window built or looked up.
        for &(node, node_mode) in path.iter().rev() {
            let n = &self.nodes[node].1;
            if place == UNSET || n.compact || n.boot().is_some() {
                let before = base.take().unwrap_or_else(|| windows.get(place).clone());
                place = windows.place(self.step(node, before));
            }
            ords[node_mode as usize][node] = place;
        }
        Ok(place)
    }

    /// The window of `node` given its predecessor's window.
    fn step(&self, node: usize, before: Window) -> Window {
        let n = &self.nodes[node].1;
        if let Some(ordinal) = n.boot() {
            return Window::Numbered(ordinal);
        }
        match (n.compact, before) {
            (true, Window::Numbered(k)) => Window::Numbered(k + 1),
            (_, window) => window,
        }
    }
}
