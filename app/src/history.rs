//! The history tools as typed functions: [`sessions`], [`list`], [`read`] and [`state`] of
//! the session a [`SessionSource`] names (the live one by its transcript and head, or one
//! the corpus finds by its `<harness>:<id>` selector: history-store's `named` decides
//! which).
//!
//! A tool called wrongly (an empty query, a cursor of another list, a seq the history does
//! not hold) is not an error of the call: it is an [`Answered::Refused`] carrying the text
//! the model reads and the [`QueryError`] a front end words in its own terms. An
//! [`AppError`] is a refusal of the call itself (no such session, no bound transcript).
//!
//! The transcript is read by `notesoup-history-store` (the decoder crates are pure), block
//! by block, so a large file is never held whole beside its decoded events, and through
//! its persistent index, so only the lines appended since the last call are decoded, and of
//! the lines the index covers only those an answer shows or a search may find. The decoded
//! history is handed to [`Context::retire`] when the answer is made: freed at once, unless
//! the process's `main` gave the context a function of its own for it, or the context keeps
//! histories ([`Context::keeping_histories`]: a long-lived server's): then the history of a
//! session named by selector is kept, and a later call on the unchanged file searches it
//! instead of reading the file again.
//!
//! When the vault is there but cannot be read, the sessions only it holds are missing from
//! the corpus: each answer that looked in it ([`sessions`], and [`list`] and [`read`] of a
//! session named by selector) opens with one [`vault_notice`] saying so, within the answer
//! budget (history-core's `History::led`).

use std::sync::Arc;

use notesoup_history_claude::{Head, Options};
use notesoup_history_core::{History, QueryError, Seq, render_sessions, sessions_limit};
use notesoup_history_store::{Corpus, Named, named, read_history};
use notesoup_window::Host;
use serde::{Deserialize, Serialize};

use crate::{AppError, Context};

/// The arguments of [`list`] and [`read`], and the session folders setting.
pub use notesoup_history_core::{ListArgs, ReadArgs};
pub use notesoup_history_store::{Kept, Roots};

mod parallel;
mod people;
mod session_args;
pub use people::{
    SearchArgs, SearchReport, SessionDoc, SessionDocs, SessionFilter, SessionHits, SessionStream,
    document, documents, documents_with, search, selector,
};
pub use session_args::SessionArgs;

/// The session a history call reads, and where the corpus looks for sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionSource {
    /// The live session a host bound (Claude Code), if any.
    pub live: Option<LiveSession>,
    /// An explicit session, `<harness>:<sessionId>` (a unique id prefix is enough); the
    /// live session when it names the live transcript's own id.
    pub selector: Option<String>,
    /// Set when a subagent calls: history is the main agent's alone, so it is refused.
    pub agent_id: Option<String>,
    /// The host's id of the tool call asking (Claude's `tool_use_id`, Pi's tool call id):
    /// that call, still pending in the running session, is left out of a list.
    pub asking: Option<String>,
    /// The notesoup setting naming each harness's session folder.
    pub roots: Roots,
}

impl SessionSource {
    /// The session `selector` names, in the session folders the environment names.
    pub fn selected(selector: impl Into<String>) -> Self {
        Self {
            selector: Some(selector.into()),
            ..Self::default()
        }
    }
}

/// The live session a host bound: its transcript, read up to its head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSession {
    /// The transcript, exactly as the host gave it (`transcript_path`).
    pub transcript_path: String,
    /// The uuid of the latest successful main `session.append` result; `None` before the
    /// first one (refused as `no_head`).
    pub head: Option<String>,
}

/// A history tool's answer, or the tool's refusal of arguments it cannot answer
/// (serialized as the one it holds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Answered<T> {
    /// The answer.
    Answer(T),
    /// The arguments were wrong for this history: what the model reads, and why.
    Refused(Refusal),
}

/// A history tool's refusal: still an answer the model reads (`ok` on the helper's wire,
/// with the code in `refused`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// What the model reads: the history's notice and the refusal in the tool's words.
    pub text: String,
    /// The refusal's code (`empty_query`, `bad_cursor`, ...).
    pub refused: &'static str,
    /// The session read, `<harness>:<id>`.
    pub session: String,
    /// Ancestors the selection needs but the transcript lacks.
    pub missing: Vec<String>,
    /// Why, for a front end to say in its own words.
    #[serde(skip)]
    pub error: QueryError,
}

