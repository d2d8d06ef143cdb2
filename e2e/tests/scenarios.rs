//! The scenarios against the real Claude Code 2.1.319, one test each, one module per
//! concern: numbered `s01`..`s23` in `load` (1, 13), `notes` (2), `reset` (3, 4, 5, 10,
//! 14, 15), `reset_args` (16, 17: `empty_brain`'s arguments), `budget` (6, 7),
//! `budget_points` (18-21: where the points come from, where the warning rides), `veto` (8),
//! `natural_input` (9), `history` (11), `subagent` (12), `commands` (22, 23: the cap's
//! grammar, `DISABLE_COMPACT`); history after Claude Code's own cleanup (`v01`) in
//! `vault`; the
//! window's state across processes, forks and reactive compaction (`w01`..) in `windows`,
//! the helper spawns per hook event in `spawns`, and the e2e sandbox holding (`x01`) in
//! `sandbox`. This file holds what they share: the
//! one-at-a-time runner and the counting helpers.
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

use notesoup_e2e::{Harness, Match, Mode, Outcome, Reply, Script, Step};
use notesoup_window::{WindowId, marker};
use serde_json::Value;

#[path = "scenarios/budget.rs"]
mod budget;
#[path = "scenarios/budget_points.rs"]
mod budget_points;
#[path = "scenarios/commands.rs"]
mod commands;
#[path = "scenarios/history.rs"]
mod history;
#[path = "scenarios/load.rs"]
mod load;
#[path = "scenarios/natural_input.rs"]
mod natural_input;
#[path = "scenarios/notes.rs"]
mod notes;
#[path = "scenarios/reset.rs"]
mod reset;
#[path = "scenarios/reset_args.rs"]
mod reset_args;
#[path = "scenarios/sandbox.rs"]
mod sandbox;
#[path = "scenarios/spawns.rs"]
mod spawns;
#[path = "scenarios/subagent.rs"]
mod subagent;
#[path = "scenarios/vault.rs"]
mod vault;
#[path = "scenarios/veto.rs"]
mod veto;
#[path = "scenarios/windows.rs"]
mod windows;

/// The eight notes, history and reset tools, and `history_sessions`.
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
const BOOT_CLOSE: &str = marker::CLOSE;
/// The end of the opening line of window 1's boot (`<notesoup-boot window="claude:<id>:1">`).
const FRESH_BOOT: &str = ":1\">";

/// The main session's id: its transcript's file stem (empty when none was written).
fn main_session(out: &Outcome) -> String {
    out.transcripts
        .iter()
        .find(|t| !t.is_subagent())
        .and_then(|t| t.path.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

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

/// A helper that runs the shell `cases` (branches of a `case` on the request, as `$input`)
/// first and is the run's own helper otherwise, for `NOTESOUP_HELPER`: a script in the temp
/// folder named after `name`, run in the run's `work` folder beside its copy of the plugin.
fn wrapped_helper(name: &str, cases: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::temp_dir().join(format!("notesoup-e2e-{name}-{}.sh", std::process::id()));
    let script = format!(
        "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in\n{cases}esac\n\
         printf '%s' \"$input\" | exec \"$PWD/../plugin/claude/bin/notesoup-helper\" \"$@\"\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// An interactive run: wait for the prompt, type `prompt`, press Enter, then `middle`,
/// then `/exit` and wait for the CLI to end.
fn tmux(prompt: &str, middle: Vec<Step>) -> Mode {
    tmux_lines(&[(prompt, None)], middle)
}

/// An interactive run: wait for the prompt, then type each line, press Enter and wait
/// until the screen shows the line's answer (when it names one), then `middle`, then
/// `/exit` and wait for the CLI to end.
fn tmux_lines(lines: &[(&str, Option<&str>)], middle: Vec<Step>) -> Mode {
    let mut steps = vec![Step::WaitFor("(❯|>)".into(), Duration::from_secs(60))];
    for (line, answer) in lines {
        steps.extend([
            Step::Sleep(Duration::from_secs(2)),
            Step::Type((*line).into()),
            Step::Sleep(Duration::from_millis(500)),
            Step::Key("Enter".into()),
        ]);
        if let Some(answer) = answer {
            steps.push(Step::WaitFor(
                regex::escape(answer),
                Duration::from_secs(60),
            ));
        }
    }
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
// Shared pieces of the reset scenarios.

const EMPTY_BRAIN: &str = "mcp__notesoup__empty_brain";

/// The window ids of every boot in `text`, in order.
fn windows(text: &str) -> Vec<String> {
    marker::marker_ids(text).map(str::to_owned).collect()
}

/// How many Claude boots a request's text opens (every copy counts).
fn claude_boots(text: &str) -> usize {
    marker::marker_ids(text)
        .filter(|id| id.starts_with("claude:"))
        .count()
}

fn ordinal(id: &str) -> Option<u32> {
    id.parse::<WindowId>().ok().map(|w| w.ordinal())
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

/// Margins that leave no room below Claude's own point: notesoup's point is unresolvable.
const NO_ROOM: &str = r#"{"notesoup": {"resetMarginTokens": 200000}}"#;

/// With this window Claude's own point is 167 000 tokens, notesoup's hard point
/// 167 000 − 8 192 = 158 808 and its warning point 158 808 − 16 384 = 142 424.
const WINDOW_200K: (&str, &str) = ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "200000");

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
