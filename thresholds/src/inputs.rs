//! What the policy reads, as typed values deserialized straight from the engine's JSON:
//! the session's usage ([`Usage`]), the merged settings ([`Settings`]), the environment
//! ([`crate::Env`]), the model and the cap, put together as [`Inputs`].
//!
//! The engine's JSON is read as Claude Code reads it: a field of the wrong type is as if it
//! were absent (never an error), and each value the policy reads keeps the engine's own
//! JSON ([`Raw`]), so the policy key and a person's report see exactly what was written.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{DEFAULT_RESET_MARGIN, DEFAULT_WARNING_RUNWAY, Env, js};

/// One value as the engine's JSON holds it (any type, `null` included): the policy reads a
/// number, a whole number or `false` from it, and a report shows it as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Raw(Value);

impl Raw {
    /// The number it holds, if it is one.
    pub fn number(&self) -> Option<f64> {
        self.0.as_f64()
    }

    /// The whole number in `[0, 2^53]` JavaScript sees, if it is one.
    pub fn whole(&self) -> Option<u64> {
        js::json_whole(&self.0)
    }

    /// Whether it is the boolean `false` (the only value that turns a switch off).
    pub fn is_false(&self) -> bool {
        self.0 == Value::Bool(false)
    }

    pub(crate) fn json(&self) -> &Value {
        &self.0
    }

    pub(crate) fn from_json(value: Value) -> Self {
        Self(value)
    }

    /// JavaScript's deep merge of two settings values (Pi's `deepMergeObjects`): two objects
    /// merge key by key, anything else is replaced by `later`.
    pub(crate) fn merge_json(self, later: Self) -> Self {
        fn merge(base: Value, later: Value) -> Value {
            match (base, later) {
                (Value::Object(mut base), Value::Object(later)) => {
                    for (key, value) in later {
                        let merged = match base.remove(&key) {
                            Some(old) => merge(old, value),
                            None => value,
                        };
                        base.insert(key, merged);
                    }
                    Value::Object(base)
                }
                (_, later) => later,
            }
        }
        Self(merge(self.0, later.0))
    }
}

impl From<u64> for Raw {
    /// A whole number, as the engine writes one.
    fn from(n: u64) -> Self {
        Self(Value::from(n))
    }
}

impl fmt::Display for Raw {
    /// The value as JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What `$.session.usage({breakdown:"summary"})` reported (the fields the policy reads).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Usage {
    /// `context`, when an object.
    #[serde(default, deserialize_with = "object")]
    pub context: Option<ContextUsage>,
}

/// `usage.context`: the window and its fill.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ContextUsage {
    /// `window`: the model's context window in tokens.
    #[serde(default, deserialize_with = "present")]
    pub window: Option<Raw>,
    /// `tokens`: the fill in tokens.
    #[serde(default, deserialize_with = "present")]
    pub tokens: Option<Raw>,
    /// `percent`: the fill in percent of the window.
    #[serde(default, deserialize_with = "present")]
    pub percent: Option<Raw>,
    /// `breakdown`, when an object.
    #[serde(default, deserialize_with = "object")]
    pub breakdown: Option<Breakdown>,
}

/// `usage.context.breakdown`: the engine's own view of auto-compaction.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    /// `autoCompactThreshold`.
    #[serde(default, deserialize_with = "present")]
    pub auto_compact_threshold: Option<Raw>,
    /// `rawMaxTokens`.
    #[serde(default, deserialize_with = "present")]
    pub raw_max_tokens: Option<Raw>,
    /// `isAutoCompactEnabled`.
    #[serde(default, deserialize_with = "present")]
    pub is_auto_compact_enabled: Option<Raw>,
}

/// The merged `$.settings.read()` (the fields the policy reads).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `autoCompactWindow`.
    #[serde(default, deserialize_with = "present")]
    pub auto_compact_window: Option<Raw>,
    /// `autoCompactEnabled`.
    #[serde(default, deserialize_with = "present")]
    pub auto_compact_enabled: Option<Raw>,
    /// `modelSettings`, when an object: each model's entry by the key written.
    #[serde(default, deserialize_with = "object")]
    pub model_settings: Option<BTreeMap<String, ModelEntry>>,
    /// `notesoup`, when an object.
    #[serde(default, deserialize_with = "object")]
    pub notesoup: Option<NotesoupSettings>,
}

/// One `modelSettings.<model>` entry (one that is not an object holds nothing).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelEntry {
    /// `autoCompactWindow`.
    pub auto_compact_window: Option<Raw>,
}

