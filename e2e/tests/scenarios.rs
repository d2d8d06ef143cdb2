//! Issue 7's scenarios against the real Claude Code 2.1.319, one test each; issue 11's
//! (the window's state across processes, forks and reactive compaction) in `windows`.
//!
//! Each runs the real CLI against the scripted service with a copy of the plugin
//! (`NOTESOUP_E2E_PLUGIN_DIR`, default `plugins/claude`) and asserts on the requests the
//! service received, the transcript rows on disk and what the session printed. Runs are
//! serialized (two cores). Scenarios the mod cannot do yet are behind the
//! `e2e-pending` feature: without it they are listed as ignored, with the reason
//! (`cargo test -p notesoup-e2e --features real-claude -- --ignored --list`).
#![allow(
    clippy::unwrap_used,
    reason = "a scenario that cannot set up must fail loudly"
)]
#![allow(clippy::missing_panics_doc, reason = "test helpers")]

use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use notesoup_e2e::{Harness, Input, Match, Mode, Outcome, Reply, Script, Step};
use notesoup_history_core::window;
use serde_json::Value;

#[path = "scenarios/spawns.rs"]
mod spawns;
#[path = "scenarios/windows.rs"]
mod windows;

/// Issue 6's eight tools and issue 8's `history_sessions`.
const TOOLS: [&str; 9] = [
    "mcp__notesoup__notes_list",
    "mcp__notesoup__notes_read",
    "mcp__notesoup__notes_write",
    "mcp__notesoup__notes_edit",
    "mcp__notesoup__notes_delete",
    "mcp__notesoup__history_list",
    "mcp__notesoup__history_read",
    "mcp__notesoup__history_sessions",
    "mcp__notesoup__empty_brain",
];
const BOOT_CLOSE: &str = window::MARKER_CLOSE;
/// The end of the opening line of window 1's boot (`<notesoup-boot window="claude:<id>:1">`).
const FRESH_BOOT: &str = ":1\">";

/// One real Claude Code at a time: two cores.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| Harness::from_env().unwrap())
}

/// A session of the real CLI with the scenarios' 90 s bound; add env or args, then `.run`.
fn session(name: &str, script: Script) -> notesoup_e2e::Session<'static> {
    harness()
        .session(name, script)
        .timeout(Duration::from_secs(90))
}

/// Runs a scenario's session under the one-at-a-time lock.
fn run(name: &str, script: Script, mode: &Mode) -> Outcome {
    let _one = serial();
    session(name, script).run(mode).unwrap()
}

/// [`run`], then [`assert_clean_exit`].
fn run_clean(name: &str, script: Script, mode: &Mode) -> Outcome {
    let out = run(name, script, mode);
    assert_clean_exit(&out);
    out
}

/// An interactive run: wait for the prompt, type `prompt`, press Enter, then `middle`,
/// then `/exit` and wait for the CLI to end.
fn tmux(prompt: &str, middle: Vec<Step>) -> Mode {
    let mut steps = vec![
        Step::WaitFor("(❯|>)".into(), Duration::from_secs(60)),
        Step::Sleep(Duration::from_secs(2)),
        Step::Type(prompt.into()),
        Step::Sleep(Duration::from_millis(500)),
        Step::Key("Enter".into()),
    ];
    steps.extend(middle);
    steps.extend([
        Step::Type("/exit".into()),
        Step::Sleep(Duration::from_millis(500)),
        Step::Key("Enter".into()),
        Step::WaitFor(r"\[claude exited".into(), Duration::from_secs(20)),
    ]);
    Mode::Tmux(steps)
}

