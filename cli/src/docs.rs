//! The `--json` documents of `notesoup`'s commands: one typed struct per command,
//! serialized as is (`Out::json_doc` writes their keys sorted, as the documents always
//! were).

use std::path::{Path, PathBuf};

use notesoup_notes::NoteInfo;
use notesoup_window::Host;
use notesoup_window::format_rfc3339;
use serde::Serialize;

/// `notes list --json`.
#[derive(Serialize)]
pub(crate) struct ListDoc<'a> {
    pub(crate) ok: bool,
    #[serde(serialize_with = "path_text::one")]
    pub(crate) project: &'a Path,
    #[serde(serialize_with = "path_text::one")]
    pub(crate) brain: &'a Path,
    /// The whole brain's size, whatever `folder` lists.
    pub(crate) bytes: u64,
    /// The folder listed (`project/`), when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) folder: Option<String>,
    pub(crate) limits: Limits,
    pub(crate) notes: Vec<NoteDoc>,
}

/// One note of `notes list --json`.
#[derive(Serialize)]
pub(crate) struct NoteDoc {
    pub(crate) name: String,
    pub(crate) bytes: u64,
    /// RFC 3339, UTC.
    pub(crate) updated: String,
    pub(crate) version: String,
    pub(crate) first_line: String,
}

impl From<&NoteInfo> for NoteDoc {
    fn from(note: &NoteInfo) -> Self {
        Self {
            name: note.name.clone(),
            bytes: note.bytes,
            updated: format_rfc3339(note.updated.saturating_mul(1000)),
            version: note.version.as_str().to_owned(),
            first_line: note.first_line.clone(),
        }
    }
}

/// The store's size limits, in bytes.
#[derive(Serialize)]
pub(crate) struct Limits {
    pub(crate) note_bytes: u64,
    pub(crate) brain_bytes: u64,
}

/// `notes show --json`.
#[derive(Serialize)]
pub(crate) struct ShowDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
    /// RFC 3339, UTC.
    pub(crate) updated: String,
    pub(crate) text: &'a str,
}

/// `notes rm --json`: what was moved to the trash, and what was not (and why).
#[derive(Serialize)]
pub(crate) struct RmDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) removed: Vec<Removed<'a>>,
    pub(crate) failed: Vec<NotRemoved>,
}

/// A note `notes rm` moved to the trash.
#[derive(Serialize)]
pub(crate) struct Removed<'a> {
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
    #[serde(serialize_with = "path_text::one")]
    pub(crate) trash: &'a Path,
}

/// A name `notes rm` did not remove.
#[derive(Serialize)]
pub(crate) struct NotRemoved {
    pub(crate) name: String,
    pub(crate) code: String,
    pub(crate) message: String,
    /// The closest existing names, for a name that is not a note.
    pub(crate) near: Vec<String>,
}

/// `notes write --json` and `notes append --json`.
#[derive(Serialize)]
pub(crate) struct WrittenDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
    pub(crate) bytes: u64,
    pub(crate) created: bool,
    /// Where the text it replaced was kept in the trash (`notes write`).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "path_text::optional"
    )]
    pub(crate) old_in_trash: Option<PathBuf>,
}

/// `notes grep --json`.
#[derive(Serialize)]
pub(crate) struct GrepDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) text: &'a str,
    pub(crate) ignore_case: bool,
    pub(crate) matches: Vec<GrepRow<'a>>,
}

/// One line of `notes grep --json`.
#[derive(Serialize)]
pub(crate) struct GrepRow<'a> {
    pub(crate) name: &'a str,
    pub(crate) line: usize,
    pub(crate) text: &'a str,
}

/// `notes brains --json`.
#[derive(Serialize)]
pub(crate) struct BrainsDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) brains: Vec<BrainRow<'a>>,
}

/// One brain of `notes brains --json`.
#[derive(Serialize)]
pub(crate) struct BrainRow<'a> {
    /// The project folder it was first written from (`null`: unknown).
    #[serde(serialize_with = "path_text::optional")]
    pub(crate) project: &'a Option<std::path::PathBuf>,
    /// Whether that folder still exists.
    pub(crate) project_exists: bool,
    /// The brain of the folder this command ran for.
    pub(crate) current: bool,
    #[serde(serialize_with = "path_text::one")]
    pub(crate) brain: &'a Path,
    pub(crate) notes: usize,
    pub(crate) bytes: u64,
    /// RFC 3339, UTC; `null` with no notes.
    pub(crate) updated: Option<String>,
}

/// `notes trash --json`.
#[derive(Serialize)]
pub(crate) struct TrashDoc<'a> {
    pub(crate) ok: bool,
    #[serde(serialize_with = "path_text::one")]
    pub(crate) project: &'a Path,
    pub(crate) trash: Vec<TrashRow<'a>>,
    pub(crate) keeps: Keeps,
}

/// One deleted note of `notes trash --json`.
#[derive(Serialize)]
pub(crate) struct TrashRow<'a> {
    pub(crate) name: &'a str,
    /// RFC 3339, UTC.
    pub(crate) deleted: String,
    pub(crate) bytes: u64,
    pub(crate) first_line: &'a str,
    #[serde(serialize_with = "path_text::one")]
    pub(crate) file: &'a Path,
}

/// What the trash keeps.
#[derive(Serialize)]
pub(crate) struct Keeps {
    pub(crate) entries: usize,
    pub(crate) days: u64,
}

/// `notes restore --json`.
#[derive(Serialize)]
pub(crate) struct RestoreDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
    pub(crate) bytes: u64,
    /// RFC 3339, UTC.
    pub(crate) deleted: String,
    #[serde(serialize_with = "path_text::optional")]
    pub(crate) replaced: &'a Option<std::path::PathBuf>,
}

