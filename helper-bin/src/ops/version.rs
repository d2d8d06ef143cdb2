//! `version`'s JSON handler: which helper this is and which ops it answers (the hooks
//! module's health check).

use notesoup_app::{AppError, Context, VERSION};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Fields, names};
use crate::parse;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {}

pub(crate) fn run(request: Value, _ctx: &Context) -> Result<Fields, AppError> {
    let Request {} = parse("version", request)?;
    let mut fields = Fields::new();
    fields.insert("version".into(), json!(VERSION));
    fields.insert("ops".into(), json!(names()));
    Ok(fields)
}
