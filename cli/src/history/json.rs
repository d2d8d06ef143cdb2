//! The `--json` documents of `notesoup history`: data, not the model's rendered text.
//! Every time is RFC 3339 in UTC; an event is an object with its seq, role, time, window,
//! text and, for a tool use, the tool's name, input (the JSON the harness recorded, as
//! JSON) and result.

use notesoup_app::history::{SessionHits, SessionRow};
use notesoup_history_core::Document;
use notesoup_window::{format_rfc3339, parse_moment};
use serde::Serialize;
use serde_json::Value;

/// One event.
#[derive(Serialize)]
pub(crate) struct EventDoc<'a> {
    seq: u64,
    role: &'static str,
    time: Option<String>,
    window: &'a str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<ToolDoc<'a>>,
}

/// A tool use.
#[derive(Serialize)]
struct ToolDoc<'a> {
    name: Option<&'a str>,
    input: Option<Value>,
    result: Option<ResultDoc<'a>>,
}

/// A tool's result.
#[derive(Serialize)]
struct ResultDoc<'a> {
    seq: u64,
    text: &'a str,
    is_error: bool,
}

pub(crate) fn event(doc: &Document) -> EventDoc<'_> {
    EventDoc {
        seq: doc.seq,
        role: doc.role.name(),
        time: doc.time.map(format_rfc3339),
        window: &doc.window,
        text: &doc.text,
        tool: doc.tool.as_ref().map(|t| ToolDoc {
            name: t.name.as_deref(),
            // The input as the JSON it is; as a string when the harness wrote other text.
            input: t
                .input
                .as_deref()
                .map(|i| serde_json::from_str(i).unwrap_or_else(|_| Value::String(i.to_owned()))),
            result: t.result.as_ref().map(|r| ResultDoc {
                seq: r.seq,
                text: &r.text,
                is_error: r.is_error,
            }),
        }),
    }
}

/// `history show --json`.
#[derive(Serialize)]
pub(crate) struct ShowDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) session: &'a str,
    /// The harness deleted its file: it was read from notesoup's vault.
    pub(crate) vault_only: bool,
    /// How many events qualify (before `--cursor`, if given).
    pub(crate) matched: usize,
    pub(crate) events: Vec<EventDoc<'a>>,
    /// The `--cursor` of the older page, when there is one.
    pub(crate) older: Option<String>,
    /// Records the session's history needs but its files lack.
    pub(crate) missing: &'a [String],
}

/// A `--json` document written around one of its arrays (a show's `events`, a search's
/// `sessions`), for writing its items one at a time in between: `open` ends with the
/// array's `[`, `close` starts with its `]` (the items go between, each on its own lines,
/// nested two levels deep, as the whole document would have them).
pub(crate) struct AroundEvents {
    pub(crate) open: String,
    pub(crate) close: String,
}

/// [`AroundEvents`] of `doc`, whose `events` are empty, written as `Out::json_doc` writes a
/// document (keys sorted, so `events` is the first: nested exactly two levels deep).
pub(crate) fn around_events(doc: &ShowDoc<'_>) -> AroundEvents {
    around(doc, "events")
}

/// [`AroundEvents`] of a search's `doc`, whose `sessions` are empty: its `open` (the keys
/// before `sessions`, all known before the search) and its `close` (`skipped`, known at
/// the end) may be taken from two documents that differ only after `sessions`.
pub(crate) fn around_sessions(doc: &SearchDoc<'_>) -> AroundEvents {
    around(doc, "sessions")
}

/// `doc` as `Out::json_doc` writes it, cut at its top-level array `key`, which is empty.
fn around(doc: &impl Serialize, key: &str) -> AroundEvents {
    let text = serde_json::to_value(doc)
        .and_then(|value| serde_json::to_string_pretty(&value))
        .unwrap_or_else(|_| "null".into());
    let opening = format!("\n  \"{key}\": [");
    match text.find(&format!("{opening}]")) {
        Some(at) => {
            let (open, close) = text.split_at(at + opening.len());
            AroundEvents {
                open: open.to_owned(),
                close: format!("{close}\n"),
            }
        }
        None => AroundEvents {
            open: String::new(),
            close: format!("{text}\n"),
        },
    }
}

/// `history search --json`.
#[derive(Serialize)]
pub(crate) struct SearchDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) query: &'a str,
    pub(crate) ignore_case: bool,
    /// How many sessions were searched.
    pub(crate) searched: usize,
    pub(crate) sessions: Vec<HitsDoc<'a>>,
    pub(crate) skipped: Vec<SkippedDoc<'a>>,
}

/// One session's matches.
#[derive(Serialize)]
pub(crate) struct HitsDoc<'a> {
    session: &'a str,
    started: Option<String>,
    /// When it was last active, as `history sessions` says it (`updated` there).
    updated: Option<String>,
    cwd: Option<&'a str>,
    /// The harness deleted its file: it was read from notesoup's vault.
    vault_only: bool,
    /// How many events match in all.
    matches: usize,
    /// The newest of them, oldest first.
    events: Vec<EventDoc<'a>>,
}

pub(crate) fn hits(h: &SessionHits) -> HitsDoc<'_> {
    HitsDoc {
        session: &h.session,
        started: h.started.map(format_rfc3339),
        updated: h.updated.map(format_rfc3339),
        cwd: h.cwd.as_deref(),
        vault_only: h.vault_only,
        matches: h.page.matched,
        events: h.page.documents.iter().map(event).collect(),
    }
}

/// A session a search could not read.
#[derive(Serialize)]
pub(crate) struct SkippedDoc<'a> {
    pub(crate) session: &'a str,
    pub(crate) error: &'a str,
}

/// `history sessions --json`.
#[derive(Serialize)]
pub(crate) struct SessionsDoc<'a> {
    pub(crate) ok: bool,
    /// How many sessions there are in all.
    pub(crate) total: usize,
    pub(crate) sessions: Vec<SessionDoc<'a>>,
}

/// One session of a listing.
#[derive(Serialize)]
pub(crate) struct SessionDoc<'a> {
    session: &'a str,
    harness: &'a str,
    started: Option<String>,
    cwd: Option<&'a str>,
    first_prompt: Option<&'a str>,
    parent: Option<&'a str>,
    unreadable: Option<&'a str>,
    /// The harness deleted the session's file; it is read from notesoup's vault.
    vault_only: bool,
    /// When it was last active (RFC 3339, UTC): the last time its file records, else when
    /// the file was last written; the listing's order, newest first.
    updated: Option<String>,
}

pub(crate) fn session(s: &SessionRow) -> SessionDoc<'_> {
    SessionDoc {
        session: &s.session,
        harness: s.session.split_once(':').map_or("", |(h, _)| h),
        // Normalized; a time notesoup cannot read is left out rather than passed on raw.
        started: s
            .started
            .as_deref()
            .and_then(parse_moment)
            .map(format_rfc3339),
        cwd: s.cwd.as_deref(),
        first_prompt: s.first_prompt.as_deref(),
        parent: s.parent.as_deref(),
        unreadable: s.unreadable.as_deref(),
        vault_only: s.vault_only,
        updated: s.updated.map(format_rfc3339),
    }
}
