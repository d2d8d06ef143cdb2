//! `history_list`: one folded line per event of a session, newest first, with literal
//! search, a role and window filter, and a continuation cursor; within 32 KiB.

use notesoup_history_core::{ListArgs, Order, Role};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use super::history::{Source, answer, or_null};
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    #[serde(default)]
    transcript_path: Option<String>,
    #[serde(default)]
    head: Option<String>,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    roots: Option<notesoup_history_store::Roots>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    roles: Option<Vec<Role>>,
    #[serde(default)]
    window: Option<String>,
    #[serde(default)]
    cursor: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    order: Option<Order>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let r: Request = parse("history_list", request)?;
    let source = Source {
        transcript_path: r.transcript_path,
        head: r.head,
        session: r.session,
        agent_id: r.agent_id,
        roots: r.roots.unwrap_or_default(),
    };
    let args = ListArgs {
        query: r.query,
        roles: r.roles,
        window: r.window,
        cursor: r.cursor,
        limit: r.limit,
        order: r.order,
    };
    answer(
        "history_list",
        &source,
        ctx,
        |history| history.list(&args),
        |history, answer| {
            let mut fields = Fields::new();
            fields.insert("cursor".into(), or_null(answer.next_cursor.clone()));
            fields.insert("window".into(), json!(history.head_window_id()));
            fields
        },
    )
}
