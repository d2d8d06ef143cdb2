//! The history for people (the command line): one session's documents as data, and a
//! search of every session on the machine in one walk of the session folders. The rules
//! are the model's tools' (`notesoup-history-core`: which events are listed, what a search
//! looks in); only the shape of the answer differs.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use notesoup_history_core::{
    DocPage, DocQuery, DocStream, Needle, Role, Selector, SelectorError, SessionSummary,
};
use notesoup_history_store::{Found, RawNeedle, Scan, StoreError};
use notesoup_window::{Host, parse_moment};

use super::parallel::Budget;
use super::{SessionSource, corpus};
use crate::{AppError, Context};

/// The most bytes of session files a search decodes at once, over all its workers (a
/// larger file is decoded alone; each session counted by the file it is found by): a
/// decode holds at most about its file's size (less where bodies stay in the file), so a
/// search's peak stays near the largest file's, not a multiple of it.
const DECODE_BUDGET_BYTES: u64 = 32 << 20;

/// One session's documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDocs {
    /// The session, `<harness>:<id>`.
    pub session: String,
    /// Ancestors the selection needs but the transcript lacks.
    pub missing: Vec<String>,
    /// The harness deleted its file: it was read from notesoup's vault.
    pub vault_only: bool,
    /// The documents.
    pub page: DocPage,
}

/// The documents of the session `source` names that `query` asks for.
///
/// # Errors
/// No such session, an unreadable transcript, or a window or seq the session does not
/// hold ([`AppError::Query`]).
pub fn documents(
    ctx: &Context,
    source: &SessionSource,
    query: &DocQuery<'_>,
) -> Result<SessionDocs, AppError> {
    let docs = documents_with(ctx, source, query, |stream| {
        let (matched, before) = (stream.docs.matched(), stream.docs.before());
        stream
            .docs
            .collect::<Result<_, _>>()
            .map(|documents| SessionDocs {
                session: stream.session,
                missing: stream.missing.to_vec(),
                vault_only: stream.vault_only,
                page: DocPage {
                    documents,
                    matched,
                    before,
                },
            })
    })?;
    Ok(docs?)
}

/// One session's documents, decoded one at a time as they are taken ([`documents_with`]).
#[derive(Debug)]
pub struct SessionStream<'h> {
    /// The session, `<harness>:<id>`.
    pub session: String,
    /// Ancestors the selection needs but the transcript lacks.
    pub missing: &'h [String],
    /// The harness deleted its file: it was read from notesoup's vault.
    pub vault_only: bool,
    /// The documents, with how many qualify and the cursor of the page before.
    pub docs: DocStream<'h>,
}

/// What `each` makes of the documents of the session `source` names that `query` asks
/// for, handed to it as a stream: a front end writes each document as it comes, so a whole
/// session costs its decoded history and one document, not every document besides. The
/// history is retired when `each` returns.
///
/// # Errors
/// No such session, an unreadable transcript, or a window or seq the session does not
/// hold ([`AppError::Query`]); a body a document cannot read is that document's item.
pub fn documents_with<T>(
    ctx: &Context,
    source: &SessionSource,
    query: &DocQuery<'_>,
    each: impl FnOnce(SessionStream<'_>) -> T,
) -> Result<T, AppError> {
    let searched = query.needle.filter(|n| !n.ignores_case()).map(Needle::text);
    let (history, vault_only) = super::load_where("history show", source, searched, ctx)?;
    let made = history.document_stream(query).map(|docs| {
        each(SessionStream {
            session: history.session().to_string(),
            missing: history.missing(),
            vault_only,
            docs,
        })
    });
    ctx.retire(history);
    Ok(made?)
}

/// One whole event of a session ([`document`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDoc {
    /// The session, `<harness>:<id>`.
    pub session: String,
    /// The harness deleted its file: it was read from notesoup's vault.
    pub vault_only: bool,
    /// The event.
    pub document: notesoup_history_core::Document,
}

/// The whole event `seq` of the session `source` names (a tool result shows its call).
///
/// # Errors
/// No such session or event, or an unreadable transcript.
pub fn document(
    ctx: &Context,
    source: &SessionSource,
    seq: notesoup_history_core::Seq,
) -> Result<SessionDoc, AppError> {
    let (history, vault_only) = super::load_where("history show", source, None, ctx)?;
    let doc = history.document_of_seq(seq);
    let session = history.session().to_string();
    ctx.retire(history);
    Ok(SessionDoc {
        session,
        vault_only,
        document: doc?,
    })
}

