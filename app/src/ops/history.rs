//! What the history ops' JSON handlers share: the session fields of every history request
//! ([`SessionArgs`], parsed beside each tool's own arguments), and an [`Answered`] as the
//! reply's fields (a refusal is still `ok`, with its code in `refused`).

use notesoup_history_core::History;
use notesoup_history_store::Roots;
use serde::Deserialize;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Fields;

use crate::history::{Answered, LiveSession, SessionSource};
use crate::{Context, OpError, fields, parse};

/// The session part of every history request: which session, and how to find it. The
/// history ops take these fields beside their own arguments in one flat object
/// ([`parse_with_session`]); `history_state` takes them alone.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SessionArgs {
    /// The live session's transcript, exactly as Claude gave it (`transcript_path`).
    #[serde(default)]
    pub(crate) transcript_path: Option<String>,
    /// The uuid of the latest successful main `session.append` result.
    #[serde(default)]
    pub(crate) head: Option<String>,
    /// An explicit session, `<harness>:<sessionId>` (a unique id prefix is enough).
    #[serde(default)]
    pub(crate) session: Option<String>,
    /// Set when a subagent calls: history is the main agent's alone.
    #[serde(default)]
    pub(crate) agent_id: Option<String>,
    /// The notesoup setting naming each harness's session folder.
    #[serde(default)]
    pub(crate) roots: Roots,
}

impl SessionArgs {
    /// The JSON names of the fields above, in order (a test holds it to the struct).
    pub(crate) const FIELDS: [&str; 5] =
        ["transcript_path", "head", "session", "agent_id", "roots"];
}

/// Parses a history request: the [`SessionArgs`] fields into one, every other field into
/// the tool's own arguments `A` (which refuse unknown fields). An unknown field is refused
/// naming both sets of known fields.
pub(crate) fn parse_with_session<A: DeserializeOwned>(
    op: &str,
    request: Value,
) -> Result<(SessionArgs, A), OpError> {
    let Value::Object(mut fields) = request else {
        return Err(OpError::bad_request(format!(
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
        OpError::bad_request(format!("`{op}` request: {err}{known}"))
    })?;
    Ok((session, args))
}

impl From<SessionArgs> for SessionSource {
    fn from(args: SessionArgs) -> Self {
        Self {
            live: args.transcript_path.map(|transcript_path| LiveSession {
                transcript_path,
                head: args.head,
            }),
            selector: args.session,
            agent_id: args.agent_id,
            roots: args.roots,
        }
    }
}

/// The reply fields of a history tool's answer or refusal.
pub(crate) fn answered<T: Serialize>(answered: &Answered<T>) -> Fields {
    match answered {
        Answered::Answer(answer) => fields(answer),
        Answered::Refused(refusal) => fields(refusal),
    }
}

/// [`crate::history::load`] of the session `source` names, its refusal as the protocol's
/// error (the `hook` op reads the head's window with it).
pub(crate) fn load(
    op: &str,
    source: &SessionArgs,
    query: Option<&str>,
    ctx: &Context,
) -> Result<History, OpError> {
    let source = SessionSource::from(source.clone());
    Ok(crate::history::load(op, &source, query, ctx)?)
}

#[cfg(test)]
mod tests;
