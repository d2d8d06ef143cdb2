//! Scenarios 3, 4, 5 and 10: `empty_brain` (terminate or continue once), the
//! cutoff after parallel reads, and interruptions.

use std::time::Duration;

use notesoup_e2e::{Input, Match, Mode, Outcome, Reply, Script, Step};
use serde_json::Value;

use super::{
    EMPTY_BRAIN, FRESH_BOOT, assert_clean_exit, assert_fresh_window, boundaries, compactions,
    empty_brain, fresh_window_requests, is_compact_boundary, plugin_prompts, reset_script, run,
    run_clean, serial, session, tmux,
};

// ---------------------------------------------------------------------------------
// 3. empty_brain with terminate: true.

/// One request, one commit, no kickoff, in each of the spec's three modes (the terminal
/// waits for the request and some quiet: nothing more may come).
#[rstest::rstest]
#[case::print("s03-terminate", Mode::Print("Clear your window now.".into()))]
#[case::stream_json(
    "s03-terminate-stream-json",
    Mode::StreamJson(vec![
        Input::Message("Clear your window now.".into()),
        Input::Idle(Duration::from_secs(4)),
    ])
)]
#[case::tmux(
    "s03-terminate-tmux",
    tmux(
        "Clear your window now.",
        vec![
            Step::AfterRequests(1),
            Step::Idle(Duration::from_secs(5)),
            Step::Capture("after-reset".into()),
        ],
    )
)]
fn s03_empty_brain_terminate_true(#[case] name: &str, #[case] mode: Mode) {
    let script = Script::new()
        .then(
            Reply::text("Saving and clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-THREE", Some(true))),
        )
        .fallback(Reply::text("(no request was expected)"));
    let out = run_clean(name, script, &mode);
    let requests = out.message_requests();
    assert_eq!(
        requests.len(),
        1,
        "one original request, no synthetic-step or kickoff request"
    );
    assert_eq!(
        boundaries(&out),
        1,
        "exactly one commit (compact boundary) on disk"
    );
    assert_eq!(compactions(&out), 0);
    assert_eq!(
        plugin_prompts(&out),
        0,
        "terminate: true, yet a continuation was submitted"
    );
    // The committed window holds the new boot, with the sticky note.
    let text = committed_boot(&out);
    assert!(
        text.contains("notesoup-boot window=\\\"claude:"),
        "no boot after the boundary"
    );
    assert!(
        text.contains("LW-THREE"),
        "the sticky note is not in the committed boot"
    );
}

/// The boot rows after the first compact boundary on disk, serialized (empty when none).
pub(super) fn committed_boot(out: &Outcome) -> String {
    out.main_rows()
        .into_iter()
        .skip_while(|r| !is_compact_boundary(r))
        .map(ToString::to_string)
        .filter(|t| t.contains("notesoup-boot window="))
        .collect()
}

// ---------------------------------------------------------------------------------
// 4. empty_brain with terminate false (explicit) and omitted: one commit, one fresh window.

fn assert_one_reset_one_continuation(out: &Outcome, sticky: &str) {
    assert_clean_exit(out);
    assert_eq!(
        boundaries(out),
        1,
        "exactly one commit (compact boundary) on disk"
    );
    let fresh = fresh_window_requests(out);
    assert_eq!(fresh.len(), 1, "exactly one fresh-window request");
    assert_fresh_window(out, fresh[0], Some(sticky), notesoup_boot::Reset::Normal);
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        2,
        "the original request and the one continuation"
    );
    assert_eq!(plugin_prompts(out), 1, "one continuation prompt on disk");
}

#[rstest::rstest]
#[case::explicit_false("s04-explicit", Some(false))]
#[case::omitted("s04-omitted", None)]
fn s04_empty_brain_continues_once_print(#[case] name: &str, #[case] terminate: Option<bool>) {
    let out = run(
        name,
        reset_script("LW-FOUR", terminate),
        &Mode::Print("Clear your window now.".into()),
    );
    assert_one_reset_one_continuation(&out, "LW-FOUR");
    // Measured (claude-hooks/EVENTS.md): after the worker's /compact the boot row the hook
    // returned is appended through door `prompt`, not `compaction` (the boundary's door).
    assert!(
        out.debug_log
            .contains("the compaction's user row came through door prompt"),
        "the boot row did not come through door prompt"
    );
}

