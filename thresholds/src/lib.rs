//! notesoup's budget policy: when the agent is warned and when its context is cleared,
//! derived from Claude Code 2.1.319's own auto-compact point. Pure: no IO, no environment
//! reads, no clock; the caller passes everything in as plain data.
//!
//! # The native point
//! Claude compacts at `T = E − 13000` where `E = W − R`, `W` is the auto-compact window and
//! `R = min(max output tokens, 20000)`; `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (read as JavaScript's
//! `parseFloat` reads it) can only lower `T`, to `floor(E·p/100)` for `0 < p ≤ 100`.
//! [`resolve`] finds that point from the first source that resolves:
//!
//! 1. [`NativeSource::Breakdown`]: `usage.context.breakdown.autoCompactThreshold` (a positive
//!    number; the engine never applies the percent override to it, so we do);
//! 2. [`NativeSource::Window`]: computed from `usage.context.window` and the *smallest* configured
//!    window (`CLAUDE_CODE_AUTO_COMPACT_WINDOW`, `modelSettings.<model>.autoCompactWindow`,
//!    `autoCompactWindow`), read as Claude reads them and capped at the model window;
//! 3. [`NativeSource::Percent`]: the same computation for a classic 200K window, expressed as
//!    percentages of it ([`Unit::Percent`]).
//!
//! With auto-compaction off (`autoCompactEnabled: false`, `DISABLE_AUTO_COMPACT` or
//! `DISABLE_COMPACT` truthy, or the breakdown saying so) the native point is `W − R`,
//! Claude's own reference when it is off, only the env window applies, and
//! [`Policy::auto_clear`] is false. `DISABLE_COMPACT` also turns off warnings and explicit
//! resets.
//!
//! Then `hard = native − resetMarginTokens` (default 8192) and
//! `warning = hard − warningRunwayTokens` (default 16384), both read from the `notesoup`
//! object of the merged settings. A runtime cap (`100k`, `1.5m`, `250000`) can only lower the
//! points. A policy with no room for its margins is an error, never a guess.
//!
//! # Invariant
//! The native point is never later than Claude's own compaction point for the same inputs,
//! `1 ≤ warning ≤ hard ≤ native`.
//!
//! # Example
//! ```
//! use notesoup_thresholds::{Env, Inputs, NativeSource, Unit, resolve};
//! use serde_json::json;
//!
//! // What `$.session.usage({breakdown:"summary"})` reported for claude-sonnet-4-6.
//! let usage = json!({"context": {"window": 200000, "tokens": 5000,
//!     "breakdown": {"autoCompactThreshold": 167000, "isAutoCompactEnabled": true}}});
//! let env = Env::from_lookup(|name| {
//!     (name == "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE").then(|| "50%".to_owned())
//! });
//! let policy = resolve(&Inputs {
//!     usage: Some(&usage),
//!     settings: Some(&json!({"notesoup": {"resetMarginTokens": 4096}})),
//!     env: &env,
//!     model: Some("claude-sonnet-4-6"),
//!     cap: None,
//! })?;
//! assert_eq!((policy.source, policy.unit), (NativeSource::Breakdown, Unit::Tokens));
//! assert_eq!(policy.native, 90_000); // floor(180000 · 50 / 100)
//! assert_eq!(policy.hard, 90_000 - 4096);
//! assert_eq!(policy.warning, 90_000 - 4096 - 16_384);
//! assert!(policy.auto_clear);
//!
//! // A cap lowers the point; one with no room for reserves and margins is refused.
//! let capped = resolve(&Inputs { cap: Some("100k"), ..Inputs::new(Some(&usage), None, &env) })?;
//! assert_eq!(capped.native, 40_000); // floor((100000 − 20000) · 50 / 100)
//! let err = resolve(&Inputs { cap: Some("20k"), ..Inputs::new(Some(&usage), None, &env) });
//! assert!(err.unwrap_err().to_string().contains("smallest cap accepted"));
//! # Ok::<(), notesoup_thresholds::ThresholdError>(())
//! ```

#![forbid(unsafe_code)]

use serde_json::{Map, Value, json};

mod cap;
mod js;

pub use cap::{CapCommand, cap_command, cap_refused, cap_status};

