//! What the three history ops share: reading the session a request names (the live one by
//! its transcript path and head, or one the corpus finds by selector: history-store's
//! `named` decides which), and turning decoder refusals into replies.
//!
//! The transcript is read by `notesoup-history-store` (the decoder crates are pure), block
//! by block, so a large file is never held whole beside its decoded events, and through
//! its persistent index, so only the lines appended since the last call are decoded, and of
//! the lines the index covers only those an answer shows or a search may find.

use notesoup_history_claude::{Head, Options};
use notesoup_history_core::{Answer, BudgetedText, History, QueryError};
use notesoup_history_store::{Cache, Corpus, Named, Roots, named, read_history};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::Fields;

use crate::{Context, OpError, parse};

/// The session part of every history request: which session, and how to find it. The
/// history ops take these fields beside their own arguments in one flat object
/// ([`parse_with_session`]); `history_state` takes them alone.
#[derive(Debug, Default, Deserialize)]
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

/// The selected history of the session `source` names, for an answer that searches it for
/// `query`, if any (the live transcript's lines that may hold it are decoded whole, the
/// others skimmed: `read_history`).
pub(crate) fn load(
    op: &str,
    source: &SessionArgs,
    query: Option<&str>,
    ctx: &Context,
) -> Result<History, OpError> {
    let named = named(
        op,
        source.agent_id.as_deref(),
        source.session.as_deref(),
        source.transcript_path.as_deref(),
        source.head.as_deref(),
    )?;
    let (path, session, head) = match named {
        Named::Live {
            path,
            session,
            head,
        } => (path, session, head),
        Named::Listed(selector) => {
            let corpus = corpus(source.roots.clone(), ctx);
            let found = corpus.resolve(selector)?;
            let transcript = corpus.load(&found, cache(ctx).as_ref())?;
            return History::new(transcript)
                .map_err(|err| OpError::new("internal", err.to_string()));
        }
    };
    let options = Options {
        session: Some(session),
        sidechain: false,
    };
    let head = Head::Uuid(head.to_owned());
    Ok(read_history(
        path,
        &options,
        &head,
        cache(ctx).as_ref(),
        query,
    )?)
}

/// The session corpus under `roots` and the folders the environment names.
pub(crate) fn corpus(roots: Roots, ctx: &Context) -> Corpus {
    Corpus::new(roots, |name| ctx.var(name).map(str::to_owned))
}

/// Where transcript indexes are kept: `cache/history` under the notesoup home, when one
/// can be named (opened as a handle per call, never through a link: `Cache::in_home`).
pub(crate) fn cache(ctx: &Context) -> Option<Cache> {
    ctx.notes_home().ok().map(|root| Cache::in_home(&root))
}

/// One history tool call on the session `source` names: `tool`'s answer with the fields
/// every answer carries plus the ones `extra` takes from it, or a refusal reply; `query`:
/// what `tool` searches for, if anything.
pub(crate) fn answer(
    op: &str,
    source: &SessionArgs,
    query: Option<&str>,
    ctx: &Context,
    tool: impl FnOnce(&History) -> Result<Answer, QueryError>,
    extra: impl FnOnce(&History, &Answer) -> Fields,
) -> Result<Fields, OpError> {
    let history = load(op, source, query, ctx)?;
    let fields = match tool(&history) {
        Ok(answer) => {
            let extra = extra(&history, &answer);
            let mut fields = answer_fields(&history, answer);
            fields.extend(extra);
            fields
        }
        Err(err) => refusal_fields(&history, err.code(), history.refusal(op, &err)),
    };
    release(history);
    Ok(fields)
}

/// The reply fields every answer carries.
fn answer_fields(history: &History, answer: Answer) -> Fields {
    let mut fields = Fields::new();
    fields.insert("text".into(), json!(answer.text.into_string()));
    fields.insert("shown".into(), json!(answer.shown));
    fields.insert("matched".into(), json!(answer.matched));
    fields.insert("session".into(), json!(history.session().to_string()));
    fields.insert("missing".into(), json!(history.missing()));
    fields
}

/// The reply to a wrongly called tool: still `ok`, with the text the model reads and the
/// error's code in `refused`.
fn refusal_fields(history: &History, code: &str, text: BudgetedText) -> Fields {
    let mut fields = Fields::new();
    fields.insert("text".into(), json!(text.into_string()));
    fields.insert("refused".into(), json!(code));
    fields.insert("session".into(), json!(history.session().to_string()));
    fields.insert("missing".into(), json!(history.missing()));
    fields
}

/// Lets go of a decoded history without freeing it piece by piece: the helper answers one
/// request and exits, and freeing the events of a 100 MB transcript one by one took a
/// measurable share of the call. The operating system reclaims it all at exit.
fn release(history: History) {
    std::mem::forget(history);
}

/// `Value::Null` for `None`.
pub(crate) fn or_null<T: serde::Serialize>(value: Option<T>) -> Value {
    value.map_or(Value::Null, |v| json!(v))
}

#[cfg(test)]
mod tests;