#[test]
fn s04_empty_brain_continues_once_stream_json() {
    let out = run(
        "s04-stream-json",
        reset_script("LW-FOUR-SJ", Some(false)),
        &Mode::StreamJson(vec![
            Input::Message("Clear your window now.".into()),
            // The continuation is the plugin's own turn: wait for its request, then quiet.
            Input::AfterRequests(2),
            Input::Idle(Duration::from_secs(3)),
        ]),
    );
    assert_one_reset_one_continuation(&out, "LW-FOUR-SJ");
}

/// An SDK client sends its next message as soon as the reset turn's `result` arrives. The
/// engine has read it before the worker's `/compact` is queued, so it answers it in the
/// old window and runs the compaction nested in the end of that turn, appending its rows
/// after that turn's `turn.complete` (claude-hooks/EVENTS.md, "A message sent at the reset
/// turn's result"). The reset still commits, the message took it over (no continuation),
/// and the person is never told the boot was not confirmed.
#[test]
fn s04_a_message_sent_at_the_reset_turns_result_stream_json() {
    let script = reset_script("LW-FOUR-NEXT", Some(false)).rule(
        Match::tail_contains("NEXT-AT-RESULT"),
        Reply::text("Answering the next message."),
    );
    let out = run(
        "s04-next-at-result",
        script,
        &Mode::StreamJson(vec![
            Input::Message("Clear your window now.".into()),
            Input::Message("NEXT-AT-RESULT: and what next?".into()),
            Input::Idle(Duration::from_secs(4)),
        ]),
    );
    assert_clean_exit(&out);
    assert_eq!(
        boundaries(&out),
        1,
        "exactly one commit (compact boundary) on disk"
    );
    assert!(
        !out.debug_log.contains("not confirmed"),
        "the person was told the boot was not confirmed although the reset committed"
    );
    assert!(
        out.debug_log
            .contains("fresh window ready; not continuing: your input continues it"),
        "the person was not told the fresh window is ready"
    );
    assert_eq!(
        plugin_prompts(&out),
        0,
        "a continuation ran over the person's message"
    );
    let last = *out.model_turn_requests().last().expect("a model request");
    assert!(
        last.all_text().contains("NEXT-AT-RESULT"),
        "the last request is not the next message's"
    );
}

#[test]
fn s04_empty_brain_continues_once_tmux() {
    let mode = tmux(
        "Clear your window now.",
        vec![
            Step::AfterRequests(2),
            Step::Idle(Duration::from_secs(4)),
            Step::Capture("after-reset".into()),
        ],
    );
    let out = run("s04-tmux", reset_script("LW-FOUR-TMUX", None), &mode);
    assert_one_reset_one_continuation(&out, "LW-FOUR-TMUX");
}

// ---------------------------------------------------------------------------------
// 5. Parallel Read siblings (one fast, one slow) in the batch with empty_brain.

#[test]
fn s05_parallel_reads_land_before_the_cutoff() {
    let _one = serial();
    let session_name = "s05-parallel";
    let script_for = |work: &std::path::Path| {
        let fast = work.join("fast.txt").display().to_string();
        let slow = work.join("slow.fifo").display().to_string();
        Script::new()
            .then(
                Reply::text("Reading both, then clearing.")
                    .and_tool_with_id(
                        "toolu_fast_read",
                        "Read",
                        serde_json::json!({"file_path": fast}),
                    )
                    .and_tool_with_id(
                        "toolu_slow_read",
                        "Read",
                        serde_json::json!({"file_path": slow}),
                    )
                    .and_tool_with_id(
                        "toolu_empty_brain",
                        EMPTY_BRAIN,
                        empty_brain("LW-FIVE", Some(true)),
                    ),
            )
            .fallback(Reply::text("(fallback)"))
    };
    let dir = notesoup_e2e::fresh_run_dir(session_name);
    let work = dir.join("work");
    let session = session(session_name, script_for(&work))
        .run_dir(&dir)
        .file("fast.txt", "FAST-CONTENT\n");
    // The slow sibling: a named pipe whose writer answers 2 s after the reader opens it.
    std::fs::create_dir_all(&work).unwrap();
    let fifo = work.join("slow.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let writer = std::thread::spawn(move || {
        // Opening for write blocks until Read opens the pipe.
        if let Ok(mut pipe) = std::fs::OpenOptions::new().write(true).open(&fifo) {
            std::thread::sleep(Duration::from_secs(2));
            let _ = std::io::Write::write_all(&mut pipe, b"SLOW-CONTENT\n");
        }
    });
    let out = session
        .run(&Mode::Print("Read both files, then clear.".into()))
        .unwrap();
    assert_clean_exit(&out);
    assert!(writer.is_finished(), "the slow Read never opened its pipe");
    assert_eq!(
        out.message_requests().len(),
        1,
        "no request after the batch (terminate: true)"
    );
    let rows = out.main_rows();
    let boundary = rows
        .iter()
        .position(|r| is_compact_boundary(r))
        .expect("no commit on disk");
    let result_at = |id: &str| {
        rows.iter()
            .position(|r| r.to_string().contains(&format!("\"tool_use_id\":\"{id}\"")))
            .unwrap_or_else(|| panic!("no tool_result row for {id}"))
    };
    for id in ["toolu_fast_read", "toolu_slow_read", "toolu_empty_brain"] {
        assert!(
            result_at(id) < boundary,
            "{id}'s result landed after the cutoff/commit"
        );
    }
    let slow_row = rows[result_at("toolu_slow_read")].to_string();
    assert!(
        slow_row.contains("SLOW-CONTENT"),
        "the slow Read's result is not its content: {slow_row}"
    );
}