/// Claude's cap on the output reserve `R`.
pub const OUTPUT_RESERVE_MAX: u64 = 20_000;
/// Claude's buffer between the effective window and the auto-compact threshold.
pub const COMPACT_BUFFER: u64 = 13_000;
/// The capacity the percent fallback assumes.
pub const CLASSIC_CAPACITY: u64 = 200_000;
/// Default `notesoup.resetMarginTokens`: how far before the native point the hard clear is.
pub const DEFAULT_RESET_MARGIN: u64 = 8192;
/// Default `notesoup.warningRunwayTokens`: how far before the hard point the warning is.
pub const DEFAULT_WARNING_RUNWAY: u64 = 16_384;

/// The environment variables the policy reads, as the caller captured them (absent = unset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`
    pub pct_override: Option<String>,
    /// `CLAUDE_CODE_AUTO_COMPACT_WINDOW`
    pub auto_compact_window: Option<String>,
    /// `DISABLE_AUTO_COMPACT`
    pub disable_auto_compact: Option<String>,
    /// `DISABLE_COMPACT`
    pub disable_compact: Option<String>,
    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS` (only a value below 20000 changes `R`)
    pub max_output_tokens: Option<String>,
}

impl Env {
    /// Every variable name read, in the order of the fields.
    pub const NAMES: [&'static str; 5] = [
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
        "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
        "DISABLE_AUTO_COMPACT",
        "DISABLE_COMPACT",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    ];

    /// Capture the variables through `lookup` (a map, a closure over a request, ...).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let [pct, window, disable_auto, disable, max_output] = Self::NAMES.map(lookup);
        Self {
            pct_override: pct,
            auto_compact_window: window,
            disable_auto_compact: disable_auto,
            disable_compact: disable,
            max_output_tokens: max_output,
        }
    }

    /// Whether `DISABLE_COMPACT` is set as Claude Code reads it (`1`, `true`, `yes`, `on`,
    /// trimmed, any case): compaction off, so no warnings and no explicit reset. The one
    /// rule for it: the points ([`resolve`]) and the reset flow's switch both use this.
    ///
    /// ```
    /// use notesoup_thresholds::Env;
    /// let env = |v: &str| Env { disable_compact: Some(v.to_owned()), ..Env::default() };
    /// assert!(env(" TRUE ").compaction_disabled());
    /// assert!(!env("0").compaction_disabled());
    /// assert!(!Env::default().compaction_disabled());
    /// ```
    pub fn compaction_disabled(&self) -> bool {
        js::truthy(self.disable_compact.as_deref())
    }

    /// `(name, value)` for every variable, in the order of [`Env::NAMES`].
    fn pairs(&self) -> impl Iterator<Item = (&'static str, Option<&str>)> {
        let values = [
            &self.pct_override,
            &self.auto_compact_window,
            &self.disable_auto_compact,
            &self.disable_compact,
            &self.max_output_tokens,
        ];
        Self::NAMES.into_iter().zip(values.map(Option::as_deref))
    }
}

/// notesoup's own off switch: the variable's name.
pub const NOTESOUP_DISABLED: &str = "NOTESOUP_DISABLED";

/// Whether `NOTESOUP_DISABLED` turns notesoup off, given its value as read (`None`: unset).
/// Presence-style: set at all, even empty or `0`, means off (the whole mod: nothing
/// registered, every event passes through). The one rule for it: the hooks module forwards
/// the raw value and obeys the helper's answer, and `notesoup doctor` reports with it.
///
/// ```
/// use notesoup_thresholds::notesoup_disabled;
/// assert!(notesoup_disabled(Some("")));
/// assert!(notesoup_disabled(Some("0")));
/// assert!(!notesoup_disabled(None));
/// ```
pub fn notesoup_disabled(value: Option<&str>) -> bool {
    value.is_some()
}

/// Everything the policy depends on.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// What `$.session.usage({breakdown:"summary"})` returned (`None` when unknown).
    pub usage: Option<&'a Value>,
    /// The merged `$.settings.read()` (`None` when unknown).
    pub settings: Option<&'a Value>,
    /// The environment variables named in [`Env`].
    pub env: &'a Env,
    /// `$.session.model()`, for `modelSettings.<model>`.
    pub model: Option<&'a str>,
    /// The runtime cap as the user typed it (`"100k"`), if any.
    pub cap: Option<&'a str>,
}

