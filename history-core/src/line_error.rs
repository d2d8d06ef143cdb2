//! The refusals every JSONL decoder shares: a committed line that is not UTF-8 or not JSON.

/// A committed (newline-terminated) line of a session file that is not text or not JSON.
/// The Pi and Codex decoders wrap it (`PiError::Malformed`, `CodexError::Malformed`), so the
/// two refusals read the same whichever harness wrote the file.
///
/// ```
/// use notesoup_history_core::LineError;
///
/// let err = LineError::Utf8 { file: "s.jsonl".into(), line: 2 };
/// assert_eq!(err.to_string(), "s.jsonl:2: the line is not valid UTF-8");
/// assert_eq!((err.line(), err.code()), (2, "transcript_malformed"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The line is not valid UTF-8.
    #[error("{file}:{line}: the line is not valid UTF-8")]
    Utf8 {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
    },
    /// The line is not JSON.
    #[error("{file}:{line}: the line is not valid JSON ({message})")]
    Json {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// The JSON parser's account.
        message: String,
    },
}

impl LineError {
    /// The 1-based line at fault.
    pub fn line(&self) -> usize {
        match self {
            LineError::Utf8 { line, .. } | LineError::Json { line, .. } => *line,
        }
    }

    /// The reply code: `transcript_malformed`, as the Claude decoder names a malformed line.
    pub fn code(&self) -> &'static str {
        "transcript_malformed"
    }
}
