//! Pi's settings as the budget reads them ([`PiSettings`]): one file's layer or the merge of
//! the global and project files, merged and read exactly as Pi 1.6.0 does.
//!
//! Source: `@earendil-works/pi-coding-agent@1.6.0`, `dist/core/settings-manager.js`:
//! `deepMergeObjects` (a key the later layer holds replaces the earlier one's, except that
//! two objects merge key by key; arrays are no objects) and `getCompactionSettings(model)`
//! (`compaction.enabled ?? true`, read for JavaScript truthiness; each token setting from
//! `compaction.modelOverrides["<provider>/<id>"]`, then `compaction`, then the default, and
//! a present value that is not a non-negative safe integer throws).

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::inputs::{NotesoupSettings, Raw};
use crate::{ThresholdError, js};

/// Pi's default `compaction.reserveTokens` (`SETTINGS_DEFAULTS` in
/// `dist/core/settings-defaults.js`).
pub const PI_DEFAULT_RESERVE_TOKENS: u64 = 16_384;
/// Pi's default `compaction.keepRecentTokens`.
pub const PI_DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;

/// A key a settings layer holds: an object (read by its keys) or any other value, which
/// replaces an object under the same key when merged, and holds no keys when read.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot<T> {
    /// A JSON object.
    Object(T),
    /// Anything else (`null`, a number, a string, an array), as written.
    Other(Raw),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Slot<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(match value {
            Value::Object(_) => match T::deserialize(value.clone()) {
                Ok(object) => Self::Object(object),
                Err(_) => Self::Other(Raw::from_json(value)),
            },
            other => Self::Other(Raw::from_json(other)),
        })
    }
}

impl<T> Slot<T> {
    fn object(&self) -> Option<&T> {
        match self {
            Self::Object(object) => Some(object),
            Self::Other(_) => None,
        }
    }
}

/// Pi's `deepMergeObjects` on one key: the later layer's value wins when present, two
/// objects merge.
trait Merge: Sized {
    fn merge(self, later: Self) -> Self;
}

impl Merge for Option<Raw> {
    fn merge(self, later: Self) -> Self {
        match (self, later) {
            (Some(base), Some(later)) => Some(base.merge_json(later)),
            (base, None) => base,
            (None, later) => later,
        }
    }
}

impl<T: Merge> Merge for Option<Slot<T>> {
    fn merge(self, later: Self) -> Self {
        match (self, later) {
            (Some(Slot::Object(base)), Some(Slot::Object(later))) => {
                Some(Slot::Object(base.merge(later)))
            }
            (base, None) => base,
            (_, later) => later,
        }
    }
}

impl<T: Merge> Merge for BTreeMap<String, Slot<T>> {
    fn merge(mut self, later: Self) -> Self {
        for (key, value) in later {
            let merged = self.remove(&key).merge(Some(value));
            self.extend(merged.map(|v| (key, v)));
        }
        self
    }
}

/// One Pi settings layer (`~/.pi/agent/settings.json`, `<project>/.pi/settings.json`), or
/// the merged settings (`pi.getSettings()` in an extension): the keys the budget reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PiSettings {
    /// `compaction`.
    #[serde(default, deserialize_with = "present")]
    pub compaction: Option<Slot<PiCompaction>>,
    /// `notesoup`: notesoup's margins, the same keys as in Claude's settings.
    #[serde(default, deserialize_with = "present")]
    pub notesoup: Option<Slot<NotesoupSettings>>,
}

/// Pi's `compaction` object.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PiCompaction {
    /// `enabled`.
    #[serde(default, deserialize_with = "present")]
    pub enabled: Option<Raw>,
    /// `reserveTokens`.
    #[serde(default, deserialize_with = "present")]
    pub reserve_tokens: Option<Raw>,
    /// `keepRecentTokens`.
    #[serde(default, deserialize_with = "present")]
    pub keep_recent_tokens: Option<Raw>,
    /// `modelOverrides`: by `"<provider>/<model id>"`.
    #[serde(default, deserialize_with = "present")]
    pub model_overrides: Option<Slot<BTreeMap<String, Slot<PiModelOverride>>>>,
}

/// One `compaction.modelOverrides["<provider>/<id>"]` entry.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PiModelOverride {
    /// `reserveTokens`.
    #[serde(default, deserialize_with = "present")]
    pub reserve_tokens: Option<Raw>,
    /// `keepRecentTokens`.
    #[serde(default, deserialize_with = "present")]
    pub keep_recent_tokens: Option<Raw>,
}

/// A field that is present, whatever it holds (`null` too).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

impl Merge for PiCompaction {
    fn merge(self, later: Self) -> Self {
        Self {
            enabled: self.enabled.merge(later.enabled),
            reserve_tokens: self.reserve_tokens.merge(later.reserve_tokens),
            keep_recent_tokens: self.keep_recent_tokens.merge(later.keep_recent_tokens),
            model_overrides: self.model_overrides.merge(later.model_overrides),
        }
    }
}

impl Merge for PiModelOverride {
    fn merge(self, later: Self) -> Self {
        Self {
            reserve_tokens: self.reserve_tokens.merge(later.reserve_tokens),
            keep_recent_tokens: self.keep_recent_tokens.merge(later.keep_recent_tokens),
        }
    }
}

