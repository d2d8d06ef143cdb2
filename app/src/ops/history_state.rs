//! `history_state`'s JSON handler: parse, call [`crate::history::state`], serialize.

use serde_json::Value;

use super::Fields;
use super::history::SessionArgs;
use crate::{Context, OpError, fields, parse};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let source: SessionArgs = parse("history_state", request)?;
    Ok(fields(&crate::history::state(ctx, &source.into())?))
}
