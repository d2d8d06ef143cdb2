//! Refusals, tolerated partial writes, gaps and markers, on files built line by line.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use rstest::rstest;

use notesoup_history_core::{
    Body, LeaveOut, LeftOut, LineError, LineReader, Role, Transcript, Window, line_fingerprint,
};

use crate::{PiError, PiFile, decode};
use notesoup_testkit::{FailsAfter, jsonl};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-12-02T15:00:00.000Z","cwd":"/w"}"#;

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"user","content":{}}}}}"#,
        serde_json::Value::String(text.into())
    )
}

fn run(text: &str) -> Result<notesoup_history_core::Transcript, PiError> {
    decode(
        &PiFile {
            name: "x.jsonl",
            bytes: text.as_bytes(),
        },
        &[],
    )
}

#[rstest]
#[case::malformed_line(jsonl(&[HEADER, "{\"type\":\"message\",", &user("a", None, "hi")]), "not valid JSON")]
#[case::no_header(jsonl(&[&user("a", None, "hi")]), "not a `session` header")]
#[case::empty_file(String::new(), "no header line")]
#[case::version_1(jsonl(&[r#"{"type":"session","id":"s1","timestamp":"t","cwd":"/w"}"#]), "version none")]
#[case::version_9(jsonl(&[r#"{"type":"session","version":9,"id":"s1"}"#]), "version 9")]
#[case::header_without_id(jsonl(&[r#"{"type":"session","version":3}"#]), "`id` is missing")]
#[case::not_an_object(jsonl(&[HEADER, "[1,2]"]), "not a JSON object")]
#[case::entry_without_id(jsonl(&[HEADER, r#"{"type":"label","parentId":null}"#]), "`id` is missing")]
#[case::entry_without_parent(jsonl(&[HEADER, r#"{"type":"label","id":"a"}"#]), "no `parentId`")]
#[case::parent_not_a_string(jsonl(&[HEADER, r#"{"type":"label","id":"a","parentId":7}"#]), "`parentId` must be a string or null")]
#[case::message_without_role(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":{"content":"x"}}"#]), "`role` is missing")]
#[case::message_not_an_object(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":"x"}"#]), "needs a `message` object")]
#[case::user_content_number(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":5}}"#]), "must be a string or an array")]
#[case::assistant_content_string(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":"x"}}"#]), "needs a `content` array")]
#[case::tool_call_without_id(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"toolCall","name":"bash","arguments":{}}]}}"#]), "content[0]: `id` is missing")]
#[case::text_block_without_text(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"text"}]}}"#]), "`text` is missing")]
#[case::tool_result_without_call_id(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","content":[]}}"#]), "`toolCallId` is missing")]
#[case::tool_result_is_error_string(jsonl(&[HEADER, r#"{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":"c","content":[],"isError":"yes"}}"#]), "`isError` must be a boolean")]
#[case::compaction_without_summary(jsonl(&[HEADER, r#"{"type":"compaction","id":"a","parentId":null,"firstKeptEntryId":"a"}"#]), "`summary` is missing")]
#[case::branch_summary_without_from(jsonl(&[HEADER, r#"{"type":"branch_summary","id":"a","parentId":null,"summary":"s"}"#]), "`fromId` is missing")]
#[case::conflicting_duplicate(jsonl(&[HEADER, &user("a", None, "one"), &user("a", None, "two")]), "already used by a different entry on line 2")]
#[case::cycle(jsonl(&[HEADER, &user("a", Some("b"), "one"), &user("b", Some("a"), "two")]), "form a cycle")]
fn bad_files_are_refused_with_the_reason(#[case] text: String, #[case] reason: &str) {
    let err = run(&text).unwrap_err();
    assert!(err.to_string().contains(reason), "{err}");
}

#[test]
fn invalid_utf8_is_refused_with_its_line() {
    let mut bytes = jsonl(&[HEADER]).into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"label\",\"id\":\"\xff\",\"parentId\":null}\n");
    let err = decode(
        &PiFile {
            name: "x.jsonl",
            bytes: &bytes,
        },
        &[],
    )
    .unwrap_err();
    assert_eq!(
        err,
        PiError::Malformed(LineError::Utf8 {
            file: "x.jsonl".into(),
            line: 2
        })
    );
}

#[test]
fn a_header_that_is_not_the_file_names_session_is_refused() {
    let text = jsonl(&[HEADER]);
    let err = decode(
        &PiFile {
            name: "/p/2026-12-02T15-00-00-000Z_other.jsonl",
            bytes: text.as_bytes(),
        },
        &[],
    )
    .unwrap_err();
    assert!(matches!(err, PiError::SessionMismatch { .. }), "{err}");
}

