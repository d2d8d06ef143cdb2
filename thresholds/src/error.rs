//! Why no policy was produced.

use notesoup_window::thousands;

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
    /// The cap leaves no room for the host's reserves and notesoup's margins.
    #[error(
        "cap {input:?} ({} tokens) leaves no room for {reserves} and notesoup's margins; the smallest cap accepted is {} tokens",
        thousands(*tokens),
        thousands(*smallest)
    )]
    CapTooSmall {
        /// The host's reserves, in words (`Claude's reserves`, `Pi's reserveTokens`).
        reserves: &'static str,
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
    /// A unit name that is not `tokens` or `percent` ([`crate::Unit::named`]).
    #[error("unit {input:?} is not `tokens` or `percent`")]
    BadUnit {
        /// The unit as given.
        input: String,
    },
    /// The native point leaves no room for the margins: no point can be trusted.
    #[error(
        "the native point ({} tokens, from the {source_name} source) leaves no room for resetMarginTokens {reset_margin} and warningRunwayTokens {warning_runway}; lower the margins in the notesoup settings or raise the window",
        signed_thousands(*native)
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
    /// Pi's `compaction.reserveTokens` is not below the model's window: Pi compacts before
    /// anything is said, and no point of notesoup's can be placed below it.
    #[error(
        "Pi's compaction.reserveTokens is {}, not below the model's {}-token window, so no room is left to work in; lower it in ~/.pi/agent/settings.json or the project's .pi/settings.json",
        thousands(*reserve),
        thousands(*window)
    )]
    PiReserveTooLarge {
        /// `compaction.reserveTokens` in force.
        reserve: u64,
        /// The model's window.
        window: u64,
    },
    /// A Pi compaction setting Pi itself refuses (Pi 1.6.0 throws "Invalid compaction.…
    /// setting"), so Pi has no compaction point to derive ours from.
    #[error(
        "Pi's setting {setting} is {value}, which Pi refuses: it must be {expected}; fix it in ~/.pi/agent/settings.json or the project's .pi/settings.json"
    )]
    PiSetting {
        /// The setting's path as Pi names it (`compaction.reserveTokens`,
        /// `compaction.modelOverrides["anthropic/claude-sonnet-4-5"]`).
        setting: String,
        /// Its value, as JSON.
        value: String,
        /// What Pi accepts there.
        expected: &'static str,
    },
}

impl ThresholdError {
    /// A stable `snake_case` code for replies: `bad_cap` (the cap cannot be read or is too
    /// small), `usage` (a `/notesoup` command it does not know), `unresolvable` (no point
    /// can be trusted, a Pi setting Pi refuses) or `bad_unit` (a unit name it does not know).
    pub fn code(&self) -> &'static str {
        match self {
            ThresholdError::BadCap { .. } | ThresholdError::CapTooSmall { .. } => "bad_cap",
            ThresholdError::CapUsage { .. } => "usage",
            ThresholdError::NoRoom { .. }
            | ThresholdError::PiSetting { .. }
            | ThresholdError::PiReserveTooLarge { .. } => "unresolvable",
            ThresholdError::BadUnit { .. } => "bad_unit",
        }
    }
}

/// `n` with thousands separators, its sign kept (a native point can be below zero).
fn signed_thousands(n: i64) -> String {
    let sign = if n < 0 { "-" } else { "" };
    format!("{sign}{}", thousands(n.unsigned_abs()))
}
