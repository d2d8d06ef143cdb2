//! Host names: the four known ones round-trip, every other name is refused; only the three
//! harnesses start session selectors.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use rstest::rstest;

use super::*;

#[test]
fn every_host_round_trips_through_its_name_and_json() {
    for host in Host::ALL {
        assert_eq!(host.name().parse::<Host>().unwrap(), host);
        let json = serde_json::to_string(&host).unwrap();
        assert_eq!(json, format!("\"{}\"", host.name()));
        assert_eq!(serde_json::from_str::<Host>(&json).unwrap(), host);
    }
}

#[test]
fn the_harnesses_are_the_hosts_with_sessions() {
    for host in Host::ALL {
        assert_eq!(Host::HARNESSES.contains(&host), host.is_harness(), "{host}");
        assert_eq!(
            Host::harness(host.name()).is_ok(),
            host.is_harness(),
            "{host}"
        );
    }
}

#[rstest]
#[case("gemini")]
#[case("")]
#[case("Claude")]
fn unknown_names_are_refused_not_defaulted(#[case] name: &str) {
    let err = name.parse::<Host>().unwrap_err();
    assert_eq!(err.input, name);
    assert!(
        err.to_string().contains("known: claude, pi, codex, mcp"),
        "{err}"
    );
    assert!(serde_json::from_str::<Host>(&format!("\"{name}\"")).is_err());
}

#[test]
fn mcp_is_no_harness() {
    let err = Host::harness("mcp").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown harness `mcp`; known: claude, pi, codex"
    );
}
