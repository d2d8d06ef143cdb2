//! `notesoup limits --harness pi`: the warning and clear points for this machine's Pi
//! settings, as the Pi extension resolves them (`notesoup_thresholds::resolve_pi`).
//!
//! Pi merges `~/.pi/agent/settings.json` (or `$PI_CODING_AGENT_DIR/settings.json`) with the
//! project's `.pi/settings.json`, the latter only once it trusts the project; a command
//! cannot know that, so both are read and the project file is named as read when trusted.
//! The model's window comes from a running Pi: `--window` gives it, else a 200K window.

use std::path::{Path, PathBuf};

use notesoup_thresholds::{Margin, PiInputs, PiSettings, Policy, pi_margins, resolve_pi};
use serde_json::json;

use super::SettingsFile;
use crate::args::LimitsArgs;
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// The window assumed without `--window`: the Anthropic models' (Pi reports the model's
/// own in a session).
pub(crate) const DEFAULT_WINDOW: u64 = 200_000;

/// Pi's agent folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub(crate) fn agent_dir(env: &Env) -> Option<PathBuf> {
    env.var_set("PI_CODING_AGENT_DIR")
        .map(PathBuf::from)
        .or_else(|| env.var_set("HOME").map(|h| Path::new(h).join(".pi/agent")))
}

/// Pi's settings files for `project`, global first; a broken one is read as absent, as Pi
/// warns of it and goes on without it.
pub(crate) fn files(env: &Env, project: &Path) -> Vec<(SettingsFile, Option<PiSettings>)> {
    let mut paths = Vec::new();
    if let Some(agent) = agent_dir(env) {
        paths.push(("global", agent.join("settings.json")));
    }
    paths.push(("project", project.join(".pi/settings.json")));
    paths
        .into_iter()
        .map(|(source, path)| {
            let (mut value, mut broken, mut settings) = (None, None, None);
            match std::fs::read_to_string(&path) {
                Ok(text) => match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(v) if v.is_object() => {
                        settings = serde_json::from_value::<PiSettings>(v.clone()).ok();
                        value = Some(v);
                    }
                    Ok(_) => broken = Some("the top level is not an object".to_owned()),
                    Err(e) => broken = Some(e.to_string()),
                },
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => broken = Some(e.to_string()),
            }
            let file = SettingsFile {
                source,
                path,
                value,
                broken,
            };
            (file, settings)
        })
        .collect()
}

pub(crate) fn run(
    args: &LimitsArgs,
    window: Option<u64>,
    env: &Env,
    out: &mut Out,
) -> Result<u8, CliError> {
    let project = env.folder(args.project.as_deref());
    let read = files(env, &project);
    let settings = merged(&read);
    let tokens = window.unwrap_or(DEFAULT_WINDOW);
    let policy = resolve_pi(&PiInputs {
        model: args.model.as_deref(),
        cap: args.cap.as_deref(),
        ..PiInputs::new(tokens, Some(&settings))
    })?;
    let report = Report {
        project: &project,
        reserve: settings
            .compaction_settings(args.model.as_deref())?
            .reserve_tokens,
        margins: pi_margins(Some(&settings)),
        policy,
        tokens,
        window,
        read: &read,
    };
    if out.json {
        json_report(&report, args, out);
    } else {
        text_report(&report, args, out);
    }
    Ok(EXIT_OK)
}

/// The files' settings merged as Pi merges them: the project's over the global.
pub(crate) fn merged(read: &[(SettingsFile, Option<PiSettings>)]) -> PiSettings {
    let layer = |source: &str| {
        read.iter()
            .find(|(f, _)| f.source == source)
            .and_then(|(_, s)| s.as_ref())
    };
    PiSettings::merged(
        &layer("global").cloned().unwrap_or_default(),
        layer("project"),
    )
}

/// What was read and resolved, for the report.
struct Report<'a> {
    project: &'a Path,
    policy: Policy,
    /// The window the points are for, and whether `--window` gave it.
    tokens: u64,
    window: Option<u64>,
    reserve: u64,
    margins: [Margin; 2],
    read: &'a [(SettingsFile, Option<PiSettings>)],
}

fn json_report(r: &Report<'_>, args: &LimitsArgs, out: &mut Out) {
    let p = &r.policy;
    out.json_doc(&json!({
        "ok": true,
        "harness": "pi",
        "unit": p.unit.as_str(),
        "source": p.source.as_str(),
        "native": p.native,
        "clear": p.hard,
        "warning": p.warning,
        "auto_clear": p.auto_clear,
        "cap": p.cap,
        "window": r.tokens,
        "window_given": r.window.is_some(),
        "model": args.model,
        "reserve_tokens": r.reserve,
        "settings": r.read.iter().map(|(f, _)| json!({"source": f.source, "path": f.path, "found": f.value.is_some(), "broken": f.broken})).collect::<Vec<_>>(),
        "margins": r.margins.iter().map(|m| json!({"name": m.name, "value": m.raw, "tokens": m.tokens, "valid": m.valid})).collect::<Vec<_>>(),
    }));
}

fn text_report(r: &Report<'_>, args: &LimitsArgs, out: &mut Out) {
    let p = &r.policy;
    out.line(out.paint(
        Paint::Strong,
        &format!("Budget points for {} in Pi", r.project.display()),
    ));
    super::point_rows(
        p,
        "tokens",
        (
            "Pi's compaction.enabled is false (notesoup clears when asked)",
            "Pi's own point: it compacts above this",
        ),
        out,
    );
    let tokens = r.tokens;
    let window_said = if r.window.is_some() {
        format!("a {tokens}-token window (--window)")
    } else {
        format!("a {tokens}-token window (the Anthropic models'; --window gives another model's)")
    };
    out.line(format!(
        "Decided by: Pi's compaction.reserveTokens {} and {window_said}.",
        r.reserve
    ));
    super::cap_line(p.cap, args.cap.as_deref(), out);
    out.line("Read:");
    for (f, _) in r.read {
        let state = match (&f.value, &f.broken) {
            (Some(_), _) if f.source == "project" => {
                "  (Pi reads it once it trusts the project)".to_owned()
            }
            (Some(_), _) => String::new(),
            (None, Some(why)) => out.paint(
                Paint::Warn,
                &format!("  (broken, ignored as Pi ignores it: {why})"),
            ),
            (None, None) => "  (absent)".to_owned(),
        };
        out.line(format!("  {:<8}{}{state}", f.source, f.path.display()));
    }
    super::margin_lines(&r.margins, out);
}
