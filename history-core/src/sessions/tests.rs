//! Selectors, resolution, the listing and the boot marker.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use rstest::rstest;

use super::*;

#[rstest]
#[case("pi:01a2", "pi", "01a2")]
#[case(" codex:01a23755-7b6b ", "codex", "01a23755-7b6b")]
#[case("claude:6e9d_x", "claude", "6e9d_x")]
fn selectors_parse(#[case] text: &str, #[case] harness: &str, #[case] id: &str) {
    assert_eq!(
        Selector::parse(text).unwrap(),
        Selector {
            harness: harness.parse().unwrap(),
            id: id.into()
        }
    );
}

#[rstest]
#[case("01a2", "bad_session", "has no harness")]
#[case("gemini:01a2", "bad_session", "unknown harness `gemini`")]
#[case("mcp:01a2", "bad_session", "unknown harness `mcp`")]
#[case("pi:", "bad_session", "no valid session id")]
#[case("pi:../etc", "bad_session", "no valid session id")]
fn bad_selectors_are_refused(#[case] text: &str, #[case] code: &str, #[case] reason: &str) {
    let err = Selector::parse(text).unwrap_err();
    assert_eq!(err.code(), code);
    assert!(err.to_string().contains(reason), "{err}");
}

#[test]
fn resolution_prefers_the_exact_id_then_a_unique_prefix() {
    let ids = ["abc", "abcd", "abx", "zzz"];
    let pick = |s: &str| Selector::parse(s).unwrap().resolve(ids);
    assert_eq!(pick("pi:abc").unwrap(), "abc");
    assert_eq!(pick("pi:abcd").unwrap(), "abcd");
    assert_eq!(pick("pi:z").unwrap(), "zzz");
    let err = pick("pi:ab").unwrap_err();
    assert_eq!(err.code(), "ambiguous_session");
    assert!(
        err.to_string()
            .contains("fits 3 sessions, e.g. pi:abc, pi:abcd, pi:abx"),
        "{err}"
    );
    let err = pick("pi:q").unwrap_err();
    assert_eq!(err.code(), "not_found");
    assert!(err.to_string().contains("(4 pi sessions found)"), "{err}");
}

#[test]
fn resolution_ignores_the_case_of_an_id() {
    let ids = [
        "11111111-aaaa-4bbb",
        "22222222-bbbb-4ccc",
        "abc",
        "abcd",
        "ABCD",
    ];
    let pick = |s: &str| Selector::parse(s).unwrap().resolve(ids);
    // UUIDs are case-insensitive: upper case names the lower-case id, whole or a prefix.
    assert_eq!(pick("claude:11111111-AAAA").unwrap(), "11111111-aaaa-4bbb");
    assert_eq!(
        pick("claude:22222222-BBBB-4CCC").unwrap(),
        "22222222-bbbb-4ccc"
    );
    // The id as written wins, then the one equal but for case.
    assert_eq!(pick("pi:ABCD").unwrap(), "ABCD");
    assert_eq!(pick("pi:ABC").unwrap(), "abc");
    // Two ids equal but for case are not guessed between.
    assert_eq!(pick("pi:abcD").unwrap_err().code(), "ambiguous_session");
}

fn summary(n: usize) -> SessionSummary {
    SessionSummary {
        harness: Host::Codex,
        id: format!("id-{n:04}"),
        started: Some("2026-12-02T15:00:00Z".into()),
        cwd: Some("/work".into()),
        first_prompt: Some(format!("prompt {n}\nsecond line {}", "x".repeat(300))),
        parent: (n == 1).then(|| "codex:id-0000".into()),
        unreadable: (n == 2).then(|| "line 1 is not JSON".into()),
        vault_only: n == 1,
        updated: (n == 0).then_some(1_764_693_000_000),
    }
}

#[test]
fn listing_lines_name_harness_id_start_cwd_and_prompt() {
    let sessions: Vec<SessionSummary> = (0..3).map(summary).collect();
    let (text, shown) = render_sessions(&sessions, 20, 3, "");
    let text = text.as_str();
    assert_eq!(shown, 3);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[1].starts_with(
            "codex:id-0000  active 2025-12-02T16:30:00Z  started 2026-12-02T15:00:00Z  cwd=/work  \"prompt 0 second line xx"
        ),
        "{}",
        lines[1]
    );
    // The time the listing is ordered by is shown when it is known, the start always.
    assert!(lines[0].starts_with("Sessions, most recently active first"));
    assert!(lines[2].starts_with("codex:id-0001  started 2026-12-02T15:00:00Z  cwd=/work"));
    assert!(lines[1].ends_with("x…\""), "{}", lines[1]);
    assert!(lines[2].contains("fork of codex:id-0000"));
    assert!(lines[2].contains("(vault only: the harness deleted its file)"));
    assert!(!lines[1].contains("vault only"));
    assert!(lines[3].ends_with("unreadable: line 1 is not JSON"));
    assert!(!text.contains("shown;"));
}

