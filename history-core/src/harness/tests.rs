//! Harness names: the three known ones round-trip, every other name is refused.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use rstest::rstest;

use super::*;

#[test]
fn every_harness_round_trips_through_its_name_and_json() {
    for harness in Harness::ALL {
        assert_eq!(harness.name().parse::<Harness>().unwrap(), harness);
        let json = serde_json::to_string(&harness).unwrap();
        assert_eq!(json, format!("\"{}\"", harness.name()));
        assert_eq!(serde_json::from_str::<Harness>(&json).unwrap(), harness);
    }
}

#[rstest]
#[case("gemini")]
#[case("")]
#[case("Claude")]
#[case("mcp")]
fn unknown_names_are_refused_not_defaulted(#[case] name: &str) {
    let err = name.parse::<Harness>().unwrap_err();
    assert_eq!(err, UnknownHarness(name.to_owned()));
    assert!(
        err.to_string().contains("known: claude, pi, codex"),
        "{err}"
    );
    assert!(serde_json::from_str::<Harness>(&format!("\"{name}\"")).is_err());
}