impl<'a> Inputs<'a> {
    /// Inputs with no model and no cap.
    pub fn new(usage: Option<&'a Value>, settings: Option<&'a Value>, env: &'a Env) -> Self {
        Self {
            usage,
            settings,
            env,
            model: None,
            cap: None,
        }
    }
}

/// Which input the native point came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeSource {
    /// `usage.context.breakdown.autoCompactThreshold`.
    Breakdown,
    /// Computed from `usage.context.window` and the configured windows.
    Window,
    /// The 200K percent fallback.
    Percent,
}

impl NativeSource {
    /// The protocol's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Breakdown => "breakdown",
            Self::Window => "window",
            Self::Percent => "percent",
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
    /// # Ok::<(), notesoup_thresholds::ThresholdError>(())
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
/// use notesoup_thresholds::{Env, Inputs, fill_below, resolve};
/// use serde_json::json;
///
/// let usage = json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 167000}}});
/// let policy = resolve(&Inputs::new(Some(&usage), None, &Env::default()))?;
/// for raw in [141_999.4, 141_999.5, 142_000.0] {
///     let fill = policy.fill(&json!({"tokens": raw})).unwrap();
///     assert_eq!(fill < 142_000, raw < fill_below(142_000));
/// }
/// assert_eq!(fill_below(0), -0.5);
/// # Ok::<(), notesoup_thresholds::ThresholdError>(())
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
    /// Claude's own point (auto-compaction, or `W − R` when it is off), after the cap.
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

/// One `notesoup` margin setting as [`resolve`] reads it from the merged settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Margin {
    /// Its name under the settings' `notesoup` object.
    pub name: &'static str,
    /// The value the settings hold, if any.
    pub raw: Option<Value>,
    /// What the policy uses: the value when it is a whole number of tokens, else the default.
    pub tokens: u64,
    /// False when a value is present but is not a whole number of tokens (it is ignored).
    pub valid: bool,
}

/// `notesoup.resetMarginTokens` and `notesoup.warningRunwayTokens`, in that order, as
/// [`resolve`] reads them (so a person's tool can say which value is ignored and why).
///
/// ```
/// use serde_json::json;
/// let settings = json!({"notesoup": {"resetMarginTokens": "8k"}});
/// let [reset, runway] = notesoup_thresholds::margins(Some(&settings));
/// assert!(!reset.valid);
/// assert_eq!(reset.tokens, notesoup_thresholds::DEFAULT_RESET_MARGIN);
/// assert!(runway.valid && runway.raw.is_none());
/// ```
pub fn margins(settings: Option<&Value>) -> [Margin; 2] {
    let notesoup = settings.and_then(|s| s.get("notesoup"));
    [
        ("resetMarginTokens", DEFAULT_RESET_MARGIN),
        ("warningRunwayTokens", DEFAULT_WARNING_RUNWAY),
    ]
    .map(|(name, default)| {
        let raw = notesoup.and_then(|n| n.get(name)).cloned();
        let read = raw.as_ref().and_then(js::json_whole);
        Margin {
            name,
            valid: raw.is_none() || read.is_some(),
            tokens: read.unwrap_or(default),
            raw,
        }
    })
}

