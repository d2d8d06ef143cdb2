//! `notesoup history show`: one session's events as rows in conversation order (newest
//! first with `--reverse`), or as one `--json` document, written as each event is decoded
//! so `--all` of a large session starts at once, holds one event's text at a time beside
//! the decoded history, and stops when its reader goes away (`| head`); or one whole event
//! (`--seq`).

use std::fmt::Write as _;

use notesoup_app::Context;
use notesoup_app::history;
use notesoup_history_core::{DocQuery, QueryError, Role};

use super::{SHOW_DEFAULT, count, cursor_seq, json, rows, search, source};
use crate::refusals::{history_error, refused};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// What page of a session `history show` prints.
pub(crate) struct Page<'a> {
    pub(crate) window: Option<&'a str>,
    pub(crate) roles: Option<&'a [Role]>,
    pub(crate) limit: Option<usize>,
    pub(crate) cursor: Option<&'a str>,
    pub(crate) reverse: bool,
}

/// `history show SESSION`: rows in conversation order (newest first with --reverse),
/// written as each event is decoded, so `--all` of a large session starts at once and
/// holds one event's text at a time beside the decoded history; a reader that goes away
/// (`| head`) stops it.
pub(crate) fn show(
    ctx: &Context,
    session: &str,
    page: &Page<'_>,
    env: &Env,
    out: &mut Out,
) -> Result<u8, CliError> {
    if let Some(limit) = page
        .limit
        .filter(|l| *l == 0 || *l > notesoup_history_core::MAX_LIMIT)
    {
        return Err(refused(&notesoup_history_core::QueryError::Limit { limit }));
    }
    let query = DocQuery {
        roles: page.roles,
        window: page.window,
        before: cursor_seq(page.cursor)?,
        limit: page.limit,
        ..DocQuery::default()
    };
    out.stream();
    history::documents_with(ctx, &source(ctx, session)?, &query, |stream| {
        if out.json {
            show_json(stream, page.reverse, out)
        } else {
            show_rows(stream, page, env, out)
        }
    })
    .map_err(history_error)?
    .map_err(|e| refused(&e))?;
    Ok(EXIT_OK)
}

/// [`show`]'s events as rows, then the footer naming the older page.
fn show_rows(
    stream: history::SessionStream<'_>,
    page: &Page<'_>,
    env: &Env,
    out: &mut Out,
) -> Result<(), QueryError> {
    let history::SessionStream {
        session,
        missing,
        vault_only,
        docs,
    } = stream;
    let older = docs.before().map(|seq| format!("s{seq}"));
    let matched = docs.matched();
    out.line(out.paint(
        Paint::Strong,
        &format!(
            "{session}: {} of {} event{}{}{}",
            count(docs.len()),
            count(matched),
            if matched == 1 { "" } else { "s" },
            if page.reverse { ", newest first" } else { "" },
            if vault_only {
                " (vault only: the harness deleted its file)"
            } else {
                ""
            }
        ),
    ));
    if !missing.is_empty() {
        out.line(out.paint(
            Paint::Warn,
            &format!(
                "{} record(s) this session's history needs are missing: its oldest events are in windows named unknown:<id>",
                missing.len()
            ),
        ));
    }
    rows::header(env.zone(), out);
    let mut window: Option<String> = None;
    for doc in ordered(docs, page.reverse) {
        let doc = doc?;
        if window.as_deref() != Some(doc.window.as_str()) {
            rows::window_line(&doc.window, out);
            window = Some(doc.window.clone());
        }
        rows::event(&doc, None, env.zone(), env.width(), out);
        if out.closed() {
            return Ok(());
        }
    }
    if let Some(older) = older {
        let mut next = format!("notesoup history show {session}");
        if let Some(w) = page.window {
            let _ = write!(next, " --window {}", search::shell_word(w));
        }
        next.push_str(&search::roles_flag(page.roles));
        if let Some(l) = page.limit.filter(|l| *l != SHOW_DEFAULT) {
            let _ = write!(next, " --limit {l}");
        }
        if page.reverse {
            next.push_str(" --reverse");
        }
        out.footer(format!(
            "older events: {next} --cursor {older}   (every event: --all)"
        ));
    }
    Ok(())
}

/// [`show`]'s `--json` document, its events written one at a time: the same bytes as
/// the whole document written at once.
fn show_json(
    stream: history::SessionStream<'_>,
    reverse: bool,
    out: &mut Out,
) -> Result<(), QueryError> {
    let history::SessionStream {
        session,
        missing,
        vault_only,
        docs,
    } = stream;
    let around = json::around_events(&json::ShowDoc {
        ok: true,
        session: &session,
        vault_only,
        matched: docs.matched(),
        events: Vec::new(),
        older: docs.before().map(|seq| format!("s{seq}")),
        missing,
    });
    out.raw(&around.open);
    let mut first = true;
    for doc in ordered(docs, reverse) {
        let doc = doc?;
        out.raw(if first { "\n    " } else { ",\n    " });
        out.json_value(&json::event(&doc), 2);
        first = false;
        if out.closed() {
            return Ok(());
        }
    }
    if !first {
        out.raw("\n  ");
    }
    out.raw(&around.close);
    Ok(())
}

/// A stream's documents oldest first, or newest first.
fn ordered<'h>(
    docs: notesoup_history_core::DocStream<'h>,
    reverse: bool,
) -> Box<dyn Iterator<Item = Result<notesoup_history_core::Document, QueryError>> + 'h> {
    if reverse {
        Box::new(docs.rev())
    } else {
        Box::new(docs)
    }
}

/// `history show SESSION --seq N`: one whole event.
pub(crate) fn show_seq(
    ctx: &Context,
    session: &str,
    seq: u64,
    env: &Env,
    out: &mut Out,
) -> Result<u8, CliError> {
    let history::SessionDoc {
        session,
        vault_only,
        document: doc,
    } = history::document(ctx, &source(ctx, session)?, seq).map_err(history_error)?;
    if out.json {
        out.json_doc(&json::ShowDoc {
            ok: true,
            session: &session,
            vault_only,
            matched: 1,
            events: vec![json::event(&doc)],
            older: None,
            missing: &[],
        });
        return Ok(EXIT_OK);
    }
    if vault_only {
        out.hint(format!(
            "{session}: vault only (the harness deleted its file)"
        ));
    }
    rows::whole(&doc, env.zone(), out);
    Ok(EXIT_OK)
}
