//! The tools against built transcripts: paging covers every event once, reads reassemble
//! long text exactly through offsets, every answer fits the budget, notices come first.

use rstest::rstest;

use super::*;
use notesoup_window::Host;

fn session() -> SessionRef {
    SessionRef {
        harness: Host::Claude,
        id: "s1".into(),
    }
}

fn text_event(seq: Seq, role: Role, window: Window, text: &str) -> Event {
    Event {
        seq,
        role,
        window,
        body: Body::Text { text: text.into() },
        record: format!("r{seq}").into(),
        timestamp: Some("2026-12-02T10:00:00Z".into()),
    }
}

fn history(events: Vec<Event>, missing: &[&str]) -> History {
    History::new(Transcript {
        session: session(),
        events,
        missing: missing.iter().map(|m| (*m).to_owned()).collect(),
        head_window: Window::Numbered(0),
    })
    .unwrap()
}

/// `n` user/assistant events in window `seq / per_window`, each `size` bytes of text with
/// a multi-byte char mixed in.
fn many(n: u64, size: usize, per_window: u64) -> History {
    let events = (1..=n)
        .map(|seq| {
            let role = if seq % 2 == 0 {
                Role::Assistant
            } else {
                Role::User
            };
            let mut text = format!("event {seq} é ");
            while text.len() < size {
                text.push_str("lorem ipsum é dolor ");
            }
            text_event(seq, role, Window::Numbered(seq / per_window), &text)
        })
        .collect();
    history(events, &[])
}

#[test]
fn the_writer_never_exceeds_its_limit_and_keeps_the_footer_whole() {
    let mut writer = AnswerWriter::new(100, 20);
    assert!(writer.push(&"a".repeat(70)));
    assert!(!writer.push(&"b".repeat(11)), "80 is the body's limit");
    assert_eq!(
        writer.push_prefix("ééééééé"),
        10,
        "5 two-byte chars fit in 10 bytes"
    );
    let text = writer.finish(&"f".repeat(20));
    assert_eq!(text.as_str().len(), 100);
    assert!(text.as_str().ends_with(&"f".repeat(20)));
}

#[rstest]
#[case::newest(Order::Newest)]
#[case::oldest(Order::Oldest)]
fn paging_with_the_cursor_shows_every_listed_event_exactly_once(#[case] order: Order) {
    let h = many(700, 300, 100);
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = h
            .list(&ListArgs {
                cursor: cursor.clone(),
                limit: Some(MAX_LIMIT),
                order: Some(order),
                ..ListArgs::default()
            })
            .unwrap();
        assert!(page.text.as_str().len() <= ANSWER_LIMIT);
        assert_eq!(page.matched, 700 - seen.len(), "matches from this page on");
        seen.extend(page.shown);
        pages += 1;
        match page.next_cursor {
            Some(next) => {
                assert!(
                    page.text.as_str().contains(&next),
                    "footer names the cursor"
                );
                cursor = Some(next);
            }
            None => break,
        }
    }
    assert!(pages > 1, "the budget split the list");
    let mut expected: Vec<Seq> = (1..=700).collect();
    if order == Order::Newest {
        expected.reverse();
    }
    assert_eq!(seen, expected);
}

#[test]
fn a_long_event_is_read_whole_through_its_offsets() {
    let h = many(3, 100_000, 10);
    let Body::Text { text: full } = &h.event(2).unwrap().body else {
        panic!()
    };
    let mut got = String::new();
    let mut args = ReadArgs {
        seq: Some(2),
        ..ReadArgs::default()
    };
    for _ in 0..10 {
        let answer = h.read(&args).unwrap();
        assert!(answer.text.as_str().len() <= ANSWER_LIMIT);
        let text = answer.text.as_str();
        let body_start = text.find('\n').unwrap() + 1;
        let body = match &answer.next_read {
            Some(_) => &text[body_start..text.rfind("\n[cut at the 32 KiB budget").unwrap()],
            None => &text[body_start..text.len() - 1],
        };
        got.push_str(body);
        match answer.next_read {
            Some(next) => args = next,
            None => break,
        }
    }
    assert_eq!(&got, full);
}

