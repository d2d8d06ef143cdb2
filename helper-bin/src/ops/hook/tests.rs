#![allow(
    clippy::unreadable_literal,
    reason = "JSON literals are written as the engine writes them (200000, not 200_000)"
)]

use serde_json::{Value, json};

use crate::{Context, Outcome, run};

/// A notes home of its own per test.
struct Home(std::path::PathBuf);

impl Home {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("notesoup-hook-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Home(dir)
    }

    fn hook(&self, process: &str, event: &str, facts: &Value) -> Outcome {
        let request = json!({
            "event": event,
            "session": {"harness": "claude", "id": "s1", "process": process},
            "facts": facts,
        });
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

fn types(out: &Outcome) -> Vec<String> {
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
    let text = past.reply["effects"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("empty_brain"), "{text}");
    assert_eq!(past.reply["hints"]["warned"], true);
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
    assert_eq!(out.reply["hints"]["pending"], true);
}

#[test]
fn disable_compact_in_the_budget_env_means_no_warning() {
    let home = Home::new("dc");
    let mut b = budget(150000);
    b["env"] = json!({"DISABLE_COMPACT": "true"});
    let out = home.hook("p1", "tool.call", &json!({"agent": "main", "budget": b}));
    assert!(types(&out).is_empty(), "{}", out.reply);
    // Claude's truthiness: "0" is not set.
    let mut b = budget(150000);
    b["env"] = json!({"DISABLE_COMPACT": "0"});
    let out = home.hook("p1", "tool.call", &json!({"agent": "main", "budget": b}));
    assert_eq!(types(&out), ["warn"], "{}", out.reply);
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
    let warned = |home: &Home, process: &str| {
        let out = home.hook(
            process,
            "tool.call",
            &json!({"agent": "main", "budget": budget(150000)}),
        );
        types(&out) == ["warn"]
    };
    // `DISABLE_COMPACT=0` is not set for Claude: warnings stay on.
    let out = home.hook(
        "p1",
        "session.start",
        &json!({"env": {"DISABLE_COMPACT": "0"}}),
    );
    assert_eq!(
        out.reply["hints"]["disable_compact"], false,
        "{}",
        out.reply
    );
    let out = home.hook(
        "p2",
        "session.start",
        &json!({"env": {"DISABLE_COMPACT": "yes"}}),
    );
    assert_eq!(out.reply["hints"]["disable_compact"], true, "{}", out.reply);
    // The flow refuses the warning itself (the budget in this call has no DISABLE_COMPACT).
    assert!(!warned(&home, "p2"));
    assert!(
        warned(&home, "p3"),
        "a new process reads its own environment"
    );
}
