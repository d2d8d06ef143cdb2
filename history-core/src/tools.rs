//! The two tools, `history_list` and `history_read`: arguments, errors and rendering.

use std::fmt::Write as _;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::budget::{ANSWER_LIMIT, AnswerWriter, BudgetedText, bounded_lead, floor_char_boundary};
use crate::history::{Contains, History};
use crate::model::{Body, Event, Role, Seq, Window};
use crate::pieces::Literal;

/// Events a list page shows when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 40;
/// What a read says of an event with no visible text (a tool-only or thinking-only row):
/// its address is kept, and the reader is told why nothing is shown.
pub const NO_VISIBLE_TEXT: &str = "(no visible text was recorded for this event)";
/// The most events one list page may ask for.
pub const MAX_LIMIT: usize = 500;
/// The most characters of an event a folded list line shows.
pub const LINE_CHARS: usize = 160;
/// The most bytes the ancestry-gap notice takes.
pub const NOTICE_LIMIT: usize = 1024;
/// The roles a list shows when `roles` is not given: all but attachments (harness context
/// such as environment and date reminders, listed only when asked for).
pub const DEFAULT_ROLES: [Role; 5] = [
    Role::User,
    Role::Assistant,
    Role::Tool,
    Role::Notice,
    Role::Summary,
];
/// Bytes kept free for a continuation footer.
const FOOTER_RESERVE: usize = 320;

/// The order of a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Newest first (the default): the head's window first, latest event first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
}

/// Arguments of `history_list`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Literal, case-sensitive text to find; events without it are left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Only events with one of these roles (default: [`DEFAULT_ROLES`], all but
    /// attachments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<Role>>,
    /// Only this window: a window id (`claude:<id>:2`) or its window part (`2`,
    /// `unknown:<uuid>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// The `cursor` a previous page returned, to continue after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// The most events on this page (default [`DEFAULT_LIMIT`], at most [`MAX_LIMIT`]; the
    /// [`ANSWER_LIMIT`](crate::ANSWER_LIMIT) budget may end a page sooner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// `newest` (default) or `oldest` first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
}

/// Arguments of `history_read`: one `seq`, or a `from`..=`to` range.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The one event to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<Seq>,
    /// The first seq of a range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Seq>,
    /// The last seq of a range (inclusive; default: `from`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Seq>,
    /// Bytes of the first event's text already read (from a continuation footer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

/// A tool call the model made wrongly; rendered as an answer with [`History::refusal`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// `query` was given but empty.
    #[error("`query` is empty: give the literal text to find, or leave `query` out")]
    EmptyQuery,
    /// `limit` out of range.
    #[error("`limit` {limit} is out of range: use 1 to {MAX_LIMIT}")]
    Limit {
        /// The limit given.
        limit: usize,
    },
    /// The cursor does not name an event of this selection.
    #[error("`cursor` {cursor:?} does not continue this list: start again without a cursor")]
    Cursor {
        /// The cursor given.
        cursor: String,
    },
    /// The window filter names no window of this selection.
    #[error("`window` {window:?} is not a window of this history; windows: {known}")]
    Window {
        /// The window given.
        window: String,
        /// The windows there are.
        known: String,
    },
    /// Neither `seq` nor `from`, or both.
    #[error("give either `seq` (one event) or `from` with an optional `to` (a range)")]
    Selector,
    /// `to` before `from`.
    #[error("range `from` {from} to `to` {to} is empty: `to` must not be below `from`")]
    Range {
        /// The range's start.
        from: Seq,
        /// The range's end.
        to: Seq,
    },
    /// No selected event has this seq.
    #[error("seq {seq} is not an event of this history (seqs run from {first} to {last})")]
    SeqNotFound {
        /// The seq asked for.
        seq: Seq,
        /// The lowest selected seq.
        first: Seq,
        /// The highest selected seq.
        last: Seq,
    },
    /// No selected event lies in the range.
    #[error("no event of this history lies in seqs {from} to {to}")]
    EmptyRange {
        /// The range's start.
        from: Seq,
        /// The range's end.
        to: Seq,
    },
    /// A body left out of the history could not be had again (the transcript changed
    /// while it was read).
    #[error("seq {seq} cannot be read: {reason}")]
    Unreadable {
        /// The event.
        seq: Seq,
        /// Why.
        reason: String,
    },
    /// The offset is past the end of the first event's text.
    #[error("`offset` {offset} is past the end of seq {seq}'s text ({len} bytes)")]
    Offset {
        /// The offset given.
        offset: usize,
        /// The event it applies to.
        seq: Seq,
        /// The length of that event's text.
        len: usize,
    },
}

