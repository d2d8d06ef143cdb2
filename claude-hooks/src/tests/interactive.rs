//! Whether the process is interactive, through hook calls: every call that says it tells
//! the flow, so a new session's record (after `/clear`: no session start) hears it too.

use notesoup_reset_flow::Saved;
use serde_json::json;

use super::world::World;
use crate::{Hook, hook_saved};

/// A main step in process `p1` on what was saved; the saved flow and whether it is
/// interactive after the call.
fn step(saved: Option<&Saved>, interactive: Option<bool>) -> (Saved, bool) {
    let hook: Hook = serde_json::from_value(
        json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 0}}),
    )
    .unwrap();
    let (saved, reply) = hook_saved(
        saved,
        "p1",
        &hook,
        &mut World {
            interactive,
            ..World::default()
        },
    );
    (saved, reply.flow.interactive())
}

#[test]
fn a_record_that_heard_no_session_start_learns_the_process_is_interactive_from_any_call() {
    // A new session's record after `/clear`: its first call says the terminal.
    let (saved, interactive) = step(None, Some(true));
    assert!(interactive, "the call said the process is interactive");
    // A call that does not say it leaves the flow as it was.
    let (saved, interactive) = step(Some(&saved), None);
    assert!(interactive, "a call without the field changed the flow");
    // A call that says otherwise is heard too.
    let (_, interactive) = step(Some(&saved), Some(false));
    assert!(!interactive, "the call said the process is headless");
}