/// A start the harness wrote with milliseconds or in another zone is shown in the one
/// shape the line's other time has (walk7: `active …:47Z  started …:46.662Z`); text that is
/// no moment is shown as the harness wrote it.
#[test]
fn a_start_is_shown_in_the_shape_of_the_other_time() {
    let at = |started: &str| {
        let session = SessionSummary {
            started: Some(started.into()),
            ..summary(0)
        };
        render_sessions(&[session], 20, 1, "").0.as_str().to_owned()
    };
    assert!(at("2026-12-07T12:22:46.662Z").contains("  started 2026-12-07T12:22:46Z  "));
    assert!(at("2026-12-07T14:22:46+02:00").contains("  started 2026-12-07T12:22:46Z  "));
    assert!(at("yesterday").contains("  started yesterday  "));
}

#[test]
fn listing_stays_within_the_budget_and_says_what_it_left_out() {
    let long = |n| SessionSummary {
        cwd: Some("/a/long/project/path".repeat(4)),
        ..summary(n)
    };
    let sessions: Vec<SessionSummary> = (0..SESSIONS_MAX).map(long).collect();
    let (text, shown) = render_sessions(&sessions, SESSIONS_MAX, 5000, "");
    assert!(text.as_str().len() <= ANSWER_LIMIT);
    assert!(shown < SESSIONS_MAX);
    // The answer's size ended it, not the limit: a larger limit would show no more.
    assert!(text.as_str().ends_with(&format!(
        "({shown} of 5000 sessions shown, as many as one answer holds; a `harness` filter narrows them)\n"
    )));
    // The limit ended it: a larger one shows more.
    let (text, shown) = render_sessions(&sessions, 20, 5000, "");
    assert_eq!(shown, 20);
    assert!(text.as_str().ends_with(
        "(20 of 5000 sessions shown; ask with a larger `limit` (at most 200) or a `harness` filter)\n"
    ));
    let (text, shown) = render_sessions(&[], 20, 0, "");
    assert_eq!((text.as_str(), shown), ("No sessions found.\n", 0));
}

/// The user-facing page states the listing's limits and the harness names; it must state
/// the ones this crate enforces (the helper's schema test holds the JSON Schema to the same
/// constants).
#[test]
fn the_sessions_page_states_the_enforced_limits_and_harnesses() {
    let page = include_str!("../../docs/history-sessions.md");
    for limits in [
        format!("`limit` (1 to {SESSIONS_MAX}, default {SESSIONS_DEFAULT})"),
        format!("`limit` (1–{SESSIONS_MAX}, default {SESSIONS_DEFAULT})"),
    ] {
        assert!(page.contains(&limits), "the page lacks {limits:?}");
    }
    let names = notesoup_window::Host::HARNESSES
        .map(|h| format!("`{h}`"))
        .join(", ");
    assert!(page.contains(&names), "the page lacks {names}");
    assert!(page.contains("`notesoup-app` crate's `tools` module"));
}

#[rstest]
#[case(None, Ok(SESSIONS_DEFAULT))]
#[case(Some(1), Ok(1))]
#[case(Some(SESSIONS_MAX), Ok(SESSIONS_MAX))]
#[case(Some(0), Err(0))]
#[case(Some(SESSIONS_MAX + 1), Err(SESSIONS_MAX + 1))]
fn a_listing_shows_1_to_sessions_max(
    #[case] asked: Option<usize>,
    #[case] shown: Result<usize, usize>,
) {
    let got = sessions_limit(asked).map_err(|err| err.limit);
    assert_eq!(got, shown);
}

#[test]
fn an_unknown_id_counts_the_sessions_found_in_words() {
    let one = SelectorError::Unknown {
        harness: Host::Pi,
        id: "x".into(),
        known: 1,
    };
    assert!(one.to_string().ends_with("(1 pi session found)"), "{one}");
    let two = SelectorError::Unknown {
        harness: Host::Pi,
        id: "x".into(),
        known: 2,
    };
    assert!(two.to_string().ends_with("(2 pi sessions found)"), "{two}");
}

/// A lead opens the listing, and a full listing after the longest one still fits the
/// budget with its footer.
#[test]
fn a_lead_opens_the_listing_within_the_budget() {
    let long = |n| SessionSummary {
        cwd: Some("/a/long/project/path".repeat(4)),
        ..summary(n)
    };
    let sessions: Vec<SessionSummary> = (0..SESSIONS_MAX).map(long).collect();
    let lead = "l".repeat(crate::LEAD_LIMIT * 2);
    let (text, shown) = render_sessions(&sessions, SESSIONS_MAX, 5000, &lead);
    assert!(text.as_str().len() <= ANSWER_LIMIT);
    assert!(text.as_str().starts_with(&lead[..crate::LEAD_LIMIT]));
    assert!(!text.as_str().starts_with(&lead[..=crate::LEAD_LIMIT]));
    assert!(text.as_str().ends_with(&format!(
        "({shown} of 5000 sessions shown, as many as one answer holds; a `harness` filter narrows them)\n"
    )));
}