// ---------------------------------------------------------------------------------
// 10. Interruption and a dropped continuation are reported, never compacted twice.

#[test]
fn s10_interrupted_turn_does_not_reset() {
    let _one = serial();
    let script = Script::new()
        .then(
            Reply::text("Clearing after this command.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-TEN", Some(false)))
                .and_tool(
                    "Bash",
                    serde_json::json!({"command": "sleep 6; echo slept", "description": "wait"}),
                ),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session("s10-interrupt", script)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::StreamJson(vec![
            Input::Send("Clear your window after a long command.".into()),
            Input::AfterRequests(1),
            Input::Wait(Duration::from_secs(2)),
            Input::Raw(
                serde_json::json!({"type": "control_request", "request_id": "e2e-interrupt-1",
                                          "request": {"subtype": "interrupt"}}),
            ),
            Input::AwaitResult(Duration::from_secs(20)),
            Input::Wait(Duration::from_secs(2)),
        ]))
        .unwrap();
    assert!(!out.timed_out);
    assert_eq!(boundaries(&out), 0, "an interrupted turn committed a reset");
    assert_eq!(compactions(&out), 0);
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a continuation ran after the interruption"
    );
    let reported = regex::Regex::new(r"(?i)cancel\w*\W.*(abort|interrupt)").unwrap();
    assert!(
        reported.is_match(&out.mod_log),
        "the interruption's cancelled reset is not reported"
    );
}

#[test]
fn s10_failed_continuation_is_reported_not_compacted_again() {
    let script = Script::new()
        .then(Reply::text("Clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-TEN-B", Some(false))))
        .rule(
            Match::tail_contains(FRESH_BOOT).and_tool_result(false),
            Reply::error(400, "invalid_request_error"),
        )
        .fallback(Reply::text("(fallback)"));
    let out = run(
        "s10-dropped",
        script,
        &Mode::Print("Clear your window now.".into()),
    );
    assert!(!out.timed_out);
    assert_eq!(
        boundaries(&out),
        1,
        "exactly one commit, never a second compaction"
    );
    assert_eq!(compactions(&out), 0);
    // Claude itself retries a failed request (same turn); notesoup must not start a
    // second continuation: one plugin-submitted prompt on disk.
    assert!(
        !fresh_window_requests(&out).is_empty(),
        "no continuation was tried"
    );
    assert_eq!(
        plugin_prompts(&out),
        1,
        "one continuation prompt, whatever Claude's own retries"
    );
    let reported = regex::Regex::new(r"(?i)continuation\W+(\w+\W+)?(failed|dropped)").unwrap();
    assert!(
        reported.is_match(&out.mod_log)
            || reported.is_match(&out.stdout)
            || reported.is_match(&out.stderr),
        "the failed continuation is not reported (mod log, stdout or stderr)"
    );
}

// ---------------------------------------------------------------------------------
// A failed worker compaction in a single `-p` run (issue 26, item 9): tried once more in
// the same process, then left pending, with the reason it failed.

/// A helper that fails the `session.compact` hook and is the run's own helper otherwise:
/// the reset's own compaction gets no answer. It runs in the run's `work` folder, beside
/// the run's copy of the plugin.
fn failing_compaction_helper() -> std::path::PathBuf {
    super::wrapped_helper(
        "failing-compact",
        "  *'\"event\":\"session.compact\"'*) echo 'injected failure' >&2; exit 1 ;;\n",
    )
}

