//! The tool specs are well-formed JSON Schemas with the owning crates' limits, and `call`
//! passes only declared fields of the model's arguments.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use notesoup_history_core::{DEFAULT_LIMIT, MAX_LIMIT, SESSIONS_MAX};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("notesoup-tools-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Checks one property schema: a known type or an enum, and a default that fits it.
fn check_property(tool: &str, key: &str, schema: &Value) {
    let what = format!("{tool}.{key}");
    let schema = schema
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object"));
    for field in schema.keys() {
        assert!(
            [
                "type",
                "description",
                "enum",
                "items",
                "minimum",
                "maximum",
                "default"
            ]
            .contains(&field.as_str()),
            "{what}: unknown keyword {field}"
        );
    }
    let kind = schema.get("type").and_then(Value::as_str);
    match (kind, schema.get("enum")) {
        (Some("string" | "integer" | "boolean"), None) => {}
        (Some("array"), None) => {
            let items = &schema["items"];
            let values = items["enum"].as_array().unwrap();
            assert!(
                !values.is_empty() && values.iter().all(Value::is_string),
                "{what}"
            );
        }
        (None, Some(Value::Array(values))) => {
            assert!(
                !values.is_empty() && values.iter().all(Value::is_string),
                "{what}"
            );
        }
        other => panic!("{what}: neither a known type nor an enum: {other:?}"),
    }
    if let (Some(min), Some(max)) = (schema.get("minimum"), schema.get("maximum")) {
        assert!(min.as_i64() <= max.as_i64(), "{what}");
    }
    if let Some(default) = schema.get("default") {
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            assert!(values.contains(default), "{what}: default outside the enum");
        }
        if kind == Some("integer") {
            let n = default.as_i64().unwrap();
            assert!(
                schema["minimum"].as_i64().is_none_or(|min| n >= min),
                "{what}"
            );
            assert!(
                schema["maximum"].as_i64().is_none_or(|max| n <= max),
                "{what}"
            );
        }
    }
    assert!(
        schema.get("description").is_none_or(Value::is_string),
        "{what}"
    );
}

#[test]
fn every_schema_is_a_closed_object_schema_of_known_keywords() {
    let specs = specs();
    assert_eq!(specs.len(), 9);
    for spec in &specs {
        let schema = spec.input_schema.as_object().unwrap();
        assert_eq!(schema["type"], "object", "{}", spec.name);
        assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
        let properties = schema["properties"].as_object().unwrap();
        for (key, property) in properties {
            check_property(spec.name, key, property);
        }
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            assert!(
                properties.contains_key(required.as_str().unwrap()),
                "{}: required {required} is not a property",
                spec.name
            );
        }
        for key in schema.keys() {
            assert!(
                ["type", "properties", "required", "additionalProperties"].contains(&key.as_str()),
                "{}: unknown keyword {key}",
                spec.name
            );
        }
        // No tool lets the model say what the host binds.
        for bound in ["roots", "transcript_path", "head", "agent_id", "cwd"] {
            assert!(!properties.contains_key(bound), "{}: {bound}", spec.name);
        }
        assert!(!spec.description.is_empty());
    }
    let mut names: Vec<&str> = specs.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 9, "names are unique");
}

#[test]
fn the_limits_are_the_owning_crates() {
    let specs = specs();
    let schema = |name: &str| {
        specs
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .input_schema
            .clone()
    };
    let list = schema("history_list");
    assert_eq!(list["properties"]["limit"]["maximum"], MAX_LIMIT);
    assert_eq!(list["properties"]["limit"]["default"], DEFAULT_LIMIT);
    let sessions = schema("history_sessions");
    assert_eq!(sessions["properties"]["limit"]["maximum"], SESSIONS_MAX);
    assert_eq!(
        sessions["properties"]["harness"]["enum"],
        json!(["claude", "pi", "codex"])
    );
}

