//! Escapes, rows and cuts, on the characters that break terminals.

use rstest::rstest;

use super::*;

#[rstest]
#[case("plain", "plain")]
#[case("a\x1b[2mdim\x1b[0m", "a^[[2mdim^[[0m")]
#[case("bell\x07 del\x7f", "bell^G del^?")]
#[case("c1 \u{9b}31m", "c1 <U+009B>31m")]
#[case("keeps\nlines\tand tabs", "keeps\nlines\tand tabs")]
#[case("cr\r", "cr^M")]
#[case("nul\0", "nul^@")]
fn control_characters_are_shown_escaped(#[case] text: &str, #[case] want: &str) {
    assert_eq!(escaped(text), want);
}

#[rstest]
#[case("  a\n\n b\t c  ", "a b c")]
#[case("x\x1b]0;title\x07y", "x^[]0;title^Gy")]
#[case("", "")]
fn rows_are_one_line(#[case] text: &str, #[case] want: &str) {
    assert_eq!(one_line(text), want);
}

/// [`one_line`] as it was written first, a character at a time: the rule the fast path
/// over runs of printable ASCII keeps.
fn one_line_by_char(text: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        push_shown(c, &mut out);
    }
    out
}

#[test]
fn a_row_is_the_same_copied_by_runs_as_char_by_char() {
    // Printable ASCII, the space and ASCII whitespace, controls, C1 controls, Unicode
    // spaces (no-break, em, next line, ideographic), accented, CJK, an emoji.
    let alphabet = [
        'a', 'Z', '~', '!', ' ', '\t', '\n', '\r', '\x0b', '\x0c', '\0', '\x1b', '\x1f', '\x7f',
        '\u{80}', '\u{85}', '\u{9b}', '\u{a0}', '\u{2003}', '\u{3000}', 'é', '修', '🎉',
    ];
    let mut seed = 11_u64;
    for len in 0..4000 {
        let text: String = (0..len % 60)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                alphabet[usize::try_from(seed >> 33).unwrap_or(0) % alphabet.len()]
            })
            .collect();
        assert_eq!(one_line(&text), one_line_by_char(&text), "{text:?}");
    }
}

#[rstest]
#[case("short", 10, "short")]
#[case("exactly10!", 10, "exactly10!")]
#[case("eleven chars", 10, "eleven ch…")]
#[case("ééééé", 3, "éé…")]
#[case("abc", 0, "…")]
// Two cells each: CJK, full-width forms, emoji.
#[case("修复的bug", 5, "修复…")]
#[case("修复的bug", 6, "修复…")]
#[case("修复的bug", 9, "修复的bug")]
#[case("ＦＵＬＬ", 5, "ＦＵ…")]
#[case("a🎉b🎉c", 4, "a🎉…")]
// A combining mark takes none.
#[case("cafe\u{301}!", 5, "cafe\u{301}!")]
fn cuts_end_in_an_ellipsis(#[case] text: &str, #[case] width: usize, #[case] want: &str) {
    assert_eq!(cut(text, width), want);
}

#[test]
fn a_match_far_into_a_row_is_brought_into_view() {
    let text = format!("{}MATCH and after", "x".repeat(100));
    let shown = around(&text, 100, 20);
    assert!(shown.starts_with('…') && shown.contains("MATCH"), "{shown}");
    assert_eq!(shown.chars().count(), 20);
    assert_eq!(around("MATCH at start", 0, 20), "MATCH at start");
    // The same in cells: a wide text before the match is skipped by its cells.
    let text = format!("{}MATCH and after", "宽".repeat(50));
    let at = text.find("MATCH").unwrap();
    let shown = around(&text, at, 20);
    assert!(shown.contains("MATCH"), "{shown}");
    assert!(width(&shown) <= 20, "{shown}: {} cells", width(&shown));
}

#[rstest]
#[case("plain", 5)]
#[case("修复", 4)]
#[case("Ｆ🎉", 4)]
#[case("e\u{301}", 1)]
fn width_counts_terminal_cells(#[case] text: &str, #[case] cells: usize) {
    assert_eq!(width(text), cells);
}