/// The helper fails while answering the reset's own compaction. The module vetoes it,
/// never handing it to Claude's own summary (which the service would answer: the window
/// would be summarised, twice with the retry; spec: "no compaction model request is made",
/// "Boot acquisition failure vetoes an explicit reset without advancing the window"), and
/// the flow hears a failure: tried once more at once, then left pending for the next run.
#[test]
fn s14_a_failed_worker_compaction_in_print_is_tried_once_more_then_left_pending() {
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(
            Reply::text("Saving and clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-NINE", Some(false))),
        )
        .fallback(Reply::text("(fallback)"));
    let helper = failing_compaction_helper();
    let out = {
        let _one = serial();
        session("s14-failed-compaction", script)
            .env("NOTESOUP_HELPER", helper.to_str().unwrap())
            .run(&Mode::Print("Clear your window now.".into()))
            .unwrap()
    };
    let _ = std::fs::remove_file(&helper);
    assert!(!out.timed_out);
    assert!(
        out.debug_log.contains("hook session.compact refused"),
        "the injected helper failure did not happen: the scenario proves nothing"
    );
    assert_eq!(
        compactions(&out),
        0,
        "Claude's own summary ran for the reset"
    );
    assert_eq!(boundaries(&out), 0, "the window was compacted");
    // What the person sees: the turn's end, then why nothing was cleared, each attempt.
    assert!(
        out.stdout
            .contains("Context window is being cleared by notesoup")
    );
    assert!(
        out.stdout
            .matches("the fresh window could not be prepared")
            .count()
            >= 2,
        "the compaction was not tried again in the same run: {}",
        out.stdout
    );
    // notesoup heard the failure (not "not admitted"), tried once more, then left it pending.
    let reports: Vec<&str> = out
        .debug_log
        .lines()
        .filter(|l| {
            l.contains("the window was not cleared (the fresh window could not be prepared")
        })
        .collect();
    assert!(
        reports.len() == 2
            && reports[0].contains("trying once more now")
            && reports[1].contains("retried after the next turn"),
        "the failure reports: {reports:?}"
    );
    let id = super::main_session(&out);
    let path = out.notes_home.join(format!("windows/claude/{id}.json"));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let request = &record["state"]["flow"]["request"];
    assert_eq!(request["attempts"], 2, "{request}");
    assert_eq!(
        request["args"]["sticky"], "LW-NINE",
        "the request is kept for the next run"
    );
}

// ---------------------------------------------------------------------------------
// A boot that cannot be built vetoes the explicit reset: no summary, nothing cleared.

/// The model breaks the notes home (its `brains` folder becomes a link, which notesoup never
/// follows) in the batch that asks for the reset: the boot of the fresh window cannot be
/// built, so the reset's compaction is vetoed, never handed to Claude's own summary, and
/// the window stays as it was (spec: "Boot acquisition failure vetoes an explicit reset
/// without advancing the window").
#[test]
fn s15_a_boot_that_cannot_be_built_vetoes_the_explicit_reset() {
    let script = Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(
            Reply::text("Breaking the brain, then clearing.")
                .and_tool(
                    "Bash",
                    serde_json::json!({
                        "command": "rm -rf \"$NOTESOUP_HOME/brains\" && ln -s /nonexistent-s15 \"$NOTESOUP_HOME/brains\"",
                        "description": "break the notes home"
                    }),
                )
                .and_tool(EMPTY_BRAIN, empty_brain("LW-FIFTEEN", Some(false))),
        )
        .fallback(Reply::text("(fallback)"));
    let out = {
        let _one = serial();
        session("s15-boot-fails", script)
            .args(&["--allowedTools", "Bash"])
            .run(&Mode::Print("Clear your window now.".into()))
            .unwrap()
    };
    assert_clean_exit(&out);
    assert!(
        out.stdout.contains("the boot could not be built"),
        "the person is not told why nothing was cleared: {}",
        out.stdout
    );
    assert_eq!(
        compactions(&out),
        0,
        "Claude's own summary ran for an explicit reset"
    );
    assert_eq!(boundaries(&out), 0, "the window was cleared without a boot");
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a fresh window opened"
    );
    assert_eq!(plugin_prompts(&out), 0, "a continuation was submitted");
}