#[test]
fn a_range_continues_from_the_event_the_budget_cut() {
    let h = many(40, 3000, 100);
    let answer = h
        .read(&ReadArgs {
            from: Some(1),
            to: Some(40),
            ..ReadArgs::default()
        })
        .unwrap();
    assert!(answer.text.as_str().len() <= ANSWER_LIMIT);
    let next = answer.next_read.unwrap();
    let cut = *answer.shown.last().unwrap();
    assert_eq!((next.from, next.to), (Some(cut), Some(40)));
    assert!(next.offset.is_some_and(|o| o > 0));
}

/// `from` without `to` reads on from it, as far as the answer holds, and its footer
/// continues to the last event (walk7 finding 8: it read the one event and said nothing of
/// the rest); past the last event it is a seq the history lacks.
#[test]
fn from_alone_reads_on_to_the_last_event() {
    let h = many(40, 3000, 100);
    let answer = h
        .read(&ReadArgs {
            from: Some(3),
            ..ReadArgs::default()
        })
        .unwrap();
    assert!(answer.text.as_str().len() <= ANSWER_LIMIT);
    assert_eq!(answer.shown.first(), Some(&3));
    assert!(answer.shown.len() > 1, "{:?}", answer.shown);
    let next = answer.next_read.unwrap();
    assert_eq!(next.to, Some(40));
    let short = many(5, 100, 100)
        .read(&ReadArgs {
            from: Some(2),
            ..ReadArgs::default()
        })
        .unwrap();
    assert_eq!(short.shown, [2, 3, 4, 5]);
    assert!(short.next_read.is_none());
    let past = many(5, 100, 100).read(&ReadArgs {
        from: Some(9),
        ..ReadArgs::default()
    });
    assert!(
        matches!(past, Err(QueryError::SeqNotFound { seq: 9, .. })),
        "{past:?}"
    );
}

#[test]
fn search_is_literal_and_shows_the_hit_in_the_folded_line() {
    let mut text = "x".repeat(500);
    text.push_str("needle (a.b)* here");
    let h = history(
        vec![
            text_event(1, Role::User, Window::Numbered(0), "no match (a.b)"),
            text_event(2, Role::Assistant, Window::Numbered(0), &text),
        ],
        &[],
    );
    let page = h
        .list(&ListArgs {
            query: Some("(a.b)*".into()),
            ..ListArgs::default()
        })
        .unwrap();
    assert_eq!(page.shown, [2]);
    assert!(page.text.as_str().contains("needle (a.b)* here"));
    let none = h
        .list(&ListArgs {
            query: Some("absent".into()),
            ..ListArgs::default()
        })
        .unwrap();
    assert!(none.shown.is_empty());
    assert!(none.text.as_str().contains("no event matches"));
}

#[test]
fn empty_envelopes_are_skipped_by_lists_and_explained_by_reads() {
    let h = history(
        vec![
            text_event(1, Role::User, Window::Numbered(0), "hello"),
            text_event(2, Role::Assistant, Window::Numbered(0), ""),
        ],
        &[],
    );
    let page = h
        .list(&ListArgs {
            roles: Some(vec![Role::Assistant, Role::User]),
            ..ListArgs::default()
        })
        .unwrap();
    assert_eq!(page.shown, [1]);
    let read = h
        .read(&ReadArgs {
            seq: Some(2),
            ..ReadArgs::default()
        })
        .unwrap();
    assert!(read.text.as_str().contains("no visible text was recorded"));
}

#[test]
fn the_notice_comes_first_is_bounded_and_is_never_searched() {
    let missing: Vec<String> = (0..200).map(|i| format!("missing-uuid-{i:04}")).collect();
    let refs: Vec<&str> = missing.iter().map(String::as_str).collect();
    let h = history(
        vec![text_event(1, Role::User, Window::Numbered(0), "hi")],
        &refs,
    );
    let notice = h.notice();
    assert!(notice.len() <= NOTICE_LIMIT, "{}", notice.len());
    assert!(notice.contains("missing-uuid-0000") && notice.contains("more"));
    let page = h
        .list(&ListArgs {
            query: Some("missing-uuid".into()),
            ..ListArgs::default()
        })
        .unwrap();
    assert!(page.shown.is_empty(), "the notice is not an event");
    assert!(
        page.text
            .as_str()
            .starts_with("[notice: ancestry is incomplete")
    );
    let refused = h.refusal("history_read", &h.read(&ReadArgs::default()).unwrap_err());
    assert!(
        refused
            .as_str()
            .starts_with("[notice: ancestry is incomplete")
    );
    assert!(refused.as_str().contains("bad_selector"));
}

