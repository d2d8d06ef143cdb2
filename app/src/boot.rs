//! `boot` as a typed function: the boot block of one window (and, after a reset, its
//! handoff paragraph), built from the brain of the session's folder.

/// How the previous window ended (`normal`, `forced`): which handoff a boot carries.
pub use notesoup_boot::Reset;
use notesoup_boot::{BootInput, BootNote, DEFAULT_BUDGET, WindowId, boot_text, handoff};
use serde::{Deserialize, Serialize};

use crate::notes::open_brain;
use crate::{AppError, Context};

/// What one boot is built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootRequest<'a> {
    /// The session's working folder: picks the brain.
    pub cwd: &'a str,
    /// The host (`claude`, `pi`, `mcp`, ...).
    pub host: &'a str,
    /// The host's session id.
    pub session: &'a str,
    /// 0 for the session's first window, one more per clear.
    pub ordinal: u32,
    /// The `last_word` of the reset that ended the previous window.
    pub last_word: Option<&'a str>,
    /// Whether the history tools are available in this window.
    pub history: bool,
    /// Whether notesoup clears this window when it fills: false for a window the host keeps
    /// no session for (a Pi run with `--no-session`), whose boot promises no reset.
    pub resets: bool,
    /// How the previous window ended; `None`: no handoff.
    pub reset: Option<Reset>,
    /// Mixed into the handoff choice with the window id.
    pub seed: &'a str,
    /// Bytes of note contents to show at most (default [`DEFAULT_BUDGET`]).
    pub budget: Option<usize>,
}

impl<'a> BootRequest<'a> {
    /// The boot of a window notesoup does not clear (an MCP client's, a Pi run with no
    /// session file): the first window, history on, nothing of resets, no handoff.
    pub fn unreset(cwd: &'a str, host: &'a str, session: &'a str) -> Self {
        Self {
            cwd,
            host,
            session,
            ordinal: 0,
            last_word: None,
            history: true,
            resets: false,
            reset: None,
            seed: "",
            budget: None,
        }
    }
}

/// A [`BootRequest`] as a front end's request carries it (owned, the reset as its name).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BootArgs {
    /// The session's working folder: picks the brain.
    pub cwd: String,
    /// `claude` or `pi`.
    pub host: String,
    /// The host's session id.
    pub session: String,
    /// 0 for the session's first window, one more per clear.
    pub ordinal: u32,
    /// The `last_word` of the reset that ended the previous window.
    #[serde(default)]
    pub last_word: Option<String>,
    /// Whether the history tools are available in this window.
    pub history: bool,
    /// How the previous window ended: `normal`, `forced`, or absent (no handoff).
    #[serde(default)]
    pub reset: Option<String>,
    /// Mixed into the handoff choice with the window id; the same seed and window always
    /// get the same paragraph.
    #[serde(default)]
    pub seed: String,
    /// Bytes of note contents to show at most.
    #[serde(default)]
    pub budget: Option<usize>,
}

impl BootArgs {
    /// The request these arguments make; a `reset` that is neither `normal` nor `forced`
    /// is refused.
    pub fn request(&self) -> Result<BootRequest<'_>, AppError> {
        let reset = (self.reset.as_deref())
            .map(str::parse::<Reset>)
            .transpose()
            .map_err(AppError::BadReset)?;
        Ok(BootRequest {
            cwd: &self.cwd,
            host: &self.host,
            session: &self.session,
            ordinal: self.ordinal,
            last_word: self.last_word.as_deref(),
            history: self.history,
            resets: true,
            reset,
            seed: &self.seed,
            budget: self.budget,
        })
    }
}

/// One built boot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Boot {
    /// The window's id.
    #[serde(serialize_with = "as_text")]
    pub window: WindowId,
    /// The boot block.
    pub text: String,
    /// The handoff paragraph, after a reset.
    pub handoff: Option<&'static str>,
    /// How many notes the brain holds.
    pub notes: usize,
}

/// Builds the boot of one window from the brain of `req.cwd`.
pub fn build(ctx: &Context, req: &BootRequest<'_>) -> Result<Boot, AppError> {
    let window = WindowId::new(req.host, req.session, req.ordinal)?;
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
        resets: req.resets,
        budget: req.budget.unwrap_or(DEFAULT_BUDGET),
    })?;
    let handoff = req.reset.map(|r| handoff(r, &window, req.seed));
    Ok(Boot {
        window,
        text,
        notes: notes.len(),
        handoff,
    })
}

/// A window id as its text (`claude:<id>:2`).
fn as_text<S: serde::Serializer>(window: &WindowId, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(window)
}