/// The texts of `request`'s tool results, one a line.
fn tool_results_text(request: notesoup_e2e::Request<'_>) -> String {
    request
        .tool_results()
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `result` objects a stream-json run printed, one per message.
fn result_lines(out: &Outcome) -> Vec<Value> {
    out.stdout_json()
        .into_iter()
        .filter(|v| v["type"] == "result")
        .collect()
}

/// A request of a disabled run: no notesoup tool listed, no boot anywhere in it.
fn assert_no_notesoup(request: notesoup_e2e::Request<'_>) {
    assert!(
        notesoup_tools(request).is_empty(),
        "notesoup tools listed while disabled: {:?}",
        notesoup_tools(request)
    );
    assert!(
        claude_boots(&request.all_text()) == 0,
        "a boot while disabled"
    );
}

fn notesoup_tools(request: notesoup_e2e::Request<'_>) -> Vec<String> {
    let mut names: Vec<String> = request
        .tool_names()
        .into_iter()
        .filter(|n| n.starts_with("mcp__notesoup__"))
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

fn all_tools() -> Vec<String> {
    let mut names: Vec<String> = TOOLS.iter().map(|s| (*s).to_owned()).collect();
    names.sort();
    names
}

fn assert_clean_exit(out: &Outcome) {
    assert!(!out.timed_out, "session timed out");
    assert!(
        out.failures.is_empty(),
        "driver failures: {:?}",
        out.failures
    );
    assert!(
        !out.stderr.contains("hooks module not loaded"),
        "the engine refused the mod: {}",
        out.stderr
    );
}

/// Rows of the main transcripts whose serialized form contains `needle`.
fn rows_containing<'a>(out: &'a Outcome, needle: &str) -> Vec<&'a Value> {
    out.main_rows()
        .into_iter()
        .filter(|r| r.to_string().contains(needle))
        .collect()
}

fn is_compact_boundary(row: &Value) -> bool {
    row.get("subtype").and_then(Value::as_str) == Some("compact_boundary")
}

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

// ---------------------------------------------------------------------------------
// Shared pieces of the reset scenarios.

const EMPTY_BRAIN: &str = "mcp__notesoup__empty_brain";

/// The window ids of every boot in `text`, in order.
fn windows(text: &str) -> Vec<String> {
    window::marker_ids(text).map(str::to_owned).collect()
}

/// How many Claude boots a request's text opens (every copy counts).
fn claude_boots(text: &str) -> usize {
    window::marker_ids(text)
        .filter(|id| id.starts_with("claude:"))
        .count()
}

fn ordinal(id: &str) -> Option<u32> {
    id.parse::<window::WindowId>().ok().map(|w| w.ordinal())
}

fn boundaries(out: &Outcome) -> usize {
    out.main_rows()
        .into_iter()
        .filter(|r| is_compact_boundary(r))
        .count()
}

fn compactions(out: &Outcome) -> usize {
    out.message_requests()
        .iter()
        .filter(|r| r.is_compaction())
        .count()
}

/// The requests that open a fresh window: their first user message carries a boot
/// with an ordinal above 0.
fn fresh_window_requests(out: &Outcome) -> Vec<notesoup_e2e::Request<'_>> {
    out.model_turn_requests()
        .into_iter()
        .filter(|r| {
            windows(&r.head_text())
                .first()
                .and_then(|w| ordinal(w))
                .is_some_and(|o| o > 0)
        })
        .collect()
}

/// How Claude 2.1.319 frames a prompt a plugin submits (`$.prompt.submit`).
const PLUGIN_PROMPT: &str = "The notesoup plugin sent a message:";

/// The plugin-submitted prompts (continuations, close-outs) in the main transcripts.
fn plugin_prompts(out: &Outcome) -> usize {
    out.main_rows()
        .into_iter()
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("user"))
        .filter(|r| {
            notesoup_e2e::content_text(r.pointer("/message/content")).contains(PLUGIN_PROMPT)
        })
        .count()
}

fn empty_brain(last_word: &str, terminate: Option<bool>) -> Value {
    match terminate {
        Some(t) => serde_json::json!({"last_word": last_word, "terminate": t}),
        None => serde_json::json!({"last_word": last_word}),
    }
}

