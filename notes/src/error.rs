//! [`NotesError`]: every refusal of the store, each carrying the input it refused.

use std::path::PathBuf;

/// Why the store refused an operation. Every variant names the input at fault, and
/// [`NotesError::code`] gives the stable `snake_case` code the helper protocol reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NotesError {
    /// The note or folder name breaks the naming rules.
    #[error("bad note name `{name}`: {reason}")]
    BadName {
        /// The name as given.
        name: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// A note's text would exceed its size limit.
    #[error(
        "{what} would be {} bytes, over the limit of {} bytes; shorten it or split it (per note {} bytes, per brain {} bytes)",
        notesoup_window::thousands(*size),
        notesoup_window::thousands(*limit),
        notesoup_window::thousands(crate::MAX_NOTE_BYTES),
        notesoup_window::thousands(crate::MAX_BRAIN_BYTES)
    )]
    TooLarge {
        /// What is too large: the note (named), or its copy in the trash.
        what: String,
        /// The size it would have.
        size: u64,
        /// The limit it breaks.
        limit: u64,
    },
    /// The brain as a whole would exceed [`crate::MAX_BRAIN_BYTES`]: room is made by
    /// deleting or shortening notes, not by splitting one (code `too_large`, as a note's).
    #[error(
        "the brain would be {} bytes, over the limit of {} bytes; delete notes it no longer needs, or shorten some (per note {} bytes, per brain {} bytes; deleted notes do not count)",
        notesoup_window::thousands(*size),
        notesoup_window::thousands(crate::MAX_BRAIN_BYTES),
        notesoup_window::thousands(crate::MAX_NOTE_BYTES),
        notesoup_window::thousands(crate::MAX_BRAIN_BYTES)
    )]
    BrainFull {
        /// The size the brain would have.
        size: u64,
    },
    /// No note of that name exists.
    #[error("no note named `{name}`; notes_list shows the names")]
    NotFound {
        /// The name asked for.
        name: String,
    },
    /// The note changed (or appeared, or vanished) since the version the writer read.
    #[error(
        "note `{name}` changed since version {expected}: it is now {}; read it again and redo the change",
        current.as_deref().map_or_else(|| "deleted".to_owned(), |v| format!("version {v}"))
    )]
    VersionConflict {
        /// The note.
        name: String,
        /// The version the writer carried.
        expected: String,
        /// The note's version now (`None` when the note does not exist).
        current: Option<String>,
    },
    /// A note of that name exists: a create found it there, or a restore would overwrite
    /// it (it is newer than the deleted copy).
    #[error("note `{name}` exists (version {version})")]
    Exists {
        /// The note.
        name: String,
        /// Its version now.
        version: String,
    },
    /// The trash holds no deleted copy of that name.
    #[error("the trash holds no note named `{name}`")]
    NotInTrash {
        /// The name asked for.
        name: String,
    },
    /// `old` does not occur in the note.
    #[error(
        "`old` does not occur in note `{name}` (0 matches); read the note and copy the exact text: {old:?}"
    )]
    NoMatch {
        /// The note.
        name: String,
        /// The text searched for.
        old: String,
    },
    /// `old` occurs more than once in the note.
    #[error(
        "`old` occurs {count} times in note `{name}`; include more surrounding text so it matches exactly once: {old:?}"
    )]
    Ambiguous {
        /// The note.
        name: String,
        /// The text searched for.
        old: String,
        /// How many times it occurs.
        count: usize,
    },
    /// The note's text would be empty or only whitespace: a note is never blank (deleting
    /// it is `notes_delete`, which keeps it in the trash).
    #[error("note `{name}` would be empty: a note holds text; notes_delete deletes a note")]
    Empty {
        /// The note.
        name: String,
    },
    /// An edit that cannot be applied whatever the note holds.
    #[error("bad edit of note `{name}`: {reason}")]
    BadEdit {
        /// The note.
        name: String,
        /// What is wrong with the edit.
        reason: String,
    },
    /// No notesoup home could be derived (no `NOTESOUP_HOME`, `XDG_DATA_HOME` or `HOME`).
    #[error("cannot place the brain store: {reason}")]
    NoHome {
        /// What was missing or wrong.
        reason: String,
    },
    /// The session folder cannot pick a brain: not absolute, or not an existing folder.
    #[error("bad session folder `{}`: {reason}", path.display())]
    BadCwd {
        /// The folder as given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file or folder in the store is not what the store makes: a symbolic link in its
    /// layout (never followed), a FIFO, a device, or a file too large to be a note. Code
    /// `link`, `not_regular`, `too_large` or `busy` (see [`notesoup_safe_fs::FsError::refusal_code`]),
    /// else `io`.
    #[error(transparent)]
    File(#[from] notesoup_safe_fs::FsError),
    /// The filesystem failed us (permissions, disk full, a path that is not a folder, ...).
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What the store was doing.
        action: &'static str,
        /// The path it was doing it to.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

impl NotesError {
    /// The stable protocol code: `bad_name`, `too_large`, `not_found`, `version_conflict`,
    /// `exists`, `not_in_trash`, `no_match`, `ambiguous`, `bad_edit`, `empty_note`, `no_home`, `bad_cwd`
    /// `link`, `not_regular`, `too_large`, `busy` or `io`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadName { .. } => "bad_name",
            Self::TooLarge { .. } | Self::BrainFull { .. } => "too_large",
            Self::NotFound { .. } => "not_found",
            Self::VersionConflict { .. } => "version_conflict",
            Self::Exists { .. } => "exists",
            Self::NotInTrash { .. } => "not_in_trash",
            Self::NoMatch { .. } => "no_match",
            Self::Ambiguous { .. } => "ambiguous",
            Self::BadEdit { .. } => "bad_edit",
            Self::Empty { .. } => "empty_note",
            Self::NoHome { .. } => "no_home",
            Self::BadCwd { .. } => "bad_cwd",
            Self::Io { .. } => "io",
            Self::File(err) => err.refusal_code().unwrap_or("io"),
        }
    }

    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io {
            action,
            path,
            source,
        }
    }

    pub(crate) fn bad_name(name: &str, reason: impl Into<String>) -> Self {
        Self::BadName {
            name: quote_name(name),
            reason: reason.into(),
        }
    }
}

/// Most characters of an input (a name, an edit's `old`) a refusal quotes: a hostile
/// 50 MB input must not make a 50 MB message.
pub const QUOTE_MAX_CHARS: usize = 200;

/// `input` as a refusal quotes it: whole up to [`QUOTE_MAX_CHARS`], else cut there with `…`.
pub(crate) fn quote(input: &str) -> String {
    match input.char_indices().nth(QUOTE_MAX_CHARS) {
        Some((end, _)) => format!("{}…", &input[..end]),
        None => input.to_owned(),
    }
}

/// A name (or a segment of one) as a refusal quotes it: as [`quote`], with each control
/// character or one a terminal would not show as itself (a line break, an escape, a
/// right-to-left override) written as Rust escapes it (`\n`, `\u{202e}`), so a refused
/// name never breaks or reorders the line it is shown in.
pub(crate) fn quote_name(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in quote(input).chars() {
        let escaped: String = c.escape_debug().collect();
        if c.is_control() || escaped.starts_with("\\u") {
            out.push_str(&escaped);
        } else {
            out.push(c);
        }
    }
    out
}
