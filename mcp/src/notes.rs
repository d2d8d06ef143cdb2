//! The brain's notes as MCP resources: each note is `notesoup://note/{+name}` (its whole
//! text, `text/markdown`), listed by `resources/list` and named by one resource template.
//!
//! A note name may hold `/` (`project/goal`): the listed URI keeps it as it is
//! (`notesoup://note/project/goal`), and a URI a client expanded from the template with the
//! slash escaped (`project%2Fgoal`, as RFC 6570 expands `{name}`) names the same note.

use std::path::Path;

use notesoup_app::notes::open_brain;
use notesoup_app::{AppError, Context};
use notesoup_notes::NotesError;
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};

/// Where every note's URI starts.
pub(crate) const NOTE_PREFIX: &str = "notesoup://note/";
/// The notes' resource template.
pub(crate) const NOTE_TEMPLATE: &str = "notesoup://note/{+name}";
/// What a note's text is.
const MARKDOWN: &str = "text/markdown";

/// The template naming any note of the brain.
pub(crate) fn template() -> ResourceTemplate {
    ResourceTemplate::new(NOTE_TEMPLATE, "note")
        .with_title("A note of this project's brain")
        .with_description(
            "One note's whole text by its name, e.g. notesoup://note/plan or notesoup://note/project/goal.",
        )
        .with_mime_type(MARKDOWN)
}

/// Every note of the brain of `cwd`, by name: its URI, name, first line and size.
pub(crate) fn list(ctx: &Context, cwd: &Path) -> Result<Vec<Resource>, ErrorData> {
    let brain = open_brain(ctx, &cwd.to_string_lossy()).map_err(|err| refused(&err))?;
    let notes = brain.list("").map_err(|err| refused(&err.into()))?;
    Ok(notes
        .into_iter()
        .map(|note| {
            Resource::new(format!("{NOTE_PREFIX}{}", note.name), note.name.clone())
                .with_description(note.first_line)
                .with_mime_type(MARKDOWN)
                .with_size(note.bytes)
        })
        .collect())
}

/// The note `uri` names (it starts with [`NOTE_PREFIX`]) in the brain of `cwd`: its whole
/// text, or a JSON-RPC error saying in the reader's words why not.
pub(crate) fn read(ctx: &Context, cwd: &Path, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let raw = uri.strip_prefix(NOTE_PREFIX).unwrap_or(uri);
    let name = crate::uri::percent_decode(raw)
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| {
            ErrorData::invalid_params(
                format!("{uri} does not name a note: {raw} is not a note name"),
                Some(serde_json::json!({"uri": uri})),
            )
        })?;
    let brain = open_brain(ctx, &cwd.to_string_lossy()).map_err(|err| refused(&err))?;
    let note = brain.read(&name).map_err(|err| match err {
        NotesError::NotFound { .. } => ErrorData::resource_not_found(
            format!(
                "this project's brain has no note `{name}` ({}); resources/list lists its notes",
                brain.domain().display()
            ),
            Some(serde_json::json!({"uri": uri})),
        ),
        NotesError::BadName { reason, .. } => ErrorData::invalid_params(
            format!("{uri} does not name a note ({reason})"),
            Some(serde_json::json!({"uri": uri})),
        ),
        err => refused(&err.into()),
    })?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(note.text, uri).with_mime_type(MARKDOWN),
    ]))
}

/// A refusal of the brain itself (no notes home, a bad folder, an unreadable store).
fn refused(err: &AppError) -> ErrorData {
    ErrorData::internal_error(format!("notesoup cannot read the brain: {err}"), None)
}
