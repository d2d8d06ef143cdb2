//! `history_read`'s JSON handler: parse, call [`crate::history::read`], serialize.

use notesoup_history_core::ReadArgs;
use serde_json::Value;

use super::Fields;
use super::history::{SessionArgs, answered, parse_with_session};
use crate::{Context, OpError};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (session, args): (SessionArgs, ReadArgs) = parse_with_session("history_read", request)?;
    Ok(answered(&crate::history::read(
        ctx,
        &session.into(),
        &args,
    )?))
}
