//! What Pi reads for a project, read the way Pi reads it: its settings files (the project's
//! only when Pi trusts the project, from `<agent>/trust.json`), the default model, and a
//! model's window from `<agent>/models.json`. `limits --harness pi` and doctor's Pi lines
//! both read through here.

use std::path::{Path, PathBuf};

use notesoup_thresholds::PiSettings;
use serde_json::Value;

use super::{SettingsFile, read_settings};
use crate::Env;

/// Pi's agent folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub(crate) fn agent_dir(env: &Env) -> Option<PathBuf> {
    env.var_set("PI_CODING_AGENT_DIR")
        .map(PathBuf::from)
        .or_else(|| env.var_set("HOME").map(|h| Path::new(h).join(".pi/agent")))
}

/// One of Pi's settings files and the settings it holds.
pub(crate) type Layer = (SettingsFile, Option<PiSettings>);

/// What Pi reads for one project.
pub(crate) struct PiRead {
    /// The global file, then the project's.
    pub(crate) files: Vec<Layer>,
    /// Whether Pi trusts the project (`trust.json`, the nearest folder decided; else the
    /// global settings' `defaultProjectTrust`): it reads the project's settings and packages
    /// only then. `None`: undecided (Pi asks at start, or `--approve`).
    pub(crate) trusted: Option<bool>,
    /// The files merged as Pi merges them for this project.
    pub(crate) settings: PiSettings,
}

impl PiRead {
    pub(crate) fn of(env: &Env, project: &Path) -> Self {
        let agent = agent_dir(env);
        let mut files = Vec::new();
        if let Some(agent) = &agent {
            files.push(layer("global", agent.join("settings.json")));
        }
        files.push(layer("project", project.join(".pi/settings.json")));
        let trusted = agent
            .as_deref()
            .and_then(|a| trusted(a, project))
            .or_else(|| {
                let (global, _) = files.iter().find(|(f, _)| f.source == "global")?;
                default_trust(global.value.as_ref()?)
            });
        let get = |source: &str| {
            files
                .iter()
                .find(|(f, _)| f.source == source)
                .and_then(|(_, s)| s.as_ref())
        };
        let project_layer = get("project").filter(|_| trusted == Some(true));
        let settings =
            PiSettings::merged(&get("global").cloned().unwrap_or_default(), project_layer);
        Self {
            files,
            trusted,
            settings,
        }
    }

    /// A top-level string setting as Pi reads it: the trusted project's over the global.
    fn text(&self, key: &str) -> Option<&str> {
        self.files
            .iter()
            .rev()
            .filter(|(f, _)| f.source != "project" || self.trusted == Some(true))
            .find_map(|(f, _)| f.value.as_ref()?.get(key)?.as_str())
    }

    /// The files Pi reads that hold `key`, named for a fix line (the global file when none does).
    pub(crate) fn setting_files(&self, key: &str) -> String {
        let holding: Vec<String> = self
            .files
            .iter()
            .filter(|(f, _)| f.source != "project" || self.trusted == Some(true))
            .filter(|(f, _)| f.value.as_ref().is_some_and(|v| v.get(key).is_some()))
            .map(|(f, _)| f.path.display().to_string())
            .collect();
        match holding.as_slice() {
            [] => self.files.first().map_or_else(
                || "Pi's settings".to_owned(),
                |(f, _)| f.path.display().to_string(),
            ),
            _ => holding.join(" and "),
        }
    }

    /// The folders the `extensions` lists of the settings Pi reads name, each relative to
    /// its settings file's folder.
    pub(crate) fn extensions(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|(f, _)| f.source != "project" || self.trusted == Some(true))
            .flat_map(|(f, _)| {
                let base = f.path.parent().map(Path::to_path_buf).unwrap_or_default();
                f.value
                    .as_ref()
                    .and_then(|v| v.get("extensions")?.as_array().cloned())
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(move |e| e.as_str().map(|e| base.join(e)))
            })
            .collect()
    }

    /// The sources the `packages` list of one settings file names (`source` `global` or
    /// `project`; a string, or an object's `source`), as `pi install` writes them
    /// (`npm:@notesoup/pi`), whether Pi reads that file or not.
    pub(crate) fn packages(&self, source: &str) -> Vec<String> {
        self.files
            .iter()
            .filter(|(f, _)| f.source == source)
            .flat_map(|(f, _)| {
                f.value
                    .as_ref()
                    .and_then(|v| v.get("packages")?.as_array().cloned())
                    .unwrap_or_default()
            })
            .filter_map(|p| match p {
                Value::String(s) => Some(s),
                Value::Object(o) => o.get("source")?.as_str().map(str::to_owned),
                _ => None,
            })
            .collect()
    }

    /// The model Pi starts with: `defaultProvider`/`defaultModel` of its settings.
    pub(crate) fn default_model(&self) -> Option<String> {
        Some(format!(
            "{}/{}",
            self.text("defaultProvider")?,
            self.text("defaultModel")?
        ))
    }
}

fn layer(source: &'static str, path: PathBuf) -> Layer {
    let (value, broken) = read_settings(&path).unwrap_or_else(|e| (None, Some(e.to_string())));
    let settings = value
        .as_ref()
        .and_then(|v| serde_json::from_value::<PiSettings>(v.clone()).ok());
    let file = SettingsFile {
        source,
        path,
        value,
        broken,
    };
    (file, settings)
}

/// One of Pi's JSON files (`trust.json`, `models.json`) as an object, when it is one.
fn object(path: &Path) -> Option<Value> {
    read_settings(path).ok()?.0
}

/// Pi's trust decision for `project`: the entry of `<agent>/trust.json` nearest to it
/// (the folder, then each parent), `true` or `false`; `None` when none decides.
fn trusted(agent: &Path, project: &Path) -> Option<bool> {
    let data = object(&agent.join("trust.json"))?;
    let start = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    start
        .ancestors()
        .find_map(|dir| data.get(dir.to_str()?)?.as_bool())
}

/// The global settings' `defaultProjectTrust` when it decides: `always` trusts a project
/// `trust.json` does not decide, `never` does not (Pi's default, `ask`, asks at start).
fn default_trust(global: &Value) -> Option<bool> {
    match global.get("defaultProjectTrust")?.as_str()? {
        "always" => Some(true),
        "never" => Some(false),
        _ => None,
    }
}

/// The window of `model` (`provider/id`) that `<agent>/models.json` gives: the provider's
/// `modelOverrides[id].contextWindow`, else its `models` entry of that id.
pub(crate) fn models_window(env: &Env, model: &str) -> Option<u64> {
    let (provider, id) = model.split_once('/')?;
    let models = object(&agent_dir(env)?.join("models.json"))?;
    let provider = &models["providers"][provider];
    provider["modelOverrides"][id]["contextWindow"]
        .as_u64()
        .or_else(|| {
            provider["models"]
                .as_array()?
                .iter()
                .find(|m| m["id"] == id)?["contextWindow"]
                .as_u64()
        })
}