/// Why no policy was produced. Every variant carries the input at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ThresholdError {
    /// The cap is not whole tokens or a decimal with a `k`/`m` suffix.
    #[error(
        "cap {input:?} is not a token count: write whole tokens or a decimal with k or m, e.g. 100k, 1.5m, 250000"
    )]
    BadCap {
        /// The cap as given.
        input: String,
    },
    /// The cap leaves no room for Claude's reserves and notesoup's margins.
    #[error(
        "cap {input:?} ({tokens} tokens) leaves no room for Claude's reserves and notesoup's margins; the smallest cap accepted is {smallest} tokens"
    )]
    CapTooSmall {
        /// The cap as given.
        input: String,
        /// The cap in tokens.
        tokens: u64,
        /// The smallest cap that leaves room.
        smallest: u64,
    },
    /// `/notesoup` with words other than `cap`, `cap off` or `cap <tokens>`.
    #[error("usage: /notesoup [cap [<tokens>|off]], e.g. /notesoup cap 100k (not {input:?})")]
    CapUsage {
        /// The command's words as given.
        input: String,
    },
    /// A unit name that is not `tokens` or `percent` ([`Unit::named`]).
    #[error("unit {input:?} is not `tokens` or `percent`")]
    BadUnit {
        /// The unit as given.
        input: String,
    },
    /// The native point leaves no room for the margins: no point can be trusted.
    #[error(
        "the native point ({native} tokens, from the {source_name} source) leaves no room for resetMarginTokens {reset_margin} and warningRunwayTokens {warning_runway}; lower the margins in the notesoup settings or raise the window"
    )]
    NoRoom {
        /// The native point, in tokens (may be negative).
        native: i64,
        /// The source it came from.
        source_name: &'static str,
        /// `notesoup.resetMarginTokens` in force.
        reset_margin: u64,
        /// `notesoup.warningRunwayTokens` in force.
        warning_runway: u64,
    },
}

impl ThresholdError {
    /// A stable `snake_case` code for replies: `bad_cap` (the cap cannot be read or is too
    /// small), `usage` (a `/notesoup` command it does not know), `unresolvable` (no point
    /// can be trusted) or `bad_unit` (a unit name it does not know).
    pub fn code(&self) -> &'static str {
        match self {
            ThresholdError::BadCap { .. } | ThresholdError::CapTooSmall { .. } => "bad_cap",
            ThresholdError::CapUsage { .. } => "usage",
            ThresholdError::NoRoom { .. } => "unresolvable",
            ThresholdError::BadUnit { .. } => "bad_unit",
        }
    }
}

impl Policy {
    /// Where the agent is warned, when warnings are shown at all (none under
    /// `DISABLE_COMPACT`).
    ///
    /// ```
    /// use notesoup_thresholds::{Env, Inputs, resolve};
    /// use serde_json::json;
    ///
    /// let usage = json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 167000}}});
    /// let on = resolve(&Inputs::new(Some(&usage), None, &Env::default()))?;
    /// assert_eq!(on.warning_point(), Some(on.warning));
    /// let env = Env::from_lookup(|name| (name == "DISABLE_COMPACT").then(|| "1".to_owned()));
    /// let off = resolve(&Inputs::new(Some(&usage), None, &env))?;
    /// assert_eq!(off.warning_point(), None);
    /// # Ok::<(), notesoup_thresholds::ThresholdError>(())
    /// ```
    pub fn warning_point(&self) -> Option<u64> {
        self.warnings_enabled.then_some(self.warning)
    }

