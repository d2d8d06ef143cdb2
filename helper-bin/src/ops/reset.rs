//! `reset`: one step of the reset flow (`notesoup-reset-flow`): the shell's state blob and
//! one event in; the new blob, the effects to carry out and the hot-path hints out.

use notesoup_reset_flow::{Event, FlowError, step};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The blob of the previous reply; `null` (or absent) for a fresh flow.
    #[serde(default)]
    state: Value,
    /// One event, tagged by `type` (see `reset-flow/EVENTS.md`).
    event: Value,
}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, OpError> {
    let Request { state, event } = parse("reset", request)?;
    let event: Event = serde_json::from_value(event)
        .map_err(|err| OpError::bad_request(format!("`reset` event: {err}")))?;
    let reply = step(&state, event).map_err(|err| match err {
        FlowError::UnknownVersion { .. } => OpError::new("unknown_state_version", err.to_string()),
        FlowError::BadState { .. } => OpError::new("bad_state", err.to_string()),
    })?;
    let mut fields = Fields::new();
    fields.insert("state".into(), reply.flow.to_blob());
    fields.insert("effects".into(), json!(reply.effects));
    fields.insert("hints".into(), json!(reply.hints));
    Ok(fields)
}
