//! A history tool's refusal in the CLI's words: the flag at fault and the fix, never the
//! tool's field names.

use notesoup_app::AppError;
use notesoup_history_core::{MAX_LIMIT, QueryError};

use crate::CliError;

/// A history call refused: arguments that do not fit the session in the CLI's words,
/// anything else as the library says it.
pub(crate) fn history_error(err: AppError) -> CliError {
    match err {
        AppError::Query(query) => refused(&query),
        err => err.into(),
    }
}

/// A history tool's refusal in the CLI's words: the flag at fault and the fix.
pub(crate) fn refused(error: &QueryError) -> CliError {
    let (message, fix) = match error {
        QueryError::EmptyQuery => (
            "the search text is empty".to_owned(),
            "give the text to find, e.g. `notesoup history search TEXT`".to_owned(),
        ),
        QueryError::Limit { limit } => (
            format!("--limit {limit} is out of range"),
            format!("use 1 to {MAX_LIMIT}"),
        ),
        // Written as no cursor is: the command line's fault (exit 2).
        QueryError::Cursor { cursor } if !cursor_form(cursor) => (
            format!(
                "--cursor {cursor} is not a cursor: one is `s` and an event's seq (s40), as the footer names it"
            ),
            "give the --cursor the footer named, or run the command again without it".to_owned(),
        ),
        // A cursor at an event this session does not hold: a run that found nothing (exit 1),
        // as a --seq it does not hold.
        QueryError::Cursor { cursor } => {
            return CliError::Refused {
                code: "unknown_cursor",
                message: format!("--cursor {cursor} is not an event of this session"),
                fix: "give the --cursor the footer named, or run the command again without it"
                    .to_owned(),
            };
        }
        QueryError::Window { window, known } => (
            format!("--window {window} is not a window of this session"),
            format!("give one of its windows: {known}"),
        ),
        QueryError::SeqNotFound { seq, first, last } => (
            format!("--seq {seq} is not an event of this session"),
            format!("its events run from {first} to {last}"),
        ),
        QueryError::Offset { offset, seq, len } => (
            format!("--offset {offset} is past the end of event {seq} ({len} bytes)"),
            format!("give --offset 0 to {len}, or leave it out"),
        ),
        QueryError::Unreadable { seq, reason } => (
            format!("event {seq} cannot be read: {reason}"),
            "the session changed while it was read: run the command again".to_owned(),
        ),
        other => (
            other.to_string(),
            "see `notesoup history --help`".to_owned(),
        ),
    };
    CliError::Refused {
        code: error.code(),
        message,
        fix,
    }
}

/// Whether `cursor` is written as a cursor is: `s` and a seq.
fn cursor_form(cursor: &str) -> bool {
    cursor
        .strip_prefix('s')
        .is_some_and(|seq| !seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit()))
}
