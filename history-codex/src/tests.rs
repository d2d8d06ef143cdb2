//! Refusals, tolerated partial writes, rollbacks, repeats and markers, on rollouts built
//! line by line.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use rstest::rstest;

use notesoup_history_core::{
    Body, LeaveOut, LeftOut, LineError, Role, Transcript, Window, line_fingerprint,
};

use crate::{CodexError, CodexFile, DECOMPRESSED_MAX_BYTES, decode, decompress, decompress_head};
use notesoup_testkit::{jsonl, texts};

const META: &str = r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"th1","timestamp":"t0","cwd":"/w"}}"#;

fn user(text: &str) -> String {
    format!(
        r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}}}"#,
        serde_json::Value::String(text.into())
    )
}

fn assistant(id: &str, text: &str) -> String {
    format!(
        r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"message","id":"{id}","role":"assistant","content":[{{"type":"output_text","text":{}}}]}}}}"#,
        serde_json::Value::String(text.into())
    )
}

fn run(text: &str) -> Result<Transcript, CodexError> {
    decode(&[CodexFile {
        name: "x.jsonl",
        bytes: text.as_bytes(),
    }])
}

#[rstest]
#[case::malformed_line(jsonl(&[META, "{\"type\":", &user("hi")]), "not valid JSON")]
#[case::empty_file(String::new(), "the file has no lines")]
#[case::no_meta(jsonl(&[&user("hi")]), "the first line is not `session_meta`")]
#[case::meta_without_id(jsonl(&[r#"{"type":"session_meta","payload":{"cwd":"/w"}}"#]), "`id` is missing")]
#[case::meta_payload_string(jsonl(&[r#"{"type":"session_meta","payload":"x"}"#]), "`payload` is not an object")]
#[case::history_base_without_offset(jsonl(&[r#"{"type":"session_meta","payload":{"id":"th1","history_base":{"thread_id":"a"}}}"#]), "`end_byte_offset` must be")]
#[case::not_an_object(jsonl(&[META, "7"]), "not a JSON object")]
#[case::line_without_type(jsonl(&[META, r#"{"payload":{}}"#]), "`type` is missing")]
#[case::response_item_without_payload(jsonl(&[META, r#"{"type":"response_item"}"#]), "`payload` is missing")]
#[case::payload_without_type(jsonl(&[META, r#"{"type":"response_item","payload":{"role":"user"}}"#]), "payload: `type` is missing")]
#[case::message_without_role(jsonl(&[META, r#"{"type":"response_item","payload":{"type":"message","content":[]}}"#]), "`role` is missing")]
#[case::message_content_string(jsonl(&[META, r#"{"type":"response_item","payload":{"type":"message","role":"user","content":"hi"}}"#]), "needs a `content` array")]
#[case::text_part_without_text(jsonl(&[META, r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text"}]}}"#]), "content[0]: `text` is missing")]
#[case::call_without_call_id(jsonl(&[META, r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}"}}"#]), "`call_id` is missing")]
#[case::call_arguments_object(jsonl(&[META, r#"{"type":"response_item","payload":{"type":"function_call","name":"x","call_id":"c","arguments":{}}}"#]), "`arguments` must be a string")]
#[case::output_without_output(jsonl(&[META, r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c"}}"#]), "`output` is missing")]
#[case::compacted_without_message(jsonl(&[META, r#"{"type":"compacted","payload":{"replacement_history":[]}}"#]), "`message` is missing")]
#[case::rollback_without_turns(jsonl(&[META, r#"{"type":"event_msg","payload":{"type":"thread_rolled_back"}}"#]), "needs a non-negative integer `num_turns`")]
#[case::conflicting_duplicate(jsonl(&[META, &assistant("m1", "one"), &assistant("m1", "two")]), "item id `m1` was already used by a different item at x.jsonl:2")]
fn bad_rollouts_are_refused_with_the_reason(#[case] text: String, #[case] reason: &str) {
    let err = run(&text).unwrap_err();
    assert!(err.to_string().contains(reason), "{err}");
}

