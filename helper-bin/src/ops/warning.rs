//! `warning`: the budget warning for the host's reset tool and the tokens left.

use notesoup_boot::{Host, warning};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// `claude` or `pi`.
    host: String,
    /// Tokens the window holds now.
    used: u64,
    /// Tokens at which the window is cleared automatically.
    clear_at: u64,
}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, OpError> {
    let req: Request = parse("warning", request)?;
    let host: Host = req
        .host
        .parse()
        .map_err(|err: notesoup_boot::BootError| OpError::new("unknown_host", err.to_string()))?;
    let left = req.clear_at.saturating_sub(req.used);
    let mut fields = Fields::new();
    fields.insert("text".into(), json!(warning(host, left)));
    fields.insert("tokens_left".into(), json!(left));
    Ok(fields)
}