/// Asserts the fresh window's request: the conversation starts with the boot of window
/// `:1`, a handoff paragraph of the right pool follows the boot (normal after the model's
/// own `empty_brain`, forced after a budget clear), the old window is gone, no summary was
/// asked for.
fn assert_fresh_window(
    out: &Outcome,
    fresh: notesoup_e2e::Request<'_>,
    sticky: Option<&str>,
    pool: notesoup_boot::Reset,
) {
    let first = fresh.head_text();
    let ids = windows(&first);
    assert_eq!(
        ids.len(),
        1,
        "the fresh window must open with one boot:\n{first}"
    );
    assert_eq!(
        ordinal(&ids[0]),
        Some(1),
        "the fresh window is not ordinal 1: {}",
        ids[0]
    );
    let all = fresh.all_text();
    assert!(
        !windows(&all).iter().any(|w| ordinal(w) == Some(0)),
        "the old window's boot is still in the conversation"
    );
    let after = first.split(BOOT_CLOSE).nth(1).unwrap_or("").trim();
    assert!(
        !after.is_empty(),
        "no handoff paragraph after the boot:\n{first}"
    );
    let paragraphs = notesoup_boot::handoff_pool(pool);
    assert!(
        paragraphs.iter().any(|p| after.starts_with(p)),
        "the paragraph after the boot is not from the {pool:?} handoff pool:\n{after}"
    );
    if let Some(sticky) = sticky {
        assert!(
            all.contains(sticky),
            "the sticky last_word {sticky:?} is not in the fresh window"
        );
    }
    assert_eq!(
        compactions(out),
        0,
        "a summary (compaction) request was made"
    );
}

// ---------------------------------------------------------------------------------
// 2. Notes round trip.

fn files_under(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            out.push((path, text));
        }
    }
}

#[test]
fn s02_notes_round_trip() {
    let tool = |name: &str, input: Value| Reply::tool(&format!("mcp__notesoup__{name}"), input);
    let after = |needle: &str| Match::tool_result(true).and_user_contains(needle);
    let script = Script::new()
        .then(tool(
            "notes_write",
            serde_json::json!({"name": "plan", "text": "step one: MANGO-7"}),
        ))
        .then_when(
            Match::tool_result(true),
            tool(
                "notes_edit",
                serde_json::json!({"name": "plan", "old": "one", "new": "two"}),
            ),
        )
        .then_when(
            Match::tool_result(true),
            tool("notes_list", serde_json::json!({})),
        )
        .then_when(
            after("plan"),
            tool("notes_read", serde_json::json!({"name": "plan"})),
        )
        .then_when(
            Match::tool_result(true),
            Reply::text("Notes saved and checked."),
        )
        .fallback(Reply::text("(unexpected request)"));
    let out = run_clean(
        "s02-notes",
        script,
        &Mode::Print("Keep a plan note.".into()),
    );
    let requests = out.model_turn_requests();
    assert_eq!(requests.len(), 5, "write, edit, list, read, answer");
    let results: Vec<String> = requests[1..]
        .iter()
        .map(|r| tool_results_text(*r))
        .collect();
    for (i, body) in requests[1..].iter().enumerate() {
        let last = body.user_messages().last().copied().unwrap();
        assert!(
            !last.to_string().contains("\"is_error\":true"),
            "tool result {i} is an error: {}",
            results[i]
        );
    }
    assert!(
        results[2].contains("plan"),
        "notes_list does not list the note: {}",
        results[2]
    );
    assert!(
        results[3].contains("step two: MANGO-7"),
        "notes_read: {}",
        results[3]
    );
    let mut files = Vec::new();
    files_under(&out.notes_home, &mut files);
    let on_disk: Vec<_> = files
        .iter()
        .filter(|(_, t)| t.contains("MANGO-7"))
        .collect();
    assert_eq!(
        on_disk.len(),
        1,
        "the note on disk under {}: {files:?}",
        out.notes_home.display()
    );
    assert_eq!(on_disk[0].1.trim_end(), "step two: MANGO-7");
    assert_eq!(out.stdout.trim(), "Notes saved and checked.");
}

// ---------------------------------------------------------------------------------
// 3. empty_brain with terminate: true.