/// Undeclared fields never reach the op: a model-supplied transcript, head or session
/// folders is refused, naming the field, and the op never runs; the host's binding does
/// reach it.
#[test]
fn call_refuses_fields_the_schema_does_not_declare() {
    let home = scratch("declared");
    let ctx = Context::from_vars([("HOME", home.to_str().unwrap())]);
    std::fs::create_dir_all(home.join("project")).unwrap();
    let binding = Binding::new(home.join("project").to_str().unwrap());
    let transcript = data().join("history/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    // The model names a transcript and a head of its own: refused before any history is read.
    let answer = call(
        "history_list",
        &json!({"transcript_path": transcript, "head": "0c1c5b74-8d0d-4f62-9b6c-dfd067b0b8aa"}),
        &binding,
        &ctx,
    );
    assert!(answer.is_error, "{answer:?}");
    assert_eq!(
        answer.text,
        "notesoup bad_request: `history_list` takes no argument `head`; it takes only `cursor`, `limit`, `order`, `query`, `roles`, `session`, `window`"
    );
    // The model names session folders: refused, whatever else it asks.
    let xharness = data().join("xharness");
    let roots = json!({"claude": xharness.join("claude-projects"), "pi": xharness.join("pi-sessions"), "codex": xharness.join("codex-sessions")});
    let answer = call(
        "history_sessions",
        &json!({"limit": 1, "roots": roots}),
        &binding,
        &ctx,
    );
    assert_eq!(
        answer.text,
        "notesoup bad_request: `history_sessions` takes no argument `roots`; it takes only `harness`, `limit`"
    );
    assert!(answer.is_error);
    // ... and the host's binding does reach it.
    let bound = Binding {
        roots: Some(serde_json::from_value(roots).unwrap()),
        ..binding.clone()
    };
    let answer = call("history_sessions", &json!({"limit": 1}), &bound, &ctx);
    assert!(
        answer.text.contains("(1 of 7 sessions shown;"),
        "{answer:?}"
    );
    // A notes call naming another session folder is refused and writes nothing.
    let answer = call(
        "notes_write",
        &json!({"name": "plan", "text": "ship it", "cwd": "/elsewhere"}),
        &binding,
        &ctx,
    );
    assert!(answer.is_error, "{answer:?}");
    assert!(answer.text.contains("no argument `cwd`"), "{answer:?}");
    let read = call("notes_read", &json!({"name": "plan"}), &binding, &ctx);
    assert!(
        read.is_error && read.text.starts_with("notesoup not_found: "),
        "{read:?}"
    );
    let answer = call(
        "notes_write",
        &json!({"name": "plan", "text": "ship it"}),
        &binding,
        &ctx,
    );
    assert!(!answer.is_error, "{answer:?}");
    let read = call("notes_read", &json!({"name": "plan"}), &binding, &ctx);
    assert!(read.text.contains("ship it"), "{read:?}");
    let _ = std::fs::remove_dir_all(home);
}

/// Every rule of the schema is held before the op runs: required fields, types, enums,
/// array items and integer bounds, each refusal naming the field.
#[rstest::rstest]
#[case::missing_required("notes_read", json!({}), "`notes_read` needs `name`")]
#[case::wrong_type("notes_read", json!({"name": 7}), "`notes_read` argument `name`: must be a string, got a number")]
#[case::not_an_integer("notes_read", json!({"name": "a", "offset": "2"}), "`notes_read` argument `offset`: must be an integer, got a string")]
#[case::below_minimum("notes_read", json!({"name": "a", "limit": 0}), "`notes_read` argument `limit`: must be at least 1, got 0")]
#[case::above_maximum("history_sessions", json!({"limit": 100_000}), "`history_sessions` argument `limit`: must be at most 200, got 100000")]
#[case::outside_enum("history_sessions", json!({"harness": "gemini"}), "`history_sessions` argument `harness`: must be one of [\"claude\",\"pi\",\"codex\"]")]
#[case::array_item("history_list", json!({"roles": ["user", "root"]}), "`history_list` argument `roles`: an item must be one of")]
#[case::not_an_array("history_list", json!({"roles": "user"}), "`history_list` argument `roles`: must be an array, got a string")]
#[case::boolean("empty_brain", json!({"terminate": "yes"}), "`empty_brain` argument `terminate`: must be a boolean, got a string")]
#[case::not_an_object("notes_list", json!("folder"), "`notes_list` arguments must be a JSON object, got a string")]
fn arguments_are_held_to_the_schema(#[case] tool: &str, #[case] args: Value, #[case] why: &str) {
    let spec = spec_of(tool).unwrap();
    let refusal = arguments(&spec, &args).unwrap_err();
    assert!(refusal.is_error);
    assert!(
        refusal
            .text
            .starts_with(&format!("notesoup bad_request: {why}")),
        "{refusal:?}"
    );
}

#[test]
fn arguments_that_fit_pass_whole() {
    let spec = spec_of("mcp__notesoup__history_list").unwrap();
    let args = json!({"query": "x", "roles": ["user"], "limit": 5, "order": "oldest"});
    assert_eq!(Value::Object(arguments(&spec, &args).unwrap()), args);
    assert!(arguments(&spec, &Value::Null).unwrap().is_empty());
}

/// A hostile field name is quoted clipped: the refusal stays short.
#[test]
fn a_huge_field_name_is_quoted_clipped() {
    let spec = spec_of("notes_list").unwrap();
    let mut args = Map::new();
    args.insert("x".repeat(1_000_000), json!(1));
    let refusal = arguments(&spec, &Value::Object(args)).unwrap_err();
    assert!(refusal.text.len() < 400, "{}", refusal.text.len());
}

#[test]
fn refusals_read_as_the_plugin_shows_them() {
    let ctx = Context::from_vars([("HOME", "/nonexistent")]);
    let binding = Binding::new("/tmp");
    let answer = call("notes_read", &json!({"name": "../up"}), &binding, &ctx);
    assert!(answer.is_error);
    assert!(answer.text.starts_with("notesoup bad_name: "), "{answer:?}");
    let answer = call("notes_read", &json!(["name"]), &binding, &ctx);
    assert_eq!(
        answer.text,
        "notesoup bad_request: `notes_read` arguments must be a JSON object, got an array"
    );
    let answer = call("gemini", &json!({}), &binding, &ctx);
    assert!(answer.text.starts_with("notesoup unknown_tool: "));
    let answer = call("empty_brain", &json!({}), &binding, &ctx);
    assert!(answer.is_error && answer.text.starts_with("notesoup unsupported: "));
}

/// The text of `plugins/claude/hooks/spec.ts`: the specs and commands as the hooks module
/// registers them, rendered from [`specs`] and [`commands`] so the schemas are written once.
/// A tool's `title` and `hints` stay out: Claude Code 2.1.319's `$.tool.register` takes
/// `{name, description, inputSchema?, isDeferred?}` and no annotations (the mod API's
/// `$.tool` reference), so only an MCP client is sent them.
fn spec_ts() -> String {
    let tools: Vec<Value> = specs()
        .iter()
        .map(|s| {
            serde_json::json!({
                "name": s.name,
                "description": s.description,
                "inputSchema": s.input_schema,
            })
        })
        .collect();
    let commands: Vec<Value> = commands()
        .iter()
        .map(|c| {
            let mut command = serde_json::json!({"name": c.name, "description": c.description});
            if let Some(hint) = c.argument_hint {
                command["argumentHint"] = Value::from(hint);
            }
            if c.immediate {
                command["immediate"] = Value::Bool(true);
            }
            command
        })
        .collect();
    let json = |v: &Vec<Value>| serde_json::to_string_pretty(v).unwrap_or_default();
    format!(
        "// GENERATED from notesoup_app::tools::{{specs, commands}}: do not edit. Regenerate with\n\
         // NOTESOUP_BLESS=1 cargo test -p notesoup-app --lib spec_ts\n\
         // (app/src/tools/tests.rs holds this file to the Rust definitions byte for byte).\n\
         \n\
         /** One tool as `$.tool.register` takes it; the model sees `mcp__notesoup__<name>`. */\n\
         export type ToolDef = {{\n  \
           readonly name: string;\n  \
           readonly description: string;\n  \
           readonly inputSchema: {{ readonly properties?: Record<string, unknown> }} & Record<string, unknown>;\n\
         }};\n\
         \n\
         export const TOOLS: readonly ToolDef[] = {};\n\
         \n\
         /** The full names the model sees, the matcher of the tool.call hook. */\n\
         export const TOOL_NAMES: readonly `mcp__notesoup__${{string}}`[] = TOOLS.map((t) => `mcp__notesoup__${{t.name}}` as const);\n\
         \n\
         export const COMMANDS = {} as const;\n\
         \n\
         /** notesoup's one version (Cargo.toml's); the helper refuses a module of another. */\n\
         export const VERSION = {};\n\
         \n\
         /** How long one helper reply may take before the helper counts as unavailable. */\n\
         export const HELPER_TIMEOUT_MS = {};\n\
         \n\
         /** How many of a compaction's last messages the shell forwards (`session.compact`'s `tail`). */\n\
         export const TAIL_MESSAGES = {};\n",
        json(&tools),
        json(&commands),
        serde_json::Value::from(crate::VERSION),
        crate::HELPER_TIMEOUT_MS,
        notesoup_claude_hooks::TAIL_MESSAGES,
    )
}

#[test]
fn spec_ts_is_generated_from_the_rust_specs() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/claude/hooks/spec.ts");
    let want = spec_ts();
    if std::env::var_os("NOTESOUP_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap();
    assert!(
        have == want,
        "{} differs from tools::specs()/commands(); regenerate with NOTESOUP_BLESS=1 cargo test -p notesoup-app --lib spec_ts",
        path.display()
    );
}

/// The hooks module names each variable it reads literally (the engine's validator refuses
/// `$.env.get` with a computed name), so its list is a copy: it must be the threshold
/// variables the policy reads (`notesoup_thresholds::Env::NAMES`), each forwarded under its
/// own name, plus the helper override and notesoup's off switch, and nothing else.
#[test]
fn the_hooks_module_reads_and_forwards_exactly_the_variables_the_policy_reads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/claude/hooks/notesoup.ts");
    let module = std::fs::read_to_string(&path).unwrap();
    let read: std::collections::BTreeSet<&str> = module
        .split("$.env.get('")
        .skip(1)
        .filter_map(|rest| rest.split_once('\'').map(|(name, _)| name))
        .collect();
    let mut want: std::collections::BTreeSet<&str> =
        notesoup_thresholds::Env::NAMES.into_iter().collect();
    want.extend(["NOTESOUP_HELPER", notesoup_thresholds::NOTESOUP_DISABLED]);
    assert_eq!(read, want, "the variables {} reads", path.display());
    for name in notesoup_thresholds::Env::NAMES {
        assert!(
            module.contains(&format!("{name}: ")),
            "{} reads {name} but does not forward it under its name",
            path.display()
        );
    }
}

