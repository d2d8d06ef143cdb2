//! `limits`' JSON handler: the request's shape checked (`usage` and `settings` objects or
//! null), [`notesoup_app::limits::resolve`] called, its policy serialized.

use std::collections::BTreeMap;

use notesoup_app::limits::{Reading, resolve};
use notesoup_app::{AppError, Context};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Fields;
use crate::{fields, parse};
use notesoup_app::tools::kind_of as kind;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// `$.session.usage({breakdown:"summary"})`, or null.
    #[serde(default)]
    usage: Value,
    /// The merged `$.settings.read()`, or null.
    #[serde(default)]
    settings: Value,
    /// The threshold variables as strings, absent when unset (others are ignored).
    #[serde(default)]
    env: Option<BTreeMap<String, String>>,
    /// `$.session.model()`.
    #[serde(default)]
    model: Option<String>,
    /// The runtime cap as typed (`"100k"`), or null.
    #[serde(default)]
    cap: Option<String>,
}

/// `usage` and `settings` are objects or null; anything else is a malformed request. An
/// object is read as the thresholds crate reads the engine's JSON (it never refuses one).
fn object_or_null<T: DeserializeOwned>(field: &str, value: Value) -> Result<Option<T>, AppError> {
    let refused = |what: String| {
        AppError::Request(format!(
            "`limits` request: `{field}` must be an object or null, {what}"
        ))
    };
    match value {
        Value::Null => Ok(None),
        value @ Value::Object(_) => serde_json::from_value(value)
            .map(Some)
            .map_err(|err| refused(err.to_string())),
        other => Err(refused(format!("got {}", kind(&other)))),
    }
}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, AppError> {
    let request: Request = parse("limits", request)?;
    let reading = Reading {
        usage: object_or_null("usage", request.usage)?,
        settings: object_or_null("settings", request.settings)?,
        env: request.env.unwrap_or_default(),
        model: request.model,
    };
    Ok(fields(&resolve(&reading, request.cap.as_deref())?))
}

#[cfg(test)]
mod tests;
