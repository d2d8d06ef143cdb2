//! `notesoup history search TEXT`: every session of every harness on this machine by
//! default (people expect a search to look everywhere, as `rg` does; one walk of the
//! session folders, then each session through its index), or one session's matches a page
//! at a time (`--session`). Exit 0 when something matched, 1 when nothing did.

use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use notesoup_app::Context;
use notesoup_app::history::{self, SearchArgs, SearchReport, SessionFilter, SessionHits};
use notesoup_history_core::{DocQuery, MAX_LIMIT, Needle, QueryError, Role};

use super::{count, cursor_seq, json, rows};
use crate::clean::{self, one_line};
use crate::refusals::{history_error, refused};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_FAILED, EXIT_OK, Env};

/// Matches shown per session when searching everywhere.
pub(crate) const PER_SESSION: usize = 10;
/// Matches a page of one session's search shows without `--limit` (as `history show`).
pub(crate) const ONE_SESSION_LIMIT: usize = notesoup_history_core::DEFAULT_LIMIT;
/// How long a search runs before its progress is shown (on a terminal).
const QUIET_FOR: Duration = Duration::from_secs(1);

/// `history search TEXT --session SEL`.
pub(crate) struct One<'a> {
    pub(crate) query: &'a str,
    pub(crate) ignore_case: bool,
    pub(crate) session: &'a str,
    pub(crate) roles: Option<&'a [Role]>,
    pub(crate) limit: usize,
    pub(crate) cursor: Option<&'a str>,
}

/// `history search TEXT` over many sessions.
pub(crate) struct Everywhere<'a> {
    pub(crate) query: &'a str,
    pub(crate) ignore_case: bool,
    pub(crate) filter: SessionFilter,
    pub(crate) sessions: Option<usize>,
    pub(crate) roles: Option<Vec<Role>>,
    pub(crate) limit: usize,
    /// What each matching session prints.
    pub(crate) only: Only,
}

/// What a search over many sessions prints of each matching session.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Only {
    /// Its newest matches, under a heading.
    Matches,
    /// Its selector alone (`-l`).
    Sessions,
    /// `SESSION:N`, its number of matches (`-c`).
    Counts,
}

fn needle(query: &str, ignore_case: bool) -> Result<Needle, CliError> {
    Needle::new(query, ignore_case).ok_or_else(|| refused(&QueryError::EmptyQuery))
}

fn limit(limit: usize) -> Result<usize, CliError> {
    if limit == 0 || limit > MAX_LIMIT {
        return Err(refused(&QueryError::Limit { limit }));
    }
    Ok(limit)
}

/// ` --roles a,b` as a footer repeats the roles asked for (nothing for the default roles).
pub(crate) fn roles_flag(roles: Option<&[Role]>) -> String {
    roles.map_or_else(String::new, |roles| {
        let names: Vec<&str> = roles.iter().map(|r| r.name()).collect();
        format!(" --roles {}", names.join(","))
    })
}

/// One session's matches, newest page first, rows in conversation order.
pub(crate) fn one(ctx: &Context, args: &One<'_>, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let needle = needle(args.query, args.ignore_case)?;
    let docs = history::documents(
        ctx,
        &super::source(ctx, args.session)?,
        &DocQuery {
            needle: Some(&needle),
            roles: args.roles,
            before: cursor_seq(args.cursor)?,
            limit: Some(limit(args.limit)?),
            ..DocQuery::default()
        },
    )
    .map_err(history_error)?;
    let older = docs.page.before.map(|seq| format!("s{seq}"));
    let matched = docs.page.matched;
    if out.json {
        out.json_doc(&json::ShowDoc {
            ok: true,
            session: &docs.session,
            vault_only: docs.vault_only,
            matched,
            events: docs.page.documents.iter().map(json::event).collect(),
            older,
            missing: &docs.missing,
        });
        return Ok(exit(matched > 0));
    }
    if matched == 0 {
        out.footer(format!(
            "no match for {} in {}",
            quoted(args.query),
            docs.session
        ));
        return Ok(EXIT_FAILED);
    }
    out.line(out.paint(
        Paint::Strong,
        &format!(
            "{}: {} match{}",
            docs.session,
            count(matched),
            plural(matched)
        ),
    ));
    rows::header(env.zone(), out);
    for doc in &docs.page.documents {
        rows::event(doc, Some(&needle), env.zone(), env.width(), out);
    }
    if let Some(older) = older {
        // The same command, every flag that shapes the page repeated: copied, it gives
        // the next page of the same listing.
        out.footer(format!(
            "older matches: notesoup history search {}{} --session {}{}{} --cursor {older}",
            shell_word(args.query),
            if args.ignore_case { " -i" } else { "" },
            docs.session,
            roles_flag(args.roles),
            if args.limit == ONE_SESSION_LIMIT {
                String::new()
            } else {
                format!(" --limit {}", args.limit)
            },
        ));
    }
    Ok(EXIT_OK)
}

