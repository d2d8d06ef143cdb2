//! [`CliError`]: why a command did not do what it was asked, with the file at fault and the
//! fix, so the person can act on it.

use std::path::PathBuf;

use notesoup_notes::NotesError;

use crate::{EXIT_CONFLICT, EXIT_FAILED, EXIT_USAGE};

/// Why a command refused or failed. Each variant carries the input at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The notes store refused (bad name, not found, too large, version conflict, ...).
    #[error("{}", notes_words(source))]
    Notes {
        /// The store's refusal.
        source: NotesError,
        /// The brain's folder, when one was opened.
        brain: Option<PathBuf>,
        /// For a name no note can have: the note it most likely means (`Plan`, `plan.md`:
        /// `plan`), when the brain holds one.
        meant: Option<String>,
    },
    /// The application library refused a history call (unknown session, ambiguous prefix,
    /// unreadable transcript, ...).
    #[error("{message}")]
    History {
        /// Its code (`not_found`, `ambiguous_session`, `transcript_malformed`, ...).
        code: String,
        /// Its one-line message.
        message: String,
    },
    /// A history tool refused the flags given (an empty search text, a cursor of another
    /// list, a window or seq the session does not hold, a limit out of range).
    #[error("{message}")]
    Refused {
        /// The tool's code (`empty_query`, `bad_cursor`, `unknown_window`, ...).
        code: &'static str,
        /// What was wrong, naming the flag.
        message: String,
        /// What to do instead.
        fix: String,
    },
    /// No note of that name: the closest names, when there are any, are in the fix.
    #[error("no note named `{name}`")]
    NoSuchNote {
        /// The name asked for.
        name: String,
        /// The brain's folder.
        brain: PathBuf,
        /// The closest existing names.
        near: Vec<String>,
        /// The name is a folder of notes (`project` when `project/build` is a note).
        folder: bool,
    },
    /// `notes write`/`append` got no text: stdin is a terminal and no --file was given.
    #[error("no text to write: stdin is a terminal and no --file was given")]
    NoInput,
    /// `notes write`/`append` got an empty text: nothing was written.
    #[error("the text from {from} is empty; nothing was written")]
    EmptyInput {
        /// Where it came from (`stdin`, a file).
        from: String,
        /// The note.
        name: String,
    },
    /// `notes write`/`append` got more text than a note may hold: nothing was written.
    #[error(
        "the text from {from} is over {} bytes, the most a note may hold; nothing was written",
        notesoup_window::thousands(*limit)
    )]
    InputTooLarge {
        /// Where it came from (`stdin`, a file).
        from: String,
        /// The most a note may hold, in bytes.
        limit: u64,
    },
    /// The note changed while it was being edited: nothing was written.
    #[error("note `{name}` {now} while you were editing it; nothing was written")]
    EditConflict {
        /// The note.
        name: String,
        /// What happened to it.
        now: NoteNow,
        /// Where the edited text was kept.
        kept: PathBuf,
    },
    /// The store refused the edited text (over the size limit, say): nothing was written,
    /// and the text is kept in `kept`.
    #[error("{}", notes_words(source))]
    EditRefused {
        /// The note.
        name: String,
        /// Where the edited text was kept.
        kept: PathBuf,
        /// The store's refusal.
        source: NotesError,
    },
    /// The note was emptied in the editor: nothing was written (`rm` deletes a note).
    #[error("the edited note `{name}` is empty; nothing was written")]
    EmptyNote {
        /// The note.
        name: String,
    },
    /// The editor could not be started or did not finish cleanly: nothing was written.
    #[error("the editor `{command}` {reason}; nothing was written")]
    Editor {
        /// The editor command line ($VISUAL or $EDITOR).
        command: String,
        /// What went wrong.
        reason: String,
        /// The file it was editing, kept when it holds edited text (removed when the text
        /// is still the note's: nothing to lose).
        file: Option<PathBuf>,
        /// The note.
        name: String,
    },
    /// Neither `$VISUAL` nor `$EDITOR` is set, and no fallback editor is on PATH.
    #[error(
        "no editor: neither VISUAL nor EDITOR is set, and no {} is on PATH",
        tried.join(" or ")
    )]
    NoEditor {
        /// The editors looked for on PATH.
        tried: &'static [&'static str],
    },
    /// A file could not be read or written.
    #[error("could not {what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: String,
        /// The file.
        path: PathBuf,
        /// The system's account.
        source: std::io::Error,
    },
    /// The editor's file could not be made in the temp folder (`TMPDIR`, else /tmp).
    #[error("could not create the file to edit in {} (TMPDIR{}): {source}", dir.display(), if *from_tmpdir { "" } else { " is not set, so /tmp" })]
    TempDir {
        /// The temp folder.
        dir: PathBuf,
        /// Whether `TMPDIR` named it.
        from_tmpdir: bool,
        /// The system's account.
        source: std::io::Error,
    },
    /// A settings file is not valid JSON.
    #[error("settings file {} is not valid JSON: {reason}", path.display())]
    Settings {
        /// The file.
        path: PathBuf,
        /// The parser's account (line and column).
        reason: String,
    },
    /// The budget policy refused these inputs (a bad cap, margins with no room).
    #[error("{0}")]
    Limits(#[from] notesoup_thresholds::ThresholdError),
    /// An argument that clap accepted but the command cannot use.
    #[error("{what}")]
    BadArgument {
        /// What is wrong.
        what: String,
        /// What to do instead.
        fix: String,
    },
    /// The MCP server stopped with an error (not a client closing stdin).
    #[error("{0}")]
    Mcp(#[from] notesoup_mcp::McpError),
}

/// The codes of a [`CliError::Refused`] that a flag's value alone causes (exit 2): a
/// `--cursor` not written `s<seq>` is `bad_cursor`; one at an event the session does not
/// hold is `unknown_cursor` (exit 1, as a `--seq` it does not hold).
const USAGE_CODES: [&str; 4] = ["empty_query", "bad_limit", "bad_time", "bad_cursor"];

/// A refusal of the application library: its code and its message.
impl From<notesoup_app::AppError> for CliError {
    fn from(err: notesoup_app::AppError) -> Self {
        Self::History {
            code: err.code().to_owned(),
            message: err.to_string(),
        }
    }
}

/// What happened to a note while it was being edited (an [`CliError::EditConflict`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteNow {
    /// Another writer changed it: its version now.
    Changed(String),
    /// It was deleted.
    Deleted,
    /// A note that did not exist was created meanwhile: its version.
    Created(String),
}

