//! The `--json` documents of `notesoup`'s commands: one typed struct per command,
//! serialized as is (`Out::json_doc` writes their keys sorted, as the documents always
//! were); the history commands' carry the application library's typed answers.

use std::path::Path;

use notesoup_app::history::{ListPage, SessionRow};
use notesoup_app::notes::NoteRow;
use notesoup_window::Host;
use serde::Serialize;

/// `notes list --json`.
#[derive(Serialize)]
pub(crate) struct ListDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) project: &'a Path,
    pub(crate) brain: &'a Path,
    pub(crate) bytes: u64,
    pub(crate) limits: Limits,
    pub(crate) notes: Vec<NoteRow>,
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
    pub(crate) updated: u64,
    pub(crate) text: &'a str,
}

/// `notes rm --json`.
#[derive(Serialize)]
pub(crate) struct RmDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) name: &'a str,
    pub(crate) version: &'a str,
    pub(crate) trash: &'a Path,
}

/// `notes trash --json`.
#[derive(Serialize)]
pub(crate) struct TrashDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) project: &'a Path,
    pub(crate) trash: Vec<TrashRow<'a>>,
    pub(crate) keeps: Keeps,
}

/// One deleted note of `notes trash --json`.
#[derive(Serialize)]
pub(crate) struct TrashRow<'a> {
    pub(crate) name: &'a str,
    pub(crate) deleted_ms: u64,
    pub(crate) bytes: u64,
    pub(crate) first_line: &'a str,
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
    pub(crate) deleted_ms: u64,
    pub(crate) replaced: Option<&'a Path>,
}

/// `notes edit --json`.
#[derive(Serialize)]
pub(crate) struct EditDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) name: &'a str,
    pub(crate) version: Option<&'a str>,
    pub(crate) changed: bool,
}

/// `doctor --json`.
#[derive(Serialize)]
pub(crate) struct DoctorDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) checks: Vec<CheckRow<'a>>,
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

/// A `--json` document of a successful command: `"ok": true` beside the answer's fields.
#[derive(Serialize)]
pub(crate) struct Done<'a, T> {
    pub(crate) ok: bool,
    #[serde(flatten)]
    pub(crate) answer: &'a T,
}

pub(crate) fn done<T>(answer: &T) -> Done<'_, T> {
    Done { ok: true, answer }
}

/// `history sessions --json`.
#[derive(Serialize)]
pub(crate) struct SessionsDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) total: usize,
    pub(crate) sessions: &'a [SessionRow],
}

/// `history search --json` over the recent sessions.
#[derive(Serialize)]
pub(crate) struct SearchDoc<'a> {
    pub(crate) ok: bool,
    pub(crate) query: &'a str,
    pub(crate) searched: usize,
    pub(crate) results: &'a [ListPage],
    pub(crate) skipped: Vec<Skipped<'a>>,
}

#[derive(Serialize)]
pub(crate) struct Skipped<'a> {
    pub(crate) session: &'a str,
    pub(crate) error: String,
}
