//! What every agreement test holds a history with left-out bodies to: the answers of the
//! whole transcript's, for queries drawn from its texts and the ones that hide from raw
//! bytes, every list (both orders, a one-event page, pages continued by cursor) and reads.

#![allow(dead_code, reason = "each test file uses its own part")]

use notesoup_history_core::{Body, History, ListArgs, Order, ReadArgs};

/// Substrings of `text` at a few places and lengths (char boundaries only).
pub(crate) fn pieces(text: &str, out: &mut Vec<String>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    if chars.is_empty() {
        return;
    }
    for start in [0, chars.len() / 2, chars.len().saturating_sub(6)] {
        for len in [3, 9] {
            let Some(&(from, _)) = chars.get(start) else {
                continue;
            };
            let to = chars.get(start + len).map_or(text.len(), |&(i, _)| i);
            out.push(text[from..to].to_owned());
        }
    }
}

/// The queries that hide from raw bytes or lie in fixed parts.
pub(crate) const FIXED: [&str; 33] = [
    "result #",
    "--- result",
    "--- pending",
    "pending: no result",
    "(result of an unknown call)",
    "unknown call",
    "(error)",
    "error",
    " (error):",
    ":",
    "#1",
    "é",
    "✓",
    "/",
    "://",
    "a/b",
    "\"",
    "\\",
    "\n",
    "a\nb",
    " ",
    "Bash {",
    "h {\"c",
    "Bash",
    "zebra",
    "zebra-needle",
    "\u{1b}[31m",
    "x\ty",
    "done",
    "nnext",
    "\\n",
    "n\"",
    "thinking",
];

/// Queries drawn from the whole transcript's texts.
pub(crate) fn drawn(history: &History) -> Vec<String> {
    let mut out = Vec::new();
    let events = history.events();
    let step = (events.len() / 8).max(1);
    for event in events.iter().step_by(step) {
        match &event.body {
            Body::Text { text } | Body::ToolResult { text, .. } => pieces(text, &mut out),
            Body::ToolCall { name, input, .. } => {
                pieces(input, &mut out);
                let doc = format!("{name} {input}");
                let at = name.len().saturating_sub(2);
                let end = doc
                    .char_indices()
                    .nth(name.len() + 5)
                    .map_or(doc.len(), |(i, _)| i);
                out.push(doc[at..end].to_owned());
            }
        }
    }
    out.retain(|q| !q.is_empty());
    out.sort();
    out.dedup();
    out
}

/// Queries drawn from the whole transcript's texts, plus the ones that hide from raw bytes.
pub(crate) fn queries(history: &History) -> Vec<String> {
    let mut out: Vec<String> = FIXED.iter().map(|q| (*q).to_owned()).collect();
    out.extend(drawn(history));
    out.sort();
    out.dedup();
    out
}

/// `lazy`'s lists for `query` equal `whole`'s: newest first, oldest first in one page of
/// 500, and a one-event page (every later match only counted).
pub(crate) fn lists_agree(lazy: &History, whole: &History, query: &str, what: &str) {
    for (order, limit) in [
        (Order::Newest, None),
        (Order::Oldest, Some(500)),
        (Order::Newest, Some(1)),
    ] {
        let args = ListArgs {
            query: Some(query.to_owned()),
            order: Some(order),
            limit,
            ..ListArgs::default()
        };
        assert_eq!(lazy.list(&args), whole.list(&args), "{what}: list {args:?}");
    }
}

/// Every answer of `lazy` equals `whole`'s: lists for every query (both orders, one page
/// of 500 and default pages continued by cursor), pages without a query, and reads.
pub(crate) fn agree(lazy: &History, whole: &History, what: &str) {
    assert_eq!(lazy.head_window_id(), whole.head_window_id(), "{what}");
    for query in queries(whole) {
        lists_agree(lazy, whole, &query, what);
    }
    // Pages without a query, continued to the end.
    let mut args = ListArgs {
        roles: Some(notesoup_history_core::Role::ALL.to_vec()),
        limit: Some(97),
        ..ListArgs::default()
    };
    loop {
        let (a, b) = (lazy.list(&args), whole.list(&args));
        assert_eq!(a, b, "{what}: page {args:?}");
        match b.ok().and_then(|b| b.next_cursor) {
            Some(cursor) => args.cursor = Some(cursor),
            None => break,
        }
    }
    let events = whole.events();
    let step = (events.len() / 60).max(1);
    for event in events.iter().step_by(step) {
        let one = ReadArgs {
            seq: Some(event.seq),
            ..ReadArgs::default()
        };
        assert_eq!(lazy.read(&one), whole.read(&one), "{what}: read {one:?}");
        let range = ReadArgs {
            from: Some(event.seq),
            to: Some(event.seq + 5),
            ..ReadArgs::default()
        };
        assert_eq!(
            lazy.read(&range),
            whole.read(&range),
            "{what}: read {range:?}"
        );
    }
}

/// How many of `lazy`'s events have a body left out (a placeholder) where `whole` has one.
pub(crate) fn left_out(lazy: &History, whole: &History) -> usize {
    lazy.events()
        .iter()
        .zip(whole.events())
        .filter(|(a, b)| a.body != b.body)
        .count()
}
