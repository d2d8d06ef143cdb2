//! The uuid graph: forward references, gaps and unknown windows, boots, repeats, branches,
//! metadata records and colliding hashes.

use super::*;

#[test]
fn forward_parent_references_resolve_after_the_whole_snapshot() {
    // The child is written before its parent: both are found, seqs follow file order.
    let text = jsonl(&[
        row("user", "u1", None, "hi"),
        row("user", "u2", Some("a1"), "child first"),
        row("assistant", "a1", Some("u1"), "parent later"),
    ]);
    let t = decode(
        text.as_bytes(),
        &Options::default(),
        &Head::Uuid("u2".into()),
    )
    .unwrap();
    assert_eq!(
        seqs_and_windows(&t),
        [(1, "0".into()), (2, "0".into()), (3, "0".into())]
    );
    assert!(t.missing.is_empty());
}

#[test]
fn a_missing_ancestor_gives_an_unknown_window_until_a_boot_re_anchors() {
    let boot = "<notesoup-boot window=\"claude:s1:4\">\nnotes\n</notesoup-boot>\nhandoff";
    let text = jsonl(&[
        row("user", "u1", Some("gone"), "orphaned"),
        row("assistant", "a1", Some("u1"), "still orphaned"),
        row("user", "b1", Some("a1"), boot),
        row("assistant", "a2", Some("b1"), "anchored"),
        boundary("c1", "a2"),
        row("user", "u3", Some("c1"), "after compaction"),
    ]);
    let t = decode_leaf(&text).unwrap();
    assert_eq!(t.missing, ["gone"]);
    assert_eq!(
        seqs_and_windows(&t),
        [
            (1, "unknown:gone".into()),
            (2, "unknown:gone".into()),
            (3, "4".into()),
            (4, "4".into()),
            (5, "5".into()),
            (6, "5".into()),
        ]
    );
    assert_eq!(t.head_window, Window::Numbered(5));
}

#[test]
fn an_incomplete_boot_block_is_not_a_marker() {
    let open_only = "<notesoup-boot window=\"claude:s1:4\">\nnotes, no closing line";
    let text = jsonl(&[row("user", "u1", None, open_only)]);
    assert_eq!(decode_leaf(&text).unwrap().head_window, Window::Numbered(0));
}

#[test]
fn a_repeated_record_allocates_nothing_and_keeps_its_first_window() {
    // a1 is preserved across a boundary and written again under the summary; its child
    // written after the boundary belongs to the new window.
    let text = jsonl(&[
        row("user", "u1", None, "hi"),
        row("assistant", "a1", Some("u1"), "kept"),
        boundary("c1", "a1"),
        row("user", "s1", Some("c1"), "summary"),
        row("assistant", "a1", Some("s1"), "kept"),
        row("user", "u2", Some("a1"), "new"),
    ]);
    let t = decode_leaf(&text).unwrap();
    assert_eq!(
        seqs_and_windows(&t),
        [
            (1, "0".into()),
            (2, "0".into()),
            (3, "1".into()),
            (4, "1".into()),
            (5, "1".into()),
        ]
    );
}

#[test]
fn branches_leave_the_other_side_out_and_pending_calls_stay_pending() {
    let call = json!({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]});
    let text = jsonl(&[
        row("user", "u1", None, "hi"),
        with(row("assistant", "a1", Some("u1"), ""), "message", call),
        row("user", "x1", Some("u1"), "the other branch"),
        row("user", "u2", Some("a1"), "this branch"),
    ]);
    let t = decode(
        text.as_bytes(),
        &Options::default(),
        &Head::Uuid("u2".into()),
    )
    .unwrap();
    let seqs: Vec<u64> = t.events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        [1, 2, 3, 5],
        "seq 4 (the other branch) is allocated but not selected"
    );
    let history = History::new(t).unwrap();
    assert!(history.partner(3).is_none());
    let read = history
        .read(&notesoup_history_core::ReadArgs {
            seq: Some(3),
            ..Default::default()
        })
        .unwrap();
    assert!(
        read.text.as_str().contains("pending"),
        "{}",
        read.text.as_str()
    );
}

#[test]
fn metadata_records_allocate_nothing_and_are_gaps_when_needed() {
    let text = jsonl(&[
        json!({"type":"queue-operation","operation":"enqueue","sessionId":"s1"}),
        row("user", "u1", None, "hi"),
        json!({"type":"progress","uuid":"p1","parentUuid":"u1","sessionId":"s1"}),
        row("assistant", "a1", Some("p1"), "after progress"),
    ]);
    let t = decode_leaf(&text).unwrap();
    assert_eq!(seqs_and_windows(&t), [(2, "unknown:p1".into())]);
    assert_eq!(t.missing, ["p1"]);
}

use notesoup_history_core::History;

#[test]
fn uuids_whose_hashes_collide_stay_distinct() {
    // The word hash reads "a" and "a" + seven NULs as the same 64-bit value.
    let twin = "a\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}";
    assert_eq!(uuid_hash("a"), uuid_hash(twin));
    let text = jsonl(&[
        row("user", "a", None, "first"),
        row("assistant", twin, Some("a"), "second"),
        row("user", "c", Some(twin), "third"),
        row("user", twin, Some("a"), "second again"),
    ]);
    let err = decode(text.as_bytes(), &Options::default(), &Head::Leaf).unwrap_err();
    assert_eq!(
        err.code(),
        "transcript_conflict",
        "the repeat is found by its text"
    );
    let text = jsonl(&[
        row("user", "a", None, "first"),
        row("assistant", twin, Some("a"), "second"),
        row("user", "c", Some(twin), "third"),
    ]);
    let t = decode(text.as_bytes(), &Options::default(), &Head::Leaf).unwrap();
    let records: Vec<&str> = t.events.iter().map(|e| &*e.record).collect();
    assert_eq!(records, ["a", twin, "c"]);
    let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    assert_eq!(hydrated(resumed, &text), t);
}

/// Every event of a row carries the row's timestamp, the last as well as the ones before
/// it, decoded afresh and resumed from a saved state alike.
#[test]
fn each_event_of_a_row_carries_the_rows_timestamp() {
    let message = json!({"role": "assistant", "content": [
        {"type": "text", "text": "running it"},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "true"}},
    ]});
    let two = with(row("assistant", "b", Some("a"), ""), "message", message);
    let two = with(two, "timestamp", json!("2026-12-02T10:00:05Z"));
    let text = jsonl(&[row("user", "a", None, "go"), two]);
    let t = decode_leaf(&text).unwrap();
    let stamps: Vec<Option<&str>> = t.events.iter().map(|e| e.timestamp.as_deref()).collect();
    let (first, second) = (Some("2026-12-02T10:00:00Z"), Some("2026-12-02T10:00:05Z"));
    assert_eq!(stamps, [first, second, second]);

    let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    let resumed = hydrated(resumed, &text);
    let again: Vec<Option<&str>> = resumed
        .events
        .iter()
        .map(|e| e.timestamp.as_deref())
        .collect();
    assert_eq!(again, stamps);
}
