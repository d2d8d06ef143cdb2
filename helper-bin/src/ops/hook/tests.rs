#![allow(
    clippy::unreadable_literal,
    reason = "JSON literals are written as the engine writes them (200000, not 200_000)"
)]

use serde_json::{Value, json};

use crate::tests::kept_flow;
use notesoup_app::Context;

use crate::{Response, run};

/// A notes home of its own per test.
struct Home(std::path::PathBuf);

impl Home {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("notesoup-hook-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Home(dir)
    }

    fn hook(&self, process: &str, event: &str, facts: &Value) -> Response {
        let session = json!({"harness": "claude", "id": "s1", "process": process});
        self.hook_of(&session, event, facts)
    }

    /// A hook call of the session `session` names.
    fn hook_of(&self, session: &Value, event: &str, facts: &Value) -> Response {
        let request = json!({"event": event, "session": session, "facts": facts});
        let home = self.0.to_string_lossy().into_owned();
        run(
            Some("hook"),
            request.to_string().as_bytes(),
            &Context::from_vars([("NOTESOUP_HOME", home)]),
        )
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A 200K window whose engine threshold is 167000, filled to `tokens`.
fn budget(tokens: u64) -> Value {
    json!({
        "usage": {"context": {"window": 200000,
            "breakdown": {"autoCompactThreshold": 167000, "isAutoCompactEnabled": true}}},
        "context": {"tokens": tokens, "window": 200000},
        "settings": {}, "env": {}, "model": "claude-sonnet-4-6",
    })
}

/// The `text` of effect `i` of the reply (empty when it has none).
fn effect_text(out: &Response, i: usize) -> &str {
    out.reply["effects"][i]["text"].as_str().unwrap_or("")
}

fn types(out: &Response) -> Vec<String> {
    out.reply["effects"]
        .as_array()
        .map(|fx| {
            fx.iter()
                .map(|f| f["type"].as_str().unwrap_or("?").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_main_tool_result_past_the_warning_point_carries_the_warning_text_once_per_window() {
    let home = Home::new("warn");
    let facts = |t| json!({"agent": "main", "denied": false, "budget": budget(t)});
    let below = home.hook("p1", "tool.call", &facts(1000));
    assert_eq!(below.exit, 0, "{}", below.reply);
    assert!(types(&below).is_empty(), "{}", below.reply);
    let past = home.hook("p1", "tool.call", &facts(150000));
    assert_eq!(types(&past), ["warn"], "{}", past.reply);
    let text = effect_text(&past, 0);
    assert!(text.contains("empty_brain"), "{text}");
    assert!(kept_flow(&home.0, "s1").warned);
    // Another process of the same session (`claude -p --resume`): the window is warned.
    let again = home.hook("p2", "tool.call", &facts(152000));
    assert!(types(&again).is_empty(), "{}", again.reply);
}

#[test]
fn a_prompt_offers_the_warning_and_a_drop_leaves_it_due() {
    let home = Home::new("drop");
    let prompt = json!({"origin": "composer", "command": false, "budget": budget(150000)});
    let first = home.hook("p1", "prompt.submit", &prompt);
    assert_eq!(types(&first), ["warn"], "{}", first.reply);
    let generation = first.reply["effects"][0]["generation"].clone();
    let dropped = home.hook("p1", "prompt.dropped", &json!({"generation": generation}));
    assert_eq!(dropped.exit, 0, "{}", dropped.reply);
    let second = home.hook("p1", "prompt.submit", &prompt);
    assert_eq!(types(&second), ["warn"], "{}", second.reply);
    // The prompt went out: its turn's opening step delivers the warning.
    home.hook(
        "p1",
        "turn.step",
        &json!({"agent": "main", "turn_id": "t1", "index": 0, "budget": budget(150000)}),
    );
    let third = home.hook("p1", "prompt.submit", &prompt);
    assert!(types(&third).is_empty(), "{}", third.reply);
}

#[test]
fn a_main_step_past_the_hard_point_ends_the_turn() {
    let home = Home::new("hard");
    let step =
        |index, t| json!({"agent": "main", "turn_id": "t1", "index": index, "budget": budget(t)});
    assert!(types(&home.hook("p1", "turn.step", &step(0, 1000))).is_empty());
    let out = home.hook("p1", "turn.step", &step(1, 199000));
    assert_eq!(types(&out), ["report", "end_turn"], "{}", out.reply);
    assert!(kept_flow(&home.0, "s1").pending);
}

#[test]
fn disable_compact_in_the_budget_env_means_no_warning() {
    let home = Home::new("dc");
    // Past the point a warning would have under DISABLE_COMPACT (155 424) and below its
    // clear point (171 808).
    let mut b = budget(160000);
    b["env"] = json!({"DISABLE_COMPACT": "true"});
    let out = home.hook("p1", "tool.call", &json!({"agent": "main", "budget": b}));
    assert_eq!(types(&out), ["log"], "{}", out.reply);
    // Claude's truthiness: "0" is not set.
    let mut b = budget(150000);
    b["env"] = json!({"DISABLE_COMPACT": "0"});
    let out = home.hook("p1", "tool.call", &json!({"agent": "main", "budget": b}));
    assert_eq!(types(&out), ["warn"], "{}", out.reply);
}

#[test]
fn with_automatic_compaction_off_the_warning_says_no_automatic_clear_comes() {
    let home = Home::new("autooff");
    // Auto-compaction off: the point is W − R (180 000), the clear 171 808, the warning
    // 155 424; at 160 000 tokens 11 808 are left, and no clear comes by itself.
    let mut b = budget(160000);
    b["env"] = json!({"DISABLE_AUTO_COMPACT": "1"});
    let out = home.hook("p1", "tool.call", &json!({"agent": "main", "budget": b}));
    assert_eq!(types(&out), ["warn"], "{}", out.reply);
    let text = effect_text(&out, 0);
    assert!(!text.contains("automatic clear"), "{text}");
    assert!(
        text.ends_with("nothing clears this window but the reset tool, and once the window is full every request fails: call it within the next 11,808 tokens."),
        "{text}"
    );
    // With it on, the same warning counts down to the automatic clear.
    let home = Home::new("autoon");
    let out = home.hook(
        "p1",
        "tool.call",
        &json!({"agent": "main", "budget": budget(150000)}),
    );
    assert!(
        effect_text(&out, 0).contains("Left before the automatic clear: "),
        "{}",
        out.reply
    );
}

#[test]
fn the_shell_is_told_when_appends_matter() {
    let home = Home::new("watch");
    let idle = home.hook(
        "p1",
        "session.append",
        &json!({"agent": "main", "door": "prompt"}),
    );
    assert_eq!(
        idle.reply["watch"]["append_doors"],
        json!([]),
        "{}",
        idle.reply
    );
    // A prompt before any turn runs: its own turn's opening step carries it, no append can.
    let typed = home.hook("p1", "prompt.submit", &json!({"origin": "composer"}));
    assert_eq!(
        typed.reply["watch"]["append_doors"],
        json!([]),
        "{}",
        typed.reply
    );
    // A prompt typed while a main turn runs: the engine attaches it through an append.
    home.hook(
        "p1",
        "turn.step",
        &json!({"agent": "main", "turn_id": "t1", "index": 0}),
    );
    let typed = home.hook("p1", "prompt.submit", &json!({"origin": "composer"}));
    assert_eq!(
        typed.reply["watch"]["append_doors"],
        json!(["queue", "prompt"]),
        "{}",
        typed.reply
    );
}

#[test]
fn malformed_hooks_are_bad_requests() {
    let home = Home::new("bad");
    for (event, facts) in [
        ("tool.call", json!({"agent": "nobody"})),
        ("no.such.hook", json!({})),
        ("turn.step", json!({"agent": "main"})),
        (
            "tool.call",
            json!({"agent": "main", "budget": {"usage": {}, "extra": 1}}),
        ),
    ] {
        let out = home.hook("p1", event, &facts);
        assert_eq!(out.exit, 2, "{event} {facts}: {}", out.reply);
        assert_eq!(out.reply["error"]["code"], "bad_request");
    }
}

#[test]
fn session_start_reads_disable_compact_as_claude_does() {
    let home = Home::new("start");
    // `DISABLE_COMPACT=0` is not set for Claude: warnings stay on.
    let out = home.hook(
        "p1",
        "session.start",
        &json!({"env": {"DISABLE_COMPACT": "0"}}),
    );
    assert_eq!(out.exit, 0, "{}", out.reply);
    assert!(!kept_flow(&home.0, "s1").disable_compact);
    let out = home.hook(
        "p2",
        "session.start",
        &json!({"env": {"DISABLE_COMPACT": "yes"}}),
    );
    assert_eq!(out.exit, 0, "{}", out.reply);
    assert!(kept_flow(&home.0, "s1").disable_compact);
    // Every budget forwards the variable as the process has it: no warning, in the same
    // process and in another (a new process token).
    assert!(!warned_with(
        &home,
        "p2",
        &json!({"DISABLE_COMPACT": "yes"})
    ));
    assert!(!warned_with(
        &home,
        "p3",
        &json!({"DISABLE_COMPACT": "yes"})
    ));
    // A process whose budget forwards no DISABLE_COMPACT says it is off: warned again.
    assert!(
        warned_with(&home, "p4", &json!({})),
        "a new process's own environment"
    );
}

/// Whether a main tool result at 150 000 tokens in process `process`, its budget
/// forwarding the variables `env`, carries the warning.
fn warned_with(home: &Home, process: &str, env: &Value) -> bool {
    let mut b = budget(150000);
    b["env"] = env.clone();
    let out = home.hook(process, "tool.call", &json!({"agent": "main", "budget": b}));
    types(&out) == ["warn"]
}

/// How many times a reply logs that `DISABLE_COMPACT` is set.
fn disable_compact_logged(out: &Response) -> usize {
    out.reply["effects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|fx| fx["type"] == "log" && fx["text"] == notesoup_reset_flow::DISABLE_COMPACT_LOG)
        .count()
}

/// `empty_brain` called by the main agent of session `id` in process `process`, its budget
/// forwarding `DISABLE_COMPACT` as the shell reads it.
fn empty_brain(home: &Home, id: &str, process: &str) -> Response {
    let mut b = budget(1000);
    b["env"] = json!({"DISABLE_COMPACT": "1"});
    let request = json!({
        "name": "mcp__notesoup__empty_brain", "args": {"last_word": "w"},
        "bound": {"cwd": home.0.to_string_lossy()},
        "session": {"harness": "claude", "id": id, "process": process},
        "budget": b,
    });
    let ctx = Context::from_vars([("NOTESOUP_HOME", home.0.to_string_lossy().into_owned())]);
    run(Some("tool"), request.to_string().as_bytes(), &ctx)
}

#[test]
fn disable_compact_is_logged_once_and_outlives_a_reload_of_the_hooks_module() {
    let home = Home::new("reload");
    let on = json!({"DISABLE_COMPACT": "1"});
    let mut logged = 0;
    let start = home.hook("p1", "session.start", &json!({"env": on}));
    logged += disable_compact_logged(&start);
    // Another process of the session (a reload, a resume): a new process token, and a call
    // before its session start forwarding only NOTESOUP_DISABLED (unset).
    let first = home.hook("p2", "prompt.context", &json!({"env": {}, "kept": []}));
    assert_eq!(first.exit, 0, "{}", first.reply);
    logged += disable_compact_logged(&first);
    assert!(kept_flow(&home.0, "s1").disable_compact);
    // The model's empty_brain and `/empty` are refused; nothing is pending.
    let tool = empty_brain(&home, "s1", "p2");
    assert_eq!(tool.exit, 0, "{}", tool.reply);
    assert_eq!(types(&tool), ["tool_result"], "{}", tool.reply);
    assert_eq!(tool.reply["effects"][0]["is_error"], true, "{}", tool.reply);
    logged += disable_compact_logged(&tool);
    let mut b = budget(1000);
    b["env"] = on.clone();
    let empty = home.hook(
        "p2",
        "command.run",
        &json!({"command": "empty", "budget": b}),
    );
    assert_eq!(types(&empty), ["report"], "{}", empty.reply);
    assert!(
        effect_text(&empty, 0).contains("DISABLE_COMPACT"),
        "{}",
        empty.reply
    );
    logged += disable_compact_logged(&empty);
    assert!(!kept_flow(&home.0, "s1").pending);
    assert!(!warned_with(&home, "p2", &on));
    assert_eq!(logged, 1, "DISABLE_COMPACT is logged once per session");
}

#[test]
fn a_new_sessions_record_hears_disable_compact_from_the_call_itself() {
    // `/clear` in a running process: a new session id, a new record, no session start.
    let home = Home::new("cleared");
    let tool = empty_brain(&home, "s2", "p1");
    let fx = tool.reply["effects"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        fx.iter()
            .any(|f| f["type"] == "tool_result" && f["is_error"] == true),
        "{}",
        tool.reply
    );
    assert_eq!(disable_compact_logged(&tool), 1, "{}", tool.reply);
    assert!(!kept_flow(&home.0, "s2").pending);
}

impl Home {
    /// A real session folder for the brain (`cwd`).
    fn cwd(&self) -> String {
        let dir = self.0.join("work");
        std::fs::create_dir_all(&dir).expect("work dir");
        dir.to_string_lossy().into_owned()
    }
}

/// The reply attaches window `ordinal`'s boot (one `attach_boot`), and the flow kept is in
/// that window.
fn assert_attached(home: &Home, out: &Response, ordinal: u32) {
    assert_eq!(types(out), ["attach_boot"], "{}", out.reply);
    let text = effect_text(out, 0);
    assert!(
        text.starts_with(&format!("<notesoup-boot window=\"claude:s1:{ordinal}\">")),
        "{text}"
    );
    assert_eq!(kept_flow(&home.0, "s1").ordinal, Some(ordinal));
}

#[test]
fn prompt_context_attaches_the_window_boot_once_and_a_kept_boot_names_the_window() {
    let home = Home::new("context");
    let cwd = home.cwd();
    let first = home.hook("p1", "prompt.context", &json!({"cwd": cwd, "kept": []}));
    assert_attached(&home, &first, 0);
    // The engine sends that boot again with each request: the reply names its marker line,
    // the copy the shell need not send (`watch.copy_kept`).
    let line = effect_text(&first, 0)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        first.reply["watch"]["copy_kept"],
        json!(line),
        "{}",
        first.reply
    );
    // The boot Claude kept (a later window) stands: nothing attached, its window adopted.
    let kept = "<notesoup-boot window=\"claude:s1:3\">\nnotes\n</notesoup-boot>";
    let again = home.hook(
        "p1",
        "prompt.context",
        &json!({"cwd": cwd, "kept": ["hi", kept]}),
    );
    assert!(types(&again).is_empty(), "{}", again.reply);
    assert_eq!(kept_flow(&home.0, "s1").ordinal, Some(3));
    assert_eq!(
        again.reply["watch"]["boot_marker"],
        "<notesoup-boot window=\""
    );
    assert_eq!(
        again.reply["watch"]["copy_kept"],
        "<notesoup-boot window=\"claude:s1:3\">"
    );
}

#[test]
fn prompt_context_with_no_kept_boot_attaches_the_window_the_transcripts_head_is_in() {
    let home = Home::new("context-transcript");
    let cwd = home.cwd();
    // A real Claude Code transcript with two compactions: its head is in window 2.
    let transcript = crate::tests::transcript_copy(
        &home.0,
        (
            "own-two-compactions--da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl",
            "da56055c-293e-4422-b5b8-62b1c7e6c03d",
        ),
    );
    let facts = json!({"cwd": cwd, "kept": [], "transcript_path": transcript,
                       "head": "0f2f34a8-2759-40ef-b981-f4432c103a57"});
    let first = home.hook("p1", "prompt.context", &facts);
    assert_attached(&home, &first, 2);
}

/// Drives one explicit reset to its compaction: returns the `session.compact` reply.
fn to_the_compaction(home: &Home, cwd: &str) -> Response {
    home.hook("p1", "prompt.context", &json!({"cwd": cwd, "kept": []}));
    home.hook(
        "p1",
        "turn.step",
        &json!({"agent": "main", "turn_id": "t1", "index": 0}),
    );
    home.run_reset(
        "p1",
        &json!({"type": "empty_brain", "agent": "main", "args": {"last_word": "LW"}}),
    );
    let step = home.hook(
        "p1",
        "turn.step",
        &json!({"agent": "main", "turn_id": "t1", "index": 1}),
    );
    assert_eq!(types(&step), ["end_turn"], "{}", step.reply);
    let done = home.hook(
        "p1",
        "turn.complete",
        &json!({"agent": "main", "turn_id": "t1", "reason": "answer"}),
    );
    assert_eq!(types(&done), ["compact"], "{}", done.reply);
    assert_eq!(done.reply["watch"]["compact_done"], true);
    let marker = done.reply["effects"][0]["marker"].clone();
    home.hook(
        "p1",
        "session.compact",
        &json!({"cwd": cwd, "agent": "main", "trigger": "manual", "instructions": marker}),
    )
}

/// Headless evidence: the compact boundary appended, then a main user row holding `text`
/// (through door `prompt`, as after the reset's own `/compact`); the row's reply.
fn after_the_boundary(home: &Home, text: &str) -> Response {
    let boundary = home.hook(
        "p1",
        "session.append",
        &json!({"agent": "main", "door": "compaction", "kind": "system", "role": null, "text": "summary"}),
    );
    assert!(types(&boundary).is_empty(), "{}", boundary.reply);
    home.hook(
        "p1",
        "session.append",
        &json!({"agent": "main", "door": "prompt", "kind": "user", "role": "user", "text": text}),
    )
}

impl Home {
    /// One event straight into the session's kept flow (what no hook sends as such).
    fn run_reset(&self, process: &str, event: &Value) -> notesoup_reset_flow::Reply {
        let event = serde_json::from_value(event.clone()).unwrap();
        crate::tests::kept_step(&self.0, "s1", process, event)
    }
}

#[test]
fn an_answered_compaction_is_one_call_with_the_boot_and_headless_evidence_continues_once() {
    let home = Home::new("compact");
    let cwd = home.cwd();
    let answer = to_the_compaction(&home, &cwd);
    assert_eq!(types(&answer), ["answer_compaction"], "{}", answer.reply);
    let boot = effect_text(&answer, 0).to_owned();
    assert!(
        boot.starts_with("<notesoup-boot window=\"claude:s1:1\">"),
        "{boot}"
    );
    assert!(boot.contains("LW"), "the last word is in the boot: {boot}");
    assert_eq!(kept_flow(&home.0, "s1").ordinal, Some(1));
    assert_eq!(answer.reply["watch"]["append_doors"], json!(["*"]));
    assert_eq!(
        answer.reply["watch"]["compact_done"], false,
        "answered: a resolved command changes nothing"
    );
    let row = after_the_boundary(&home, &boot);
    assert_eq!(types(&row), ["log", "continue"], "{}", row.reply);
    let text = effect_text(&row, 1);
    assert!(
        !text.contains("LW"),
        "the continuation never repeats the last word: {text}"
    );
}

#[test]
fn a_rewritten_boot_row_is_not_evidence() {
    let home = Home::new("rewritten");
    let cwd = home.cwd();
    let answer = to_the_compaction(&home, &cwd);
    let boot = effect_text(&answer, 0).to_owned();
    // The same identity (marker line), other text: not the boot as built.
    let row = after_the_boundary(&home, &format!("{boot}\nmore"));
    assert_eq!(types(&row), ["log", "cancel", "report"], "{}", row.reply);
}

#[test]
fn a_close_out_with_no_usage_measured_fails_in_the_same_call() {
    let home = Home::new("closeout");
    // Nothing measured and no reset pending: one line, nothing started to cancel.
    let out = home.hook("p1", "command.run", &json!({"command": "empty"}));
    assert_eq!(types(&out), ["report"], "{}", out.reply);
    assert!(
        out.reply["effects"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("/empty has nothing to clear yet")),
        "{}",
        out.reply
    );
    let fill = home.hook(
        "p1",
        "command.run",
        &json!({"command": "fresh_window", "budget": budget(150000)}),
    );
    let closeout = fill.reply["effects"]
        .as_array()
        .and_then(|fx| fx.iter().find(|f| f["type"] == "closeout").cloned())
        .unwrap_or_default();
    assert!(
        closeout["text"]
            .as_str()
            .is_some_and(|t| t.contains("empty_brain")),
        "{}",
        fill.reply
    );
}

#[test]
fn the_cap_command_is_one_call_a_refused_cap_changes_nothing() {
    let home = Home::new("cap");
    let project = home.0.join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    let cwd = project.to_string_lossy().into_owned();
    let cap = |args: &str| {
        home.hook(
            "p1",
            "command.run",
            &json!({"command": "notesoup", "args": args, "budget": budget(1000), "cwd": cwd}),
        )
    };
    let set = cap("cap 100k");
    let text = effect_text(&set, 0).to_owned();
    assert!(
        text.starts_with("Context: 1,000 tokens, 2% of the 58,808 usable in this window\n")
            && text.contains("\nCap: 100,000 tokens of capacity, "),
        "{}",
        set.reply
    );
    assert_eq!(kept_flow(&home.0, "s1").cap, Some(100000));
    // The last line counts the notes of the session folder's brain.
    assert!(
        text.ends_with(&format!("\nBrain: 0 notes ({cwd})")),
        "{text}"
    );
    let ctx = Context::from_vars([("NOTESOUP_HOME", home.0.to_string_lossy().into_owned())]);
    let write = json!({"cwd": cwd, "args": {"name": "plan", "text": "ship it\n"}});
    run(Some("notes_write"), write.to_string().as_bytes(), &ctx);
    let refused = cap("cap 12");
    let text = effect_text(&refused, 0);
    assert!(text.starts_with("cap refused: "), "{}", refused.reply);
    let shown = cap("");
    let text = effect_text(&shown, 0);
    assert!(
        text.contains("\nCap: 100,000 tokens of capacity, ")
            && text.ends_with(&format!("\nBrain: 1 note ({cwd})")),
        "{}",
        shown.reply
    );
    let usage = cap("bogus");
    assert!(effect_text(&usage, 0).starts_with("usage: /notesoup"));
    let off = cap("cap off");
    let text = effect_text(&off, 0);
    assert!(
        text.starts_with("Cap removed: the window's own points apply again.\nContext: ")
            && text.contains("\nCap: none ("),
        "{}",
        off.reply
    );
    // With no cap to take away, `cap off` says only that there is none.
    let again = cap("cap off");
    let text = effect_text(&again, 0);
    assert!(
        text.starts_with("Context: ") && text.contains("\nCap: none ("),
        "{}",
        again.reply
    );
    // A new process: the cap lives as long as the process that set it.
    cap("cap 100k");
    let other = home.hook(
        "p2",
        "command.run",
        &json!({"command": "notesoup", "args": "", "budget": budget(1000)}),
    );
    let text = effect_text(&other, 0);
    assert!(text.contains("\nCap: none ("), "{}", other.reply);
    // A hook that sent no folder: the brain is unknown, said so.
    assert!(
        text.ends_with("\nBrain: unknown (the hook sent no folder)"),
        "{text}"
    );
}

/// A cap asked while the margins leave no room for any point is refused with that reason,
/// and the cap set before stays: it was dropped, as if `cap off` had been asked (budget
/// audit 2).
#[test]
fn a_cap_asked_when_no_point_can_be_placed_is_refused_and_the_old_cap_stays() {
    let home = Home::new("cap-unplaced");
    let cap = |args: &str, budget: Value| {
        home.hook(
            "p1",
            "command.run",
            &json!({"command": "notesoup", "args": args, "budget": budget}),
        )
    };
    cap("cap 100k", budget(1000));
    let mut wide = budget(1000);
    wide["settings"] = json!({"notesoup": {"resetMarginTokens": 170000}});
    let refused = cap("cap 150k", wide);
    assert!(
        effect_text(&refused, 0).starts_with("cap refused: "),
        "{}",
        refused.reply
    );
    assert_eq!(kept_flow(&home.0, "s1").cap, Some(100000));
    let shown = cap("", budget(1000));
    assert!(
        effect_text(&shown, 0).contains("\nCap: 100,000 tokens of capacity, "),
        "{}",
        shown.reply
    );
}

/// With no breakdown read, the window of the usage read now places the points (the spec's
/// second source, `$.session.usage().context.window`), not a classic 200K window in
/// percent: in a 100K window that cleared after Claude's own compaction (budget audit 6).
#[test]
fn the_window_read_now_places_the_points_when_the_breakdown_is_missing() {
    let home = Home::new("fresh-window");
    let budget = json!({"usage": null, "context": {"tokens": 60000, "percent": 60, "window": 100000},
        "settings": {}, "env": {}, "model": "my-custom-model"});
    let out = home.hook(
        "p1",
        "command.run",
        &json!({"command": "notesoup", "args": "", "budget": budget}),
    );
    assert!(
        effect_text(&out, 0)
            .contains("Warns at 42,424 tokens, clears at 58,808 (Claude would compact at 67,000)"),
        "{}",
        out.reply
    );
}

#[test]
fn the_continuation_turn_ending_in_error_is_reported() {
    let home = Home::new("cont");
    let cwd = home.cwd();
    let answer = to_the_compaction(&home, &cwd);
    let boot = effect_text(&answer, 0).to_owned();
    let row = after_the_boundary(&home, &boot);
    let generation = row.reply["effects"][1]["generation"].clone();
    let done = home.hook(
        "p1",
        "turn.complete",
        &json!({"agent": "main", "turn_id": "t2", "reason": "error", "continuation": generation}),
    );
    assert_eq!(types(&done), ["report"], "{}", done.reply);
    let text = effect_text(&done, 0);
    assert!(text.contains("its turn ended: error"), "{text}");
}

/// Every file under `dir`, recursively.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn notesoup_disabled_set_at_all_turns_notesoup_off_and_leaves_the_flow_untouched() {
    let home = Home::new("disabled");
    for value in ["", "0", "1"] {
        let out = home.hook(
            "p1",
            "session.start",
            &json!({"env": {"NOTESOUP_DISABLED": value, "DISABLE_COMPACT": "1"}}),
        );
        assert_eq!(out.reply["disabled"], true, "{value:?}: {}", out.reply);
        assert_eq!(types(&out), Vec::<String>::new());
        let log = out.reply["log"].to_string();
        assert!(log.contains("NOTESOUP_DISABLED is set"), "{log}");
        // No record: the flow was not touched.
        assert_eq!(files_under(&home.0), Vec::<std::path::PathBuf>::new());
    }
    // Any hook may carry the switch (one may come before session.start's reply).
    let out = home.hook(
        "p1",
        "prompt.context",
        &json!({"cwd": "/nowhere", "kept": [], "env": {"NOTESOUP_DISABLED": "yes"}}),
    );
    assert_eq!(out.reply["disabled"], true, "{}", out.reply);
    assert_eq!(types(&out), Vec::<String>::new());
    assert_eq!(files_under(&home.0), Vec::<std::path::PathBuf>::new());
    // Unset: notesoup is on, and the flow reads DISABLE_COMPACT as before.
    let out = home.hook(
        "p1",
        "session.start",
        &json!({"env": {"DISABLE_COMPACT": "1"}}),
    );
    assert_eq!(out.reply["disabled"], false, "{}", out.reply);
    assert!(kept_flow(&home.0, "s1").disable_compact);
}

#[test]
fn a_reply_says_below_which_fill_the_next_main_results_and_steps_change_nothing() {
    let home = Home::new("quiet");
    let quiet = |out: &Response| out.reply["watch"]["quiet"].clone();
    // The points of `budget`: hard 158808, warning 142424 (tokens).
    home.hook("p1", "session.start", &json!({"env": {}}));
    let out = home.hook(
        "p1",
        "turn.step",
        &json!({"agent": "main", "turn_id": "t1", "index": 0}),
    );
    // No budget read in this call: nothing promised.
    assert_eq!(quiet(&out), Value::Null, "{}", out.reply);
    let out = home.hook(
        "p1",
        "tool.call",
        &json!({"agent": "main", "budget": budget(100000)}),
    );
    assert_eq!(
        quiet(&out),
        json!({"turn": "t1", "field": "tokens", "below": 142423.5}),
        "{}",
        out.reply
    );
    // Past the warning point: the warning is delivered; from then on only the hard point.
    let out = home.hook(
        "p1",
        "turn.step",
        &json!({"agent": "main", "turn_id": "t1", "index": 1, "budget": budget(150000)}),
    );
    assert_eq!(types(&out), Vec::<String>::new());
    let out = home.hook(
        "p1",
        "tool.call",
        &json!({"agent": "main", "budget": budget(150000)}),
    );
    assert_eq!(types(&out), ["warn"]);
    assert_eq!(quiet(&out)["below"], json!(158807.5), "{}", out.reply);
    // Past the hard point a request is pending and the cutoff armed: nothing is quiet.
    let out = home.hook(
        "p1",
        "tool.call",
        &json!({"agent": "main", "budget": budget(160000)}),
    );
    assert_eq!(quiet(&out), Value::Null, "{}", out.reply);
}

// ---- a fork's own boot (a fork made after a reset: e2e w02) ----------------------------

/// The parent's compaction boot a fork after a reset copies, and the fork's session id
/// (real Claude Code 2.1.319 transcripts: `history-claude/tests/data`).
const FORK_AFTER_RESET: (&str, &str) = (
    "own-fork-after-reset--15871621-2d39-40f0-a483-99bc2ce5ab22.jsonl",
    "15871621-2d39-40f0-a483-99bc2ce5ab22",
);
/// The same kind of fork after its first prompt carried its own window-1 boot.
const FORK_OWN_BOOT: (&str, &str) = (
    "own-fork-own-boot--bb5b53e4-ff78-47e8-802b-549c800c96a4.jsonl",
    "bb5b53e4-ff78-47e8-802b-549c800c96a4",
);

impl Home {
    /// A hook call of session `id`, bound to a copy of fixture `name` as its transcript.
    fn fork_hook(
        &self,
        fixture: (&str, &str),
        process: &str,
        event: &str,
        facts: &Value,
    ) -> Response {
        let id = fixture.1;
        let transcript = crate::tests::transcript_copy(&self.0, fixture);
        let session = json!({"harness": "claude", "id": id, "process": process,
                             "transcript_path": transcript.to_string_lossy()});
        self.hook_of(&session, event, facts)
    }

    /// Writes note `name` into the brain of the session folder.
    fn note(&self, cwd: &str, name: &str, text: &str) {
        let home = self.0.to_string_lossy().into_owned();
        let request = json!({"cwd": cwd, "args": {"name": name, "text": text}});
        let out = run(
            Some("notes_write"),
            request.to_string().as_bytes(),
            &Context::from_vars([("NOTESOUP_HOME", home)]),
        );
        assert_eq!(out.reply["ok"], true, "{}", out.reply);
    }
}

fn submit(cwd: &str) -> Value {
    json!({"cwd": cwd, "origin": "sdk", "command": false})
}

/// The texts of the `attach_own_boot` effects of `out`.
fn own_boots(out: &Response) -> Vec<String> {
    out.reply["effects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|fx| fx["type"] == "attach_own_boot")
        .map(|fx| fx["text"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn a_fork_after_a_reset_with_no_record_gets_its_own_boot_from_the_notes_now_once() {
    let home = Home::new("fork-own");
    let cwd = home.cwd();
    home.note(&cwd, "fork-probe", "FORK-NOTE-NOW");
    let (_, fork) = FORK_AFTER_RESET;
    // No record: the flow is rebuilt from the fork's transcript, whose newest boot is the
    // parent's window-1 boot (the copied compaction message).
    let first = home.fork_hook(FORK_AFTER_RESET, "p1", "prompt.submit", &submit(&cwd));
    let boots = own_boots(&first);
    assert_eq!(boots.len(), 1, "{}", first.reply);
    let marker = format!("\n<notesoup-boot window=\"claude:{fork}:1\">\n");
    assert!(boots[0].starts_with(&marker), "{}", boots[0]);
    assert!(boots[0].contains("FORK-NOTE-NOW"), "{}", boots[0]);
    assert!(
        boots[0].trim_end().ends_with("</notesoup-boot>"),
        "{}",
        boots[0]
    );
    // The prompt's turn opens: delivered; the next prompt carries none.
    home.fork_hook(
        FORK_AFTER_RESET,
        "p1",
        "turn.step",
        &json!({"agent": "main", "turn_id": "t1", "index": 0}),
    );
    let again = home.fork_hook(FORK_AFTER_RESET, "p1", "prompt.submit", &submit(&cwd));
    assert!(own_boots(&again).is_empty(), "{}", again.reply);
    assert_eq!(kept_flow(&home.0, fork).ordinal, Some(1));
}

#[test]
fn a_fork_whose_transcript_holds_its_own_boot_gets_no_second_one() {
    // `-p --resume <fork>` with no record: the fork's own boot is the newest.
    let home = Home::new("fork-resumed");
    let cwd = home.cwd();
    let out = home.fork_hook(FORK_OWN_BOOT, "p1", "prompt.submit", &submit(&cwd));
    assert!(own_boots(&out).is_empty(), "{}", out.reply);
    assert_eq!(kept_flow(&home.0, FORK_OWN_BOOT.1).ordinal, Some(1));
}

/// `out` attached exactly one own boot, naming `window`, its marker on a line of its own.
fn assert_one_own_boot(out: &Response, window: &str) {
    let boots = own_boots(out);
    assert_eq!(boots.len(), 1, "{}", out.reply);
    let marker = format!("\n<notesoup-boot window=\"{window}\">");
    assert!(boots[0].starts_with(&marker), "{}", boots[0]);
}

#[test]
fn a_first_prompt_before_prompt_context_reads_the_kept_boots_it_was_asked_for() {
    // The terminal under load: a fork's session.start (no transcript written yet), then its
    // first prompt.submit, then prompt.context. The reply to session.start asks for the kept
    // boots with the prompt; the prompt carrying the parent's boot carries the fork's own.
    let home = Home::new("fork-order");
    let cwd = home.cwd();
    let start = home.hook(
        "p1",
        "session.start",
        &json!({"env": {}, "interactive": true}),
    );
    assert_eq!(start.reply["watch"]["prompt_kept"], true, "{}", start.reply);
    let parent = "<notesoup-boot window=\"claude:parent:1\">\nnotes\n</notesoup-boot>\nhandoff";
    let mut facts = submit(&cwd);
    facts["kept"] = json!([parent]);
    let out = home.hook("p1", "prompt.submit", &facts);
    assert_one_own_boot(&out, "claude:s1:1");
    assert_eq!(out.reply["watch"]["prompt_kept"], false, "{}", out.reply);
    // prompt.context after it: no boot block, no second own boot.
    let context = home.hook(
        "p1",
        "prompt.context",
        &json!({"cwd": cwd, "kept": [parent]}),
    );
    assert!(types(&context).is_empty(), "{}", context.reply);
}

#[test]
fn a_kept_boot_of_another_session_owes_the_session_its_own_on_the_next_prompt() {
    // The shell forwards the kept boots without the session: the helper judges them against
    // the session now running.
    let home = Home::new("fork-kept");
    let cwd = home.cwd();
    let parent = "<notesoup-boot window=\"claude:parent:1\">\nnotes\n</notesoup-boot>\nhandoff";
    let context = home.hook(
        "p1",
        "prompt.context",
        &json!({"cwd": cwd, "kept": [parent]}),
    );
    assert!(types(&context).is_empty(), "{}", context.reply);
    assert!(kept_flow(&home.0, "s1").boot_owed);
    let out = home.hook("p1", "prompt.submit", &submit(&cwd));
    assert_one_own_boot(&out, "claude:s1:1");
    // Another hook dropped the prompt: owed again, and the next prompt carries it.
    let generation = out.reply["effects"][0]["generation"].clone();
    home.hook("p1", "prompt.dropped", &json!({"generation": generation}));
    assert!(kept_flow(&home.0, "s1").boot_owed);
    assert_eq!(
        own_boots(&home.hook("p1", "prompt.submit", &submit(&cwd))).len(),
        1
    );
}
