use rstest::rstest;
use serde_json::json;

use super::*;

fn ctx() -> Context {
    Context::from_vars([("NOTESOUP_HOME", "/nonexistent")])
}

#[rstest]
#[case::no_op(None, b"{}".as_slice(), "bad_request", 2)]
#[case::empty_stdin(Some("version"), b"".as_slice(), "bad_request", 2)]
#[case::blank_stdin(Some("version"), b" \n\t".as_slice(), "bad_request", 2)]
#[case::truncated(Some("version"), br#"{"a": "#.as_slice(), "bad_request", 2)]
#[case::not_utf8(Some("version"), b"\xff\xfe{}".as_slice(), "bad_request", 2)]
#[case::array(Some("version"), b"[1,2]".as_slice(), "bad_request", 2)]
#[case::string(Some("version"), br#""version""#.as_slice(), "bad_request", 2)]
#[case::unknown_field(Some("version"), br#"{"x":1}"#.as_slice(), "bad_request", 2)]
#[case::unknown_op(Some("frobnicate"), b"{}".as_slice(), "unknown_op", 2)]
fn malformed_requests_get_an_error_reply(
    #[case] op: Option<&str>,
    #[case] input: &[u8],
    #[case] code: &str,
    #[case] exit: u8,
) {
    let out = run(op, input, &ctx());
    assert_eq!(out.exit, exit, "{}", out.reply);
    assert_eq!(out.reply["ok"], false);
    assert_eq!(out.reply["error"]["code"], code);
    let message = out.reply["error"]["message"].as_str().unwrap();
    assert!(!message.is_empty() && !message.contains('\n'), "{message}");
}

#[test]
fn version_lists_every_op() {
    let out = run(Some("version"), b"{}", &ctx());
    assert_eq!(out.exit, 0);
    assert_eq!(out.reply["ok"], true);
    assert_eq!(out.reply["ops"], json!(ops::NAMES));
}

#[test]
fn messages_are_folded_onto_one_line() {
    let err = OpError::new("x", "first\nsecond\t third");
    assert_eq!(err.message, "first second third");
}

#[rstest]
#[case::list("notes_list", r#"{"cwd":"/tmp","args":{}}"#)]
#[case::boot(
    "boot",
    r#"{"cwd":"/tmp","host":"claude","session":"s","ordinal":0,"history":false}"#
)]
fn notes_ops_without_any_home_refuse_with_no_home(#[case] op: &str, #[case] request: &str) {
    let out = run(Some(op), request.as_bytes(), &Context::default());
    assert_eq!(out.exit, 0, "{}", out.reply);
    assert_eq!(out.reply["error"]["code"], "no_home");
}

#[rstest]
#[case::missing_args("notes_read", r#"{"cwd":"/tmp"}"#)]
#[case::unknown_arg("notes_read", r#"{"cwd":"/tmp","args":{"name":"a","bogus":1}}"#)]
#[case::wrong_type("notes_write", r#"{"cwd":"/tmp","args":{"name":"a","text":["x"]}}"#)]
#[case::negative_offset("notes_read", r#"{"cwd":"/tmp","args":{"name":"a","offset":-1}}"#)]
#[case::warning_words("warning", r#"{"host":"claude","used":"many","clear_at":1}"#)]
fn malformed_notes_requests_are_bad_requests(#[case] op: &str, #[case] request: &str) {
    let out = run(Some(op), request.as_bytes(), &ctx());
    assert_eq!(out.exit, 2, "{}", out.reply);
    assert_eq!(out.reply["error"]["code"], "bad_request");
}
