//! Sessions across harnesses: `<harness>:<sessionId>` selectors (a unique id prefix is
//! enough), the recent-sessions listing, and the boot marker every decoder recognises.
//!
//! This module is pure: the helper finds the session files and reads their first bytes; here the
//! selector is parsed, resolved against the ids the helper found, and the listing rendered
//! within [`ANSWER_LIMIT`]. `docs/history-sessions.md` is the user-facing page.

use std::fmt::Write as _;

use crate::budget::{ANSWER_LIMIT, AnswerWriter, BudgetedText, bounded_lead};
use notesoup_window::Host;

/// How many sessions one listing shows by default.
pub const SESSIONS_DEFAULT: usize = 20;
/// The most sessions one listing may ask for.
pub const SESSIONS_MAX: usize = 200;
/// Characters of a session's first prompt a listing line shows.
pub const PROMPT_CHARS: usize = 100;

/// How many sessions a listing shows: `limit` as asked (1 to [`SESSIONS_MAX`]), or
/// [`SESSIONS_DEFAULT`] when not given; out of range is refused.
///
/// ```
/// use notesoup_history_core::{SESSIONS_DEFAULT, SESSIONS_MAX, sessions_limit};
/// assert_eq!(sessions_limit(None), Ok(SESSIONS_DEFAULT));
/// assert_eq!(sessions_limit(Some(SESSIONS_MAX)), Ok(SESSIONS_MAX));
/// assert_eq!(sessions_limit(Some(0)).unwrap_err().to_string(), "`limit` 0 is outside 1..=200");
/// ```
pub fn sessions_limit(limit: Option<usize>) -> Result<usize, SessionsLimit> {
    let limit = limit.unwrap_or(SESSIONS_DEFAULT);
    if (1..=SESSIONS_MAX).contains(&limit) {
        Ok(limit)
    } else {
        Err(SessionsLimit { limit })
    }
}

/// A listing's `limit` out of range ([`sessions_limit`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`limit` {limit} is outside 1..={SESSIONS_MAX}")]
pub struct SessionsLimit {
    /// The limit given.
    pub limit: usize,
}

/// A parsed `<harness>:<sessionId>` selector; `id` may be a prefix of the real id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    /// The harness the session belongs to.
    pub harness: Host,
    /// The session id, or a prefix of it.
    pub id: String,
}

/// Why a selector names no single session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectorError {
    /// No `<harness>:` part.
    #[error(
        "session selector `{0}` has no harness: write `claude:<id>`, `pi:<id>` or `codex:<id>`"
    )]
    NoHarness(String),
    /// A harness notesoup does not read.
    #[error(
        "session selector `{selector}` names the unknown harness `{harness}`; known: claude, pi, codex"
    )]
    UnknownHarness {
        /// The whole selector.
        selector: String,
        /// The harness part.
        harness: String,
    },
    /// Nothing after the colon, or characters no session id has.
    #[error("session selector `{0}` has no valid session id (letters, digits, `-` and `_` only)")]
    BadId(String),
    /// No session of that harness has this id or prefix.
    #[error(
        "no {harness} session has the id or prefix `{id}` ({known} {harness} session{} found)",
        if *known == 1 { "" } else { "s" }
    )]
    Unknown {
        /// The harness.
        harness: Host,
        /// The id or prefix asked for.
        id: String,
        /// How many sessions of the harness were found.
        known: usize,
    },
    /// The prefix fits several sessions.
    #[error(
        "session prefix `{harness}:{id}` is ambiguous: it fits {count} sessions, e.g. {examples}; give more of the id"
    )]
    Ambiguous {
        /// The harness.
        harness: Host,
        /// The prefix asked for.
        id: String,
        /// How many ids fit.
        count: usize,
        /// Up to five of them, comma separated.
        examples: String,
    },
    /// A bare id (no harness) no session of any harness has, as id or prefix.
    #[error("no session of any harness (claude, pi, codex) has the id or prefix `{id}`")]
    UnknownAnywhere {
        /// The id or prefix asked for.
        id: String,
    },
    /// A bare id that fits several sessions.
    #[error(
        "session id `{id}` fits several sessions: {examples}; give more of the id, or name one as <harness>:<id>"
    )]
    AmbiguousAnywhere {
        /// The id or prefix asked for.
        id: String,
        /// The sessions it fits, comma separated.
        examples: String,
    },
}

