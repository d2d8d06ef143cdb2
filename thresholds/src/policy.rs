//! The resolved policy: its points, where they came from, and [`resolve`], which finds
//! them from the [`Inputs`].

use crate::facts::{Facts, in_unit};
use crate::inputs::ContextUsage;
use crate::key::key;
use crate::{Inputs, ThresholdError, parse_cap};

/// Which input the native point came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeSource {
    /// `usage.context.breakdown.autoCompactThreshold`.
    Breakdown,
    /// Computed from `usage.context.window` and the configured windows.
    Window,
    /// The 200K percent fallback.
    Percent,
    /// No window known, and a cap no larger than the 200K the percent fallback assumes:
    /// the cap is the window, so the points are in tokens, the same in any window at least
    /// as large.
    Cap,
    /// Pi's compaction settings and the model's window ([`crate::resolve_pi`]).
    PiSettings,
}

impl NativeSource {
    /// The protocol's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Breakdown => "breakdown",
            Self::Window => "window",
            Self::Percent => "percent",
            Self::Cap => "cap",
            Self::PiSettings => "pi-settings",
        }
    }
}

/// What the points count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Context tokens (compare with `usage.context.tokens`).
    Tokens,
    /// Whole percent of the window (compare with `usage.context.percent`).
    Percent,
}

impl Unit {
    /// The protocol's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tokens => "tokens",
            Self::Percent => "percent",
        }
    }

    /// The unit its protocol name ([`Unit::as_str`]) names.
    ///
    /// ```
    /// use notesoup_thresholds::Unit;
    /// assert_eq!(Unit::named("percent")?, Unit::Percent);
    /// assert_eq!(Unit::named("tokens")?, Unit::Tokens);
    /// assert_eq!(Unit::named("lines").unwrap_err().code(), "bad_unit");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn named(name: &str) -> Result<Self, ThresholdError> {
        [Self::Tokens, Self::Percent]
            .into_iter()
            .find(|unit| unit.as_str() == name)
            .ok_or_else(|| ThresholdError::BadUnit {
                input: name.to_owned(),
            })
    }

    /// The field of the engine's context usage (`$.session.usage().context`) the fill is read
    /// from ([`Policy::fill`]): the engine names it as the protocol names the unit.
    pub fn field(self) -> &'static str {
        self.as_str()
    }
}

/// The raw fill (the number in the engine's context usage) below which [`Policy::fill`],
/// which rounds it, is below `point`: `fill(v) < point` exactly when `v < fill_below(point)`.
/// What a caller holding a point compares a raw reading with.
///
/// ```
/// use notesoup_thresholds::{Env, Inputs, Usage, fill_below, resolve};
/// use serde_json::json;
///
/// let usage: Usage = serde_json::from_value(json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 167000}}}))?;
/// let policy = resolve(&Inputs::new(Some(&usage), None, &Env::default()))?;
/// for raw in [141_999.4, 141_999.5, 142_000.0] {
///     let fill = policy.fill(&serde_json::from_value(json!({"tokens": raw}))?).unwrap();
///     assert_eq!(fill < 142_000, raw < fill_below(142_000));
/// }
/// assert_eq!(fill_below(0), -0.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[expect(
    clippy::cast_precision_loss,
    reason = "points are far below 2^52; u64::MAX (no point) stays above any fill"
)]
pub fn fill_below(point: u64) -> f64 {
    point as f64 - 0.5
}

/// A resolved budget policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// What the points count.
    pub unit: Unit,
    /// Where the native point came from.
    pub source: NativeSource,
    /// The host's own point (Claude: auto-compaction, or `W − R` when it is off; Pi: the
    /// largest context it does not compact at, `W − reserveTokens`), after the cap.
    pub native: u64,
    /// Where notesoup clears the context.
    pub hard: u64,
    /// Where notesoup warns the agent.
    pub warning: u64,
    /// Whether notesoup clears by itself at `hard` (false when auto-compaction is off).
    pub auto_clear: bool,
    /// Whether budget warnings are shown (false under `DISABLE_COMPACT`).
    pub warnings_enabled: bool,
    /// Whether `empty_brain` / `/empty` may clear (false under `DISABLE_COMPACT`).
    pub explicit_reset: bool,
    /// The cap in tokens after clamping to the window, if one was given.
    pub cap: Option<u64>,
    /// Built from exactly the inputs read (never the context fill): equal keys, equal policy.
    pub key: String,
}

