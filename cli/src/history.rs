//! `notesoup history`: the sessions of every harness on this machine, through the
//! application library's typed history calls (`notesoup_app::history`), so listing,
//! selection, paging and search are exactly the model's tools'. The CLI only shapes the
//! answers for a terminal, and words a tool's refusal in its own flags.

use std::fmt::Write as _;

use notesoup_app::Context;
use notesoup_app::history::{
    self, Answered, ListPage, ReadPage, SessionRow, SessionSource, SessionsArgs,
};
use notesoup_history_core::{ListArgs, QueryError, ReadArgs};

use crate::args::{HarnessArg, HistoryArgs, HistoryCommand};
use crate::docs::{SearchDoc, SessionsDoc, Skipped, done};
use crate::refusals::{refused, sessions_error};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// The answer of a history tool, or its refusal as the CLI's error.
fn answer<T>(answered: Answered<T>) -> Result<T, CliError> {
    match answered {
        Answered::Answer(answer) => Ok(answer),
        Answered::Refused(refusal) => Err(refused(&refusal.error)),
    }
}

fn list(ctx: &Context, session: &str, args: &ListArgs) -> Result<ListPage, CliError> {
    answer(history::list(ctx, &SessionSource::selected(session), args)?)
}

fn read(ctx: &Context, session: &str, args: &ReadArgs) -> Result<ReadPage, CliError> {
    answer(history::read(ctx, &SessionSource::selected(session), args)?)
}

pub(crate) fn run(args: &HistoryArgs, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let ctx = env.helper_context();
    match &args.command {
        HistoryCommand::Sessions { harness, limit } => {
            let listed = history::sessions(
                &ctx,
                &SessionsArgs {
                    harness: harness.map(|h| h.name().to_owned()),
                    limit: Some(*limit),
                    roots: None,
                },
            )
            .map_err(|err| sessions_error(err, "--limit"))?;
            sessions(&listed.sessions, listed.total, out);
        }
        HistoryCommand::Show {
            session,
            seq: Some(seq),
            offset,
            ..
        } => show_seq(&ctx, session, *seq, *offset, out)?,
        HistoryCommand::Show {
            session,
            window,
            limit,
            cursor,
            ..
        } => show_list(&ctx, session, window.as_ref(), *limit, cursor.as_ref(), out)?,
        HistoryCommand::Search {
            query,
            session: Some(session),
            limit,
            cursor,
            ..
        } => search_one(&ctx, query, session, *limit, cursor.as_ref(), out)?,
        HistoryCommand::Search {
            query,
            session: None,
            harness,
            sessions: count,
            limit,
            ..
        } => search_all(
            query,
            harness.map(HarnessArg::name),
            *count,
            *limit,
            &ctx,
            out,
        )?,
    }
    Ok(EXIT_OK)
}

/// `history show SESSION --seq N`: whole events.
fn show_seq(
    ctx: &Context,
    session: &str,
    seq: u64,
    offset: Option<usize>,
    out: &mut Out,
) -> Result<(), CliError> {
    let page = read(
        ctx,
        session,
        &ReadArgs {
            seq: Some(seq),
            offset,
            ..ReadArgs::default()
        },
    )?;
    if out.json {
        out.json_doc(&done(&page));
        return Ok(());
    }
    text(&page.text, out);
    if let Some(ReadArgs {
        seq: Some(seq),
        offset: Some(offset),
        ..
    }) = page.next
    {
        out.hint(format!(
            "next page: notesoup history show {session} --seq {seq} --offset {offset}"
        ));
    }
    Ok(())
}

/// `history show SESSION`: a page of its events, newest first.
fn show_list(
    ctx: &Context,
    session: &str,
    window: Option<&String>,
    limit: Option<usize>,
    cursor: Option<&String>,
    out: &mut Out,
) -> Result<(), CliError> {
    let args = ListArgs {
        window: window.cloned(),
        limit,
        cursor: cursor.cloned(),
        ..ListArgs::default()
    };
    list_page(ctx, session, &args, out, |c| {
        let mut line = format!("notesoup history show {session}");
        if let Some(w) = window {
            let _ = write!(line, " --window {w}");
        }
        if let Some(l) = limit {
            let _ = write!(line, " --limit {l}");
        }
        format!("{line} --cursor {c}")
    })
}

/// `history search TEXT --session SESSION`: a page of its matches.
fn search_one(
    ctx: &Context,
    query: &str,
    session: &str,
    limit: Option<usize>,
    cursor: Option<&String>,
    out: &mut Out,
) -> Result<(), CliError> {
    let args = ListArgs {
        query: Some(query.to_owned()),
        limit,
        cursor: cursor.cloned(),
        ..ListArgs::default()
    };
    list_page(ctx, session, &args, out, |c| {
        format!(
            "notesoup history search {} --session {session} --cursor {c}",
            shell_word(query)
        )
    })
}

