//! What the JSONL decoders share: the file they are given, and the refusal of a committed
//! line that is not UTF-8 or not JSON.

/// One session file as the caller read it: its path or name (named in every refusal) and
/// its bytes. The Pi and Codex decoders take it (`PiFile`, `CodexFile` name it there).
#[derive(Debug, Clone, Copy)]
pub struct SessionFile<'a> {
    /// The file's path or name.
    pub name: &'a str,
    /// The file's bytes.
    pub bytes: &'a [u8],
}

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
