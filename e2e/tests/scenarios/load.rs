//! Scenarios 1 and 13: the mod loads in every mode (the nine tools, the boot in
//! the first user message), and `NOTESOUP_DISABLED=1` leaves Claude Code untouched.

use std::time::Duration;

use notesoup_e2e::{Input, Match, Mode, Outcome, Reply, Script, Step};

use super::{
    BOOT_CLOSE, all_tools, assert_clean_exit, assert_no_notesoup, claude_boots,
    is_compact_boundary, notesoup_tools, ordinal, result_lines, rows_containing, run, serial,
    session, tmux, windows,
};

// ---------------------------------------------------------------------------------
// 13. NOTESOUP_DISABLED=1: no tools, native compaction untouched.

#[test]
fn s13_disabled_no_tools_native_compaction_untouched() {
    let _one = serial();
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>e2e native summary of the chat</summary>"),
        )
        .then(Reply::text("hello from the scripted model"))
        .fallback(Reply::text("after compaction"));
    let mode = Mode::StreamJson(vec![
        Input::Message("say hello".into()),
        Input::Message("/compact".into()),
        Input::Message("and again".into()),
    ]);
    let out = session("s13-disabled", script)
        .env("NOTESOUP_DISABLED", "1")
        .run(&mode)
        .unwrap();
    assert_clean_exit(&out);
    assert_eq!(out.exit_code, Some(0));
    let requests = out.message_requests();
    assert!(!requests.is_empty(), "no request reached the service");
    for r in &requests {
        assert_no_notesoup(*r);
    }
    // Native compaction ran: one summary request, a boundary on disk, and the next turn
    // starts from Claude's own summary.
    let summaries = requests.iter().filter(|r| r.is_compaction()).count();
    assert_eq!(summaries, 1, "expected exactly one native summary request");
    assert!(
        out.main_rows().iter().any(|r| is_compact_boundary(r)),
        "no compact_boundary row in the transcript"
    );
    let last = requests.last().unwrap();
    assert!(!last.is_compaction());
    assert!(
        last.all_text().contains("e2e native summary of the chat"),
        "the turn after /compact does not start from the native summary"
    );
    assert!(
        out.debug_log.contains("NOTESOUP_DISABLED is set"),
        "the mod did not log that it is disabled"
    );
    let results = result_lines(&out);
    assert_eq!(results.len(), 3, "one result per message");
    assert_eq!(results[0]["result"], "hello from the scripted model");
}

// ---------------------------------------------------------------------------------
// 1. Load: the nine tools in the first request, the boot in the first user message.

fn assert_loaded(out: &Outcome) {
    assert_clean_exit(out);
    assert!(
        out.debug_log.contains("hooks module notesoup@"),
        "the debug log does not show the notesoup hooks module loading"
    );
    let requests = out.model_turn_requests();
    let first = requests.first().expect("no request reached the service");
    assert_eq!(
        notesoup_tools(*first),
        all_tools(),
        "the first request's notesoup tools"
    );
    let boot = first.head_text();
    assert!(
        claude_boots(&boot) > 0,
        "the conversation does not open with a boot:\n{boot}"
    );
    assert!(boot.contains(BOOT_CLOSE), "the boot is not closed:\n{boot}");
    let ids = windows(&boot);
    assert_eq!(ids.len(), 1, "one boot, not {}", ids.len());
    assert_eq!(
        ordinal(&ids[0]),
        Some(0),
        "the first window's id does not end in :0: {}",
        ids[0]
    );
    // `claude:<sessionId>:0`: the session whose transcript is on disk.
    let sid = ids[0].split(':').nth(1).unwrap_or("").to_owned();
    assert!(
        !sid.is_empty()
            && out
                .transcripts
                .iter()
                .any(|t| t.path.display().to_string().contains(&sid)),
        "window id {} does not name the session's transcript",
        ids[0]
    );
    assert!(
        !rows_containing(out, "<notesoup-boot window=").is_empty(),
        "no transcript row records the boot"
    );
}

#[test]
fn s01_load_print() {
    let out = run(
        "s01-load-print",
        Script::new().fallback(Reply::text("ok from the scripted model")),
        &Mode::Print("ok".into()),
    );
    assert_loaded(&out);
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout.trim(), "ok from the scripted model");
}

#[test]
fn s01_load_stream_json() {
    let out = run(
        "s01-load-stream-json",
        Script::new().fallback(Reply::text("ok from the scripted model")),
        &Mode::StreamJson(vec![
            Input::Message("ok".into()),
            Input::Message("again".into()),
        ]),
    );
    assert_loaded(&out);
    assert_eq!(out.exit_code, Some(0));
    let requests = out.model_turn_requests();
    assert_eq!(requests.len(), 2);
    // The boot is attached once: the second turn carries the same single boot.
    let second = requests[1].all_text();
    assert_eq!(claude_boots(&second), 1, "the boot is duplicated or lost");
    assert_eq!(notesoup_tools(requests[1]), all_tools());
}

#[test]
fn s01_load_interactive_tmux() {
    let mode = tmux(
        "ok",
        vec![
            Step::AfterRequests(1),
            Step::WaitFor("ok from the scripted model".into(), Duration::from_secs(60)),
            Step::Idle(Duration::from_secs(3)),
            Step::Capture("after-ok".into()),
        ],
    );
    let out = run(
        "s01-load-tmux",
        Script::new().fallback(Reply::text("ok from the scripted model")),
        &mode,
    );
    assert_loaded(&out);
    assert_eq!(out.exit_code, Some(0));
}

// `-p` run of scenario 13.

#[test]
fn s13_disabled_print() {
    let _one = serial();
    let out = session(
        "s13-disabled-print",
        Script::new().fallback(Reply::text("plain ok")),
    )
    .env("NOTESOUP_DISABLED", "1")
    .run(&Mode::Print("ok".into()))
    .unwrap();
    assert_clean_exit(&out);
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout.trim(), "plain ok");
    let requests = out.message_requests();
    assert_eq!(requests.len(), 1);
    assert_no_notesoup(requests[0]);
}

// A notes home notesoup cannot keep the session in (here a path under a file, which even
// root cannot make a folder of): notesoup is off for the session, as if absent, and the
// person reads why once, with the fix.

#[test]
fn an_unusable_notes_home_turns_notesoup_off_and_says_why_once() {
    let _one = serial();
    let out = session(
        "notes-home-unusable",
        Script::new().fallback(Reply::text("plain ok")),
    )
    .env("NOTESOUP_HOME", "/dev/null/notesoup")
    .run(&Mode::Print("ok".into()))
    .unwrap();
    assert_clean_exit(&out);
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout.trim(), "plain ok");
    for request in out.message_requests() {
        assert_no_notesoup(request);
    }
    let said = out
        .debug_log
        .matches("$.ui.log: notesoup is off for this session")
        .count();
    assert_eq!(said, 1, "the line saying why, in the transcript");
    assert!(
        out.debug_log
            .contains("set NOTESOUP_HOME to a folder you can write"),
        "the fix"
    );
}