/// Every session the filters keep, newest file first.
pub(crate) fn everywhere(
    ctx: &Context,
    args: &Everywhere<'_>,
    env: &Env,
    out: &mut Out,
) -> Result<u8, CliError> {
    let search = SearchArgs {
        needle: needle(args.query, args.ignore_case)?,
        filter: args.filter.clone(),
        sessions: args
            .sessions
            .map(|n| {
                if n == 0 {
                    Err(CliError::Refused {
                        code: "bad_limit",
                        message: "--sessions 0 searches nothing".to_owned(),
                        fix: "give at least 1, or leave --sessions out to search every session"
                            .to_owned(),
                    })
                } else {
                    Ok(n)
                }
            })
            .transpose()?,
        roles: args.roles.clone(),
        per_session: limit(args.limit)?,
    };
    // Written as each session's matches come (in order), and the matches let go: text, or
    // the JSON document around its `sessions` (the same bytes as the whole document).
    let json = out.json;
    out.stream();
    let mut opened = false;
    let mut hidden = 0;
    // The sessions with matches not shown (the footer names the one, when it is one).
    let mut more: Vec<String> = Vec::new();
    let mut headed = false;
    let paging = out.paging();
    let report = searched(ctx, &search, env, &paging, &mut |of, hits| {
        if json {
            if opened {
                out.raw(",\n    ");
            } else {
                out.raw(&json::around_sessions(&search_doc(args, of, &[])).open);
                out.raw("\n    ");
                opened = true;
            }
            out.json_value(&json::hits(&hits), 2);
        } else {
            match args.only {
                Only::Sessions => out.line(hits.session),
                Only::Counts => out.line(format!("{}:{}", hits.session, hits.page.matched)),
                Only::Matches => {
                    if !headed {
                        rows::header(env.zone(), out);
                        headed = true;
                    }
                    let left = session_rows(&hits, &search.needle, env, out);
                    if left > 0 {
                        more.push(hits.session.clone());
                    }
                    hidden += left;
                }
            }
        }
        // Its reader went away (`| head`): the rest would be written nowhere.
        if out.closed() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let found = report.matched > 0;
    if report.stopped {
        // Nothing more to say: the counts would be of a search cut short.
        return Ok(exit(found));
    }
    if json {
        let around = json::around_sessions(&search_doc(args, report.searched, &report.skipped));
        if opened {
            out.raw("\n  ");
        } else {
            out.raw(&around.open);
        }
        out.raw(&around.close);
        return Ok(exit(found));
    }
    // A session that could not be read is said, not left to look like "no match".
    for (session, error) in report.skipped.iter().take(SKIPPED_SAID) {
        out.hint(format!("notesoup: {session} could not be read: {error}"));
    }
    out.footer(footer(args, &report, hidden, &more));
    Ok(exit(found))
}

/// `history search --json`'s document, its `sessions` left empty (they are written one
/// at a time: [`json::around_sessions`]).
fn search_doc<'a>(
    args: &Everywhere<'a>,
    searched: usize,
    skipped: &'a [(String, String)],
) -> json::SearchDoc<'a> {
    json::SearchDoc {
        ok: true,
        query: args.query,
        ignore_case: args.ignore_case,
        searched,
        sessions: Vec::new(),
        skipped: skipped
            .iter()
            .map(|(session, error)| json::SkippedDoc { session, error })
            .collect(),
    }
}

/// The fewest cells a search heading's folder is cut to on a terminal (`/home/me/…`);
/// with less room it is left out.
const MIN_FOLDER: usize = 12;

/// A session's heading, `<session>  <time>  <folder><end>`, in `width` cells on a terminal:
/// the folder gives way first (cut, then left out), then the time, so the session and its
/// count stay in view as long as they fit.
fn heading(
    session: &str,
    time: &str,
    folder: Option<&str>,
    end: &str,
    width: Option<usize>,
) -> String {
    let whole = |folder: &str| format!("{session}  {time}{folder}{end}");
    let Some(width) = width else {
        return whole(&folder.map(|f| format!("  {f}")).unwrap_or_default());
    };
    let bare = whole("");
    let room = width.saturating_sub(clean::width(&bare) + 2);
    if let Some(folder) = folder.filter(|_| room >= MIN_FOLDER) {
        return whole(&format!("  {}", clean::cut(folder, room)));
    }
    if clean::width(&bare) <= width {
        return bare;
    }
    clean::cut(&format!("{session}{end}"), width).into_owned()
}

/// How many sessions that could not be read a search names, each with why, above its footer.
const SKIPPED_SAID: usize = 3;