impl std::fmt::Display for NoteNow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Changed(v) => write!(f, "changed (now version {v})"),
            Self::Deleted => f.write_str("was deleted"),
            Self::Created(v) => write!(f, "was created (version {v})"),
        }
    }
}

impl CliError {
    /// A store refusal, with the brain it came from.
    pub(crate) fn notes(source: NotesError, brain: Option<PathBuf>) -> Self {
        Self::Notes {
            source,
            brain,
            meant: None,
        }
    }

    /// A stable `snake_case` code for `--json`.
    pub fn code(&self) -> &str {
        match self {
            Self::Notes { source, .. } | Self::EditRefused { source, .. } => source.code(),
            Self::NoSuchNote { .. } => "not_found",
            Self::NoInput => "no_input",
            Self::InputTooLarge { .. } => "too_large",
            Self::History { code, .. } => code,
            Self::Refused { code, .. } => code,
            Self::EditConflict { .. } => "version_conflict",
            Self::Editor { .. } => "editor_failed",
            Self::NoEditor { .. } => "no_editor",
            Self::Io { .. } | Self::TempDir { .. } => "io",
            Self::Settings { .. } => "bad_settings",
            Self::Limits(err) => err.code(),
            Self::BadArgument { .. } => "bad_argument",
            Self::EmptyNote { .. } | Self::EmptyInput { .. } => "empty_note",
            Self::Mcp(_) => "mcp_failed",
        }
    }

    /// The exit status this error ends the run with.
    pub fn exit(&self) -> u8 {
        match self {
            Self::EditConflict { .. } => EXIT_CONFLICT,
            Self::Notes { source, .. }
                if matches!(source.code(), "version_conflict" | "exists") =>
            {
                EXIT_CONFLICT
            }
            Self::BadArgument { .. } | Self::NoInput => EXIT_USAGE,
            // A note name no note can have (`a.md`, `../x`) is a value no run could take.
            Self::Notes { source, .. } if source.code() == "bad_name" => EXIT_USAGE,
            // A flag's value that no run could take (a search for nothing, a limit out of
            // range, a time or a cap that is not one) is the command line's fault, as clap's
            // own refusals are: exit 2, so a search with no match (1) is told from it.
            Self::Refused { code, .. } if USAGE_CODES.contains(code) => EXIT_USAGE,
            // A session named in a form no session has (empty, an unknown harness, `claude:`
            // with no id): no run could take it. A well-formed one that names no session, or
            // several, is a run that found nothing (1).
            Self::History { code, .. } if code == "bad_session" => EXIT_USAGE,
            Self::Limits(err) if matches!(err.code(), "bad_cap" | "bad_unit") => EXIT_USAGE,
            _ => EXIT_FAILED,
        }
    }