    /// What the window holds, in this policy's unit, read from a `usage.context`-shaped
    /// object (`tokens`, or `percent` for [`Unit::Percent`]) and rounded to a whole number;
    /// `None` when the engine reported none yet.
    ///
    /// ```
    /// use notesoup_thresholds::{Env, Inputs, resolve};
    /// use serde_json::json;
    ///
    /// let usage = json!({"context": {"window": 200000, "breakdown": {"autoCompactThreshold": 167000}}});
    /// let policy = resolve(&Inputs::new(Some(&usage), None, &Env::default()))?;
    /// assert_eq!(policy.fill(&json!({"tokens": 1234.4, "percent": 1})), Some(1234));
    /// assert_eq!(policy.fill(&json!({})), None);
    /// # Ok::<(), notesoup_thresholds::ThresholdError>(())
    /// ```
    pub fn fill(&self, context: &Value) -> Option<u64> {
        let fill = context.get(self.unit.field()).and_then(Value::as_f64)?;
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
    let (source, unit, mut native, bound) = facts.native();
    let points = |native: i64| facts.points(native, unit);
    let Some((mut hard, mut warning)) = points(native) else {
        return Err(facts.no_room(native, source));
    };
    let mut cap = None;
    if let Some(raw) = inputs.cap {
        let tokens = parse_cap(raw)?;
        // The smallest cap whose window leaves room (points are monotone in the window).
        if points(facts.window_point(bound)).is_none() {
            return Err(facts.no_room(facts.window_point(bound), source));
        }
        let (mut lo, mut hi) = (1, bound);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if points(facts.window_point(mid)).is_some() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if tokens < lo {
            return Err(ThresholdError::CapTooSmall {
                input: raw.to_owned(),
                tokens,
                smallest: lo,
            });
        }
        let clamped = tokens.min(bound);
        native = native.min(facts.window_point(clamped));
        (hard, warning) = points(native).ok_or_else(|| facts.no_room(native, source))?;
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

/// Parse a runtime cap: whole tokens (`250000`) or a decimal with `k`/`m` (`100k`, `1.5m`)
/// that comes to whole tokens.
pub fn parse_cap(raw: &str) -> Result<u64, ThresholdError> {
    let bad = || ThresholdError::BadCap {
        input: raw.to_owned(),
    };
    let s = raw.trim();
    let (number, scale) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1_000_u64),
        Some('m' | 'M') => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1),
    };
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty()
        || !all_digits(int)
        || !all_digits(frac)
        || (number.contains('.') && (frac.is_empty() || scale == 1))
        || frac.len() > 6
    {
        return Err(bad());
    }
    // Exact integer arithmetic: int·scale + frac·scale/10^len, which must be whole.
    let int: u64 = int.parse().map_err(|_| bad())?;
    let frac_len = u32::try_from(frac.len()).map_err(|_| bad())?;
    let frac_value: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| bad())?
    };
    let denominator = 10_u64.pow(frac_len);
    let frac_scaled = frac_value * scale;
    if !frac_scaled.is_multiple_of(denominator) {
        return Err(bad());
    }
    int.checked_mul(scale)
        .and_then(|t| t.checked_add(frac_scaled / denominator))
        .filter(|t| *t <= js::MAX_SAFE)
        .ok_or_else(bad)
}

/// The inputs, read and type-guarded once.
struct Facts {
    auto_on: bool,
    disable_compact: bool,
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
    fn read(inputs: &Inputs<'_>) -> Self {
        let env = inputs.env;
        let settings = inputs.settings.and_then(Value::as_object);
        let context = inputs
            .usage
            .and_then(|u| u.get("context"))
            .and_then(Value::as_object);
        let breakdown = context
            .and_then(|c| c.get("breakdown"))
            .and_then(Value::as_object);
        let disable_compact = env.compaction_disabled();
        let auto_on = !(disable_compact
            || js::truthy(env.disable_auto_compact.as_deref())
            || settings.and_then(|s| s.get("autoCompactEnabled")) == Some(&Value::Bool(false))
            || breakdown.and_then(|b| b.get("isAutoCompactEnabled")) == Some(&Value::Bool(false)));
        // Claude ignores the configured (settings) windows when auto-compaction is off; the
        // env window still applies. Otherwise notesoup takes the smallest configured window.
        let env_window = env.auto_compact_window.as_deref().and_then(js::env_window);
        let settings_windows = settings
            .filter(|_| auto_on)
            .map(|s| settings_windows(s, inputs.model))
            .unwrap_or_default();
        let configured = env_window.into_iter().chain(settings_windows).min();
        let pct = env
            .pct_override
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(js::parse_float)
            .filter(|p| *p > 0.0 && *p <= 100.0);
        let reserve = env
            .max_output_tokens
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(js::parse_integer)
            .filter(|n| *n > 0.0)
            .map_or(OUTPUT_RESERVE_MAX, |n| {
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "min with 20000 first: a positive whole number below 2^53"
                )]
                let n = n.min(20_000.0) as u64;
                n
            });
        // A positive number JavaScript can count exactly (beyond 2^53 it is not a token count).
        let positive = |v: Option<&Value>| {
            v.and_then(Value::as_f64)
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
            model_window: positive(context.and_then(|c| c.get("window"))),
            raw_max: positive(breakdown.and_then(|b| b.get("rawMaxTokens"))),
            reported: positive(breakdown.and_then(|b| b.get("autoCompactThreshold"))),
            configured,
            reset_margin,
            warning_runway,
        }
    }

    /// The source, unit, native point (tokens) and the window a cap is clamped to.
    fn native(&self) -> (NativeSource, Unit, i64, u64) {
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
    fn window_point(&self, w: u64) -> i64 {
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
    fn points(&self, native: i64, unit: Unit) -> Option<(u64, u64)> {
        let hard = native - to_i64(self.reset_margin);
        let warning = hard - to_i64(self.warning_runway);
        let (hard, warning) = (in_unit(hard, unit), in_unit(warning, unit));
        (warning >= 1).then_some((hard, warning))
    }

    fn no_room(&self, native: i64, source: NativeSource) -> ThresholdError {
        ThresholdError::NoRoom {
            native,
            source_name: source.as_str(),
            reset_margin: self.reset_margin,
            warning_runway: self.warning_runway,
        }
    }
}

/// A token point in the unit: tokens as they are, percent of the classic capacity rounded
/// down (earlier, never later); a negative point is 0.
fn in_unit(tokens: i64, unit: Unit) -> u64 {
    let tokens = u64::try_from(tokens).unwrap_or(0);
    match unit {
        Unit::Tokens => tokens,
        Unit::Percent => tokens * 100 / CLASSIC_CAPACITY,
    }
}

#[allow(clippy::cast_precision_loss, reason = "2^53 − 1 is exact in f64")]
const MAX_SAFE_F64: f64 = js::MAX_SAFE as f64;

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The valid windows configured in settings for this model: top-level `autoCompactWindow`
/// and every `modelSettings` entry naming the model (any spelling). Claude's schema: a whole
/// number from 100000 to 1000000 (`"auto"` and anything else configure nothing).
fn settings_windows(settings: &Map<String, Value>, model: Option<&str>) -> Vec<u64> {
    let valid =
        |v: &Value| js::json_whole(v).filter(|n| (js::WINDOW_MIN..=js::WINDOW_MAX).contains(n));
    let mut out: Vec<u64> = settings
        .get("autoCompactWindow")
        .and_then(valid)
        .into_iter()
        .collect();
    out.extend(
        model_entries(settings, model)
            .filter_map(|(_, entry)| entry.get("autoCompactWindow").and_then(valid)),
    );
    out
}

/// `modelSettings` entries whose key names `model`, in any of its spellings.
fn model_entries<'s>(
    settings: &'s Map<String, Value>,
    model: Option<&str>,
) -> impl Iterator<Item = (&'s String, &'s Value)> {
    let wanted = model.map(canonical_model);
    settings
        .get("modelSettings")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(move |(name, _)| wanted.as_deref() == Some(canonical_model(name).as_str()))
}

