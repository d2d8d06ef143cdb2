//! The text answering `/notesoup` ([`cap_status`]), in the person's words: how full the
//! window is, where notesoup warns and where it clears, and the cap.
//!
//! "Usable" is the part of the window notesoup lets the conversation fill: up to the clear
//! point, which lies the host's reserves and notesoup's margins below the window's capacity.
//! The percent is of that, so 100% is where notesoup clears.

use notesoup_window::thousands;

use crate::{
    ContextUsage, Inputs, NativeSource, PiInputs, Policy, ThresholdError, Unit, parse_cap, resolve,
    resolve_pi,
};

/// The line `/notesoup cap off` answers first when it took a cap away (the status follows).
pub const CAP_REMOVED: &str = "Cap removed: the window's own points apply again.";

/// The lines answering `/notesoup`: the fill (`context`, read now; `None`: the usage's in
/// `inputs`) against the points of `inputs`, the points, the cap `inputs` carry and
/// `window`, the window id (`None`: not started yet).
///
/// ```
/// use notesoup_thresholds::{Env, Inputs, Usage, cap_status};
/// use serde_json::json;
///
/// let usage: Usage = serde_json::from_value(json!({"context": {"window": 200000,
///     "tokens": 30000, "breakdown": {"autoCompactThreshold": 167000, "isAutoCompactEnabled": true}}}))?;
/// let env = Env::default();
/// let inputs = Inputs { cap: Some("100000"), ..Inputs::new(Some(&usage), None, &env) };
/// assert_eq!(
///     cap_status(&inputs, None, Some("claude:s1:2")),
///     "Context: 30,000 tokens, 51% of the 58,808 usable in this window\n\
///      Warns at 42,424 tokens, clears at 58,808 (Claude would compact at 167,000; the cap's point is 67,000)\n\
///      Cap: 100,000 tokens of capacity, before Claude's reserves and notesoup's margins (/notesoup cap off removes it)\n\
///      Window: claude:s1:2"
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn cap_status(
    inputs: &Inputs<'_>,
    context: Option<&ContextUsage>,
    window: Option<&str>,
) -> String {
    let context = context.or_else(|| inputs.usage.and_then(|u| u.context.as_ref()));
    let ignored = ignored_margins(&crate::margins(inputs.settings));
    let uncapped = resolve(&Inputs {
        cap: None,
        ..*inputs
    });
    status(
        (resolve(inputs), uncapped.ok()),
        Host::Claude,
        inputs.cap,
        context,
        window,
        ignored,
    )
}

/// [`cap_status`] in Pi: the points of `inputs` ([`crate::resolve_pi`]), the fill `context`
/// holds (`ctx.getContextUsage()`: `tokens`, `null` right after a compaction).
///
/// ```
/// use notesoup_thresholds::{ContextUsage, PiInputs, pi_cap_status};
/// let fill: ContextUsage = serde_json::from_str(r#"{"tokens": 30000, "percent": 15}"#)?;
/// let inputs = PiInputs { cap: Some("100000"), ..PiInputs::new(200_000, None) };
/// assert_eq!(
///     pi_cap_status(&inputs, Some(&fill), Some("pi:s1:2")),
///     "Context: 30,000 tokens, 40% of the 75,424 usable in this window\n\
///      Warns at 59,040 tokens, clears at 75,424 (Pi would compact above 183,616; the cap's point is 83,616)\n\
///      Cap: 100,000 tokens of capacity, before Pi's reserveTokens and notesoup's margins (/notesoup cap off removes it)\n\
///      Window: pi:s1:2"
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn pi_cap_status(
    inputs: &PiInputs<'_>,
    context: Option<&ContextUsage>,
    window: Option<&str>,
) -> String {
    let ignored = ignored_margins(&crate::pi_margins(inputs.settings));
    let uncapped = resolve_pi(&PiInputs {
        cap: None,
        ..*inputs
    });
    status(
        (resolve_pi(inputs), uncapped.ok()),
        Host::Pi,
        inputs.cap,
        context,
        window,
        ignored,
    )
}

/// A line for each margin whose setting is not a whole number of tokens (ignored: the
/// default applies), so the person reads why their setting changed nothing.
fn ignored_margins(margins: &[crate::Margin]) -> Vec<String> {
    margins
        .iter()
        .filter(|m| !m.valid)
        .map(|m| {
            format!(
                "Setting ignored: notesoup.{} = {} is not a whole number of tokens; {} applies",
                m.name,
                m.raw.as_ref().map(ToString::to_string).unwrap_or_default(),
                thousands(m.tokens)
            )
        })
        .collect()
}

/// The host whose words a status speaks.
#[derive(Clone, Copy)]
enum Host {
    Claude,
    Pi,
}

impl Host {
    /// Where the host compacts by itself, in words.
    fn compacts(self) -> &'static str {
        match self {
            Host::Claude => "Claude would compact at",
            Host::Pi => "Pi would compact above",
        }
    }

    /// What the host keeps below a cap, in words.
    fn reserves(self) -> &'static str {
        match self {
            Host::Claude => "Claude's reserves",
            Host::Pi => "Pi's reserveTokens",
        }
    }

    /// Who reports the fill.
    fn name(self) -> &'static str {
        match self {
            Host::Claude => "Claude",
            Host::Pi => "Pi",
        }
    }
}

