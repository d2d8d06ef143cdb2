//! `boot`'s JSON handler: parse the request, call [`crate::boot::build`], serialize.

use notesoup_boot::Reset;
use serde::Deserialize;
use serde_json::Value;

use super::Fields;
use crate::boot::Boot;
pub(crate) use crate::boot::BootRequest;
use crate::{AppError, Context, OpError, fields, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The session's working folder: picks the brain.
    cwd: String,
    /// `claude` or `pi`.
    host: String,
    /// The host's session id.
    session: String,
    /// 0 for the session's first window, one more per clear.
    ordinal: u32,
    /// The `last_word` of the reset that ended the previous window.
    #[serde(default)]
    last_word: Option<String>,
    /// Whether the history tools are available in this window.
    history: bool,
    /// How the previous window ended: `normal`, `forced`, or absent (no handoff).
    #[serde(default)]
    reset: Option<String>,
    /// Mixed into the handoff choice with the window id; the same seed and window always
    /// get the same paragraph.
    #[serde(default)]
    seed: String,
    /// Bytes of note contents to show at most.
    #[serde(default)]
    budget: Option<usize>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let req: Request = parse("boot", request)?;
    let reset = req
        .reset
        .as_deref()
        .map(str::parse::<Reset>)
        .transpose()
        .map_err(AppError::BadReset)?;
    let built = build(
        ctx,
        &BootRequest {
            cwd: &req.cwd,
            host: &req.host,
            session: &req.session,
            ordinal: req.ordinal,
            last_word: req.last_word.as_deref(),
            history: req.history,
            reset,
            seed: &req.seed,
            budget: req.budget,
        },
    )?;
    Ok(fields(&built))
}

/// [`crate::boot::build`], its refusal as the protocol's error (the `hook` op's boots).
pub(crate) fn build(ctx: &Context, req: &BootRequest<'_>) -> Result<Boot, OpError> {
    Ok(crate::boot::build(ctx, req)?)
}
