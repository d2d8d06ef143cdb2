//! Which `modelSettings` entries name the session's model, in any of its spellings.

use crate::inputs::{ModelEntry, Raw, Settings};
use crate::js;

/// The valid windows configured in settings for this model: top-level `autoCompactWindow`
/// and every `modelSettings` entry naming the model (any spelling). Claude's schema: a whole
/// number from 100000 to 1000000 (`"auto"` and anything else configure nothing).
pub(crate) fn settings_windows(settings: &Settings, model: Option<&str>) -> Vec<u64> {
    let valid = |v: &Raw| {
        v.whole()
            .filter(|n| (js::WINDOW_MIN..=js::WINDOW_MAX).contains(n))
    };
    let mut out: Vec<u64> = settings
        .auto_compact_window
        .as_ref()
        .and_then(valid)
        .into_iter()
        .collect();
    out.extend(
        model_entries(settings, model)
            .filter_map(|(_, entry)| entry.auto_compact_window.as_ref().and_then(valid)),
    );
    out
}

/// `modelSettings` entries whose key names `model`, in any of its spellings.
pub(crate) fn model_entries<'s>(
    settings: &'s Settings,
    model: Option<&str>,
) -> impl Iterator<Item = (&'s String, &'s ModelEntry)> {
    let wanted = model.map(canonical_model);
    settings
        .model_settings
        .iter()
        .flatten()
        .filter(move |(name, _)| wanted.as_deref() == Some(canonical_model(name).as_str()))
}

/// A model id without its dated, `[1m]`, Bedrock and Vertex decorations, lowercased:
/// `us.anthropic.claude-sonnet-4-6-20250514-v1:0` and `claude-sonnet-4-6@20250514` and
/// `claude-sonnet-4-6[1m]` all name `claude-sonnet-4-6`.
pub(crate) fn canonical_model(id: &str) -> String {
    let mut s = id.trim().to_ascii_lowercase();
    if let Some(stripped) = s.strip_suffix("[1m]") {
        s = stripped.to_owned();
    }
    if let Some(at) = s.rfind("anthropic.") {
        s = s[at + "anthropic.".len()..].to_owned();
    }
    if let Some(at) = s.find('@') {
        s.truncate(at);
    }
    // Bedrock version suffix `-v1:0` / `-v1`.
    if let Some(v) = s.rfind("-v") {
        let tail = &s[v + 2..];
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit() || b == b':') {
            s.truncate(v);
        }
    }
    // Date suffix `-20250514`.
    // The last nine bytes, only when they start on a character (`get` is `None` inside a
    // multi-byte character): an id is the engine's or the settings file's text, any UTF-8.
    let cut = s.len().checked_sub(9);
    if let Some((at, tail)) = cut.and_then(|at| Some((at, s.get(at..)?)))
        && at > 0
        && tail.starts_with('-')
        && tail[1..].bytes().all(|b| b.is_ascii_digit())
    {
        s.truncate(at);
    }
    s
}
