//! `notes_list`, `notes_read`, `notes_write`, `notes_edit`, `notes_delete`: the five notes
//! tools. Each request is `{"cwd": <session folder>, "args": <the tool input as the model
//! sent it>}`; each reply carries `text` (what the model reads) and, where there is one
//! note, its `version`.

use std::path::Path;

use notesoup_notes::{
    Brain, Edit, NotesError, Version, render_delete, render_list, render_read, render_written,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::Fields;
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request<A> {
    cwd: String,
    args: A,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    folder: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    name: String,
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    name: String,
    text: String,
    #[serde(default)]
    version: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditArgs {
    name: String,
    #[serde(default)]
    old: Option<String>,
    #[serde(default)]
    new: Option<String>,
    #[serde(default)]
    append: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteArgs {
    name: String,
    #[serde(default)]
    version: Option<String>,
}

/// The brain of a request's `cwd`, under the store root the environment names.
pub(crate) fn open_brain(ctx: &Context, cwd: &str) -> Result<Brain, OpError> {
    let root = ctx.notes_home()?;
    Ok(Brain::open(&root, Path::new(cwd))?)
}

/// A store refusal as the protocol's error: its code and its one-line message.
impl From<NotesError> for OpError {
    fn from(err: NotesError) -> Self {
        OpError::new(err.code(), err.to_string())
    }
}

fn parse_request<A: DeserializeOwned>(
    op: &str,
    request: Value,
    ctx: &Context,
) -> Result<(Brain, A), OpError> {
    let Request { cwd, args } = parse::<Request<A>>(op, request)?;
    Ok((open_brain(ctx, &cwd)?, args))
}

fn version(v: Option<String>) -> Option<Version> {
    v.map(Version::from_string)
}

fn reply(text: &str, version: Option<&Version>) -> Fields {
    let mut fields = Fields::new();
    fields.insert("text".into(), json!(text));
    if let Some(v) = version {
        fields.insert("version".into(), json!(v.as_str()));
    }
    fields
}

pub(crate) fn list(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (brain, args) = parse_request::<ListArgs>("notes_list", request, ctx)?;
    let folder = args.folder.unwrap_or_default();
    let notes = brain.list(&folder)?;
    let mut fields = reply(&render_list(&notes, &folder), None);
    fields.insert("notes".into(), notes.iter().map(crate::note_json).collect());
    Ok(fields)
}

pub(crate) fn read(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (brain, args) = parse_request::<ReadArgs>("notes_read", request, ctx)?;
    let note = brain.read(&args.name)?;
    Ok(reply(
        &render_read(&note, args.offset, args.limit),
        Some(&note.version),
    ))
}

pub(crate) fn write(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (brain, args) = parse_request::<WriteArgs>("notes_write", request, ctx)?;
    let written = brain.write(&args.name, &args.text, version(args.version).as_ref())?;
    Ok(reply(&render_written(&written), Some(&written.version)))
}

pub(crate) fn edit(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (brain, args) = parse_request::<EditArgs>("notes_edit", request, ctx)?;
    let edit = Edit::from_fields(&args.name, args.old, args.new, args.append)?;
    let written = brain.edit(&args.name, &edit, version(args.version).as_ref())?;
    Ok(reply(&render_written(&written), Some(&written.version)))
}

pub(crate) fn delete(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let (brain, args) = parse_request::<DeleteArgs>("notes_delete", request, ctx)?;
    let deleted = brain.delete(&args.name, version(args.version).as_ref())?;
    let mut fields = reply(&render_delete(&deleted), Some(&deleted.version));
    fields.insert("trash".into(), json!(deleted.trash.to_string_lossy()));
    Ok(fields)
}
