//! Each refusal, from a transcript built to have exactly that fault; and the tolerated torn
//! final line, forward references, gaps, duplicates.

use rstest::rstest;
use serde_json::{Value, json};

use notesoup_history_core::{Body, Transcript, Window};

use super::*;
use crate::rows::{Kind, RawRow};
use crate::uuids::uuid_hash;

/// One conversation row of session `s1` (main chain) as a JSON value.
fn row(kind: &str, uuid: &str, parent: Option<&str>, text: &str) -> Value {
    let message = match kind {
        "assistant" => json!({"role": "assistant", "content": [{"type": "text", "text": text}]}),
        _ => json!({"role": "user", "content": text}),
    };
    json!({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": false,
           "sessionId": "s1", "timestamp": "2026-12-02T10:00:00Z", "message": message})
}

fn boundary(uuid: &str, logical_parent: &str) -> Value {
    json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
           "uuid": uuid, "parentUuid": null, "logicalParentUuid": logical_parent,
           "isSidechain": false, "sessionId": "s1"})
}

fn jsonl(rows: &[Value]) -> String {
    let mut out = String::new();
    for r in rows {
        out.push_str(&r.to_string());
        out.push('\n');
    }
    out
}

fn with(mut value: Value, key: &str, field: Value) -> Value {
    value[key] = field;
    value
}

fn decode_leaf(text: &str) -> Result<Transcript, DecodeError> {
    decode(text.as_bytes(), &Options::default(), &Head::Leaf)
}

/// The saved state of a decoder fed every line of `text`.
fn state_of(text: &str) -> Vec<u8> {
    let mut decoder = Decoder::new(Options::default());
    for line in text.lines() {
        decoder.line(line.as_bytes(), true).unwrap();
    }
    decoder.snapshot()
}

/// `resumed`, its skeleton finished at the leaf and its bodies hydrated from `text`.
fn hydrated(resumed: Decoder, text: &str) -> Transcript {
    let lines: Vec<&str> = text.lines().collect();
    resumed
        .finish_skeleton(&Head::Leaf)
        .unwrap()
        .hydrate(|row| row.reload(lines[row.line - 1].as_bytes()))
        .unwrap()
}

fn seqs_and_windows(t: &Transcript) -> Vec<(u64, String)> {
    t.events
        .iter()
        .map(|e| (e.seq, e.window.to_string()))
        .collect()
}

#[rstest]
#[case::not_json("{\"type\":\"user\",\n", 1, "transcript_malformed")]
#[case::not_object("[1,2]\n", 1, "transcript_malformed")]
#[case::no_type("{\"uuid\":\"u\"}\n", 1, "transcript_malformed")]
fn malformed_committed_lines_are_refused(
    #[case] text: &str,
    #[case] line: usize,
    #[case] code: &str,
) {
    let good = jsonl(&[row("user", "u1", None, "hi")]);
    let err = decode_leaf(&format!("{good}{text}")).unwrap_err();
    assert_eq!(err.code(), code, "{err}");
    assert!(
        err.to_string().starts_with(&format!("line {}:", line + 1)),
        "{err}"
    );
}

