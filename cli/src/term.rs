//! Terminal shaping: colour (by default only on a terminal and not under `NO_COLOR` or
//! `TERM=dumb`; `--color always` or `never` decides alone), the text or JSON
//! a command prints, and its error lines.
//!
//! What a command prints is kept for the report, unless the run was given the process's
//! stdout ([`Out::writing_to`]: stdout is no pager's) and the command streams
//! ([`Out::stream`]: a whole session is written as it is made, a block at a time, so its
//! first lines come at once and its text is never held whole). A reader that goes away
//! (`| head`) closes the stream quietly, and the command stops ([`Out::closed`]).

use std::fmt::Write as _;
use std::io;

use crate::args::Color;
use crate::{CliError, Env};

/// What a piece of text is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paint {
    /// A heading or a name to find the eye on (bold).
    Strong,
    /// Secondary detail (dim).
    Dim,
    /// A passed check (green).
    Ok,
    /// A warning (yellow).
    Warn,
    /// A failure (red).
    Fail,
    /// A search match (bold red, as grep and rg paint them).
    Match,
}

/// Whether to colour, decided once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    colour: bool,
}

impl Style {
    /// Colour of stdout: always with `--color always` (a flag given for this run beats the
    /// environment: <https://no-color.org>), never with `--color never`, and by default
    /// when stdout is a terminal, unless `NO_COLOR` is set to anything non-empty or
    /// `TERM=dumb`.
    pub fn new(choice: Color, env: &Env) -> Self {
        Self::of(choice, env, env.stdout_terminal())
    }

    /// Colour of stderr: the same rule, by whether stderr is a terminal (so a stderr
    /// redirected to a file gets no escapes while stdout is on the terminal).
    pub fn for_stderr(choice: Color, env: &Env) -> Self {
        Self::of(choice, env, env.stderr_terminal())
    }