#[test]
fn invalid_utf8_is_refused_with_its_line() {
    let mut bytes = jsonl(&[META]).into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"x\",\"payload\":\"\xfe\"}\n");
    let err = decode(&[CodexFile {
        name: "x.jsonl",
        bytes: &bytes,
    }])
    .unwrap_err();
    assert_eq!(
        err,
        CodexError::Malformed(LineError::Utf8 {
            file: "x.jsonl".into(),
            line: 2
        })
    );
}

#[test]
fn a_meta_that_is_not_the_file_names_thread_is_refused() {
    let text = jsonl(&[META]);
    let name = "rollout-2026-12-02T15-17-58-other.jsonl";
    let err = decode(&[CodexFile {
        name,
        bytes: text.as_bytes(),
    }])
    .unwrap_err();
    assert!(matches!(err, CodexError::SessionMismatch { .. }), "{err}");
}

#[test]
fn an_unfinished_last_line_is_a_write_in_progress() {
    let whole = jsonl(&[META, &user("one"), &assistant("m1", "two")]);
    let t = run(&whole[..whole.len() - 12]).unwrap();
    assert_eq!(texts(&t), ["one"]);
    let t = run(whole.trim_end()).unwrap();
    assert_eq!(texts(&t), ["one", "two"]);
}

#[test]
fn a_repeated_item_allocates_nothing() {
    let t = run(&jsonl(&[
        META,
        &assistant("m1", "one"),
        &assistant("m1", "one"),
        &user("next"),
    ]))
    .unwrap();
    let seqs: Vec<u64> = t.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2]);
}

/// `assistant(id, text)` with the two keys a repeat may change set to `status`.
fn assistant_marked(id: &str, text: &str, status: &str) -> String {
    assistant(id, text).replace(
        r#""role":"assistant","#,
        &format!(
            r#""role":"assistant","status":"{status}","internal_chat_message_metadata_passthrough":{{"turn":"{status}"}},"#
        ),
    )
}

#[test]
fn a_repeat_differing_only_in_metadata_is_skipped_and_any_other_change_refused() {
    let first = assistant_marked("m1", "one", "in_progress");
    let again = assistant_marked("m1", "one", "completed");
    assert_ne!(first, again);
    let t = run(&jsonl(&[META, &first, &user("next"), &again])).unwrap();
    assert_eq!(texts(&t), ["one", "next"]);
    // A change no event shows (a key the decoder does not read) is still a conflict.
    let changed = again.replace(
        r#""role":"assistant","#,
        r#""role":"assistant","end_turn":true,"#,
    );
    let err = run(&jsonl(&[META, &first, &user("next"), &changed])).unwrap_err();
    let refused = CodexError::Duplicate {
        file: "x.jsonl".into(),
        line: 4,
        id: "m1".into(),
        first: "x.jsonl:2".into(),
    };
    assert_eq!(err, refused);
    // A repeat telling another text (the text the decode moves out of the line's JSON) is
    // a conflict too: each payload is fingerprinted whole.
    let retold = assistant_marked("m1", "uno", "completed");
    let err = run(&jsonl(&[META, &first, &user("next"), &retold])).unwrap_err();
    assert_eq!(err, refused);
}

/// A base file and a rewind segment continuing all of it.
fn base_and_segment(
    base_lines: &[&str],
    seg_lines: &[&str],
    thread: &str,
) -> Result<Transcript, CodexError> {
    let base = jsonl(base_lines);
    let seg_meta = segment_meta(base.len(), thread);
    let mut lines = vec![seg_meta.as_str()];
    lines.extend_from_slice(seg_lines);
    decode_segment(&base, &jsonl(&lines))
}

/// The `session_meta` of th1's rewind segment, continuing `offset` bytes of `thread`.
fn segment_meta(offset: usize, thread: &str) -> String {
    format!(
        r#"{{"type":"session_meta","payload":{{"id":"th1","history_base":{{"thread_id":"{thread}","end_byte_offset":{offset}}}}}}}"#
    )
}

/// Decodes th1's base file `base` and its rewind segment `seg`.
fn decode_segment(base: &str, seg: &str) -> Result<Transcript, CodexError> {
    decode(&[
        CodexFile {
            name: "rollout-2026-12-02T15-17-58-th1.jsonl",
            bytes: base.as_bytes(),
        },
        CodexFile {
            name: "rollout-2026-12-02T15-19-06-th1_seg1.jsonl",
            bytes: seg.as_bytes(),
        },
    ])
}

