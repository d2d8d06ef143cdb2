//! `notesoup limits`: the warning and clear points `notesoup-thresholds` gives for this
//! machine's Claude Code settings and environment, and which source decided them (Pi's:
//! `limits/pi.rs`, with `--harness pi`).
//!
//! Claude Code hands the plugin its merged settings and the session's usage; a person's
//! command has neither, so this module reads the settings files Claude merges (user, then
//! the project's shared and local files; later files win, key by key) and the environment
//! (a settings file's `env` block applies over the process's, as Claude applies it). The
//! model's window is unknown without a session: `--window` gives it, else the policy falls
//! back to percent of a 200K window, as the plugin does before the first response.

use std::path::{Path, PathBuf};

use notesoup_thresholds::{
    ContextUsage, Env as PolicyEnv, Inputs, NativeSource, Policy, Raw, Settings, Unit, Unused,
    Usage, margins, parse_cap, resolve,
};
use serde_json::{Map, Value, json};

use crate::args::{LimitsArgs, LimitsHarness};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_OK, Env};

mod json_parse;
pub(crate) mod pi;
pub(crate) mod pi_read;

/// One settings file Claude Code merges, and what it held.
#[derive(Debug, Clone)]
pub(crate) struct SettingsFile {
    /// Which source (`user`, `project`, `local`).
    pub(crate) source: &'static str,
    /// The file.
    pub(crate) path: PathBuf,
    /// Its object, `None` when the file does not exist or is broken.
    pub(crate) value: Option<Value>,
    /// Why it is ignored, when it is not a JSON object (Claude Code ignores it too).
    pub(crate) broken: Option<String>,
}

/// Claude Code's config folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub(crate) fn config_dir(env: &Env) -> Option<PathBuf> {
    env.var_set("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| env.var_set("HOME").map(|h| Path::new(h).join(".claude")))
}

/// The settings files of `project`, lowest priority first (below them Claude's global config,
/// when it says `autoCompactEnabled`: [`global_config`]); one that is not a JSON object is
/// ignored, saying why (as Claude ignores it), and one that cannot be read is an error naming
/// it.
pub(crate) fn settings_files(env: &Env, project: &Path) -> Result<Vec<SettingsFile>, CliError> {
    let mut files: Vec<SettingsFile> = global_config(env).into_iter().collect();
    let mut paths = Vec::new();
    if let Some(dir) = config_dir(env) {
        paths.push(("user", dir.join("settings.json")));
    }
    paths.push(("project", project.join(".claude/settings.json")));
    paths.push(("local", project.join(".claude/settings.local.json")));
    for (source, path) in paths {
        files.push({
            let (value, broken) = read_settings(&path).map_err(|source| CliError::Io {
                what: "read".into(),
                path: path.clone(),
                source,
            })?;
            SettingsFile {
                source,
                path,
                value,
                broken,
            }
        });
    }
    Ok(files)
}

/// The most read of Claude's global config file (it holds every project's history, so it
/// can be large).
const GLOBAL_CONFIG_MAX: u64 = 64 * 1024 * 1024;

/// Claude's global config file, as a settings source below the settings files, when it says
/// `autoCompactEnabled`: the one setting Claude falls back to it for when no settings file
/// says it. The file is `.config.json` in Claude's config folder when that is a file (the
/// legacy place), else `.claude.json` in `$CLAUDE_CONFIG_DIR`, else in the home folder.
/// One that cannot be read or parsed is left out: it holds no setting notesoup must have.
fn global_config(env: &Env) -> Option<SettingsFile> {
    let legacy = config_dir(env)?.join(".config.json");
    let path = if legacy.is_file() {
        legacy
    } else {
        env.var_set("CLAUDE_CONFIG_DIR")
            .or_else(|| env.var_set("HOME"))
            .map(|dir| Path::new(dir).join(".claude.json"))?
    };
    let (value, _) = read_json_object(&path, GLOBAL_CONFIG_MAX).ok()?;
    let enabled = value?.get("autoCompactEnabled")?.clone();
    Some(SettingsFile {
        source: "global",
        path,
        value: Some(json!({ "autoCompactEnabled": enabled })),
        broken: None,
    })
}

/// The most read of a harness's settings file (Claude's, Pi's).
const SETTINGS_MAX: u64 = 1024 * 1024;

