//! One Pi event whole: the budget from Pi's facts (`resolve_pi`), the boot and warning
//! texts with Pi's tool names, the flow kept on disk under `windows/pi/`.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests: a panic is the failure report"
)]
#![allow(
    clippy::unreadable_literal,
    reason = "JSON literals are written as Pi writes them (200000, not 200_000)"
)]
#![allow(
    clippy::needless_pass_by_value,
    reason = "the helpers take the fill as the literal a test writes"
)]

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{PiBudgetFacts, PiHook, PiHookCall, call, context_remaining};
use crate::Context;
use crate::hook::{Place, SessionRef};

/// A scratch notes home and a project folder for the brain.
fn scratch(test: &str) -> (PathBuf, Context) {
    let dir = std::env::temp_dir().join(format!("notesoup-pi-hook-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project")).unwrap();
    let ctx = Context::from_vars([
        ("NOTESOUP_HOME", dir.join("home").to_str().unwrap()),
        ("HOME", dir.to_str().unwrap()),
    ]);
    (dir, ctx)
}

fn budget(tokens: &Value) -> PiBudgetFacts {
    serde_json::from_value(json!({
        "usage": {"tokens": tokens, "contextWindow": 200000, "percent": null},
        "settings": {},
        "model": "anthropic/claude-sonnet-4-5",
    }))
    .unwrap()
}

/// One event of session `s1` from process `process`: the reply as the shell reads it.
fn send(
    dir: &std::path::Path,
    ctx: &Context,
    process: &str,
    event: &Value,
    tokens: Value,
) -> Value {
    let session: SessionRef =
        serde_json::from_value(json!({"harness": "pi", "id": "s1", "process": process})).unwrap();
    let hook: PiHook = serde_json::from_value(event.clone()).unwrap();
    let reply = call(
        ctx,
        &PiHookCall {
            session,
            hook,
            place: Place {
                cwd: Some(dir.join("project").to_str().unwrap().to_owned()),
                ..Place::default()
            },
            budget: Some(budget(&tokens)),
            session_file: None,
        },
    )
    .unwrap();
    serde_json::to_value(reply).unwrap()
}

#[test]
fn the_warning_names_pis_reset_tool_and_comes_once_per_window_across_processes() {
    let (dir, ctx) = scratch("warning");
    let result = json!({"event": "tool_result", "facts": {"is_error": false}});
    // Pi's defaults: native 183616, hard 175424, warning 159040.
    let reply = send(&dir, &ctx, "p1", &result, json!(170000));
    let effects = reply["effects"].as_array().unwrap();
    assert_eq!(effects.len(), 1, "{reply}");
    assert_eq!(effects[0]["type"], "warn");
    let text = effects[0]["text"].as_str().unwrap();
    assert!(text.contains("`notesoup_empty_brain`"), "{text}");
    assert!(text.contains("5,424 tokens"), "{text}");
    assert!(dir.join("home/windows/pi/s1.json").is_file());
    // Another process (a resumed session): the same window, no second warning.
    let reply = send(&dir, &ctx, "p2", &result, json!(171000));
    assert_eq!(reply["effects"], json!([]), "{reply}");
}

#[test]
fn right_after_a_compaction_pi_reports_no_fill_and_nothing_is_measured() {
    let (dir, ctx) = scratch("null-tokens");
    let result = json!({"event": "tool_result", "facts": {"is_error": false}});
    let reply = send(&dir, &ctx, "p1", &result, Value::Null);
    assert_eq!(reply["effects"], json!([]), "{reply}");
    assert!(
        reply["log"][0]
            .as_str()
            .unwrap()
            .contains("no context usage"),
        "{reply}"
    );
}

#[test]
fn the_first_prompt_gets_window_zero_and_a_threshold_compaction_the_boot_of_window_one() {
    let (dir, ctx) = scratch("compaction");
    let start = json!({"event": "before_agent_start", "facts": {"kept": null}});
    let reply = send(&dir, &ctx, "p1", &start, json!(1000));
    assert_eq!(reply["effects"][0]["type"], "attach_boot", "{reply}");
    assert!(
        reply["effects"][0]["text"]
            .as_str()
            .unwrap()
            .contains("window=\"pi:s1:0\"")
    );
    let compact = json!({"event": "session_before_compact", "facts": {"reason": "threshold"}});
    let reply = send(&dir, &ctx, "p1", &compact, json!(190000));
    let answer = &reply["effects"][0];
    assert_eq!(answer["type"], "answer_compaction", "{reply}");
    assert_eq!(answer["pool"], "forced");
    let summary = answer["text"].as_str().unwrap();
    assert!(
        summary.starts_with("<notesoup-boot window=\"pi:s1:1\">"),
        "{summary}"
    );
    assert!(
        !summary.trim_end().ends_with("</notesoup-boot>"),
        "a handoff follows the boot: {summary}"
    );
}

