//! Rows fitted to the terminal: measured in the cells a terminal gives each character (CJK,
//! full-width and emoji take two), to `COLUMNS` when it is set, else to the terminal's own
//! width; into a pipe, whole.

use super::*;

/// The cells a terminal gives `line`, counted apart from the code under test for the
/// characters these tests write: CJK, Hangul, full-width forms and emoji take two, the rest
/// one.
fn cells(line: &str) -> usize {
    line.chars()
        .map(|c| match u32::from(c) {
            0x1100..=0x115f
            | 0x2e80..=0x303e
            | 0x3041..=0xa4cf
            | 0xac00..=0xd7a3
            | 0xf900..=0xfaff
            | 0xff01..=0xff60
            | 0xffe0..=0xffe6
            | 0x1f300..=0x1f64f
            | 0x1f900..=0x1f9ff => 2,
            _ => 1,
        })
        .sum()
}

/// Every line of `shown` fits in `columns` cells.
fn assert_fits(shown: &str, columns: usize) {
    for line in shown.lines() {
        assert!(
            cells(line) <= columns,
            "{} cells, over {columns}: {line}\n{shown}",
            cells(line)
        );
    }
}

/// Wide text: every row it is in is wider in cells than in characters.
const WIDE: &str = "修复 café 的 bug 🎉 with Ｆｕｌｌｗｉｄｔｈ ＴＥＸＴ and 한국어 and עברית,";

/// A session whose folder and answer are wide text.
fn wide_world(name: &str) -> World {
    let mut world = World::new(name);
    claude_session(
        &world,
        "dddd4444-0000-4000-8000-000000000001",
        "/work/项目/修复/全角ＦＯＬＤＥＲ/且很长的名字/app",
        "2026-11-03T10:00:00Z",
        &[WIDE; 4].join(" "),
    );
    world.set("NO_COLOR", "1");
    world
}

#[test]
fn rows_fit_the_terminal_in_cells_not_characters() {
    let mut world = wide_world("cells");
    for columns in ["80", "60"] {
        world.set("COLUMNS", columns);
        let columns: usize = columns.parse().unwrap();
        let show = world.run_on_terminal(&["history", "show", "claude:dddd4444", "--no-pager"]);
        assert!(show.contains("修复 café"), "{show}");
        assert_fits(&show, columns);
        let sessions = world.run_on_terminal(&["history", "sessions", "--no-pager"]);
        assert!(sessions.contains("/work/项目"), "{sessions}");
        assert_fits(&sessions, columns);
        // A search's heading too: its folder gives way, its session and count stay.
        let search = world.run_on_terminal(&["history", "search", "café", "--no-pager"]);
        assert!(
            search.contains("── claude:dddd4444-0000-4000-8000-000000000001  ")
                && search.contains("(1 match) ──"),
            "{search}"
        );
        assert_fits(&search, columns);
    }
    // Into a pipe, rows stay whole.
    let piped = world.run(&["history", "show", "claude:dddd4444"]);
    assert!(
        piped.stdout.contains(&[WIDE; 4].join(" ")) && !piped.stdout.contains('…'),
        "{}",
        piped.stdout
    );
}

#[test]
fn columns_wins_over_the_terminals_size() {
    let mut world = World::new("columns");
    world.set("NO_COLOR", "1");
    // The footer naming the next page is a command to copy: it stays whole (on stderr).
    let show = [
        "history",
        "show",
        "claude:da56055c",
        "--no-pager",
        "2>/dev/null",
    ];
    world.unset("COLUMNS");
    let wide = world.run_on_terminal_of(Some(150), &show);
    assert_fits(&wide, 150);
    assert!(
        wide.lines().any(|l| cells(l) > 100),
        "a 150-column terminal is used whole:\n{wide}"
    );
    world.set("COLUMNS", "60");
    let narrow = world.run_on_terminal_of(Some(150), &show);
    assert!(narrow.contains('…'), "{narrow}");
    assert_fits(&narrow, 60);
}

#[test]
fn the_notes_listing_fits_the_terminal() {
    let mut world = World::new("notes-width");
    seed(&world);
    world
        .brain()
        .write(
            "wide",
            "全角のメモ：このノートの最初の行はとても長いので端末の幅で切られるはずです。\n",
            None,
        )
        .unwrap();
    world.set("NO_COLOR", "1");
    world.set("COLUMNS", "50");
    let shown = world.run_on_terminal(&["notes", "--no-pager"]);
    // The first line is the brain's heading, a sentence the terminal wraps; the table fits.
    let table = shown.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(table.contains("wide ") && table.contains('…'), "{shown}");
    assert_fits(&table, 50);
    let piped = world.run(&["notes"]);
    assert!(
        piped.stdout.contains("端末の幅で切られるはずです。"),
        "{}",
        piped.stdout
    );
}

/// The row of a session with nothing said in it yet (Claude Code leaves empty files) is cut
/// to the terminal as every other row is (walk6 finding 11: on a 40-column terminal it ran
/// past the width and wrapped).
#[test]
fn an_empty_sessions_row_fits_the_terminal() {
    let mut world = wide_world("empty-row");
    fs::write(
        world.path("claude/projects/-made/eeee5555-0000-4000-8000-000000000001.jsonl"),
        "",
    )
    .unwrap();
    world.set("COLUMNS", "40");
    let sessions = world.run_on_terminal(&["history", "sessions", "--no-pager"]);
    assert!(sessions.contains("claude:eeee5555  "), "{sessions}");
    assert_fits(&sessions, 40);
    // Wide enough, it is said whole.
    world.set("COLUMNS", "100");
    let sessions = world.run_on_terminal(&["history", "sessions", "--no-pager"]);
    assert!(sessions.contains("(nothing said in it yet)"), "{sessions}");
}
