//! `notesoup-demo`: notesoup working in the real Claude Code, offline, in under a minute.
//!
//! Runs the real Claude Code 2.1.319 with the notesoup plugin against the project's
//! scripted local model (no account, no network beyond loopback): the model keeps a note,
//! a reply pushes the context past the warning point, the budget warning arrives, the model
//! saves a last line and calls `empty_brain`, and a fresh window boots from the notes. It
//! prints what happened in plain words and where the notes and the transcript are.
//!
//! Options: `--plugin-dir DIR` (default `plugins/claude`), `--claude PATH` (default:
//! `scripts/get-claude`), `--helper PATH`, `--out DIR` (default a fresh temp dir). Exit
//! status 0 when every step was seen, 1 when one was not, 2 when it could not run.

#![allow(clippy::print_stderr, reason = "the demo reports why it could not run")]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use notesoup_e2e::{Harness, Input, Match, Mode, Outcome, Reply, Request, Script};
use serde_json::{Value, json};

/// Prints a line; a closed stdout (e.g. piped into `head`) is not the demo's failure.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

const EMPTY_BRAIN: &str = "mcp__notesoup__empty_brain";
const FRESH_BOOT: &str = ":1\">";
const LAST_WORD: &str = "Next: order the seeds (see garden/plan).";

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("notesoup-demo: {message}");
            ExitCode::from(2)
        }
    }
}

struct Options {
    plugin_dir: Option<PathBuf>,
    claude: Option<PathBuf>,
    helper: Option<PathBuf>,
    out: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        plugin_dir: None,
        claude: None,
        helper: None,
        out: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .map(PathBuf::from)
                .ok_or(format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--plugin-dir" => o.plugin_dir = Some(value()?),
            "--claude" => o.claude = Some(value()?),
            "--helper" => o.helper = Some(value()?),
            "--out" => o.out = Some(value()?),
            "-h" | "--help" => {
                return Err("usage: notesoup-demo [--plugin-dir DIR] [--claude PATH] [--helper PATH] [--out DIR]".into());
            }
            other => return Err(format!("unknown option {other} (try --help)")),
        }
    }
    Ok(o)
}

/// A reply that says `text` and calls the notesoup tool `name`.
fn say_and_call(text: &str, name: &str, input: Value) -> Reply {
    Reply::text(text).and_tool(&format!("mcp__notesoup__{name}"), input)
}

/// What the scripted model says, step by step.
fn script() -> Script {
    Script::new()
        // Should Claude ever ask for its own summary, say so plainly (the demo reports it).
        .rule(
            Match::compaction(),
            Reply::text("<summary>(native summary: notesoup did not take over)</summary>"),
        )
        .then(say_and_call(
            "I'll keep the plan in my notes.",
            "notes_write",
            json!({"name": "garden/plan",
                   "text": "Garden plan\n- Tomatoes along the south wall\n- Water every morning\n"}),
        ))
        .then_when(Match::tool_result(true), Reply::text("Saved the plan in my notes."))
        .then_when(
            Match::tool_result(false),
            // A long session: the context is now past notesoup's warning point.
            say_and_call("Let me look at my notes.", "notes_list", json!({})).with_input_tokens(150_000),
        )
        .then_when(
            Match::tool_result(true).and_tail_contains(EMPTY_BRAIN),
            say_and_call(
                "The budget warning came. Saving what matters first.",
                "notes_edit",
                json!({"name": "garden/plan", "append": "- Next: order the seeds\n"}),
            ),
        )
        .then_when(
            Match::tool_result(true),
            say_and_call("Notes saved. Clearing my window.", "empty_brain", json!({"last_word": LAST_WORD})),
        )
        .then_when(
            Match::tail_contains(FRESH_BOOT).and_tool_result(false),
            Reply::text(
                "Fresh window. My notes say: tomatoes along the south wall, water every morning, next order the seeds.",
            ),
        )
        .fallback(Reply::text("(the scripted model has nothing more to say)"))
}

fn run() -> Result<bool, String> {
    let o = options()?;
    let harness = Harness::resolve(o.claude, o.plugin_dir, o.helper).map_err(|e| e.to_string())?;
    say!("notesoup demo: the real Claude Code with the notesoup plugin, against a scripted");
    say!("local model on 127.0.0.1 (no account, no network). It takes a few seconds.\n");
    let dir = o
        .out
        .clone()
        .unwrap_or_else(|| notesoup_e2e::fresh_run_dir("notesoup-demo"));
    let mut out = harness
        .session("notesoup-demo", script())
        .run_dir(&dir)
        // A 200k window: Claude compacts at 167k; notesoup clears at 158,808 and warns at 142,424.
        .env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "200000")
        .timeout(Duration::from_secs(120))
        .run(&Mode::StreamJson(vec![
            Input::Message("Let's plan a small vegetable garden.".into()),
            Input::Message("Keep going; it's a long session.".into()),
            // The warning, the reset and the fresh window follow on their own: wait for quiet.
            Input::Idle(Duration::from_secs(4)),
        ]))
        .map_err(|e| e.to_string())?;
    out.keep();
    Ok(tell(&out))
}

