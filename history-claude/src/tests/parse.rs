//! The two parses of a line agree (real and hostile lines), the skim keeps what a whole decode
//! would, and a decode from a reader is the decode line by line.

use super::*;

/// What the field-by-field parse (the path every refusal comes from) makes of one line:
/// a row, `None` for another record type, `Err` for a refusal.
fn field_by_field(line: &[u8]) -> Result<Option<rows::Row>, ()> {
    let raw: RawRow<'_> = serde_json::from_slice(line).map_err(drop)?;
    let kind: std::borrow::Cow<'_, str> =
        serde_json::from_str(raw.kind.ok_or(())?.get()).map_err(drop)?;
    match Kind::parse(&kind) {
        None => Ok(None),
        Some(kind) => rows::check(kind, &raw).map(Some).map_err(drop),
    }
}

/// Every line of the real transcripts.
fn real_lines() -> Vec<Vec<u8>> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let files = notesoup_testkit::files_in(&dir, |p| p.extension().is_some_and(|x| x == "jsonl"));
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for (_, bytes) in &files {
        lines.extend(
            bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec),
        );
    }
    assert!(lines.len() > 100, "the real transcripts are read");
    lines
}

/// Lines aimed at the shapes only one parse reads, then every real line mutated many times.
fn hostile_lines(lines: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let aimed = [
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":5}}"#,
        r#"{"type":"assistant","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":"plain"}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":"a"}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":null}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s"}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":"a"},"message":{"role":"user","content":"b"}}"#,
        r#"{"type":"user","uuid":"u","uuid":"v","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":"a"}}"#,
        r#"{"type":"last-prompt","message":5}"#,
        r#"{"type":"last-prompt","message":{"role":"user","content":"a"},"message":1}"#,
        r#"{"type":null,"message":{"role":"user","content":"a"}}"#,
        r#"{"message":{"role":"user","content":"a"}}"#,
        r#"{"type":"system","subtype":"x","content":"a","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":"any shape"}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":{"x":1}}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":"\ud800"}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":null}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":5}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":true}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a\u0041\n"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"\udc00"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{}},{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":5}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"text":"a"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[5]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a","content":"b"}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"mcp_tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"}]}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"web_search_tool_result","tool_use_id":"t","content":{"type":"web_search_tool_result_error","error_code":"x"}}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"a","content":5}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}}"#,
        // A `text` every block's parse decodes, whatever the block's type.
        r#"{"type":"assistant","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"B","input":{},"text":"\ud800"}]}}"#,
        r#"{"type":"assistant","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t","text":5}]}}"#,
        r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"a\ud83d\ude00\/"},{"type":"tool_result","tool_use_id":"t","content":"\ud83d\ude00\n"}]}}"#,
    ];
    let mut cases: Vec<Vec<u8>> = aimed.iter().map(|l| l.as_bytes().to_vec()).collect();
    // Not UTF-8 inside a string the field-by-field parse skips.
    cases.push(b"{\"type\":\"last-prompt\",\"x\":\"\xff\"}".to_vec());
    let mut rng = notesoup_testkit::Rng::new(14);
    for _ in 0..notesoup_testkit::iterations(20) {
        for line in lines {
            cases.push(notesoup_testkit::mutate(&mut rng, line));
        }
    }
    cases
}

/// The one-pass parse only ever accepts what the field-by-field parse accepts, and makes
/// the same row of it: every line of the real transcripts, each mutated many times, and
/// edits aimed at the shapes only one of the two parses reads.
#[test]
fn the_one_pass_parse_agrees_with_the_field_by_field_parse() {
    let lines = real_lines();
    let mut fast_rows = 0;
    for line in &lines {
        // Every real line is taken by the one-pass parse (or it would gain nothing).
        match rows::fast(line) {
            Some(rows::Fast::Row(row)) => {
                assert_eq!(field_by_field(line), Ok(Some(row)));
                fast_rows += 1;
            }
            Some(rows::Fast::Other) => assert_eq!(field_by_field(line), Ok(None)),
            None => panic!(
                "a real line the one-pass parse leaves: {}",
                String::from_utf8_lossy(line)
            ),
        }
    }
    assert!(fast_rows > 50);
    for case in &hostile_lines(&lines) {
        let slow = field_by_field(case);
        match rows::fast(case) {
            Some(rows::Fast::Row(row)) => {
                assert_eq!(slow, Ok(Some(row)), "{}", String::from_utf8_lossy(case));
            }
            Some(rows::Fast::Other) => {
                assert_eq!(slow, Ok(None), "{}", String::from_utf8_lossy(case));
            }
            None => {}
        }
    }
}