#[test]
fn a_repeat_in_the_next_file_of_the_chain_is_compared_with_the_first() {
    let first = assistant_marked("m1", "one", "in_progress");
    let again = assistant_marked("m1", "one", "completed");
    let t = base_and_segment(&[META, &user("hi"), &first], &[&user("two"), &again], "th1").unwrap();
    assert_eq!(texts(&t), ["hi", "one", "two"]);
    let changed = assistant_marked("m1", "ONE", "completed");
    let err = base_and_segment(
        &[META, &user("hi"), &first],
        &[&user("two"), &changed],
        "th1",
    )
    .unwrap_err();
    assert_eq!(
        err,
        CodexError::Duplicate {
            file: "rollout-2026-12-02T15-19-06-th1_seg1.jsonl".into(),
            line: 3,
            id: "m1".into(),
            first: "rollout-2026-12-02T15-17-58-th1.jsonl:3".into(),
        }
    );
}

#[test]
fn a_schema_refusal_comes_after_the_chains_checks_in_log_order() {
    let bad = r#"{"type":"response_item"}"#;
    // A broken link is refused before any line's schema.
    let err = base_and_segment(&[META, bad], &[&user("two")], "th9").unwrap_err();
    assert!(matches!(err, CodexError::HistoryBase { .. }), "{err}");
    // With the link whole, the base's bad line is refused, before the segment's.
    let err = base_and_segment(&[META, &user("one"), bad], &[bad], "th1").unwrap_err();
    assert_eq!(
        err,
        CodexError::Line {
            file: "rollout-2026-12-02T15-17-58-th1.jsonl".into(),
            line: 3,
            reason: "`payload` is missing".into(),
        }
    );
    // A conflicting repeat before the bad line is refused first.
    let err = base_and_segment(
        &[META, &assistant("m1", "one"), &assistant("m1", "two"), bad],
        &[],
        "th1",
    )
    .unwrap_err();
    assert!(
        matches!(err, CodexError::Duplicate { line: 3, .. }),
        "{err}"
    );
}

#[test]
fn injected_context_is_an_attachment_and_developer_text_takes_no_seq() {
    let t = run(&jsonl(&[
        META,
        r#"{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}"#,
        &user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        &user("a real prompt"),
        r#"{"type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"x"}}"#,
        r#"{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"*** Begin Patch"}}"#,
        r#"{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":{"content":"failed","success":false}}}"#,
        r#"{"type":"world_state","payload":{"full":true}}"#,
    ]))
    .unwrap();
    let got: Vec<(u64, Role)> = t.events.iter().map(|e| (e.seq, e.role)).collect();
    assert_eq!(
        got,
        [
            (1, Role::Attachment),
            (2, Role::User),
            (3, Role::Tool),
            (4, Role::Tool)
        ]
    );
    assert_eq!(
        t.events[3].body,
        Body::ToolResult {
            id: "c2".into(),
            text: "failed".into(),
            is_error: true
        }
    );
}

#[test]
fn a_rollback_drops_the_last_turns_but_not_their_seqs() {
    let t = run(&jsonl(&[
        META,
        &user("one"),
        &assistant("a1", "r1"),
        &user("two"),
        &assistant("a2", "r2"),
        r#"{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}"#,
        &user("three"),
    ]))
    .unwrap();
    assert_eq!(texts(&t), ["one", "r1", "three"]);
    assert_eq!(t.events.last().unwrap().seq, 5);
}

#[test]
fn compactions_open_windows_and_a_boot_names_its_own() {
    let t = run(&jsonl(&[
        META,
        &user("one"),
        r#"{"type":"compacted","payload":{"message":"summary one"}}"#,
        &user("<notesoup-boot window=\"codex:th1:7\">\nnotes\n</notesoup-boot>\nhandoff"),
        r#"{"type":"compacted","payload":{"message":"","replacement_history":[]}}"#,
    ]))
    .unwrap();
    let windows: Vec<Window> = t.events.iter().map(|e| e.window.clone()).collect();
    assert_eq!(
        windows,
        [
            Window::Numbered(0),
            Window::Numbered(1),
            Window::Numbered(7),
            Window::Numbered(8)
        ]
    );
    assert_eq!(t.head_window, Window::Numbered(8));
}