/// The last line of a search over many sessions: how many matched, and what was left out
/// (the command that pages the one session it left matches of, when it is one).
fn footer(args: &Everywhere<'_>, report: &SearchReport, hidden: usize, more: &[String]) -> String {
    let mut footer = if report.matched > 0 {
        let n = report.matched;
        format!(
            "{} of {} session{} matched",
            count(n),
            count(report.searched),
            plural_s(report.searched)
        )
    } else {
        format!(
            "no match for {} in {} session{}",
            quoted(args.query),
            count(report.searched),
            plural_s(report.searched)
        )
    };
    match more {
        [] => {}
        [one] => {
            let _ = write!(
                footer,
                "; {} older match{} not shown: notesoup history search {}{} --session {one} shows them, page by page",
                count(hidden),
                plural(hidden),
                shell_word(args.query),
                if args.ignore_case { " -i" } else { "" },
            );
        }
        _ => {
            let _ = write!(
                footer,
                "; {} older match{} not shown: --session with one of the sessions above shows its older matches, page by page",
                count(hidden),
                plural(hidden)
            );
        }
    }
    if report.searched == 0 {
        let filter = &args.filter;
        if let Some(project) = &filter.folder {
            let _ = write!(footer, "; {}", super::filter::no_session_in(project));
        } else if filter.harness.is_none() && filter.since.is_none() && filter.until.is_none() {
            // Nothing to search at all: as `history sessions` says it.
            footer.push_str(
                "; no sessions found (`notesoup doctor` shows which folders are searched)",
            );
        } else {
            footer.push_str(
                "; no session is of that --harness or active in that time (`notesoup history sessions` takes the same flags)",
            );
        }
    }
    if !report.skipped.is_empty() {
        let _ = write!(
            footer,
            "; {} session{} could not be read ({})",
            report.skipped.len(),
            plural_s(report.skipped.len()),
            if report.skipped.len() > SKIPPED_SAID {
                "--json lists them all, with why"
            } else {
                "said above"
            }
        );
    }
    footer
}

/// One session's matches under a heading; how many older ones it does not show.
fn session_rows(hits: &SessionHits, needle: &Needle, env: &Env, out: &mut Out) -> usize {
    let (zone, width) = (env.zone(), env.width());
    // The time `history sessions` shows for it (UPDATED), so the two agree.
    let n = hits.page.matched;
    let mut end = String::new();
    if hits.vault_only {
        end.push_str("  vault only");
    }
    let _ = write!(end, "  ({n} match{}) ──", plural(n));
    let heading = heading(
        &format!("── {}", hits.session),
        &format!("updated {}", rows::time_cell(zone, hits.updated)),
        hits.cwd.as_deref().map(one_line).as_deref(),
        &end,
        width,
    );
    out.line(out.paint(Paint::Strong, &heading));
    for doc in &hits.page.documents {
        rows::event(doc, Some(needle), zone, width, out);
    }
    n - hits.page.documents.len()
}

/// The search, with a progress bar on stderr once it has run for [`QUIET_FOR`] (only
/// when stderr is a terminal, and until `paging` starts: the pager then has the screen);
/// `each` is handed each session's matches as they come.
fn searched(
    ctx: &Context,
    search: &SearchArgs,
    env: &Env,
    paging: &crate::Paging,
    each: &mut dyn FnMut(usize, SessionHits) -> ControlFlow<()>,
) -> SearchReport {
    let started = Instant::now();
    // How many sessions are searched: told before the first matches.
    let of = std::cell::Cell::new(0);
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("searching {pos}/{len} sessions {wide_bar} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut shown = false;
    let report = history::search(
        ctx,
        search,
        &mut |done, total| {
            of.set(total);
            bar.set_length(u64::try_from(total).unwrap_or(u64::MAX));
            bar.set_position(u64::try_from(done).unwrap_or(u64::MAX));
            if !shown && env.stderr_terminal() && started.elapsed() >= QUIET_FOR {
                bar.set_draw_target(crate::progress::stderr_until_paged(paging));
                shown = true;
            }
        },
        // A session's rows are written with the bar cleared, then the bar drawn again
        // below them (both may be on one terminal).
        &mut |hits| bar.suspend(|| each(of.get(), hits)),
    );
    bar.finish_and_clear();
    report
}

fn exit(found: bool) -> u8 {
    if found { EXIT_OK } else { EXIT_FAILED }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "es" }
}

fn plural_s(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A word as a POSIX shell reads it back.
pub(crate) fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The search text as a footer quotes it: whole when short, else its first 60 characters and
/// how long it was (a pasted 100 KB text is not echoed back).
fn quoted(query: &str) -> String {
    const SHOWN: usize = 60;
    match crate::clean::cut(query, SHOWN) {
        std::borrow::Cow::Borrowed(whole) => format!("{whole:?}"),
        std::borrow::Cow::Owned(start) => {
            format!("{start:?} ({} characters)", query.chars().count())
        }
    }
}
