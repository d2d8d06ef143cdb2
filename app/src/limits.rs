//! `limits` as a typed function: the budget policy (warning and clear points) from what a
//! host's shell read of the session ([`Reading`]: the engine's usage and settings, the
//! threshold variables, the model) and the user's runtime cap. The math is
//! `notesoup-thresholds`'; this module only puts its inputs together, in this one place,
//! for the `limits` op and for the budget of a hook call ([`crate::hook`]).

use std::collections::BTreeMap;

use notesoup_thresholds::{Env, Inputs, Policy, resolve as resolve_policy};
use serde::Serialize;

pub use notesoup_thresholds::{ContextUsage, Settings, Usage};

use crate::AppError;

/// What the shell read of a session for its budget.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// `$.session.usage({breakdown:"summary"})`, when known.
    pub usage: Option<Usage>,
    /// The merged `$.settings.read()`, when known.
    pub settings: Option<Settings>,
    /// The threshold variables as the shell forwarded them (others are ignored).
    pub env: BTreeMap<String, String>,
    /// `$.session.model()`.
    pub model: Option<String>,
}

impl Reading {
    /// Calls `f` with the thresholds crate's inputs this reading and `cap` make.
    pub(crate) fn with<R>(&self, cap: Option<&str>, f: impl FnOnce(&Inputs<'_>) -> R) -> R {
        let env = Env::from_lookup(|name| self.env.get(name).cloned());
        f(&Inputs {
            usage: self.usage.as_ref(),
            settings: self.settings.as_ref(),
            env: &env,
            model: self.model.as_deref(),
            cap,
        })
    }

    /// The policy this reading and `cap` resolve to.
    pub(crate) fn policy(&self, cap: Option<&str>) -> Result<Policy, AppError> {
        Ok(self.with(cap, resolve_policy)?)
    }
}

/// A resolved budget policy, as the `limits` op answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// What the points count: `tokens` or `percent`.
    pub unit: &'static str,
    /// Where the native point came from.
    pub source: &'static str,
    /// Claude's own point, after the cap.
    pub native: u64,
    /// Where notesoup clears the context.
    pub hard: u64,
    /// Where notesoup warns the agent.
    pub warning: u64,
    /// Whether notesoup clears by itself at `hard`.
    pub auto_clear: bool,
    /// Whether budget warnings are shown.
    pub warnings_enabled: bool,
    /// Whether `empty_brain` and `/empty` may clear.
    pub explicit_reset: bool,
    /// The cap in tokens after clamping to the window, if one was given.
    pub cap: Option<u64>,
    /// Built from exactly the inputs read: equal keys, equal policy.
    pub key: String,
}

/// The budget policy of `reading` under the runtime cap as typed (`"100k"`), or why it
/// cannot be resolved (a bad cap, no room for the margins).
pub fn resolve(reading: &Reading, cap: Option<&str>) -> Result<Limits, AppError> {
    let policy = reading.policy(cap)?;
    Ok(Limits {
        unit: policy.unit.as_str(),
        source: policy.source.as_str(),
        native: policy.native,
        hard: policy.hard,
        warning: policy.warning,
        auto_clear: policy.auto_clear,
        warnings_enabled: policy.warnings_enabled,
        explicit_reset: policy.explicit_reset,
        cap: policy.cap,
        key: policy.key,
    })
}
