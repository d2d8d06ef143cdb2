//! The chain given as readers (`decode_from`): each file is read once, line by line, an
//! ancestor only up to its successor's `end_byte_offset`; a read that fails is refused with
//! its line; a `.jsonl.zst` is decompressed as it is read, refused as `decompress` refuses
//! it; and a repeat is checked against the first payload's fingerprint, never its bytes.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

mod fixtures;

use std::io::{BufRead, BufReader};

use fixtures::{CHAIN, ZST, decode_all, read};
use notesoup_history_codex::{
    CodexError, CodexFile, CodexSource, decode, decode_from, decompress, decompress_head,
};
use notesoup_history_core::{LineError, Transcript};
use notesoup_testkit::{FailsAfter, jsonl, texts};

/// Decodes `files` (name, reader, compressed) as one chain, oldest first.
fn decode_readers(
    files: Vec<(&str, Box<dyn BufRead + '_>, bool)>,
) -> Result<Transcript, CodexError> {
    let mut files = files;
    let mut sources: Vec<CodexSource<'_>> = files
        .iter_mut()
        .map(|(name, reader, compressed)| CodexSource {
            name,
            reader: &mut **reader,
            compressed: *compressed,
        })
        .collect();
    decode_from(&mut sources)
}

const META: &str = r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"th1","timestamp":"t0","cwd":"/w"}}"#;
const BASE_NAME: &str = "rollout-2026-12-02T15-17-58-th1.jsonl";
const SEGMENT_NAME: &str = "rollout-2026-12-02T15-19-06-th1_seg1.jsonl";

fn user(text: &str) -> String {
    format!(
        r#"{{"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}}}"#
    )
}

fn segment(offset: usize) -> String {
    jsonl(&[
        &format!(
            r#"{{"type":"session_meta","payload":{{"id":"th1","history_base":{{"thread_id":"th1","end_byte_offset":{offset}}}}}}}"#
        ),
        &user("two"),
    ])
}

#[test]
fn a_read_that_fails_is_refused_with_io_error_and_the_line_being_read() {
    let rollout = jsonl(&[META, &user("one"), &user("two"), &user("three")]);
    // The reads fail from the middle of line 3 on; small buffers, so lines span reads.
    let cut = rollout.find("two").unwrap();
    let reader = BufReader::with_capacity(
        16,
        FailsAfter {
            bytes: &rollout.as_bytes()[..cut],
        },
    );
    let err = decode_readers(vec![("x.jsonl", Box::new(reader), false)]).unwrap_err();
    assert_eq!(
        err,
        CodexError::Malformed(LineError::Read {
            file: "x.jsonl".into(),
            line: 3,
            message: "the disk went away".into(),
        })
    );
    assert_eq!(err.code(), "io_error");
}

#[test]
fn an_ancestor_is_read_only_up_to_the_offset_its_successor_names() {
    let base = jsonl(&[META, &user("one")]);
    // Every read past the offset fails: the decode never makes one.
    let base_reader = BufReader::with_capacity(
        7,
        FailsAfter {
            bytes: base.as_bytes(),
        },
    );
    let seg = segment(base.len());
    let t = decode_readers(vec![
        (BASE_NAME, Box::new(base_reader), false),
        (SEGMENT_NAME, Box::new(seg.as_bytes()), false),
    ])
    .unwrap();
    assert_eq!(texts(&t), ["one", "two"]);
}

#[test]
fn an_offset_must_end_a_line_blank_lines_included_and_the_refusal_names_the_length() {
    let run = |base: &str, offset: usize| {
        let seg = segment(offset);
        decode(&[
            CodexFile {
                name: BASE_NAME,
                bytes: base.as_bytes(),
            },
            CodexFile {
                name: SEGMENT_NAME,
                bytes: seg.as_bytes(),
            },
        ])
    };
    // A blank last line ends a line; trailing blanks without a break do not.
    let blank = format!("{}\n", jsonl(&[META, &user("one")]));
    assert_eq!(texts(&run(&blank, blank.len()).unwrap()), ["one", "two"]);
    let spaces = format!("{}  ", jsonl(&[META, &user("one")]));
    let refused = |offset: usize, length: usize| CodexError::HistoryBase {
        file: SEGMENT_NAME.into(),
        reason: format!(
            "end_byte_offset {offset} is not a line end of {BASE_NAME} ({length} bytes)"
        ),
    };
    assert_eq!(
        run(&spaces, spaces.len()).unwrap_err(),
        refused(spaces.len(), spaces.len())
    );
    // Inside a line, the refusal names the whole file's length; past its end, too.
    assert_eq!(run(&spaces, 10).unwrap_err(), refused(10, spaces.len()));
    assert_eq!(
        run(&blank, blank.len() + 3).unwrap_err(),
        refused(blank.len() + 3, blank.len())
    );
}