impl QueryError {
    /// A stable `snake_case` code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            QueryError::EmptyQuery => "empty_query",
            QueryError::Limit { .. } => "bad_limit",
            QueryError::Cursor { .. } => "bad_cursor",
            QueryError::Window { .. } => "unknown_window",
            QueryError::Selector => "bad_selector",
            QueryError::Range { .. } => "bad_range",
            QueryError::SeqNotFound { .. } => "seq_not_found",
            QueryError::EmptyRange { .. } => "empty_range",
            QueryError::Offset { .. } => "bad_offset",
            QueryError::Unreadable { .. } => "transcript_changed",
        }
    }
}

/// A tool's answer: the text the model reads (within [`ANSWER_LIMIT`]) and the facts a
/// host may want beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The rendered answer.
    pub text: BudgetedText,
    /// Seqs of the events shown (documents: a call stands for its paired result).
    pub shown: Vec<Seq>,
    /// Lists: how many events match from this page on (this page and the ones after);
    /// reads: how many documents the range holds.
    pub matched: usize,
    /// The cursor for the next list page, or `None` at the end.
    pub next_cursor: Option<String>,
    /// The arguments that continue a cut read, or `None` when it was complete.
    pub next_read: Option<ReadArgs>,
}

/// A history whose answers open with a front end's lead ([`History::led`]): a fact of
/// what lies around the history, not of it (a vault that could not be read, so sessions
/// only it holds are missing), at most [`LEAD_LIMIT`](crate::LEAD_LIMIT) bytes. The lead
/// comes first, then the history's own notice, and the page takes the room left: the
/// answer stays within [`ANSWER_LIMIT`], its footer whole.
#[derive(Debug, Clone, Copy)]
pub struct Led<'a> {
    history: &'a History,
    lead: &'a str,
}

impl Led<'_> {
    /// [`History::list`], after the lead.
    pub fn list(&self, args: &ListArgs) -> Result<Answer, QueryError> {
        self.history.list_leaving_out(args, None, self.lead)
    }

    /// [`History::list_asked_by`], after the lead.
    pub fn list_asked_by(&self, args: &ListArgs, call: &str) -> Result<Answer, QueryError> {
        let left_out = self.history.pending_call(call);
        self.history.list_leaving_out(args, left_out, self.lead)
    }

    /// [`History::read`], after the lead.
    pub fn read(&self, args: &ReadArgs) -> Result<Answer, QueryError> {
        self.history.read_after(self.lead, args)
    }

    /// [`History::refusal`], after the lead.
    pub fn refusal(&self, tool: &str, error: &QueryError) -> BudgetedText {
        self.history.refusal_after(self.lead, tool, error)
    }
}

impl History {
    /// The searchable, readable text of the document at `index` (a call with its result),
    /// its elided bodies decoded.
    pub(crate) fn document_text(&self, index: usize, out: &mut String) -> Result<(), QueryError> {
        self.document_pieces(
            index,
            |i| {
                self.body(i).map_err(|reason| QueryError::Unreadable {
                    seq: self.event_at(i).seq,
                    reason,
                })
            },
            |piece, _| out.push_str(piece),
        )
    }

