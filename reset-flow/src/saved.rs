//! What a session keeps between the processes that step its flow: the flow and the process
//! that saved it. Its JSON is the window record's `state` (window-store keeps it opaque).

use serde::de::Deserializer;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::flow::Flow;

/// A session's saved flow: `{"process": <token>, "flow": <versioned flow>}`.
///
/// Reading one never fails on its content: a flow this crate cannot read (another
/// version, malformed) reads as `flow: None`, so the next step starts a fresh flow rather
/// than misreading it, and what it saves replaces it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Saved {
    /// The process that saved it (any token unique to that process); `None` for a flow
    /// rebuilt from a transcript, which no process saved (its first step sends no `loaded`).
    pub process: Option<String>,
    /// The flow, when readable.
    pub flow: Option<Flow>,
}

impl Serialize for Saved {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = usize::from(self.process.is_some()) + usize::from(self.flow.is_some());
        let mut map = serializer.serialize_map(Some(fields))?;
        if let Some(process) = &self.process {
            map.serialize_entry("process", process)?;
        }
        if let Some(flow) = &self.flow {
            map.serialize_entry("flow", &flow.to_blob())?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Saved {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// The record as written; the flow is read by its version (`Flow::from_blob`).
        #[derive(Deserialize)]
        struct Raw {
            #[serde(default)]
            process: Option<Value>,
            #[serde(default)]
            flow: Option<Value>,
        }
        let raw = Raw::deserialize(deserializer)?;
        Ok(Saved {
            // A token that is not a string is no process this crate wrote: another one's.
            process: raw
                .process
                .map(|p| p.as_str().unwrap_or_default().to_owned()),
            flow: raw.flow.and_then(|blob| Flow::from_blob(&blob).ok()),
        })
    }
}

#[cfg(test)]
mod tests;
