//! Why a transcript cannot be decoded: [`DecodeError`], each refusal naming its line or uuid.

/// Why a transcript cannot be decoded. Every variant names the line (1-based) or uuid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// A committed (newline-terminated) line that is not a JSON object with a `type`.
    #[error("line {line}: not a transcript record: {reason}")]
    Malformed {
        /// The line.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// A user/assistant/system/attachment row that does not fit its schema.
    #[error("line {line}: invalid {kind} row: {reason}")]
    Schema {
        /// The line.
        line: usize,
        /// The row's type.
        kind: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// The same uuid recorded twice with different content.
    #[error("line {line}: uuid {uuid} conflicts with its first record on line {first_line}")]
    Conflict {
        /// The line of the conflicting repeat.
        line: usize,
        /// The uuid.
        uuid: String,
        /// The line of the first record.
        first_line: usize,
    },
    /// A row of another session.
    #[error("line {line}: row of session {found} in a transcript of session {expected}")]
    SessionMismatch {
        /// The line.
        line: usize,
        /// The session the transcript belongs to.
        expected: String,
        /// The session the row names.
        found: String,
    },
    /// A sidechain row in a main transcript, or the other way round.
    #[error("line {line}: {} row in a {} transcript", side(*found), side(!*found))]
    SidechainMismatch {
        /// The line.
        line: usize,
        /// The row's `isSidechain`.
        found: bool,
    },
    /// `parentUuid` links that loop.
    #[error("line {line}: the parent links of uuid {uuid} form a cycle")]
    Cycle {
        /// The line of a row on the cycle.
        line: usize,
        /// Its uuid.
        uuid: String,
    },
    /// The live head is not in the file yet (the write lags): retry shortly.
    #[error("head {head} is not in the transcript yet (the write may lag); retry shortly")]
    HeadNotWritten {
        /// The head asked for.
        head: String,
    },
    /// No conversation row could be the head.
    #[error("no conversation row to start from")]
    NoLeaf,
    /// A line read again for a body no longer holds the row first decoded from it: the
    /// transcript was rewritten while it was read.
    #[error(
        "line {line} no longer holds the row decoded from it: the transcript changed while it was read; retry"
    )]
    Changed {
        /// The line.
        line: usize,
    },
    /// The transcript's reader failed ([`decode_from`](crate::decode_from)).
    #[error("line {line}: the transcript cannot be read: {message}")]
    Read {
        /// The 1-based line being read.
        line: usize,
        /// The reader's account.
        message: String,
    },
}

fn side(sidechain: bool) -> &'static str {
    if sidechain { "sidechain" } else { "main" }
}

impl DecodeError {
    /// A stable `snake_case` code.
    pub fn code(&self) -> &'static str {
        match self {
            DecodeError::Malformed { .. } => "transcript_malformed",
            DecodeError::Schema { .. } => "transcript_schema",
            DecodeError::Conflict { .. } => "transcript_conflict",
            DecodeError::SessionMismatch { .. } => "session_mismatch",
            DecodeError::SidechainMismatch { .. } => "sidechain_mismatch",
            DecodeError::Cycle { .. } => "transcript_cycle",
            DecodeError::HeadNotWritten { .. } => "head_not_written",
            DecodeError::NoLeaf => "no_leaf",
            DecodeError::Changed { .. } => "transcript_changed",
            DecodeError::Read { .. } => "io_error",
        }
    }

    /// True when the same call may succeed shortly (the file is still being written).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            DecodeError::HeadNotWritten { .. } | DecodeError::Changed { .. }
        )
    }
}