    /// The text a list searches and folds for the document at `index`: an event's own text
    /// when it is whole, else [`History::search_text`] in `scratch`; its marks in `marks`.
    fn listed_text<'a>(
        &'a self,
        index: usize,
        elided: bool,
        scratch: &'a mut String,
        marks: &mut Vec<Range<usize>>,
    ) -> Result<&'a str, QueryError> {
        if let Body::Text { text } = &self.event_at(index).body
            && !elided
        {
            marks.clear();
            return Ok(text);
        }
        self.search_text(index, scratch, marks)?;
        Ok(scratch)
    }

    /// [`History::document_text`] in `out`, and where its marks lie in it (the ranges a
    /// search passes over: [`History::document_pieces`]) in `marks`, both emptied first.
    pub(crate) fn search_text(
        &self,
        index: usize,
        out: &mut String,
        marks: &mut Vec<Range<usize>>,
    ) -> Result<(), QueryError> {
        out.clear();
        marks.clear();
        self.document_pieces(
            index,
            |i| {
                self.body(i).map_err(|reason| QueryError::Unreadable {
                    seq: self.event_at(i).seq,
                    reason,
                })
            },
            |piece, mark| {
                if mark && !piece.is_empty() {
                    marks.push(out.len()..out.len() + piece.len());
                }
                out.push_str(piece);
            },
        )
    }

    /// The bounded ancestry-gap notice, or `""` when ancestry is complete.
    pub fn notice(&self) -> String {
        let missing = self.missing();
        if missing.is_empty() {
            return String::new();
        }
        let mut out = format!(
            "[notice: ancestry is incomplete; {} missing record(s): ",
            missing.len()
        );
        let tail_room = 120;
        for (i, id) in missing.iter().enumerate() {
            let piece = if i == 0 {
                id.clone()
            } else {
                format!(", {id}")
            };
            if out.len() + piece.len() + tail_room > NOTICE_LIMIT {
                let _ = write!(out, " and {} more", missing.len() - i);
                break;
            }
            out.push_str(&piece);
        }
        out.push_str(". Events cut off from the start are in windows named unknown:<id>.]\n");
        out
    }

    /// This history, its answers opening with a front end's `lead` ([`Led`]).
    pub fn led<'a>(&'a self, lead: &'a str) -> Led<'a> {
        Led {
            history: self,
            lead: bounded_lead(lead),
        }
    }

    /// The answer to a call that failed with `error`, notice included.
    pub fn refusal(&self, tool: &str, error: &QueryError) -> BudgetedText {
        self.refusal_after("", tool, error)
    }

    fn refusal_after(&self, lead: &str, tool: &str, error: &QueryError) -> BudgetedText {
        let mut writer = AnswerWriter::new(ANSWER_LIMIT, 0);
        writer.push(lead);
        writer.push(&self.notice());
        writer.push_prefix(&format!("{tool} refused ({}): {error}\n", error.code()));
        writer.finish("")
    }

    /// `history_list`: one folded line per event, newest first unless asked otherwise,
    /// continued with a cursor.
    pub fn list(&self, args: &ListArgs) -> Result<Answer, QueryError> {
        self.list_leaving_out(args, None, "")
    }

    /// `history_list` asked by the tool call `call` (the host's id of the running call, its
    /// `tool_use_id` in Claude): that call, still pending in this history, is left out, so a
    /// search of the running session never finds its own question.
    pub fn list_asked_by(&self, args: &ListArgs, call: &str) -> Result<Answer, QueryError> {
        self.list_leaving_out(args, self.pending_call(call), "")
    }

    /// The newest call with id `id` that has no result yet.
    fn pending_call(&self, id: &str) -> Option<usize> {
        let events = self.events();
        (0..events.len()).rev().find(|&index| {
            matches!(&events[index].body, Body::ToolCall { id: call, .. } if call == id)
                && self.partner(events[index].seq).is_none()
        })
    }

    fn list_leaving_out(
        &self,
        args: &ListArgs,
        left_out: Option<usize>,
        lead: &str,
    ) -> Result<Answer, QueryError> {
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 || limit > MAX_LIMIT {
            return Err(QueryError::Limit { limit });
        }
        let query = match args.query.as_deref() {
            Some("") => return Err(QueryError::EmptyQuery),
            other => other,
        };
        let window = args
            .window
            .as_deref()
            .map(|w| self.resolve_window(w))
            .transpose()?;
        let literal = query.map(Literal::new);
        let (positions, candidates) = self.list_positions(args, literal.as_ref())?;
        let roles = Some(args.roles.as_deref().unwrap_or(&DEFAULT_ROLES));
        let mut writer = AnswerWriter::new(ANSWER_LIMIT, FOOTER_RESERVE);
        writer.push(lead);
        writer.push(&self.notice());
        let mut lines = String::new();
        let mut shown = Vec::new();
        let mut matched = 0;
        let mut full = false;
        let mut last_window: Option<&Window> = None;
        let mut next_cursor = None;
        let mut scratch = String::new();
        let mut marks = Vec::new();
        for pos in positions {
            let index = self.at_position(pos);
            let event = self.event_at(index);
            if !self.listed(index) || left_out == Some(index) || !History::role_admits(roles, event)
            {
                continue;
            }
            if window.as_ref().is_some_and(|w| *w != event.window) {
                continue;
            }
            if full && query.is_none() {
                matched += 1;
                continue;
            }
            // A document with a body left out is decoded only when it may hold the query
            // (or, without one, when it is shown).
            let elided = self.elided_document(index);
            if elided
                && literal
                    .as_ref()
                    .is_some_and(|l| !self.may_match(index, l, &candidates))
            {
                continue;
            }
            // Once the page is full (or has its `limit`) a match is only counted: a
            // left-out body the source says surely holds the query is not decoded for that.
            if elided && (full || shown.len() == limit) && self.surely_matches(index, &candidates) {
                matched += 1;
                if !full {
                    full = true;
                    next_cursor = shown.last().map(|seq| format!("s{seq}"));
                }
                continue;
            }
            let doc = self.listed_text(index, elided, &mut scratch, &mut marks)?;
            // The leftmost match of the literal outside the document's marks, a byte offset
            // on a char boundary (both are UTF-8), found with SIMD.
            let hit = match &literal {
                Some(l) => match l.find_outside(doc, &marks) {
                    Some(found) => Some((found.start, l.text.len())),
                    None => continue,
                },
                None => None,
            };
            matched += 1;
            if full {
                continue;
            }
            lines.clear();
            if last_window != Some(&event.window) {
                let _ = writeln!(
                    lines,
                    "== window {} ==",
                    self.session().window_id(&event.window)
                );
            }
            fold_line(event, doc, hit, &mut lines);
            if shown.len() == limit || !writer.push(&lines) {
                full = true;
                next_cursor = shown.last().map(|seq| format!("s{seq}"));
                continue;
            }
            last_window = Some(&event.window);
            shown.push(event.seq);
        }
        let footer = list_footer(shown.len(), matched, next_cursor.as_deref(), query);
        Ok(Answer {
            text: writer.finish(&footer),
            shown,
            matched,
            next_cursor,
            next_read: None,
        })
    }

    /// The positions a list visits, in its order, after its cursor, and, for a literal,
    /// which left-out bodies may hold it ([`History::candidates`]: one pass of the source
    /// per list): every position, or the ones [`History::bounded_positions`] gives.
    #[allow(clippy::type_complexity, reason = "a private helper's two results")]
    fn list_positions(
        &self,
        args: &ListArgs,
        literal: Option<&Literal<'_>>,
    ) -> Result<(Box<dyn Iterator<Item = usize>>, Vec<Option<Contains>>), QueryError> {
        let len = self.events().len();
        let order = args.order.unwrap_or_default();
        let range = match &args.cursor {
            None => 0..len,
            Some(cursor) => {
                let after = self.cursor_position(cursor)?;
                match order {
                    Order::Oldest => after + 1..len,
                    Order::Newest => 0..after,
                }
            }
        };
        let (candidates, named) = literal
            .map(|l| self.candidates_named(l.text))
            .unwrap_or_default();
        let bound = literal
            .zip(named.as_deref())
            .and_then(|(literal, named)| self.bounded_positions(literal, named));
        let positions: Box<dyn Iterator<Item = usize>> = match (bound, order) {
            (None, Order::Oldest) => Box::new(range),
            (None, Order::Newest) => Box::new(range.rev()),
            (Some(mut bound), order) => {
                bound.truncate(bound.partition_point(|&p| p < range.end));
                bound.drain(..bound.partition_point(|&p| p < range.start));
                match order {
                    Order::Oldest => Box::new(bound.into_iter()),
                    Order::Newest => Box::new(bound.into_iter().rev()),
                }
            }
        };
        Ok((positions, candidates))
    }

    /// `history_read`: one event (a paired result's seq shows its call) or a range of seqs,
    /// whole documents in seq order, continued with an offset when the budget ends one.
    pub fn read(&self, args: &ReadArgs) -> Result<Answer, QueryError> {
        self.read_after("", args)
    }

    fn read_after(&self, lead: &str, args: &ReadArgs) -> Result<Answer, QueryError> {
        // `from` without `to` reads on to the last event, as far as the answer holds (its
        // footer continues it), as "first seq of a range" reads.
        let (from, to) = match (args.seq, args.from, args.to) {
            (Some(seq), None, None) => (seq, Some(seq)),
            (None, Some(from), to) => (from, to),
            _ => return Err(QueryError::Selector),
        };
        if let Some(to) = to.filter(|&to| to < from) {
            return Err(QueryError::Range { from, to });
        }
        let events = self.events();
        let (Some(first), Some(last)) = (events.first(), events.last()) else {
            return Err(QueryError::SeqNotFound {
                seq: from,
                first: 0,
                last: 0,
            });
        };
        // Open-ended past the last event: the seq named is not there.
        let to = to.unwrap_or_else(|| last.seq.max(from));
        let start = events.partition_point(|e| e.seq < from);
        let end = events.partition_point(|e| e.seq <= to);
        if start >= end {
            return Err(if from == to {
                QueryError::SeqNotFound {
                    seq: from,
                    first: first.seq,
                    last: last.seq,
                }
            } else {
                QueryError::EmptyRange { from, to }
            });
        }
        let mut documents: Vec<usize> = (start..end).map(|i| self.document_of(i)).collect();
        documents.sort_unstable_by_key(|&i| events[i].seq);
        documents.dedup();
        let mut writer = AnswerWriter::new(ANSWER_LIMIT, FOOTER_RESERVE);
        writer.push(lead);
        writer.push(&self.notice());
        let mut shown = Vec::new();
        let mut next_read = None;
        let mut body = String::new();
        let mut header = String::new();
        for (n, &index) in documents.iter().enumerate() {
            let event = &events[index];
            body.clear();
            self.document_text(index, &mut body)?;
            let offset = if n == 0 { args.offset.unwrap_or(0) } else { 0 };
            if offset > body.len() {
                return Err(QueryError::Offset {
                    offset,
                    seq: event.seq,
                    len: body.len(),
                });
            }
            let offset = floor_char_boundary(&body, offset);
            header.clear();
            if n > 0 {
                header.push('\n');
            }
            self.document_header(index, offset, &mut header);
            if !writer.push(&header) {
                next_read = Some(continuation(args, event.seq, to, 0));
                break;
            }
            let rest = if body.is_empty() {
                NO_VISIBLE_TEXT
            } else {
                &body[offset..]
            };
            let written = writer.push_prefix(rest);
            shown.push(event.seq);
            if written < rest.len() {
                next_read = Some(continuation(args, event.seq, to, offset + written));
                break;
            }
            writer.push("\n");
        }
        let footer = match &next_read {
            Some(next) => format!(
                "\n[cut at the 32 KiB budget; more: history_read {} on the same session]\n",
                render_args(next)
            ),
            None => String::new(),
        };
        Ok(Answer {
            text: writer.finish(&footer),
            shown,
            matched: documents.len(),
            next_cursor: None,
            next_read,
        })
    }

    pub(crate) fn resolve_window(&self, given: &str) -> Result<Window, QueryError> {
        let prefix = format!("{}:", self.session());
        let part = given.strip_prefix(&prefix).unwrap_or(given);
        let windows = self.windows();
        windows
            .iter()
            .find(|w| w.to_string() == part)
            .map(|w| (*w).clone())
            .ok_or_else(|| QueryError::Window {
                window: given.to_owned(),
                known: clip(
                    &windows
                        .iter()
                        .map(|w| self.session().window_id(w))
                        .collect::<Vec<_>>()
                        .join(", "),
                    400,
                ),
            })
    }

    pub(crate) fn cursor_position(&self, cursor: &str) -> Result<usize, QueryError> {
        cursor
            .strip_prefix('s')
            .and_then(|s| s.parse::<Seq>().ok())
            .and_then(|seq| self.index_of(seq))
            .map(|index| self.position(index))
            .ok_or_else(|| QueryError::Cursor {
                cursor: cursor.to_owned(),
            })
    }

    /// True when the document at `index` has a body left out (its own, or a call's result).
    pub(crate) fn elided_document(&self, index: usize) -> bool {
        self.elided(index).is_some()
            || matches!(self.event_at(index).body, Body::ToolCall { .. })
                && self
                    .partner_index(index)
                    .is_some_and(|r| self.elided(r).is_some())
    }

    /// True when a left-out body of the document at `index` (its own, or its call's result)
    /// surely holds the query (`candidates`: [`History::candidates`] of it): the document,
    /// which holds that body whole, matches.
    fn surely_matches(&self, index: usize, candidates: &[Option<Contains>]) -> bool {
        let surely = |i: usize| candidates.get(i).copied().flatten() == Some(Contains::Surely);
        surely(index)
            || matches!(self.event_at(index).body, Body::ToolCall { .. })
                && self.partner_index(index).is_some_and(surely)
    }

    fn document_header(&self, index: usize, offset: usize, out: &mut String) {
        let event = self.event_at(index);
        let _ = write!(out, "#{} {}", event.seq, event.role);
        if let Body::ToolCall { id, .. } | Body::ToolResult { id, .. } = &event.body {
            let _ = write!(out, " {id}");
        }
        let _ = write!(out, " · {}", self.session().window_id(&event.window));
        if let Some(ts) = &event.timestamp {
            let _ = write!(out, " · {ts}");
        }
        if offset > 0 {
            let _ = write!(out, " · from byte {offset}");
        }
        out.push('\n');
    }
}

