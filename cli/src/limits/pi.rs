//! `notesoup limits --harness pi`: the warning and clear points for this machine's Pi
//! settings, as the Pi extension resolves them (`notesoup_thresholds::resolve_pi`), from
//! what Pi reads for the project (`pi_read.rs`): its settings files (the project's once Pi
//! trusts it), its default model and that model's window in `models.json`. `--model` and
//! `--window` stand in for them; with neither window, a 200K window.

use std::path::Path;

use notesoup_thresholds::{Margin, PiInputs, Policy, ThresholdError, pi_margins, resolve_pi};
use serde_json::json;

use super::pi_read::{PiRead, models_window};
use crate::args::LimitsArgs;
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

/// A setting Pi refuses, with a fix naming the settings files it may be in (those read and
/// merged: the project's only once Pi trusts it), since a refusal shows no `Read:` list;
/// any other refusal as it is.
fn refused_setting(err: ThresholdError, read: &PiRead) -> CliError {
    let ThresholdError::PiSetting {
        setting, expected, ..
    } = &err
    else {
        return err.into();
    };
    let files: Vec<String> = read
        .files
        .iter()
        .filter(|(f, _)| f.value.is_some())
        .filter(|(f, _)| f.source != "project" || read.trusted == Some(true))
        .map(|(f, _)| f.path.display().to_string())
        .collect();
    if files.is_empty() {
        return err.into();
    }
    CliError::Refused {
        code: err.code(),
        message: err.to_string(),
        fix: format!(
            "give {setting} {expected}, or remove it, in the settings file that sets it: {}",
            files.join(" or ")
        ),
    }
}

/// The window assumed when neither `--window` nor `models.json` gives one: the Anthropic
/// models' (Pi reports the model's own in a session).
pub(crate) const DEFAULT_WINDOW: u64 = 200_000;

pub(crate) fn run(
    args: &LimitsArgs,
    window: Option<u64>,
    env: &Env,
    out: &mut Out,
) -> Result<u8, CliError> {
    if let Some(model) = args.model.as_deref().filter(|m| !m.contains('/')) {
        return Err(CliError::BadArgument {
            what: format!("--model {model:?} is not a Pi model"),
            fix: "Pi names a model provider/id, e.g. --model anthropic/claude-sonnet-4-5".into(),
        });
    }
    let project = env.folder(args.project.as_deref());
    let read = PiRead::of(env, &project);
    let (model, model_from) = match (&args.model, read.default_model()) {
        (Some(m), _) => (Some(m.clone()), "--model"),
        (None, Some(m)) => (Some(m), "Pi's defaultProvider/defaultModel"),
        (None, None) => (None, "none named"),
    };
    let (tokens, window_from) = match (window, model.as_deref().and_then(|m| models_window(env, m)))
    {
        (Some(w), _) => (w, "--window"),
        (None, Some(w)) => (w, "the model's contextWindow in models.json"),
        (None, None) => (
            DEFAULT_WINDOW,
            "the Anthropic models'; --window gives another model's",
        ),
    };
    let policy = resolve_pi(&PiInputs {
        model: model.as_deref(),
        cap: args.cap.as_deref(),
        ..PiInputs::new(tokens, Some(&read.settings))
    })
    .map_err(|err| refused_setting(err, &read))?;
    let report = Report {
        project: &project,
        reserve: read
            .settings
            .compaction_settings(model.as_deref())
            .map_err(|err| refused_setting(err, &read))?
            .reserve_tokens,
        margins: pi_margins(Some(&read.settings)),
        policy,
        tokens,
        window_from,
        model: model.as_deref(),
        model_from,
        read: &read,
    };
    if out.json {
        json_report(&report, out);
    } else {
        text_report(&report, args, out);
    }
    Ok(EXIT_OK)
}

/// What was read and resolved, for the report.
struct Report<'a> {
    project: &'a Path,
    policy: Policy,
    /// The window the points are for, and where it came from.
    tokens: u64,
    window_from: &'static str,
    model: Option<&'a str>,
    model_from: &'static str,
    reserve: u64,
    margins: [Margin; 2],
    read: &'a PiRead,
}

fn json_report(r: &Report<'_>, out: &mut Out) {
    let mut doc = super::points_json(&r.policy, r.read.files.iter().map(|(f, _)| f), &r.margins);
    doc["harness"] = "pi".into();
    doc["window"] = r.tokens.into();
    doc["window_from"] = r.window_from.into();
    doc["model"] = json!(r.model);
    doc["model_from"] = r.model_from.into();
    doc["reserve_tokens"] = r.reserve.into();
    doc["project_trusted"] = json!(r.read.trusted);
    out.json_doc(&doc);
}

fn text_report(r: &Report<'_>, args: &LimitsArgs, out: &mut Out) {
    let p = &r.policy;
    out.line(out.paint(
        Paint::Strong,
        &format!("Budget points for {} in Pi", r.project.display()),
    ));
    super::point_rows(
        p,
        " tokens",
        (
            "Pi's compaction.enabled is false (notesoup clears when asked)",
            if p.auto_clear {
                "Pi's own point: it compacts above this"
            } else {
                "Pi's own point, were its compaction on"
            },
        ),
        out,
    );
    let model = r.model.map_or_else(
        || "no model (Pi's settings name no defaultModel; --model gives one)".to_owned(),
        |m| format!("{m} ({})", r.model_from),
    );
    out.line(format!(
        "Decided by: Pi's compaction.reserveTokens {} for {model}, and a {}-token window ({}).",
        notesoup_window::thousands(r.reserve),
        notesoup_window::thousands(r.tokens),
        r.window_from
    ));
    super::cap_line(p.cap, args.cap.as_deref(), out);
    out.line("Read:");
    for (f, _) in &r.read.files {
        let state = match (&f.value, &f.broken, f.source == "project") {
            (Some(_), _, true) if r.read.trusted != Some(true) => out.paint(
                Paint::Warn,
                "  (not read: Pi does not trust this project yet; `pi --approve` or /trust)",
            ),
            (Some(_), _, _) => String::new(),
            (None, Some(why), _) => out.paint(
                Paint::Warn,
                &format!("  (broken, ignored as Pi ignores it: {why})"),
            ),
            (None, None, _) => "  (absent)".to_owned(),
        };
        out.line(format!("  {:<8}{}{state}", f.source, f.path.display()));
    }
    super::margin_lines(&r.margins, out);
}