/// What skimming `row` must make of it: history-core's placeholder bodies (the one rule a
/// decoder's placeholders are held to), the fingerprint of the whole bodies, and whether the
/// whole first text is blank.
fn skimmed_of(row: rows::Row) -> rows::Row {
    use notesoup_history_core::{Body, blank, placeholder};
    let elided = crate::elided::Elided {
        fingerprint: crate::elided::fingerprint_of(&row.events),
        blank: matches!(row.events.first(), Some((_, Body::Text { text })) if blank(text)),
    };
    let events = row
        .events
        .into_iter()
        .map(|(role, body)| (role, placeholder(body)))
        .collect();
    rows::Row {
        events,
        elided: Some(elided),
        ..row
    }
}

/// The skim (the first pass of a cold history read) takes exactly the lines the one-pass
/// parse takes, refuses or leaves to the field-by-field parse the rest, and of each row
/// makes what a structure-only state keeps of the whole row: the same structure and
/// boot, placeholder bodies, the whole bodies' fingerprint and blank flag. Every real
/// line, each mutated many times, the aimed lines, and lines whose texts are escaped,
/// joined from several blocks, blank in Unicode's sense or hold a boot block only once
/// decoded.
#[test]
fn the_skim_keeps_what_a_whole_decode_of_the_line_would_fingerprint() {
    let lines = real_lines();
    let mut cases = hostile_lines(&lines);
    let head = r#"{"type":"user","uuid":"u","parentUuid":null,"isSidechain":false,"sessionId":"s","message":"#;
    for message in [
        r#"{"role":"user","content":"a\nb \"q\" \\ \u00e9 \/"}"#,
        r#"{"role":"user","content":" \n\t\u00a0\u2003"}"#,
        r#"{"role":"user","content":"\u003cnotesoup-boot window=\"claude:s:3\">\nnotes\n\u003c/notesoup-boot>"}"#,
        r#"{"role":"user","content":[{"type":"text","text":"<notesoup-boot window=\"claude:s:2\">"},{"type":"text","text":"n\n</notesoup-boot>"}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"b"},{"type":"image","source":{}},{"type":"text","text":"c\u0041"}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":" "},{"type":"text","text":"\u00a0"}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t\u0031","content":[{"type":"text","text":""},{"type":"text","text":"x\ty"},{"type":"image"}],"is_error":true},{"type":"tool_result","tool_use_id":"t2","content":"plain"},{"type":"tool_result","tool_use_id":"t3","content":null},{"type":"tool_result","tool_use_id":"t4"}]}"#,
        r#"{"role":"user","content":[{"type":"mcp_tool_result","tool_use_id":"t","content":"m\n"},{"type":"web_fetch_tool_result","tool_use_id":"w","content":{"k":[1,"x"]}}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":null}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":null}]}]}"#,
        // Texts the line also writes before their own literal (the parse knows where each
        // literal is, the search takes the first place that holds the text), and texts
        // written with `\/`, which no span holds.
        r#"{"role":"user","content":"s"}"#,
        r#"{"role":"user","content":[{"type":"text","text":"u"},{"type":"tool_result","tool_use_id":"s","content":"s"}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a/b\nc d e f g h\/i"},{"type":"text","text":"x y z, then \/"}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":"say \"x\" \\ y\n\t\r\b\f"},{"type":"tool_result","tool_use_id":"t","content":"say \"x\" \\ y\n"}]}"#,
    ] {
        cases.push(format!("{head}{message}}}").into_bytes());
    }
    let ahead = r#"{"type":"assistant","uuid":"a","parentUuid":"u","isSidechain":false,"sessionId":"s","message":"#;
    for message in [
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"},{"type":"tool_use","id":"c\u0031","name":"B\u0061sh","input":{"command":"ls \"a\"","n":[1.5e3,-0,true,null]}},{"type":"text","text":"\ny"},{"type":"server_tool_use","id":"s","name":"web","input":"raw"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"B","input":{"a":1},"input":{"a":2}}]}"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"c","name":"B","input":"s"},{"type":"tool_use","id":"d","name":"B","input":"s"}]}"#,
    ] {
        cases.push(format!("{ahead}{message}}}").into_bytes());
    }
    let mut skimmed_rows = 0;
    for line in &lines {
        // Every real line is taken by the skim (or it would gain nothing).
        assert!(
            rows::skim(line, false, None, None).is_some(),
            "a real line the skim leaves: {}",
            String::from_utf8_lossy(line)
        );
    }
    for case in lines.iter().chain(&cases) {
        let shown = String::from_utf8_lossy(case);
        let whole = match rows::fast(case) {
            Some(rows::Fast::Row(row)) => Some(Some(row)),
            Some(rows::Fast::Other) => Some(None),
            None => None,
        };
        // Kept whole, the skim is the one-pass parse.
        let kept = match rows::skim(case, true, None, None) {
            Some(rows::Fast::Row(row)) => Some(Some(row)),
            Some(rows::Fast::Other) => Some(None),
            None => None,
        };
        assert_eq!(kept, whole, "{shown}");
        let mut spans = crate::spans::Found::default();
        let skim = match rows::skim(case, false, Some(&mut spans), None) {
            Some(rows::Fast::Row(row)) => Some(Some(row)),
            Some(rows::Fast::Other) => Some(None),
            None => None,
        };
        match (whole, skim) {
            (Some(Some(row)), Some(Some(skimmed))) => {
                assert_eq!(field_by_field(case), Ok(Some(row.clone())), "{shown}");
                // Picking, it notes exactly the events whose whole text (or input) is picked.
                let mut picked = Vec::new();
                let pick = |t: &str| t.contains('e');
                let picking = rows::skim(case, false, None, Some((&pick, &mut picked)));
                assert!(
                    matches!(picking, Some(rows::Fast::Row(r)) if r == skimmed),
                    "{shown}"
                );
                let expected: Vec<u32> = (0..)
                    .zip(&row.events)
                    .filter(|(_, (_, body))| match body {
                        notesoup_history_core::Body::Text { text }
                        | notesoup_history_core::Body::ToolResult { text, .. } => pick(text),
                        notesoup_history_core::Body::ToolCall { input, .. } => pick(input),
                    })
                    .map(|(k, _)| k)
                    .collect();
                assert_eq!(picked, expected, "{shown}");
                // Its spans are the ones found from the whole row.
                let mut whole_spans = crate::spans::Found::default();
                crate::spans::find(case, &row.events, &mut whole_spans);
                assert_eq!(spans, whole_spans, "{shown}");
                assert_eq!(skimmed, skimmed_of(row), "{shown}");
                skimmed_rows += 1;
            }
            (Some(None), Some(None)) => assert_eq!(field_by_field(case), Ok(None), "{shown}"),
            (None, None) => {}
            (whole, skim) => panic!("{shown}: the one-pass parse {whole:?}, the skim {skim:?}"),
        }
    }
    assert!(skimmed_rows > 200, "{skimmed_rows}");
}

