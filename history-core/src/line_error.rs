//! What the JSONL decoders share: the file they are given, its committed lines
//! ([`LineReader`], over a reader or bytes in memory: the one rule of which lines are read
//! and which are a write in progress), and the refusal of a committed line that is not
//! UTF-8 or not JSON.

use std::io::BufRead;
use std::ops::Range;

/// One session file as the caller read it: its path or name (named in every refusal) and
/// its bytes. The Pi and Codex decoders take it (`PiFile`, `CodexFile` name it there).
#[derive(Debug, Clone, Copy)]
pub struct SessionFile<'a> {
    /// The file's path or name.
    pub name: &'a str,
    /// The file's bytes.
    pub bytes: &'a [u8],
}

/// One line of a session file ([`LineReader::next_line`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLine<'a> {
    /// Its 1-based number, blank lines counted.
    pub number: usize,
    /// Where its text lies in the file's bytes.
    pub span: Range<usize>,
    /// Its text, without the line break or a `\r` before it.
    pub text: &'a str,
    /// True when a line break ends it (a committed line); only the file's last line may
    /// have none.
    pub terminated: bool,
}

impl FileLine<'_> {
    /// The refusal of this line in `file` when its text is not JSON (`why`, the parser's
    /// account): `None` for a final unterminated line, which is a write in progress and is
    /// passed over.
    pub fn not_json(&self, file: &str, why: impl std::fmt::Display) -> Option<LineError> {
        self.terminated.then(|| LineError::Json {
            file: file.to_owned(),
            line: self.number,
            message: why.to_string(),
        })
    }
}

/// A line's text without the `\r` before its break; `None` for a blank line (only ASCII
/// whitespace), which is passed over.
fn content(raw: &[u8]) -> Option<&[u8]> {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    (!raw.iter().all(u8::is_ascii_whitespace)).then_some(raw)
}

/// A session file's lines read one at a time, so a decoder holds one line of the file,
/// never the whole file (bytes in memory are a reader too: `&bytes[..]`). The one rule of
/// the JSONL decoders: a blank line (ASCII whitespace only) is passed over, and a `\r`
/// before a line break is not part of the text; a committed line that is not UTF-8 is
/// refused ([`LineError::Utf8`]); a final unterminated line that is not UTF-8 is a write in
/// progress, passed over (as one that is not whole JSON is: [`FileLine::not_json`]). A read
/// that fails is refused ([`LineError::Read`]); a refusal ends the lines. A line is as long
/// as the reader gives it: bound the reader (a file's size when opened, a decompression's
/// cap), and wrap it in [`Read::take`](std::io::Read::take) to read only a file's first bytes.
/// The crate opens nothing: the caller's reader is its only input.
///
/// ```
/// use notesoup_history_core::LineReader;
///
/// let mut lines = LineReader::new("s.jsonl", &b"{}\r\n\n  \n{\"a\":1}\n{\"b\""[..]);
/// let mut shown = Vec::new();
/// while let Some(line) = lines.next_line() {
///     let line = line?;
///     shown.push((line.number, line.text.to_owned(), line.terminated, line.span));
/// }
/// assert_eq!(shown[1], (4, "{\"a\":1}".to_owned(), true, 8..15));
/// assert_eq!(shown.len(), 3);
/// assert_eq!(lines.position(), 20); // every byte was read
/// # Ok::<(), notesoup_history_core::LineError>(())
/// ```
#[derive(Debug)]
pub struct LineReader<R> {
    name: String,
    reader: R,
    /// The line being read, its break included.
    buf: Vec<u8>,
    /// Bytes read so far: where the next line starts.
    at: usize,
    /// The number of the last line read.
    number: usize,
    /// The end was reached, or a refusal ended the lines.
    ended: bool,
    /// The last byte read.
    last: Option<u8>,
}

impl<R: BufRead> LineReader<R> {
    /// The lines of the file `name` (named in every refusal), read from `reader`.
    pub fn new(name: &str, reader: R) -> Self {
        Self {
            name: name.to_owned(),
            reader,
            buf: Vec::new(),
            at: 0,
            number: 0,
            ended: false,
            last: None,
        }
    }

