//! The runtime cap as a person sets it in a session, `/notesoup [cap [<tokens>|off]]`: the
//! command's one grammar and its refusals. The status that answers it is [`crate::cap_status`].

use crate::{Inputs, PiInputs, Policy, ThresholdError, js, resolve, resolve_pi};

/// What `/notesoup [cap [<tokens>|off]]` asks, once checked against the points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapCommand {
    /// `/notesoup` or `/notesoup cap`: show the cap and the points; nothing changes.
    Show,
    /// `/notesoup cap off` (`None`) or `/notesoup cap <tokens>` (the tokens asked): the cap
    /// changes. A cap above the window is kept as asked and clamped to the window where the
    /// points are placed ([`crate::resolve`]), so a later model with a larger window gets the
    /// cap the person asked for.
    Set(Option<u64>),
}

/// Reads `/notesoup`'s `args` and checks a new cap against the points of `inputs` (their
/// own `cap` is not read). A cap that cannot be read or leaves no room is refused
/// ([`ThresholdError::BadCap`], [`ThresholdError::CapTooSmall`]); other words are refused
/// with [`ThresholdError::CapUsage`]. When the points cannot be resolved at all (no room
/// for the margins), there is nothing to check the cap against: it is refused with that
/// reason, and the cap kept before stays (only `cap off` removes one).
///
/// ```
/// use notesoup_thresholds::{CapCommand, Env, Inputs, Usage, cap_command, cap_refused};
/// use serde_json::json;
///
/// let usage: Usage = serde_json::from_value(json!({"context": {"window": 200000,
///     "breakdown": {"autoCompactThreshold": 167000, "isAutoCompactEnabled": true}}}))?;
/// let env = Env::default();
/// let inputs = Inputs::new(Some(&usage), None, &env);
/// assert_eq!(cap_command("", &inputs)?, CapCommand::Show);
/// assert_eq!(cap_command("cap 100k", &inputs)?, CapCommand::Set(Some(100_000)));
/// assert_eq!(cap_command("cap off", &inputs)?, CapCommand::Set(None));
/// assert_eq!(cap_command("cap OFF", &inputs)?, CapCommand::Set(None));
/// let refused = cap_command("cap 12", &inputs).unwrap_err();
/// assert!(cap_refused(&refused).starts_with("cap refused: cap \"12\""));
/// assert!(cap_refused(&cap_command("bogus", &inputs).unwrap_err()).starts_with("usage: "));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cap_command(args: &str, inputs: &Inputs<'_>) -> Result<CapCommand, ThresholdError> {
    cap_command_with(args, |cap| {
        resolve(&Inputs {
            cap: Some(cap),
            ..*inputs
        })
    })
}

/// [`cap_command`] in Pi: the same grammar, a new cap checked against the Pi points of
/// `inputs` ([`crate::resolve_pi`]; their own `cap` is not read).
///
/// ```
/// use notesoup_thresholds::{CapCommand, PiInputs, pi_cap_command};
/// let inputs = PiInputs::new(200_000, None);
/// assert_eq!(pi_cap_command("cap 100k", &inputs)?, CapCommand::Set(Some(100_000)));
/// assert!(pi_cap_command("cap 40000", &inputs).unwrap_err().to_string().contains("Pi's reserveTokens"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pi_cap_command(args: &str, inputs: &PiInputs<'_>) -> Result<CapCommand, ThresholdError> {
    cap_command_with(args, |cap| {
        resolve_pi(&PiInputs {
            cap: Some(cap),
            ..*inputs
        })
    })
}

/// The one grammar of `/notesoup`'s `args`, a new cap checked by `with_cap` (the policy of
/// the host's inputs under that cap).
fn cap_command_with(
    args: &str,
    with_cap: impl FnOnce(&str) -> Result<Policy, ThresholdError>,
) -> Result<CapCommand, ThresholdError> {
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [] | ["cap"] => Ok(CapCommand::Show),
        ["cap", off] if off.eq_ignore_ascii_case("off") => Ok(CapCommand::Set(None)),
        ["cap", wanted] => match with_cap(wanted) {
            // Read: `with_cap` refuses what does not parse.
            Ok(policy) => Ok(CapCommand::Set(policy.cap.and(parse_cap(wanted).ok()))),
            Err(err) => Err(err),
        },
        _ => Err(ThresholdError::CapUsage {
            input: args.to_owned(),
        }),
    }
}

/// The line that answers a refused `/notesoup` ([`cap_command`]'s error).
pub fn cap_refused(err: &ThresholdError) -> String {
    match err {
        ThresholdError::CapUsage { .. } => err.to_string(),
        _ => format!("cap refused: {err}"),
    }
}

/// Parse a runtime cap: whole tokens (`250000`) or a decimal with `k`/`m` (`100k`, `1.5m`)
/// that comes to whole tokens. The whole part may group its digits in threes with `,` or
/// `_`, as notesoup prints figures (`1,000,000`), so a printed figure can be given back; a
/// group of another size (`1,5m`, a decimal comma) is refused, never guessed.
pub fn parse_cap(raw: &str) -> Result<u64, ThresholdError> {
    let bad = || ThresholdError::BadCap {
        input: raw.to_owned(),
    };
    let s = raw.trim();
    let (number, scale) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1_000_u64),
        Some('m' | 'M') => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1),
    };
    let (grouped, frac) = number.split_once('.').unwrap_or((number, ""));
    // `1.500000000m` is `1.5m`: zeros past the last digit add nothing.
    let frac = frac.trim_end_matches('0');
    let int = ungrouped(grouped).ok_or_else(bad)?;
    let int = int.as_str();
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty()
        || !all_digits(int)
        || !all_digits(frac)
        || (number.contains('.') && (number.ends_with('.') || scale == 1))
        || frac.len() > 6
    {
        return Err(bad());
    }
    // Exact integer arithmetic: int·scale + frac·scale/10^len, which must be whole.
    let int: u64 = int.parse().map_err(|_| bad())?;
    let frac_len = u32::try_from(frac.len()).map_err(|_| bad())?;
    let frac_value: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| bad())?
    };
    let denominator = 10_u64.pow(frac_len);
    let frac_scaled = frac_value * scale;
    if !frac_scaled.is_multiple_of(denominator) {
        return Err(bad());
    }
    int.checked_mul(scale)
        .and_then(|t| t.checked_add(frac_scaled / denominator))
        .filter(|t| *t <= js::MAX_SAFE)
        .ok_or_else(bad)
}

/// `digits` without its thousands separators: groups of three after the first (of one to
/// three), all split by the same one of `,` and `_`; `None` for any other grouping. Digits
/// with no separator come back as they are (checked by the caller).
fn ungrouped(digits: &str) -> Option<String> {
    let Some(sep) = digits.chars().find(|c| matches!(c, ',' | '_')) else {
        return Some(digits.to_owned());
    };
    let mut groups = digits.split(sep);
    let first = groups.next()?;
    let digit_run = |g: &str| g.bytes().all(|b| b.is_ascii_digit());
    if first.is_empty() || first.len() > 3 || !digit_run(first) {
        return None;
    }
    let mut whole = first.to_owned();
    for group in groups {
        if group.len() != 3 || !digit_run(group) {
            return None;
        }
        whole.push_str(group);
    }
    Some(whole)
}
