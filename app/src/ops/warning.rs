//! `warning`: the budget warning for the host's reset tool and the tokens left.

use notesoup_boot::{Countdown, warning};
use notesoup_thresholds::Unit;
use notesoup_window::Host;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// `claude` or `pi`.
    host: String,
    /// What the window holds now, in `unit`s.
    used: u64,
    /// Where the window is cleared automatically, in `unit`s.
    clear_at: u64,
    /// `tokens` (the default) or `percent` (when only a percentage of the window is known).
    #[serde(default)]
    unit: Option<String>,
}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, OpError> {
    let req: Request = parse("warning", request)?;
    let host: Host = req
        .host
        .parse()
        .map_err(|err: notesoup_window::UnknownHost| {
            OpError::new("unknown_host", err.to_string())
        })?;
    let unit = req
        .unit
        .as_deref()
        .map(Unit::named)
        .transpose()
        .map_err(|err| OpError::bad_request(format!("`warning` request: {err}")))?
        .unwrap_or(Unit::Tokens);
    let (text, left) = warning_text(host, unit, req.clear_at, req.used);
    let mut fields = Fields::new();
    fields.insert("text".into(), json!(text));
    fields.insert("left".into(), json!(left));
    Ok(fields)
}

/// The budget warning for a window holding `used` of a clear at `clear_at` (both in
/// `unit`s), and what is left: the `warning` and `hook` ops' one composition of the
/// policy's unit and `notesoup-boot`'s countdown.
pub(crate) fn warning_text(host: Host, unit: Unit, clear_at: u64, used: u64) -> (String, u64) {
    let countdown = match unit {
        Unit::Tokens => Countdown::tokens_to(clear_at, used),
        Unit::Percent => Countdown::percent_to(clear_at, used),
    };
    (warning(host, countdown), countdown.left())
}
