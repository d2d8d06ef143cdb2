//! The envelope both hosts' event ops share (`hook` for Claude Code, `pi_hook` for Pi): the
//! event's name, the session, its raw facts and the module's version, checked here once.

use notesoup_app::AppError;
use notesoup_app::hook::{self, SessionRef};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::parse;

/// One host event as its module sends it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EventRequest {
    /// The event's name (`tool.call`, `turn_start`, ...).
    pub(super) event: String,
    /// The session whose flow the helper keeps.
    pub(super) session: SessionRef,
    /// The event's raw facts (with `budget` and `cwd` where it reads them).
    #[serde(default)]
    pub(super) facts: Map<String, Value>,
    /// The module's notesoup version; another than this helper's is refused.
    #[serde(default)]
    version: Option<String>,
}

impl EventRequest {
    /// The request of op `op`, its module's version checked.
    pub(super) fn parse(op: &str, request: Value) -> Result<Self, AppError> {
        let parsed: Self = parse(op, request)?;
        hook::same_version(parsed.version.as_deref())?;
        Ok(parsed)
    }

    /// Removes the fact `key`, read as `T` (absent: `None`).
    pub(super) fn take<T: serde::de::DeserializeOwned>(
        &mut self,
        op: &str,
        key: &str,
    ) -> Result<Option<T>, AppError> {
        self.facts.remove(key).map(|v| parse(op, v)).transpose()
    }

    /// The host's typed event (`H`) from the name and the facts left.
    pub(super) fn event<H: serde::de::DeserializeOwned>(self, op: &str) -> Result<H, AppError> {
        let event = self.event;
        serde_json::from_value(json!({"event": event, "facts": self.facts}))
            .map_err(|err| AppError::Request(format!("`{op}` event `{event}`: {err}")))
    }
}
