//! notesoup's budget policy: when the agent is warned and when its context is cleared,
//! derived from the host's own compaction point: Claude Code 2.1.319's auto-compact point
//! ([`resolve`], below), or Pi 1.6.0's from its compaction settings ([`resolve_pi`]: its
//! module docs give Pi's formula and its source). Pure: no IO, no environment
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
//! points.
//!
//! # Invariants
//!
//! - The native point is never later than the host's own compaction point for the same inputs.
//! - `1 ≤ warning ≤ hard ≤ native`.
//! - A policy with no room for its margins is an error, never a guess.
//! - The inputs are typed (serde-derived [`Usage`] and [`Settings`], each value kept as the
//!   engine wrote it and read as Claude reads it): no public function takes or returns
//!   `serde_json::Value`.
//!
//! # Example
//! The caller deserializes the engine's JSON once, at its wire, into the typed inputs.
//! ```
//! use notesoup_thresholds::{Env, Inputs, NativeSource, Settings, Unit, Usage, resolve};
//!
//! // What `$.session.usage({breakdown:"summary"})` reported for claude-sonnet-4-6.
//! let usage: Usage = serde_json::from_str(r#"{"context": {"window": 200000, "tokens": 5000,
//!     "breakdown": {"autoCompactThreshold": 167000, "isAutoCompactEnabled": true}}}"#)?;
//! let settings: Settings = serde_json::from_str(r#"{"notesoup": {"resetMarginTokens": 4096}}"#)?;
//! let env = Env::from_lookup(|name| {
//!     (name == "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE").then(|| "50%".to_owned())
//! });
//! let policy = resolve(&Inputs {
//!     model: Some("claude-sonnet-4-6"),
//!     ..Inputs::new(Some(&usage), Some(&settings), &env)
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
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod cap;
mod env;
mod error;
mod facts;
mod inputs;
mod js;
mod key;
mod model;
mod pi;
mod policy;
mod status;

pub use cap::{CapCommand, cap_command, cap_refused, parse_cap, pi_cap_command};
pub use env::{Env, NOTESOUP_DISABLED, Unused, notesoup_disabled};
pub use error::ThresholdError;
pub use inputs::{
    Breakdown, ContextUsage, Inputs, Margin, ModelEntry, NotesoupSettings, Raw, Settings, Usage,
    margins,
};
pub use pi::{
    PI_DEFAULT_KEEP_RECENT_TOKENS, PI_DEFAULT_RESERVE_TOKENS, PiCompaction, PiCompactionSettings,
    PiInputs, PiModelOverride, PiSettings, Slot, pi_margins, resolve_pi,
};
pub use policy::{NativeSource, Policy, Unit, fill_below, resolve};
pub use status::{CAP_REMOVED, cap_status, pi_cap_status};

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

#[cfg(test)]
mod tests;
