//! Scenario 8: a user `/compact` is vetoed.

use std::time::Duration;

use notesoup_e2e::{Input, Match, Mode, Outcome, Reply, Script, Step};

use super::{boundaries, compactions, result_lines, run_clean, tmux_lines};

// ---------------------------------------------------------------------------------
// 8. A user /compact is vetoed with a one-line notice; nothing is compacted.

/// A script whose summary request, were one made, would be answered with a native summary.
fn veto_script() -> Script {
    Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .fallback(Reply::text("Hello."))
}

/// The user's `/compact` was vetoed: no summary request, no compaction on disk, and the
/// person was told so in one line that names notesoup.
fn assert_vetoed(out: &Outcome, notice: &str) {
    assert_eq!(compactions(out), 0, "a summary request was made");
    assert_eq!(boundaries(out), 0, "the transcript was compacted");
    assert!(
        notice.to_lowercase().contains("notesoup"),
        "the /compact notice: {notice:?}"
    );
    assert_eq!(
        notice.lines().count(),
        1,
        "the notice is not one line: {notice:?}"
    );
}

#[test]
fn s08_user_compact_is_vetoed() {
    let out = run_clean(
        "s08-veto",
        veto_script(),
        &Mode::StreamJson(vec![
            Input::Message("hello".into()),
            Input::Message("/compact".into()),
            Input::Message("still here?".into()),
        ]),
    );
    let results = result_lines(&out);
    assert_eq!(results.len(), 3);
    let notice = results[1]["result"]
        .as_str()
        .unwrap_or("")
        .trim()
        .to_owned();
    assert_vetoed(&out, &notice);
    // The conversation goes on uncompacted: the third turn still holds the first.
    let last = out.model_turn_requests().last().copied().unwrap();
    assert!(last.all_text().contains("hello"));
    assert!(!last.all_text().contains("NATIVE SUMMARY"));
}

// `-p` run of scenario 8.

#[test]
fn s08_user_compact_is_vetoed_print() {
    let out = run_clean(
        "s08-veto-print",
        veto_script(),
        &Mode::PrintContinued(vec!["hello".into(), "/compact".into()]),
    );
    let notice = out
        .stdout
        .trim()
        .strip_prefix("Hello.")
        .unwrap_or("")
        .trim();
    assert_vetoed(&out, notice);
}

// The terminal run of scenario 8: the notice is on the screen, under the command.

#[test]
fn s08_user_compact_is_vetoed_tmux() {
    let mode = tmux_lines(
        &[("hello", Some("Hello.")), ("/compact", None)],
        vec![
            Step::WaitFor(
                regex::escape(
                    "Not compacted · notesoup: /compact is off while notesoup manages this window",
                ),
                Duration::from_secs(30),
            ),
            Step::Capture("after-compact".into()),
        ],
    );
    let out = run_clean("s08-veto-tmux", veto_script(), &mode);
    assert_eq!(compactions(&out), 0, "a summary request was made");
    assert_eq!(boundaries(&out), 0, "the transcript was compacted");
}