impl SelectorError {
    /// A stable `snake_case` code for replies: `bad_session`, `not_found` or
    /// `ambiguous_session`.
    pub fn code(&self) -> &'static str {
        match self {
            SelectorError::NoHarness(_)
            | SelectorError::UnknownHarness { .. }
            | SelectorError::BadId(_) => "bad_session",
            SelectorError::Unknown { .. } | SelectorError::UnknownAnywhere { .. } => "not_found",
            SelectorError::Ambiguous { .. } | SelectorError::AmbiguousAnywhere { .. } => {
                "ambiguous_session"
            }
        }
    }
}

impl Selector {
    /// Whether `id` can be a session id (or a prefix of one) in a selector: one or more ASCII
    /// letters, digits, `-` or `_`. Text that is not (a path, a glob) is refused as given.
    ///
    /// ```
    /// use notesoup_history_core::Selector;
    /// assert!(Selector::is_id("6e9d0000-0000-4000"));
    /// assert!(!Selector::is_id("../x") && !Selector::is_id(""));
    /// ```
    #[must_use]
    pub fn is_id(id: &str) -> bool {
        !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
    }

    /// Parses `claude:<id>`, `pi:<id>` or `codex:<id>` (the id may be a prefix).
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        let text = text.trim();
        let Some((name, id)) = text.split_once(':') else {
            return Err(SelectorError::NoHarness(text.to_owned()));
        };
        let harness = Host::harness(name).map_err(|_| SelectorError::UnknownHarness {
            selector: text.to_owned(),
            harness: name.to_owned(),
        })?;
        if !Selector::is_id(id) {
            return Err(SelectorError::BadId(text.to_owned()));
        }
        Ok(Selector {
            harness,
            id: id.to_owned(),
        })
    }

    /// The one id among `ids` this selector names: the exact id when present, else the one
    /// id equal to it but for ASCII case, else the only id it is a prefix of, case ignored
    /// (session ids are UUIDs, which are case-insensitive: `11111111-AAAA` names
    /// `11111111-aaaa-…`). `ids` are the ids of this selector's harness.
    pub fn resolve<'a, I>(&self, ids: I) -> Result<&'a str, SelectorError>
    where
        I: IntoIterator<Item = &'a str>,
    {
        let mut known = 0;
        let mut fits: Vec<&'a str> = Vec::new();
        for id in ids {
            known += 1;
            if id == self.id {
                return Ok(id);
            }
            let prefix = id
                .get(..self.id.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(&self.id));
            if prefix && !fits.contains(&id) {
                fits.push(id);
            }
        }
        let same: Vec<&'a str> = fits
            .iter()
            .copied()
            .filter(|id| id.len() == self.id.len())
            .collect();
        if let [one] = same.as_slice() {
            return Ok(one);
        }
        match fits.as_slice() {
            [one] => Ok(one),
            [] => Err(SelectorError::Unknown {
                harness: self.harness,
                id: self.id.clone(),
                known,
            }),
            many => {
                let mut sorted = many.to_vec();
                sorted.sort_unstable();
                Err(SelectorError::Ambiguous {
                    harness: self.harness,
                    id: self.id.clone(),
                    count: many.len(),
                    examples: sorted
                        .iter()
                        .take(5)
                        .map(|id| format!("{}:{id}", self.harness))
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            }
        }
    }
}

/// One line of the recent-sessions listing, read from the start of a session's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// The harness the session belongs to.
    pub harness: Host,
    /// The harness's session id.
    pub id: String,
    /// When the session started, as the harness wrote it (ISO 8601), if known.
    pub started: Option<String>,
    /// The working directory the session ran in, if recorded.
    pub cwd: Option<String>,
    /// The first prompt a person typed, if any.
    pub first_prompt: Option<String>,
    /// The session this one was forked from, as a selector (`pi:<id>`), if any.
    pub parent: Option<String>,
    /// Why the file's start could not be read, when it could not (the session is still listed).
    pub unreadable: Option<String>,
    /// The harness no longer has the session's file: it is read from notesoup's vault.
    pub vault_only: bool,
    /// When it was last active (milliseconds since the Unix epoch), if known: the last time
    /// its file records, else when the file was last written; the listing's order, newest
    /// first.
    pub updated: Option<u64>,
}