/// The selector a person's session argument names: `<harness>:<id>` as it is; a bare id
/// (or unique id prefix) is looked up in every harness and must fit exactly one session.
///
/// # Errors
/// A bare id no session has, or one that fits several sessions (of one harness or more),
/// or an unreadable session folder.
pub fn selector(ctx: &Context, text: &str) -> Result<String, AppError> {
    selector_in(&corpus(notesoup_history_store::Roots::default(), ctx), text)
}

/// [`selector`] among the sessions of `corpus`.
pub(crate) fn selector_in(
    corpus: &notesoup_history_store::Corpus,
    text: &str,
) -> Result<String, AppError> {
    let text = text.trim();
    if text.contains(':') {
        return Ok(text.to_owned());
    }
    // Refused as given (a path, or nothing), not as each harness's `<harness>:<text>`.
    if !Selector::is_id(text) {
        return Err(StoreError::Selector(SelectorError::BadId(text.to_owned())).into());
    }
    let mut fits = Vec::new();
    for harness in Host::HARNESSES {
        match corpus.resolve(&format!("{harness}:{text}")) {
            Ok(found) => fits.push(format!("{}:{}", found.harness, found.id)),
            Err(StoreError::Selector(SelectorError::Unknown { .. })) => {}
            Err(StoreError::Selector(SelectorError::Ambiguous { examples, .. })) => {
                fits.extend(examples.split(", ").map(str::to_owned));
            }
            Err(err) => return Err(err.into()),
        }
    }
    fits.dedup();
    match fits.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(StoreError::Selector(SelectorError::UnknownAnywhere {
            id: text.to_owned(),
        })
        .into()),
        many => Err(StoreError::Selector(SelectorError::AmbiguousAnywhere {
            id: text.to_owned(),
            examples: many.join(", "),
        })
        .into()),
    }
}

/// Which sessions a person's listing or search takes (`notesoup history sessions` and
/// `search` alike): one harness, one folder, a time range. Every field left `None` keeps
/// every session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFilter {
    /// Only this harness's sessions.
    pub harness: Option<Host>,
    /// Only sessions that ran in this folder or below it.
    pub folder: Option<PathBuf>,
    /// Only sessions still active at or after this moment (ms since the epoch).
    pub since: Option<u64>,
    /// Only sessions started at or before this moment (ms since the epoch).
    pub until: Option<u64>,
}

/// What [`search`] looks for, and where.
#[derive(Debug, Clone)]
pub struct SearchArgs {
    /// The text to find.
    pub needle: Needle,
    /// Which sessions are searched.
    pub filter: SessionFilter,
    /// Only the sessions whose files were written last, this many (`None`: every session).
    pub sessions: Option<usize>,
    /// Only these roles (default: the tools' default roles).
    pub roles: Option<Vec<Role>>,
    /// The most matches taken per session (the newest); the count covers them all.
    pub per_session: usize,
}

/// The matches of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionHits {
    /// The session, `<harness>:<id>`.
    pub session: String,
    /// When it started, in milliseconds since the epoch, if known.
    pub started: Option<u64>,
    /// When it was last active, in milliseconds since the epoch, if known: the last time its
    /// file records, else when the file was last written (as `history sessions` shows it).
    pub updated: Option<u64>,
    /// The folder it ran in, if recorded.
    pub cwd: Option<String>,
    /// The harness deleted its file: it was read from notesoup's vault.
    pub vault_only: bool,
    /// The newest matches, in conversation order, and how many there are.
    pub page: DocPage,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// How many sessions were searched (after the harness, folder and time filters).
    pub searched: usize,
    /// How many sessions had a match (each was handed to the search's `each`).
    pub matched: usize,
    /// Sessions that could not be read, and why.
    pub skipped: Vec<(String, String)>,
    /// The search's `each` stopped it: the counts cover the sessions handed on before.
    pub stopped: bool,
}

/// A session a filter kept: what it knows of it so far.
struct Chosen<'s> {
    found: &'s Found,
    /// When it was last active ([`Scan::updated`]), once it was read.
    updated: OnceLock<Option<u64>>,
    /// When it started and the folder it ran in, when its listing line was read.
    listed: Option<(Option<u64>, Option<String>)>,
}