#[test]
fn windows_are_presented_by_ordinal_then_unknown_segments() {
    let unknown = Window::Unknown {
        missing: "gone".into(),
    };
    let h = history(
        vec![
            text_event(1, Role::User, unknown.clone(), "orphan"),
            text_event(
                2,
                Role::User,
                Window::Numbered(3),
                "newer window written first",
            ),
            text_event(3, Role::User, Window::Numbered(1), "older window"),
        ],
        &["gone"],
    );
    assert_eq!(
        h.windows(),
        [&Window::Numbered(1), &Window::Numbered(3), &unknown]
    );
    let page = h
        .list(&ListArgs {
            order: Some(Order::Oldest),
            window: Some("claude:s1:3".into()),
            ..ListArgs::default()
        })
        .unwrap();
    assert_eq!(page.shown, [2]);
    let err = h
        .list(&ListArgs {
            window: Some("7".into()),
            ..ListArgs::default()
        })
        .unwrap_err();
    assert_eq!(err.code(), "unknown_window");
}

/// The presentation order and each event's position in it, made in one pass when the events
/// are already in that order and by a sort otherwise, are the order a sort by (numbered
/// window's ordinal, else after them by the unknown segment's first seq; then seq) gives.
#[rstest]
#[case::in_order(&[Some(0), Some(0), Some(1), Some(2), None, None])]
#[case::a_later_window_first(&[Some(3), Some(1), Some(1), Some(3)])]
#[case::unknown_first(&[None, Some(0), Some(1)])]
#[case::two_unknowns_interleaved(&[Some(0), Some(2), None, Some(2), Some(1)])]
fn the_presentation_order_is_the_sorted_one(#[case] windows: &[Option<u64>]) {
    let window = |i: usize, w: Option<u64>| match w {
        Some(n) => Window::Numbered(n),
        None => Window::Unknown {
            missing: format!("gone{}", i % 2),
        },
    };
    let events: Vec<Event> = windows
        .iter()
        .enumerate()
        .map(|(i, &w)| text_event(i as u64 + 1, Role::User, window(i, w), "x"))
        .collect();
    let mut first_seq = std::collections::HashMap::new();
    for event in &events {
        if let Window::Unknown { missing } = &event.window {
            first_seq.entry(missing.clone()).or_insert(event.seq);
        }
    }
    let mut expected: Vec<usize> = (0..events.len()).collect();
    expected.sort_by_key(|&i| match &events[i].window {
        Window::Numbered(n) => (0, *n, events[i].seq),
        Window::Unknown { missing } => (1, first_seq[missing], events[i].seq),
    });
    let h = history(events, &["gone0", "gone1"]);
    let order: Vec<usize> = (0..expected.len()).map(|pos| h.at_position(pos)).collect();
    assert_eq!(order, expected);
    for (pos, &index) in expected.iter().enumerate() {
        assert_eq!(h.position(index), pos, "the position of event {index}");
    }
}

#[rstest]
#[case::zero_limit(ListArgs { limit: Some(0), ..ListArgs::default() }, "bad_limit")]
#[case::empty_query(ListArgs { query: Some(String::new()), ..ListArgs::default() }, "empty_query")]
#[case::bad_cursor(ListArgs { cursor: Some("s999".into()), ..ListArgs::default() }, "bad_cursor")]
fn list_errors(#[case] args: ListArgs, #[case] code: &str) {
    assert_eq!(many(3, 10, 10).list(&args).unwrap_err().code(), code);
}

#[rstest]
#[case::none(ReadArgs::default(), "bad_selector")]
#[case::both(ReadArgs { seq: Some(1), from: Some(1), ..ReadArgs::default() }, "bad_selector")]
#[case::backwards(ReadArgs { from: Some(3), to: Some(1), ..ReadArgs::default() }, "bad_range")]
#[case::absent(ReadArgs { seq: Some(99), ..ReadArgs::default() }, "seq_not_found")]
#[case::empty_range(ReadArgs { from: Some(50), to: Some(60), ..ReadArgs::default() }, "empty_range")]
#[case::offset(ReadArgs { seq: Some(1), offset: Some(1000), ..ReadArgs::default() }, "bad_offset")]
fn read_errors(#[case] args: ReadArgs, #[case] code: &str) {
    assert_eq!(many(3, 10, 10).read(&args).unwrap_err().code(), code);
}

