//! The fingerprint a repeated payload id is checked with: the first payload is not kept,
//! only 128 bits of it.

use serde_json::Value;

/// A 128-bit fingerprint of a line's `payload` without the metadata a repeat may change
/// (`internal_chat_message_metadata_passthrough`, `status`: passed over, not removed).
/// Equal payloads (as `serde_json` compares them) have equal fingerprints.
///
/// The payload is written to `scratch` as its structure in `serde_json`'s order (maps are
/// ordered, so equal payloads write the same), each string as its length and xxh3-128
/// read in place, never copied or escaped; the fingerprint is xxh3-128 of that. (Hashing
/// the payload's JSON text instead costs a tool output's escaping again: 0.13 s more user
/// time in a search of the 1 GB bench corpus's Codex sessions.)
pub(crate) fn fingerprint(payload: Option<&Value>, scratch: &mut Vec<u8>) -> u128 {
    scratch.clear();
    match payload {
        Some(Value::Object(map)) => {
            let kept = |key: &str| !IGNORED.contains(&key);
            scratch.push(b'o');
            let count = map.keys().filter(|key| kept(key)).count();
            scratch.extend_from_slice(&(count as u64).to_le_bytes());
            for (key, value) in map.iter().filter(|(key, _)| kept(key)) {
                text(b'k', key, scratch);
                write(value, scratch);
            }
        }
        Some(value) => write(value, scratch),
        None => write(&Value::Null, scratch),
    }
    twox_hash::xxh3::hash128(scratch)
}

/// The payload keys a repeat may change.
const IGNORED: [&str; 2] = ["internal_chat_message_metadata_passthrough", "status"];

/// `value`'s structure, one tag a node, then its contents.
fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(b'n'),
        Value::Bool(b) => out.push(if *b { b't' } else { b'f' }),
        // As `serde_json` tells numbers apart: an unsigned, a negative or a float.
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push(b'u');
                out.extend_from_slice(&u.to_le_bytes());
            } else if let Some(i) = n.as_i64() {
                out.push(b'i');
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                out.push(b'd');
                out.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_bits().to_le_bytes());
            }
        }
        Value::String(s) => text(b's', s, out),
        Value::Array(items) => {
            out.push(b'a');
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            for item in items {
                write(item, out);
            }
        }
        Value::Object(map) => {
            out.push(b'o');
            out.extend_from_slice(&(map.len() as u64).to_le_bytes());
            for (key, value) in map {
                text(b'k', key, out);
                write(value, out);
            }
        }
    }
}

/// A string: its tag, its length and its xxh3-128.
fn text(tag: u8, s: &str, out: &mut Vec<u8>) {
    out.push(tag);
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(&twox_hash::xxh3::hash128(s.as_bytes()).to_le_bytes());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

    use serde_json::{Value, json};

    use super::fingerprint;

    fn of(payload: &Value) -> u128 {
        fingerprint(Some(payload), &mut Vec::new())
    }

    #[test]
    fn equal_payloads_agree_and_any_difference_shows() {
        let base = json!({"type": "message", "id": "m1", "content": [{"text": "one"}], "n": 1});
        let same: Value = serde_json::from_str(
            r#"{"n":1, "content":[{"text":"one"}], "id":"m1", "type":"message", "status":"done"}"#,
        )
        .unwrap();
        assert_eq!(of(&base), of(&same));
        let differing = [
            json!({"type": "message", "id": "m1", "content": [{"text": "one!"}], "n": 1}),
            json!({"type": "message", "id": "m1", "content": [{"text": "one"}], "n": 1.0}),
            json!({"type": "message", "id": "m1", "content": [{"text": "one"}], "n": -1}),
            json!({"type": "message", "id": "m1", "content": [{"text": "one"}, null], "n": 1}),
            json!({"type": "message", "id": "m1", "content": {"text": "one"}, "n": 1}),
            json!({"type": "message", "id": "m1", "content": [{"text": "one"}], "n": "1"}),
            json!({"type": "message", "id": "m1", "content": [{"txet": "one"}], "n": 1}),
            json!({"type": "message", "id": "m1", "content": [["text", "one"]], "n": 1}),
        ];
        let mut seen = vec![of(&base)];
        for payload in differing {
            let print = of(&payload);
            assert!(!seen.contains(&print), "{payload}");
            seen.push(print);
        }
    }
}