/// A text Pi cut inside an emoji (`JSON.stringify` writes the lone half as `\ud83d`)
/// reads as U+FFFD; it refused the whole session.
#[test]
fn a_lone_surrogate_reads_as_the_replacement_character() {
    let cut = user("b", Some("a"), "cut X").replace("cut X", r"cut \ud83d");
    let t = run(&jsonl(&[HEADER, &user("a", None, "one"), &cut])).unwrap();
    assert_eq!(
        t.events[1].body,
        Body::Text {
            text: "cut \u{fffd}".into()
        }
    );
}

#[test]
fn an_unfinished_last_line_is_a_write_in_progress() {
    let whole = jsonl(&[
        HEADER,
        &user("a", None, "one"),
        &user("b", Some("a"), "two"),
    ]);
    let cut = &whole[..whole.len() - 10];
    let t = run(cut).unwrap();
    assert_eq!(t.events.len(), 1);
    // A last line that is whole JSON but has no newline yet is read.
    let t = run(whole.trim_end()).unwrap();
    assert_eq!(t.events.len(), 2);
}

#[test]
fn an_identical_duplicate_allocates_nothing() {
    let a = user("a", None, "one");
    let t = run(&jsonl(&[HEADER, &a, &a, &user("b", Some("a"), "two")])).unwrap();
    let seqs: Vec<u64> = t.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2]);
}

#[test]
fn a_repeated_entry_is_read_once_and_a_changed_repeat_is_refused() {
    let a = user("a", None, "one");
    let b = user("b", Some("a"), "two");
    // Written again later, byte for byte: read once, allocating nothing.
    let t = run(&jsonl(&[HEADER, &a, &b, &a, &b])).unwrap();
    let got: Vec<(u64, Body)> = t.events.iter().map(|e| (e.seq, e.body.clone())).collect();
    let text = |text: &str| Body::Text { text: text.into() };
    assert_eq!(got, [(1, text("one")), (2, text("two"))]);
    // A repeat that differs only where no event looks (its timestamp) is still another
    // entry under the same id.
    let later = a.replace(r#""timestamp":"t""#, r#""timestamp":"t2""#);
    assert_ne!(later, a);
    let err = run(&jsonl(&[HEADER, &a, &b, &later])).unwrap_err();
    assert_eq!(
        err,
        PiError::Duplicate {
            file: "x.jsonl".into(),
            id: "a".into(),
            first_line: 2,
            line: 4,
        }
    );
}

#[test]
fn lines_are_numbered_across_blank_and_crlf_lines() {
    let text = format!(
        "{HEADER}\r\n\n   \n{}\r\n\n{{\"type\":\n",
        user("a", None, "one")
    );
    let err = run(&text).unwrap_err();
    assert!(
        matches!(&err, PiError::Malformed(LineError::Json { line: 6, .. })),
        "{err}"
    );
    // Unterminated, the same broken line is a write in progress.
    let t = run(text.trim_end()).unwrap();
    assert_eq!(t.events.len(), 1);
    assert_eq!(&*t.events[0].record, "a");
}

#[test]
fn seqs_never_move_when_the_file_grows() {
    let lines = [
        HEADER.to_owned(),
        user("a", None, "one"),
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}]}}"#.to_owned(),
        r#"{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"out"}],"isError":true}}"#.to_owned(),
        r#"{"type":"label","id":"d","parentId":"c","targetId":"a","label":"x"}"#.to_owned(),
        user("e", Some("a"), "branch"),
        r#"{"type":"compaction","id":"f","parentId":"e","timestamp":"t","summary":"sum","firstKeptEntryId":"e"}"#.to_owned(),
        user("g", Some("f"), "after"),
    ];
    let mut previous: Vec<(u64, String)> = Vec::new();
    for n in 1..=lines.len() {
        let refs: Vec<&str> = lines[..n].iter().map(String::as_str).collect();
        let t = run(&jsonl(&refs)).unwrap();
        let now: Vec<(u64, String)> = t
            .events
            .iter()
            .map(|e| (e.seq, e.record.to_string()))
            .collect();
        for record in previous.iter().map(|x| &x.1) {
            // An event still on the branch keeps its seqs.
            let seqs = |list: &[(u64, String)]| -> Vec<u64> {
                list.iter()
                    .filter(|x| &x.1 == record)
                    .map(|x| x.0)
                    .collect()
            };
            if now.iter().any(|x| &x.1 == record) {
                assert_eq!(
                    seqs(&now),
                    seqs(&previous),
                    "record {record} after {n} lines"
                );
            }
        }
        previous = now;
    }
    let t = run(&jsonl(
        &lines.iter().map(String::as_str).collect::<Vec<_>>(),
    ))
    .unwrap();
    // a(1); b took 2 and 3, c took 4 (abandoned); e(5) on the branch, the compaction (6)
    // in window 1, g (7).
    let got: Vec<(u64, Role, String)> = t
        .events
        .iter()
        .map(|e| (e.seq, e.role, e.window.to_string()))
        .collect();
    assert_eq!(
        got,
        [
            (1, Role::User, "0".into()),
            (5, Role::User, "0".into()),
            (6, Role::Summary, "1".into()),
            (7, Role::User, "1".into()),
        ]
    );
}

