//! The few JavaScript number-parsing rules Claude Code 2.1.319 applies to the values we read,
//! reproduced exactly: `String.prototype.trim`, `parseFloat`, `parseInt(s, 10)`, the engine's
//! integer reader (exponent form, digit groups, else `parseInt`), its window reader, and its
//! env truthiness.

/// JavaScript's `WhiteSpace` and `LineTerminator` (what `trim` and `parseFloat` skip).
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `s.trim()` in JavaScript.
pub(crate) fn trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// Length of the run of ASCII digits at the start of `s`.
fn digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// `parseFloat(s)`: the longest prefix (after leading white space) that is a decimal literal;
/// `NaN` when there is none.
pub(crate) fn parse_float(s: &str) -> f64 {
    let s = s.trim_start_matches(is_js_space);
    let bytes = s.as_bytes();
    let mut end = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    if s[end..].starts_with("Infinity") {
        return if s.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let int_len = digits(&s[end..]);
    end += int_len;
    let mut frac_len = 0;
    if bytes.get(end) == Some(&b'.') {
        frac_len = digits(&s[end + 1..]);
        if int_len > 0 || frac_len > 0 {
            end += 1 + frac_len;
        }
    }
    if int_len == 0 && frac_len == 0 {
        return f64::NAN;
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exp_end = end + 1;
        if matches!(bytes.get(exp_end), Some(b'+' | b'-')) {
            exp_end += 1;
        }
        let exp_digits = digits(&s[exp_end..]);
        if exp_digits > 0 {
            end = exp_end + exp_digits;
        }
    }
    s[..end].parse().unwrap_or(f64::NAN)
}

/// `parseInt(s, 10)`: optional sign and the leading digits, after leading white space.
pub(crate) fn parse_int(s: &str) -> f64 {
    let s = s.trim_start_matches(is_js_space);
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    let n = digits(rest);
    if n == 0 {
        return f64::NAN;
    }
    sign * rest[..n].parse::<f64>().unwrap_or(f64::NAN)
}

/// `^[+-]?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+$`
fn is_exponent_form(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let Some(e) = s.find(['e', 'E']) else {
        return false;
    };
    let (mantissa, exp) = (&s[..e], &s[e + 1..]);
    let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
    let mantissa_ok = match mantissa.split_once('.') {
        None => !mantissa.is_empty() && digits(mantissa) == mantissa.len(),
        Some((int, frac)) => {
            digits(int) == int.len()
                && digits(frac) == frac.len()
                && (!int.is_empty() || !frac.is_empty())
        }
    };
    mantissa_ok && !exp.is_empty() && digits(exp) == exp.len()
}

/// `^[+-]?\d{1,3}([_,\u00A0\u202F ])\d{3}(?:\1\d{3})*$`: one separator, used throughout.
fn digit_groups(s: &str) -> Option<String> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let sep = body.chars().find(|c| !c.is_ascii_digit())?;
    if !matches!(sep, '_' | ',' | '\u{A0}' | '\u{202F}' | ' ') {
        return None;
    }
    let mut groups = body.split(sep);
    let first = groups.next()?;
    if !(1..=3).contains(&first.len()) || digits(first) != first.len() {
        return None;
    }
    let mut joined = String::from(&s[..s.len() - body.len()]);
    joined.push_str(first);
    for group in groups {
        if group.len() != 3 || digits(group) != 3 {
            return None;
        }
        joined.push_str(group);
    }
    Some(joined)
}

/// Claude's integer reader: exponent form when integral (else `NaN`), digit groups,
/// else `parseInt`. Forms longer than 32 characters skip straight to `parseInt`.
pub(crate) fn parse_integer(s: &str) -> f64 {
    let s = trim(s);
    if s.chars().count() <= 32 {
        if is_exponent_form(s) {
            let n: f64 = s.parse().unwrap_or(f64::NAN);
            return if n.is_finite() && n.fract() == 0.0 {
                n
            } else {
                f64::NAN
            };
        }
        if let Some(joined) = digit_groups(s) {
            return parse_int(&joined);
        }
    }
    parse_int(s)
}

/// Smallest window Claude accepts (`100k`).
pub(crate) const WINDOW_MIN: u64 = 100_000;
/// Largest window Claude accepts (`1M`).
pub(crate) const WINDOW_MAX: u64 = 1_000_000;

/// How Claude reads `CLAUDE_CODE_AUTO_COMPACT_WINDOW` (its window reader without bare
/// thousands, then the env clamp): `k`/`m` suffixes through `parseFloat`, else the integer reader; unusable → `None`
/// (ignored), below 100k → 100k, above 1M → 1M, otherwise rounded.
pub(crate) fn env_window(raw: &str) -> Option<u64> {
    let s = trim(raw);
    let scale = match s.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('m') => Some(1e6),
        Some('k') => Some(1e3),
        _ => None,
    };
    let value = match scale {
        Some(scale) => parse_float(s) * scale,
        None => parse_integer(s),
    };
    if value.is_nan() || value < 1.0 {
        return None;
    }
    #[allow(
        clippy::cast_precision_loss,
        reason = "both bounds are small integers, exact in f64"
    )]
    let (min, max) = (WINDOW_MIN as f64, WINDOW_MAX as f64);
    if value < min {
        return Some(WINDOW_MIN);
    }
    if value > max {
        return Some(WINDOW_MAX);
    }
    Some(js_round(value))
}

/// `Math.round` for a finite value in `[0, 2^53]` (half rounds up).
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "callers pass finite values in [0, 2^53], exact as u64"
)]
pub(crate) fn js_round(value: f64) -> u64 {
    (value + 0.5).floor() as u64
}

/// Claude's env truthiness: `1`, `true`, `yes`, `on`, trimmed, any case.
pub(crate) fn truthy(raw: Option<&str>) -> bool {
    raw.is_some_and(|v| {
        let v = trim(v).to_ascii_lowercase();
        matches!(v.as_str(), "1" | "true" | "yes" | "on")
    })
}

/// JavaScript's truthiness of a JSON value: `false`, `0`, `""` and `null` are falsy.
pub(crate) fn json_truthy(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// A JSON number that JavaScript sees as an integer in `[0, 2^53]`, as `u64`.
pub(crate) fn json_whole(value: &serde_json::Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return (n <= MAX_SAFE).then_some(n);
    }
    let f = value.as_f64()?;
    #[allow(clippy::cast_precision_loss, reason = "2^53 is exact in f64")]
    let in_range = f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= MAX_SAFE as f64;
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "checked: a whole number in [0, 2^53]"
    )]
    in_range.then_some(f as u64)
}

/// `Number.MAX_SAFE_INTEGER`.
pub(crate) const MAX_SAFE: u64 = (1 << 53) - 1;
