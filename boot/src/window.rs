//! [`WindowId`]: `<host>:<sessionId>:<ordinal>`, ordinal 0 being a session's first window.

use std::fmt;
use std::str::FromStr;

use crate::BootError;

/// One context window of one session on one host, e.g. `claude:6e9d0c1a-...:2`.
///
/// The host is lowercase ASCII letters and digits; the session id is anything without
/// whitespace, control characters, `"`, `<`, `>` or `&` (it may hold `:`; the ordinal is
/// what follows the last one), so the id can sit in the boot's opening line as is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WindowId {
    host: String,
    session: String,
    ordinal: u32,
}

impl WindowId {
    /// A window id from its parts, checked as [`FromStr`] checks them.
    pub fn new(host: &str, session: &str, ordinal: u32) -> Result<Self, BootError> {
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

    /// The window after this one in the same session.
    #[must_use]
    pub fn next(&self) -> Self {
        Self {
            ordinal: self.ordinal.saturating_add(1),
            ..self.clone()
        }
    }

    /// The boot's opening line, `<notesoup-boot window="<id>">`.
    pub fn marker_line(&self) -> String {
        format!("<notesoup-boot window=\"{self}\">")
    }

    /// The window id in a boot's opening line, `None` when `line` is not one.
    pub fn from_marker_line(line: &str) -> Option<Self> {
        line.trim_end()
            .strip_prefix("<notesoup-boot window=\"")?
            .strip_suffix("\">")?
            .parse()
            .ok()
    }
}

impl fmt::Display for WindowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.host, self.session, self.ordinal)
    }
}

impl FromStr for WindowId {
    type Err = BootError;

    fn from_str(s: &str) -> Result<Self, BootError> {
        let bad = |reason: &str| BootError::BadWindowId {
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
            .parse()
            .map_err(|_| bad("the ordinal is too large"))?;
        Ok(Self {
            host: host.to_owned(),
            session: session.to_owned(),
            ordinal,
        })
    }
}