/// A head Claude has not written yet is asked again, 50 ms more each time, until the
/// answer changes; a head that never comes is refused after the last retry.
#[test]
fn a_head_not_written_is_asked_again_until_it_is() {
    let not_yet = |err: &&str| *err == "head_not_written";
    let mut asked = 0;
    let mut slept = Vec::new();
    let reply = retrying(
        || {
            asked += 1;
            if asked < 3 {
                Err("head_not_written")
            } else {
                Ok("#1 user: hi")
            }
        },
        not_yet,
        |pause| slept.push(pause.as_millis()),
    );
    assert_eq!(reply, Ok("#1 user: hi"));
    assert_eq!((asked, slept), (3, vec![50, 100]));
    let mut asked = 0;
    let mut slept = Vec::new();
    let reply: Result<(), _> = retrying(
        || {
            asked += 1;
            Err("head_not_written")
        },
        not_yet,
        |pause| slept.push(pause.as_millis()),
    );
    assert_eq!(reply, Err("head_not_written"));
    assert_eq!(asked, 1 + HEAD_RETRIES);
    assert_eq!(slept, vec![50, 100, 150, 200, 250, 300]);
    // Any other refusal is passed on at once.
    let mut asked = 0;
    let reply: Result<(), _> = retrying(
        || {
            asked += 1;
            Err("no_head")
        },
        not_yet,
        |_| panic!("no pause"),
    );
    assert_eq!((reply, asked), (Err("no_head"), 1));
}

