//! `history_sessions`'s JSON handler: parse, call [`crate::history::sessions`], serialize.

use serde_json::Value;

use super::Fields;
use crate::history::SessionsArgs;
use crate::{Context, OpError, fields, parse};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let args: SessionsArgs = parse("history_sessions", request)?;
    Ok(fields(&crate::history::sessions(ctx, &args)?))
}
