//! `hook`'s JSON handler: one engine hook call of the hooks module, its raw facts sorted
//! into a [`HookCall`] (the budget, where the session lives, the switches, the kept boots,
//! then the hook itself), answered by [`notesoup_app::hook::call`], serialized.

use std::collections::BTreeMap;

use notesoup_app::hook::{self, BudgetFacts, Hook, HookCall, Place, Switches};
use notesoup_app::{AppError, Context};
use serde_json::{Value, json};

use super::Fields;
use super::event::EventRequest;
use crate::fields;

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, AppError> {
    let mut request = EventRequest::parse("hook", request)?;
    let budget: Option<BudgetFacts> = request.take("hook", "budget")?;
    let place = Place {
        cwd: request.take("hook", "cwd")?,
        transcript_path: request.take("hook", "transcript_path")?,
        head: request.take("hook", "head")?,
    };
    let switched_on = match request.take::<BTreeMap<String, String>>("hook", "env")? {
        None => false,
        Some(env) => match hook::switches(&env) {
            Switches::Off => return Ok(fields(&hook::off())),
            Switches::On { disable_compact } => {
                request
                    .facts
                    .insert("disable_compact".into(), json!(disable_compact));
                true
            }
        },
    };
    if let Some(texts) = request.take::<Vec<String>>("hook", "kept")? {
        let boots = hook::kept_boots(&texts, request.session.harness);
        request.facts.insert("kept".into(), json!(boots));
    }
    let session = request.session.clone();
    let call = HookCall {
        session,
        hook: request.event::<Hook>("hook")?,
        place,
        budget,
        switched_on,
    };
    Ok(fields(&hook::call(ctx, &call)?))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod vault_tests;