/// A settings file as a harness reads it: its JSON object, or why it is ignored (not an
/// object, not JSON, not a regular file, over [`SETTINGS_MAX`]); `(None, None)` when it is not
/// there. Opened without blocking (a FIFO in its place is refused at once, not waited on),
/// through links (dotfiles are often links). Other IO errors are the caller's.
pub(crate) fn read_settings(path: &Path) -> std::io::Result<(Option<Value>, Option<String>)> {
    read_json_object(path, SETTINGS_MAX)
}

/// [`read_settings`] for a file of at most `max` bytes.
fn read_json_object(path: &Path, max: u64) -> std::io::Result<(Option<Value>, Option<String>)> {
    let opened = notesoup_safe_fs::open_regular(path)
        .and_then(|(mut file, meta)| notesoup_safe_fs::read_capped(&mut file, meta.len, max, path));
    let bytes = match opened {
        Ok(bytes) => bytes,
        Err(err) if err.is_not_found() => return Ok((None, None)),
        Err(err)
            if matches!(
                err.io_kind(),
                std::io::ErrorKind::InvalidInput | std::io::ErrorKind::FileTooLarge
            ) =>
        {
            return Ok((None, Some(err.to_string())));
        }
        Err(err) => return Err(std::io::Error::new(err.io_kind(), err.to_string())),
    };
    // A file that is not a JSON object is ignored, as the harnesses ignore it; what is
    // wrong is said beside (and doctor fails it).
    Ok(match json_parse::parse(&bytes) {
        Ok(v) if v.is_object() => (Some(v), None),
        Ok(_) => (None, Some("the top level is not an object".to_owned())),
        Err(e) => (None, Some(e.to_string())),
    })
}

