//! The Claude decoder's tests, by concern (the modules below), and the transcripts they
//! build row by row.

use rstest::rstest;
use serde_json::{Value, json};

use notesoup_history_core::{Body, Transcript, Window};

use super::*;
use crate::rows::{Kind, RawRow};
use crate::uuids::uuid_hash;

mod graph;
mod parse;
mod refusals;
mod state;

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
