//! `history_state`: the window the session's head is in, as the boot and reset flow need
//! it; refuses when that ordinal cannot be known (never a guess).

use serde_json::{Value, json};

use super::Fields;
use super::history::{SessionArgs, load};
use crate::{Context, OpError, parse};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let source: SessionArgs = parse("history_state", request)?;
    let history = load("history_state", &source, None, ctx)?;
    let Some(ordinal) = history.head_window().ordinal() else {
        return Err(OpError::new(
            "window_unknown",
            format!(
                "the head's window is {}: its ancestry stops at a missing record, so its ordinal cannot be known",
                history.head_window_id()
            ),
        ));
    };
    let mut fields = Fields::new();
    fields.insert("window".into(), json!(history.head_window_id()));
    fields.insert("ordinal".into(), json!(ordinal));
    Ok(fields)
}