/// The files merged, later over earlier, objects key by key, read once as the policy
/// reads Claude's merged settings.
pub(crate) fn merged(files: &[SettingsFile]) -> Settings {
    fn merge(into: &mut Value, from: &Value) {
        match (into, from) {
            (Value::Object(a), Value::Object(b)) => {
                for (k, v) in b {
                    merge(a.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
            (slot, v) => *slot = v.clone(),
        }
    }
    let mut out = Value::Object(Map::new());
    for f in files {
        if let Some(v) = &f.value {
            merge(&mut out, v);
        }
    }
    // An object always reads (a field of the wrong type is as if absent).
    serde_json::from_value(out).unwrap_or_default()
}

/// Each variable the policy reads, its value and where it came from (`environment`, or
/// the `env` block of a settings file, which wins as Claude applies it at start-up).
pub(crate) fn policy_env(env: &Env, files: &[SettingsFile]) -> Vec<(&'static str, String, String)> {
    PolicyEnv::NAMES
        .iter()
        .filter_map(|&name| {
            let from_settings = files.iter().rev().find_map(|f| {
                let v = f.value.as_ref()?.get("env")?.get(name)?;
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                Some((text, format!("env block of {}", f.path.display())))
            });
            from_settings
                .or_else(|| {
                    env.var(name)
                        .map(|v| (v.to_owned(), "environment".to_owned()))
                })
                .map(|(v, from)| (name, v, from))
        })
        .collect()
}

/// The variables as the policy reads them.
fn captured(vars: &[(&'static str, String, String)]) -> PolicyEnv {
    PolicyEnv::from_lookup(|name| {
        vars.iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, v, _)| v.clone())
    })
}

/// Why a variable changes nothing, in the words `limits` writes beside it: the text's
/// `ignored` or `off`, then the reason (`--json`'s `ignored`).
fn unused_words(unused: Unused) -> (&'static str, &'static str) {
    match unused {
        Unused::Ignored(why) => ("ignored", why),
        Unused::Off => ("off", "only 1, true, yes or on turn it on"),
    }
}

/// The policy for `settings` and the captured variables.
pub(crate) fn policy(
    settings: &Settings,
    vars: &[(&'static str, String, String)],
    model: Option<&str>,
    cap: Option<&str>,
    window: Option<u64>,
) -> Result<Policy, CliError> {
    let env = captured(vars);
    let usage = window.map(|w| Usage {
        context: Some(ContextUsage {
            window: Some(Raw::from(w)),
            ..ContextUsage::default()
        }),
    });
    Ok(resolve(&Inputs {
        usage: usage.as_ref(),
        settings: Some(settings),
        env: &env,
        model,
        cap,
    })?)
}

pub(crate) fn run(args: &LimitsArgs, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let project = env.folder(args.project.as_deref());
    // Settings of a folder that is not there would all read as absent: a typo in
    // --project is refused, as `mcp --project` refuses it. (`notes --project` opens the
    // brain a gone folder left behind: a brain outlives its folder, settings do not.)
    if let Some(reason) = args
        .project
        .as_ref()
        .and_then(|_| crate::folder::not_a_folder(&project))
    {
        return Err(CliError::Refused {
            code: "bad_cwd",
            message: format!("--project {}: {reason}", project.display()),
            fix: "give --project the folder of an existing project, or leave it out to use this folder"
                .into(),
        });
    }
    let window = args
        .window
        .as_deref()
        .map(|w| {
            parse_cap(w)
                // No model has a window of 0 tokens: it would be taken as none given.
                .ok()
                .filter(|tokens| *tokens > 0)
                .ok_or_else(|| CliError::BadArgument {
                    what: format!("--window {w:?} is not a window's size in tokens"),
                    fix: "write whole tokens or a decimal with k or m, e.g. 200k, 1m".into(),
                })
        })
        .transpose()?;
    if args.harness == LimitsHarness::Pi {
        return pi::run(args, window, env, out);
    }
    let files = settings_files(env, &project)?;
    let settings = merged(&files);
    let vars = policy_env(env, &files);
    // Without --window a cap is placed as in a session with no window known
    // (`NativeSource::Cap`: in tokens, when it is within the 200K assumed).
    let p = policy(
        &settings,
        &vars,
        args.model.as_deref(),
        args.cap.as_deref(),
        window.filter(|w| *w > 0),
    )?;
    let shown = Shown {
        project: &project,
        files: &files,
        vars: &vars,
        window,
        model: args.model.as_deref(),
        cap: args.cap.as_deref(),
    };
    if out.json {
        json_report(&p, &shown, &settings, out);
    } else {
        text_report(&p, &shown, &settings, out);
    }
    Ok(EXIT_OK)
}

/// What was read, for the report.
struct Shown<'a> {
    project: &'a Path,
    files: &'a [SettingsFile],
    vars: &'a [(&'static str, String, String)],
    window: Option<u64>,
    model: Option<&'a str>,
    /// `--cap` as given.
    cap: Option<&'a str>,
}

fn json_report(p: &Policy, shown: &Shown<'_>, settings: &Settings, out: &mut Out) {
    let mut doc = points_json(p, shown.files.iter(), &margins(Some(settings)));
    doc["warnings_enabled"] = p.warnings_enabled.into();
    doc["explicit_reset"] = p.explicit_reset.into();
    doc["window"] = json!(shown.window);
    doc["model"] = json!(shown.model);
    let env = captured(shown.vars);
    doc["env"] = shown
        .vars
        .iter()
        .map(|(n, v, from)| {
            let ignored = env.unused(n, p.auto_clear).map(|u| unused_words(u).1);
            json!({"name": n, "value": v, "from": from, "ignored": ignored})
        })
        .collect();
    out.json_doc(&doc);
}

/// What `limits --json` says for either harness: the points, the settings files read and
/// the margins; each harness adds its own fields.
pub(crate) fn points_json<'a>(
    p: &Policy,
    files: impl Iterator<Item = &'a SettingsFile>,
    margins: &[notesoup_thresholds::Margin],
) -> Value {
    json!({
        "ok": true,
        "unit": p.unit.as_str(),
        "source": p.source.as_str(),
        "native": p.native,
        "clear": p.hard,
        "warning": p.warning,
        "auto_clear": p.auto_clear,
        "cap": p.cap,
        "settings": files.map(|f| json!({"source": f.source, "path": f.path, "found": f.value.is_some(), "broken": f.broken})).collect::<Vec<_>>(),
        "margins": margins.iter().map(|m| json!({"name": m.name, "value": m.raw, "tokens": m.tokens, "valid": m.valid})).collect::<Vec<_>>(),
    })
}

fn text_report(p: &Policy, shown: &Shown<'_>, settings: &Settings, out: &mut Out) {
    let (project, files, vars, window) = (shown.project, shown.files, shown.vars, shown.window);
    let unit = match p.unit {
        Unit::Tokens => " tokens",
        Unit::Percent => "% of a 200K window",
    };
    out.line(out.paint(
        Paint::Strong,
        &format!("Budget points for {}", project.display()),
    ));
    point_rows(
        p,
        unit,
        ("auto-compaction is off", "Claude Code's own point"),
        out,
    );
    let decided = match p.source {
        NativeSource::Breakdown => "the engine's reported threshold".to_owned(),
        NativeSource::Window => match window {
            Some(window) => format!(
                "the window {} tokens (--window), less Claude's reserves, or a smaller configured window",
                notesoup_window::thousands(window)
            ),
            None => "the model's window, less Claude's reserves, or a smaller configured window"
                .to_owned(),
        },
        NativeSource::Cap => format!(
            "the cap (--cap), or a smaller configured window: {} tokens, less Claude's reserves; the same in any model's window at least that large (--window gives a smaller one)",
            notesoup_window::thousands(p.cap.unwrap_or_default())
        ),
        NativeSource::Percent => "percent of a classic 200K window: no session, so the model's window is unknown (--window 1m gives it)".to_owned(),
        NativeSource::PiSettings => "Pi's compaction settings and the model's window".to_owned(),
    };
    out.line(format!("Decided by: {decided}."));
    cap_line(p.cap, shown.cap, out);
    if !p.warnings_enabled {
        out.line(out.paint(
            Paint::Warn,
            "DISABLE_COMPACT is set: no warnings and no explicit resets.",
        ));
    }
    out.line("Read:");
    for f in files {
        let state = match (&f.value, &f.broken) {
            (Some(_), _) if f.source == "global" => "  (autoCompactEnabled only)".to_owned(),
            (Some(_), _) => String::new(),
            (None, Some(why)) => out.paint(
                Paint::Warn,
                &format!("  (broken, ignored as Claude Code ignores it: {why})"),
            ),
            (None, None) => "  (absent)".to_owned(),
        };
        out.line(format!("  {:<8}{}{state}", f.source, f.path.display()));
    }
    let env = captured(vars);
    for (name, value, from) in vars {
        // A value Claude Code does not use is said so, never shown as if in force.
        let line = match env.unused(name, p.auto_clear) {
            None => format!("  {name}={value}  ({from})"),
            Some(unused) => {
                let (how, why) = unused_words(unused);
                out.paint(
                    Paint::Warn,
                    &format!("  {name}={value}  ({from}; {how}: {why})"),
                )
            }
        };
        out.line(line);
    }
    margin_lines(&margins(Some(settings)), out);
}

/// The warning, clear and native rows of a policy in `unit` (written right after the
/// number: `" tokens"`, `"% of a 200K window"`, so a percent reads `71%` as /notesoup
/// writes it); `said`: why there is no automatic clear, and what the native point is, in
/// the harness's words.
pub(crate) fn point_rows(p: &Policy, unit: &str, said: (&str, &str), out: &mut Out) {
    let row = |label: &str, value: u64, what: &str| {
        let value = notesoup_window::thousands(value);
        format!("  {label:<8}{value:>9}{unit}  {what}")
    };
    let warning = if p.warnings_enabled {
        "notesoup warns the agent to save its notes"
    } else {
        "no warning: DISABLE_COMPACT is set"
    };
    out.line(row("warning", p.warning, warning));
    let clear = if !p.explicit_reset {
        "no clear: DISABLE_COMPACT is set, so the window is never cleared".to_owned()
    } else if p.auto_clear {
        "notesoup clears the window (the agent starts again from its notes)".to_owned()
    } else {
        format!("no automatic clear: {}", said.0)
    };
    out.line(row("clear", p.hard, &clear));
    out.line(row("native", p.native, said.1));
}

/// The margins in force, a line each (an invalid one said as ignored), for either harness.
pub(crate) fn margin_lines(margins: &[notesoup_thresholds::Margin], out: &mut Out) {
    for m in margins {
        let line = match (&m.raw, m.valid) {
            (None, _) => format!(
                "  notesoup.{} = {} (default)",
                m.name,
                notesoup_window::thousands(m.tokens)
            ),
            (Some(raw), true) => format!("  notesoup.{} = {raw}", m.name),
            (Some(raw), false) => out.paint(
                Paint::Warn,
                &format!(
                    "  notesoup.{} = {raw} is not a whole number of tokens: ignored, {} applies",
                    m.name,
                    notesoup_window::thousands(m.tokens)
                ),
            ),
        };
        out.line(line);
    }
}

/// The cap line: the cap in force, and what `--cap` asked when the window clamped it.
pub(crate) fn cap_line(cap: Option<u64>, given: Option<&str>, out: &mut Out) {
    let (Some(cap), Some(given)) = (cap, given) else {
        return;
    };
    let thousands = notesoup_window::thousands;
    match parse_cap(given) {
        Ok(tokens) if tokens > cap => out.line(format!(
            "Cap: --cap {given} ({} tokens) is more than the window's {} tokens, so it changes nothing here.",
            thousands(tokens),
            thousands(cap)
        )),
        _ => out.line(format!("Cap: {} tokens (--cap {given}).", thousands(cap))),
    }
}