#[test]
fn the_plugin_manifest_and_the_marketplace_name_notesoups_one_version() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |path: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
    };
    let manifest = read("plugins/claude/.claude-plugin/plugin.json");
    assert_eq!(manifest["version"], crate::VERSION, "plugin.json");
    let market = read(".claude-plugin/marketplace.json");
    let entry = &market["plugins"][0];
    assert_eq!(entry["version"], crate::VERSION, "marketplace.json");
    assert_eq!(
        entry["source"]["version"],
        crate::VERSION,
        "marketplace.json npm source"
    );
}

/// A head whose row is not on disk (in the terminal Claude writes the row holding the call
/// only after the tool answers): with the append before it bound, the history is read from
/// there at once; without it, the refusal to retry stands.
#[test]
fn a_head_not_written_is_read_from_the_append_before_it() {
    let home = scratch("prior-head");
    let ctx = Context::from_vars([("HOME", home.to_str().unwrap())]);
    std::fs::create_dir_all(home.join("project")).unwrap();
    let transcript = data().join("history/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    let binding = Binding {
        transcript_path: Some(transcript.to_str().unwrap().to_owned()),
        head: Some("00000000-0000-4000-8000-00000000beef".to_owned()),
        ..Binding::new(home.join("project").to_str().unwrap())
    };
    let args = json!({"query": "RESUMED-PROMPT"});
    let answer = call("history_list", &args, &binding, &ctx);
    assert!(answer.is_error, "{answer:?}");
    assert!(
        answer.text.starts_with("notesoup head_not_written: "),
        "{answer:?}"
    );
    let with_prior = Binding {
        prior_head: Some("761ce4dd-d0ac-4f59-b058-a811b67e30c1".to_owned()),
        ..binding
    };
    let answer = call("history_list", &args, &with_prior, &ctx);
    assert!(!answer.is_error, "{answer:?}");
    assert!(answer.text.contains("RESUMED-PROMPT"), "{answer:?}");
}

