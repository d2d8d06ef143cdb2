//! `/notesoup`'s text for each kind of session, in one snapshot to read whole.

use serde_json::{Value, json};

use super::cap_status;
use crate::{ContextUsage, Env, Inputs, Settings, Usage};

/// One case: what it shows, the usage, the settings, the variables, the cap, the fill read
/// now, the window.
struct Case {
    what: &'static str,
    usage: Value,
    settings: Value,
    env: &'static [(&'static str, &'static str)],
    cap: Option<&'static str>,
    now: Option<Value>,
    window: Option<&'static str>,
}

fn sonnet(tokens: Option<u64>) -> Value {
    let mut context = json!({"window": 200_000,
        "breakdown": {"autoCompactThreshold": 167_000, "isAutoCompactEnabled": true}});
    if let Some(tokens) = tokens {
        context["tokens"] = json!(tokens);
        context["percent"] = json!(tokens * 100 / 200_000);
    }
    json!({ "context": context })
}

fn text(case: &Case) -> String {
    let usage: Usage = serde_json::from_value(case.usage.clone()).unwrap_or_default();
    let settings: Settings = serde_json::from_value(case.settings.clone()).unwrap_or_default();
    let pairs = case.env;
    let env = Env::from_lookup(|name| {
        pairs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    });
    let now: Option<ContextUsage> = case
        .now
        .clone()
        .and_then(|v| serde_json::from_value(v).ok());
    let inputs = Inputs {
        cap: case.cap,
        model: Some("claude-sonnet-4-6"),
        ..Inputs::new(Some(&usage), Some(&settings), &env)
    };
    cap_status(&inputs, now.as_ref(), case.window)
}

#[test]
fn the_status_says_fill_points_and_cap_in_words() {
    let cases = [
        Case {
            what: "no cap, 120,000 tokens in the window",
            usage: sonnet(Some(120_000)),
            settings: json!({}),
            env: &[],
            cap: None,
            now: None,
            window: Some("claude:s1:0"),
        },
        Case {
            what: "cap 100k, the fill read now (30,000) over the usage's older one",
            usage: sonnet(Some(5_000)),
            settings: json!({}),
            env: &[],
            cap: Some("100000"),
            now: Some(json!({"tokens": 30_000, "percent": 15})),
            window: Some("claude:s1:2"),
        },
        Case {
            what: "past the clear point",
            usage: sonnet(Some(150_000)),
            settings: json!({}),
            env: &[],
            cap: Some("100000"),
            now: None,
            window: Some("claude:s1:2"),
        },
        Case {
            what: "before Claude's first answer",
            usage: sonnet(None),
            settings: json!({}),
            env: &[],
            cap: None,
            now: None,
            window: None,
        },
        Case {
            what: "auto-compaction off",
            usage: sonnet(Some(40_000)),
            settings: json!({"autoCompactEnabled": false}),
            env: &[],
            cap: None,
            now: None,
            window: Some("claude:s1:0"),
        },
        Case {
            what: "DISABLE_COMPACT",
            usage: sonnet(Some(40_000)),
            settings: json!({}),
            env: &[("DISABLE_COMPACT", "1")],
            cap: None,
            now: None,
            window: Some("claude:s1:0"),
        },
        Case {
            what: "no window size: points in percent",
            usage: json!({"context": {"tokens": 50_000, "percent": 25}}),
            settings: json!({}),
            env: &[],
            cap: None,
            now: None,
            window: Some("claude:s1:0"),
        },
        Case {
            what: "cap 500k, above the window: kept as asked, changes nothing here",
            usage: sonnet(Some(40_000)),
            settings: json!({}),
            env: &[],
            cap: Some("500000"),
            now: None,
            window: Some("claude:s1:0"),
        },
        Case {
            what: "cap 500k, no window size yet: above the 200K window assumed",
            usage: json!({"context": {"tokens": 50_000, "percent": 25}}),
            settings: json!({}),
            env: &[],
            cap: Some("500000"),
            now: None,
            window: Some("claude:s1:0"),
        },
        Case {
            what: "margins with no room",
            usage: sonnet(Some(1_000)),
            settings: json!({"notesoup": {"resetMarginTokens": 190_000}}),
            env: &[],
            cap: Some("150k"),
            now: None,
            window: Some("claude:s1:0"),
        },
    ];
    let all: Vec<String> = cases
        .iter()
        .map(|case| format!("== {}\n{}\n", case.what, text(case)))
        .collect();
    insta::assert_snapshot!(all.join("\n"));
}