#[rstest]
#[case::no_uuid(with(row("user", "x", None, "a"), "uuid", Value::Null), "uuid")]
#[case::no_parent_key(json!({"type":"user","uuid":"u2","isSidechain":false,"sessionId":"s1","message":{"role":"user","content":"a"}}), "parentUuid")]
#[case::sidechain_not_bool(with(row("user", "u2", Some("u1"), "a"), "isSidechain", json!("no")), "isSidechain")]
#[case::wrong_role(with(row("user", "u2", Some("u1"), "a"), "message", json!({"role":"assistant","content":"a"})), "role")]
#[case::content_number(with(row("user", "u2", Some("u1"), "a"), "message", json!({"role":"user","content":5})), "content")]
#[case::unknown_block(with(row("assistant", "u2", Some("u1"), "a"), "message", json!({"role":"assistant","content":[{"type":"hologram"}]})), "content")]
#[case::tool_use_without_id(with(row("assistant", "u2", Some("u1"), "a"), "message", json!({"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{}}]})), "without `id`")]
#[case::assistant_string(with(row("assistant", "u2", Some("u1"), "a"), "message", json!({"role":"assistant","content":"plain"})), "blocks")]
#[case::attachment_without_type(json!({"type":"attachment","uuid":"u2","parentUuid":"u1","isSidechain":false,"sessionId":"s1","attachment":{}}), "attachment")]
#[case::rendered_not_text(json!({"type":"attachment","uuid":"u2","parentUuid":"u1","isSidechain":false,"sessionId":"s1","attachment":{"type":"date"},"rendered":[{"content":[{"type":"image"}]}]}), "rendered")]
#[case::uuid_too_long(row("user", &"u".repeat(257), Some("u1"), "a"), "`uuid` names a uuid of 257 bytes")]
#[case::missing_parent_too_long(row("user", "u2", Some(&"m".repeat(50_000)), "a"), "`parentUuid` names a uuid of 50000 bytes")]
#[case::logical_parent_too_long(with(boundary("b2", "x"), "logicalParentUuid", json!("l".repeat(300))), "`logicalParentUuid`")]
#[case::system_content_object(json!({"type":"system","subtype":"x","content":{},"uuid":"u2","parentUuid":"u1","isSidechain":false,"sessionId":"s1"}), "content")]
fn invalid_schemas_are_refused_with_line_and_reason(#[case] bad: Value, #[case] reason: &str) {
    let text = jsonl(&[row("user", "u1", None, "hi"), bad]);
    let err = decode_leaf(&text).unwrap_err();
    assert_eq!(err.code(), "transcript_schema", "{err}");
    assert!(err.to_string().starts_with("line 2: invalid "), "{err}");
    assert!(err.to_string().contains(reason), "{err}");
}

#[test]
fn conflicting_duplicates_are_refused() {
    let text = jsonl(&[
        row("user", "u1", None, "hi"),
        row("assistant", "a1", Some("u1"), "one"),
        row("assistant", "a1", Some("u1"), "two"),
    ]);
    let err = decode_leaf(&text).unwrap_err();
    assert_eq!(
        err,
        DecodeError::Conflict {
            line: 3,
            uuid: "a1".into(),
            first_line: 2
        }
    );
}

#[test]
fn session_mismatch_is_refused() {
    let other = with(row("user", "u2", Some("u1"), "x"), "sessionId", json!("s2"));
    let err = decode_leaf(&jsonl(&[row("user", "u1", None, "hi"), other])).unwrap_err();
    assert_eq!(err.code(), "session_mismatch");
    assert!(err.to_string().starts_with("line 2:"), "{err}");
    let expected = Options {
        session: Some("s9".into()),
        ..Options::default()
    };
    let err = decode(
        jsonl(&[row("user", "u1", None, "hi")]).as_bytes(),
        &expected,
        &Head::Leaf,
    )
    .unwrap_err();
    assert_eq!(err.code(), "session_mismatch");
}

#[test]
fn sidechain_mismatch_is_refused() {
    let side = with(
        row("user", "u2", Some("u1"), "x"),
        "isSidechain",
        json!(true),
    );
    let err = decode_leaf(&jsonl(&[row("user", "u1", None, "hi"), side])).unwrap_err();
    assert_eq!(
        err,
        DecodeError::SidechainMismatch {
            line: 2,
            found: true
        }
    );
}

#[test]
fn parent_cycles_are_refused() {
    let text = jsonl(&[
        row("user", "u1", Some("a2"), "hi"),
        row("assistant", "a1", Some("u1"), "one"),
        row("user", "u2", Some("a1"), "again"),
        row("assistant", "a2", Some("u2"), "two"),
        row("user", "u3", Some("a2"), "head"),
    ]);
    let err = decode(
        text.as_bytes(),
        &Options::default(),
        &Head::Uuid("u3".into()),
    )
    .unwrap_err();
    assert_eq!(err.code(), "transcript_cycle", "{err}");
}

#[test]
fn an_escaped_type_name_is_still_its_type() {
    let text = jsonl(&[row("user", "u1", None, "hi")])
        .replace("\"type\":\"user\"", "\"type\":\"us\\u0065r\"");
    assert!(text.contains("us\\u0065r"));
    let t = decode_leaf(&text).unwrap();
    assert_eq!(t.events.len(), 1);
}

#[test]
fn no_conversation_row_has_no_leaf() {
    let err = decode_leaf("{\"type\":\"last-prompt\",\"sessionId\":\"s1\"}\n").unwrap_err();
    assert_eq!(err, DecodeError::NoLeaf);
}