impl Chosen<'_> {
    /// When it was last active, read now if it was not yet.
    fn updated(&self, scanned: &Scan) -> Option<u64> {
        *self.updated.get_or_init(|| scanned.updated(self.found))
    }
}

/// The sessions of `order` (each with when it was last active, when known) that `filter`
/// keeps, in that order (the first `most`, when given). A session's tail is read for when
/// it was last active only for `--since` (and then only if its file was written since), or
/// `--until` when it records no start; the start of its file only for `--until` or
/// `--project`.
fn chosen<'s>(
    scanned: &Scan,
    order: impl IntoIterator<Item = (&'s Found, OnceLock<Option<u64>>)>,
    filter: &SessionFilter,
    most: Option<usize>,
) -> Vec<Chosen<'s>> {
    let mut chosen = Vec::new();
    for (found, updated) in order {
        if most.is_some_and(|n| chosen.len() >= n) {
            break;
        }
        if filter.harness.is_some_and(|h| h != found.harness) {
            continue;
        }
        let mut session = Chosen {
            found,
            updated,
            listed: None,
        };
        if let Some(since) = filter.since {
            // A file last written before `since` records no later time: its tail is not read.
            let written = found
                .modified()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            if written < since {
                continue;
            }
            if session
                .updated(scanned)
                .is_none_or(|updated| updated < since)
            {
                continue;
            }
        }
        if filter.until.is_some() || filter.folder.is_some() {
            let summary = scanned.summary_with(found, None);
            let started = summary.started.as_deref().and_then(parse_moment);
            if let Some(until) = filter.until {
                let started = started.or_else(|| session.updated(scanned));
                if started.is_some_and(|started| started > until) {
                    continue;
                }
            }
            if let Some(folder) = &filter.folder
                && !summary
                    .cwd
                    .as_deref()
                    .is_some_and(|cwd| Path::new(cwd).starts_with(folder))
            {
                continue;
            }
            session.listed = Some((started, summary.cwd));
        }
        chosen.push(session);
    }
    chosen
}

/// The sessions a person lists (`notesoup history sessions`) that `filter` keeps, most
/// recently active first (the last time each file records, else its last write): the first
/// `limit` with their listing lines, and how many `filter` keeps in all.
pub(super) fn listed_sessions(
    ctx: &Context,
    filter: &SessionFilter,
    limit: usize,
) -> (Vec<SessionSummary>, usize) {
    let scanned = corpus(notesoup_history_store::Roots::default(), ctx).scan(filter.harness);
    let order = scanned
        .by_updated()
        .into_iter()
        .map(|(found, updated)| (found, OnceLock::from(updated)));
    let chosen = chosen(&scanned, order, filter, None);
    let shown = chosen
        .iter()
        .take(limit)
        .map(|c| scanned.summary_with(c.found, c.updated(&scanned)))
        .collect();
    (shown, chosen.len())
}

