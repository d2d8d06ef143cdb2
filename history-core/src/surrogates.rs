//! Lone UTF-16 surrogates in a JSON line: JavaScript's `JSON.stringify` writes a string
//! cut inside a surrogate pair (an emoji cut at a length limit) as a lone `\ud83d`
//! escape. JSON's grammar allows it and the harness reads it back, but a Rust string
//! cannot hold it, so `serde_json` refuses the string. [`lone_surrogates_replaced`] gives
//! the line with each such escape written as `\ufffd` (the replacement character), which
//! keeps every byte offset of the line.

/// `line` with every `\uXXXX` escape of a lone surrogate (a high one no low escape
/// follows, or a low one no high escape precedes) replaced by `\ufffd`, of the same
/// length; `None` when the line holds none (the usual case costs one search for `\`).
///
/// ```
/// use notesoup_history_core::lone_surrogates_replaced;
///
/// let cut = br#"{"text":"cut \ud83d"}"#;
/// assert_eq!(lone_surrogates_replaced(cut).unwrap(), br#"{"text":"cut \ufffd"}"#);
/// assert_eq!(lone_surrogates_replaced(br#"{"text":"whole \ud83d\ude00"}"#), None);
/// assert_eq!(lone_surrogates_replaced(br#"{"text":"a backslash \\ud83d"}"#), None);
/// ```
pub fn lone_surrogates_replaced(line: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', line.get(i..)?) {
        let at = i + off;
        if line.get(at + 1) != Some(&b'u') {
            // Any other escape is two bytes (an escaped backslash among them).
            i = at + 2;
            continue;
        }
        let Some(unit) = hex4(line, at + 2) else {
            i = at + 2;
            continue;
        };
        let unpaired = match unit {
            0xD800..=0xDBFF => {
                let low = line.get(at + 6..at + 8) == Some(b"\\u".as_slice())
                    && hex4(line, at + 8).is_some_and(|u| (0xDC00..=0xDFFF).contains(&u));
                if low {
                    i = at + 12;
                    continue;
                }
                true
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if unpaired {
            out.get_or_insert_with(|| line.to_vec())[at + 2..at + 6].copy_from_slice(b"fffd");
        }
        i = at + 6;
    }
    out
}

/// The four hex digits at `at`, as a number.
fn hex4(line: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(line.get(at..at + 4)?).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::lone_surrogates_replaced;

    #[test]
    fn only_lone_surrogates_are_replaced_and_offsets_kept() {
        let cases: [(&str, Option<&str>); 8] = [
            (r#""a""#, None),
            (r#""\u00e9 \n \\ \"""#, None),
            (r#""\ud83d\ude00""#, None),
            (r#""\uD83D\uDE00 x""#, None),
            (r#""\ud83d""#, Some(r#""\ufffd""#)),
            (
                r#""\ude00 \ud83d\ude00 \ud83d x""#,
                Some(r#""\ufffd \ud83d\ude00 \ufffd x""#),
            ),
            (r#""\ud83d\ud83d\ude00""#, Some(r#""\ufffd\ud83d\ude00""#)),
            (r#""\\ud83d \\\ud83d""#, Some(r#""\\ud83d \\\ufffd""#)),
        ];
        for (line, want) in cases {
            let got = lone_surrogates_replaced(line.as_bytes());
            assert_eq!(got.as_deref(), want.map(str::as_bytes), "{line}");
            if let Some(got) = got {
                assert_eq!(got.len(), line.len());
                let text: String = serde_json::from_slice(&got).unwrap();
                assert!(text.contains('\u{fffd}'), "{text}");
            }
        }
        // A cut escape at the line's end is left to the parse to refuse.
        assert_eq!(lone_surrogates_replaced(br#""\ud8"#), None);
    }
}