impl Policy {
    /// Where the agent is warned, when warnings are shown at all (none under
    /// `DISABLE_COMPACT`).
    ///
    /// ```
    /// use notesoup_thresholds::{ContextUsage, Env, Inputs, Usage, resolve};
    /// use serde_json::json;
    ///
    /// let usage: Usage = serde_json::from_value(json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 167000}}}))?;
    /// let on = resolve(&Inputs::new(Some(&usage), None, &Env::default()))?;
    /// assert_eq!(on.warning_point(), Some(on.warning));
    /// let env = Env::from_lookup(|name| (name == "DISABLE_COMPACT").then(|| "1".to_owned()));
    /// let off = resolve(&Inputs::new(Some(&usage), None, &env))?;
    /// assert_eq!(off.warning_point(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn warning_point(&self) -> Option<u64> {
        self.warnings_enabled.then_some(self.warning)
    }

    /// What the window holds, in this policy's unit, read from a `usage.context`-shaped
    /// object (`tokens`, or `percent` for [`Unit::Percent`]) and rounded to a whole number;
    /// `None` when the engine reported none yet.
    ///
    /// ```
    /// use notesoup_thresholds::{ContextUsage, Env, Inputs, Usage, resolve};
    /// use serde_json::json;
    ///
    /// let usage: Usage = serde_json::from_value(json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 167000}}}))?;
    /// let policy = resolve(&Inputs::new(Some(&usage), None, &Env::default()))?;
    /// assert_eq!(policy.fill(&serde_json::from_value(json!({"tokens": 1234.4, "percent": 1}))?), Some(1234));
    /// assert_eq!(policy.fill(&ContextUsage::default()), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill(&self, context: &ContextUsage) -> Option<u64> {
        let fill = match self.unit {
            Unit::Tokens => context.tokens.as_ref(),
            Unit::Percent => context.percent.as_ref(),
        }
        .and_then(crate::Raw::number)?;
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a fill the engine reports is a small non-negative number; `as` saturates"
        )]
        Some(fill.max(0.0).round() as u64)
    }
}

/// Resolve the policy for these inputs.
pub fn resolve(inputs: &Inputs<'_>) -> Result<Policy, ThresholdError> {
    let facts = Facts::read(inputs);
    let (mut source, mut unit, mut native, bound) = facts.native();
    let points = |native: i64, unit: Unit| facts.points(native, unit);
    let Some((mut hard, mut warning)) = points(native, unit) else {
        return Err(facts.no_room(native, source));
    };
    let mut cap = None;
    if let Some(raw) = inputs.cap {
        let tokens = parse_cap(raw)?;
        // The smallest cap whose window leaves room (points are monotone in the window).
        if points(facts.window_point(bound), unit).is_none() {
            return Err(facts.no_room(facts.window_point(bound), source));
        }
        let (mut lo, mut hi) = (1, bound);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if points(facts.window_point(mid), unit).is_some() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if tokens < lo {
            return Err(ThresholdError::CapTooSmall {
                reserves: "Claude's reserves",
                input: raw.to_owned(),
                tokens,
                smallest: lo,
            });
        }
        let clamped = tokens.min(bound);
        native = native.min(facts.window_point(clamped));
        // With no window known, a cap within the window assumed is the window itself.
        if source == NativeSource::Percent && tokens <= bound {
            (source, unit) = (NativeSource::Cap, Unit::Tokens);
        }
        (hard, warning) = points(native, unit).ok_or_else(|| facts.no_room(native, source))?;
        cap = Some(clamped);
    }
    Ok(Policy {
        unit,
        source,
        native: in_unit(native, unit),
        hard,
        warning,
        auto_clear: facts.auto_on,
        warnings_enabled: !facts.disable_compact,
        explicit_reset: !facts.disable_compact,
        cap,
        key: key(inputs),
    })
}