#[test]
fn history_base_links_are_checked() {
    let base = jsonl(&[META, &user("one")]);
    let good = jsonl(&[&segment_meta(base.len(), "th1"), &user("two")]);
    let chain = |seg: &str| decode_segment(&base, seg);
    // A segment names its base by thread id.
    assert_eq!(texts(&chain(&good).unwrap()), ["one", "two"]);
    let cut = jsonl(&[&segment_meta(META.len() + 1, "th1"), &user("two")]);
    assert_eq!(texts(&chain(&cut).unwrap()), ["two"]);
    let mid_line = jsonl(&[&segment_meta(10, "th1"), &user("two")]);
    assert!(
        chain(&mid_line)
            .unwrap_err()
            .to_string()
            .contains("is not a line end")
    );
    let beyond = jsonl(&[&segment_meta(base.len() + 5, "th1"), &user("two")]);
    assert!(
        chain(&beyond)
            .unwrap_err()
            .to_string()
            .contains("is not a line end")
    );
    let other = jsonl(&[&segment_meta(base.len(), "th9"), &user("two")]);
    assert!(
        chain(&other)
            .unwrap_err()
            .to_string()
            .contains("names `th9`")
    );
    let unlinked = jsonl(&[META, &user("two")]);
    assert!(
        chain(&unlinked)
            .unwrap_err()
            .to_string()
            .contains("has no history_base")
    );
    assert_eq!(decode(&[]).unwrap_err(), CodexError::EmptyChain);
}

#[test]
fn ordinals_must_join_across_the_link() {
    let base = jsonl(&[
        r#"{"ordinal":0,"type":"session_meta","payload":{"id":"th1"}}"#,
        r#"{"ordinal":1,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}}"#,
    ]);
    let seg = |first: u64, end: u64| {
        jsonl(&[
            &format!(
                r#"{{"ordinal":{first},"type":"session_meta","payload":{{"id":"th1","history_base":{{"thread_id":"th1","end_ordinal_exclusive":{end},"end_byte_offset":{}}}}}}}"#,
                base.len()
            ),
            &user("two"),
        ])
    };
    let run = |seg: &str| {
        decode(&[
            CodexFile {
                name: "b.jsonl",
                bytes: base.as_bytes(),
            },
            CodexFile {
                name: "s.jsonl",
                bytes: seg.as_bytes(),
            },
        ])
    };
    assert!(run(&seg(2, 2)).is_ok());
    assert!(
        run(&seg(3, 2))
            .unwrap_err()
            .to_string()
            .contains("does not join")
    );
    assert!(
        run(&seg(1, 1))
            .unwrap_err()
            .to_string()
            .contains("does not join")
    );
}

/// A zstd bomb made at test time: one frame of `blocks` RLE blocks of 128 KiB each
/// (4 bytes apiece): 8 KiB of input expands to 256 MiB, 32 KiB to 1 GiB.
fn zstd_bomb(blocks: u32) -> Vec<u8> {
    const BLOCK: u32 = 128 * 1024;
    // Magic, a header with no content size and no checksum, a 128 KiB window.
    let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        let header = last | (1 << 1) | (BLOCK << 3);
        zst.extend_from_slice(&header.to_le_bytes()[..3]);
        zst.push(b'\n');
    }
    zst
}

/// Counts the bytes read through it.
struct Counted<'a> {
    inner: &'a [u8],
    read: usize,
}

impl std::io::Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n;
        Ok(n)
    }
}

#[test]
fn a_zstd_bomb_is_refused_at_the_cap() {
    let bomb = zstd_bomb(2048); // 256 MiB, twice the cap
    assert!(bomb.len() < 10 * 1024);
    let err = match decompress("bomb.jsonl.zst", &bomb) {
        Ok(bytes) => panic!("the bomb decompressed to {} bytes", bytes.len()),
        Err(err) => err,
    };
    assert_eq!(
        err,
        CodexError::TooLarge {
            file: "bomb.jsonl.zst".into(),
            limit: DECOMPRESSED_MAX_BYTES
        }
    );
    assert_eq!(err.code(), "too_large");
    // Under the cap it decompresses whole.
    assert_eq!(
        decompress("small.jsonl.zst", &zstd_bomb(8)).unwrap().len(),
        8 * 128 * 1024
    );
}

