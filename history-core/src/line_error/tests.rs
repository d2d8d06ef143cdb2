//! The reader's lines are the rule's lines, whatever the reads' sizes.

use std::io::{BufReader, Read};

use notesoup_testkit::FailsAfter;

use super::{LineError, LineReader};

/// What a line is, owned, for comparing the two readings.
type Seen = Result<(usize, std::ops::Range<usize>, String, bool), LineError>;

/// The rule, written out plainly over bytes in memory: the model the reader is held to.
fn from_bytes(bytes: &[u8], limit: usize) -> Vec<Seen> {
    let bytes = &bytes[..limit];
    let mut out = Vec::new();
    let (mut start, mut number) = (0, 0);
    while start < bytes.len() {
        number += 1;
        let rest = &bytes[start..];
        let (raw, terminated) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        let at = start;
        start += raw.len() + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match std::str::from_utf8(raw) {
            Ok(text) => out.push(Ok((
                number,
                at..at + raw.len(),
                text.to_owned(),
                terminated,
            ))),
            Err(_) if terminated => {
                out.push(Err(LineError::Utf8 {
                    file: "s.jsonl".into(),
                    line: number,
                }));
                break;
            }
            Err(_) => {}
        }
    }
    out
}

fn from_reader(reader: impl Read, capacity: usize) -> (Vec<Seen>, usize) {
    let mut lines = LineReader::new("s.jsonl", BufReader::with_capacity(capacity, reader));
    let mut out = Vec::new();
    while let Some(line) = lines.next_line() {
        out.push(line.map(|l| (l.number, l.span, l.text.to_owned(), l.terminated)));
    }
    (out, lines.position())
}

#[test]
fn a_reader_yields_the_rules_lines_whatever_its_reads() {
    let files: [&[u8]; 10] = [
        b"",
        b"\n\n",
        b"{}\r\n\n  \n{\"a\":1}\n{\"b\"",
        b"{\"a\":1}\n{\"b\":2}\n",
        b"{\"a\":1}\n\xff\xfe\n{\"c\":3}\n",
        b"{\"a\":1}\n{\"b\":\"\xff",
        b"\r\n\t \r\n{\"x\":\"\xc3\xa9\"}",
        b"{\"long\":\"0123456789012345678901234567890123456789\"}\n\r\n",
        b"x\ny\r",
        // Runs of empty lines, passed over a buffer at a time, still count.
        b"{}\n\n\n\n\n\n{\"a\":1}\n\n\n \n\n{\"b\":2}\n\n",
    ];
    for bytes in files {
        for limit in 0..=bytes.len() {
            let want = from_bytes(bytes, limit);
            for capacity in [1, 2, 7, 64] {
                let (got, read) = from_reader(&bytes[..limit], capacity);
                assert_eq!(got, want, "{bytes:?} cut at {limit}, reads of {capacity}");
                if want.last().is_none_or(Result::is_ok) {
                    assert_eq!(read, limit, "{bytes:?} cut at {limit}: every byte read");
                }
            }
        }
    }
}

#[test]
fn a_failed_read_is_refused_with_its_line_and_ends_the_lines() {
    let (got, _) = from_reader(
        FailsAfter {
            bytes: b"{}\n\n{\"a\"",
        },
        4,
    );
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0], Ok((1, 0..2, "{}".to_owned(), true)));
    let Err(err) = &got[1] else { panic!("{got:?}") };
    assert_eq!(err.line(), 3);
    assert_eq!(err.code(), "io_error");
    assert!(
        err.to_string()
            .starts_with("s.jsonl:3: the file could not be read: the disk went away"),
        "{err}"
    );
}