#[test]
fn tool_only_and_thinking_only_messages_keep_an_empty_address() {
    let t = run(&jsonl(&[
        HEADER,
        &user("a", None, "one"),
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"secret"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}}]}}"#,
        r#"{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"body"}],"isError":true}}"#,
    ]))
    .unwrap();
    assert_eq!(
        t.events[1].body,
        Body::Text {
            text: String::new()
        }
    );
    assert_eq!(
        t.events[2].body,
        Body::ToolCall {
            id: "c1".into(),
            name: "read".into(),
            input: r#"{"path":"x"}"#.into()
        }
    );
    assert_eq!(
        t.events[3].body,
        Body::ToolResult {
            id: "c1".into(),
            text: "body".into(),
            is_error: true
        }
    );
    assert!(
        t.events
            .iter()
            .all(|e| !format!("{:?}", e.body).contains("secret"))
    );
}

#[test]
fn a_missing_parent_gives_an_unknown_window_until_a_boot_names_one() {
    let boot = "<notesoup-boot window=\"pi:s1:4\">\nnotes\n</notesoup-boot>\nhandoff";
    let t = run(&jsonl(&[
        HEADER,
        &user("b", Some("gone"), "orphan"),
        &user("c", Some("b"), boot),
        r#"{"type":"compaction","id":"d","parentId":"c","timestamp":"t","summary":"s","firstKeptEntryId":"c"}"#,
    ]))
    .unwrap();
    assert_eq!(t.missing, vec!["gone".to_owned()]);
    let windows: Vec<Window> = t.events.iter().map(|e| e.window.clone()).collect();
    assert_eq!(
        windows,
        [
            Window::Unknown {
                missing: "gone".into()
            },
            Window::Numbered(4),
            Window::Numbered(5)
        ]
    );
    assert_eq!(t.head_window, Window::Numbered(5));
}

#[test]
fn bash_executions_and_extension_messages_are_visible() {
    let t = run(&jsonl(&[
        HEADER,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"bashExecution","command":"ls","output":"x\n","exitCode":0,"cancelled":false,"truncated":false}}"#,
        r#"{"type":"custom_message","id":"b","parentId":"a","timestamp":"t","customType":"ext","content":[{"type":"text","text":"injected"}],"display":true}"#,
        r#"{"type":"session_info","id":"c","parentId":"b","timestamp":"t","name":"named"}"#,
        r#"{"type":"some_future_type","id":"d","parentId":"c"}"#,
    ]))
    .unwrap();
    let got: Vec<(Role, Body)> = t.events.iter().map(|e| (e.role, e.body.clone())).collect();
    assert_eq!(
        got,
        [
            (
                Role::Notice,
                Body::Text {
                    text: "!ls\nx\n".into()
                }
            ),
            (
                Role::Attachment,
                Body::Text {
                    text: "injected".into()
                }
            ),
        ]
    );
}

#[test]
fn a_header_only_session_is_empty_not_refused() {
    let t = run(&jsonl(&[HEADER])).unwrap();
    assert!(t.events.is_empty());
    assert_eq!(t.head_window, Window::Numbered(0));
}

#[test]
fn a_file_read_line_by_line_decodes_as_its_bytes_and_a_failed_read_is_refused_at_its_line() {
    use notesoup_history_core::LineReader;
    let text = jsonl(&[
        HEADER,
        &user("a", None, "one"),
        &user("b", Some("a"), "two"),
    ]);
    // Read in pieces of 5 bytes: the same transcript as from the bytes.
    let reader = |bytes| LineReader::new("x.jsonl", std::io::BufReader::with_capacity(5, bytes));
    let read = crate::decode_from(reader(FailsAfter { bytes: b"" }), Vec::new());
    assert_eq!(read.unwrap_err().code(), "io_error");
    let whole = crate::decode_from(
        LineReader::new(
            "x.jsonl",
            std::io::BufReader::with_capacity(5, text.as_bytes()),
        ),
        Vec::new(),
    );
    assert_eq!(whole.unwrap(), run(&text).unwrap());
    // The disk fails in the third line: refused there, not read as a shorter session.
    let cut = text.len() - 10;
    let failing = FailsAfter {
        bytes: &text.as_bytes()[..cut],
    };
    let err = crate::decode_from(reader(failing), Vec::new()).unwrap_err();
    assert_eq!(err.code(), "io_error");
    assert_eq!(
        err.to_string(),
        "x.jsonl:3: the file could not be read: the disk went away"
    );
}

