//! Each refusal, from a transcript built to have exactly that fault, and what is tolerated: a
//! torn final line, an escaped type name, a lone surrogate.

use super::*;

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