    /// The next line that is not blank, borrowing it until the next call; `None` at the
    /// end. A committed line that is not UTF-8 is refused, and a refusal ends the lines; a
    /// final unterminated line that is not UTF-8 is a write in progress, passed over.
    pub fn next_line(&mut self) -> Option<Result<FileLine<'_>, LineError>> {
        let (start, len, terminated) = loop {
            if self.ended {
                return None;
            }
            self.buf.clear();
            let read = match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => {
                    self.ended = true;
                    return None;
                }
                Ok(read) => read,
                Err(err) => {
                    self.ended = true;
                    return Some(Err(LineError::Read {
                        file: self.name.clone(),
                        line: self.number + 1,
                        message: err.to_string(),
                    }));
                }
            };
            self.number += 1;
            let start = self.at;
            self.at += read;
            self.last = self.buf.last().copied();
            let terminated = self.buf.last() == Some(&b'\n');
            let raw = &self.buf[..read - usize::from(terminated)];
            if let Some(text) = content(raw) {
                break (start, text.len(), terminated);
            }
            self.skip_empty_lines();
        };
        if let Ok(text) = std::str::from_utf8(&self.buf[..len]) {
            return Some(Ok(FileLine {
                number: self.number,
                span: start..start + len,
                text,
                terminated,
            }));
        }
        self.ended = true;
        // Unterminated, it is the last line: a write in progress.
        terminated.then(|| {
            Err(LineError::Utf8 {
                file: self.name.clone(),
                line: self.number,
            })
        })
    }

    /// Passes over the empty lines (a bare line break each) at the start of the reader's
    /// buffer at once, as many as it holds: a file of line breaks alone (a zstd bomb of
    /// them, say) costs a buffer's scan, not a read, per line. A failed read is left to the
    /// next line's read to report.
    fn skip_empty_lines(&mut self) {
        let Ok(ahead) = self.reader.fill_buf() else {
            return;
        };
        let run = ahead.iter().take_while(|&&b| b == b'\n').count();
        if run > 0 {
            self.reader.consume(run);
            self.number += run;
            self.at += run;
        }
    }

    /// How many bytes were read: where the next line starts (after the last line, the
    /// file's length as read).
    pub fn position(&self) -> usize {
        self.at
    }

    /// The last byte read (`None` before any): with [`position`](Self::position), what
    /// shows that a file's first bytes end a line, blank lines included.
    ///
    /// ```
    /// use std::io::Read;
    /// use notesoup_history_core::LineReader;
    ///
    /// let bytes = b"{}\n\n  {}";
    /// let mut lines = LineReader::new("s.jsonl", bytes.take(4));
    /// while lines.next_line().is_some() {}
    /// assert_eq!((lines.position(), lines.last_byte()), (4, Some(b'\n')));
    /// let mut lines = LineReader::new("s.jsonl", bytes.take(6));
    /// while lines.next_line().is_some() {}
    /// assert_eq!((lines.position(), lines.last_byte()), (6, Some(b' ')));
    /// ```
    pub fn last_byte(&self) -> Option<u8> {
        self.last
    }

    /// The file's name, as given.
    pub fn name(&self) -> &str {
        &self.name
    }
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
    /// The file could not be read there ([`LineReader`]).
    #[error("{file}:{line}: the file could not be read: {message}")]
    Read {
        /// The file.
        file: String,
        /// The 1-based line being read.
        line: usize,
        /// The system's account.
        message: String,
    },
}

impl LineError {
    /// The 1-based line at fault.
    pub fn line(&self) -> usize {
        match self {
            LineError::Utf8 { line, .. }
            | LineError::Json { line, .. }
            | LineError::Read { line, .. } => *line,
        }
    }

    /// The reply code: `transcript_malformed`, as the Claude decoder names a malformed line;
    /// `io_error` for a read that failed.
    pub fn code(&self) -> &'static str {
        match self {
            LineError::Read { .. } => "io_error",
            _ => "transcript_malformed",
        }
    }
}

#[cfg(test)]
mod tests;