/// `transcript` with the bodies [`crate::decode_leaving`] left in `files`' lines (file 0
/// the selected one, then its ancestors) read back from them, each line found again by its
/// fingerprint.
fn put_back(files: &[&str], transcript: &mut Transcript, left: &[Option<LeftOut>]) {
    assert_eq!(left.len(), transcript.events.len());
    for (event, place) in transcript.events.iter_mut().zip(left) {
        let Some(place) = place else { continue };
        let line = &files[place.file][place.span.clone()];
        assert_eq!(line_fingerprint(line), place.fingerprint);
        let mut bodies = crate::line_bodies(line, place.number).unwrap();
        event.body = bodies.swap_remove(place.event);
    }
}

#[test]
fn bodies_left_in_their_lines_read_back_as_the_decode_made_them() {
    let parent_header = r#"{"type":"session","version":3,"id":"p1","timestamp":"t0","cwd":"/w"}"#;
    let parent = jsonl(&[
        parent_header,
        &user("a", None, "a long question from the parent with a needle"),
        &user("b", Some("a"), "short"),
    ]);
    let child_header = r#"{"type":"session","version":3,"id":"s1","timestamp":"t1","cwd":"/w","parentSession":"/p/2026-12-02T15-00-00-000Z_p1.jsonl"}"#;
    let calls = r#"{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"a long answer that calls a tool"},{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"grep needle"}},{"type":"toolCall","id":"t2","name":"bash","arguments":{}}]}}"#;
    let result = r#"{"type":"message","id":"d","parentId":"c","timestamp":"t","message":{"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"a long result with a needle"}],"isError":true}}"#;
    let compaction = r#"{"type":"compaction","id":"e","parentId":"d","timestamp":"t","summary":"a long summary of the work","firstKeptEntryId":"d","tokensBefore":9}"#;
    // A blank line and a `\r` before a break: the line rule the spans follow.
    let child = format!(
        "{}\n\n{}\r\n{}\n{}\n{}\n{}\n",
        child_header,
        user("x", Some("b"), "an abandoned long branch"),
        calls,
        result,
        result,
        compaction,
    ) + &jsonl(&[&user("f", Some("e"), "a long last prompt")]);
    let files = [child.as_str(), parent.as_str()];
    let decoded = |leave: Option<&LeaveOut<'_>>| {
        let selected = LineReader::new("/p/2026-12-02T15-00-00-000Z_s1.jsonl", files[0].as_bytes());
        let ancestor = LineReader::new("/p/2026-12-02T15-00-00-000Z_p1.jsonl", files[1].as_bytes());
        if let Some(leave) = leave {
            crate::decode_leaving(selected, vec![ancestor], leave).unwrap()
        } else {
            let t = crate::decode_from(selected, vec![ancestor]).unwrap();
            let n = t.events.len();
            (t, vec![None; n])
        }
    };
    let (whole, _) = decoded(None);
    let leave = LeaveOut {
        min_bytes: 10,
        literal: Some("needle"),
        files: &[true, true],
    };
    let (mut left, places) = decoded(Some(&leave));
    let kept: Vec<bool> = places.iter().map(Option::is_none).collect();
    // a (parent), b, the answer, its two calls, the result, the summary, f.
    assert_eq!(kept, [false, true, false, false, true, false, false, false]);
    let from: Vec<usize> = places.iter().flatten().map(|p| p.file).collect();
    assert_eq!(from, [1, 0, 0, 0, 0, 0]);
    let holding: Vec<bool> = places.iter().flatten().map(|p| p.holds).collect();
    assert_eq!(holding, [true, false, true, true, false, false]);
    assert_ne!(left, whole);
    put_back(&files, &mut left, &places);
    assert_eq!(left, whole);
    // The ancestor's bodies stay when it cannot be read again.
    let (mut left, places) = decoded(Some(&LeaveOut {
        files: &[true],
        ..leave
    }));
    assert!(places.iter().flatten().all(|p| p.file == 0));
    assert_eq!(places.iter().flatten().count(), 5);
    put_back(&files, &mut left, &places);
    assert_eq!(left, whole);
}