/// A model id without its dated, `[1m]`, Bedrock and Vertex decorations, lowercased:
/// `us.anthropic.claude-sonnet-4-6-20250514-v1:0` and `claude-sonnet-4-6@20250514` and
/// `claude-sonnet-4-6[1m]` all name `claude-sonnet-4-6`.
fn canonical_model(id: &str) -> String {
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

/// The policy key: a hash of exactly the values read (never the context fill).
fn key(inputs: &Inputs<'_>) -> String {
    let usage = inputs.usage.and_then(|u| u.get("context"));
    let breakdown = usage.and_then(|c| c.get("breakdown"));
    let pick = |v: Option<&Value>, name: &str| v.and_then(|v| v.get(name)).cloned();
    let settings = inputs.settings.and_then(Value::as_object);
    let notesoup = settings.and_then(|s| s.get("notesoup"));
    let entries: Map<String, Value> = settings
        .map(|s| {
            model_entries(s, inputs.model)
                .map(|(name, entry)| (name.clone(), pick(Some(entry), "autoCompactWindow").into()))
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
        "window": pick(usage, "window"),
        "threshold": pick(breakdown, "autoCompactThreshold"),
        "rawMaxTokens": pick(breakdown, "rawMaxTokens"),
        "isAutoCompactEnabled": pick(breakdown, "isAutoCompactEnabled"),
        "env": env,
        "autoCompactWindow": pick(inputs.settings, "autoCompactWindow"),
        "autoCompactEnabled": pick(inputs.settings, "autoCompactEnabled"),
        "modelSettings": entries,
        "resetMarginTokens": pick(notesoup, "resetMarginTokens"),
        "warningRunwayTokens": pick(notesoup, "warningRunwayTokens"),
    });
    // FNV-1a, 64 bits: stable across builds and platforms (std's hasher is not).
    let hash = material
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("t1-{hash:016x}")
}

#[cfg(test)]
mod tests;
