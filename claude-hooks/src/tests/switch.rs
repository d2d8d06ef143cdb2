//! `DISABLE_COMPACT` through hook calls: heard from every call that forwards it, kept by the
//! record across processes, said once per session.

use notesoup_reset_flow::{DISABLE_COMPACT_LOG, Effect, Saved};
use serde_json::{Value, json};

use super::world::World;
use crate::{Hook, hook_saved};

fn hook(raw: Value) -> Hook {
    serde_json::from_value(raw).unwrap()
}

/// One call in process `process` on what was saved; the saved flow and the effects.
fn call(
    saved: Option<&Saved>,
    process: &str,
    raw: Value,
    switch: Option<bool>,
) -> (Saved, Vec<Effect>) {
    let (saved, reply) = hook_saved(
        saved,
        process,
        &hook(raw),
        &mut World {
            compaction_disabled: switch,
            ..World::fill(2000, 1000)
        },
    );
    (saved, reply.effects)
}

fn logs(fx: &[Effect]) -> usize {
    fx.iter()
        .filter(|e| matches!(e, Effect::Log { text } if text == DISABLE_COMPACT_LOG))
        .count()
}

fn empty() -> Value {
    json!({"event": "command.run", "facts": {"command": "empty"}})
}

#[test]
fn a_call_that_forwards_disable_compact_is_refused_in_a_flow_that_never_heard_it() {
    // A new session's record (after `/clear`) or a record from before: no session start.
    let (saved, fx) = call(None, "p1", empty(), Some(true));
    assert_eq!(logs(&fx), 1, "{fx:?}");
    assert!(
        matches!(&fx[..], [Effect::Log { .. }, Effect::Report { text }] if text.contains("DISABLE_COMPACT")),
        "{fx:?}"
    );
    // The budget's hard point at a step ends no turn.
    let (saved, _) = call(
        Some(&saved),
        "p1",
        json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 0}}),
        Some(true),
    );
    let (_, fx) = call(
        Some(&saved),
        "p1",
        json!({"event": "turn.step", "facts": {"agent": "main", "turn_id": "t1", "index": 1}}),
        Some(true),
    );
    assert!(fx.is_empty(), "{fx:?}");
}

#[test]
fn a_reload_keeps_disable_compact_and_it_is_logged_once_per_session() {
    let start = json!({"event": "session.start", "facts": {"disable_compact": true}});
    let (saved, fx) = call(None, "p1", start.clone(), None);
    assert_eq!(logs(&fx), 1, "{fx:?}");
    // The hooks module reloaded (a new process token): a call that forwards no budget
    // first, then `/empty` with its budget. No second line, still refused.
    let (saved, fx) = call(
        Some(&saved),
        "p2",
        json!({"event": "prompt.context", "facts": {"kept": []}}),
        None,
    );
    assert_eq!(logs(&fx), 0, "{fx:?}");
    assert!(saved.flow.as_ref().unwrap().snapshot().disable_compact);
    let (saved, fx) = call(Some(&saved), "p2", empty(), Some(true));
    assert!(matches!(&fx[..], [Effect::Report { .. }]), "{fx:?}");
    // A new process's own session start: still once.
    let (saved, fx) = call(Some(&saved), "p3", start, None);
    assert_eq!(logs(&fx), 0, "{fx:?}");
    // A process without it clears it: `/empty` is accepted.
    let (_, fx) = call(Some(&saved), "p4", empty(), Some(false));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Closeout { .. })),
        "{fx:?}"
    );
}

/// With nothing measured yet (a session `/clear` just started) the refusal is still
/// `DISABLE_COMPACT`'s: it says why no clear can ever run, not that there is nothing yet.
#[test]
fn disable_compact_is_the_refusal_even_with_nothing_measured() {
    let (_, reply) = hook_saved(
        None,
        "p1",
        &hook(empty()),
        &mut World {
            compaction_disabled: Some(true),
            ..World::default()
        },
    );
    assert!(
        matches!(&reply.effects[..], [Effect::Log { .. }, Effect::Report { text }] if text.contains("cannot run: DISABLE_COMPACT")),
        "{:?}",
        reply.effects
    );
}