/// The last line of a list page: where to continue, or why it is empty, or its end.
fn list_footer(shown: usize, matched: usize, cursor: Option<&str>, query: Option<&str>) -> String {
    match cursor {
        Some(cursor) => format!(
            "[{shown} of {matched} shown; more: history_list with \"cursor\":\"{cursor}\" and the same query, roles, window, order and session]\n"
        ),
        None if matched == 0 => match query {
            Some(q) => format!("[no event matches {:?}]\n", clip(q, 100)),
            None => "[no events]\n".to_owned(),
        },
        None => format!("[end: {matched} event(s)]\n"),
    }
}

fn continuation(args: &ReadArgs, seq: Seq, to: Seq, offset: usize) -> ReadArgs {
    let offset = (offset > 0).then_some(offset);
    if args.seq.is_some() || seq == to {
        ReadArgs {
            seq: Some(seq),
            offset,
            ..ReadArgs::default()
        }
    } else {
        ReadArgs {
            from: Some(seq),
            to: Some(to),
            offset,
            ..ReadArgs::default()
        }
    }
}

fn render_args(args: &ReadArgs) -> String {
    let mut out = String::from("{");
    let mut sep = "";
    for (name, value) in [
        ("seq", args.seq.map(|v| v.to_string())),
        ("from", args.from.map(|v| v.to_string())),
        ("to", args.to.map(|v| v.to_string())),
        ("offset", args.offset.map(|v| v.to_string())),
    ] {
        if let Some(value) = value {
            let _ = write!(out, "{sep}\"{name}\":{value}");
            sep = ",";
        }
    }
    out.push('}');
    out
}