    /// The file at fault, when there is one.
    pub fn file(&self) -> Option<PathBuf> {
        match self {
            Self::Notes { brain, .. } => brain.clone(),
            Self::NoSuchNote { brain, .. } => Some(brain.clone()),
            Self::EditConflict { kept, .. } | Self::EditRefused { kept, .. } => Some(kept.clone()),
            Self::Editor { file, .. } => file.clone(),
            Self::Io { path, .. } | Self::Settings { path, .. } => Some(path.clone()),
            _ => None,
        }
    }

    /// What to do about it.
    pub fn fix(&self) -> Option<String> {
        Some(match self {
            Self::Notes {
                source: NotesError::VersionConflict { name, .. },
                ..
            } => format!("the note changed meanwhile: `notesoup notes show {name}`, then redo the change"),
            Self::Notes {
                source: NotesError::Exists { name, .. },
                ..
            } => format!("a note of that name exists, newer than the deleted copy: `notesoup notes show {name}` shows it; `notesoup notes restore {name} --force` moves it to the trash and restores the deleted one"),
            Self::Notes {
                meant: Some(meant), ..
            } => format!("did you mean `{meant}`? a name is segments of a-z 0-9 - _ joined by /, with no extension"),
            Self::Notes { source, .. } => store_fix(source)?.into(),
            Self::EditRefused { name, kept, source } => format!(
                "{}; your text is in the file above: `notesoup notes write {name} --file {}` saves it",
                store_fix(source).unwrap_or("fix the text"),
                kept.display()
            ),
            Self::NoSuchNote {
                name, folder: true, ..
            } => format!("`{name}` is a folder of notes: `notesoup notes list {name}` lists them"),
            Self::NoSuchNote { near, .. } if !near.is_empty() => {
                let near: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
                format!("did you mean {}? `notesoup notes list` shows every name", near.join(" or "))
            }
            Self::NoSuchNote { .. } => "`notesoup notes list` shows the names; `notesoup notes trash` the deleted ones".into(),
            Self::NoInput => "pipe the text in (`echo \"1. ship it\" | notesoup notes write plan`) or give --file PATH".into(),
            Self::EmptyInput { name, .. } => format!("give the text to write (to delete a note instead: `notesoup notes rm {name}`)"),
            Self::InputTooLarge { .. } => "shorten the text, or split it into several notes".into(),
            Self::History { code, .. } => match code.as_str() {
                "not_found" | "bad_session" => "`notesoup history sessions` lists the sessions; name one as <harness>:<id>".into(),
                "ambiguous_session" => "`notesoup history sessions` lists every session with its whole id".into(),
                "no_leaf" => "nothing was said in this session yet (its file holds no conversation); `notesoup history sessions` lists the others".into(),
                "duplicate_session" => "move the file that is not this session out of the harness's folders (both are named above)".into(),
                "bad_request" => "see `notesoup history --help`".into(),
                _ => return None,
            },
            Self::EditConflict { name, now: NoteNow::Deleted, kept } => format!("your text is in the file above: `notesoup notes write {name} --file {}` writes it as the note again (`notesoup notes restore {name}` brings back the deleted one instead)", kept.display()),
            Self::EditConflict { name, kept, .. } => format!("your text is in the file above: `notesoup notes show {name}` shows the note now; `notesoup notes write {name} --file {}` writes yours over it", kept.display()),
            Self::Editor { file: None, .. } => "fix VISUAL or EDITOR (e.g. `export EDITOR=nano`); the note was not changed".to_owned(),
            Self::Editor { file: Some(file), name, .. } => format!("fix VISUAL or EDITOR (e.g. `export EDITOR=nano`); your text is still in the file above: `notesoup notes write {name} --file {}` saves it", file.display()),
            Self::NoEditor { .. } => "set EDITOR to the editor you use, e.g. `export EDITOR='code --wait'`, or install vi or nano".into(),
            Self::Io { source, .. } => match source.kind() {
                std::io::ErrorKind::InvalidData => "give text in UTF-8 (convert it with `iconv -t UTF-8`)".into(),
                std::io::ErrorKind::NotFound => "check the path".into(),
                std::io::ErrorKind::IsADirectory => "give a file, not a folder".into(),
                std::io::ErrorKind::PermissionDenied => "check the file's permissions (`ls -l` it)".into(),
                std::io::ErrorKind::StorageFull => "free some space on that disk".into(),
                _ => "check the file's permissions and free space".into(),
            },
            Self::TempDir { from_tmpdir: true, .. } => "set TMPDIR to a folder you can write, or unset it (then /tmp is used)".into(),
            Self::TempDir { .. } => "set TMPDIR to a folder you can write".into(),
            Self::Settings { .. } => "fix the JSON (Claude Code ignores a broken settings file too)".into(),
            Self::Limits(notesoup_thresholds::ThresholdError::CapTooSmall { smallest, .. }) => {
                format!("give a cap of at least {} tokens, e.g. `notesoup limits --cap {}k`", notesoup_window::thousands(*smallest), smallest.div_ceil(1000))
            }
            Self::Limits(err) if matches!(err.code(), "bad_cap" | "bad_unit") => {
                "`notesoup limits --cap 150k` shows the points under a 150,000-token cap; `notesoup limits --help` says what each point means".into()
            }
            Self::Limits(notesoup_thresholds::ThresholdError::NoRoom {
                native,
                reset_margin,
                warning_runway,
                ..
            }) => {
                // The window that would leave the margins room: what the native point lacks.
                let short = i128::from(reset_margin + warning_runway) - i128::from(*native) + 1;
                let short = notesoup_window::thousands(u64::try_from(short).unwrap_or(u64::MAX));
                format!(
                    "the window is {short} tokens too small for the margins: give a larger --window (or model), or lower resetMarginTokens / warningRunwayTokens in the notesoup settings"
                )
            }
            Self::Limits(notesoup_thresholds::ThresholdError::PiReserveTooLarge { .. }) => {
                "lower it in the file that sets it, or give the model's real window with --window (e.g. --window 1m)".into()
            }
            Self::Limits(_) => "see `notesoup limits --help`".into(),
            Self::BadArgument { fix, .. } | Self::Refused { fix, .. } => fix.clone(),
            Self::EmptyNote { name } => format!("to delete it: `notesoup notes rm {name}`"),
            Self::Mcp(_) => "an MCP client starts `notesoup mcp` itself and speaks JSON-RPC on its stdin; see README's MCP section".into(),
        })
    }
}