#[test]
fn a_compressed_rollout_decodes_as_it_is_read_and_its_refusals_are_zstd_s() {
    let packed = read(ZST);
    let plain = decompress(ZST, &packed).unwrap();
    let expected = decode(&[CodexFile {
        name: ZST,
        bytes: &plain,
    }])
    .unwrap();
    let streamed = decode_readers(vec![(
        ZST,
        Box::new(BufReader::with_capacity(64, &packed[..])),
        true,
    )])
    .unwrap();
    assert_eq!(streamed, expected);
    // Cut zstd data is refused as the zstd reader refuses it, not as a failed read.
    let cut = &packed[..packed.len() / 2];
    let err = decode_readers(vec![(ZST, Box::new(cut), true)]).unwrap_err();
    assert_eq!(err, decompress(ZST, cut).unwrap_err());
    assert_eq!(err.code(), "transcript_malformed");
}

/// A zstd frame of `blocks` RLE blocks of 128 KiB of `byte` (8 KiB → 256 MiB).
fn zstd_bomb(blocks: u32, byte: u8) -> Vec<u8> {
    const BLOCK: u32 = 128 * 1024;
    let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    for i in 0..blocks {
        let header = u32::from(i + 1 == blocks) | (1 << 1) | (BLOCK << 3);
        zst.extend_from_slice(&header.to_le_bytes()[..3]);
        zst.push(byte);
    }
    zst
}

#[test]
fn a_compressed_bomb_after_a_valid_start_is_refused_as_too_large() {
    // A rollout whose start is whole, then 256 MiB of line breaks: the cap stops it.
    let mut packed = Vec::new();
    let start = jsonl(&[META, &user("one")]);
    // A raw block holding the start, as its own frame.
    packed.extend_from_slice(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]);
    let header = 1u32 | (u32::try_from(start.len()).unwrap() << 3);
    packed.extend_from_slice(&header.to_le_bytes()[..3]);
    packed.extend_from_slice(start.as_bytes());
    packed.extend_from_slice(&zstd_bomb(2048, b'\n'));
    let head = decompress_head("b.jsonl.zst", &packed[..], start.len() as u64 + 2).unwrap();
    assert_eq!(head, format!("{start}\n\n").as_bytes());
    let err = decode_readers(vec![("b.jsonl.zst", Box::new(&packed[..]), true)]).unwrap_err();
    assert!(matches!(err, CodexError::TooLarge { .. }), "{err}");
    assert_eq!(err.code(), "too_large");
}

/// An assistant message with id `m1` whose payload's keys come in the order given.
fn reply(payload_keys_first: &str, text: &str) -> String {
    format!(
        r#"{{"type":"response_item","payload":{{{payload_keys_first},"content":[{{"type":"output_text","text":"{text}"}}]}}}}"#
    )
}

#[test]
fn a_repeat_is_the_same_payload_whatever_its_key_order_and_spacing() {
    let first = reply(r#""type":"message","id":"m1","role":"assistant""#, "one");
    let again = reply(
        r#""role": "assistant",  "id":"m1", "type":"message","status":"completed""#,
        "one",
    );
    let changed = reply(r#""role":"assistant","id":"m1","type":"message""#, "ONE");
    let t = decode(&[CodexFile {
        name: "x.jsonl",
        bytes: jsonl(&[META, &first, &user("next"), &again]).as_bytes(),
    }])
    .unwrap();
    assert_eq!(texts(&t), ["one", "next"]);
    let err = decode(&[CodexFile {
        name: "x.jsonl",
        bytes: jsonl(&[META, &first, &again, &changed]).as_bytes(),
    }])
    .unwrap_err();
    assert_eq!(
        err,
        CodexError::Duplicate {
            file: "x.jsonl".into(),
            line: 4,
            id: "m1".into(),
            first: "x.jsonl:2".into(),
        }
    );
}

#[test]
fn the_real_chain_read_from_one_byte_buffers_is_the_chain_read_from_bytes() {
    let bytes: Vec<Vec<u8>> = CHAIN.iter().map(|n| read(n)).collect();
    let streamed = decode_readers(
        CHAIN
            .iter()
            .zip(&bytes)
            .map(|(name, bytes)| {
                let reader: Box<dyn BufRead> = Box::new(BufReader::with_capacity(1, &bytes[..]));
                (*name, reader, false)
            })
            .collect(),
    )
    .unwrap();
    assert_eq!(streamed, decode_all(&CHAIN).unwrap());
}
