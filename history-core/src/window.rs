//! The one home of the window id and the boot marker line.
//!
//! A window is one context window of one session: `<host>:<sessionId>:<ordinal>`, ordinal
//! 0 being the session's first window (history may also name
//! `<host>:<sessionId>:unknown:<missingId>` segments: see [`crate::Window`]). A boot
//! block opens with the marker line `<notesoup-boot window="<id>">` and closes with the
//! line `</notesoup-boot>`. Everything that writes or reads either (boot, the decoders,
//! the reset flow, the helper, the end-to-end tests) goes through this module; the hooks
//! module parses neither.
//!
//! ```
//! use notesoup_history_core::window::{WindowId, retained_window};
//!
//! let w = WindowId::new("claude", "6e9d0c1a", 2)?;
//! assert_eq!(w.marker_line(), "<notesoup-boot window=\"claude:6e9d0c1a:2\">");
//! let kept = format!("{}\nnotes\n</notesoup-boot>\nhandoff", w.marker_line());
//! assert_eq!(retained_window(&kept), Some(w.clone()));
//! assert_eq!(w.next().to_string(), "claude:6e9d0c1a:3");
//! # Ok::<(), notesoup_history_core::window::WindowIdError>(())
//! ```

use std::fmt;
use std::str::FromStr;

/// What a boot's marker line starts with; the window id and `">` follow.
pub const MARKER_OPEN: &str = "<notesoup-boot window=\"";
/// The line that closes a boot block.
pub const MARKER_CLOSE: &str = "</notesoup-boot>";

/// What a session's transcript says about the window the session is in now: what a new
/// process rebuilds its window state from when the session has no usable record (first
/// start, a fork, a deleted or refused record). A decoder reads it off a transcript
/// (`notesoup-history-claude::window_facts`); the reset flow starts from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowFacts {
    /// The window the session is in: `<host>:<session>:<n>`. `None` when no ordinal can be
    /// known: the ancestry stops at a record the file lacks (a fork of a session that had
    /// no notesoup boot) and no boot re-anchors it.
    pub window: Option<WindowId>,
    /// The newest retained boot naming the highest ordinal, as written (in a fork, its
    /// session is the parent's); `None` when the selected branch holds no boot.
    pub boot: Option<WindowId>,
    /// Compact boundaries after that boot (after the root when there is no boot): 0 means
    /// the current window holds the boot. `None` when the ordinal is unknown.
    pub compactions_since_boot: Option<u64>,
    /// The session the newest boot names, when it is not this one (a fork, or a copied
    /// transcript).
    pub forked_from: Option<String>,
}

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
/// what follows the last one), so the id can sit in the boot's marker line as is.
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

    /// The window after this one in the same session.
    #[must_use]
    pub fn next(&self) -> Self {
        Self {
            ordinal: self.ordinal.saturating_add(1),
            ..self.clone()
        }
    }

    /// The same ordinal in another session of the same host (a fork's copied boot).
    pub fn in_session(&self, session: &str) -> Result<Self, WindowIdError> {
        Self::new(&self.host, session, self.ordinal)
    }

    /// The boot's marker line, `<notesoup-boot window="<id>">`.
    pub fn marker_line(&self) -> String {
        format!("{MARKER_OPEN}{self}\">")
    }

    /// The window id in a boot's marker line, `None` when `line` is not one (trailing
    /// whitespace allowed).
    pub fn from_marker_line(line: &str) -> Option<Self> {
        marker_id(line)?.parse().ok()
    }
}

/// The raw id between the quotes of a marker line (numbered or `unknown:` ids alike),
/// `None` when `line` is not a marker line.
fn marker_id(line: &str) -> Option<&str> {
    line.trim_end()
        .strip_prefix(MARKER_OPEN)?
        .strip_suffix("\">")
}