/// The store's refusal in the CLI's words: its messages name the model's tools where one
/// helps the model (`notes_list shows the names`); the CLI's fix line names its own command
/// instead.
fn notes_words(err: &NotesError) -> String {
    match err {
        NotesError::NotFound { name, .. } => format!("no note named `{name}`"),
        NotesError::Empty { name } => format!("note `{name}` would be empty; nothing was written"),
        NotesError::BadCwd { path, reason } => {
            format!("`{}` cannot pick a brain: {reason}", path.display())
        }
        err => err.to_string(),
    }
}

/// What to do about the store's refusal `source`, by its code (a full disk by its own).
fn store_fix(source: &NotesError) -> Option<&'static str> {
    let kind = match source {
        NotesError::Io { source, .. } => Some(source.kind()),
        NotesError::File(err) => Some(err.io_kind()),
        _ => None,
    };
    if kind == Some(std::io::ErrorKind::StorageFull) {
        return Some(
            "free some space on the disk of the notes home (`df` the folder above), or set NOTESOUP_HOME to a folder on another",
        );
    }
    if let NotesError::BrainFull { .. } = source {
        return Some(
            "`notesoup notes` lists the notes with their sizes; `notesoup notes rm NAME` moves one no longer needed to the trash, which does not count",
        );
    }
    Some(match source.code() {
        "not_found" => {
            "`notesoup notes list` shows the names; `notesoup notes trash` the deleted ones"
        }
        "bad_name" => {
            "a name is segments of a-z 0-9 - _ joined by /, with no extension: `plan`, `project/build`"
        }
        "not_in_trash" => "`notesoup notes trash` lists the deleted notes",
        "empty_note" => "give the note some text; `notesoup notes rm NAME` deletes a note",
        "too_large" => "shorten the note, or split it into several notes",
        "no_home" => "set NOTESOUP_HOME to a folder notesoup may write",
        "bad_cwd" => "give --project an existing folder",
        "busy" => {
            "another notesoup process holds this brain's lock (an agent's write, or one stopped with Ctrl-Z): let it finish or end it, then run the command again"
        }
        "io" => {
            "check that the notes home can be written (`notesoup doctor` checks it), or set NOTESOUP_HOME to a folder you can write"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