fn tell(out: &Outcome) -> bool {
    let requests = out.model_turn_requests();
    let mut all_ok = true;
    let mut step = |n: u32, ok: bool, yes: String, no: &str| {
        all_ok &= ok;
        if ok {
            say!("{n}. {yes}");
        } else {
            say!("{n}. did NOT happen: {no}");
        }
    };

    let note = notes_on_disk(&out.notes_home)
        .into_iter()
        .find(|(_, text)| text.contains("Tomatoes along the south wall"));
    step(
        1,
        note.is_some(),
        format!(
            "Notes: the model wrote a note with notes_write (and later added a line with\n   notes_edit); it is a plain file on disk:\n   {}\n{}",
            note.as_ref()
                .map_or(String::new(), |(p, _)| p.display().to_string()),
            note.as_ref()
                .map_or(String::new(), |(_, text)| quoted(text))
        ),
        "no note with the garden plan was found on disk",
    );

    let warned = requests
        .iter()
        .find(|r| r.has_tool_result() && r.tail_text().contains(EMPTY_BRAIN));
    step(
        2,
        warned.is_some(),
        format!(
            "Budget: a reply reported 150,000 tokens of context in a 200,000 window; the next tool\n   result carried notesoup's budget warning:\n   \"{}\"",
            warned.map_or(String::new(), |r| warning_line(*r))
        ),
        "no tool result carried the budget warning",
    );

    let boundaries = out
        .main_rows()
        .iter()
        .filter(|r| r.get("subtype").and_then(Value::as_str) == Some("compact_boundary"))
        .count();
    let summaries = out
        .message_requests()
        .iter()
        .filter(|r| r.is_compaction())
        .count();
    step(
        3,
        boundaries == 1 && summaries == 0,
        "Reset: the model saved a last line to its note and called empty_brain; Claude's window\n   was cleared once, with no lossy summary (no summary request was made)".to_owned(),
        &format!("expected one cleared window and no summary; saw {boundaries} clear(s) and {summaries} summary request(s)"),
    );

    let fresh = requests.iter().find(|r| r.head_text().contains(FRESH_BOOT));
    step(
        4,
        fresh.is_some_and(|r| r.all_text().contains(LAST_WORD)),
        format!(
            "Fresh window: the next request opened with the boot (window {}), the notes and the\n   sticky last word: \"{LAST_WORD}\"",
            fresh.map_or(String::new(), |r| boot_window(*r))
        ),
        "no request opened a fresh window with the boot and the last word",
    );

    let transcript = out
        .transcripts
        .iter()
        .find(|t| !t.is_subagent())
        .map_or_else(
            || "(none written)".to_owned(),
            |t| t.path.display().to_string(),
        );
    say!("\nWhere things are:");
    say!("   notes:       {}", out.notes_home.display());
    say!("   transcript:  {transcript}");
    say!(
        "   everything:  {} (requests.jsonl is what the model saw)",
        out.run_dir.display()
    );
    if all_ok {
        say!(
            "\nThat is notesoup. With an Anthropic account, run `claude` (with the plugin installed,\n\
             or with the --plugin-dir line scripts/install printed)."
        );
    } else {
        say!("\nSomething did not happen as it should; the session's report follows.\n");
        say!("{}", out.report());
    }
    all_ok
}

/// `text` indented and marked as quoted, one line each.
fn quoted(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        out.push_str("      | ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn notes_on_disk(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                found.push((path, text));
            }
        }
    }
    found
}

fn warning_line(r: Request<'_>) -> String {
    let tail = r.tail_text();
    let line = tail
        .lines()
        .find(|l| l.contains("budget warning"))
        .or_else(|| tail.lines().find(|l| l.contains(EMPTY_BRAIN)))
        .unwrap_or("")
        .trim();
    let start = line.find("notesoup budget warning").unwrap_or(0);
    let clipped: String = line[start..].chars().take(160).collect();
    if clipped.chars().count() < line[start..].chars().count() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

fn boot_window(r: Request<'_>) -> String {
    let head = r.head_text();
    notesoup_window::marker::marker_ids(&head)
        .next()
        .unwrap_or("?")
        .to_owned()
}
