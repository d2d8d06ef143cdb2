//! The budget policy in Pi coding agent 1.6.0 ([`resolve_pi`]): Pi's own compaction point
//! from its settings and the model's window, and notesoup's points below it by the same
//! margins as for Claude.
//!
//! # Pi's point
//! Pi compacts by itself when a context of `tokens` has `tokens > W − reserveTokens`
//! (`shouldCompact` in `dist/core/compaction/compaction.js` of
//! `@earendil-works/pi-coding-agent@1.6.0`), where `W` is the model's `contextWindow` (what
//! `ctx.getContextUsage().contextWindow` reports) and `reserveTokens` comes from the merged
//! settings ([`PiSettings::compaction_settings`]). With `compaction.enabled` falsy Pi never
//! compacts by itself, neither at its threshold nor on a context overflow. So the native
//! point is `W − reserveTokens`, the largest context Pi leaves alone, whether compaction is
//! on or off; off, notesoup warns at the same points but never clears by itself
//! ([`Policy::auto_clear`] false), as for Claude. `tests/pi.rs` checks it against Pi's own
//! code (`tests/data/pi/cases.json`, recorded by `tests/data/pi/record.mjs`).
//!
//! Then, as for Claude, `hard = native − notesoup.resetMarginTokens` and `warning = hard −
//! notesoup.warningRunwayTokens`, read from the `notesoup` object of Pi's merged settings. A
//! runtime cap replaces `W` when smaller.

mod settings;

pub use settings::{
    PI_DEFAULT_KEEP_RECENT_TOKENS, PI_DEFAULT_RESERVE_TOKENS, PiCompaction, PiCompactionSettings,
    PiModelOverride, PiSettings, Slot,
};

use serde_json::json;

use crate::facts::{points, to_i64};
use crate::inputs::margins_of;
use crate::{NativeSource, Policy, ThresholdError, Unit, parse_cap};

/// Everything the Pi policy depends on.
#[derive(Debug, Clone, Copy)]
pub struct PiInputs<'a> {
    /// The model's context window in tokens (`ctx.getContextUsage().contextWindow`, or
    /// `ctx.model.contextWindow`).
    pub window: u64,
    /// Pi's merged settings (`pi.getSettings()`, or [`PiSettings::merged`] of its files);
    /// `None` when there are none (Pi's defaults).
    pub settings: Option<&'a PiSettings>,
    /// The model as `"<provider>/<model id>"` (`ctx.model.provider`, `ctx.model.id`), for
    /// `compaction.modelOverrides`.
    pub model: Option<&'a str>,
    /// The runtime cap as the person typed it (`"100k"`), if any.
    pub cap: Option<&'a str>,
}

impl<'a> PiInputs<'a> {
    /// Inputs with no model and no cap.
    pub fn new(window: u64, settings: Option<&'a PiSettings>) -> Self {
        Self {
            window,
            settings,
            model: None,
            cap: None,
        }
    }
}

/// The two notesoup margins as Pi's (merged) settings hold them, each with its validity
/// ([`crate::margins`] for Claude's).
pub fn pi_margins(settings: Option<&PiSettings>) -> [crate::Margin; 2] {
    crate::inputs::margins_of(settings.and_then(PiSettings::notesoup))
}

/// Resolve the policy in Pi for these inputs.
///
/// ```
/// use notesoup_thresholds::{NativeSource, PiInputs, PiSettings, resolve_pi};
///
/// // ~/.pi/agent/settings.json and the project's .pi/settings.json, merged as Pi merges them.
/// let global: PiSettings = serde_json::from_str(r#"{"compaction": {"reserveTokens": 20000},
///     "notesoup": {"resetMarginTokens": 4096}}"#)?;
/// let project: PiSettings = serde_json::from_str(r#"{"compaction": {"keepRecentTokens": 8000}}"#)?;
/// let settings = PiSettings::merged(&global, Some(&project));
/// // claude-sonnet-4-5 in Pi: a 200000-token window (`ctx.getContextUsage().contextWindow`).
/// let policy = resolve_pi(&PiInputs {
///     model: Some("anthropic/claude-sonnet-4-5"),
///     ..PiInputs::new(200_000, Some(&settings))
/// })?;
/// assert_eq!(policy.source, NativeSource::PiSettings);
/// assert_eq!(policy.native, 180_000); // Pi compacts above 200000 − 20000
/// assert_eq!(policy.hard, 180_000 - 4096);
/// assert_eq!(policy.warning, 180_000 - 4096 - 16_384);
/// assert!(policy.auto_clear);
///
/// // A cap stands in for a smaller window; one with no room is refused.
/// let capped = resolve_pi(&PiInputs { cap: Some("100k"), ..PiInputs::new(200_000, Some(&settings)) })?;
/// assert_eq!(capped.native, 80_000);
/// let err = resolve_pi(&PiInputs { cap: Some("40k"), ..PiInputs::new(200_000, Some(&settings)) });
/// assert!(err.unwrap_err().to_string().contains("smallest cap accepted is 40,481 tokens"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resolve_pi(inputs: &PiInputs<'_>) -> Result<Policy, ThresholdError> {
    let compaction = inputs
        .settings
        .map(|s| s.compaction_settings(inputs.model))
        .transpose()?
        .unwrap_or(settings::DEFAULTS);
    let [reset, runway] = margins_of(inputs.settings.and_then(PiSettings::notesoup));
    let (reset, runway) = (reset.tokens, runway.tokens);
    let reserve = compaction.reserve_tokens;
    let native_of = |window: u64| to_i64(window) - to_i64(reserve);
    let no_room = |native: i64| ThresholdError::NoRoom {
        native,
        source_name: NativeSource::PiSettings.as_str(),
        reset_margin: reset,
        warning_runway: runway,
    };
    let mut native = native_of(inputs.window);
    if native <= 0 {
        return Err(ThresholdError::PiReserveTooLarge {
            reserve,
            window: inputs.window,
        });
    }
    let mut cap = None;
    if let Some(raw) = inputs.cap {
        let tokens = parse_cap(raw)?;
        // `native_of(c) − reset − runway ≥ 1`.
        let smallest = reserve
            .saturating_add(reset)
            .saturating_add(runway)
            .saturating_add(1);
        if tokens < smallest {
            return Err(ThresholdError::CapTooSmall {
                reserves: "Pi's reserveTokens",
                input: raw.to_owned(),
                tokens,
                smallest,
            });
        }
        let clamped = tokens.min(inputs.window);
        native = native.min(native_of(clamped));
        cap = Some(clamped);
    }
    let (hard, warning) = points(native, Unit::Tokens, reset, runway).ok_or(no_room(native))?;
    Ok(Policy {
        unit: Unit::Tokens,
        source: NativeSource::PiSettings,
        native: u64::try_from(native).unwrap_or(0),
        hard,
        warning,
        auto_clear: compaction.enabled,
        warnings_enabled: true,
        explicit_reset: true,
        cap,
        key: key(inputs, &compaction, reset, runway),
    })
}

/// The policy key: a hash of exactly the values read (never the context fill).
fn key(inputs: &PiInputs<'_>, read: &PiCompactionSettings, reset: u64, runway: u64) -> String {
    let material = json!({
        "host": "pi",
        "window": inputs.window,
        "model": inputs.model,
        "cap": inputs.cap,
        "compaction": read,
        "margins": [reset, runway],
    });
    format!("pi1-{:016x}", crate::key::fnv1a(&material.to_string()))
}

#[cfg(test)]
mod tests;
