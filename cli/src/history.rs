//! `notesoup history`: the sessions of every harness on this machine, through the
//! application library's typed history calls (`notesoup_app::history`), so which events
//! exist, which a search finds and what a session is are exactly the model's tools'. The
//! CLI shapes the answers for people: rows in conversation order, data under `--json`,
//! and a footer (last, in its own flags) naming the next page.

mod filter;
mod json;
mod rows;
mod search;
mod show;
mod vault;

use notesoup_app::Context;
use notesoup_app::history::{self, SessionRow, SessionSource};
use notesoup_history_core::Role;

use crate::args::{HarnessArg, HistoryArgs, HistoryCommand, RoleArg};
use crate::clean::{self, cut, one_line};
use crate::refusals::{history_error, refused};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// Events shown by `history show` without `--limit`.
const SHOW_DEFAULT: usize = notesoup_history_core::DEFAULT_LIMIT;

pub(crate) fn run(args: &HistoryArgs, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let ctx = env.helper_context();
    warn_of_an_unreadable_vault(&ctx, &args.command, out);
    match &args.command {
        HistoryCommand::Vault => vault::keep(&ctx, env, out),
        HistoryCommand::Forget { session, before } => {
            vault::forget_command(&ctx, session.as_deref(), before.as_deref(), env.zone(), out)
        }
        HistoryCommand::Sessions {
            harness,
            filter,
            limit,
        } => {
            let filter = filter::session_filter(filter, harness.map(HarnessArg::host), env)?;
            sessions(&ctx, &filter, *limit, env, out);
            Ok(EXIT_OK)
        }
        HistoryCommand::Show {
            session,
            seq: Some(seq),
            ..
        } => show::show_seq(&ctx, session, *seq, env, out),
        HistoryCommand::Show {
            session,
            window,
            roles,
            limit,
            all,
            cursor,
            reverse,
            ..
        } => {
            let roles = roles_of(roles.as_deref());
            let page = show::Page {
                window: window.as_deref(),
                roles: roles.as_deref(),
                limit: if *all {
                    None
                } else {
                    Some(limit.unwrap_or(SHOW_DEFAULT))
                },
                cursor: cursor.as_deref(),
                reverse: *reverse,
            };
            show::show(&ctx, session, &page, env, out)
        }
        HistoryCommand::Search {
            query,
            session: Some(session),
            ignore_case,
            roles,
            limit,
            cursor,
            ..
        } => search::one(
            &ctx,
            &search::One {
                query,
                ignore_case: *ignore_case,
                session,
                roles: roles_of(roles.as_deref()).as_deref(),
                limit: limit.unwrap_or(search::ONE_SESSION_LIMIT),
                cursor: cursor.as_deref(),
            },
            env,
            out,
        ),
        HistoryCommand::Search {
            query,
            session: None,
            ignore_case,
            harness,
            filter,
            sessions,
            roles,
            limit,
            files_with_matches,
            count,
            ..
        } => search::everywhere(
            &ctx,
            &search::Everywhere {
                query,
                ignore_case: *ignore_case,
                filter: filter::session_filter(filter, harness.map(HarnessArg::host), env)?,
                sessions: *sessions,
                roles: roles_of(roles.as_deref()),
                limit: limit.unwrap_or(search::PER_SESSION),
                only: if *files_with_matches {
                    search::Only::Sessions
                } else if *count {
                    search::Only::Counts
                } else {
                    search::Only::Matches
                },
            },
            env,
            out,
        ),
    }
}

/// For the commands that read sessions, a vault that is there but cannot be read said on
/// stderr: else the sessions only it holds are missing with no word of why.
fn warn_of_an_unreadable_vault(ctx: &Context, command: &HistoryCommand, out: &mut Out) {
    let reads = matches!(
        command,
        HistoryCommand::Sessions { .. }
            | HistoryCommand::Show { .. }
            | HistoryCommand::Search { .. }
    );
    if reads && let Some(why) = notesoup_app::vault::unreadable(ctx) {
        out.warn(format!(
            "the history vault cannot be read ({why}): the sessions only it holds are left out; `notesoup doctor` checks it"
        ));
    }
}

/// The roles asked for (`None`: the tools' default roles).
fn roles_of(roles: Option<&[RoleArg]>) -> Option<Vec<Role>> {
    roles.map(|r| r.iter().map(|r| r.role()).collect())
}

/// The session a person named: `<harness>:<id>`, or a bare id (prefix) of any harness.
pub(crate) fn source(ctx: &Context, session: &str) -> Result<SessionSource, CliError> {
    let selector = history::selector(ctx, session).map_err(history_error)?;
    Ok(SessionSource::selected(selector))
}

/// A `--cursor` (`s41`): the seq the page before ends at.
pub(crate) fn cursor_seq(cursor: Option<&str>) -> Result<Option<u64>, CliError> {
    cursor
        .map(|c| {
            c.strip_prefix('s')
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| {
                    refused(&notesoup_history_core::QueryError::Cursor {
                        cursor: c.to_owned(),
                    })
                })
        })
        .transpose()
}

/// The least room a listing's folder and first prompt get on a terminal before its ids are
/// shortened.
const REST_MIN: usize = 30;