/// The percent is of the usable part: 100% is the clear point, rounded to the nearest.
#[test]
fn the_percent_is_of_the_usable_part() {
    let case = |tokens| Case {
        what: "",
        usage: sonnet(Some(tokens)),
        settings: json!({}),
        env: &[],
        cap: Some("100000"),
        now: None,
        window: None,
    };
    // Cap 100k: clear at 58,808.
    for (tokens, share) in [
        (0, "0%"),
        (29_404, "50%"),
        (58_808, "100%"),
        (588, "1%"),
        (293, "0%"),
    ] {
        let line = text(&case(tokens));
        let first = line.lines().next().unwrap_or_default().to_owned();
        assert!(
            first.ends_with(&format!(", {share} of the 58,808 usable in this window")),
            "{tokens}: {first}"
        );
    }
}

/// A margin setting that is not a whole number is said as ignored, in both hosts' status,
/// so `/notesoup` explains why the setting changed nothing.
#[test]
fn an_ignored_margin_setting_is_said() {
    let settings: Settings =
        serde_json::from_value(json!({"notesoup": {"warningRunwayTokens": "abc"}})).unwrap();
    let usage: Usage = serde_json::from_value(sonnet(None)).unwrap();
    let env = Env::from_lookup(|_| None);
    let claude = cap_status(
        &Inputs {
            usage: Some(&usage),
            settings: Some(&settings),
            env: &env,
            model: None,
            cap: None,
        },
        None,
        None,
    );
    assert!(
        claude.ends_with("Setting ignored: notesoup.warningRunwayTokens = \"abc\" is not a whole number of tokens; 16,384 applies"),
        "{claude}"
    );
    let pi: crate::PiSettings =
        serde_json::from_value(json!({"notesoup": {"resetMarginTokens": -1}})).unwrap();
    let text = super::pi_cap_status(&crate::PiInputs::new(200_000, Some(&pi)), None, None);
    assert!(
        text.ends_with("Setting ignored: notesoup.resetMarginTokens = -1 is not a whole number of tokens; 8,192 applies"),
        "{text}"
    );
    assert!(
        !super::pi_cap_status(&crate::PiInputs::new(200_000, None), None, None).contains("ignored")
    );
}

/// A cap above a configured window smaller than the one Claude reports its point for is
/// clamped to that window, which lowers the points: the status says so, and where Claude
/// itself compacts; it said the cap changed nothing (budget audit 1).
#[test]
fn a_cap_that_lowers_a_reported_point_says_so() {
    let case = Case {
        what: "cap 1m over a configured 300K window",
        usage: json!({"context": {"window": 1_000_000, "tokens": 40_000, "percent": 4,
            "breakdown": {"autoCompactThreshold": 967_000, "isAutoCompactEnabled": true}}}),
        settings: json!({"autoCompactWindow": 300_000}),
        env: &[],
        cap: Some("1m"),
        now: None,
        window: Some("claude:s1:0"),
    };
    let status = text(&case);
    assert!(
        status.contains(
            "clears at 258,808 (Claude would compact at 967,000; the cap's point is 267,000)\n\
             Cap: 1,000,000 tokens, more than the 300,000 tokens configured for this window, so that is the cap: it lowers the point Claude reported"
        ),
        "{}: {status}",
        case.what
    );
}

/// A cap with no window known is the window: the points in tokens, and where Claude
/// compacts is said to be unknown, not given as the cap's point.
#[test]
fn a_cap_with_no_window_known_says_claudes_point_is_not_known() {
    let case = Case {
        what: "cap 100k, no window size yet",
        usage: json!({"context": {"tokens": 50_000, "percent": 25}}),
        settings: json!({}),
        env: &[],
        cap: Some("100k"),
        now: None,
        window: Some("claude:s1:0"),
    };
    let status = text(&case);
    assert!(
        status.contains(
            "Warns at 42,424 tokens, clears at 58,808 (the cap's point is 67,000; where Claude compacts is not known until it reports this window's size)"
        ),
        "{}: {status}",
        case.what
    );
}
