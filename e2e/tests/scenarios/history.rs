//! Scenario 11: history after a reset, and `history_sessions`.

use notesoup_e2e::{Match, Mode, Reply, Script};

use super::{EMPTY_BRAIN, FRESH_BOOT, empty_brain, run_clean, tool_results_text};

// ---------------------------------------------------------------------------------
// 11. History after a reset: the fresh window finds the old window's message.

/// The seq of the event that `history_list` shows on the line holding `needle`.
fn seq_on_line(listing: &str, needle: &str) -> Option<u64> {
    let re = regex::Regex::new(r"(?i)(?:seq[ :=#]*|#)(\d+)").unwrap();
    let line = listing.lines().find(|l| l.contains(needle))?;
    re.captures(line)
        .and_then(|c| c[1].parse().ok())
        .or_else(|| {
            regex::Regex::new(r"\d+")
                .unwrap()
                .find(line)
                .and_then(|m| m.as_str().parse().ok())
        })
}

#[test]
fn s11_history_after_reset() {
    let script = Script::new()
        .then(
            Reply::text("Noted; clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-ELEVEN", Some(false))),
        )
        .then_when(
            Match::tail_contains(FRESH_BOOT).and_tool_result(false),
            Reply::tool(
                "mcp__notesoup__history_list",
                serde_json::json!({"query": "PAPAYA-42"}),
            ),
        )
        .then_with(Match::tool_result(true), |req| {
            let listing = tool_results_text(*req);
            match seq_on_line(&listing, "PAPAYA-42") {
                Some(seq) => Reply::tool(
                    "mcp__notesoup__history_read",
                    serde_json::json!({"seq": seq}),
                ),
                None => Reply::text("NO-SEQ-FOUND"),
            }
        })
        .then_when(Match::tool_result(true), Reply::text("Found it again."))
        .fallback(Reply::text("(fallback)"));
    let out = run_clean(
        "s11-history",
        script,
        &Mode::Print(
            "The secret word is PAPAYA-42. Remember nothing else; clear your window.".into(),
        ),
    );
    let requests = out.model_turn_requests();
    assert!(requests.len() >= 3, "no request after history_list");
    let listing: String = tool_results_text(requests[2]);
    assert!(
        listing.contains("PAPAYA-42"),
        "history_list did not find the old message: {listing}"
    );
    assert_eq!(
        requests.len(),
        4,
        "original, continuation, after list, after read"
    );
    let read: String = tool_results_text(requests[3]);
    assert!(
        read.contains("PAPAYA-42"),
        "history_read did not return it: {read}"
    );
    assert!(
        !requests[1]
            .all_text()
            .contains("The secret word is PAPAYA-42"),
        "the old message is still in the fresh window's conversation"
    );
}

/// The model lists sessions across harnesses and finds this one.
#[test]
fn s11_history_sessions_lists_this_session() {
    // The call comes in a second prompt: Claude writes a transcript a moment after its
    // row, so a listing in the very first request may not see the session yet.
    let script = Script::new()
        .then(Reply::text("Noted."))
        .then(Reply::tool(
            "mcp__notesoup__history_sessions",
            serde_json::json!({"harness": "claude", "limit": 5}),
        ))
        .then_when(Match::tool_result(true), Reply::text("Listed."))
        .fallback(Reply::text("(fallback)"));
    let out = run_clean(
        "s11-history-sessions",
        script,
        &Mode::PrintContinued(vec![
            "Remember KIWI-7.".into(),
            "Which sessions are there?".into(),
        ]),
    );
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        3,
        "the first prompt, the call, the answer after it"
    );
    let listing: String = tool_results_text(requests[2]);
    let sid = super::main_session(&out);
    assert!(
        !sid.is_empty() && listing.contains(&format!("claude:{sid}")),
        "history_sessions does not list this session (claude:{sid}): {listing}"
    );
    assert!(
        listing.contains("KIWI-7"),
        "the listing lacks the first prompt: {listing}"
    );
}