#[rstest]
#[case::half_record("{\"type\":\"user\",\"uuid\":\"u9\",\"mess")]
#[case::half_utf8("{\"type\":\"user\",\"message\":\"\u{e9}")]
fn an_unterminated_torn_final_line_is_tolerated(#[case] torn: &str) {
    let good = jsonl(&[
        row("user", "u1", None, "hi"),
        row("assistant", "a1", Some("u1"), "yo"),
    ]);
    let t = decode_leaf(&format!("{good}{torn}")).unwrap();
    assert_eq!(seqs_and_windows(&t), [(1, "0".into()), (2, "0".into())]);
    // The same fragment once committed (newline-terminated) is refused.
    let err = decode_leaf(&format!("{good}{torn}\n")).unwrap_err();
    assert_eq!(err.code(), "transcript_malformed");
}

/// A text Claude Code cut inside an emoji (`JSON.stringify` writes the lone half as
/// `\ud83d`, which JSON allows and a Rust string cannot hold) reads as U+FFFD, in a prompt
/// and in a tool result; it refused the whole transcript as a broken schema.
#[test]
fn a_lone_surrogate_reads_as_the_replacement_character() {
    let result = json!({"type": "user", "uuid": "r1", "parentUuid": "u1", "isSidechain": false,
        "sessionId": "s1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "out X"}]}});
    let text = jsonl(&[row("user", "u1", None, "cut X"), result])
        .replace("cut X", r"cut \ud83d")
        .replace("out X", r"out \udc00");
    let t = decode_leaf(&text).unwrap();
    // The result's row has its own (empty) text address before the result.
    let bodies: Vec<&Body> = t.events.iter().map(|e| &e.body).collect();
    assert_eq!(
        (bodies[0], bodies[bodies.len() - 1]),
        (
            &Body::Text {
                text: "cut \u{fffd}".into()
            },
            &Body::ToolResult {
                id: "t1".into(),
                text: "out \u{fffd}".into(),
                is_error: false
            }
        )
    );
}

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
    let records: Vec<&str> = t.events.iter().map(|e| e.record.as_str()).collect();
    assert_eq!(records, ["a", twin, "c"]);
    let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    assert_eq!(hydrated(resumed, &text), t);
}

/// A saved state whose row has no event (the decoder never writes one: every row has its
/// message, notice or attachment event) is refused, not resumed into a row with no
/// timestamp to carry.
#[test]
fn a_state_row_without_events_is_refused() {
    let text = jsonl(&[row("user", "a", None, "hi")]);
    let mut decoder = Decoder::new(Options::default());
    for line in text.lines() {
        decoder.line(line.as_bytes(), true).unwrap();
    }
    let state = decoder.snapshot();
    // The row ends the state: event count (u64 1), role, body kind (a text keeps no
    // bytes of its own: the state is structure only), span count (u64 0: this decoder
    // records none), whether every body has its span (no). Drop its event and say it has
    // none.
    assert_eq!(state[state.len() - 9..], [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let mut empty = state[..state.len() - 19].to_vec();
    empty.extend_from_slice(&0_u64.to_le_bytes());
    // And the next seq (after magic, version, no session option, the flag, the session
    // `s1`, the line count) is 1 again, so only the empty row is wrong.
    let next_seq = 8 + 4 + 1 + 1 + (1 + 8 + 2) + 8;
    assert_eq!(state[next_seq..next_seq + 8], 2_u64.to_le_bytes());
    empty[next_seq..next_seq + 8].copy_from_slice(&1_u64.to_le_bytes());
    assert!(
        matches!(
            Decoder::resume(Options::default(), &empty),
            Err(StateError::Invalid {
                reason: "row without events",
                ..
            })
        ),
        "{:?}",
        Decoder::resume(Options::default(), &empty).err()
    );
}

/// The state writes a parent that is one of its rows as that row's place: a place past its
/// rows is refused, never followed (an index, not a uuid, is all the state says of it).
#[test]
fn a_state_parent_place_past_its_rows_is_refused() {
    let text = jsonl(&[
        row("user", "a", None, "hi"),
        row("assistant", "b", Some("a"), "yo"),
    ]);
    let mut decoder = Decoder::new(Options::default());
    for line in text.lines() {
        decoder.line(line.as_bytes(), true).unwrap();
    }
    let state = decoder.snapshot();
    // Row `b`: its uuid (length 1, `b`), its line (2), its kind (assistant), then its
    // parent, written as the place of row `a` (tag 2, place 0).
    let uuid_b = [1, 0, 0, 0, 0, 0, 0, 0, b'b'];
    let at = state
        .windows(uuid_b.len())
        .position(|w| w == uuid_b)
        .unwrap()
        + uuid_b.len()
        + 8
        + 1;
    assert_eq!(state[at - 9..at - 1], 2_u64.to_le_bytes());
    assert_eq!(state[at..at + 9], [2, 0, 0, 0, 0, 0, 0, 0, 0]);
    let resumed = Decoder::resume(Options::default(), &state).unwrap();
    assert_eq!(resumed.snapshot(), state);
    let mut bad = state.clone();
    bad[at + 1..at + 9].copy_from_slice(&2_u64.to_le_bytes());
    assert!(
        matches!(
            Decoder::resume(Options::default(), &bad),
            Err(StateError::Invalid {
                reason: "parent out of range",
                ..
            })
        ),
        "{:?}",
        Decoder::resume(Options::default(), &bad).err()
    );
}

/// A state that repeats a uuid is refused when it is resumed, though the resumed decoder
/// builds no uuid map then: two rows of one uuid, next to each other and far apart.
#[test]
fn a_state_that_repeats_a_uuid_is_refused() {
    let uuids: Vec<String> = (0..300).map(|i| format!("u{i:04}")).collect();
    let rows: Vec<Value> = uuids
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let parent = i.checked_sub(1).map(|p| uuids[p].as_str());
            row("user", u, parent, "hi")
        })
        .collect();
    let state = state_of(&jsonl(&rows));
    assert!(Decoder::resume(Options::default(), &state).is_ok());
    // A uuid is written as its length (u64 5) and its text.
    let written = |u: &str| {
        let mut bytes = 5_u64.to_le_bytes().to_vec();
        bytes.extend_from_slice(u.as_bytes());
        state.windows(bytes.len()).position(|w| w == bytes).unwrap() + 8
    };
    for (from, to) in [("u0001", "u0000"), ("u0299", "u0000"), ("u0150", "u0298")] {
        let mut bad = state.clone();
        let at = written(from);
        bad[at..at + 5].copy_from_slice(to.as_bytes());
        let resumed = Decoder::resume(Options::default(), &bad);
        assert!(
            matches!(
                resumed,
                Err(StateError::Invalid {
                    reason: "repeated uuid",
                    ..
                })
            ),
            "{from} -> {to}: {:?}",
            resumed.err()
        );
    }
}

/// A resumed decoder builds its uuid map only when a line is fed (or a lookup needs it):
/// then a new row under one of the state's rows, a repeat of one and a row under that
/// repeat are linked as a fresh decode links them; and one fed nothing finds its head,
/// its boundary's logical parent and a head it lacks as a fresh decode does.
#[test]
fn a_resumed_decoder_links_to_its_rows_as_a_fresh_decode_does() {
    let first = [
        row("user", "a", None, "hi"),
        row("assistant", "b", Some("a"), "yo"),
        boundary("k", "b"),
        row("user", "c", Some("k"), "more"),
        row("user", "d", Some("gone"), "lost"),
    ];
    let more = [
        row("assistant", "e", Some("c"), "new"),
        row("assistant", "b", Some("a"), "yo"),
        row("user", "f", Some("b"), "under the repeat"),
    ];
    let text = jsonl(&first);
    let whole = format!("{text}{}", jsonl(&more));
    let mut resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    let mut fresh = Decoder::new(Options::default());
    for line in whole.lines().take(first.len()) {
        fresh.line(line.as_bytes(), true).unwrap();
    }
    for line in whole.lines().skip(first.len()) {
        resumed.line(line.as_bytes(), true).unwrap();
        fresh.line(line.as_bytes(), true).unwrap();
    }
    assert_eq!(resumed.snapshot(), fresh.snapshot());
    assert_eq!(hydrated(resumed, &whole), decode_leaf(&whole).unwrap());

    for head in ["c", "b", "d", "a"] {
        let head = Head::Uuid(head.into());
        let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let t = resumed
            .finish_skeleton(&head)
            .unwrap()
            .hydrate(|row| row.reload(lines[row.line - 1].as_bytes()))
            .unwrap();
        assert_eq!(
            t,
            decode(text.as_bytes(), &Options::default(), &head).unwrap()
        );
    }
    let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    assert_eq!(resumed.snapshot(), state_of(&text));
    let lacking = Head::Uuid("e".into());
    let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    assert_eq!(
        resumed.finish_skeleton(&lacking).err().map(|e| e.code()),
        Some("head_not_written")
    );
}

/// A repeat of a resumed row whose parent the state names by its place compares and keeps
/// the parent's uuid as a fresh decode does: the state after it is the fresh decoder's, for
/// a repeat under the same parent and one that moves it.
#[test]
fn a_repeat_of_a_resumed_row_keeps_its_parent_as_a_fresh_decode_does() {
    let first = [
        row("user", "a", None, "hi"),
        row("assistant", "b", Some("a"), "yo"),
        row("user", "c", Some("b"), "more"),
    ];
    for repeat in [
        row("assistant", "b", Some("a"), "yo"),
        row("assistant", "b", Some("c"), "yo"),
    ] {
        let mut prefix = Decoder::new(Options::default());
        for line in jsonl(&first).lines() {
            prefix.line(line.as_bytes(), true).unwrap();
        }
        let mut resumed = Decoder::resume(Options::default(), &prefix.snapshot()).unwrap();
        let mut fresh = Decoder::new(Options::default());
        for line in jsonl(&first).lines() {
            fresh.line(line.as_bytes(), true).unwrap();
        }
        let line = repeat.to_string();
        resumed.line(line.as_bytes(), true).unwrap();
        fresh.line(line.as_bytes(), true).unwrap();
        assert_eq!(resumed.snapshot(), fresh.snapshot(), "{repeat}");
    }
}

/// What the field-by-field parse (the path every refusal comes from) makes of one line:
/// a row, `None` for another record type, `Err` for a refusal.
fn field_by_field(line: &[u8]) -> Result<Option<rows::Row>, ()> {
    let raw: RawRow<'_> = serde_json::from_slice(line).map_err(drop)?;
    let kind: std::borrow::Cow<'_, str> =
        serde_json::from_str(raw.kind.ok_or(())?.get()).map_err(drop)?;
    match Kind::parse(&kind) {
        None => Ok(None),
        Some(kind) => rows::check(kind, &raw).map(Some).map_err(drop),
    }
}

/// Every line of the real transcripts.
fn real_lines() -> Vec<Vec<u8>> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let files = notesoup_testkit::files_in(&dir, |p| p.extension().is_some_and(|x| x == "jsonl"));
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for (_, bytes) in &files {
        lines.extend(
            bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec),
        );
    }
    assert!(lines.len() > 100, "the real transcripts are read");
    lines
}

