//! The four history ops' JSON handlers: parse, call [`notesoup_app::history`], serialize.
//! Every history request carries the session's fields ([`SessionArgs`]) beside the tool's
//! own arguments in one flat object; a tool's refusal is still `ok`, with its code in
//! `refused`.

use notesoup_app::history::{self, ListArgs, ReadArgs, SessionArgs, SessionsArgs};
use notesoup_app::{AppError, Context};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Fields;
use crate::{fields, parse};

/// Parses a history request: the [`SessionArgs`] fields into one, every other field into
/// the tool's own arguments `A` (which refuse unknown fields). An unknown field is refused
/// naming both sets of known fields.
fn parse_with_session<A: DeserializeOwned>(
    op: &str,
    request: Value,
) -> Result<(SessionArgs, A), AppError> {
    let Value::Object(mut fields) = request else {
        return Err(AppError::Request(format!(
            "`{op}` request must be a JSON object"
        )));
    };
    let session: Map<String, Value> = SessionArgs::FIELDS
        .into_iter()
        .filter_map(|name| fields.remove_entry(name))
        .collect();
    let session = parse(op, Value::Object(session))?;
    let args = serde_json::from_value(Value::Object(fields)).map_err(|err| {
        let known = if err.to_string().starts_with("unknown field") {
            format!(
                ", or a session field: `{}`",
                SessionArgs::FIELDS.join("`, `")
            )
        } else {
            String::new()
        };
        AppError::Request(format!("`{op}` request: {err}{known}"))
    })?;
    Ok((session, args))
}

pub(crate) fn list(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let (session, args): (_, ListArgs) = parse_with_session("history_list", request)?;
    Ok(fields(&history::list(ctx, &session.into(), &args)?))
}

pub(crate) fn read(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let (session, args): (_, ReadArgs) = parse_with_session("history_read", request)?;
    Ok(fields(&history::read(ctx, &session.into(), &args)?))
}

pub(crate) fn sessions(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let args: SessionsArgs = parse("history_sessions", request)?;
    Ok(fields(&history::sessions(ctx, &args)?))
}

pub(crate) fn state(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let source: SessionArgs = parse("history_state", request)?;
    Ok(fields(&history::state(ctx, &source.into())?))
}

#[cfg(test)]
mod tests;