/// A history call whose arguments do not fit the session (an empty query, a seq or window
/// it does not hold, a cursor of another list) is a refusal like any other: a tool error,
/// its text the history's (the tool's words, after any notice of the history).
#[rstest::rstest]
#[case::empty_query("history_list", json!({"query": ""}), "history_list refused (empty_query)")]
#[case::unknown_window("history_list", json!({"window": "claude:x:9"}), "history_list refused (unknown_window)")]
#[case::bad_cursor("history_list", json!({"cursor": "s999999"}), "history_list refused (bad_cursor)")]
#[case::seq_not_found("history_read", json!({"seq": 999_999}), "history_read refused (seq_not_found)")]
#[case::bad_range("history_read", json!({"from": 5, "to": 2}), "history_read refused (bad_range)")]
fn a_history_refusal_is_a_tool_error(#[case] tool: &str, #[case] args: Value, #[case] says: &str) {
    let home = scratch(&format!("history-refusal-{tool}"));
    let ctx = Context::from_vars([("HOME", home.to_str().unwrap())]);
    std::fs::create_dir_all(home.join("project")).unwrap();
    let transcript = data().join("history/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    let binding = Binding {
        transcript_path: Some(transcript.to_str().unwrap().to_owned()),
        head: Some("761ce4dd-d0ac-4f59-b058-a811b67e30c1".to_owned()),
        ..Binding::new(home.join("project").to_str().unwrap())
    };
    let answer = call(tool, &args, &binding, &ctx);
    assert!(answer.is_error, "{answer:?}");
    assert!(answer.text.contains(says), "{answer:?}");
    // The same session's answer to arguments that fit is not an error.
    let fitting = match tool {
        "history_list" => json!({"limit": 2}),
        _ => json!({"seq": 1}),
    };
    let fits = call(tool, &fitting, &binding, &ctx);
    assert!(!fits.is_error, "{fits:?}");
}

