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
    let reset = req
        .reset
        .as_deref()
        .map(str::parse::<Reset>)
        .transpose()
        .map_err(OpError::bad_request)?;
    let built = build(
        ctx,
        &BootRequest {
            cwd: &req.cwd,
            host: &req.host,
            session: &req.session,
            ordinal: req.ordinal,
            last_word: req.last_word.as_deref(),
            history: req.history,
            reset,
            seed: &req.seed,
            budget: req.budget,
        },
    )?;
    let mut fields = Fields::new();
    fields.insert("window".into(), json!(built.window.to_string()));
    fields.insert("text".into(), json!(built.text));
    fields.insert("handoff".into(), json!(built.handoff));
    fields.insert("notes".into(), json!(built.notes));
    Ok(fields)
}

/// What one boot is built from (the `boot` op's request, parsed).
pub(crate) struct BootRequest<'a> {
    pub(crate) cwd: &'a str,
    pub(crate) host: &'a str,
    pub(crate) session: &'a str,
    pub(crate) ordinal: u32,
    pub(crate) last_word: Option<&'a str>,
    pub(crate) history: bool,
    pub(crate) reset: Option<Reset>,
    pub(crate) seed: &'a str,
    pub(crate) budget: Option<usize>,
}

/// One built boot: its window, text, handoff paragraph (after a reset) and note count.
pub(crate) struct Built {
    pub(crate) window: WindowId,
    pub(crate) text: String,
    pub(crate) handoff: Option<&'static str>,
    pub(crate) notes: usize,
}

/// Builds the boot of one window from the brain of `cwd` (the `boot` op, and the `hook`
/// op's boots for `prompt.context` and an answered compaction).
pub(crate) fn build(ctx: &Context, req: &BootRequest<'_>) -> Result<Built, OpError> {
    let window = WindowId::new(req.host, req.session, req.ordinal)
        .map_err(|err| OpError::new("bad_window", err.to_string()))?;
    let brain = open_brain(ctx, req.cwd)?;
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
        last_word: req.last_word,
        history: req.history,
        budget: req.budget.unwrap_or(DEFAULT_BUDGET),
    })
    .map_err(|err| OpError::new("unknown_host", err.to_string()))?;
    let handoff = req.reset.map(|r| handoff(r, &window, req.seed));
    Ok(Built {
        notes: notes.len(),
        window,
        text,
        handoff,
    })
}