/// One `history_list` page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListPage {
    /// What the model reads (within the answer limit).
    pub text: String,
    /// The seqs of the events shown.
    pub shown: Vec<Seq>,
    /// How many events match from this page on.
    pub matched: usize,
    /// The session read, `<harness>:<id>`.
    pub session: String,
    /// Ancestors the selection needs but the transcript lacks.
    pub missing: Vec<String>,
    /// The cursor of the next page, `None` at the end.
    pub cursor: Option<String>,
    /// The window the session's head is in.
    pub window: String,
}

/// One `history_read` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadPage {
    /// What the model reads (within the answer limit).
    pub text: String,
    /// The seqs of the events shown.
    pub shown: Vec<Seq>,
    /// How many documents the range holds.
    pub matched: usize,
    /// The session read, `<harness>:<id>`.
    pub session: String,
    /// Ancestors the selection needs but the transcript lacks.
    pub missing: Vec<String>,
    /// The arguments that continue a cut read, `None` when it was complete.
    pub next: Option<ReadArgs>,
}

/// What `history_sessions` takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionsArgs {
    /// Only this harness: `claude`, `pi` or `codex`.
    #[serde(default)]
    pub harness: Option<String>,
    /// How many sessions to show (1 to 200, default 20).
    #[serde(default)]
    pub limit: Option<usize>,
    /// The notesoup setting naming each harness's session folder.
    #[serde(default)]
    pub roots: Option<Roots>,
    /// The subagent asking (the host's binding, never the model's): refused, as every history
    /// tool is for a subagent.
    #[serde(default)]
    pub agent_id: Option<String>,
}

/// The recent sessions, most recently active first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionsPage {
    /// What the model reads.
    pub text: String,
    /// The sessions shown.
    pub sessions: Vec<SessionRow>,
    /// How many sessions there are in all.
    pub total: usize,
}

/// One session of a [`SessionsPage`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRow {
    /// Its selector, `<harness>:<id>`.
    pub session: String,
    /// When it started, as the harness wrote it (ISO 8601), if known.
    pub started: Option<String>,
    /// The folder it ran in, if recorded.
    pub cwd: Option<String>,
    /// The first prompt a person typed, if any.
    pub first_prompt: Option<String>,
    /// The session it was forked from, as a selector, if any.
    pub parent: Option<String>,
    /// Why its file's start could not be read, when it could not.
    pub unreadable: Option<String>,
    /// The harness deleted its file: it is read from notesoup's vault.
    pub vault_only: bool,
    /// When it was last active (milliseconds since the Unix epoch), if known: the last time
    /// its file records, else when the file was last written; the listing is newest first by
    /// it.
    pub updated: Option<u64>,
}

/// The window a session's head is in (`history_state`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WindowState {
    /// Its window id.
    pub window: String,
    /// Its ordinal: 0 for the session's first window, one more per clear.
    pub ordinal: u64,
}

/// `history_sessions`: the recent sessions of every harness (or one).
pub fn sessions(ctx: &Context, args: &SessionsArgs) -> Result<SessionsPage, AppError> {
    notesoup_history_store::main_only("history_sessions", args.agent_id.as_deref())?;
    let harness = args
        .harness
        .as_deref()
        .map(Host::harness)
        .transpose()
        .map_err(AppError::Harness)?;
    let limit = sessions_limit(args.limit)?;
    let roots = args.roots.clone().unwrap_or_default();
    let (found, total) = corpus(roots, ctx).recent(harness, limit);
    let notice = vault_notice(ctx).unwrap_or_default();
    let (text, shown) = render_sessions(&found, limit, total, &notice);
    let sessions = found.into_iter().take(shown).map(session_row).collect();
    Ok(SessionsPage {
        text: text.into_string(),
        sessions,
        total,
    })
}