/// A history call's `session` may be a bare id or unique prefix, looked up in every
/// harness as a person's is; one that fits several sessions is refused naming them.
#[test]
fn a_bare_session_id_is_looked_up_in_every_harness() {
    let home = scratch("bare-session");
    let pi = data().join("xharness/pi-sessions");
    let ctx = Context::from_vars([
        ("HOME", home.to_str().unwrap()),
        ("PI_CODING_AGENT_SESSION_DIR", pi.to_str().unwrap()),
    ]);
    std::fs::create_dir_all(home.join("project")).unwrap();
    let binding = Binding::new(home.join("project").to_str().unwrap());
    let answer = call(
        "history_list",
        &json!({"session": "01a23754-8e37", "limit": 2}),
        &binding,
        &ctx,
    );
    assert!(!answer.is_error, "{answer:?}");
    assert!(
        answer
            .text
            .contains("pi:01a23754-8e37-7027-8822-e05ee3580bae"),
        "{answer:?}"
    );
    let answer = call("history_list", &json!({"session": "01a2"}), &binding, &ctx);
    assert!(answer.is_error, "{answer:?}");
    assert!(answer.text.contains("ambiguous"), "{answer:?}");
    assert!(
        answer.text.contains("pi:01a23754-8e37") && answer.text.contains("pi:01a23754-922a"),
        "{answer:?}"
    );
}

/// Set in the copy of [`history_answers_say_once_that_the_vault_cannot_be_read`] that runs
/// as `nobody`: the world it answers in.
const VAULT_WORLD: &str = "NOTESOUP_APP_TEST_VAULT_WORLD";

/// The session only the vault holds in the world of the test below, and one still on disk.
const VAULT_ONLY: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
const ON_DISK: &str = "9fc454d3-ac4f-47d0-be8e-4fbf43dce5bb";

fn vault_world_ctx(world: &Path) -> Context {
    let p = |rel: &str| world.join(rel).to_str().unwrap().to_owned();
    Context::from_vars([
        ("HOME".to_owned(), p("home")),
        ("NOTESOUP_HOME".to_owned(), p("notesoup")),
        ("CLAUDE_CONFIG_DIR".to_owned(), p("claude")),
    ])
}

/// `f` on `path` and everything below it (links not followed).
fn each_path(path: &Path, f: &dyn Fn(&Path)) {
    f(path);
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            each_path(&entry.unwrap().path(), f);
        }
    }
}

