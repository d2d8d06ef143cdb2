//! The policy key: equal keys, equal policy.

use serde_json::{Map, Value, json};

use crate::Inputs;
use crate::inputs::Raw;
use crate::model::model_entries;

/// The policy key: a hash of exactly the values read (never the context fill).
pub(crate) fn key(inputs: &Inputs<'_>) -> String {
    let json = |v: Option<&Raw>| v.map_or(Value::Null, |v| v.json().clone());
    let context = inputs.context();
    let breakdown = inputs.breakdown();
    let settings = inputs.settings;
    let notesoup = settings.and_then(|s| s.notesoup.as_ref());
    let entries: Map<String, Value> = settings
        .map(|s| {
            model_entries(s, inputs.model)
                .map(|(name, entry)| (name.clone(), json(entry.auto_compact_window.as_ref())))
                .collect()
        })
        .unwrap_or_default();
    let env: Map<String, Value> = inputs
        .env
        .pairs()
        .filter_map(|(name, v)| Some((name.to_owned(), Value::from(v?))))
        .collect();
    let material = json!({
        "model": inputs.model,
        "cap": inputs.cap,
        "window": json(context.and_then(|c| c.window.as_ref())),
        "threshold": json(breakdown.and_then(|b| b.auto_compact_threshold.as_ref())),
        "rawMaxTokens": json(breakdown.and_then(|b| b.raw_max_tokens.as_ref())),
        "isAutoCompactEnabled": json(breakdown.and_then(|b| b.is_auto_compact_enabled.as_ref())),
        "env": env,
        "autoCompactWindow": json(settings.and_then(|s| s.auto_compact_window.as_ref())),
        "autoCompactEnabled": json(settings.and_then(|s| s.auto_compact_enabled.as_ref())),
        "modelSettings": entries,
        "resetMarginTokens": json(notesoup.and_then(|n| n.reset_margin_tokens.as_ref())),
        "warningRunwayTokens": json(notesoup.and_then(|n| n.warning_runway_tokens.as_ref())),
    });
    format!("t1-{:016x}", fnv1a(&material.to_string()))
}

/// FNV-1a, 64 bits: stable across builds and platforms (std's hasher is not).
pub(crate) fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