/// `notes edit --json`.
#[derive(Serialize)]
pub(crate) struct EditDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) name: &'a str,
    pub(crate) version: Option<&'a str>,
    pub(crate) changed: bool,
    /// Where the text the edit replaced was kept in the trash (as `notes write` keeps it).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "path_text::optional"
    )]
    pub(crate) old_in_trash: Option<PathBuf>,
}

/// `doctor --json`.
#[derive(Serialize)]
pub(crate) struct DoctorDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) counts: Counts,
    pub(crate) checks: Vec<CheckRow<'a>>,
}

/// How many checks of `doctor` came out each way.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Counts {
    pub(crate) ok: usize,
    pub(crate) skip: usize,
    pub(crate) warn: usize,
    pub(crate) fail: usize,
}

/// One check of `doctor --json`.
#[derive(Serialize)]
pub(crate) struct CheckRow<'a> {
    pub(crate) check: &'a str,
    pub(crate) status: &'a str,
    pub(crate) message: &'a str,
    pub(crate) fix: Option<&'a str>,
    pub(crate) detail: Option<&'a SessionsDetail>,
}

/// The `sessions` check's detail: one harness's sessions and the folders looked in.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SessionsDetail {
    pub(crate) harness: Host,
    pub(crate) sessions: usize,
    pub(crate) folders: Vec<Folder>,
}

/// A folder looked in, and what was there (`found`, `missing`, `not a folder`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Folder {
    #[serde(serialize_with = "path_text::one")]
    pub(crate) path: std::path::PathBuf,
    pub(crate) state: &'static str,
}

/// The `--json` document of a refusal or failure.
#[derive(Serialize)]
pub(crate) struct ErrorDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) error: ErrorBody<'a>,
}

/// What went wrong, with the file at fault and the fix.
#[derive(Serialize)]
pub(crate) struct ErrorBody<'a> {
    pub(crate) code: &'a str,
    pub(crate) message: String,
    pub(crate) file: Option<String>,
    pub(crate) fix: Option<String>,
}

/// `history vault --json`.
#[derive(Serialize)]
pub(crate) struct VaultDoc<'a> {
    pub(crate) ok: bool,
    #[serde(serialize_with = "path_text::one")]
    pub(crate) vault: &'a Path,
    pub(crate) files: usize,
    pub(crate) grown: usize,
    pub(crate) new_versions: usize,
    /// Copies found damaged and kept again from their originals.
    pub(crate) renewed: usize,
    /// Copies whose session file is gone, kept by an earlier notesoup without the facts a
    /// listing shows, that got them from the copy this run (so `history sessions` lists
    /// them without decompressing them).
    pub(crate) facts_filled: usize,
    pub(crate) added_bytes: u64,
    pub(crate) sessions: usize,
    pub(crate) raw_bytes: u64,
    pub(crate) stored_bytes: u64,
    pub(crate) failed: Vec<NotKept<'a>>,
    /// Sessions only the vault holds whose copy cannot be read (`<harness>:<id>`).
    pub(crate) damaged: &'a [String],
    /// Session files cut shorter since they were kept: their copies keep what was cut.
    pub(crate) cut: Vec<CutFile<'a>>,
}

/// A session file `history vault` found cut shorter than its copy.
#[derive(Serialize)]
pub(crate) struct CutFile<'a> {
    #[serde(serialize_with = "path_text::one")]
    pub(crate) file: &'a Path,
    pub(crate) session: &'a str,
}

/// A session file `history vault` could not keep.
#[derive(Serialize)]
pub(crate) struct NotKept<'a> {
    #[serde(serialize_with = "path_text::one")]
    pub(crate) file: &'a Path,
    pub(crate) error: &'a str,
}

/// `history forget --json`.
#[derive(Serialize)]
pub(crate) struct ForgetDoc<'a> {
    pub(crate) ok: bool,
    /// The session named (`null` for `--before`).
    pub(crate) session: Option<&'a str>,
    pub(crate) removed: &'a [String],
    #[serde(serialize_with = "path_text::many")]
    pub(crate) originals_left: &'a [std::path::PathBuf],
    /// The history indexes notesoup made of the sessions' transcripts, removed.
    #[serde(serialize_with = "path_text::many")]
    pub(crate) indexes_removed: &'a [std::path::PathBuf],
    /// The sessions' window records (with their locks), removed.
    #[serde(serialize_with = "path_text::many")]
    pub(crate) window_files_removed: &'a [std::path::PathBuf],
    /// Forgotten by an earlier forget (nothing of it was left to remove).
    pub(crate) already_forgotten: bool,
}

/// Paths as JSON text, bytes that are not UTF-8 shown as U+FFFD (`to_string_lossy`): serde's
/// own refuses such a path, and the whole document was lost with it (a project folder named
/// in Latin-1 printed `null`).
mod path_text {
    use std::path::{Path, PathBuf};

    use serde::Serializer;

    pub(super) fn one<S: Serializer, P: AsRef<Path>>(path: &P, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&path.as_ref().to_string_lossy())
    }

    #[allow(
        clippy::ref_option,
        reason = "serde's serialize_with passes the field by reference"
    )]
    pub(super) fn optional<S: Serializer, P: AsRef<Path>>(
        path: &Option<P>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match path {
            Some(path) => one(path, s),
            None => s.serialize_none(),
        }
    }

    pub(super) fn many<S: Serializer>(paths: &&[PathBuf], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(paths.iter().map(|p| p.to_string_lossy()))
    }
}