/// `resolved`: the points under the cap, and those without it (to say whether a cap above
/// the window changes them).
fn status(
    (resolved, uncapped): (Result<Policy, ThresholdError>, Option<Policy>),
    host: Host,
    cap: Option<&str>,
    context: Option<&ContextUsage>,
    window: Option<&str>,
    ignored: Vec<String>,
) -> String {
    let mut lines = match resolved {
        Ok(policy) => {
            let moved = uncapped.as_ref().is_some_and(|u| {
                (u.native, u.hard, u.warning) != (policy.native, policy.hard, policy.warning)
            });
            // Under a cap that moved them, where the host itself compacts is the uncapped
            // point: the capped one is the cap's.
            let own = uncapped
                .filter(|u| moved && u.unit == policy.unit)
                .map(|u| u.native);
            vec![
                fill_line(&policy, host, context),
                points_line(&policy, host, own),
                cap_line(
                    policy.cap,
                    cap.and_then(|cap| parse_cap(cap).ok()),
                    (policy.unit, moved),
                    host,
                ),
            ]
        }
        Err(err) => vec![
            format!("Context: notesoup cannot place its warning and clear points: {err}"),
            cap_line(
                cap.and_then(|cap| parse_cap(cap).ok()),
                None,
                (Unit::Tokens, false),
                host,
            ),
        ],
    };
    lines.push(format!("Window: {}", window.unwrap_or("not started yet")));
    lines.extend(ignored);
    lines.join("\n")
}

/// How full the window is, and its share of the usable part.
fn fill_line(policy: &Policy, host: Host, context: Option<&ContextUsage>) -> String {
    let Some(fill) = context.and_then(|c| policy.fill(c)) else {
        return format!(
            "Context: not measured yet ({} reports it after its first answer in this window)",
            host.name()
        );
    };
    if !policy.warnings_enabled {
        // Nothing is cleared: there is no usable part to measure against.
        return match policy.unit {
            Unit::Tokens => format!("Context: {} tokens", thousands(fill)),
            Unit::Percent => format!("Context: {fill}% of the window"),
        };
    }
    // `hard` is at least 1 (`1 ≤ warning ≤ hard`); rounded to the nearest percent.
    let usable = policy.hard.max(1);
    let share = fill.saturating_mul(100).saturating_add(usable / 2) / usable;
    match policy.unit {
        Unit::Tokens => format!(
            "Context: {} tokens, {share}% of the {} usable in this window",
            thousands(fill),
            thousands(usable)
        ),
        Unit::Percent => {
            format!("Context: {fill}% of the window, {share}% of the {usable}% usable")
        }
    }
}

/// Where notesoup warns and clears (and where the host would compact).
/// The points; `own`: where the host compacts by itself when a cap moved the native point.
fn points_line(policy: &Policy, host: Host, own: Option<u64>) -> String {
    let (at, unit) = match policy.unit {
        Unit::Tokens => (thousands as fn(u64) -> String, " tokens"),
        Unit::Percent => (percent as fn(u64) -> String, ""),
    };
    if !policy.warnings_enabled {
        return "DISABLE_COMPACT is set: notesoup neither warns nor clears".into();
    }
    if !policy.auto_clear {
        return format!(
            "Warns at {}{unit}; auto-compaction is off, so notesoup clears only when asked (/empty)",
            at(policy.warning)
        );
    }
    if policy.source == NativeSource::Cap {
        // No window known: the cap is the window, and where the host compacts is not known.
        return format!(
            "Warns at {}{unit}, clears at {} (the cap's point is {}; where {} compacts is not known until it reports this window's size)",
            at(policy.warning),
            at(policy.hard),
            at(policy.native),
            host.name()
        );
    }
    match own {
        Some(own) => format!(
            "Warns at {}{unit}, clears at {} ({} {}; the cap's point is {})",
            at(policy.warning),
            at(policy.hard),
            host.compacts(),
            at(own),
            at(policy.native)
        ),
        None => format!(
            "Warns at {}{unit}, clears at {} ({} {})",
            at(policy.warning),
            at(policy.hard),
            host.compacts(),
            at(policy.native)
        ),
    }
}

fn percent(n: u64) -> String {
    format!("{n}%")
}

/// The cap, and what it means.
/// `asked`: the cap as the person gave it, when the window (`cap`) lowered it.
/// The cap line: `moved` when the cap changed the points (a cap above the window says it
/// changes nothing only when it does not: a reported point of a larger window than the
/// configured one it is clamped to is lowered to that window's).
fn cap_line(
    cap: Option<u64>,
    asked: Option<u64>,
    (unit, moved): (Unit, bool),
    host: Host,
) -> String {
    match (cap, asked) {
        (Some(cap), Some(asked)) if asked > cap && moved => format!(
            "Cap: {} tokens, more than the {} tokens configured for this window, so that is the cap: it lowers the point {} reported (/notesoup cap off removes it)",
            thousands(asked),
            thousands(cap),
            host.name()
        ),
        (Some(cap), Some(asked)) if asked > cap => {
            let (window, when) = match unit {
                Unit::Tokens => (format!("this window's {} tokens", thousands(cap)), "here"),
                Unit::Percent => (
                    format!(
                        "the {} tokens assumed until {} reports this window's size",
                        thousands(cap),
                        host.name()
                    ),
                    "yet",
                ),
            };
            format!(
                "Cap: {} tokens, more than {window}, so it changes nothing {when} (/notesoup cap off removes it)",
                thousands(asked)
            )
        }
        (Some(cap), _) => format!(
            "Cap: {} tokens of capacity, before {} and notesoup's margins (/notesoup cap off removes it)",
            thousands(cap),
            host.reserves()
        ),
        (None, _) => {
            "Cap: none (/notesoup cap 100k gives this window a capacity of 100,000 tokens)".into()
        }
    }
}

#[cfg(test)]
mod tests;
