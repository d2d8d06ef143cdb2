//! The 32 KiB budget: one text wrapper that both checks and delivers.
//!
//! [`AnswerWriter`] is the only way to build an [`Answer`]'s text. Every append is checked
//! against the limit minus the room reserved for the footer, and the text it checked is
//! the text it delivers: nothing is clipped after the check, so a continuation footer is
//! never cut.

/// The most bytes of UTF-8 any answer may hold, notices and footers included.
pub const ANSWER_LIMIT: usize = 32 * 1024;

/// The most bytes a front end's lead takes of an answer (`History::led`,
/// `render_sessions`): a longer one is cut to it, so the page keeps the rest of the budget.
pub const LEAD_LIMIT: usize = 512;

/// `lead` as an answer opens with it: at most [`LEAD_LIMIT`] bytes, cut on a char boundary.
pub(crate) fn bounded_lead(lead: &str) -> &str {
    &lead[..floor_char_boundary(lead, LEAD_LIMIT)]
}

/// Text that is known to fit its budget. Only [`AnswerWriter::finish`] makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetedText(String);

impl BudgetedText {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// Builds text within a byte limit, with room kept for a footer.
#[derive(Debug)]
pub struct AnswerWriter {
    buf: String,
    limit: usize,
    reserve: usize,
}

impl AnswerWriter {
    /// A writer for at most `limit` bytes, keeping `reserve` bytes free for the footer
    /// given to [`finish`](Self::finish).
    pub fn new(limit: usize, reserve: usize) -> Self {
        Self {
            buf: String::new(),
            limit,
            reserve: reserve.min(limit),
        }
    }

    /// Bytes that body text may still take.
    pub fn room(&self) -> usize {
        (self.limit - self.reserve).saturating_sub(self.buf.len())
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends `text` whole if it fits; returns whether it did.
    pub fn push(&mut self, text: &str) -> bool {
        if text.len() <= self.room() {
            self.buf.push_str(text);
            true
        } else {
            false
        }
    }

    /// Appends the longest prefix of `text` that fits, ending on a char boundary; returns
    /// its length in bytes.
    pub fn push_prefix(&mut self, text: &str) -> usize {
        let end = floor_char_boundary(text, self.room());
        self.buf.push_str(&text[..end]);
        end
    }

    /// The final text: everything pushed, then `footer`. A footer longer than the reserve
    /// is shortened to fit (callers size the reserve for their longest footer, so this
    /// only guards the limit).
    pub fn finish(mut self, footer: &str) -> BudgetedText {
        let room = self.limit.saturating_sub(self.buf.len());
        let end = floor_char_boundary(footer, room);
        self.buf.push_str(&footer[..end]);
        BudgetedText(self.buf)
    }
}

/// The largest char boundary of `text` at or below `at`.
pub(crate) fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut end = at;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}
