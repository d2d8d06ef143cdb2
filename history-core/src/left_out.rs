//! Bodies a decoder leaves in their files: which ones ([`LeaveOut`]), the placeholder that
//! stands for each in the transcript, and where its line lies ([`LeftOut`]), so that a
//! [`BodySource`](crate::BodySource) can read it again. A decode then holds a session's
//! small texts, never its large ones.

use std::ops::Range;

use crate::model::{Body, Role};

/// Which bodies a decoder leaves in their files: every body whose texts (a text, a call's
/// input, a result's text) are at least `min_bytes` long, from the files the caller can
/// read again (`files`). `literal`: the text a search will look for, noted of each body left out
/// ([`LeftOut::holds`]) while the decoder has it, so that search need not read it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaveOut<'a> {
    /// The least size, in bytes, of a body left out.
    pub min_bytes: usize,
    /// The literal (case kept) a search of the history will look for, if any.
    pub literal: Option<&'a str>,
    /// For each file the decoder reads, in the order it numbers them, whether its bodies
    /// may be left in it (the caller can read it again); a file past the end may not.
    pub files: &'a [bool],
}

impl LeaveOut<'_> {
    /// True when bodies may be left in file `file`.
    pub fn from(&self, file: usize) -> bool {
        self.files.get(file).copied().unwrap_or(false)
    }

    /// True when `body`, read from file `file`, is left out.
    pub fn takes(&self, file: usize, body: &Body) -> bool {
        self.from(file) && texts_len(body) >= self.min_bytes
    }

    /// True when a line of `len` bytes of file `file` may yield a body left out (a
    /// decoder fingerprints only those lines).
    pub fn may_take(&self, file: usize, len: usize) -> bool {
        self.from(file) && len >= self.min_bytes
    }

    /// What a decoder keeps of a body it leaves out on line `line` of file `file` (the
    /// `event`-th event that line yields), and the placeholder it keeps in its place.
    fn leave(&self, body: Body, file: usize, line: &LineAt, event: usize) -> (Body, LeftOut) {
        let holds = self.literal.is_some_and(|l| texts_hold(&body, l));
        let blank = matches!(&body, Body::Text { text } if blank(text));
        let left = LeftOut {
            file,
            span: line.span.clone(),
            number: line.number,
            event,
            fingerprint: line.fingerprint,
            holds,
            blank,
        };
        (placeholder(body), left)
    }

    /// Leaves out each of `events` (what line `line` of file `file` yields, in order) that
    /// [`LeaveOut::takes`], in place: its placeholder put where it was, and where each lies
    /// and what was noted of it returned, one entry per event, or none at all when no body
    /// is left out.
    pub fn leave_in(
        &self,
        events: &mut [(Role, Body)],
        file: usize,
        line: &LineAt,
    ) -> Vec<Option<LeftOut>> {
        if !events.iter().any(|(_, body)| self.takes(file, body)) {
            return Vec::new();
        }
        let mut left = Vec::with_capacity(events.len());
        for (event, (_, body)) in events.iter_mut().enumerate() {
            left.push(self.takes(file, body).then(|| {
                let whole = std::mem::replace(
                    body,
                    Body::Text {
                        text: String::new(),
                    },
                );
                let (kept, place) = self.leave(whole, file, line, event);
                *body = kept;
                place
            }));
        }
        left
    }
}

/// A line a body was left in: where its text lies in its file, its 1-based number, and its
/// [`line_fingerprint`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineAt {
    /// Where the line's text lies in the file's bytes ([`FileLine::span`](crate::FileLine)).
    pub span: Range<usize>,
    /// Its 1-based number.
    pub number: usize,
    /// [`line_fingerprint`] of its text.
    pub fingerprint: u128,
}

/// Where a body a decoder left out lies, and what the decoder noted of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// Its file: the index the decoder gives it among the files it read.
    pub file: usize,
    /// Where its line's text lies in the file's bytes.
    pub span: Range<usize>,
    /// The line's 1-based number (for refusals).
    pub number: usize,
    /// Its index among the events its line yields.
    pub event: usize,
    /// [`line_fingerprint`] of its line, which a read of it must find again.
    pub fingerprint: u128,
    /// True when its texts hold [`LeaveOut::literal`] (false when none was given).
    pub holds: bool,
    /// True for a text that is blank (the flag
    /// [`History::with_bodies`](crate::History::with_bodies) takes).
    pub blank: bool,
}

