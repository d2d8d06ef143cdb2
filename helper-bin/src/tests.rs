use std::io::Read;

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
    assert_eq!(out.reply["ops"], json!(ops::names()));
}

#[test]
fn messages_are_folded_onto_one_line() {
    let out = refusal("x", "first\nsecond\t third", false);
    assert_eq!(out.reply["error"]["message"], "first second third");
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

/// A session whose state cannot be kept turns notesoup off in the shells (`off`), with the
/// fix; a refusal of one call (a note that is not there) does not.
#[rstest]
#[case::no_home(Context::default(), "no_home")]
#[case::home_under_a_file(Context::from_vars([("NOTESOUP_HOME", "/dev/null/notes")]), "window_store")]
fn a_session_that_cannot_be_kept_is_refused_off_with_the_fix(
    #[case] ctx: Context,
    #[case] code: &str,
) {
    let start = r#"{"event":"session_start","session":{"harness":"pi","id":"s1","process":"p"},"facts":{"reason":"startup"},"version":"VERSION"}"#
        .replace("VERSION", notesoup_app::VERSION);
    let out = run(Some("pi_hook"), start.as_bytes(), &ctx);
    assert_eq!(out.reply["error"]["code"], code, "{}", out.reply);
    assert_eq!(out.reply["error"]["off"], true, "{}", out.reply);
    let message = out.reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("set NOTESOUP_HOME to a folder you can write"),
        "{message}"
    );
    let malformed = run(Some("pi_hook"), b"{}", &ctx);
    assert_eq!(malformed.reply["error"]["code"], "bad_request");
    assert!(
        malformed.reply["error"].get("off").is_none(),
        "{}",
        malformed.reply
    );
}

#[rstest]
#[case::missing_args("notes_read", r#"{"cwd":"/tmp"}"#)]
#[case::unknown_arg("notes_read", r#"{"cwd":"/tmp","args":{"name":"a","bogus":1}}"#)]
#[case::wrong_type("notes_write", r#"{"cwd":"/tmp","args":{"name":"a","text":["x"]}}"#)]
#[case::negative_offset("notes_read", r#"{"cwd":"/tmp","args":{"name":"a","offset":-1}}"#)]
fn malformed_notes_requests_are_bad_requests(#[case] op: &str, #[case] request: &str) {
    let out = run(Some(op), request.as_bytes(), &ctx());
    assert_eq!(out.exit, 2, "{}", out.reply);
    assert_eq!(out.reply["error"]["code"], "bad_request");
}

#[test]
fn a_request_over_the_cap_is_refused_after_reading_one_byte_past_it() {
    let at_cap = std::io::repeat(b' ').take(REQUEST_MAX_BYTES);
    assert_eq!(
        read_request(at_cap).unwrap().len() as u64,
        REQUEST_MAX_BYTES
    );
    // An endless stdin (`/dev/zero`) ends at the cap: the read is bounded.
    let endless = std::io::repeat(b' ');
    let out = read_request(endless).unwrap_err();
    assert_eq!(out.exit, 2, "{}", out.reply);
    assert_eq!(out.reply["error"]["code"], "bad_request");
    assert!(
        out.reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&REQUEST_MAX_BYTES.to_string())
    );
}

#[rstest]
#[case::unknown_field("version", format!(r#"{{"{}":1}}"#, "x".repeat(1 << 20)))]
#[case::bad_name(
    "notes_read",
    format!(r#"{{"cwd":"/tmp","args":{{"name":"{}"}}}}"#, "é ".repeat(1 << 19))
)]
#[case::bad_harness(
    "history_sessions",
    format!(r#"{{"harness":"{}"}}"#, "g".repeat(1 << 20))
)]
fn messages_quote_at_most_the_clip_of_any_input(#[case] op: &str, #[case] request: String) {
    let out = run(Some(op), request.as_bytes(), &ctx());
    let message = out.reply["error"]["message"].as_str().unwrap();
    assert!(
        message.chars().count() <= MESSAGE_MAX_CHARS,
        "{} chars",
        message.chars().count()
    );
    // Cut where the input is quoted (by the crate that refused) or at the outlet.
    assert!(message.contains('…'), "{message}");
}

#[rstest]
#[case::bad_harness(r#"{"harness":"gemini"}"#)]
#[case::bad_limit(r#"{"limit":0}"#)]
fn history_sessions_bad_requests_exit_2_like_every_op(#[case] request: &str) {
    let out = run(Some("history_sessions"), request.as_bytes(), &ctx());
    assert_eq!(out.reply["error"]["code"], "bad_request");
    assert_eq!(out.exit, 2, "{}", out.reply);
}

/// What the flow kept for session `id` (harness claude) under notes home `home` says: what
/// the ops' tests read the state by (the replies carry effects only).
pub(crate) fn kept_flow(home: &std::path::Path, id: &str) -> notesoup_reset_flow::Snapshot {
    use notesoup_window::Host;
    use notesoup_window_store::{SessionKey, WindowStore};
    let key = SessionKey::new(Host::Claude, id).expect("a session id");
    let record = WindowStore::new(home)
        .read(&key)
        .expect("the record reads")
        .expect("a record is kept");
    serde_json::from_value::<notesoup_reset_flow::Saved>(record.state)
        .expect("the kept state reads")
        .flow
        .expect("the kept flow reads")
        .snapshot()
}

/// One reset-flow event straight into the flow kept for session `id` (harness claude)
/// under notes home `home`, as process `process` (what no request sends as such): the
/// flow's reply. A session with no record starts fresh.
pub(crate) fn kept_step(
    home: &std::path::Path,
    id: &str,
    process: &str,
    event: notesoup_reset_flow::Event,
) -> notesoup_reset_flow::Reply {
    use notesoup_reset_flow::{Saved, step_saved};
    use notesoup_window::Host;
    use notesoup_window_store::{SessionKey, WindowStore, WindowStoreError};
    let key = SessionKey::new(Host::Claude, id).expect("a session id");
    WindowStore::new(home)
        .with_session(&key, |record| {
            let saved = record
                .read()?
                .and_then(|r| serde_json::from_value::<Saved>(r.state).ok());
            // The token the hook op steps the flow under (this session's binding).
            let binding = notesoup_app::hook::SessionRef {
                harness: Host::Claude,
                id: id.to_owned(),
                process: process.to_owned(),
                transcript_path: None,
                interactive: None,
            }
            .binding();
            let (save, reply) = step_saved(saved.as_ref(), &binding, event);
            let state = serde_json::to_value(&save).expect("the flow serializes");
            record.write(state)?;
            Ok::<_, WindowStoreError>(reply)
        })
        .expect("the record is kept")
}

/// A copy of the real Claude Code transcript `name` (`history-claude/tests/data`) as
/// `<dir>/<session>.jsonl`, named by its session as Claude names it (a copy already there
/// is kept); its path.
pub(crate) fn transcript_copy(
    dir: &std::path::Path,
    (name, session): (&str, &str),
) -> std::path::PathBuf {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../history-claude/tests/data")
        .join(name);
    let transcript = dir.join(format!("{session}.jsonl"));
    if !transcript.exists() {
        std::fs::copy(&fixture, &transcript).expect("fixture copied");
    }
    transcript
}