/// The recent sessions a person lists (`notesoup history sessions`) that `filter` keeps
/// (the same filter a search of every session takes): the first `limit` (any number), most
/// recently active first, and how many `filter` keeps in all. No answer budget applies:
/// that is the model's ([`sessions`]).
pub fn recent_sessions(
    ctx: &Context,
    filter: &SessionFilter,
    limit: usize,
) -> (Vec<SessionRow>, usize) {
    let (found, total) = people::listed_sessions(ctx, filter, limit);
    (found.into_iter().map(session_row).collect(), total)
}

/// A found session as a listing shows it.
fn session_row(s: notesoup_history_core::SessionSummary) -> SessionRow {
    SessionRow {
        session: s.selector(),
        started: s.started,
        cwd: s.cwd,
        first_prompt: s.first_prompt,
        parent: s.parent,
        unreadable: s.unreadable,
        vault_only: s.vault_only,
        updated: s.updated,
    }
}

/// `history_list`: one folded line per event, with search, filters and a cursor.
pub fn list(
    ctx: &Context,
    source: &SessionSource,
    args: &ListArgs,
) -> Result<Answered<ListPage>, AppError> {
    let op = "history_list";
    let history = load(op, source, args.query.as_deref(), ctx)?;
    let notice = corpus_notice(source, ctx);
    let led = history.led(&notice);
    let listed = match source.asking.as_deref() {
        Some(call) => led.list_asked_by(args, call),
        None => led.list(args),
    };
    let answered = match listed {
        Ok(answer) => Answered::Answer(ListPage {
            window: history.head_window_id(),
            session: history.session().to_string(),
            missing: history.missing().to_vec(),
            text: answer.text.into_string(),
            shown: answer.shown,
            matched: answer.matched,
            cursor: answer.next_cursor,
        }),
        Err(error) => Answered::Refused(refusal(op, &history, &notice, error)),
    };
    ctx.retire(history);
    Ok(answered)
}

/// `history_read`: whole events by seq, continued by offset.
pub fn read(
    ctx: &Context,
    source: &SessionSource,
    args: &ReadArgs,
) -> Result<Answered<ReadPage>, AppError> {
    let op = "history_read";
    let history = load(op, source, None, ctx)?;
    let notice = corpus_notice(source, ctx);
    let answered = match history.led(&notice).read(args) {
        Ok(answer) => Answered::Answer(ReadPage {
            session: history.session().to_string(),
            missing: history.missing().to_vec(),
            text: answer.text.into_string(),
            shown: answer.shown,
            matched: answer.matched,
            next: answer.next_read,
        }),
        Err(error) => Answered::Refused(refusal(op, &history, &notice, error)),
    };
    ctx.retire(history);
    Ok(answered)
}

/// `history_state`: the window the session's head is in; refused when its ordinal cannot
/// be known (never a guess).
pub fn state(ctx: &Context, source: &SessionSource) -> Result<WindowState, AppError> {
    let history = load("history_state", source, None, ctx)?;
    let window = history.head_window_id();
    let ordinal = history.head_window().ordinal();
    ctx.retire(history);
    match ordinal {
        Some(ordinal) => Ok(WindowState { window, ordinal }),
        None => Err(AppError::WindowUnknown { window }),
    }
}

fn refusal(op: &str, history: &History, notice: &str, error: QueryError) -> Refusal {
    Refusal {
        text: history.led(notice).refusal(op, &error).into_string(),
        refused: error.code(),
        session: history.session().to_string(),
        missing: history.missing().to_vec(),
        error,
    }
}

/// The selected history of the session `source` names, for an answer that searches it for
/// `query`, if any (a Claude transcript's lines that may hold it are decoded whole, the
/// others skimmed: `read_history`); `op` names the call in refusals. A session named by
/// selector is the history the context keeps for it, when it keeps one and the file is
/// unchanged ([`Context::keeping_histories`]).
pub fn load(
    op: &str,
    source: &SessionSource,
    query: Option<&str>,
    ctx: &Context,
) -> Result<Arc<History>, AppError> {
    Ok(load_where(op, source, query, ctx)?.0)
}

