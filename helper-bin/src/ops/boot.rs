//! `boot`'s JSON handler: parse the request, call [`notesoup_app::boot::build`], serialize.

use notesoup_app::boot::{BootArgs, build};
use notesoup_app::{AppError, Context};
use serde_json::Value;

use super::Fields;
use crate::{fields, parse};

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let args: BootArgs = parse("boot", request)?;
    Ok(fields(&build(ctx, &args.request()?)?))
}
