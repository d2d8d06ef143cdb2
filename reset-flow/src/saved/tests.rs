#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use serde_json::json;

use super::Saved;
use crate::{Event, STATE_VERSION, step_saved};

#[test]
fn a_saved_flow_round_trips_through_its_json() {
    let point = Event::WarningPoint {
        tokens: 150_000,
        point: Some(142_000),
    };
    let (saved, _) = step_saved(None, "p1", point);
    let text = serde_json::to_string(&saved).unwrap();
    let back: Saved = serde_json::from_str(&text).unwrap();
    assert_eq!(back, saved);
    let value = serde_json::to_value(&saved).unwrap();
    assert_eq!(value["process"], "p1");
    assert_eq!(value["flow"]["v"], STATE_VERSION);
}

#[test]
fn a_flow_of_another_version_reads_as_none_never_misread() {
    let saved: Saved = serde_json::from_value(json!({"process": "p1", "flow": {"v": 99}})).unwrap();
    assert_eq!(
        saved,
        Saved {
            process: Some("p1".into()),
            flow: None
        }
    );
    let saved: Saved =
        serde_json::from_value(json!({"flow": {"v": STATE_VERSION, "bogus": 1}})).unwrap();
    assert_eq!(saved.flow, None);
}

#[test]
fn a_record_written_before_the_typed_state_still_loads() {
    // A window record's `state` exactly as the helper of fc72281 (before `Saved`) wrote it
    // after `/notesoup cap 100k` and a first prompt: window 0, capped, its warning due.
    let old = r#"{"flow":{"answering":null,"commit":null,"continuation":false,"cutoff":null,"disable_compact":false,"generation":0,"interactive":false,"main_turn":null,"natural_in_turn":false,"next_request":1,"opening":null,"request":null,"stepped":false,"undelivered":false,"v":3,"waiting":null,"window":{"cap":100000,"ordinal":0,"own_boot":"none","warning":"due"}},"process":"p1"}"#;
    let read: Saved = serde_json::from_str(old).unwrap();
    assert_eq!(read.process.as_deref(), Some("p1"));
    let snapshot = read.flow.as_ref().unwrap().snapshot();
    assert_eq!((snapshot.ordinal, snapshot.cap), (Some(0), Some(100_000)));
    // And it is written back the same: the record's format did not change.
    let again: serde_json::Value = serde_json::to_value(&read).unwrap();
    assert_eq!(
        again,
        serde_json::from_str::<serde_json::Value>(old).unwrap()
    );
}

/// Issue 26, item 2: an outcome of work one binding issued (a session, in a process, between
/// session changes) changes nothing in a flow another binding steps: the new session's
/// after `/clear` (the same process), or the same session bound again after `/resume`.
#[test]
fn an_outcome_issued_under_another_binding_changes_nothing() {
    let point = || Event::WarningPoint {
        tokens: 150_000,
        point: Some(142_000),
    };
    let delivered = |generation: u64| Event::Warning {
        generation,
        status: crate::Delivery::Delivered,
    };
    // The first session offers its warning, then the person switches sessions.
    let (first, reply) = step_saved(None, "s1\np:0", point());
    let issued = reply.flow.generation();
    for (saved, binding) in [(None, "s2\np:1"), (Some(&first), "s1\np:2")] {
        let (saved, reply) = step_saved(saved, binding, point());
        assert_ne!(reply.flow.generation(), issued, "{binding}");
        // The stale outcome lands here: the warning offered here stays offered (due again
        // only by its own outcome), never taken as delivered.
        let (_, reply) = step_saved(Some(&saved), binding, delivered(issued));
        assert!(
            !reply.flow.snapshot().warned,
            "{binding}: a stale outcome was taken"
        );
        let (_, reply) = step_saved(Some(&saved), binding, delivered(reply.flow.generation()));
        assert!(reply.flow.snapshot().warned, "{binding}");
    }
}