#[test]
fn a_claude_session_is_refused() {
    let (dir, ctx) = scratch("harness");
    let session: SessionRef =
        serde_json::from_value(json!({"harness": "claude", "id": "s1", "process": "p1"})).unwrap();
    let hook: PiHook =
        serde_json::from_value(json!({"event": "tool_result", "facts": {}})).unwrap();
    let err = call(
        &ctx,
        &PiHookCall {
            session,
            hook,
            place: Place::default(),
            budget: None,
            session_file: None,
        },
    )
    .unwrap_err();
    assert_eq!(err.code(), "bad_request");
    let _ = dir;
}

#[test]
fn context_remaining_counts_down_to_the_warning_and_the_clear() {
    let text = context_remaining(&budget(&json!(150000)), None).unwrap();
    assert_eq!(
        text,
        "150,000 of 200,000 tokens used (75% of the window). 9,040 tokens left to the budget warning, 25,424 to notesoup's clear (Pi would compact above 183,616)."
    );
    let cleared = context_remaining(&budget(&Value::Null), None).unwrap();
    assert!(cleared.contains("just cleared"), "{cleared}");
}

/// `notesoup_empty_brain` through the `tool` path, the run's end, the worker's compaction
/// answered with the boot of window 1, Pi's leaf summary as the proof, one continuation.
#[test]
fn an_explicit_reset_is_kept_by_pi_and_continues_once() {
    let (dir, ctx) = scratch("reset");
    let session: SessionRef =
        serde_json::from_value(json!({"harness": "pi", "id": "s1", "process": "p1"})).unwrap();
    send(
        &dir,
        &ctx,
        "p1",
        &json!({"event": "agent_start", "facts": {"run": 1}}),
        json!(1000),
    );
    let reply = crate::session_flow::kept(
        &ctx,
        &session,
        [notesoup_reset_flow::Event::EmptyBrain {
            agent: notesoup_reset_flow::Agent::Main,
            args: json!({"last_word": "finish the parser"}),
        }],
    )
    .unwrap();
    assert!(matches!(
        reply.effects[0],
        notesoup_reset_flow::Effect::ToolResult {
            is_error: false,
            ..
        }
    ));
    let end = json!({"event": "agent_end", "facts": {"run": 1, "stop_reason": "toolUse"}});
    let reply = send(&dir, &ctx, "p1", &end, json!(1000));
    assert_eq!(reply["effects"][0]["type"], "compact", "{reply}");
    let marker = reply["effects"][0]["marker"].clone();
    let compact = json!({"event": "session_before_compact",
        "facts": {"reason": "manual", "custom_instructions": marker}});
    let reply = send(&dir, &ctx, "p1", &compact, json!(1000));
    let summary = reply["effects"][0]["text"].clone();
    assert_eq!(
        reply["effects"][0]["sticky"], "finish the parser",
        "{reply}"
    );
    let compacted =
        json!({"event": "session_compact", "facts": {"from_extension": true, "summary": summary}});
    let reply = send(&dir, &ctx, "p1", &compacted, Value::Null);
    assert_eq!(reply["effects"][0]["type"], "continue", "{reply}");
    let again = send(&dir, &ctx, "p1", &compacted, Value::Null);
    assert_eq!(again["effects"], json!([]), "one continuation: {again}");
}

