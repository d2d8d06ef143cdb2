//! A document's fixed parts tested in place agree with the text formatted as before and
//! searched outside its marks, for generated histories and queries at every join of their
//! pieces (the marks, the seq's digits, the error flag, names and inputs); and a list over
//! left-out bodies, which visits only the documents that may hold its literal, answers as
//! the whole history does.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Arc;

use super::*;
use crate::{BodySource, Event, ListArgs, Order, Role, Seq, SessionRef, Transcript, Window};
use notesoup_window::Host;

/// A small deterministic generator (no dependency: the cases only need variety).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[usize::try_from(self.below(from.len() as u64)).unwrap()]
    }
}

/// Words the bodies are made of: the fixed parts' own marks among them, digits, a space
/// and multi-byte chars, so that matches cross every kind of join.
const WORDS: [&str; 16] = [
    "result #",
    " (error)",
    "--- ",
    "pending",
    "call",
    "12",
    "7",
    " ",
    ":",
    "é",
    "zebra",
    "needle",
    "{\"command\":\"ls\"}",
    "Bash",
    "(",
    ")",
];
const NAMES: [&str; 6] = ["Bash", "Read", "mcp__x__t2", "a b", "h", "Write7"];

fn words(rng: &mut Rng, most: u64) -> String {
    let mut out = String::new();
    for _ in 0..rng.below(most + 1) {
        out.push_str(rng.pick(&WORDS));
    }
    out
}

/// A whole transcript of `n` entries: texts (some blank), calls (some pending, some with
/// two results of one id), results (some of unknown calls, some errors), in four windows.
fn generated(seed: u64, n: usize) -> Transcript {
    let mut rng = Rng(seed);
    let mut events = Vec::new();
    let mut seq: Seq = 0;
    let mut open: Vec<String> = Vec::new();
    let window = |rng: &mut Rng| match rng.below(5) {
        4 => Window::Unknown {
            missing: "m1".into(),
        },
        w => Window::Numbered(w),
    };
    for i in 0..n {
        seq += 1 + rng.below(3) * rng.below(400);
        let (role, body) = match rng.below(5) {
            0 | 1 => (
                if rng.below(2) == 0 {
                    Role::User
                } else {
                    Role::Assistant
                },
                Body::Text {
                    text: words(&mut rng, 6),
                },
            ),
            2 | 3 => {
                let id = format!("t{}", rng.below(8));
                open.push(id.clone());
                let name = rng.pick(&NAMES).to_owned();
                (
                    Role::Tool,
                    Body::ToolCall {
                        id,
                        name,
                        input: words(&mut rng, 4),
                    },
                )
            }
            _ => {
                let id = if rng.below(4) > 0 && !open.is_empty() {
                    open.remove(usize::try_from(rng.below(open.len() as u64)).unwrap())
                } else {
                    format!("orphan{i}")
                };
                (
                    Role::Tool,
                    Body::ToolResult {
                        id,
                        text: words(&mut rng, 5),
                        is_error: rng.below(3) == 0,
                    },
                )
            }
        };
        events.push(Event {
            seq,
            role,
            window: window(&mut rng),
            body,
            record: format!("r{i}").into(),
            timestamp: Some(format!("2026-12-05T10:{:02}:00Z", i % 60).into()),
        });
    }
    Transcript {
        session: SessionRef {
            harness: Host::Claude,
            id: "s1".into(),
        },
        events,
        missing: vec![],
        head_window: Window::Numbered(0),
    }
}

/// The whole bodies, and what they hold: every elided body that holds a query is named
/// (`Surely`), with some that do not (`Maybe`), as a raw search of the lines would.
struct Whole(BTreeMap<Seq, Body>);

impl BodySource for Whole {
    fn body(&self, seq: Seq) -> Result<Body, String> {
        self.0.get(&seq).cloned().ok_or_else(|| format!("no {seq}"))
    }

    fn may_contain(&self, query: &str) -> Option<Vec<(Seq, Contains)>> {
        if query == "zebra" {
            // Any body may: the source cannot tell.
            return None;
        }
        Some(
            self.0
                .iter()
                .filter_map(|(&seq, body)| {
                    let text = match body {
                        Body::Text { text } | Body::ToolResult { text, .. } => text,
                        Body::ToolCall { input, .. } => input,
                    };
                    if text.contains(query) {
                        Some((seq, Contains::Surely))
                    } else {
                        (seq % 7 == 0).then_some((seq, Contains::Maybe))
                    }
                })
                .collect(),
        )
    }
}

