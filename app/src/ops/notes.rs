//! The five notes ops' JSON handlers: each request is `{"cwd": <session folder>, "args":
//! <the tool input as the model sent it>}`; parse it, call [`crate::notes`], serialize.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Fields;
use crate::{Context, OpError, fields, notes, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request<A> {
    cwd: String,
    args: A,
}

fn parse_request<A: DeserializeOwned>(op: &str, request: Value) -> Result<(String, A), OpError> {
    let Request { cwd, args } = parse::<Request<A>>(op, request)?;
    Ok((cwd, args))
}

pub(crate) fn list(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (cwd, args) = parse_request("notes_list", request)?;
    Ok(fields(&notes::list(ctx, &cwd, &args)?))
}

pub(crate) fn read(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (cwd, args) = parse_request("notes_read", request)?;
    Ok(fields(&notes::read(ctx, &cwd, &args)?))
}

pub(crate) fn write(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (cwd, args) = parse_request("notes_write", request)?;
    Ok(fields(&notes::write(ctx, &cwd, &args)?))
}

pub(crate) fn edit(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (cwd, args) = parse_request("notes_edit", request)?;
    Ok(fields(&notes::edit(ctx, &cwd, &args)?))
}

pub(crate) fn delete(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (cwd, args) = parse_request("notes_delete", request)?;
    Ok(fields(&notes::delete(ctx, &cwd, &args)?))
}
