#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]
use rstest::rstest;

use super::*;

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
#[case::close_before_open(
    "</notesoup-boot>\n<notesoup-boot window=\"claude:s1:4\">\nnotes",
    None
)]
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
#[case::two_open_one_close_names_the_first(
    "<notesoup-boot window=\"claude:s:1\">\n<notesoup-boot window=\"claude:s:2\">\n</notesoup-boot>",
    Some("claude:s:1")
)]
#[case::past_the_ordinal_maximum(
    "<notesoup-boot window=\"claude:s:4294967295\">\n</notesoup-boot>",
    None
)]
fn retained_windows(#[case] text: &str, #[case] want: Option<&str>) {
    assert_eq!(
        retained_window(text).map(|w| w.to_string()).as_deref(),
        want
    );
}

#[rstest]
#[case::plain("a <notesoup-boot window=\"claude:s:0\">\nx\n<notesoup-boot window=\"claude:s:1\">", &["claude:s:0", "claude:s:1"])]
#[case::an_unquoted_opening_names_nothing(
    "<notesoup-boot window=\"claude:s:0\n<notesoup-boot window=\"claude:s:1\">",
    &["claude:s:1"]
)]
fn marker_ids_count_every_opening(#[case] text: &str, #[case] want: &[&str]) {
    assert_eq!(marker_ids(text).collect::<Vec<_>>(), want);
}

#[rstest]
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

/// 200,000 marker lines and no closing line: no window, and the first marker's block when
/// one closing line ends the text. (The scan from each marker to the end that this replaced
/// took past a minute on this text; the adversarial suite holds the time to the bytes.)
#[test]
fn many_marker_lines_without_a_close_name_no_window() {
    let line = "<notesoup-boot window=\"claude:s:1\">\n";
    let text = line.repeat(200_000);
    assert_eq!(retained_window(&text), None);
    assert_eq!(boot_block(&text), None);
    assert_eq!(marker_ids(&text).count(), 200_000);
    // With one closing line at the very end, the first marker's block spans everything.
    let closed = format!("{text}{CLOSE}\n");
    let (window, range) = boot_block(&closed).unwrap();
    assert_eq!(
        (window.ordinal(), range.start, range.end),
        (1, 0, closed.len() - 1)
    );
}