impl SessionSummary {
    /// The listing line of `harness`'s session `id` with nothing yet read from its file.
    pub fn new(harness: Host, id: impl Into<String>) -> Self {
        Self {
            harness,
            id: id.into(),
            started: None,
            cwd: None,
            first_prompt: None,
            parent: None,
            unreadable: None,
            vault_only: false,
            updated: None,
        }
    }

    /// The session's selector, `<harness>:<id>` (what `session` takes).
    pub fn selector(&self) -> String {
        crate::SessionRef {
            harness: self.harness,
            id: self.id.clone(),
        }
        .to_string()
    }
}

/// Renders the recent-sessions listing: `sessions` newest first (the caller sorts), at most
/// `limit` of them, within [`ANSWER_LIMIT`], opening with a front end's `lead` (`""` for
/// none; at most [`LEAD_LIMIT`](crate::LEAD_LIMIT) bytes of it, as `History::led` takes
/// one). `total` is how many sessions were found in all. Returns the text and how many
/// sessions it shows.
pub fn render_sessions(
    sessions: &[SessionSummary],
    limit: usize,
    total: usize,
    lead: &str,
) -> (BudgetedText, usize) {
    let limit = limit.clamp(1, SESSIONS_MAX);
    let mut writer = AnswerWriter::new(ANSWER_LIMIT, 200);
    writer.push(bounded_lead(lead));
    let mut shown = 0;
    if sessions.is_empty() {
        writer.push("No sessions found.\n");
    } else {
        writer.push("Sessions, most recently active first (read one with session=\"<harness>:<id>\"; a unique id prefix is enough):\n");
    }
    for session in sessions.iter().take(limit) {
        if !writer.push(&summary_line(session)) {
            break;
        }
        shown += 1;
    }
    // A larger `limit` shows more only when the limit, not the answer's size, ended it.
    let footer = if shown >= total {
        String::new()
    } else if shown == limit && limit < SESSIONS_MAX {
        format!(
            "({shown} of {total} sessions shown; ask with a larger `limit` (at most {SESSIONS_MAX}) or a `harness` filter)\n"
        )
    } else {
        format!(
            "({shown} of {total} sessions shown, as many as one answer holds; a `harness` filter narrows them)\n"
        )
    };
    (writer.finish(&footer), shown)
}

/// One listing line: `pi:<id>  active <updated>  started <started>  cwd=<cwd>  [fork of
/// pi:<id>]  "<first prompt>"`. The listing's order is the first time's (a resumed session
/// is active long after it started).
fn summary_line(session: &SessionSummary) -> String {
    let mut line = session.selector();
    if let Some(updated) = session.updated {
        let _ = write!(
            line,
            "  active {}",
            notesoup_window::format_rfc3339(updated)
        );
    }
    // One shape of time on the line: whole seconds in UTC, as `active`'s (the harness's own
    // text only when it is no moment).
    let started = session.started.as_deref().map(|text| {
        notesoup_window::parse_moment(text)
            .map_or_else(|| text.to_owned(), notesoup_window::format_rfc3339)
    });
    let _ = write!(
        line,
        "  started {}",
        started.as_deref().unwrap_or("unknown")
    );
    if let Some(cwd) = &session.cwd {
        let _ = write!(line, "  cwd={cwd}");
    }
    if let Some(parent) = &session.parent {
        let _ = write!(line, "  fork of {parent}");
    }
    if session.vault_only {
        line.push_str("  (vault only: the harness deleted its file)");
    }
    if let Some(reason) = &session.unreadable {
        let _ = write!(line, "  unreadable: {}", fold(reason, PROMPT_CHARS));
    } else {
        match &session.first_prompt {
            Some(prompt) => {
                let _ = write!(line, "  \"{}\"", fold(prompt, PROMPT_CHARS));
            }
            None => line.push_str("  (no prompt yet)"),
        }
    }
    line.push('\n');
    line
}

/// `text` on one line (whitespace runs become one space), cut to `max` chars with `…`.
fn fold(text: &str, max: usize) -> String {
    clip(text.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// `text` unchanged when it has at most `max` chars; else its first `max - 1` chars and
/// `…` (`max` chars in all). For quoting input in a message without quoting all of it.
///
/// ```
/// use notesoup_history_core::clip;
///
/// assert_eq!(clip("short".into(), 5), "short");
/// assert_eq!(clip("één twee drie".into(), 6), "één t…");
/// ```
pub fn clip(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests;
