//! The five notes ops' JSON handler: each request is `{"cwd": <session folder>, "args":
//! <the tool input as the model sent it>}`; parse it, call the [`notesoup_app::notes`]
//! function the op names, serialize.

use notesoup_app::{AppError, Context};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Fields;
use crate::{fields, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request<A> {
    cwd: String,
    args: A,
}

/// Op `op`: its request parsed, answered by `call` (`notes::list`, `notes::read`, ...).
pub(crate) fn run<A: DeserializeOwned, T: Serialize>(
    op: &str,
    request: Value,
    ctx: &Context,
    call: fn(&Context, &str, &A) -> Result<T, AppError>,
) -> Result<Fields, AppError> {
    let Request { cwd, args } = parse::<Request<A>>(op, request)?;
    Ok(fields(&call(ctx, &cwd, &args)?))
}