/// The transcript [`Decoder::line`] makes of `text` line by line (no batches): what
/// [`decode_from`] must make of it, however its reader hands the bytes over.
fn line_by_line(text: &[u8]) -> Result<Transcript, DecodeError> {
    let mut decoder = Decoder::new(Options::default());
    let mut rest = text;
    while let Some(end) = rest.iter().position(|&b| b == b'\n') {
        decoder.line(&rest[..end], true)?;
        rest = &rest[end + 1..];
    }
    if !rest.is_empty() {
        decoder.line(rest, false)?;
    }
    decoder.finish(&Head::Leaf)
}

#[test]
fn a_decode_from_a_reader_is_the_decode_line_by_line_and_a_failed_read_is_refused() {
    // Past a batch of lines (4 × 256) and of bytes (4 MiB), and a last line unfinished.
    let mut rows = Vec::new();
    let mut parent: Option<String> = None;
    for n in 0..2500 {
        let uuid = format!("u{n}");
        let kind = if n % 2 == 0 { "user" } else { "assistant" };
        let text = if n % 500 == 7 {
            "x".repeat(3 << 20)
        } else {
            format!("turn {n}")
        };
        rows.push(row(kind, &uuid, parent.as_deref(), &text));
        parent = Some(uuid);
    }
    let whole = jsonl(&rows);
    let fragment = row("user", "late", parent.as_deref(), "a write in progress").to_string();
    for text in [
        whole.clone(),
        format!("{whole}{fragment}"),
        format!("{whole}{}", &fragment[..9]),
    ] {
        let expected = line_by_line(text.as_bytes()).unwrap();
        assert_eq!(
            decode(text.as_bytes(), &Options::default(), &Head::Leaf).unwrap(),
            expected
        );
        // Through a reader that hands over a few bytes at a time.
        let small = std::io::BufReader::with_capacity(5, text.as_bytes());
        assert_eq!(
            decode_from(small, &Options::default(), &Head::Leaf).unwrap(),
            expected
        );
    }
    // A read that fails: refused with the line being read.
    let bytes = whole.as_bytes();
    let cut = bytes.len() / 2;
    let failing = std::io::BufReader::new(notesoup_testkit::FailsAfter {
        bytes: &bytes[..cut],
    });
    let err = decode_from(failing, &Options::default(), &Head::Leaf).unwrap_err();
    let line = memchr::memchr_iter(b'\n', &bytes[..cut]).count() + 1;
    assert_eq!(
        err,
        DecodeError::Read {
            line,
            message: "the disk went away".into()
        }
    );
    assert_eq!(err.code(), "io_error");
}
