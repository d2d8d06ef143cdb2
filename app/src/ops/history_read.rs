//! `history_read`: one event or a range of events by seq, whole, with an offset to continue
//! a long one; within 32 KiB.

use notesoup_history_core::ReadArgs;
use serde_json::Value;

use super::Fields;
use super::history::{SessionArgs, answer, or_null, parse_with_session};
use crate::{Context, OpError};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (session, args): (SessionArgs, ReadArgs) = parse_with_session("history_read", request)?;
    answer(
        "history_read",
        &session,
        None,
        ctx,
        |history| history.read(&args),
        |_, answer| {
            let mut fields = Fields::new();
            fields.insert("next".into(), or_null(answer.next_read.clone()));
            fields
        },
    )
}
