//! [`Host`]: the coding agents notesoup runs in (its reset flow's hosts, an MCP client) and
//! whose sessions it reads (the harnesses).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A coding agent notesoup runs in or reads. Its name (`claude`, `pi`, `codex`, `mcp`)
/// starts window ids and, for the three harnesses, session selectors; any other name is
/// refused.
///
/// ```
/// use notesoup_window::Host;
///
/// let pi: Host = "pi".parse()?;
/// assert_eq!(pi.to_string(), "pi");
/// assert_eq!(Host::HARNESSES.map(Host::name), ["claude", "pi", "codex"]);
/// assert!(Host::Mcp.tool("notes_list") == "notes_list" && !Host::Mcp.has_reset_flow());
/// assert_eq!(Host::Claude.tool("empty_brain"), "mcp__notesoup__empty_brain");
/// assert!("gemini".parse::<Host>().is_err());
/// # Ok::<(), notesoup_window::UnknownHost>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Host {
    /// Claude Code: notesoup's mod; one JSONL transcript per session.
    Claude,
    /// Pi: notesoup's extension; one JSONL file per session, continuing its `parentSession`.
    Pi,
    /// Codex: rollout files per thread, continuing their `history_base`; it reaches
    /// notesoup through `notesoup mcp`.
    Codex,
    /// Any MCP client of `notesoup mcp` (Codex, Claude Desktop, Cursor, ...): no sessions of
    /// its own are read and no reset flow runs.
    Mcp,
}

/// A host name notesoup does not know, or (for [`Host::harness`]) one whose sessions it
/// does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{input}`; known: {known}")]
pub struct UnknownHost {
    /// The name as given.
    pub input: String,
    /// `host` or `harness`.
    pub what: &'static str,
    /// The names accepted, comma-separated.
    pub known: &'static str,
}

impl Host {
    /// Every host, in the order listings name them.
    pub const ALL: [Host; 4] = [Host::Claude, Host::Pi, Host::Codex, Host::Mcp];

    /// The harnesses: the hosts whose persisted sessions notesoup reads, in listing order.
    pub const HARNESSES: [Host; 3] = [Host::Claude, Host::Pi, Host::Codex];

    /// The host's name: `claude`, `pi`, `codex` or `mcp`.
    pub const fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Pi => "pi",
            Host::Codex => "codex",
            Host::Mcp => "mcp",
        }
    }

    /// The product's name as people know it: `Claude Code`, `Pi`, `Codex`, `an MCP client`.
    pub const fn product(self) -> &'static str {
        match self {
            Host::Claude => "Claude Code",
            Host::Pi => "Pi",
            Host::Codex => "Codex",
            Host::Mcp => "an MCP client",
        }
    }

    /// The harness `name` names (`claude`, `pi` or `codex`): what a session selector
    /// starts with. `mcp` and anything else is refused.
    pub fn harness(name: &str) -> Result<Self, UnknownHost> {
        Self::HARNESSES
            .into_iter()
            .find(|h| h.name() == name)
            .ok_or_else(|| UnknownHost {
                input: name.to_owned(),
                what: "harness",
                known: "claude, pi, codex",
            })
    }

    /// Whether notesoup reads this host's persisted sessions.
    pub const fn is_harness(self) -> bool {
        !matches!(self, Host::Mcp)
    }

    /// The name the model sees for one of notesoup's tools, e.g. `empty_brain`: Claude
    /// Code shows a mod's tools as `mcp__notesoup__<tool>`, Pi an extension's as
    /// `notesoup_<tool>`, an MCP client the server's own names.
    pub fn tool(self, tool: &str) -> String {
        match self {
            Host::Claude => format!("mcp__notesoup__{tool}"),
            Host::Pi => format!("notesoup_{tool}"),
            Host::Codex | Host::Mcp => tool.to_owned(),
        }
    }

    /// Whether notesoup's reset flow runs in this host (a budget warning and `empty_brain`).
    pub const fn has_reset_flow(self) -> bool {
        matches!(self, Host::Claude | Host::Pi)
    }
}

impl FromStr for Host {
    type Err = UnknownHost;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Host::ALL
            .into_iter()
            .find(|h| h.name() == name)
            .ok_or_else(|| UnknownHost {
                input: name.to_owned(),
                what: "host",
                known: "claude, pi, codex, mcp",
            })
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