/// The fingerprint of a line's text that a body's read must find again: its xxh3-128 (a
/// line changed under a reader is refused, never shown as another).
pub fn line_fingerprint(text: &str) -> u128 {
    twox_hash::xxh3::hash128(text.as_bytes())
}

/// The bytes of the texts a search looks in: a text's, a call's input's, a result's text's.
pub fn texts_len(body: &Body) -> usize {
    match body {
        Body::Text { text } | Body::ToolResult { text, .. } => text.len(),
        Body::ToolCall { input, .. } => input.len(),
    }
}

/// True when the texts a search looks in hold `literal` (case kept).
pub fn texts_hold(body: &Body, literal: &str) -> bool {
    match body {
        Body::Text { text } | Body::ToolResult { text, .. } => text.contains(literal),
        Body::ToolCall { input, .. } => input.contains(literal),
    }
}

/// True when a text is blank (only whitespace): what lists pass over, and the flag a
/// placeholder of a text carries ([`History::with_bodies`](crate::History::with_bodies)).
pub fn blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// The placeholder of a body left out: its kind, a call's id and name, a result's id and
/// error flag; its texts empty.
pub fn placeholder(body: Body) -> Body {
    match body {
        Body::Text { .. } => Body::Text {
            text: String::new(),
        },
        Body::ToolCall { id, name, .. } => Body::ToolCall {
            id,
            name,
            input: String::new(),
        },
        Body::ToolResult { id, is_error, .. } => Body::ToolResult {
            id,
            text: String::new(),
            is_error,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{LeaveOut, LineAt, line_fingerprint, placeholder};
    use crate::model::{Body, Role};

    #[test]
    fn a_large_body_leaves_its_place_and_what_was_noted_and_keeps_its_ids() {
        let leave = LeaveOut {
            min_bytes: 4,
            literal: Some("needle"),
            files: &[true, true, false],
        };
        let line = LineAt {
            span: 10..40,
            number: 3,
            fingerprint: line_fingerprint("the line"),
        };
        let call = Body::ToolCall {
            id: "c1".into(),
            name: "bash".into(),
            input: "a needle".into(),
        };
        assert!(leave.takes(1, &call) && leave.may_take(1, 4));
        assert!(!leave.takes(2, &call) && !leave.takes(3, &call) && !leave.may_take(2, 40));
        assert!(leave.from(0) && !leave.from(2) && !leave.from(3));
        let small = Body::ToolResult {
            id: "c1".into(),
            text: "ok".into(),
            is_error: true,
        };
        assert!(!leave.takes(0, &small) && !leave.may_take(0, 3));
        let (kept, left) = leave.leave(call, 1, &line, 2);
        assert_eq!(
            kept,
            Body::ToolCall {
                id: "c1".into(),
                name: "bash".into(),
                input: String::new()
            }
        );
        assert_eq!(
            (left.file, left.span, left.number, left.event),
            (1, 10..40, 3, 2)
        );
        assert!(left.holds && !left.blank);
        let blank = Body::Text {
            text: "      ".into(),
        };
        let (_, left) = leave.leave(blank, 0, &line, 0);
        assert!(left.blank && !left.holds);
        // In place, over a line's events: one entry each, or none when nothing is taken.
        let mut events = vec![
            (Role::Assistant, Body::Text { text: "ok".into() }),
            (
                Role::Tool,
                Body::ToolResult {
                    id: "c1".into(),
                    text: "a needle".into(),
                    is_error: false,
                },
            ),
        ];
        let left = leave.leave_in(&mut events, 0, &line);
        assert_eq!(
            left.iter().map(Option::is_some).collect::<Vec<_>>(),
            [false, true]
        );
        assert_eq!(
            left[1].as_ref().map(|l| (l.event, l.holds)),
            Some((1, true))
        );
        assert_eq!(events[0].1, Body::Text { text: "ok".into() });
        assert_eq!(
            events[1].1,
            Body::ToolResult {
                id: "c1".into(),
                text: String::new(),
                is_error: false
            }
        );
        assert!(leave.leave_in(&mut events[..1], 0, &line).is_empty());
        assert_eq!(
            placeholder(small),
            Body::ToolResult {
                id: "c1".into(),
                text: String::new(),
                is_error: true
            }
        );
    }
}
