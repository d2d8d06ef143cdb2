//! The environment variables the policy reads and notesoup's own off switch, each read by
//! its one rule.

use crate::js;

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
    /// rule for it: the points ([`crate::resolve`]) and the reset flow's switch both use this.
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

    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` as Claude reads it (JavaScript's `parseFloat`): a
    /// percent in `(0, 100]`, else none (unset, empty or out of range: no override).
    pub(crate) fn pct(&self) -> Option<f64> {
        self.pct_override
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(js::parse_float)
            .filter(|p| *p > 0.0 && *p <= 100.0)
    }

    /// `CLAUDE_CODE_AUTO_COMPACT_WINDOW` as Claude reads it ([`js::env_window`]).
    pub(crate) fn window(&self) -> Option<u64> {
        self.auto_compact_window.as_deref().and_then(js::env_window)
    }

    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS` as Claude reads it (JavaScript's `parseInt`): a
    /// positive number, else none.
    pub(crate) fn max_output(&self) -> Option<f64> {
        self.max_output_tokens
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(js::parse_integer)
            .filter(|n| *n > 0.0)
    }

    /// Why the variable `name` (one of [`Env::NAMES`]), set as it is, changes nothing as
    /// Claude Code reads it: `None` when it is unset or in use. `auto_compaction`: whether
    /// auto-compaction is on ([`crate::Policy::auto_clear`]), without which Claude ignores
    /// the percent override. What `notesoup limits` says beside a variable, so a value
    /// Claude ignores is never shown as if it were in force; the same readers as the points'.
    ///
    /// ```
    /// use notesoup_thresholds::{Env, Unused};
    /// let env = Env::from_lookup(|name| match name {
    ///     "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE" => Some("150".to_owned()),
    ///     "DISABLE_COMPACT" => Some("0".to_owned()),
    ///     "CLAUDE_CODE_AUTO_COMPACT_WINDOW" => Some("500k".to_owned()),
    ///     _ => None,
    /// });
    /// assert_eq!(
    ///     env.unused("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", true),
    ///     Some(Unused::Ignored("not a percent above 0 and at most 100"))
    /// );
    /// assert_eq!(env.unused("DISABLE_COMPACT", true), Some(Unused::Off));
    /// assert_eq!(env.unused("CLAUDE_CODE_AUTO_COMPACT_WINDOW", true), None);
    /// assert_eq!(env.unused("DISABLE_AUTO_COMPACT", true), None);
    /// let half = Env { pct_override: Some("50".to_owned()), ..Env::default() };
    /// assert_eq!(half.unused("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", true), None);
    /// assert_eq!(
    ///     half.unused("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", false),
    ///     Some(Unused::Ignored("auto-compaction is off"))
    /// );
    /// ```
    pub fn unused(&self, name: &str, auto_compaction: bool) -> Option<Unused> {
        let (value, used, why) = match name {
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE" if self.pct().is_some() && !auto_compaction => {
                return Some(Unused::Ignored("auto-compaction is off"));
            }
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE" => (
                &self.pct_override,
                self.pct().is_some(),
                "not a percent above 0 and at most 100",
            ),
            "CLAUDE_CODE_AUTO_COMPACT_WINDOW" => (
                &self.auto_compact_window,
                self.window().is_some(),
                "not a number of tokens",
            ),
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS" => (
                &self.max_output_tokens,
                self.max_output().is_some(),
                "not a positive number of tokens",
            ),
            "DISABLE_AUTO_COMPACT" | "DISABLE_COMPACT" => {
                let value = if name == "DISABLE_COMPACT" {
                    &self.disable_compact
                } else {
                    &self.disable_auto_compact
                };
                return (value.is_some() && !js::truthy(value.as_deref())).then_some(Unused::Off);
            }
            _ => return None,
        };
        (value.is_some() && !used).then_some(Unused::Ignored(why))
    }

    /// `(name, value)` for every variable, in the order of [`Env::NAMES`].
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (&'static str, Option<&str>)> {
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

/// Why a variable that is set changes nothing ([`Env::unused`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unused {
    /// Claude Code ignores the value, for this reason.
    Ignored(&'static str),
    /// A switch set to a value that is not on (only `1`, `true`, `yes` or `on` are).
    Off,
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
