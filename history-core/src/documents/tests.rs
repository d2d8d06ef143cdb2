//! Documents for people: the tools' rules (listed events, default roles, what a search
//! looks in), conversation order, paging by `before`, case-insensitive needles.

use rstest::rstest;

use super::*;
use crate::{Event, SessionRef, Transcript, Window};
use notesoup_window::Host;

fn event(seq: Seq, role: Role, window: u64, body: Body) -> Event {
    Event {
        seq,
        role,
        window: Window::Numbered(window),
        body,
        record: format!("r{seq}").into(),
        timestamp: Some(format!("2026-12-02T10:00:{seq:02}+01:00").into()),
    }
}

fn text(seq: Seq, role: Role, window: u64, text: &str) -> Event {
    event(seq, role, window, Body::Text { text: text.into() })
}

/// Window 0: a prompt, an answer, a tool call and its result, an empty envelope, an
/// attachment; window 1: a summary and a prompt.
fn sample() -> History {
    History::new(Transcript {
        session: SessionRef {
            harness: Host::Claude,
            id: "s1".into(),
        },
        events: vec![
            text(1, Role::User, 0, "Fix the Parser please"),
            text(2, Role::Assistant, 0, "Looking at parser.rs"),
            event(
                3,
                Role::Tool,
                0,
                Body::ToolCall {
                    id: "t1".into(),
                    name: "Bash".into(),
                    input: r#"{"command":"cargo test"}"#.into(),
                },
            ),
            event(
                4,
                Role::Tool,
                0,
                Body::ToolResult {
                    id: "t1".into(),
                    text: "test result: FAILED".into(),
                    is_error: true,
                },
            ),
            text(5, Role::Assistant, 0, "   "),
            text(6, Role::Attachment, 0, "parser context"),
            text(7, Role::Summary, 1, "summary of window 0"),
            text(8, Role::User, 1, "now the lexer"),
        ],
        missing: Vec::new(),
        head_window: Window::Numbered(1),
    })
    .unwrap()
}

fn seqs(page: &DocPage) -> Vec<Seq> {
    page.documents.iter().map(|d| d.seq).collect()
}

