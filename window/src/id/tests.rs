#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]
use rstest::rstest;

use super::*;

#[rstest]
#[case::claude("claude:6e9d:0", "claude", "6e9d", 0)]
#[case::colon_in_session("pi:a:b:7", "pi", "a:b", 7)]
#[case::largest("codex:x:1000000000", "codex", "x", ORDINAL_MAX)]
fn window_ids_parse(
    #[case] s: &str,
    #[case] host: &str,
    #[case] session: &str,
    #[case] ordinal: u32,
) {
    let w: WindowId = s.parse().unwrap();
    assert_eq!(
        (w.host(), w.session(), w.ordinal()),
        (host, session, ordinal)
    );
    assert_eq!(w.to_string(), s);
    assert_eq!(
        WindowId::from_marker_line(&w.marker_line()),
        Some(w.clone())
    );
}

#[rstest]
#[case::empty("", "expected")]
#[case::no_ordinal("claude:abc", "ordinal")]
#[case::upper_host("Claude:abc:1", "host")]
#[case::empty_host(":abc:1", "host")]
#[case::empty_session("claude::1", "empty")]
#[case::negative("claude:abc:-1", "non-negative")]
#[case::past_the_maximum("claude:abc:1000000001", "too large")]
#[case::u32_max("claude:abc:4294967295", "too large")]
#[case::overflow("claude:abc:4294967296", "too large")]
#[case::quote("claude:a\"b:1", "session")]
#[case::space("claude:a b:1", "session")]
#[case::multibyte_host("日本:abc:1", "host")]
fn bad_window_ids_are_refused(#[case] s: &str, #[case] says: &str) {
    let err = s.parse::<WindowId>().unwrap_err();
    let message = err.to_string();
    assert!(message.contains(&format!("`{s}`")), "{message}");
    assert!(message.contains(says), "{message}");
}

#[test]
fn a_fork_keeps_the_ordinal_under_its_own_session() {
    let parent = WindowId::new("claude", "parent", 3).unwrap();
    let fork = parent.in_session("child").unwrap();
    assert_eq!(fork.to_string(), "claude:child:3");
}