#[test]
fn the_head_of_a_bomb_reads_only_what_it_shows() {
    let bomb = zstd_bomb(8192);
    let mut input = Counted {
        inner: &bomb,
        read: 0,
    };
    let head = decompress_head("bomb.jsonl.zst", &mut input, 64 * 1024).unwrap();
    assert_eq!(head.len(), 64 * 1024);
    // One buffered read of the input at most: decoding stopped at the head.
    assert!(
        input.read <= 8 * 1024,
        "read {} compressed bytes",
        input.read
    );
}

/// `transcript` with the bodies [`crate::decode_leaving`] left in `file`'s lines read back
/// from them, each line found again by its fingerprint.
fn put_back(file: &str, transcript: &mut Transcript, left: &[Option<LeftOut>]) {
    assert_eq!(left.len(), transcript.events.len());
    for (event, place) in transcript.events.iter_mut().zip(left) {
        let Some(place) = place else { continue };
        let line = &file[place.span.clone()];
        assert_eq!(line_fingerprint(line), place.fingerprint);
        let mut bodies = crate::line_bodies(line, place.number).unwrap();
        event.body = bodies.swap_remove(place.event);
    }
}

#[test]
fn bodies_left_in_their_lines_read_back_as_the_decode_made_them() {
    let call = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","id":"fc1","name":"exec_command","arguments":"{\"cmd\": \"echo a long needle\"}","call_id":"c1"}}"#;
    let output = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a long needle\n"}}"#;
    let file = jsonl(&[
        META,
        &user("a long question with a needle"),
        &assistant("a1", "ok"),
        call,
        output,
        call,
        &user("two"),
        &assistant("a2", "a long answer to be rolled back"),
        r#"{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}"#,
        r#"{"type":"compacted","payload":{"message":"a long summary of it all"}}"#,
        r#"{"type":"compacted","payload":{"message":"short"}}"#,
        &user("three"),
    ]);
    let whole = run(&file).unwrap();
    let leave = LeaveOut {
        min_bytes: 10,
        literal: Some("needle"),
        files: &[true],
    };
    let mut source = file.as_bytes();
    let sources = &mut [crate::CodexSource {
        name: "x.jsonl",
        reader: &mut source,
        compressed: false,
    }];
    let (mut left, places) = crate::decode_leaving(sources, &leave).unwrap();
    // The long bodies are placeholders, the short ones whole; the rolled-back turn left
    // nothing behind.
    let kept: Vec<bool> = places.iter().map(Option::is_none).collect();
    assert_eq!(kept, [false, true, false, false, false, true, true]);
    let holding: Vec<bool> = places.iter().flatten().map(|p| p.holds).collect();
    assert_eq!(holding, [true, true, true, false]);
    assert_ne!(left, whole);
    put_back(&file, &mut left, &places);
    assert_eq!(left, whole);
    // A file the caller cannot read again keeps its bodies.
    let mut source = file.as_bytes();
    let sources = &mut [crate::CodexSource {
        name: "x.jsonl",
        reader: &mut source,
        compressed: false,
    }];
    let none = LeaveOut {
        files: &[false],
        ..leave
    };
    let (same, places) = crate::decode_leaving(sources, &none).unwrap();
    assert!(places.iter().all(Option::is_none));
    assert_eq!(same, whole);
}

#[test]
fn the_meta_of_a_rollout_is_read_by_the_decoders_line_rule() {
    // Blank lines before the meta, as the decode passes them over; the meta's line only.
    let file = format!("\n  \n{META}\n{{\"type\":");
    let bytes = CodexFile {
        name: "x.jsonl",
        bytes: file.as_bytes(),
    };
    assert_eq!(crate::meta(&bytes).unwrap().id, "th1");
    assert_eq!(
        crate::meta_from("x.jsonl", file.as_bytes()).unwrap().id,
        "th1"
    );
    assert_eq!(
        run(&jsonl(&["", META, &user("hi")])).unwrap().events.len(),
        1
    );
}
