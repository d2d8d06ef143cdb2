//! The versioned state blob the shell keeps between calls.

use serde_json::Value;

use crate::flow::{Flow, STATE_VERSION};

/// Why a state blob was refused. The shell keeps its old blob (or starts over with `null`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// The blob was written by another version of this crate (or is not a blob at all).
    #[error(
        "reset state blob has version {found}, this helper reads version {STATE_VERSION}; start a fresh flow with \"state\": null"
    )]
    UnknownVersion {
        /// The `v` found, as JSON (`missing` when absent).
        found: String,
    },
    /// The blob claims this version but does not have its shape.
    #[error("reset state blob (version {STATE_VERSION}) is malformed: {message}")]
    BadState {
        /// serde's account of what was wrong.
        message: String,
    },
}

impl FlowError {
    /// The error code the helper answers with (`unknown_state_version`, `bad_state`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownVersion { .. } => "unknown_state_version",
            Self::BadState { .. } => "bad_state",
        }
    }
}

impl Flow {
    /// Read a state blob: `null` is a fresh flow (generation 0); a blob of version 2 is
    /// migrated (its window owes no own boot: v2 had no such fact); a blob of any other
    /// version is refused, never misread.
    pub(crate) fn from_blob(blob: &Value) -> Result<Self, FlowError> {
        if blob.is_null() {
            return Ok(Self::default());
        }
        let found = blob.get("v");
        if found.and_then(Value::as_u64) == Some(2) {
            return Self::deserialize_blob(&migrate_v2(blob));
        }
        if found.and_then(Value::as_u64) != Some(u64::from(STATE_VERSION)) {
            return Err(FlowError::UnknownVersion {
                found: found.map_or_else(|| "missing".to_owned(), Value::to_string),
            });
        }
        Self::deserialize_blob(blob)
    }

    fn deserialize_blob(blob: &Value) -> Result<Self, FlowError> {
        serde::Deserialize::deserialize(blob).map_err(|err: serde_json::Error| {
            FlowError::BadState {
                message: err.to_string(),
            }
        })
    }

    /// The blob to keep until the next call.
    pub(crate) fn to_blob(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A version 2 blob as version 3: the window's `own_boot` (new in 3) is `none`, the value a
/// v2 flow means (it never owed one). Anything else v2 holds reads as it did.
fn migrate_v2(blob: &Value) -> Value {
    let mut blob = blob.clone();
    if let Some(object) = blob.as_object_mut() {
        object.insert("v".into(), Value::from(STATE_VERSION));
        if let Some(window) = object.get_mut("window").and_then(Value::as_object_mut) {
            window.insert("own_boot".into(), Value::from("none"));
        }
    }
    blob
}
