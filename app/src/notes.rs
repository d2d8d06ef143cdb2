//! The five notes tools as typed functions: [`list`], [`read`], [`write()`], [`edit`] and
//! [`delete`] in the brain of a session's folder. Each answer carries `text` (what the
//! model reads) and, where there is one note, its version.

use std::path::{Path, PathBuf};

use notesoup_notes::{
    Brain, Edit, NoteInfo, Version, render_delete, render_list, render_read, render_written,
};
use serde::{Deserialize, Serialize};

use crate::{AppError, Context};

pub mod grep;

/// What `notes_list` takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only notes under this folder.
    #[serde(default)]
    pub folder: Option<String>,
}

/// What `notes_read` takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The note.
    pub name: String,
    /// The first line to show (1-based).
    #[serde(default)]
    pub offset: Option<usize>,
    /// Show at most this many lines.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// What `notes_write` takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// The note.
    pub name: String,
    /// Its whole new text.
    pub text: String,
    /// The version last read: refused when the note changed since.
    #[serde(default)]
    pub version: Option<String>,
}

/// What `notes_edit` takes: `old` and `new`, or `append`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The note.
    pub name: String,
    /// The exact text to replace (once).
    #[serde(default)]
    pub old: Option<String>,
    /// Its replacement.
    #[serde(default)]
    pub new: Option<String>,
    /// Text to add at the end instead.
    #[serde(default)]
    pub append: Option<String>,
    /// The version last read: refused when the note changed since.
    #[serde(default)]
    pub version: Option<String>,
}

/// What `notes_delete` takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteArgs {
    /// The note.
    pub name: String,
    /// The version last read: refused when the note changed since.
    #[serde(default)]
    pub version: Option<String>,
}

/// The notes of a brain (`notes_list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotesList {
    /// What the model reads.
    pub text: String,
    /// The notes listed.
    pub notes: Vec<NoteRow>,
}

/// One note of a [`NotesList`]; the CLI's `notes list --json` writes the same object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteRow {
    /// Its name.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// When it was last written, in seconds since the Unix epoch.
    pub updated: u64,
    /// Its version.
    pub version: String,
    /// Its first line.
    pub first_line: String,
}

impl From<&NoteInfo> for NoteRow {
    fn from(note: &NoteInfo) -> Self {
        Self {
            name: note.name.clone(),
            bytes: note.bytes,
            updated: note.updated,
            version: note.version.as_str().to_owned(),
            first_line: note.first_line.clone(),
        }
    }
}

/// One note read or written: what the model reads and the note's version now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteText {
    /// What the model reads.
    pub text: String,
    /// The note's version.
    pub version: String,
}

/// A deleted note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteDeleted {
    /// What the model reads.
    pub text: String,
    /// The version it had.
    pub version: String,
    /// Where its text lies in the trash.
    pub trash: String,
}

/// The brain of the session folder `cwd`, under the store root the environment names.
pub fn open_brain(ctx: &Context, cwd: &str) -> Result<Brain, AppError> {
    let root = ctx.notes_home()?;
    Ok(Brain::open(&root, Path::new(cwd))?)
}

/// A brain at a glance: whose it is, where it lies, how many notes it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrainSummary {
    /// The project folder the brain belongs to (the git root of the folder, else itself).
    pub project: PathBuf,
    /// The brain's own folder under the notes home.
    pub dir: PathBuf,
    /// How many notes it holds (none before the first write).
    pub notes: usize,
}

/// The brain of the session folder `cwd` at a glance; refused when `cwd` is not an existing
/// folder (`bad_cwd`) or its notes cannot be listed.
pub fn summary(ctx: &Context, cwd: &str) -> Result<BrainSummary, AppError> {
    let brain = open_brain(ctx, cwd)?;
    let notes = brain.list("")?.len();
    Ok(BrainSummary {
        project: brain.domain().to_path_buf(),
        dir: brain.dir().to_path_buf(),
        notes,
    })
}

fn version(v: Option<&String>) -> Option<Version> {
    v.cloned().map(Version::from_string)
}

/// `notes_list`.
pub fn list(ctx: &Context, cwd: &str, args: &ListArgs) -> Result<NotesList, AppError> {
    let brain = open_brain(ctx, cwd)?;
    let folder = args.folder.as_deref().unwrap_or_default();
    let notes = brain.list(folder)?;
    Ok(NotesList {
        text: render_list(&notes, folder),
        notes: notes.iter().map(NoteRow::from).collect(),
    })
}

/// `notes_read`.
pub fn read(ctx: &Context, cwd: &str, args: &ReadArgs) -> Result<NoteText, AppError> {
    let brain = open_brain(ctx, cwd)?;
    let note = brain.read(&args.name)?;
    Ok(NoteText {
        text: render_read(&note, args.offset, args.limit),
        version: note.version.as_str().to_owned(),
    })
}

/// `notes_write`.
pub fn write(ctx: &Context, cwd: &str, args: &WriteArgs) -> Result<NoteText, AppError> {
    let brain = open_brain(ctx, cwd)?;
    let written = brain.write(
        &args.name,
        &args.text,
        version(args.version.as_ref()).as_ref(),
    )?;
    Ok(NoteText {
        text: render_written(&written),
        version: written.version.as_str().to_owned(),
    })
}

/// `notes_edit`.
pub fn edit(ctx: &Context, cwd: &str, args: &EditArgs) -> Result<NoteText, AppError> {
    let brain = open_brain(ctx, cwd)?;
    let edit = Edit::from_fields(
        &args.name,
        args.old.clone(),
        args.new.clone(),
        args.append.clone(),
    )?;
    let written = brain.edit(&args.name, &edit, version(args.version.as_ref()).as_ref())?;
    Ok(NoteText {
        text: render_written(&written),
        version: written.version.as_str().to_owned(),
    })
}

/// `notes_delete`.
pub fn delete(ctx: &Context, cwd: &str, args: &DeleteArgs) -> Result<NoteDeleted, AppError> {
    let brain = open_brain(ctx, cwd)?;
    let deleted = brain.delete(&args.name, version(args.version.as_ref()).as_ref())?;
    Ok(NoteDeleted {
        text: render_delete(&deleted),
        version: deleted.version.as_str().to_owned(),
        trash: deleted.trash.to_string_lossy().into_owned(),
    })
}