impl<'de> Deserialize<'de> for ModelEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Entry {
            #[serde(default, deserialize_with = "present")]
            auto_compact_window: Option<Raw>,
        }
        let entry: Option<Entry> = object(deserializer)?;
        Ok(Self {
            auto_compact_window: entry.and_then(|e| e.auto_compact_window),
        })
    }
}

/// The settings' `notesoup` object: notesoup's own margins.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotesoupSettings {
    /// `resetMarginTokens`.
    #[serde(default, deserialize_with = "present")]
    pub reset_margin_tokens: Option<Raw>,
    /// `warningRunwayTokens`.
    #[serde(default, deserialize_with = "present")]
    pub warning_runway_tokens: Option<Raw>,
}

/// A field that is present, whatever it holds (`null` too).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Raw>, D::Error> {
    Raw::deserialize(deserializer).map(Some)
}

/// A field read when it is an object, as if absent otherwise (Claude ignores it then).
fn object<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        value @ Value::Object(_) => T::deserialize(value).ok(),
        _ => None,
    })
}

/// Everything the policy depends on.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// What `$.session.usage({breakdown:"summary"})` returned (`None` when unknown).
    pub usage: Option<&'a Usage>,
    /// The merged `$.settings.read()` (`None` when unknown).
    pub settings: Option<&'a Settings>,
    /// The environment variables named in [`Env`].
    pub env: &'a Env,
    /// `$.session.model()`, for `modelSettings.<model>`.
    pub model: Option<&'a str>,
    /// The runtime cap as the user typed it (`"100k"`), if any.
    pub cap: Option<&'a str>,
}

impl<'a> Inputs<'a> {
    /// Inputs with no model and no cap.
    pub fn new(usage: Option<&'a Usage>, settings: Option<&'a Settings>, env: &'a Env) -> Self {
        Self {
            usage,
            settings,
            env,
            model: None,
            cap: None,
        }
    }

    pub(crate) fn context(&self) -> Option<&'a ContextUsage> {
        self.usage.and_then(|u| u.context.as_ref())
    }

    pub(crate) fn breakdown(&self) -> Option<&'a Breakdown> {
        self.context().and_then(|c| c.breakdown.as_ref())
    }
}

/// One `notesoup` margin setting as [`crate::resolve`] reads it from the merged settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Margin {
    /// Its name under the settings' `notesoup` object.
    pub name: &'static str,
    /// The value the settings hold, if any.
    pub raw: Option<Raw>,
    /// What the policy uses: the value when it is a whole number of tokens, else the default.
    pub tokens: u64,
    /// False when a value is present but is not a whole number of tokens (it is ignored).
    pub valid: bool,
}

/// `notesoup.resetMarginTokens` and `notesoup.warningRunwayTokens`, in that order, as
/// [`crate::resolve`] reads them (so a person's tool can say which value is ignored and why).
///
/// ```
/// use notesoup_thresholds::{DEFAULT_RESET_MARGIN, Settings, margins};
/// let settings: Settings = serde_json::from_str(r#"{"notesoup": {"resetMarginTokens": "8k"}}"#)?;
/// let [reset, runway] = margins(Some(&settings));
/// assert!(!reset.valid);
/// assert_eq!(reset.tokens, DEFAULT_RESET_MARGIN);
/// assert_eq!(reset.raw.map(|r| r.to_string()).as_deref(), Some("\"8k\""));
/// assert!(runway.valid && runway.raw.is_none());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn margins(settings: Option<&Settings>) -> [Margin; 2] {
    margins_of(settings.and_then(|s| s.notesoup.as_ref()))
}

/// [`margins`] read from a host's `notesoup` settings object, whichever host's settings hold it.
pub(crate) fn margins_of(notesoup: Option<&NotesoupSettings>) -> [Margin; 2] {
    [
        (
            "resetMarginTokens",
            DEFAULT_RESET_MARGIN,
            notesoup.and_then(|n| n.reset_margin_tokens.as_ref()),
        ),
        (
            "warningRunwayTokens",
            DEFAULT_WARNING_RUNWAY,
            notesoup.and_then(|n| n.warning_runway_tokens.as_ref()),
        ),
    ]
    .map(|(name, default, raw)| {
        let read = raw.and_then(Raw::whole);
        Margin {
            name,
            valid: raw.is_none() || read.is_some(),
            tokens: read.unwrap_or(default),
            raw: raw.cloned(),
        }
    })
}