/// Lines aimed at the shapes only one parse reads, then every real line mutated many times.
fn hostile_lines(lines: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let aimed = [
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":5}}"#,
        r#"{"type":"assistant","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":"plain"}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":"a"}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":null}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s"}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":"a"},"message":{"role":"user","content":"b"}}"#,
        r#"{"type":"user","uuid":"u","uuid":"v","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":"a"}}"#,
        r#"{"type":"last-prompt","message":5}"#,
        r#"{"type":"last-prompt","message":{"role":"user","content":"a"},"message":1}"#,
        r#"{"type":null,"message":{"role":"user","content":"a"}}"#,
        r#"{"message":{"role":"user","content":"a"}}"#,
        r#"{"type":"system","subtype":"x","content":"a","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":"any shape"}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":{"x":1}}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":"\ud800"}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":null}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":5}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":true}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a\u0041\n"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"\udc00"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{}},{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":5}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"text":"a"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[5]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a","content":"b"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"mcp_tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"web_search_tool_result","tool_use_id":"t","content":{"type":"web_search_tool_result_error","error_code":"x"}}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"a","content":5}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}}"#,
        // A `text` every block's parse decodes, whatever the block's type.
        r#"{"type":"assistant","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"B","input":{},"text":"\ud800"}]}}"#,
        r#"{"type":"assistant","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t","text":5}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"a\ud83d\ude00\/"},{"type":"tool_result","tool_use_id":"t","content":"\ud83d\ude00\n"}]}}"#,
    ];
    let mut cases: Vec<Vec<u8>> = aimed.iter().map(|l| l.as_bytes().to_vec()).collect();
    // Not UTF-8 inside a string the field-by-field parse skips.
    cases.push(b"{\"type\":\"last-prompt\",\"x\":\"\xff\"}".to_vec());
    let mut rng = notesoup_testkit::Rng::new(14);
    for _ in 0..notesoup_testkit::iterations(20) {
        for line in lines {
            cases.push(notesoup_testkit::mutate(&mut rng, line));
        }
    }
    cases
}