#[test]
fn s03_empty_brain_terminate_true() {
    let script = Script::new()
        .then(
            Reply::text("Saving and clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-THREE", Some(true))),
        )
        .fallback(Reply::text("(no request was expected)"));
    let out = run_clean(
        "s03-terminate",
        script,
        &Mode::Print("Clear your window now.".into()),
    );
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
    let after: Vec<&Value> = out
        .main_rows()
        .into_iter()
        .skip_while(|r| !is_compact_boundary(r))
        .collect();
    let text: String = after.iter().map(ToString::to_string).collect();
    assert!(
        text.contains("notesoup-boot window=\\\"claude:"),
        "no boot after the boundary"
    );
    assert!(
        text.contains("LW-THREE"),
        "the sticky note is not in the committed boot"
    );
}

// ---------------------------------------------------------------------------------
// 4. empty_brain with terminate false (explicit) and omitted: one commit, one fresh window.

fn reset_script(last_word: &str, terminate: Option<bool>) -> Script {
    Script::new()
        .rule(
            Match::compaction(),
            Reply::text("<summary>NATIVE SUMMARY</summary>"),
        )
        .then(
            Reply::text("Saving and clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain(last_word, terminate)),
        )
        .then_when(
            Match::tail_contains(FRESH_BOOT),
            Reply::text("Fresh window: carrying on."),
        )
        .fallback(Reply::text("(fallback)"))
}

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
    // Measured (reset-flow/EVENTS.md): after the worker's /compact the boot row the hook
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
// 6. Budget: warning once per window; the hard point clears with the forced handoff.

/// With this window Claude's own point is 167 000 tokens, notesoup's hard point
/// 167 000 − 8 192 = 158 808 and its warning point 158 808 − 16 384 = 142 424.
const WINDOW_200K: (&str, &str) = ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "200000");

