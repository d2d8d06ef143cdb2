//! `version`: which helper this is and which ops it answers (the hooks module's health check).

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Fields, NAMES};
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, OpError> {
    let Request {} = parse("version", request)?;
    let mut fields = Fields::new();
    fields.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    fields.insert("ops".into(), json!(NAMES));
    Ok(fields)
}