/// A source that names the bodies that may hold a literal newest first: a list must not
/// count on their order.
struct NewestFirst(Whole);

impl BodySource for NewestFirst {
    fn body(&self, seq: Seq) -> Result<Body, String> {
        self.0.body(seq)
    }

    fn may_contain(&self, query: &str) -> Option<Vec<(Seq, Contains)>> {
        let mut seqs = self.0.may_contain(query)?;
        seqs.reverse();
        Some(seqs)
    }
}

/// The whole history of `transcript`, and one with about nine in ten of its bodies left out.
fn whole_and_lazy(transcript: &Transcript, seed: u64) -> (History, History) {
    whole_and_lazy_from(transcript, seed, |whole| Arc::new(whole))
}

/// [`whole_and_lazy`], its left-out bodies given by the source `wrap` makes of them.
fn whole_and_lazy_from(
    transcript: &Transcript,
    seed: u64,
    wrap: impl FnOnce(Whole) -> Arc<dyn BodySource>,
) -> (History, History) {
    let mut rng = Rng(seed);
    let mut lazy = transcript.clone();
    let mut flags = Vec::new();
    let mut bodies = BTreeMap::new();
    for event in &mut lazy.events {
        if rng.below(10) > 0 {
            let blank = matches!(&event.body, Body::Text { text } if crate::blank(text));
            bodies.insert(event.seq, event.body.clone());
            event.body = crate::placeholder(event.body.clone());
            flags.push(Some(blank));
        } else {
            flags.push(None);
        }
    }
    let whole = History::new(transcript.clone()).unwrap();
    let lazy = History::with_bodies(lazy, flags, wrap(Whole(bodies))).unwrap();
    (whole, lazy)
}

/// The fixed parts as they were formatted before they were tested in place (`write!` of
/// the whole format, then `contains`): the reference the new test must equal.
fn formatted(history: &History, index: usize) -> String {
    formatted_with_marks(history, index).0
}

/// [`formatted`], and where its marks lie (written here apart from the pieces' own).
fn formatted_with_marks(history: &History, index: usize) -> (String, Vec<Range<usize>>) {
    let mut out = String::new();
    let mut marks = Vec::new();
    let mut mark = |out: &mut String, text: &str| {
        marks.push(out.len()..out.len() + text.len());
        out.push_str(text);
    };
    match &history.event_at(index).body {
        Body::Text { text } => out.push_str(text),
        Body::ToolCall { name, input, .. } => {
            let _ = write!(out, "{name} {input}");
            if let Some(result) = history.partner_index(index) {
                if let Body::ToolResult { text, is_error, .. } = &history.event_at(result).body {
                    let seq = history.event_at(result).seq;
                    let error = if *is_error { " (error)" } else { "" };
                    mark(&mut out, &format!("\n--- result #{seq}{error}:\n"));
                    out.push_str(text);
                }
            } else {
                mark(&mut out, "\n--- pending: no result was recorded");
            }
        }
        Body::ToolResult { text, is_error, .. } => {
            let error = if *is_error { " (error)" } else { "" };
            mark(&mut out, &format!("(result of an unknown call){error}\n"));
            out.push_str(text);
        }
    }
    (out, marks)
}

/// Whether `query` occurs in `text` at any char boundary without overlapping `marks`
/// (every place tried, overlapping ones too).
fn outside_marks(text: &str, marks: &[Range<usize>], query: &str) -> bool {
    text.char_indices().any(|(at, _)| {
        text[at..].starts_with(query)
            && !marks
                .iter()
                .any(|m| m.start < at + query.len() && at < m.end)
    })
}

/// Queries at and across every join of `text`'s pieces: every substring of up to 9 chars,
/// and longer ones around [`SPAN`] bytes.
fn queries_of(text: &str, out: &mut Vec<String>) {
    let at: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    for (k, &from) in at.iter().enumerate() {
        for len in (1..=9).chain([SPAN - 1, SPAN, SPAN + 1, SPAN + 7]) {
            if let Some(&to) = at.get(k + len) {
                out.push(text[from..to].to_owned());
            }
        }
    }
}