/// The one-pass parse only ever accepts what the field-by-field parse accepts, and makes
/// the same row of it: every line of the real transcripts, each mutated many times, and
/// edits aimed at the shapes only one of the two parses reads.
#[test]
fn the_one_pass_parse_agrees_with_the_field_by_field_parse() {
    let lines = real_lines();
    let mut fast_rows = 0;
    for line in &lines {
        // Every real line is taken by the one-pass parse (or it would gain nothing).
        match rows::fast(line) {
            Some(rows::Fast::Row(row)) => {
                assert_eq!(field_by_field(line), Ok(Some(row)));
                fast_rows += 1;
            }
            Some(rows::Fast::Other) => assert_eq!(field_by_field(line), Ok(None)),
            None => panic!(
                "a real line the one-pass parse leaves: {}",
                String::from_utf8_lossy(line)
            ),
        }
    }
    assert!(fast_rows > 50);
    for case in &hostile_lines(&lines) {
        let slow = field_by_field(case);
        match rows::fast(case) {
            Some(rows::Fast::Row(row)) => {
                assert_eq!(slow, Ok(Some(row)), "{}", String::from_utf8_lossy(case));
            }
            Some(rows::Fast::Other) => {
                assert_eq!(slow, Ok(None), "{}", String::from_utf8_lossy(case));
            }
            None => {}
        }
    }
}

