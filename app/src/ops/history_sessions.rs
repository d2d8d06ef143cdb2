//! `history_sessions`: the recent sessions of every harness on this machine (Claude, Pi,
//! Codex), most recently active first, so the model can pick one for `session`.

use notesoup_history_core::{render_sessions, sessions_limit};
use notesoup_window::Host;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use super::history::corpus;
use crate::{Context, OpError, parse};
use notesoup_history_store::Roots;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// Only this harness: `claude`, `pi` or `codex`.
    #[serde(default)]
    harness: Option<String>,
    /// How many sessions to show (1 to 200, default 20).
    #[serde(default)]
    limit: Option<usize>,
    /// The notesoup setting naming each harness's session folder.
    #[serde(default)]
    roots: Option<Roots>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let r: Request = parse("history_sessions", request)?;
    let harness = r
        .harness
        .as_deref()
        .map(Host::harness)
        .transpose()
        .map_err(|err| OpError::bad_request(format!("`harness`: {err}")))?;
    let limit = sessions_limit(r.limit).map_err(|err| OpError::bad_request(err.to_string()))?;
    let roots = r.roots.unwrap_or_default();
    let (sessions, total) = corpus(roots, ctx).recent(harness, limit);
    let (text, shown) = render_sessions(&sessions, limit, total);
    let list: Vec<Value> = sessions
        .iter()
        .take(shown)
        .map(|s| {
            json!({
                "session": s.selector(),
                "started": s.started,
                "cwd": s.cwd,
                "first_prompt": s.first_prompt,
                "parent": s.parent,
                "unreadable": s.unreadable,
            })
        })
        .collect();
    let mut fields = Fields::new();
    fields.insert("text".into(), json!(text.into_string()));
    fields.insert("sessions".into(), json!(list));
    fields.insert("total".into(), json!(total));
    Ok(fields)
}
