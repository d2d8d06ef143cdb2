//! `version`'s JSON handler: which helper this is and which ops it answers (the hooks
//! module's health check).

use serde::Deserialize;
use serde_json::Value;

use super::Fields;
use crate::{Context, OpError, fields, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, OpError> {
    let Request {} = parse("version", request)?;
    Ok(fields(&crate::version()))
}
