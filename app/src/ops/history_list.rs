//! `history_list`'s JSON handler: parse, call [`crate::history::list`], serialize.

use notesoup_history_core::ListArgs;
use serde_json::Value;

use super::Fields;
use super::history::{SessionArgs, answered, parse_with_session};
use crate::{Context, OpError};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (session, args): (SessionArgs, ListArgs) = parse_with_session("history_list", request)?;
    Ok(answered(&crate::history::list(
        ctx,
        &session.into(),
        &args,
    )?))
}