/// One page of a session's list (`--json`: the document), and the command that shows the
/// next one as a hint, as `next` writes it for the page's cursor.
fn list_page(
    ctx: &Context,
    session: &str,
    args: &ListArgs,
    out: &mut Out,
    next: impl FnOnce(&str) -> String,
) -> Result<(), CliError> {
    let page = list(ctx, session, args)?;
    if out.json {
        out.json_doc(&done(&page));
        return Ok(());
    }
    text(&page.text, out);
    if let Some(c) = &page.cursor {
        out.hint(format!("next page: {}", next(c)));
    }
    Ok(())
}

/// The sessions as a table, or the listing under `--json`.
fn sessions(list: &[SessionRow], total: usize, out: &mut Out) {
    if out.json {
        out.json_doc(&SessionsDoc {
            ok: true,
            total,
            sessions: list,
        });
        return;
    }
    if list.is_empty() {
        out.line("No sessions found. `notesoup doctor` shows which folders are searched.");
        return;
    }
    let width = list.iter().map(|s| s.session.len()).max().unwrap_or(7);
    for s in list {
        let id = out.paint(Paint::Strong, &format!("{:<width$}", s.session));
        let started = s.started.as_deref().unwrap_or("-");
        let mut line = format!("{id}  {started}");
        if let Some(cwd) = &s.cwd {
            let _ = write!(line, "  {cwd}");
        }
        out.line(line);
        let mut detail = Vec::new();
        if let Some(parent) = &s.parent {
            detail.push(format!("fork of {parent}"));
        }
        if let Some(why) = &s.unreadable {
            detail.push(out.paint(Paint::Warn, &format!("unreadable: {why}")));
        }
        if let Some(prompt) = &s.first_prompt {
            detail.push(format!("{prompt:?}"));
        }
        if !detail.is_empty() {
            out.line(format!("    {}", detail.join("  ")));
        }
    }
    if total > list.len() {
        out.hint(format!(
            "{} of {total} sessions shown; --limit shows more.",
            list.len()
        ));
    }
}

/// One answer's text (what the model would read), headings and notices painted.
fn text(text: &str, out: &mut Out) {
    for line in text.lines() {
        if line.starts_with("== ") && line.ends_with(" ==")
            || line.starts_with('#') && line.contains(" · ")
        {
            out.line(out.paint(Paint::Strong, line));
        } else if line.starts_with('[') && line.ends_with(']') {
            out.line(out.paint(Paint::Dim, line));
        } else {
            out.line(line);
        }
    }
}

/// A word as a POSIX shell reads it back.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Search the recent sessions (newest first, as `history sessions` lists them), one
/// `history_list` page per session that matches. A refusal of the search itself (an empty
/// text, a bad `--limit`) is the same in every session: it ends the command.
fn search_all(
    query: &str,
    harness: Option<&str>,
    count: usize,
    limit: Option<usize>,
    ctx: &Context,
    out: &mut Out,
) -> Result<(), CliError> {
    if query.is_empty() {
        return Err(refused(&QueryError::EmptyQuery));
    }
    let listed = history::sessions(
        ctx,
        &SessionsArgs {
            harness: harness.map(str::to_owned),
            limit: Some(count),
            roots: None,
        },
    )
    .map_err(|err| sessions_error(err, "--sessions"))?;
    let args = ListArgs {
        query: Some(query.to_owned()),
        limit: Some(limit.unwrap_or(10)),
        ..ListArgs::default()
    };
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    for s in &listed.sessions {
        let id = s.session.as_str();
        match history::list(ctx, &SessionSource::selected(id), &args) {
            Ok(Answered::Answer(mut page)) => {
                if !page.shown.is_empty() {
                    id.clone_into(&mut page.session);
                    results.push(page);
                }
            }
            Ok(Answered::Refused(refusal)) => return Err(refused(&refusal.error)),
            Err(err) => skipped.push((id, err.to_string())),
        }
    }
    let searched = listed.sessions.len();
    if out.json {
        out.json_doc(&SearchDoc {
            ok: true,
            query,
            searched,
            results: &results,
            skipped: skipped
                .iter()
                .map(|(session, error)| Skipped {
                    session,
                    error: error.clone(),
                })
                .collect(),
        });
        return Ok(());
    }
    if results.is_empty() {
        out.line(format!(
            "No match for {query:?} in the {searched} most recent sessions."
        ));
    }
    for page in &results {
        let id = &page.session;
        let matched = page.matched;
        out.line(out.paint(
            Paint::Strong,
            &format!(
                "━━ {id}: {matched} match{} ━━",
                if matched == 1 { "" } else { "es" }
            ),
        ));
        text(&page.text, out);
        if page.cursor.is_some() {
            out.hint(format!(
                "more in {id}: notesoup history search {} --session {id}",
                shell_word(query)
            ));
        }
    }
    for (id, why) in &skipped {
        out.hint(format!("skipped {id}: {why}"));
    }
    Ok(())
}
