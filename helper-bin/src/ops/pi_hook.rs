//! `pi_hook`'s JSON handler: one Pi extension event, its raw facts sorted into a
//! [`PiHookCall`] (the budget, where the session lives, then the event itself), answered by
//! [`notesoup_app::hook::pi::call`], serialized.

use notesoup_app::hook::Place;
use notesoup_app::hook::pi::{self, PiBudgetFacts, PiHook, PiHookCall};
use notesoup_app::{AppError, Context};
use serde_json::Value;

use super::Fields;
use super::event::EventRequest;
use crate::fields;

/// The event of Pi's own tool `notesoup_get_context_remaining` (no flow event: it reads the
/// budget and the cap).
const GET_CONTEXT_REMAINING: &str = "get_context_remaining";

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let mut request = EventRequest::parse("pi_hook", request)?;
    let budget: Option<PiBudgetFacts> = request.take("pi_hook", "budget")?;
    if request.event == GET_CONTEXT_REMAINING {
        let budget = budget.unwrap_or_default();
        return Ok(fields(&pi::get_context_remaining(
            ctx,
            &request.session,
            &budget,
        )?));
    }
    let place = Place {
        cwd: request.take("pi_hook", "cwd")?,
        transcript_path: None,
        head: None,
    };
    let session_file = request.take("pi_hook", "session_file")?;
    let session = request.session.clone();
    let call = PiHookCall {
        session,
        hook: request.event::<PiHook>("pi_hook")?,
        place,
        budget,
        session_file,
    };
    Ok(fields(&pi::call(ctx, &call)?))
}