/// What skimming `row` must make of it: history-core's placeholder bodies (the one rule a
/// decoder's placeholders are held to), the fingerprint of the whole bodies, and whether the
/// whole first text is blank.
fn skimmed_of(row: rows::Row) -> rows::Row {
    use notesoup_history_core::{Body, blank, placeholder};
    let elided = crate::elided::Elided {
        fingerprint: crate::elided::fingerprint_of(&row.events),
        blank: matches!(row.events.first(), Some((_, Body::Text { text })) if blank(text)),
    };
    let events = row
        .events
        .into_iter()
        .map(|(role, body)| (role, placeholder(body)))
        .collect();
    rows::Row {
        events,
        elided: Some(elided),
        ..row
    }
}

/// The skim (the first pass of a cold history read) takes exactly the lines the one-pass
/// parse takes, refuses or leaves to the field-by-field parse the rest, and of each row
/// makes what a structure-only state keeps of the whole row: the same structure and
/// boot, placeholder bodies, the whole bodies' fingerprint and blank flag. Every real
/// line, each mutated many times, the aimed lines, and lines whose texts are escaped,
/// joined from several blocks, blank in Unicode's sense or hold a boot block only once
/// decoded.
#[test]
fn the_skim_keeps_what_a_whole_decode_of_the_line_would_fingerprint() {
    let lines = real_lines();
    let mut cases = hostile_lines(&lines);
    let head = r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":"#;
    for message in [
        r#"{"role":"user","content":"a\nb \"q\" \\ \u00e9 \/"}"#,
        r#"{"role":"user","content":" \n\t\u00a0\u2003"}"#,
        r#"{"role":"user","content":"\u003cnotesoup-boot window=\"claude:s:3\">\nnotes\n\u003c/notesoup-boot>"}"#,
        r#"{"role":"user","content":[{"type":"text","text":"<notesoup-boot window=\"claude:s:2\">"},{"type":"text","text":"n\n</notesoup-boot>"}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"b"},{"type":"image","source":{}},{"type":"text","text":"c\u0041"}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":" "},{"type":"text","text":"\u00a0"}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t\u0031","content":[{"type":"text","text":""},{"type":"text","text":"x\ty"},{"type":"image"}],"is_error":true},{"type":"tool_result","tool_use_id":"t2","content":"plain"},{"type":"tool_result","tool_use_id":"t3","content":null},{"type":"tool_result","tool_use_id":"t4"}]}"#,
        r#"{"role":"user","content":[{"type":"mcp_tool_result","tool_use_id":"t","content":"m\n"},{"type":"web_fetch_tool_result","tool_use_id":"w","content":{"k":[1,"x"]}}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":null}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":null}]}]}"#,
        // Texts the line also writes before their own literal (the parse knows where each
        // literal is, the search takes the first place that holds the text), and texts
        // written with `\/`, which no span holds.
        r#"{"role":"user","content":"s"}"#,
        r#"{"role":"user","content":[{"type":"text","text":"u"},{"type":"tool_result","tool_use_id":"s","content":"s"}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a/b\nc d e f g h\/i"},{"type":"text","text":"x y z, then \/"}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":"say \"x\" \\ y\n\t\r\b\f"},{"type":"tool_result","tool_use_id":"t","content":"say \"x\" \\ y\n"}]}"#,
    ] {
        cases.push(format!("{head}{message}}}").into_bytes());
    }
    let ahead = r#"{"type":"assistant","uuid":"a","parentUuid":"u","isSidechain":false,"sessionId":"s","message":"#;
    for message in [
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"},{"type":"tool_use","id":"c\u0031","name":"B\u0061sh","input":{"command":"ls \"a\"","n":[1.5e3,-0,true,null]}},{"type":"text","text":"\ny"},{"type":"server_tool_use","id":"s","name":"web","input":"raw"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"B","input":{"a":1},"input":{"a":2}}]}"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"c","name":"B","input":"s"},{"type":"tool_use","id":"d","name":"B","input":"s"}]}"#,
    ] {
        cases.push(format!("{ahead}{message}}}").into_bytes());
    }
    let mut skimmed_rows = 0;
    for line in &lines {
        // Every real line is taken by the skim (or it would gain nothing).
        assert!(
            rows::skim(line, false, None, None).is_some(),
            "a real line the skim leaves: {}",
            String::from_utf8_lossy(line)
        );
    }
    for case in lines.iter().chain(&cases) {
        let shown = String::from_utf8_lossy(case);
        let whole = match rows::fast(case) {
            Some(rows::Fast::Row(row)) => Some(Some(row)),
            Some(rows::Fast::Other) => Some(None),
            None => None,
        };
        // Kept whole, the skim is the one-pass parse.
        let kept = match rows::skim(case, true, None, None) {
            Some(rows::Fast::Row(row)) => Some(Some(row)),
            Some(rows::Fast::Other) => Some(None),
            None => None,
        };
        assert_eq!(kept, whole, "{shown}");
        let mut spans = crate::spans::Found::default();
        let skim = match rows::skim(case, false, Some(&mut spans), None) {
            Some(rows::Fast::Row(row)) => Some(Some(row)),
            Some(rows::Fast::Other) => Some(None),
            None => None,
        };
        match (whole, skim) {
            (Some(Some(row)), Some(Some(skimmed))) => {
                assert_eq!(field_by_field(case), Ok(Some(row.clone())), "{shown}");
                // Picking, it notes exactly the events whose whole text (or input) is picked.
                let mut picked = Vec::new();
                let pick = |t: &str| t.contains('e');
                let picking = rows::skim(case, false, None, Some((&pick, &mut picked)));
                assert!(
                    matches!(picking, Some(rows::Fast::Row(r)) if r == skimmed),
                    "{shown}"
                );
                let expected: Vec<u32> = (0..)
                    .zip(&row.events)
                    .filter(|(_, (_, body))| match body {
                        notesoup_history_core::Body::Text { text }
                        | notesoup_history_core::Body::ToolResult { text, .. } => pick(text),
                        notesoup_history_core::Body::ToolCall { input, .. } => pick(input),
                    })
                    .map(|(k, _)| k)
                    .collect();
                assert_eq!(picked, expected, "{shown}");
                // Its spans are the ones found from the whole row.
                let mut whole_spans = crate::spans::Found::default();
                crate::spans::find(case, &row.events, &mut whole_spans);
                assert_eq!(spans, whole_spans, "{shown}");
                assert_eq!(skimmed, skimmed_of(row), "{shown}");
                skimmed_rows += 1;
            }
            (Some(None), Some(None)) => assert_eq!(field_by_field(case), Ok(None), "{shown}"),
            (None, None) => {}
            (whole, skim) => panic!("{shown}: the one-pass parse {whole:?}, the skim {skim:?}"),
        }
    }
    assert!(skimmed_rows > 200, "{skimmed_rows}");
}