impl Merge for NotesoupSettings {
    fn merge(self, later: Self) -> Self {
        Self {
            reset_margin_tokens: self.reset_margin_tokens.merge(later.reset_margin_tokens),
            warning_runway_tokens: self
                .warning_runway_tokens
                .merge(later.warning_runway_tokens),
        }
    }
}

/// Pi's compaction settings for one model, as `getCompactionSettings(model)` returns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PiCompactionSettings {
    /// Pi compacts by itself (at its threshold, and on a context overflow).
    pub enabled: bool,
    /// Pi compacts once the context exceeds the window less this.
    pub reserve_tokens: u64,
    /// How much of the newest context Pi's own compaction keeps.
    pub keep_recent_tokens: u64,
}

/// What Pi reads with no settings at all.
pub(crate) const DEFAULTS: PiCompactionSettings = PiCompactionSettings {
    enabled: true,
    reserve_tokens: PI_DEFAULT_RESERVE_TOKENS,
    keep_recent_tokens: PI_DEFAULT_KEEP_RECENT_TOKENS,
};

impl PiSettings {
    /// The settings Pi runs with: `global` with `project` merged over it, as Pi merges them.
    /// Pass `None` for `project` when Pi does not trust the project (it then reads no project
    /// file).
    ///
    /// ```
    /// use notesoup_thresholds::PiSettings;
    /// let global: PiSettings = serde_json::from_str(r#"{"compaction": {"reserveTokens": 30000, "enabled": false}}"#)?;
    /// let project: PiSettings = serde_json::from_str(r#"{"compaction": {"enabled": true}}"#)?;
    /// let merged = PiSettings::merged(&global, Some(&project));
    /// let read = merged.compaction_settings(None)?;
    /// assert_eq!((read.enabled, read.reserve_tokens), (true, 30000));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merged(global: &PiSettings, project: Option<&PiSettings>) -> PiSettings {
        let Some(project) = project else {
            return global.clone();
        };
        PiSettings {
            compaction: global.compaction.clone().merge(project.compaction.clone()),
            notesoup: global.notesoup.clone().merge(project.notesoup.clone()),
        }
    }

    /// The `notesoup` object, when it is one.
    pub fn notesoup(&self) -> Option<&NotesoupSettings> {
        self.notesoup.as_ref().and_then(Slot::object)
    }

    /// `getCompactionSettings(model)` of these (merged) settings; `model` is
    /// `"<provider>/<model id>"`. A value Pi refuses is refused with the setting's path, in
    /// the order Pi reads them.
    pub fn compaction_settings(
        &self,
        model: Option<&str>,
    ) -> Result<PiCompactionSettings, ThresholdError> {
        let compaction = self.compaction.as_ref().and_then(Slot::object);
        // `compaction?.enabled ?? true`, then JavaScript truthiness.
        let enabled = compaction
            .and_then(|c| c.enabled.as_ref())
            .is_none_or(|raw| raw.json().is_null() || js::json_truthy(raw.json()));
        let overrides = compaction.and_then(|c| c.model_overrides.as_ref());
        // `compaction?.modelOverrides?.[model]`: an entry must be an object.
        let entry = || -> Result<Option<&PiModelOverride>, ThresholdError> {
            let (Some(model), Some(Slot::Object(overrides))) = (model, overrides) else {
                return Ok(None);
            };
            match overrides.get(model) {
                None => Ok(None),
                Some(Slot::Object(entry)) => Ok(Some(entry)),
                Some(Slot::Other(raw)) => Err(ThresholdError::PiSetting {
                    setting: format!("compaction.modelOverrides[{model:?}]"),
                    value: raw.to_string(),
                    expected: "an object",
                }),
            }
        };
        let whole = |setting: String, raw: Option<&Raw>| match raw {
            None => Ok(None),
            Some(raw) => raw.whole().map(Some).ok_or(ThresholdError::PiSetting {
                setting,
                value: raw.to_string(),
                expected: "a whole number of tokens, 0 or more",
            }),
        };
        // `getCompactionTokenSetting(field, model)`: the ordinary value is checked, then the
        // entry, then its value; the override wins, then the ordinary value, then the default.
        let token = |name: &str,
                     field: fn(&PiCompaction) -> Option<&Raw>,
                     over: fn(&PiModelOverride) -> Option<&Raw>,
                     default: u64|
         -> Result<u64, ThresholdError> {
            let ordinary = whole(format!("compaction.{name}"), compaction.and_then(field))?;
            let over = whole(
                format!(
                    "compaction.modelOverrides[{:?}].{name}",
                    model.unwrap_or("")
                ),
                entry()?.and_then(over),
            )?;
            Ok(over.or(ordinary).unwrap_or(default))
        };
        let reserve_tokens = token(
            "reserveTokens",
            |c| c.reserve_tokens.as_ref(),
            |e| e.reserve_tokens.as_ref(),
            PI_DEFAULT_RESERVE_TOKENS,
        )?;
        let keep_recent_tokens = token(
            "keepRecentTokens",
            |c| c.keep_recent_tokens.as_ref(),
            |e| e.keep_recent_tokens.as_ref(),
            PI_DEFAULT_KEEP_RECENT_TOKENS,
        )?;
        Ok(PiCompactionSettings {
            enabled,
            reserve_tokens,
            keep_recent_tokens,
        })
    }
}
