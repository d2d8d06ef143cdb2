//! Whether the process is interactive, through hook calls: every call that says it tells
//! the flow, so a new session's record (after `/clear`: no session start) hears it too.

use notesoup_reset_flow::{Budget, Pool, Saved};
use serde_json::json;

use crate::{CapAsk, Hook, Resolve, hook_saved};

/// A call's world: no budget, and the process's interactivity as the call said it.
struct World(Option<bool>);

impl Resolve for World {
    fn budget(&mut self, _cap: Option<u64>) -> Option<Budget> {
        None
    }
    fn compaction_disabled(&self) -> Option<bool> {
        None
    }
    fn interactive(&self) -> Option<bool> {
        self.0
    }
    fn boot(
        &mut self,
        ordinal: u32,
        _reset: Option<(Pool, Option<&str>)>,
    ) -> Result<(String, String), String> {
        Ok((format!("claude:s1:{ordinal}"), "boot".into()))
    }
    fn session(&self) -> &'static str {
        "s1"
    }
    fn transcript_window(&mut self) -> Option<u32> {
        None
    }
    fn cap_command(&mut self, args: &str) -> Result<CapAsk, String> {
        Err(format!("no `/notesoup {args}` in these tests"))
    }
    fn cap_status(&mut self, _cap: Option<u64>, _ordinal: Option<u32>) -> String {
        String::new()
    }
}

/// A main step in process `p1` on what was saved; the saved flow and whether it is
/// interactive after the call.
fn step(saved: Option<&Saved>, interactive: Option<bool>) -> (Saved, bool) {
    let hook: Hook = serde_json::from_value(
        json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 0}}),
    )
    .unwrap();
    let (saved, reply) = hook_saved(saved, "p1", &hook, &mut World(interactive));
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
