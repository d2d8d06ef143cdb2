//! `boot`: the boot block of one window (and, after a reset, its handoff paragraph), built
//! from the brain of the session's folder.

use notesoup_boot::{BootInput, BootNote, DEFAULT_BUDGET, Reset, WindowId, boot_text, handoff};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Fields;
use super::notes::open_brain;
use crate::{Context, OpError, parse};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The session's working folder: picks the brain.
    cwd: String,
    /// `claude` or `pi`.
    host: String,
    /// The host's session id.
    session: String,
    /// 0 for the session's first window, one more per clear.
    ordinal: u32,
    /// The `last_word` of the reset that ended the previous window.
    #[serde(default)]
    last_word: Option<String>,
    /// Whether the history tools are available in this window.
    history: bool,
    /// How the previous window ended: `normal`, `forced`, or absent (no handoff).
    #[serde(default)]
    reset: Option<String>,
    /// Mixed into the handoff choice with the window id; the same seed and window always
    /// get the same paragraph.
    #[serde(default)]
    seed: String,
    /// Bytes of note contents to show at most.
    #[serde(default)]
    budget: Option<usize>,
}

pub(crate) fn run(request: Value, ctx: &Context) -> Result<Fields, OpError> {
    let req: Request = parse("boot", request)?;
    let window = WindowId::new(&req.host, &req.session, req.ordinal)
        .map_err(|err| OpError::new("bad_window", err.to_string()))?;
    let reset = req
        .reset
        .as_deref()
        .map(str::parse::<Reset>)
        .transpose()
        .map_err(OpError::bad_request)?;
    let brain = open_brain(ctx, &req.cwd)?;
    let notes: Vec<BootNote> = brain
        .snapshot()?
        .into_iter()
        .map(|n| BootNote {
            name: n.name,
            text: n.text,
            version: n.version.as_str().to_owned(),
            updated: n.updated,
        })
        .collect();
    let text = boot_text(&BootInput {
        window: &window,
        notes: &notes,
        last_word: req.last_word.as_deref(),
        history: req.history,
        budget: req.budget.unwrap_or(DEFAULT_BUDGET),
    })
    .map_err(|err| OpError::new("unknown_host", err.to_string()))?;
    let mut fields = Fields::new();
    fields.insert("window".into(), json!(window.to_string()));
    fields.insert("text".into(), json!(text));
    fields.insert(
        "handoff".into(),
        json!(reset.map(|r| handoff(r, &window, &req.seed))),
    );
    fields.insert("notes".into(), json!(notes.len()));
    Ok(fields)
}