#[test]
fn fixed_parts_tested_in_place_agree_with_the_formatted_text() {
    let mut checked = 0;
    let mut found = 0;
    for seed in 1..=3 {
        let transcript = generated(seed, 60);
        let (whole, lazy) = whole_and_lazy(&transcript, seed + 100);
        for history in [&whole, &lazy] {
            let mut queries: Vec<String> = [
                "--- result #1",
                " (error):",
                "r):\n",
                "call) (e",
                "h \n",
                "h {",
                "g: no result",
                "é",
                "\n",
                "a b ",
                "2 (",
            ]
            .map(str::to_owned)
            .to_vec();
            let texts: Vec<(String, Vec<Range<usize>>)> = (0..history.events().len())
                .map(|index| formatted_with_marks(history, index))
                .collect();
            for (text, _) in &texts {
                queries_of(text, &mut queries);
            }
            queries.sort();
            queries.dedup();
            for query in &queries {
                let literal = Literal::new(query);
                for (index, (text, marks)) in texts.iter().enumerate() {
                    let expected = outside_marks(text, marks, query);
                    assert_eq!(
                        history.fixed_contains(index, &literal),
                        expected,
                        "seed {seed}: {query:?} in the fixed parts of event {index}: {text:?}"
                    );
                    checked += 1;
                    found += usize::from(expected);
                }
            }
        }
    }
    assert!(found > 5_000 && checked > found * 2, "{found} of {checked}");
}

#[test]
fn a_document_is_the_format_it_always_was() {
    let (whole, _) = whole_and_lazy(&generated(9, 200), 9);
    for index in 0..whole.events().len() {
        let mut text = String::new();
        whole.document_text(index, &mut text).unwrap();
        assert_eq!(text, formatted(&whole, index), "event {index}");
    }
}

/// Every list the agreement needs for `query`: both orders, pages of 1, 3 and the
/// default continued by cursor, a role filter and a window filter.
fn lists_agree(lazy: &History, whole: &History, query: &str, what: &str) {
    let base = ListArgs {
        query: Some(query.to_owned()),
        ..ListArgs::default()
    };
    let mut cases = Vec::new();
    for order in [Order::Newest, Order::Oldest] {
        for limit in [None, Some(1), Some(7)] {
            cases.push(ListArgs {
                order: Some(order),
                limit,
                ..base.clone()
            });
        }
    }
    cases.push(ListArgs {
        roles: Some(vec![Role::Tool]),
        ..base.clone()
    });
    cases.push(ListArgs {
        window: Some("2".into()),
        order: Some(Order::Oldest),
        ..base.clone()
    });
    for mut args in cases {
        loop {
            let (a, b) = (lazy.list(&args), whole.list(&args));
            assert_eq!(a, b, "{what}: {args:?}");
            match b.ok().and_then(|b| b.next_cursor) {
                Some(cursor) if args.limit == Some(7) => args.cursor = Some(cursor),
                _ => break,
            }
        }
    }
}

#[test]
fn lists_over_left_out_bodies_visit_only_what_may_match_and_answer_alike() {
    let mut bounded = 0;
    for seed in 1..=3 {
        let transcript = generated(seed, 100);
        let (whole, lazy) = whole_and_lazy(&transcript, seed * 31);
        let mut queries: Vec<String> = [
            "zebra",
            "needle",
            "result #",
            "--- pending",
            "#1",
            " (error):",
            "call) (error)",
            "Bash {",
            " needle",
            "h",
            "a b",
            "é",
            "l\n",
            "absent",
        ]
        .map(str::to_owned)
        .to_vec();
        for index in (0..whole.events().len()).step_by(5) {
            let mut text = String::new();
            whole.document_text(index, &mut text).unwrap();
            let mut some = Vec::new();
            queries_of(&text, &mut some);
            queries.extend(some.into_iter().step_by(23));
        }
        queries.sort();
        queries.dedup();
        for query in &queries {
            let (_, named) = lazy.candidates_named(query);
            if let Some(named) = named
                && lazy
                    .bounded_positions(&Literal::new(query), &named)
                    .is_some_and(|p| p.len() < whole.events().len() / 2)
            {
                bounded += 1;
            }
            lists_agree(&lazy, &whole, query, &format!("seed {seed}"));
        }
    }
    // Most lists really were bounded (the test is not of full walks alone).
    assert!(bounded > 150, "{bounded} bounded lists");
}

/// A source that names the bodies that may hold a literal out of seq order (newest first)
/// gives the lists the whole history gives, over seqs with gaps between them.
#[test]
fn lists_over_a_source_that_names_bodies_newest_first_answer_alike() {
    for seed in 1..=3 {
        let transcript = generated(seed, 100);
        let (whole, lazy) =
            whole_and_lazy_from(&transcript, seed * 31, |w| Arc::new(NewestFirst(w)));
        for query in ["zebra", "needle", "Bash {", "h", "é", "12", "absent"] {
            lists_agree(&lazy, &whole, query, &format!("seed {seed}"));
        }
    }
}
