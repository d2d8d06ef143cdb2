//! `limits`: the budget policy (warning and clear points) from what the hooks module read of
//! the session: `$.session.usage({breakdown:"summary"})`, `$.settings.read()`, the threshold
//! env variables, `$.session.model()` and the user's runtime cap. The math is
//! `notesoup-thresholds`; this op only checks the request's shape and maps refusals to codes.

use std::collections::BTreeMap;

use notesoup_thresholds::{Env, Inputs, Settings, Usage, resolve};
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};
use serde_json::{Value, json};

use super::Fields;
use crate::{Context, OpError, kind, parse};

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
fn object_or_null<T: DeserializeOwned>(field: &str, value: Value) -> Result<Option<T>, OpError> {
    let refused = |what: String| {
        OpError::bad_request(format!(
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

/// A field of a hook's facts read as [`object_or_null`] reads one, but forgiving: anything
/// that is not an object is as if absent (the hook op's `budget` never refuses a hook).
pub(super) fn when_object<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        value @ Value::Object(_) => serde_json::from_value(value).ok(),
        _ => None,
    })
}

/// What the shell read of a session for the budget (this op's request, the `hook` op's
/// `budget`): `notesoup-thresholds`' inputs but the cap, put together in this one place.
pub(super) struct Read<'a> {
    /// `$.session.usage({breakdown:"summary"})`, when an object.
    pub(super) usage: Option<&'a Usage>,
    /// The merged `$.settings.read()`, when an object.
    pub(super) settings: Option<&'a Settings>,
    /// The threshold variables as the shell forwarded them.
    pub(super) vars: &'a BTreeMap<String, String>,
    /// `$.session.model()`.
    pub(super) model: Option<&'a str>,
}

impl Read<'_> {
    /// Calls `f` with the inputs this read and `cap` make.
    pub(super) fn with<R>(&self, cap: Option<&str>, f: impl FnOnce(&Inputs<'_>) -> R) -> R {
        let env = Env::from_lookup(|name| self.vars.get(name).cloned());
        f(&Inputs {
            usage: self.usage,
            settings: self.settings,
            env: &env,
            model: self.model,
            cap,
        })
    }
}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, OpError> {
    let request: Request = parse("limits", request)?;
    let vars = request.env.unwrap_or_default();
    let usage: Option<Usage> = object_or_null("usage", request.usage)?;
    let settings: Option<Settings> = object_or_null("settings", request.settings)?;
    let read = Read {
        usage: usage.as_ref(),
        settings: settings.as_ref(),
        vars: &vars,
        model: request.model.as_deref(),
    };
    let policy = read
        .with(request.cap.as_deref(), resolve)
        .map_err(|err| OpError::new(err.code(), err.to_string()))?;
    let mut fields = Fields::new();
    fields.insert("unit".into(), json!(policy.unit.as_str()));
    fields.insert("source".into(), json!(policy.source.as_str()));
    fields.insert("native".into(), json!(policy.native));
    fields.insert("hard".into(), json!(policy.hard));
    fields.insert("warning".into(), json!(policy.warning));
    fields.insert("auto_clear".into(), json!(policy.auto_clear));
    fields.insert("warnings_enabled".into(), json!(policy.warnings_enabled));
    fields.insert("explicit_reset".into(), json!(policy.explicit_reset));
    fields.insert("cap".into(), json!(policy.cap));
    fields.insert("key".into(), json!(policy.key));
    Ok(fields)
}

#[cfg(test)]
mod tests;