/// The cap `/notesoup cap` set in this process lowers what is left; another process's
/// cap is gone with it.
#[test]
fn get_context_remaining_counts_under_this_processs_cap() {
    let (dir, ctx) = scratch("remaining-cap");
    let cap = json!({"event": "command", "facts": {"command": "notesoup", "args": "cap 180k"}});
    send(&dir, &ctx, "p1", &cap, json!(150000));
    let session = |process: &str| -> SessionRef {
        serde_json::from_value(json!({"harness": "pi", "id": "s1", "process": process})).unwrap()
    };
    let text = |process: &str| {
        let reply =
            super::get_context_remaining(&ctx, &session(process), &budget(&json!(150000))).unwrap();
        serde_json::to_value(reply).unwrap()["effects"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // 180000 − 16384 = 163616 native, clear at 155424.
    assert!(
        text("p1").contains("5,424 to notesoup's clear"),
        "{}",
        text("p1")
    );
    assert!(
        text("p2").contains("25,424 to notesoup's clear"),
        "{}",
        text("p2")
    );
}

/// `/notesoup cap off` in Pi says first that the cap was removed (when there was one).
#[test]
fn cap_off_says_the_cap_was_removed() {
    let (dir, ctx) = scratch("cap-off");
    let command = |args: &str| {
        let event = json!({"event": "command", "facts": {"command": "notesoup", "args": args}});
        let reply = send(&dir, &ctx, "p1", &event, json!(50000));
        reply["effects"][0]["text"].as_str().unwrap().to_owned()
    };
    assert!(command("cap 180k").starts_with("Context: "));
    let off = command("cap off");
    assert!(
        off.starts_with("Cap removed: ") && off.contains("\nCap: none ("),
        "{off}"
    );
    let again = command("cap off");
    assert!(again.starts_with("Context: "), "{again}");
}

/// The text of `plugins/pi/spec.ts`: the tools and commands as the Pi extension registers
/// them, rendered from `tools::specs`, `tools::commands` and [`super::CONTEXT_REMAINING`]
/// so the schemas are written once, and the `customType`s of the extension's own hidden
/// messages (`notesoup_pi_hooks`: the compaction's answer leaves those it keeps out).
fn pi_spec_ts() -> String {
    let mut tools: Vec<Value> = crate::tools::specs()
        .iter()
        .map(|s| {
            json!({"name": s.name, "label": s.title, "description": s.description,
                "parameters": s.input_schema})
        })
        .collect();
    let [name, label, description] = super::CONTEXT_REMAINING;
    tools.push(
        json!({"name": name, "label": label, "description": description,
        "parameters": {"type": "object", "properties": {}, "additionalProperties": false}}),
    );
    let commands: Vec<Value> = crate::tools::commands()
        .iter()
        .map(|c| json!({"name": c.name, "description": c.description}))
        .collect();
    let pretty = |v: &Vec<Value>| serde_json::to_string_pretty(v).unwrap();
    format!(
        "// GENERATED from notesoup_app::tools::{{specs, commands}}, hook::pi::CONTEXT_REMAINING and\n\
         // notesoup_pi_hooks::{{HIDDEN_MESSAGE, CLOSEOUT_MESSAGE}}:\n\
         // do not edit. Regenerate with NOTESOUP_BLESS=1 cargo test -p notesoup-app --lib pi_spec_ts\n\
         // (app/src/hook/pi/tests.rs holds this file to the Rust definitions byte for byte).\n\
         \n\
         /** One tool as `pi.registerTool` takes it; the model sees `notesoup_<name>`. */\n\
         export type ToolDef = {{\n  \
           readonly name: string;\n  \
           readonly label: string;\n  \
           readonly description: string;\n  \
           readonly parameters: Record<string, unknown>;\n\
         }};\n\
         \n\
         export const TOOLS: readonly ToolDef[] = {};\n\
         \n\
         export const COMMANDS = {} as const;\n\
         \n\
         /** notesoup's one version (Cargo.toml's); the helper refuses an extension of another. */\n\
         export const VERSION = {};\n\
         \n\
         /** How long one helper reply may take before the helper counts as unavailable. */\n\
         export const HELPER_TIMEOUT_MS = {};\n\
         \n\
         /**\n \
          * The `customType`s of the extension's own hidden messages: the one `before_agent_start`\n \
          * attaches (a boot, the warning), and the close-out's warning steered into a running run.\n \
          */\n\
         export const MESSAGES = {} as const;\n",
        pretty(&tools),
        pretty(&commands),
        Value::from(crate::VERSION),
        crate::HELPER_TIMEOUT_MS,
        serde_json::to_string_pretty(&json!({
            "hidden": notesoup_pi_hooks::HIDDEN_MESSAGE,
            "closeout": notesoup_pi_hooks::CLOSEOUT_MESSAGE,
        }))
        .unwrap(),
    )
}

#[test]
fn pi_spec_ts_is_generated_from_the_rust_specs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/pi/spec.ts");
    let want = pi_spec_ts();
    if std::env::var_os("NOTESOUP_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} differs from the Rust specs; regenerate with NOTESOUP_BLESS=1 cargo test -p notesoup-app --lib pi_spec_ts",
        path.display()
    );
}