    fn of(choice: Color, env: &Env, terminal: bool) -> Self {
        let colour = match choice {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                terminal && env.var_set("NO_COLOR").is_none() && env.var("TERM") != Some("dumb")
            }
        };
        Self { colour }
    }

    /// Whether this run colours.
    pub fn colour(self) -> bool {
        self.colour
    }

    /// `text` in the paint's colour (unchanged without colour).
    pub(crate) fn paint(self, paint: Paint, text: &str) -> String {
        if !self.colour {
            return text.to_owned();
        }
        let code = match paint {
            Paint::Strong => "1",
            Paint::Dim => "2",
            Paint::Ok => "32",
            Paint::Warn => "33",
            Paint::Fail => "31",
            Paint::Match => "1;31",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// The most text a streaming command holds before it writes it out.
const BLOCK: usize = 64 << 10;

/// The first block of a streaming command's text, written sooner: a screen's worth, so a
/// pager (or `| head`) shows its first lines before a whole block is made.
const FIRST_BLOCK: usize = 4 << 10;

/// The output of one run: text (or one JSON document) for stdout, lines for stderr.
#[derive(Debug)]
pub(crate) struct Out {
    pub(crate) style: Style,
    /// How stderr is coloured (by whether it is a terminal).
    err_style: Style,
    pub(crate) json: bool,
    /// What is not written out yet.
    stdout: String,
    stderr: String,
    footer: Option<String>,
    sink: Option<Sink>,
    paging: crate::Paging,
}

/// The process's stdout, when the run writes it itself.
struct Sink {
    to: To,
    /// The command writes its text as it is made, a block at a time.
    streaming: bool,
    /// Some text was written out already (a `--json` error cannot take it back).
    wrote: bool,
    /// A write failed: nothing more is written.
    closed: bool,
    /// Why, unless the reader went away (a broken pipe, `| head`: no error, as for `rg`).
    failed: Option<io::Error>,
}

/// Where a [`Sink`] writes: the process's stdout, or the pager over it (which can say the
/// person quit it before a write fails).
enum To {
    Plain(Box<dyn io::Write>),
    Pager(crate::Paged),
}

impl To {
    fn writer(&mut self) -> &mut dyn io::Write {
        match self {
            To::Plain(to) => to.as_mut(),
            To::Pager(paged) => paged,
        }
    }
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("streaming", &self.streaming)
            .field("wrote", &self.wrote)
            .field("closed", &self.closed)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl Out {
    pub(crate) fn new(style: Style, err_style: Style, json: bool) -> Self {
        Self {
            style,
            err_style,
            json,
            stdout: String::new(),
            stderr: String::new(),
            footer: None,
            sink: None,
            paging: crate::Paging::default(),
        }
    }

    /// The same output, its stdout shown by a pager that sets `paging` when it starts.
    pub(crate) fn paged(mut self, paging: crate::Paging) -> Self {
        self.paging = paging;
        self
    }

    /// Set once a pager shows the output (never, without one): what draws on stderr stops.
    pub(crate) fn paging(&self) -> crate::Paging {
        self.paging.clone()
    }

    /// The same output, written to `to` (the process's stdout) instead of kept for the
    /// report: at the end of the run ([`Out::flush`]), or as it is made once the command
    /// streams.
    pub(crate) fn writing_to(self, to: Box<dyn io::Write>) -> Self {
        self.into_sink(To::Plain(to))
    }

    /// [`Out::writing_to`] through a pager, which is asked whether the person quit it
    /// ([`Out::closed`]).
    pub(crate) fn writing_to_pager(self, paged: crate::Paged) -> Self {
        self.into_sink(To::Pager(paged))
    }

    fn into_sink(mut self, to: To) -> Self {
        self.sink = Some(Sink {
            to,
            streaming: false,
            wrote: false,
            closed: false,
            failed: None,
        });
        self
    }

    /// From now on this command's text is written out as it is made, a block at a time
    /// (when the run writes stdout itself; otherwise it is kept for the report or pager).
    pub(crate) fn stream(&mut self) {
        if let Some(sink) = &mut self.sink {
            sink.streaming = true;
        }
    }

    /// Whether stdout can take no more (its reader went away, or a write failed; a pager
    /// the person quit, even before a write finds it): a streaming command stops making text.
    pub(crate) fn closed(&mut self) -> bool {
        let Some(sink) = &mut self.sink else {
            return false;
        };
        if !sink.closed
            && let To::Pager(paged) = &mut sink.to
            && paged.reader_gone()
        {
            sink.closed = true;
        }
        sink.closed
    }

    /// Writes out what is held, when the run writes stdout itself; a failed write keeps
    /// its error and drops the text.
    pub(crate) fn flush(&mut self) {
        let Some(sink) = &mut self.sink else {
            return;
        };
        if !sink.closed {
            let to = sink.to.writer();
            let wrote = to
                .write_all(self.stdout.as_bytes())
                .and_then(|()| to.flush());
            sink.wrote |= !self.stdout.is_empty();
            if let Err(err) = wrote {
                sink.closed = true;
                sink.failed = (err.kind() != io::ErrorKind::BrokenPipe).then_some(err);
            }
        }
        self.stdout.clear();
    }

    /// Writes out a full block of a streaming command's text.
    fn grew(&mut self) {
        let Some(sink) = &self.sink else {
            return;
        };
        let block = if sink.wrote { BLOCK } else { FIRST_BLOCK };
        if sink.streaming && self.stdout.len() >= block {
            self.flush();
        }
    }

    /// Why writing stdout failed, when it did for another reason than its reader going
    /// away (a reader that stops reading, as `head` does, is no error: `rg` says nothing
    /// either). Taken once.
    pub(crate) fn write_error(&mut self) -> Option<io::Error> {
        self.sink.as_mut()?.failed.take()
    }

    /// One line of text on stdout.
    pub(crate) fn line(&mut self, text: impl AsRef<str>) {
        self.stdout.push_str(text.as_ref());
        self.stdout.push('\n');
        self.grew();
    }

    /// Text on stdout as it is (a final newline added when missing).
    pub(crate) fn text(&mut self, text: &str) {
        self.stdout.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            self.stdout.push('\n');
        }
        self.grew();
    }

    /// Text on stdout exactly as it is, nothing added (a file's bytes, for a pipe).
    pub(crate) fn raw(&mut self, text: &str) {
        self.stdout.push_str(text);
        self.grew();
    }

    /// The one JSON document of a `--json` run.
    /// Its keys are written sorted, whatever order the struct declares them in.
    pub(crate) fn json_doc<T: serde::Serialize + ?Sized>(&mut self, value: &T) {
        self.json_value(value, 0);
        self.stdout.push('\n');
        self.grew();
    }

    /// `value` as [`Out::json_doc`] writes it (keys sorted), as the value of a document
    /// nested `depth` levels deep: every line after its first indented as deep, and no
    /// newline after it.
    pub(crate) fn json_value<T: serde::Serialize + ?Sized>(&mut self, value: &T, depth: usize) {
        let text = sorted_pretty(value);
        // Pretty JSON has a newline only between tokens (one in a string is `\n`).
        for (n, line) in text.split('\n').enumerate() {
            if n > 0 {
                self.stdout.push('\n');
                for _ in 0..depth {
                    self.stdout.push_str("  ");
                }
            }
            self.stdout.push_str(line);
        }
        self.grew();
    }

    /// The footer: one line for the person on stderr, written after everything else
    /// (`main` prints stdout first), naming what to run next in the command's own flags.
    /// A second footer replaces the first.
    pub(crate) fn footer(&mut self, text: impl AsRef<str>) {
        self.footer = Some(self.err_style.paint(Paint::Dim, text.as_ref()));
    }

    /// A warning for the person on stderr, `notesoup: <text>` (the run goes on).
    pub(crate) fn warn(&mut self, text: impl AsRef<str>) {
        let label = self.err_style.paint(Paint::Warn, "notesoup:");
        let _ = writeln!(self.stderr, "{label} {}", text.as_ref());
    }

    /// A hint for the person on stderr (never part of what a script parses).
    pub(crate) fn hint(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(
            self.stderr,
            "{}",
            self.err_style.paint(Paint::Dim, text.as_ref())
        );
    }

    /// `text` with every match of `needle` painted (when this run colours).
    pub(crate) fn painted(&self, text: &str, needle: &notesoup_history_core::Needle) -> String {
        let mut result = String::with_capacity(text.len());
        let mut at = 0;
        for m in needle.find_all(text) {
            result.push_str(&text[at..m.start]);
            result.push_str(&self.paint(Paint::Match, &text[m.clone()]));
            at = m.end;
        }
        result.push_str(&text[at..]);
        result
    }

    /// `text` painted, for building lines.
    pub(crate) fn paint(&self, paint: Paint, text: &str) -> String {
        self.style.paint(paint, text)
    }

    /// An error: `notesoup: <what>` and, on their own lines, the file and the fix. Under
    /// `--json` stdout also gets `{"ok": false, "error": {code, message, file, fix}}`.
    pub(crate) fn error(&mut self, err: &CliError) {
        self.error_line(err);
        // A document partly written out cannot be taken back: it stays cut, and the
        // error is on stderr alone.
        if self.json && !self.sink.as_ref().is_some_and(|s| s.wrote) {
            self.stdout.clear();
            self.json_doc(&crate::docs::ErrorDoc {
                ok: false,
                error: crate::docs::ErrorBody {
                    code: err.code(),
                    message: err.to_string(),
                    file: err.file().map(|f| f.display().to_string()),
                    fix: err.fix(),
                },
            });
        }
    }

    /// An error on stderr only: `notesoup: <what>`, then the file and the fix (one of
    /// several refusals of a command that did the rest, as `notes rm a b`).
    pub(crate) fn error_line(&mut self, err: &CliError) {
        let label = self.err_style.paint(Paint::Fail, "notesoup:");
        let _ = writeln!(self.stderr, "{label} {err}");
        if let Some(file) = err.file() {
            let _ = writeln!(self.stderr, "  file: {}", file.display());
        }
        if let Some(fix) = err.fix() {
            let _ = writeln!(self.stderr, "  fix:  {fix}");
        }
    }

    pub(crate) fn finish(mut self) -> (String, String) {
        if let Some(footer) = self.footer.take() {
            self.stderr.push_str(&footer);
            self.stderr.push('\n');
        }
        (self.stdout, self.stderr)
    }
}

/// Whether text of `lines` lines should go through a pager on a terminal of `rows` rows.
pub fn wants_pager(text: &str, rows: usize) -> bool {
    text.lines().count() >= rows.max(2)
}

/// `value` as pretty JSON with its keys sorted, whatever order its struct declares them in
/// (through `serde_json::Value`, whose maps are sorted): how every `--json` document is
/// written, [`Out::json_doc`]'s and a refused command line's (`usage::error_doc`).
pub(crate) fn sorted_pretty<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_value(value)
        .and_then(|value| serde_json::to_string_pretty(&value))
        .unwrap_or_else(|_| "null".into())
}
