//! `history_list`: one folded line per event of a session, newest first, with literal
//! search, a role and window filter, and a continuation cursor; within 32 KiB.

use notesoup_history_core::ListArgs;
use serde_json::{Value, json};

use super::Fields;
use super::history::{SessionArgs, answer, or_null, parse_with_session};
use crate::{Context, OpError};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (session, args): (SessionArgs, ListArgs) = parse_with_session("history_list", request)?;
    answer(
        "history_list",
        &session,
        args.query.as_deref(),
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