#[test]
fn seqs_must_ascend() {
    let err = History::new(Transcript {
        session: session(),
        events: vec![
            text_event(2, Role::User, Window::Numbered(0), "a"),
            text_event(2, Role::User, Window::Numbered(0), "b"),
        ],
        missing: vec![],
        head_window: Window::Numbered(0),
    })
    .unwrap_err();
    assert_eq!(
        err,
        HistoryError::SeqOrder {
            seq: 2,
            previous: 2
        }
    );
}

#[test]
fn results_pair_with_the_latest_open_call_of_their_id_as_a_stack() {
    let event = |seq: Seq, body: Body| Event {
        seq,
        role: Role::Tool,
        window: Window::Numbered(0),
        body,
        record: format!("r{seq}").into(),
        timestamp: None,
    };
    let call = |seq, id: &str| {
        event(
            seq,
            Body::ToolCall {
                id: id.into(),
                name: "Bash".into(),
                input: "{}".into(),
            },
        )
    };
    let result = |seq, id: &str| {
        event(
            seq,
            Body::ToolResult {
                id: id.into(),
                text: "out".into(),
                is_error: false,
            },
        )
    };
    let h = history(
        vec![
            call(1, "x"),
            call(2, "y"),
            call(3, "x"),
            result(4, "x"),
            result(5, "x"),
            result(6, "x"),
            result(7, "y"),
            call(8, "x"),
        ],
        &[],
    );
    let partner = |seq| h.partner(seq).map(|e| e.seq);
    assert_eq!(partner(4), Some(3), "the latest open call of x");
    assert_eq!(partner(5), Some(1), "then the one below it");
    assert_eq!(partner(6), None, "no open call of x is left");
    assert_eq!(partner(7), Some(2));
    assert_eq!(partner(8), None, "pending");
    assert_eq!(partner(1), Some(5));
}

/// The running history call is in the transcript it searches (the engine writes the call's
/// row before answering it): asked by that call, the list leaves it out, so a text found
/// nowhere else is "no match", not the question itself. Another pending call, or the same
/// id once answered, is searched as ever.
#[test]
fn a_list_asked_by_a_pending_call_leaves_that_call_out() {
    let call = |seq: Seq, id: &str, query: &str| Event {
        seq,
        role: Role::Tool,
        window: Window::Numbered(0),
        body: Body::ToolCall {
            id: id.into(),
            name: "mcp__notesoup__history_list".into(),
            input: format!("{{\"query\":\"{query}\"}}"),
        },
        record: format!("r{seq}").into(),
        timestamp: None,
    };
    let h = history(
        vec![
            text_event(1, Role::User, Window::Numbered(0), "hello"),
            call(2, "toolu_old", "zzq-other"),
            call(3, "toolu_asking", "zzq"),
        ],
        &[],
    );
    let args = ListArgs {
        query: Some("zzq".into()),
        ..ListArgs::default()
    };
    assert_eq!(h.list(&args).unwrap().shown, [3, 2]);
    let asked = h.list_asked_by(&args, "toolu_asking").unwrap();
    assert_eq!(asked.shown, [2], "{}", asked.text.as_str());
    assert_eq!(asked.matched, 1);
    // Without a query the asking call is left out of the page too.
    let page = h
        .list_asked_by(&ListArgs::default(), "toolu_asking")
        .unwrap();
    assert_eq!(page.shown, [2, 1]);
    // An id this history does not hold pending leaves everything in.
    assert_eq!(h.list_asked_by(&args, "toolu_none").unwrap().shown, [3, 2]);
}