#[test]
fn s06_budget_warning_once_then_hard_clear() {
    let _one = serial();
    let list = || Reply::tool("mcp__notesoup__notes_list", serde_json::json!({}));
    let script = Script::new()
        .then(list().with_input_tokens(150_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(151_000))
        .then_when(Match::tool_result(true), list().with_input_tokens(160_000))
        // Window 1: past the warning point again; the warning is due once more.
        .then_when(
            Match::tail_contains(FRESH_BOOT),
            list().with_input_tokens(150_000),
        )
        .then_when(
            Match::tool_result(true),
            Reply::text("Fresh window, notes checked."),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session("s06-budget", script)
        .env(WINDOW_200K.0, WINDOW_200K.1)
        .run(&Mode::Print("Work until the budget runs out.".into()))
        .unwrap();
    assert_clean_exit(&out);
    let requests = out.model_turn_requests();
    assert!(
        requests.len() >= 3,
        "the run stopped before the warning could show"
    );
    let warned = |r: &notesoup_e2e::Request<'_>| r.tail_text().contains(EMPTY_BRAIN);
    assert!(
        warned(&requests[1]),
        "the tool result past the warning point carries no warning"
    );
    assert!(
        !warned(&requests[2]),
        "the warning came twice in one window"
    );
    assert_eq!(
        requests.len(),
        5,
        "the hard point ends the turn (no request for its tool result), one continuation, \
         then the fresh window's own tool round"
    );
    assert!(
        !requests[3].has_tool_result(),
        "the continuation carries a stale tool result"
    );
    assert_eq!(boundaries(&out), 1);
    let fresh: Vec<_> = fresh_window_requests(&out)
        .into_iter()
        .filter(|r| !r.has_tool_result())
        .collect();
    assert_eq!(fresh.len(), 1, "exactly one continuation");
    assert_fresh_window(&out, fresh[0], None, notesoup_boot::Reset::Forced);
    assert_eq!(plugin_prompts(&out), 1, "one continuation prompt on disk");
    // Once per window: the new window warns again.
    assert!(
        warned(&requests[4]),
        "the fresh window past its warning point was not warned"
    );
}

// ---------------------------------------------------------------------------------
// 7. /fresh-window while idle: one hidden close-out turn; STOP holds; no continuation.

/// `/fresh-window`'s close-out ran once and STOP held: the first turn and one close-out
/// turn whose tail carries `warning`, one commit, no summary, the close-out prompt only.
fn assert_one_close_out(out: &Outcome, warning: &str) {
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        2,
        "the first turn and one close-out turn, no continuation"
    );
    assert!(
        requests[1].tail_text().contains(warning),
        "the close-out turn carries no budget warning"
    );
    assert_eq!(boundaries(out), 1, "the close-out commits once");
    assert_eq!(compactions(out), 0);
    assert_eq!(
        plugin_prompts(out),
        1,
        "the close-out prompt and no continuation prompt"
    );
}

#[test]
fn s07_fresh_window_close_out_stops() {
    let script = Script::new()
        .then(Reply::text("Hello."))
        .then_when(
            Match::tail_contains(EMPTY_BRAIN).and_tool_result(false),
            Reply::text("Closing out.").and_tool(EMPTY_BRAIN, empty_brain("LW-SEVEN", Some(false))),
        )
        .fallback(Reply::text("(no continuation was expected)"));
    let out = run_clean(
        "s07-fresh-window",
        script,
        &Mode::StreamJson(vec![
            Input::Message("hello".into()),
            Input::Message("/fresh-window".into()),
            // The close-out is a hidden turn of its own: wait for its request, then quiet.
            Input::AfterRequests(2),
            Input::Idle(Duration::from_secs(3)),
        ]),
    );
    assert_one_close_out(&out, EMPTY_BRAIN);
    assert!(
        !out.message_bodies()
            .iter()
            .any(|b| b.to_string().contains("(no continuation was expected)")),
        "a continuation ran"
    );
}

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

// ---------------------------------------------------------------------------------
// 9. Natural input delivered inside the running turn releases the cutoff; no replay.

#[test]
fn s09_natural_input_releases_the_cutoff() {
    let _one = serial();
    let natural = "NATURAL-INPUT-9: wait, one more thing";
    let script = Script::new()
        .then(
            Reply::text("Clearing after this command.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-NINE", Some(false)))
                .and_tool(
                    "Bash",
                    serde_json::json!({"command": "sleep 3; echo slept", "description": "wait"}),
                )
                .with_delay_ms(500),
        )
        .then_when(
            Match::tail_contains("NATURAL-INPUT-9"),
            Reply::text("Noted your extra thing."),
        )
        .fallback(Reply::text("(fallback)"));
    let out = session("s09-natural", script)
        .args(&["--allowedTools", "Bash"])
        .run(&Mode::StreamJson(vec![
            Input::Send("Clear your window after a short command.".into()),
            Input::AfterRequests(1),
            Input::Wait(Duration::from_secs(1)),
            Input::Send(natural.into()),
            Input::AwaitResult(Duration::from_secs(20)),
            Input::Wait(Duration::from_secs(2)),
        ]))
        .unwrap();
    assert_clean_exit(&out);
    let carrying: Vec<_> = out
        .model_turn_requests()
        .into_iter()
        .filter(|r| r.tail_text().contains("NATURAL-INPUT-9"))
        .collect();
    assert_eq!(
        carrying.len(),
        1,
        "the natural input reached the model exactly once (no replay)"
    );
    let fresh = fresh_window_requests(&out);
    assert!(
        fresh.is_empty(),
        "a plugin continuation ran although natural input took over"
    );
    assert_eq!(
        plugin_prompts(&out),
        0,
        "a continuation was submitted over natural input"
    );
    // The reset itself still happens once the natural turn is done (no continuation).
    assert_eq!(
        boundaries(&out),
        1,
        "the requested reset did not commit after the natural turn"
    );
    let all: Vec<String> = out
        .model_turn_requests()
        .iter()
        .map(notesoup_e2e::Request::all_text)
        .collect();
    let replays = all
        .iter()
        .filter(|t| t.matches("NATURAL-INPUT-9").count() > 1)
        .count();
    assert_eq!(
        replays, 0,
        "the natural input was replayed into a conversation"
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
// 11. History after a reset: the fresh window finds the old window's message.

/// The seq of the event that `history_list` shows on the line holding `needle`.
fn seq_on_line(listing: &str, needle: &str) -> Option<u64> {
    let re = regex::Regex::new(r"(?i)(?:seq[ :=#]*|#)(\d+)").unwrap();
    let line = listing.lines().find(|l| l.contains(needle))?;
    re.captures(line)
        .and_then(|c| c[1].parse().ok())
        .or_else(|| {
            regex::Regex::new(r"\d+")
                .unwrap()
                .find(line)
                .and_then(|m| m.as_str().parse().ok())
        })
}

#[test]
fn s11_history_after_reset() {
    let script = Script::new()
        .then(
            Reply::text("Noted; clearing.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-ELEVEN", Some(false))),
        )
        .then_when(
            Match::tail_contains(FRESH_BOOT).and_tool_result(false),
            Reply::tool(
                "mcp__notesoup__history_list",
                serde_json::json!({"query": "PAPAYA-42"}),
            ),
        )
        .then_with(Match::tool_result(true), |req| {
            let listing = tool_results_text(*req);
            match seq_on_line(&listing, "PAPAYA-42") {
                Some(seq) => Reply::tool(
                    "mcp__notesoup__history_read",
                    serde_json::json!({"seq": seq}),
                ),
                None => Reply::text("NO-SEQ-FOUND"),
            }
        })
        .then_when(Match::tool_result(true), Reply::text("Found it again."))
        .fallback(Reply::text("(fallback)"));
    let out = run_clean(
        "s11-history",
        script,
        &Mode::Print(
            "The secret word is PAPAYA-42. Remember nothing else; clear your window.".into(),
        ),
    );
    let requests = out.model_turn_requests();
    assert!(requests.len() >= 3, "no request after history_list");
    let listing: String = tool_results_text(requests[2]);
    assert!(
        listing.contains("PAPAYA-42"),
        "history_list did not find the old message: {listing}"
    );
    assert_eq!(
        requests.len(),
        4,
        "original, continuation, after list, after read"
    );
    let read: String = tool_results_text(requests[3]);
    assert!(
        read.contains("PAPAYA-42"),
        "history_read did not return it: {read}"
    );
    assert!(
        !requests[1]
            .all_text()
            .contains("The secret word is PAPAYA-42"),
        "the old message is still in the fresh window's conversation"
    );
}

/// Issue 8: the model lists sessions across harnesses and finds this one.
#[test]
fn s11_history_sessions_lists_this_session() {
    // The call comes in a second prompt: Claude writes a transcript a moment after its
    // row, so a listing in the very first request may not see the session yet.
    let script = Script::new()
        .then(Reply::text("Noted."))
        .then(Reply::tool(
            "mcp__notesoup__history_sessions",
            serde_json::json!({"harness": "claude", "limit": 5}),
        ))
        .then_when(Match::tool_result(true), Reply::text("Listed."))
        .fallback(Reply::text("(fallback)"));
    let out = run_clean(
        "s11-history-sessions",
        script,
        &Mode::PrintContinued(vec![
            "Remember KIWI-7.".into(),
            "Which sessions are there?".into(),
        ]),
    );
    let requests = out.model_turn_requests();
    assert_eq!(
        requests.len(),
        3,
        "the first prompt, the call, the answer after it"
    );
    let listing: String = tool_results_text(requests[2]);
    let sid = out
        .transcripts
        .iter()
        .find(|t| !t.is_subagent())
        .and_then(|t| t.path.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    assert!(
        !sid.is_empty() && listing.contains(&format!("claude:{sid}")),
        "history_sessions does not list this session (claude:{sid}): {listing}"
    );
    assert!(
        listing.contains("KIWI-7"),
        "the listing lacks the first prompt: {listing}"
    );
}

// ---------------------------------------------------------------------------------
// 12. A subagent calling empty_brain cannot reset the main brain.

#[test]
fn s12_subagent_cannot_reset_the_main_brain() {
    let script = Script::new()
        .rule_times(
            Match::user_contains("SUBAGENT-TASK").and_tool_result(false),
            Reply::text("Subagent clearing.").and_tool(EMPTY_BRAIN, empty_brain("LW-SUB", Some(false))),
            1,
        )
        .rule_times(
            Match::tool_result(true).and_any_contains("LW-SUB"),
            Reply::text("Subagent done."),
            1,
        )
        .rule(Match::user_contains("<task-notification>"), Reply::text("The subagent reported back."))
        .then(Reply::text("Delegating.").and_tool(
            "Agent",
            serde_json::json!({"description": "e2e subagent", "prompt": "SUBAGENT-TASK: call empty_brain.",
                               "subagent_type": "general-purpose"}),
        ))
        .then_when(Match::tool_result(true), Reply::text("The subagent is running."))
        .fallback(Reply::text("(fallback)"));
    let out = run_clean(
        "s12-subagent",
        script,
        &Mode::Print("Delegate to a subagent.".into()),
    );
    let sub_called = out
        .message_bodies()
        .iter()
        .any(|b| b.to_string().contains("SUBAGENT-TASK"));
    assert!(sub_called, "the subagent never ran");
    // The subagent's own empty_brain call came back refused.
    let refusal = out
        .message_requests()
        .into_iter()
        .filter(|r| r.has_tool_result() && r.body().to_string().contains("LW-SUB"))
        .flat_map(|r| r.tool_results())
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        refusal.contains("subagent"),
        "the subagent's empty_brain was not refused: {refusal:?}"
    );
    assert_eq!(
        boundaries(&out),
        0,
        "the main transcript was reset by a subagent"
    );
    assert!(
        fresh_window_requests(&out).is_empty(),
        "a fresh main window started"
    );
    assert_eq!(compactions(&out), 0);
}

// ---------------------------------------------------------------------------------
// The -p runs of the scenarios whose main run needs several messages.

#[test]
fn s07_fresh_window_close_out_print() {
    let script = Script::new()
        .then(Reply::text("Hello."))
        .then_when(
            Match::tail_contains(EMPTY_BRAIN).and_tool_result(false),
            Reply::text("Closing out.")
                .and_tool(EMPTY_BRAIN, empty_brain("LW-SEVEN-P", Some(false))),
        )
        .fallback(Reply::text("(no continuation was expected)"));
    let out = run_clean(
        "s07-fresh-window-print",
        script,
        &Mode::PrintContinued(vec!["hello".into(), "/fresh-window".into()]),
    );
    // The close-out turn's end says what really follows: no continuation (STOP).
    assert!(
        rows_containing(&out, "continues from a fresh window").is_empty(),
        "the end of the close-out turn promises a continuation that STOP holds back"
    );
    assert!(
        !rows_containing(&out, "waits for the next message: stopped as asked").is_empty(),
        "the end of the close-out turn does not say the fresh window waits"
    );
    assert_one_close_out(&out, "budget warning");
}

/// `/fresh-window` as the very first prompt: nothing measured yet, so the close-out cannot
/// start; the person reads why on stdout, and nothing is sent or cleared.
#[test]
fn s07_fresh_window_first_prompt_print() {
    let out = run_clean(
        "s07-fresh-window-first-print",
        Script::new().fallback(Reply::text("(no close-out was expected)")),
        &Mode::Print("/fresh-window".into()),
    );
    let stdout = out.stdout.trim();
    assert!(
        stdout.contains("saving notes, then clearing"),
        "stdout: {stdout:?}"
    );
    assert!(
        stdout.contains("reset cancelled") && stdout.contains("no context usage measured yet"),
        "the cancel is not shown to the person: {stdout:?}"
    );
    assert!(out.model_turn_requests().is_empty(), "a close-out turn ran");
    assert_eq!(boundaries(&out), 0);
}

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