/// The window a retained boot names when `text`'s **first line** is a marker line: the
/// whole id as written and its ordinal (`None` for an `unknown:` window or no number).
pub fn boot_marker(text: &str) -> Option<(&str, Option<u64>)> {
    let id = marker_id(text.lines().next()?)?;
    let ordinal = id.rsplit(':').next().and_then(|n| n.parse().ok());
    Some((id, ordinal))
}

/// The window of the first **complete** boot block in `text`: a marker line at the start
/// of a line naming a valid numbered id, followed later by a [`MARKER_CLOSE`] line.
pub fn retained_window(text: &str) -> Option<WindowId> {
    text.match_indices(MARKER_OPEN)
        .map(|(at, _)| at)
        .filter(|&at| at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n'))
        .find_map(|at| {
            let mut lines = text[at..].lines();
            let id = WindowId::from_marker_line(lines.next()?)?;
            lines.any(|l| l.trim() == MARKER_CLOSE).then_some(id)
        })
}

/// The window a conversation is in by the boots it keeps: of `windows` (the kept boots'
/// windows, oldest first), the newest of those naming the highest ordinal. The one rule for
/// it: a transcript's window facts and a live conversation's kept boots both read by it.
///
/// ```
/// use notesoup_history_core::window::{WindowId, newest_highest};
///
/// let w = |s: &str| s.parse::<WindowId>().unwrap();
/// let kept = [w("claude:a:1"), w("claude:b:2"), w("claude:a:0"), w("claude:c:2")];
/// assert_eq!(newest_highest(kept), Some(w("claude:c:2")));
/// assert_eq!(newest_highest([]), None);
/// ```
pub fn newest_highest(windows: impl IntoIterator<Item = WindowId>) -> Option<WindowId> {
    windows.into_iter().fold(None, |best, w| match best {
        Some(b) if b.ordinal() > w.ordinal() => Some(b),
        _ => Some(w),
    })
}

/// Where the first complete boot block of `text` (as [`retained_window`] finds it) sits:
/// its window and the byte range from its marker line to the end of its
/// [`MARKER_CLOSE`] line (the line break after it excluded). What cuts a boot out of a
/// larger text, e.g. an engine attachment holding several context blocks.
///
/// ```
/// use notesoup_history_core::window::boot_block;
///
/// let text = "# notesoup\n<notesoup-boot window=\"claude:s1:0\">\nnotes\n</notesoup-boot>\n\nmore";
/// let (window, range) = boot_block(text).unwrap();
/// assert_eq!(window.to_string(), "claude:s1:0");
/// assert_eq!(&text[..range.start], "# notesoup\n");
/// assert_eq!(&text[range.end..], "\n\nmore");
/// ```
pub fn boot_block(text: &str) -> Option<(WindowId, std::ops::Range<usize>)> {
    text.match_indices(MARKER_OPEN)
        .map(|(at, _)| at)
        .filter(|&at| at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n'))
        .find_map(|at| {
            let first = text[at..].lines().next()?;
            let id = WindowId::from_marker_line(first)?;
            // The close line: MARKER_CLOSE alone on a line (surrounding spaces allowed).
            let mut offset = at;
            for line in text[at..].split_inclusive('\n') {
                let bare = line.trim_end_matches(['\n', '\r']);
                if offset > at && bare.trim() == MARKER_CLOSE {
                    return Some((id, at..offset + bare.len()));
                }
                offset += line.len();
            }
            None
        })
}

/// Every window id named by a marker opening anywhere in `text` (line start or not,
/// complete block or not), in order: what counts copies of a boot in a request.
pub fn marker_ids(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices(MARKER_OPEN).filter_map(move |(at, _)| {
        let rest = &text[at + MARKER_OPEN.len()..];
        rest.find('"').map(|end| &rest[..end])
    })
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
            .parse()
            .map_err(|_| bad("the ordinal is too large"))?;
        Ok(Self {
            host: host.to_owned(),
            session: session.to_owned(),
            ordinal,
        })
    }
}

#[cfg(test)]
mod tests;
