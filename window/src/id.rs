//! [`WindowId`]: one numbered context window of one session, `<host>:<session>:<ordinal>`.

use std::fmt;
use std::str::FromStr;

use crate::marker;

/// The highest window ordinal notesoup accepts anywhere (a boot's marker line, a record, a
/// transcript): a billion windows, far past any session's life. A larger one is refused as
/// a fact, so an ordinal can always grow by one without wrapping or saturating: a window,
/// once closed, is never reopened.
pub const ORDINAL_MAX: u32 = 1_000_000_000;

/// A window id that is not `<host>:<sessionId>:<ordinal>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("bad window id `{input}`: {reason}")]
pub struct WindowIdError {
    /// The id as given.
    pub input: String,
    /// What is wrong with it.
    pub reason: String,
}

/// One numbered context window of one session on one host, e.g. `claude:6e9d0c1a-...:2`.
///
/// The host is lowercase ASCII letters and digits; the session id is anything without
/// whitespace, control characters, `"`, `<`, `>` or `&` (it may hold `:`; the ordinal is
/// what follows the last one), so the id can sit in the boot's marker line as is; the
/// ordinal is at most [`ORDINAL_MAX`].
///
/// ```
/// use notesoup_window::{ORDINAL_MAX, WindowId};
///
/// let w: WindowId = "pi:a:b:7".parse()?;
/// assert_eq!((w.host(), w.session(), w.ordinal()), ("pi", "a:b", 7));
/// assert_eq!(w.in_session("c")?.to_string(), "pi:c:7");
/// assert!(WindowId::new("claude", "s", ORDINAL_MAX + 1).is_err());
/// # Ok::<(), notesoup_window::WindowIdError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WindowId {
    host: String,
    session: String,
    ordinal: u32,
}

impl WindowId {
    /// A window id from its parts, checked as [`FromStr`] checks them.
    pub fn new(host: &str, session: &str, ordinal: u32) -> Result<Self, WindowIdError> {
        format!("{host}:{session}:{ordinal}").parse()
    }

    /// The host, e.g. `claude`.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// 0 for a session's first window, then one more per cleared window.
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// The same ordinal in another session of the same host (a fork's copied boot).
    pub fn in_session(&self, session: &str) -> Result<Self, WindowIdError> {
        Self::new(&self.host, session, self.ordinal)
    }

    /// The boot's marker line, `<notesoup-boot window="<id>">`.
    pub fn marker_line(&self) -> String {
        format!("{}{self}\">", marker::OPEN)
    }

    /// The window id in a boot's marker line, `None` when `line` is not one (trailing
    /// whitespace allowed).
    pub fn from_marker_line(line: &str) -> Option<Self> {
        marker::marker_id(line)?.parse().ok()
    }
}

impl fmt::Display for WindowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.host, self.session, self.ordinal)
    }
}

impl FromStr for WindowId {
    type Err = WindowIdError;

    fn from_str(s: &str) -> Result<Self, WindowIdError> {
        let bad = |reason: &str| WindowIdError {
            input: s.to_owned(),
            reason: reason.to_owned(),
        };
        let (host, rest) = s
            .split_once(':')
            .ok_or_else(|| bad("expected `<host>:<sessionId>:<ordinal>`"))?;
        let (session, ordinal) = rest
            .rsplit_once(':')
            .ok_or_else(|| bad("expected `<host>:<sessionId>:<ordinal>`"))?;
        if host.is_empty()
            || !host
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            return Err(bad("the host must be lowercase ASCII letters and digits"));
        }
        if session.is_empty() {
            return Err(bad("the session id is empty"));
        }
        if session
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>' | '&'))
        {
            return Err(bad(
                "the session id may not hold whitespace, control characters, `\"`, `<`, `>` or `&`",
            ));
        }
        if ordinal.is_empty() || !ordinal.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("the ordinal must be a non-negative integer"));
        }
        let ordinal = ordinal
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= ORDINAL_MAX)
            .ok_or_else(|| bad(&format!("the ordinal is too large (at most {ORDINAL_MAX})")))?;
        Ok(Self {
            host: host.to_owned(),
            session: session.to_owned(),
            ordinal,
        })
    }
}

#[cfg(test)]
mod tests;