/// One folded line: `#<seq> <role>: <text on one line, at most LINE_CHARS chars>`, the
/// window of a query hit shown around the hit.
fn fold_line(event: &Event, text: &str, hit: Option<(usize, usize)>, out: &mut String) {
    let _ = write!(out, "#{} {}", event.seq, event.role);
    if let Body::ToolCall { .. } = &event.body {
        out.push_str(" call");
    }
    out.push_str(": ");
    let start = match hit {
        Some((at, _)) => {
            // Start up to 40 chars before the hit.
            let before = &text[..at];
            let back = before.char_indices().rev().nth(39).map_or(0, |(i, _)| i);
            if back > 0 {
                out.push('…');
            }
            back
        }
        None => 0,
    };
    let mut chars = 0;
    let mut space = false;
    for ch in text[start..].chars() {
        if chars >= LINE_CHARS {
            out.push('…');
            break;
        }
        if ch.is_whitespace() {
            space = true;
            continue;
        }
        if space && chars > 0 {
            out.push(' ');
            chars += 1;
        }
        space = false;
        out.push(ch);
        chars += 1;
    }
    out.push('\n');
}

fn clip(text: &str, max: usize) -> String {
    let end = floor_char_boundary(text, max);
    if end < text.len() {
        format!("{}…", &text[..end])
    } else {
        text.to_owned()
    }
}
