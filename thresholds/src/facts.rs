//! The inputs read and type-guarded once ([`Facts`]), and the arithmetic of Claude's point
//! over them.

use crate::inputs::Raw;
use crate::model::settings_windows;
use crate::{
    CLASSIC_CAPACITY, COMPACT_BUFFER, Inputs, NativeSource, OUTPUT_RESERVE_MAX, ThresholdError,
    Unit, js, margins,
};

/// The inputs, read and type-guarded once.
pub(crate) struct Facts {
    pub(crate) auto_on: bool,
    pub(crate) disable_compact: bool,
    reserve: u64,
    pct: Option<f64>,
    model_window: Option<u64>,
    raw_max: Option<u64>,
    reported: Option<u64>,
    configured: Option<u64>,
    reset_margin: u64,
    warning_runway: u64,
}

impl Facts {
    pub(crate) fn read(inputs: &Inputs<'_>) -> Self {
        let env = inputs.env;
        let settings = inputs.settings;
        let context = inputs.context();
        let breakdown = inputs.breakdown();
        let disable_compact = env.compaction_disabled();
        let auto_on = !(disable_compact
            || js::truthy(env.disable_auto_compact.as_deref())
            || settings
                .and_then(|s| s.auto_compact_enabled.as_ref())
                .is_some_and(Raw::is_false)
            || breakdown
                .and_then(|b| b.is_auto_compact_enabled.as_ref())
                .is_some_and(Raw::is_false));
        // Claude ignores the configured (settings) windows when auto-compaction is off; the
        // env window still applies. Otherwise notesoup takes the smallest configured window.
        let env_window = env.window();
        let settings_windows = settings
            .filter(|_| auto_on)
            .map(|s| settings_windows(s, inputs.model))
            .unwrap_or_default();
        let configured = env_window.into_iter().chain(settings_windows).min();
        let pct = env.pct();
        let reserve = env.max_output().map_or(OUTPUT_RESERVE_MAX, |n| {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "min with 20000 first: a positive whole number below 2^53"
            )]
            let n = n.min(20_000.0) as u64;
            n
        });
        // A positive number JavaScript can count exactly (beyond 2^53 it is not a token count).
        let positive = |v: Option<&Raw>| {
            v.and_then(Raw::number)
                .filter(|n| n.is_finite() && *n >= 1.0 && *n <= MAX_SAFE_F64)
                .map(|n| {
                    #[allow(
                        clippy::cast_possible_truncation,
                        clippy::cast_sign_loss,
                        reason = "finite, in [1, 2^53]: exact as u64"
                    )]
                    let n = n.floor() as u64;
                    n
                })
        };
        let [reset_margin, warning_runway] = margins(inputs.settings).map(|m| m.tokens);
        Self {
            auto_on,
            disable_compact,
            reserve,
            pct,
            model_window: positive(context.and_then(|c| c.window.as_ref())),
            raw_max: positive(breakdown.and_then(|b| b.raw_max_tokens.as_ref())),
            reported: positive(breakdown.and_then(|b| b.auto_compact_threshold.as_ref())),
            configured,
            reset_margin,
            warning_runway,
        }
    }

    /// The source, unit, native point (tokens) and the window a cap is clamped to.
    pub(crate) fn native(&self) -> (NativeSource, Unit, i64, u64) {
        let configured = |w: u64| self.configured.map_or(w, |c| c.min(w));
        if let (true, Some(reported)) = (self.auto_on, self.reported) {
            let fallback = reported.saturating_add(COMPACT_BUFFER + self.reserve);
            let window = self.raw_max.into_iter().chain(self.model_window).min();
            let bound = configured(window.unwrap_or(fallback));
            let native = self.lower_by_pct(to_i64(reported) + to_i64(COMPACT_BUFFER));
            return (NativeSource::Breakdown, Unit::Tokens, native, bound);
        }
        let (source, unit, window) = match self.model_window {
            Some(m) => (NativeSource::Window, Unit::Tokens, m),
            None => (NativeSource::Percent, Unit::Percent, CLASSIC_CAPACITY),
        };
        let window = configured(window);
        (source, unit, self.window_point(window), window)
    }

    /// Claude's point for an auto-compact window `w`.
    pub(crate) fn window_point(&self, w: u64) -> i64 {
        let effective = to_i64(w) - to_i64(self.reserve);
        if self.auto_on {
            self.lower_by_pct(effective)
        } else {
            effective
        }
    }

    /// `T = E − 13000`, lowered to `floor(E·p/100)` under the percent override.
    fn lower_by_pct(&self, effective: i64) -> i64 {
        let threshold = effective - to_i64(COMPACT_BUFFER);
        match self.pct {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_precision_loss,
                reason = "JavaScript computes in f64 too; E is far below 2^53"
            )]
            Some(p) => threshold.min((effective as f64 * p / 100.0).floor() as i64),
            None => threshold,
        }
    }

    /// `(hard, warning)` in the unit, or `None` when the margins leave no room.
    pub(crate) fn points(&self, native: i64, unit: Unit) -> Option<(u64, u64)> {
        points(native, unit, self.reset_margin, self.warning_runway)
    }

    pub(crate) fn no_room(&self, native: i64, source: NativeSource) -> ThresholdError {
        ThresholdError::NoRoom {
            native,
            source_name: source.as_str(),
            reset_margin: self.reset_margin,
            warning_runway: self.warning_runway,
        }
    }
}

/// `(hard, warning)` below a native point (tokens) in the unit: `hard = native − reset_margin`,
/// `warning = hard − warning_runway`; `None` when the margins leave no room (`warning < 1`).
/// Every host's policy places its points by this one rule.
pub(crate) fn points(
    native: i64,
    unit: Unit,
    reset_margin: u64,
    warning_runway: u64,
) -> Option<(u64, u64)> {
    let hard = native - to_i64(reset_margin);
    let warning = hard - to_i64(warning_runway);
    let (hard, warning) = (in_unit(hard, unit), in_unit(warning, unit));
    (warning >= 1).then_some((hard, warning))
}

/// A token point in the unit: tokens as they are, percent of the classic capacity rounded
/// down (earlier, never later); a negative point is 0.
pub(crate) fn in_unit(tokens: i64, unit: Unit) -> u64 {
    let tokens = u64::try_from(tokens).unwrap_or(0);
    match unit {
        Unit::Tokens => tokens,
        Unit::Percent => tokens * 100 / CLASSIC_CAPACITY,
    }
}

#[allow(clippy::cast_precision_loss, reason = "2^53 − 1 is exact in f64")]
const MAX_SAFE_F64: f64 = js::MAX_SAFE as f64;

pub(crate) fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
