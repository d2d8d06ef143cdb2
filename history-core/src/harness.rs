//! The coding agents whose sessions notesoup reads.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A coding agent (harness) whose persisted sessions notesoup reads. Its name (`claude`,
/// `pi`, `codex`) starts session selectors and window ids; any other name is refused.
///
/// ```
/// use notesoup_history_core::Harness;
///
/// let pi: Harness = "pi".parse()?;
/// assert_eq!(pi, Harness::Pi);
/// assert_eq!(pi.to_string(), "pi");
/// assert!("gemini".parse::<Harness>().is_err());
/// assert_eq!(Harness::ALL.map(Harness::name), ["claude", "pi", "codex"]);
/// # Ok::<(), notesoup_history_core::UnknownHarness>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Harness {
    /// Claude Code: one JSONL transcript per session.
    Claude,
    /// Pi: one JSONL file per session, continuing its `parentSession`.
    Pi,
    /// Codex: rollout files per thread, continuing their `history_base`.
    Codex,
}

/// A harness name notesoup does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown harness `{0}`; known: claude, pi, codex")]
pub struct UnknownHarness(pub String);

impl Harness {
    /// Every harness, in the order listings name them.
    pub const ALL: [Harness; 3] = [Harness::Claude, Harness::Pi, Harness::Codex];

    /// The harness's name: `claude`, `pi` or `codex`.
    pub const fn name(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Pi => "pi",
            Harness::Codex => "codex",
        }
    }
}

impl FromStr for Harness {
    type Err = UnknownHarness;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Harness::ALL
            .into_iter()
            .find(|h| h.name() == name)
            .ok_or_else(|| UnknownHarness(name.to_owned()))
    }
}

impl fmt::Display for Harness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