#[test]
fn every_listed_document_in_conversation_order_with_its_tool_use_and_time() {
    let page = sample().documents(&DocQuery::default()).unwrap();
    // The result (4) is shown with its call, the blank envelope (5) and the attachment
    // (6, not a default role) are not listed.
    assert_eq!(seqs(&page), [1, 2, 3, 7, 8]);
    assert_eq!((page.matched, page.before), (5, None));
    let call = &page.documents[2];
    assert_eq!(call.window, "claude:s1:0");
    assert_eq!(
        call.time,
        notesoup_window::parse_moment("2026-12-02T09:00:03Z")
    );
    assert_eq!(
        call.tool,
        Some(ToolUse {
            name: Some("Bash".into()),
            input: Some(r#"{"command":"cargo test"}"#.into()),
            result: Some(ToolResult {
                seq: 4,
                text: "test result: FAILED".into(),
                is_error: true,
            }),
        })
    );
    assert_eq!(page.documents[4].window, "claude:s1:1");
}

#[test]
fn pages_end_before_a_seq_and_name_the_page_before() {
    let h = sample();
    let last = h
        .documents(&DocQuery {
            limit: Some(2),
            ..DocQuery::default()
        })
        .unwrap();
    assert_eq!(
        (seqs(&last), last.matched, last.before),
        (vec![7, 8], 5, Some(7))
    );
    let earlier = h
        .documents(&DocQuery {
            limit: Some(2),
            before: last.before,
            ..DocQuery::default()
        })
        .unwrap();
    assert_eq!((seqs(&earlier), earlier.before), (vec![2, 3], Some(2)));
    let first = h
        .documents(&DocQuery {
            limit: Some(2),
            before: earlier.before,
            ..DocQuery::default()
        })
        .unwrap();
    assert_eq!((seqs(&first), first.before), (vec![1], None));
}

/// A stream takes what a page takes, decoding each document as it is handed on: forward in
/// conversation order, newest first from the back, with the page's count and cursor.
#[rstest]
#[case(None, None, None)]
#[case(Some(2), None, None)]
#[case(Some(2), Some(7), None)]
#[case(None, None, Some("1"))]
fn a_stream_takes_what_a_page_takes(
    #[case] limit: Option<usize>,
    #[case] before: Option<Seq>,
    #[case] window: Option<&str>,
) {
    let h = sample();
    let query = DocQuery {
        window,
        before,
        limit,
        ..DocQuery::default()
    };
    let page = h.documents(&query).unwrap();
    let stream = h.document_stream(&query).unwrap();
    assert_eq!(
        (stream.matched(), stream.before()),
        (page.matched, page.before)
    );
    assert_eq!(stream.len(), page.documents.len());
    let forward: Vec<Document> = stream.map(Result::unwrap).collect();
    assert_eq!(forward, page.documents);
    let mut backward: Vec<Document> = h
        .document_stream(&query)
        .unwrap()
        .rev()
        .map(Result::unwrap)
        .collect();
    backward.reverse();
    assert_eq!(backward, page.documents);
}

#[rstest]
#[case("parser", false, &[2])]
#[case("parser", true, &[1, 2])]
#[case("FAILED", false, &[3])] // a result is searched with its call
#[case("cargo test", false, &[3])] // and the call's input
#[case("context", false, &[])] // attachments are not a default role
#[case("LEXER", true, &[8])]
fn a_needle_finds_what_the_tools_search(
    #[case] text: &str,
    #[case] ignore_case: bool,
    #[case] want: &[Seq],
) {
    let needle = Needle::new(text, ignore_case).unwrap();
    let page = sample()
        .documents(&DocQuery {
            needle: Some(&needle),
            ..DocQuery::default()
        })
        .unwrap();
    assert_eq!(seqs(&page), want);
    assert_eq!(page.matched, want.len());
}

#[test]
fn roles_and_windows_filter_and_an_unknown_window_or_seq_is_refused() {
    let h = sample();
    let attachments = h
        .documents(&DocQuery {
            roles: Some(&[Role::Attachment]),
            ..DocQuery::default()
        })
        .unwrap();
    assert_eq!(seqs(&attachments), [6]);
    let window = h
        .documents(&DocQuery {
            window: Some("1"),
            ..DocQuery::default()
        })
        .unwrap();
    assert_eq!(seqs(&window), [7, 8]);
    assert!(matches!(
        h.documents(&DocQuery {
            window: Some("9"),
            ..DocQuery::default()
        }),
        Err(QueryError::Window { .. })
    ));
    assert!(matches!(
        h.documents(&DocQuery {
            before: Some(99),
            ..DocQuery::default()
        }),
        Err(QueryError::Cursor { .. })
    ));
}

#[rstest]
#[case("ß", true, "STRASSE straße", vec![12..14])]
#[case("é", true, "É é", vec![0..2, 3..5])]
#[case("a.b", false, "axb a.b", vec![4..7])] // literal, never a pattern
#[case("a.b", true, "axb A.B", vec![4..7])]
fn needles_match_literally_on_char_boundaries(
    #[case] needle: &str,
    #[case] ignore_case: bool,
    #[case] hay: &str,
    #[case] want: Vec<Range<usize>>,
) {
    assert_eq!(
        Needle::new(needle, ignore_case).unwrap().find_all(hay),
        want
    );
}

#[test]
fn one_whole_document_by_seq_a_result_shows_its_call() {
    let h = sample();
    assert_eq!(h.document_of_seq(4).unwrap().seq, 3);
    assert_eq!(h.document_of_seq(5).unwrap().text, "   ");
    assert!(matches!(
        h.document_of_seq(99),
        Err(QueryError::SeqNotFound {
            seq: 99,
            first: 1,
            last: 8
        })
    ));
}

/// A long needle whose letters each have several cases still ignores case (the engine's
/// default size would refuse it, and the needle would then match with case).
#[test]
fn a_long_needle_still_ignores_case() {
    let text = "\u{3b1}\u{3b2}".repeat(32_000);
    let needle = Needle::new(&text, true).unwrap();
    assert!(needle.ignores_case());
}