/// A vault that is there but cannot be read leaves the sessions only it holds out of the
/// history tools' answers; each answer that looked for sessions says so, once, in the
/// tools' words: `history_sessions` (the vault-only session missing), a `history_list` of
/// it (refused: no session has the id, the notice on the line after), and a list and a
/// read of a session on disk (the notice first, within the 32 KiB answer; history-core's
/// tests hold a full page after the longest notice to it, its footer whole). Before, they left it out silently. As root, whom modes do not stop, the
/// calls run in a copy of this test as `nobody` on a world it owns, the vault left root's,
/// as the CLI's test of the same runs `notesoup`.
#[test]
fn history_answers_say_once_that_the_vault_cannot_be_read() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    if let Some(world) = std::env::var_os(VAULT_WORLD) {
        return unreadable_vault_answers(Path::new(&world));
    }
    let world = scratch("vault-unreadable");
    let projects = world.join("claude/projects/-tmp-project");
    std::fs::create_dir_all(&projects).unwrap();
    std::fs::create_dir_all(world.join("project")).unwrap();
    for id in [VAULT_ONLY, ON_DISK] {
        std::fs::copy(
            data().join(format!("history/{id}.jsonl")),
            projects.join(format!("{id}.jsonl")),
        )
        .unwrap();
    }
    let ctx = vault_world_ctx(&world);
    crate::vault::keep_all(&ctx, &mut |_, _| {}).unwrap();
    std::fs::remove_file(projects.join(format!("{VAULT_ONLY}.jsonl"))).unwrap();
    // While the vault reads, the session only it holds is listed, and nothing is noted.
    let binding = Binding::new(world.join("project").to_str().unwrap());
    let listed = call("history_sessions", &json!({}), &binding, &ctx);
    assert!(
        listed.text.contains(&format!("claude:{VAULT_ONLY}"))
            && listed.text.contains("vault only")
            && !listed.text.contains("[notice"),
        "{listed:?}"
    );
    let vault = world.join("notesoup/vault");
    if std::fs::metadata(&vault).unwrap().uid() == 0 {
        let chown = |path: &Path, id: u32| {
            std::os::unix::fs::lchown(path, Some(id), Some(id)).unwrap();
        };
        each_path(&world, &|p| chown(p, 65534));
        each_path(&vault, &|p| chown(p, 0));
        std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o700)).unwrap();
        let test = "tools::tests::history_answers_say_once_that_the_vault_cannot_be_read";
        let out = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env(VAULT_WORLD, &world)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && said.contains("1 passed"),
            "as nobody: {said}"
        );
    } else {
        std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o000)).unwrap();
        unreadable_vault_answers(&world);
        std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let _ = std::fs::remove_dir_all(&world);
}

/// The history tools' answers in `world`, whose vault cannot be read.
fn unreadable_vault_answers(world: &Path) {
    let ctx = vault_world_ctx(world);
    let binding = Binding::new(world.join("project").to_str().unwrap());
    let notice = "[notice: notesoup's history vault cannot be read (";
    let said_once = |answer: &ToolAnswer| {
        assert_eq!(answer.text.matches(notice).count(), 1, "{answer:?}");
        assert!(
            answer
                .text
                .contains("sessions whose files the harness deleted are left out.]"),
            "{answer:?}"
        );
        assert!(answer.text.len() <= notesoup_history_core::ANSWER_LIMIT);
    };
    let listed = call("history_sessions", &json!({}), &binding, &ctx);
    assert!(
        !listed.is_error && listed.text.starts_with(notice),
        "{listed:?}"
    );
    said_once(&listed);
    assert!(!listed.text.contains(VAULT_ONLY), "{listed:?}");
    assert!(listed.text.contains(ON_DISK), "{listed:?}");
    let gone = call(
        "history_list",
        &json!({"session": format!("claude:{VAULT_ONLY}")}),
        &binding,
        &ctx,
    );
    assert!(
        gone.is_error && gone.text.starts_with("notesoup "),
        "{gone:?}"
    );
    said_once(&gone);
    let page = call(
        "history_list",
        &json!({"session": format!("claude:{ON_DISK}"), "limit": MAX_LIMIT}),
        &binding,
        &ctx,
    );
    assert!(!page.is_error && page.text.starts_with(notice), "{page:?}");
    said_once(&page);
    let read = call(
        "history_read",
        &json!({"session": format!("claude:{ON_DISK}"), "from": 1}),
        &binding,
        &ctx,
    );
    assert!(!read.is_error && read.text.starts_with(notice), "{read:?}");
    said_once(&read);
}