/// Hands a state over a few bytes at a time (as a file read may).
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = out.len().min(self.0.len()).min(7);
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// A state read from a source that hands it over in small pieces, with a value longer than
/// the reader's window (a 100 kB tool name), reads back as the state read from its bytes,
/// and hydrates to the fresh decode; a source that ends before the length it was given, or
/// holds more, is refused.
#[test]
fn a_state_read_in_small_pieces_with_a_long_value_reads_back() {
    let name = "N".repeat(100_000);
    let call = json!({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":name,"input":{}}]});
    let text = jsonl(&[
        row("user", "a", None, "hi"),
        with(row("assistant", "b", Some("a"), ""), "message", call),
        row("user", "c", Some("b"), "bye"),
    ]);
    let state = state_of(&text);
    let len = state.len() as u64;
    let resumed = Decoder::resume_from(Options::default(), Trickle(&state), len).unwrap();
    assert_eq!(resumed.snapshot(), state);
    assert_eq!(hydrated(resumed, &text), decode_leaf(&text).unwrap());
    let short = Decoder::resume_from(Options::default(), Trickle(&state[..state.len() - 1]), len);
    assert!(
        matches!(
            short,
            Err(StateError::Invalid {
                reason: "unexpected end",
                ..
            })
        ),
        "{:?}",
        short.err()
    );
    let mut more = state.clone();
    more.push(0);
    let more = Decoder::resume_from(Options::default(), Trickle(&more), len);
    assert!(
        matches!(
            more,
            Err(StateError::Invalid {
                reason: "trailing bytes",
                ..
            })
        ),
        "{:?}",
        more.err()
    );
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

/// The transcript [`Decoder::line`] makes of `text` line by line (no batches): what
/// [`decode_from`] must make of it, however its reader hands the bytes over.
fn line_by_line(text: &[u8]) -> Result<Transcript, DecodeError> {
    let mut decoder = Decoder::new(Options::default());
    let mut rest = text;
    while let Some(end) = rest.iter().position(|&b| b == b'\n') {
        decoder.line(&rest[..end], true)?;
        rest = &rest[end + 1..];
    }
    if !rest.is_empty() {
        decoder.line(rest, false)?;
    }
    decoder.finish(&Head::Leaf)
}

#[test]
fn a_decode_from_a_reader_is_the_decode_line_by_line_and_a_failed_read_is_refused() {
    // Past a batch of lines (4 × 256) and of bytes (4 MiB), and a last line unfinished.
    let mut rows = Vec::new();
    let mut parent: Option<String> = None;
    for n in 0..2500 {
        let uuid = format!("u{n}");
        let kind = if n % 2 == 0 { "user" } else { "assistant" };
        let text = if n % 500 == 7 {
            "x".repeat(3 << 20)
        } else {
            format!("turn {n}")
        };
        rows.push(row(kind, &uuid, parent.as_deref(), &text));
        parent = Some(uuid);
    }
    let whole = jsonl(&rows);
    let fragment = row("user", "late", parent.as_deref(), "a write in progress").to_string();
    for text in [
        whole.clone(),
        format!("{whole}{fragment}"),
        format!("{whole}{}", &fragment[..9]),
    ] {
        let expected = line_by_line(text.as_bytes()).unwrap();
        assert_eq!(
            decode(text.as_bytes(), &Options::default(), &Head::Leaf).unwrap(),
            expected
        );
        // Through a reader that hands over a few bytes at a time.
        let small = std::io::BufReader::with_capacity(5, text.as_bytes());
        assert_eq!(
            decode_from(small, &Options::default(), &Head::Leaf).unwrap(),
            expected
        );
    }
    // A read that fails: refused with the line being read.
    let bytes = whole.as_bytes();
    let cut = bytes.len() / 2;
    let failing = std::io::BufReader::new(notesoup_testkit::FailsAfter {
        bytes: &bytes[..cut],
    });
    let err = decode_from(failing, &Options::default(), &Head::Leaf).unwrap_err();
    let line = memchr::memchr_iter(b'\n', &bytes[..cut]).count() + 1;
    assert_eq!(
        err,
        DecodeError::Read {
            line,
            message: "the disk went away".into()
        }
    );
    assert_eq!(err.code(), "io_error");
}