/// Searches every session `args` selects, newest file first, in one walk of the
/// session folders, on every core, decoding only the sessions whose files' raw bytes may
/// hold the text ([`Scan::may_hold`](notesoup_history_store::Scan::may_hold)), and
/// at most 32 MiB of their files decoded at once (`DECODE_BUDGET_BYTES`; a larger one alone).
/// `each` is handed the matches of each session that has some, newest file first, as soon
/// as the sessions before it are searched; when it breaks (its reader went away), the
/// search stops there ([`SearchReport::stopped`]). `progress` is told `(done, of)` after
/// each session, and `(0, of)` first, before any session is handed on (`of` is
/// [`SearchReport::searched`]: a caller can write it before the matches).
pub fn search(
    ctx: &Context,
    args: &SearchArgs,
    progress: &mut dyn FnMut(usize, usize),
    each: &mut dyn FnMut(SessionHits) -> ControlFlow<()>,
) -> SearchReport {
    let corpus = corpus(notesoup_history_store::Roots::default(), ctx);
    let scanned = corpus.scan(args.filter.harness);
    let cache = ctx.history_cache();
    // In the order the files were last written: no file's tail is read to order them (when
    // each was last active is read for a filter, and for a session with matches).
    let order = scanned
        .sessions()
        .iter()
        .map(|found| (found, OnceLock::new()));
    let chosen = chosen(&scanned, order, &args.filter, args.sessions);
    let mut report = SearchReport {
        searched: chosen.len(),
        ..SearchReport::default()
    };
    let query = DocQuery {
        needle: Some(&args.needle),
        roles: args.roles.as_deref(),
        limit: Some(args.per_session),
        ..DocQuery::default()
    };
    let searched = (!args.needle.ignores_case()).then(|| args.needle.text());
    // A session whose raw bytes cannot hold the literal (in any case, for `-i`) is not
    // decoded, as `rg` skips a file: each session's files are read once, and only the
    // sessions that may hold it are decoded.
    let raw = RawNeedle::new(args.needle.text(), args.needle.ignores_case());
    // Decodes are let in by the size of the file each session is found by (a file only the
    // vault holds, of a size not read, counts as large). What a decode holds is less: a
    // large Claude transcript's index leaves its bodies in the file, and a Pi or Codex decode
    // leaves there every body of `LEFT_IN_FILE_BYTES` or more, also of the files a fork
    // or segment continues (which are not counted: not known before its first line is
    // read). The prefilter's reads are windows, outside the budget.
    let budget = Budget::new(DECODE_BUDGET_BYTES);
    let one = |found: &Found| -> Result<Option<DocPage>, String> {
        let absent = scanned.may_hold(found, &raw).is_ok_and(|may| !may);
        if absent {
            return Ok(None);
        }
        let _decoding = budget.take(found.size().unwrap_or(DECODE_BUDGET_BYTES));
        let history = match corpus.history_scanned(&scanned, found, cache.as_ref(), searched) {
            Ok(history) => history,
            // A transcript with no conversation row (an empty file, or summaries only, as
            // Claude Code leaves them) is refused as a history, but nothing was said in it:
            // it holds no match, and is no session that could not be read.
            Err(StoreError::Claude {
                source: notesoup_history_claude::DecodeError::NoLeaf,
                ..
            }) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        let page = history.documents(&query).map_err(|e| e.to_string());
        ctx.retire(history);
        page.map(|page| (page.matched > 0).then_some(page))
    };
    let total = report.searched;
    progress(0, total);
    // Each session's matches are handed on as soon as the sessions before it are searched,
    // so a search holds the matches of the few sessions answered early, not of all.
    let mut hand_on = |i: usize, page: Option<Result<Option<DocPage>, String>>| {
        let found = chosen[i].found;
        let session = format!("{}:{}", found.harness, found.id);
        match page {
            Some(Ok(Some(page))) => {
                let (started, cwd) = chosen[i].listed.clone().unwrap_or_else(|| {
                    let summary = scanned.summary_with(found, None);
                    (
                        summary.started.as_deref().and_then(parse_moment),
                        summary.cwd,
                    )
                });
                report.matched += 1;
                let flow = each(SessionHits {
                    session,
                    started,
                    updated: chosen[i].updated(&scanned),
                    cwd,
                    vault_only: found.only_in_vault(),
                    page,
                });
                report.stopped = flow.is_break();
                return flow;
            }
            Some(Ok(None)) => {}
            Some(Err(why)) => report.skipped.push((session, why)),
            None => report
                .skipped
                .push((session, "not searched (a worker stopped)".to_owned())),
        }
        ControlFlow::Continue(())
    };
    super::parallel::in_order(
        &chosen,
        |c| one(c.found),
        weight,
        &mut |done| progress(done, total),
        &mut hand_on,
    );
    report
}

/// What one session's search answer holds, in bytes: its documents' texts (a session that
/// holds no match, most of them, weighs nothing), so the workers may run on past a large
/// session still being searched while what waits behind it stays small.
fn weight(answer: &Result<Option<DocPage>, String>) -> u64 {
    let bytes = match answer {
        Ok(Some(page)) => page
            .documents
            .iter()
            .map(|d| {
                let tool = d.tool.as_ref().map_or(0, |t| {
                    t.name.as_ref().map_or(0, String::len)
                        + t.input.as_ref().map_or(0, String::len)
                        + t.result.as_ref().map_or(0, |r| r.text.len())
                });
                std::mem::size_of_val(d) + d.text.len() + d.window.len() + tool
            })
            .sum(),
        Ok(None) => 0,
        Err(why) => why.len(),
    };
    u64::try_from(bytes).unwrap_or(u64::MAX)
}