/// A call with an error result, a pending call, a result of an unknown call and a text
/// holding `result`, for [`a_search_matches_what_was_recorded_never_the_marks_around_it`].
fn recorded_and_marked() -> History {
    let event = |seq: Seq, role: Role, body: Body| Event {
        seq,
        role,
        window: Window::Numbered(0),
        body,
        record: format!("r{seq}").into(),
        timestamp: None,
    };
    let call = |seq, id: &str, input: &str| {
        event(
            seq,
            Role::Tool,
            Body::ToolCall {
                id: id.into(),
                name: "Bash".into(),
                input: input.into(),
            },
        )
    };
    let result = |seq, id: &str, text: &str, is_error| {
        event(
            seq,
            Role::Tool,
            Body::ToolResult {
                id: id.into(),
                text: text.into(),
                is_error,
            },
        )
    };
    history(
        vec![
            call(1, "x", r#"{"command":"ls"}"#),
            result(2, "x", "one.txt", true),
            call(3, "y", r#"{"command":"sleep 9"}"#),
            result(4, "z", "orphan output", false),
            event(
                5,
                Role::Assistant,
                Body::Text {
                    text: "the result is fine".into(),
                },
            ),
        ],
        &[],
    )
}

/// A search matches what the harness recorded (a call's name, its input, its result's text,
/// a text), never the marks a document adds around them (`--- result #N:`, `(error)`,
/// `--- pending: …`, `(result of an unknown call)`), nor a match that runs into one: a
/// search for `result` is not every tool call, as `rg result` is not every line.
#[test]
fn a_search_matches_what_was_recorded_never_the_marks_around_it() {
    let h = recorded_and_marked();
    let listed = |query: &str| {
        h.list(&ListArgs {
            query: Some(query.into()),
            ..ListArgs::default()
        })
        .unwrap()
        .shown
    };
    let people = |query: &str, ignore_case: bool| {
        let needle = Needle::new(query, ignore_case).unwrap();
        let page = h
            .documents(&DocQuery {
                needle: Some(&needle),
                ..DocQuery::default()
            })
            .unwrap();
        page.documents.iter().map(|d| d.seq).collect::<Vec<_>>()
    };
    for mark in [
        "---",
        "result #",
        "#2",
        "(error)",
        "pending",
        "no result was recorded",
        "unknown call",
        "}\n---",
        "(error):\none",
    ] {
        assert_eq!(listed(mark), Vec::<Seq>::new(), "list: {mark:?}");
        assert_eq!(
            people(mark, false),
            Vec::<Seq>::new(),
            "documents: {mark:?}"
        );
        assert_eq!(
            people(mark, true),
            Vec::<Seq>::new(),
            "documents -i: {mark:?}"
        );
    }
    // What was recorded is found, the space between a call's name and its input too.
    for (query, seqs) in [
        ("result", vec![5]),
        ("RESULT", vec![]),
        (r#"Bash {"command":"ls"#, vec![1]),
        ("one.txt", vec![1]),
        ("orphan", vec![4]),
        ("sleep 9", vec![3]),
    ] {
        let mut newest_first = seqs.clone();
        newest_first.reverse();
        assert_eq!(listed(query), newest_first, "list: {query:?}");
        assert_eq!(people(query, false), seqs, "documents: {query:?}");
    }
    assert_eq!(people("RESULT", true), vec![5]);
}

/// A front end's lead opens every answer of a led history (before the history's own
/// notice) and the answer still fits the budget with its footer whole: a full list page,
/// a cut read and a refusal, with a lead of the longest kind (and a longer one is cut to
/// it).
#[test]
fn a_lead_comes_first_and_the_answer_stays_within_the_budget() {
    let h = history(
        (1..=700)
            .map(|seq| text_event(seq, Role::User, Window::Numbered(0), &"x".repeat(300)))
            .collect(),
        &["gone"],
    );
    let lead = format!("[notice: {}]\n", "v".repeat(crate::LEAD_LIMIT));
    let kept = &lead[..crate::LEAD_LIMIT];
    let opened = h.led(&lead);
    let page = opened
        .list(&ListArgs {
            limit: Some(MAX_LIMIT),
            ..ListArgs::default()
        })
        .unwrap();
    let text = page.text.as_str();
    assert!(text.len() <= ANSWER_LIMIT, "{}", text.len());
    assert!(text.starts_with(&format!("{kept}{}", h.notice())));
    assert!(
        text.contains(&page.next_cursor.unwrap()),
        "the footer is whole"
    );
    let read = opened
        .read(&ReadArgs {
            from: Some(1),
            to: Some(700),
            ..ReadArgs::default()
        })
        .unwrap();
    assert!(read.text.as_str().len() <= ANSWER_LIMIT);
    assert!(read.text.as_str().starts_with(kept));
    assert!(read.text.as_str().ends_with("on the same session]\n"));
    let refusal = opened.refusal("history_read", &QueryError::Selector);
    assert!(refusal.as_str().starts_with(kept));
    // Without a lead, the same answers as the history's own.
    assert_eq!(
        h.led("").list(&ListArgs::default()).unwrap(),
        h.list(&ListArgs::default()).unwrap()
    );
}
