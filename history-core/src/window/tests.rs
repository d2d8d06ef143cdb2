#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]
use rstest::rstest;

use super::*;

#[rstest]
#[case::claude("claude:6e9d:0", "claude", "6e9d", 0)]
#[case::colon_in_session("pi:a:b:7", "pi", "a:b", 7)]
#[case::big("codex:x:4294967295", "codex", "x", u32::MAX)]
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
    assert_eq!(w.next().ordinal(), ordinal.saturating_add(1));
}

#[rstest]
#[case::empty("", "expected")]
#[case::no_ordinal("claude:abc", "ordinal")]
#[case::upper_host("Claude:abc:1", "host")]
#[case::empty_host(":abc:1", "host")]
#[case::empty_session("claude::1", "empty")]
#[case::negative("claude:abc:-1", "non-negative")]
#[case::overflow("claude:abc:4294967296", "too large")]
#[case::quote("claude:a\"b:1", "session")]
#[case::space("claude:a b:1", "session")]
fn bad_window_ids_are_refused(#[case] s: &str, #[case] says: &str) {
    let err = s.parse::<WindowId>().unwrap_err();
    let message = err.to_string();
    assert!(message.contains(&format!("`{s}`")), "{message}");
    assert!(message.contains(says), "{message}");
}

#[rstest]
#[case("<notesoup-boot window=\"claude:a:1\">", Some("claude:a:1"))]
#[case("<notesoup-boot window=\"claude:a:1\">  ", Some("claude:a:1"))]
#[case("<notesoup-boot window=\"bad\">", None)]
#[case("text", None)]
fn marker_lines_parse(#[case] line: &str, #[case] want: Option<&str>) {
    assert_eq!(
        WindowId::from_marker_line(line)
            .map(|w| w.to_string())
            .as_deref(),
        want
    );
}

#[rstest]
#[case("<notesoup-boot window=\"pi:s1:3\">\nnotes", Some(("pi:s1:3", Some(3))))]
#[case("<notesoup-boot window=\"codex:s1:unknown:ab12\">\n", Some(("codex:s1:unknown:ab12", None)))]
#[case("hello <notesoup-boot window=\"pi:s1:3\">", None)]
#[case("", None)]
fn boot_markers(#[case] text: &str, #[case] want: Option<(&str, Option<u64>)>) {
    assert_eq!(boot_marker(text), want);
}

#[rstest]
#[case::whole(
    "<notesoup-boot window=\"claude:s1:4\">\nnotes\n</notesoup-boot>\nhandoff",
    Some("claude:s1:4")
)]
#[case::after_text(
    "reminder\n<notesoup-boot window=\"claude:s1:4\">\n</notesoup-boot>",
    Some("claude:s1:4")
)]
#[case::open_only("<notesoup-boot window=\"claude:s1:4\">\nnotes, no closing line", None)]
#[case::mid_line(
    "quoted <notesoup-boot window=\"claude:s1:4\">\n</notesoup-boot>",
    None
)]
#[case::unknown(
    "<notesoup-boot window=\"claude:s1:unknown:x\">\n</notesoup-boot>",
    None
)]
#[case::first_bad_second_good(
    "<notesoup-boot window=\"bad\">\n<notesoup-boot window=\"claude:s:2\">\n</notesoup-boot>",
    Some("claude:s:2")
)]
fn retained_windows(#[case] text: &str, #[case] want: Option<&str>) {
    assert_eq!(
        retained_window(text).map(|w| w.to_string()).as_deref(),
        want
    );
}

#[test]
fn marker_ids_count_every_opening() {
    let text = "a <notesoup-boot window=\"claude:s:0\">\nx\n<notesoup-boot window=\"claude:s:1\">";
    assert_eq!(
        marker_ids(text).collect::<Vec<_>>(),
        ["claude:s:0", "claude:s:1"]
    );
}

#[test]
fn a_fork_keeps_the_ordinal_under_its_own_session() {
    let parent = WindowId::new("claude", "parent", 3).unwrap();
    let fork = parent.in_session("child").unwrap();
    assert_eq!(fork.to_string(), "claude:child:3");
}

#[rstest::rstest]
#[case::alone("<notesoup-boot window=\"claude:s:0\">\nx\n</notesoup-boot>", Some(("claude:s:0", "", "")))]
#[case::among_blocks(
    "# a\nA\n\n# notesoup\n<notesoup-boot window=\"claude:s:2\">\n## x\n</notesoup-boot>\n\n# b\nB",
    Some(("claude:s:2", "# a\nA\n\n# notesoup\n", "\n\n# b\nB"))
)]
#[case::crlf_close(
    "<notesoup-boot window=\"claude:s:1\">\r\nx\r\n </notesoup-boot> \r\nafter",
    Some(("claude:s:1", "", "\r\nafter"))
)]
#[case::no_close("<notesoup-boot window=\"claude:s:0\">\nx", None)]
#[case::not_at_a_line_start("say <notesoup-boot window=\"claude:s:0\">\n</notesoup-boot>", None)]
#[case::marker_quoted_inside_a_line(
    "x\n<notesoup-boot window=\"claude:s:0\"> and more\n</notesoup-boot>",
    None
)]
fn boot_blocks(#[case] text: &str, #[case] want: Option<(&str, &str, &str)>) {
    let got = boot_block(text).map(|(w, r)| (w.to_string(), &text[..r.start], &text[r.end..]));
    assert_eq!(got.as_ref().map(|(w, b, a)| (w.as_str(), *b, *a)), want);
}