/// [`load`], and whether the session was read from the vault (the harness deleted its
/// file): what a person's listing of it says.
pub(crate) fn load_where(
    op: &str,
    source: &SessionSource,
    query: Option<&str>,
    ctx: &Context,
) -> Result<(Arc<History>, bool), AppError> {
    let live = source.live.as_ref();
    // A bare id (or unique prefix) is looked up in every harness, as a person's is, before
    // it is told from the live session (a subagent's call is refused whatever it names).
    // So is a `claude:` prefix of the live session's id: the live session keeps its live
    // head whatever selector names it.
    let whole = match source.selector.as_deref() {
        _ if source.agent_id.is_some() => None,
        Some(bare) if !bare.contains(':') => Some(people::selector_in(
            &corpus(source.roots.clone(), ctx),
            bare,
        )?),
        Some(selector) => live_prefix(selector, live, || corpus(source.roots.clone(), ctx))?,
        None => None,
    };
    let named = named(
        op,
        source.agent_id.as_deref(),
        whole.as_deref().or(source.selector.as_deref()),
        live.map(|l| l.transcript_path.as_str()),
        live.and_then(|l| l.head.as_deref()),
    )?;
    let (path, session, head) = match named {
        Named::Live {
            path,
            session,
            head,
        } => (path, session, head),
        Named::Listed(selector) => {
            let corpus = corpus(source.roots.clone(), ctx);
            let found = corpus.resolve(selector)?;
            let history =
                corpus.history(&found, ctx.history_cache().as_ref(), query, ctx.kept())?;
            return Ok((history, found.only_in_vault()));
        }
    };
    let options = Options {
        session: Some(session),
        sidechain: false,
    };
    let head = Head::Uuid(head.to_owned());
    let history = read_history(path, &options, &head, ctx.history_cache().as_ref(), query)?;
    Ok((Arc::new(history), false))
}

/// The whole selector a `claude:` selector names when its id is a shorter prefix of the
/// live transcript's: the session the corpus resolves it to (the live one, unless the
/// prefix also fits another: then that refusal), or the live session when the corpus does
/// not hold it. `None` for any other selector (it is used as given).
fn live_prefix(
    selector: &str,
    live: Option<&LiveSession>,
    corpus: impl FnOnce() -> Corpus,
) -> Result<Option<String>, AppError> {
    let stem = live
        .and_then(|l| std::path::Path::new(&l.transcript_path).file_stem())
        .and_then(|s| s.to_str());
    let Some(stem) = stem else {
        return Ok(None);
    };
    let prefix = notesoup_history_core::Selector::parse(selector)
        .ok()
        .filter(|s| s.harness == Host::Claude && s.id != stem && stem.starts_with(&s.id));
    if prefix.is_none() {
        return Ok(None);
    }
    match corpus().resolve(selector) {
        Ok(found) => Ok(Some(format!("{}:{}", found.harness, found.id))),
        Err(notesoup_history_store::StoreError::Selector(
            notesoup_history_core::SelectorError::Unknown { .. },
        )) => Ok(Some(format!("claude:{stem}"))),
        Err(err) => Err(err.into()),
    }
}

/// What the model reads first in a history answer when the vault is there but cannot be
/// read ([`crate::vault::unreadable`], the one source of that fact): the sessions only it
/// holds are left out. `None` when the vault reads, is off, or was never made.
pub fn vault_notice(ctx: &Context) -> Option<String> {
    crate::vault::unreadable(ctx).map(|why| {
        format!(
            "[notice: notesoup's history vault cannot be read ({}); sessions whose files the harness deleted are left out.]\n",
            notesoup_history_core::clip(crate::one_line(&why), 200)
        )
    })
}

/// [`vault_notice`] for an answer about the session `source` names: only a session named
/// by selector is looked for in the corpus (the live one is read from its transcript).
fn corpus_notice(source: &SessionSource, ctx: &Context) -> String {
    source
        .selector
        .as_ref()
        .and_then(|_| vault_notice(ctx))
        .unwrap_or_default()
}

/// The session corpus under `roots` and the folders the environment names, with the
/// sessions the harnesses deleted read from the vault (when there is one and
/// `NOTESOUP_VAULT` is not off).
pub fn corpus(roots: Roots, ctx: &Context) -> Corpus {
    let corpus = crate::vault::originals(roots, ctx);
    match crate::vault::reader(ctx) {
        Some(vault) => corpus.with_vault(vault),
        None => corpus,
    }
}

#[cfg(test)]
mod tests;
