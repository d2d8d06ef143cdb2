//! A harness's settings file read as its harness reads it. Claude Code and Pi are
//! JavaScript: they read their settings with `JSON.parse`, which takes a number too large
//! for a double (`1e400`) as `Infinity`, where `serde_json` refuses the whole document. So one
//! out-of-range value would make notesoup ignore a file its harness reads.

use serde_json::Value;

/// How many out-of-range numbers one document may hold before it is refused after all (each
/// costs a parse of the document again).
const MAX_OUT_OF_RANGE: usize = 64;

/// `bytes` as `JSON.parse` reads them, with each number beyond a double's range read as
/// `null`: no setting takes an infinite value, and notesoup ignores a `null` setting as it
/// ignores any value of the wrong kind, so only that value is left out. Every other
/// refusal of `serde_json` stands.
pub(crate) fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let mut text = std::borrow::Cow::Borrowed(bytes);
    let mut patched = 0;
    loop {
        let err = match serde_json::from_slice::<Value>(&text) {
            Ok(value) => return Ok(value),
            Err(err) => err,
        };
        let number = (is_out_of_range(&err) && patched < MAX_OUT_OF_RANGE)
            .then(|| number_at(&text, err.line(), err.column()))
            .flatten();
        let Some(span) = number else {
            return Err(err);
        };
        // `null` and spaces in the number's place (an out-of-range number has at least 5
        // bytes), so a later error's line and column are the file's own.
        let text = text.to_mut();
        text[span.clone()].fill(b' ');
        text[span.start..span.start + 4].copy_from_slice(b"null");
        patched += 1;
    }
}

/// `serde_json` says this for a number beyond a double (and only then).
fn is_out_of_range(err: &serde_json::Error) -> bool {
    err.is_syntax() && err.to_string().starts_with("number out of range")
}

/// The number token around `serde_json`'s position (`line`, and `column` in bytes, both
/// from 1): it points at the last digit it read, at the end of the number or inside it.
fn number_at(text: &[u8], line: usize, column: usize) -> Option<std::ops::Range<usize>> {
    let line_start = if line <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)?
            .0
            + 1
    };
    let at = line_start + column.checked_sub(1)?;
    let part = |b: &u8| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E');
    if !text.get(at).is_some_and(part) {
        return None;
    }
    let start = text[..at]
        .iter()
        .rposition(|b| !part(b))
        .map_or(0, |i| i + 1);
    let end = text[at..]
        .iter()
        .position(|b| !part(b))
        .map_or(text.len(), |i| at + i);
    (end - start >= 4).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::parse;
    use serde_json::{Value, json};

    #[test]
    fn a_number_beyond_a_double_is_left_out_and_the_rest_is_read() {
        let cases = [
            (
                r#"{"autoCompactEnabled": false, "notesoup": {"resetMarginTokens": 4096, "warningRunwayTokens": 1e400}}"#,
                json!({"autoCompactEnabled": false, "notesoup": {"resetMarginTokens": 4096, "warningRunwayTokens": null}}),
            ),
            (
                "{\"a\":\n  [1, -1e999999999999999999, 2],\n \"é\": 1.0e308000, \"b\": 3}",
                json!({"a": [1, null, 2], "é": null, "b": 3}),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text.as_bytes()).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn every_other_refusal_stands() {
        for text in [
            "{\"a\": 1e400,}",
            "{\"a\": 01}",
            "{\"a\": \"\\ud800\"",
            "[1e400",
        ] {
            let err = parse(text.as_bytes()).unwrap_err();
            assert!(
                !err.to_string().starts_with("number out of range"),
                "{text}: {err}"
            );
        }
        // The error said is the file's own, where the file has it.
        let err = parse(b"{\"a\": 1e400 \"b\"}").unwrap_err();
        assert_eq!((err.line(), err.column()), (1, 13), "{err}");
        assert_eq!(parse(b"1e400").unwrap(), Value::Null);
    }
}