/// Each listed session's `<harness>:<id>` with its id cut to the shortest prefix, of at
/// least 8 characters, that no other listed id of its harness shares: one past its longest
/// common prefix with its neighbours in sorted order (any listing length stays a sort).
fn short_ids(list: &[SessionRow]) -> Vec<String> {
    let mut sorted: Vec<(&str, usize)> = list
        .iter()
        .enumerate()
        .map(|(n, s)| (s.session.as_str(), n))
        .collect();
    sorted.sort_unstable();
    // Whole `<harness>:<id>` strings: a shared prefix past the colon is one of the id.
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let mut out = vec![String::new(); list.len()];
    for (k, &(session, n)) in sorted.iter().enumerate() {
        let colon = session.find(':').map_or(0, |at| at + 1);
        let shared = [k.checked_sub(1), Some(k + 1)]
            .into_iter()
            .flatten()
            .filter_map(|j| sorted.get(j))
            .filter(|(other, _)| *other != session)
            .map(|(other, _)| common(session, other))
            .max()
            .unwrap_or(0);
        let keep = (shared + 1).max(colon + 8);
        out[n] = session.chars().take(keep).collect();
    }
    out
}

/// `history sessions`: the sessions `harness` and `filter` keep, newest first, the first `limit`.
fn sessions(
    ctx: &Context,
    filter: &history::SessionFilter,
    limit: usize,
    env: &Env,
    out: &mut Out,
) {
    let (list, total) = history::recent_sessions(ctx, filter, limit);
    listing(&list, total, filter, env, out);
}

/// [`sessions`]' table (a header row, one row per session), or the listing under `--json`.
fn listing(
    list: &[SessionRow],
    total: usize,
    filter: &history::SessionFilter,
    env: &Env,
    out: &mut Out,
) {
    if out.json {
        out.json_doc(&json::SessionsDoc {
            ok: true,
            total,
            sessions: list.iter().map(json::session).collect(),
        });
        return;
    }
    if list.is_empty() {
        out.line(if let Some(project) = &filter.folder {
            format!("No sessions found: {}.", filter::no_session_in(project))
        } else if filter.since.is_some() || filter.until.is_some() {
            "No session was active in that time (--since, --until).".to_owned()
        } else {
            "No sessions found. `notesoup doctor` shows which folders are searched.".to_owned()
        });
        return;
    }
    let whole = list
        .iter()
        .map(|s| clean::width(&s.session))
        .max()
        .unwrap_or(7);
    // On a terminal too narrow for whole ids beside a readable folder and prompt, each id
    // is its shortest prefix of at least 8 characters that no other listed id shares (as
    // `git log --oneline` shortens a hash); `history show` takes a unique prefix.
    let width = env.width();
    let zone = env.zone();
    let time = zone.cell_width();
    let ids = match width {
        Some(w) if w < whole + time + 4 + REST_MIN => short_ids(list),
        _ => list.iter().map(|s| s.session.clone()).collect(),
    };
    let id_width = ids
        .iter()
        .map(|id| clean::width(id))
        .max()
        .unwrap_or(7)
        .max(7);
    out.line(out.paint(
        Paint::Dim,
        &cut(
            &format!(
                "{:<id_width$}  {:<time$}  FOLDER · FIRST PROMPT",
                "SESSION",
                zone.header("UPDATED")
            ),
            width.unwrap_or(usize::MAX),
        ),
    ));
    let room = width.map_or(200, |w| w.saturating_sub(id_width + time + 4).max(1));
    for (s, id) in list.iter().zip(&ids) {
        // The time it is ordered by, newest first: the last time its file records.
        let updated = rows::time_cell(zone, s.updated);
        let mut rest = Vec::new();
        if let Some(cwd) = &s.cwd {
            rest.push(one_line(cwd));
        }
        if let Some(parent) = &s.parent {
            rest.push(format!("fork of {parent}"));
        }
        if s.vault_only {
            rest.push("vault only".to_owned());
        }
        if let Some(prompt) = &s.first_prompt {
            rest.push(format!("“{}”", one_line(prompt)));
        }
        let rest = cut(&rest.join(" · "), room).into_owned();
        let rest = match &s.unreadable {
            Some(why) => out.paint(
                Paint::Warn,
                &cut(&format!("unreadable: {}", one_line(why)), room),
            ),
            // A file the harness made before anything was said (Claude Code leaves empty ones).
            None if rest.is_empty() => {
                out.paint(Paint::Dim, &cut("(nothing said in it yet)", room))
            }
            None => rest,
        };
        let id = out.paint(Paint::Strong, &format!("{id:<id_width$}"));
        out.line(format!("{id}  {updated:<time$}  {rest}"));
    }
    if total > list.len() {
        out.footer(format!(
            "{} of {} sessions shown; --limit {total} shows them all",
            count(list.len()),
            count(total)
        ));
    }
}

/// A count for people, as every count notesoup writes for them: `11,432`
/// ([`notesoup_window::thousands`]). A number in a command to copy stays bare.
pub(crate) fn count(n: usize) -> String {
    notesoup_window::thousands(u64::try_from(n).unwrap_or(u64::MAX))
}
