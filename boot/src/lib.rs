//! notesoup's boot text: what every fresh context window reads first.
//!
//! * [`boot_text`] renders the **boot** block for one window from a [`BootInput`]: the
//!   protocol block (how to keep notes, when the budget warning comes, the host's reset
//!   tool), the [`WindowId`], the notes snapshot within a byte budget, the sticky last word
//!   of the previous reset, and whether history is available.
//! * [`warning`] renders the **budget warning**: one text for every host, ending with the
//!   reset tool's name and the tokens (or percent of the window) left.
//! * [`handoff`] picks the **handoff** paragraph placed after the boot of a fresh window
//!   ([`opening`] joins them),
//!   from the *normal* pool (the model reset itself) or the *forced* pool (the window was
//!   cleared without it), deterministically from the window id and a seed.
//! * [`MEMORY_SKILL`], [`DREAM_SKILL`] and [`DREAM_PLAYBOOK`] are the canonical skill texts
//!   (`boot/skills/`, `boot/playbook/`); the plugins ship byte-identical copies.
//!
//! The texts live in `boot/text/*.md`, included at build time; `{name}` placeholders in them
//! are filled with tool names and figures.
//!
//! # Invariants
//!
//! - A boot has exactly one opening and one closing marker line.
//! - The warning is the same text for every host but the reset tool's name, and ends with
//!   that name and what is left.
//! - Every text is a pure function of its inputs; the handoff of (pool, window id, seed).
//! - The plugins' copies of the skills and the playbook are byte-identical to
//!   `boot/skills/` and `boot/playbook/` (`boot/tests/skills_in_sync.rs` checks them).
//!
//! ```
//! use notesoup_boot::{
//!     BootInput, BootNote, Clearing, Countdown, Host, Reset, WindowId, boot_text, handoff, warning,
//! };
//!
//! # fn main() -> Result<(), notesoup_boot::BootError> {
//! let window: WindowId = "claude:6e9d0c1a:2".parse()?;
//! let notes = [BootNote {
//!     name: "plans/today".into(),
//!     text: "1. fix the parser\n".into(),
//!     version: "a1b2c3d4e5f60718".into(),
//!     updated: 1_764_688_200,
//! }];
//! let input = BootInput {
//!     window: &window,
//!     notes: &notes,
//!     last_word: Some("parser: the off-by-one is in lex()"),
//!     history: true,
//!     resets: true,
//!     budget: notesoup_boot::DEFAULT_BUDGET,
//! };
//! let text = boot_text(&input)?;
//! assert!(text.starts_with("<notesoup-boot window=\"claude:6e9d0c1a:2\">\n"));
//! assert!(text.ends_with("\n</notesoup-boot>"));
//! assert!(text.contains("1. fix the parser"));
//!
//! // The same window always gets the same handoff.
//! assert_eq!(handoff(Reset::Normal, &window, "seed"), handoff(Reset::Normal, &window, "seed"));
//!
//! let w = warning(Host::Claude, Countdown::Tokens(12_345), Clearing::Automatic);
//! assert!(w.ends_with("`mcp__notesoup__empty_brain`. Left before the automatic clear: 12,345 tokens."));
//! # Ok(())
//! # }
//! ```
//!
//! # Design: the snapshot budget
//!
//! The boot shows every note's name in an index, but note *contents* only up to
//! [`BootInput::budget`] bytes. When the notes are over it, the largest are left out first
//! (the oldest first among equals), which keeps the most notes whole; the ones left out are
//! named with their size, to be read with the read tool. The cost: one huge fresh note is
//! left out before several stale small ones. Lines of a note that would look like the boot's
//! own opening or closing line, or a note's closing tag, are indented by one space.

#![forbid(unsafe_code)]

use std::fmt::{self, Write as _};
use std::str::FromStr;

use notesoup_window::UnknownHost;
use notesoup_window::marker;
pub use notesoup_window::{Host, WindowId, WindowIdError};
use notesoup_window::{format_utc, thousands};

/// The contents budget of a boot's notes snapshot, in bytes, when the caller has no other.
pub const DEFAULT_BUDGET: usize = 24 * 1024;

/// The most notes a boot's index names (a brain of many tiny notes would otherwise make the
/// index itself overflow the window); the rest are counted.
pub const MAX_INDEX: usize = 200;

/// The most left-out notes the boot names one by one; the rest are counted.
const MAX_NAMED_LEFT_OUT: usize = 50;

/// The canonical memory skill (`boot/skills/memory/SKILL.md`).
pub const MEMORY_SKILL: &str = include_str!("../skills/memory/SKILL.md");
/// The canonical dream skill (`boot/skills/dream/SKILL.md`).
pub const DREAM_SKILL: &str = include_str!("../skills/dream/SKILL.md");
/// The canonical dream playbook (`boot/playbook/dream.md`).
pub const DREAM_PLAYBOOK: &str = include_str!("../playbook/dream.md");

/// The opening (title and first paragraph) for hosts that run the reset flow: windows are
/// cleared, the last word carries over.
const INTRO_RESET: &str = include_str!("../text/intro-reset.md");
/// The opening for MCP clients: no reset flow, so nothing about cleared windows or a last
/// word; the brain outlives the session and is shared with the other agents.
const INTRO_MCP: &str = include_str!("../text/intro-mcp.md");
const PROTOCOL: &str = include_str!("../text/protocol.md");
/// The part of the protocol about the budget warning and the reset tool: only for hosts
/// that run notesoup's reset flow.
const PROTOCOL_RESET: &str = include_str!("../text/protocol-reset.md");
const HISTORY_ON: &str = include_str!("../text/history-on.md");
const HISTORY_OFF: &str = include_str!("../text/history-off.md");
/// History for MCP clients: no current session is bound, so a session is named explicitly.
const HISTORY_ON_MCP: &str = include_str!("../text/history-on-mcp.md");
const WARNING: &str = include_str!("../text/warning.md");
/// The warning's last words when the window is cleared by itself at the point.
const WARNING_AUTOMATIC_CLEAR: &str = include_str!("../text/warning-automatic-clear.md");
/// The warning's last words when only the reset tool clears the window.
const WARNING_RESET_ONLY: &str = include_str!("../text/warning-reset-only.md");
const HANDOFF_NORMAL: &str = include_str!("../text/handoff-normal.md");
const HANDOFF_FORCED: &str = include_str!("../text/handoff-forced.md");

/// Why a boot could not be made; each variant carries the input at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BootError {
    /// The window id is not `<host>:<sessionId>:<ordinal>` (the error names it).
    #[error(transparent)]
    BadWindowId(#[from] WindowIdError),
    /// The window's host is none notesoup knows (the error names it).
    #[error(transparent)]
    UnknownHost(#[from] UnknownHost),
}

/// One note as the boot shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootNote {
    /// The note's name.
    pub name: String,
    /// Its whole text.
    pub text: String,
    /// Its version, as the store reports it.
    pub version: String,
    /// When it was last written, in seconds since the Unix epoch.
    pub updated: u64,
}

/// Everything a boot is made of.
#[derive(Debug, Clone, Copy)]
pub struct BootInput<'a> {
    /// The window this boot opens; its host picks the tool names.
    pub window: &'a WindowId,
    /// The brain's notes, in any order (the boot sorts them by name).
    pub notes: &'a [BootNote],
    /// The last word the model left when it reset the previous window, if any (shown only
    /// where the window resets).
    pub last_word: Option<&'a str>,
    /// Whether the history tools are available in this window.
    pub history: bool,
    /// Whether notesoup clears this window when it fills (the host runs the reset flow
    /// for it): false for a window the host keeps no session for (a subagent's, a Pi run
    /// with `--no-session`), whose boot then says nothing of clears, warnings or the reset
    /// tool. A host without the reset flow (MCP) never resets.
    pub resets: bool,
    /// The most bytes of note contents to show (see the crate docs).
    pub budget: usize,
}

/// Why the window before this one ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reset {
    /// The model called the reset tool itself.
    Normal,
    /// The window was cleared without it (the budget ran out).
    Forced,
}

impl FromStr for Reset {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "normal" => Ok(Self::Normal),
            "forced" => Ok(Self::Forced),
            _ => Err(format!(
                "unknown reset kind `{s}`; expected normal or forced"
            )),
        }
    }
}

/// The boot block: from `<notesoup-boot window="...">` to `</notesoup-boot>`, no trailing
/// newline.
pub fn boot_text(input: &BootInput<'_>) -> Result<String, BootError> {
    let host: Host = input.window.host().parse()?;
    let resets = input.resets && host.has_reset_flow();
    let mut out = format!("{}\n", input.window.marker_line());
    out.push_str(if resets { INTRO_RESET } else { INTRO_MCP });
    out.push_str(&fill(PROTOCOL, host, &[]));
    if resets {
        out.push_str(&fill(PROTOCOL_RESET, host, &[]));
    } else {
        // The protocol ends with the blank line that leads into the reset part.
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    let last_word = (input.last_word.map(str::trim)).filter(|w| resets && !w.is_empty());
    if let Some(word) = last_word {
        let _ = write!(
            out,
            "\n## Your last word\n\nLeft by you when you reset the window before this one:\n\n{}\n",
            guard(word, false)
        );
    }
    out.push_str("\n## Your notes\n\n");
    snapshot(&mut out, input.notes, input.budget, host);
    out.push_str("\n## History\n\n");
    out.push_str(&fill(
        if input.history && !resets {
            HISTORY_ON_MCP
        } else if input.history {
            HISTORY_ON
        } else {
            HISTORY_OFF
        },
        host,
        &[],
    ));
    out.push_str(marker::CLOSE);
    Ok(out)
}

/// The handoff paragraph for a window that follows a reset of this kind: one of its pool,
/// chosen by the window id and `seed`, the same every time for the same inputs.
pub fn handoff(reset: Reset, window: &WindowId, seed: &str) -> &'static str {
    let pool = handoff_pool(reset);
    let key = format!("{window}\u{0}{seed}");
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let len = u64::try_from(pool.len()).unwrap_or(1).max(1);
    let index = usize::try_from(hash % len).unwrap_or(0);
    pool.get(index).copied().unwrap_or("")
}

/// The text a fresh window opens with: the boot, then (after a reset) the handoff paragraph
/// on the next line.
///
/// ```
/// assert_eq!(notesoup_boot::opening("<boot>", Some("Carry on.")), "<boot>\nCarry on.");
/// assert_eq!(notesoup_boot::opening("<boot>", None), "<boot>");
/// ```
pub fn opening(boot: &str, handoff: Option<&str>) -> String {
    match handoff {
        Some(handoff) if !handoff.is_empty() => format!("{boot}\n{handoff}"),
        _ => boot.to_owned(),
    }
}

/// Every paragraph of one handoff pool, in file order.
pub fn handoff_pool(reset: Reset) -> Vec<&'static str> {
    let file = match reset {
        Reset::Normal => HANDOFF_NORMAL,
        Reset::Forced => HANDOFF_FORCED,
    };
    file.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// How much room a window has left before its clearing point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Countdown {
    /// Tokens left (the normal case).
    Tokens(u64),
    /// Percent of the window left (when the host reports only a percentage).
    Percent(u64),
}

impl Countdown {
    /// The countdown of a window holding `used` tokens to its clear at `clear_at` tokens:
    /// what is left, never below 0 (the warning counts down to notesoup's clear, not to
    /// the engine's own compaction).
    ///
    /// ```
    /// use notesoup_boot::Countdown;
    /// assert_eq!(Countdown::tokens_to(158_808, 150_000), Countdown::Tokens(8_808));
    /// assert_eq!(Countdown::percent_to(80, 91).left(), 0);
    /// ```
    pub fn tokens_to(clear_at: u64, used: u64) -> Self {
        Self::Tokens(clear_at.saturating_sub(used))
    }

    /// The same countdown in whole percent of the window (when only a percentage is known).
    pub fn percent_to(clear_at: u64, used: u64) -> Self {
        Self::Percent(clear_at.saturating_sub(used))
    }

    /// What is left, in the countdown's unit.
    pub fn left(self) -> u64 {
        match self {
            Self::Tokens(n) | Self::Percent(n) => n,
        }
    }
}

impl fmt::Display for Countdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tokens(1) => f.write_str("1 token"),
            Self::Tokens(n) => write!(f, "{} tokens", thousands(*n)),
            Self::Percent(n) => write!(f, "{n}% of the window"),
        }
    }
}

/// What comes when the countdown runs out: what the warning's last words say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clearing {
    /// The window is cleared by itself at the point (the host's automatic compaction is on).
    Automatic,
    /// Nothing clears the window by itself (automatic compaction is off): only the reset
    /// tool does, and past the host's own limit every request fails.
    ResetOnly,
}

/// The budget warning: the same text for every host but the reset tool's name, ending with
/// that name, what comes at the point (`clearing`) and the countdown to it.
///
/// ```
/// use notesoup_boot::{Clearing, Countdown, Host, warning};
/// let off = warning(Host::Claude, Countdown::Tokens(11_808), Clearing::ResetOnly);
/// assert!(off.ends_with("call it within the next 11,808 tokens."));
/// assert!(!off.contains("automatic clear"));
/// ```
pub fn warning(host: Host, left: Countdown, clearing: Clearing) -> String {
    let countdown = match clearing {
        Clearing::Automatic => WARNING_AUTOMATIC_CLEAR,
        Clearing::ResetOnly => WARNING_RESET_ONLY,
    };
    let countdown = countdown.trim_end().replace("{left}", &left.to_string());
    fill(WARNING, host, &[("countdown", &countdown)])
        .trim_end()
        .to_owned()
}

/// Fill `{tool}` placeholders with the host's tool names, and any `extra` ones.
fn fill(template: &str, host: Host, extra: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for tool in [
        "notes_list",
        "notes_read",
        "notes_write",
        "notes_edit",
        "notes_delete",
        "empty_brain",
        "history_sessions",
        "history_list",
        "history_read",
    ] {
        out = out.replace(&format!("{{{tool}}}"), &format!("`{}`", host.tool(tool)));
    }
    for (key, value) in extra {
        out = out.replace(&format!("{{{key}}}"), value);
    }
    out
}

/// The notes section: an index of every note, then the contents within `budget`.
fn snapshot(out: &mut String, notes: &[BootNote], budget: usize, host: Host) {
    if notes.is_empty() {
        let _ = writeln!(
            out,
            "The brain is empty: no notes yet. Start one with {} as soon as you know the task.",
            tool(host, "notes_write")
        );
        return;
    }
    let mut sorted: Vec<&BootNote> = notes.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let total: usize = sorted.iter().map(|n| n.text.len()).sum();
    let left_out = over_budget(&sorted, budget);
    let _ = writeln!(
        out,
        "{} note{}, {total} bytes. Index (name | bytes | updated | version):\n",
        sorted.len(),
        if sorted.len() == 1 { "" } else { "s" }
    );
    for n in sorted.iter().take(MAX_INDEX) {
        let _ = writeln!(
            out,
            "- {} | {} | {} | {}",
            n.name,
            n.text.len(),
            format_utc(n.updated),
            n.version
        );
    }
    if sorted.len() > MAX_INDEX {
        let _ = writeln!(
            out,
            "- ... and {} more; {} shows them all",
            sorted.len() - MAX_INDEX,
            tool(host, "notes_list")
        );
    }
    for n in sorted
        .iter()
        .filter(|n| !left_out.contains(&n.name.as_str()))
    {
        let _ = write!(
            out,
            "\n<note name=\"{}\" version=\"{}\">\n{}",
            n.name,
            n.version,
            guard(&n.text, true)
        );
        if !n.text.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("</note>\n");
    }
    if !left_out.is_empty() {
        let mut named: Vec<String> = left_out
            .iter()
            .take(MAX_NAMED_LEFT_OUT)
            .filter_map(|name| sorted.iter().find(|n| n.name == *name))
            .map(|n| format!("{} ({} bytes)", n.name, n.text.len()))
            .collect();
        if left_out.len() > MAX_NAMED_LEFT_OUT {
            named.push(format!("and {} more", left_out.len() - MAX_NAMED_LEFT_OUT));
        }
        let _ = writeln!(
            out,
            "\nNot shown, over this boot's {budget}-byte budget for note contents (largest first): {}. Read them with {} when you need them.",
            named.join(", "),
            tool(host, "notes_read")
        );
    }
}

/// The names whose contents do not fit: the largest first, the oldest first among equals.
fn over_budget<'n>(notes: &[&'n BootNote], budget: usize) -> Vec<&'n str> {
    let mut total: usize = notes.iter().map(|n| n.text.len()).sum();
    let mut by_cost: Vec<&BootNote> = notes.to_vec();
    by_cost.sort_by(|a, b| {
        b.text
            .len()
            .cmp(&a.text.len())
            .then(a.updated.cmp(&b.updated))
            .then(a.name.cmp(&b.name))
    });
    let mut out = Vec::new();
    for n in by_cost {
        if total <= budget {
            break;
        }
        total -= n.text.len();
        out.push(n.name.as_str());
    }
    out
}

/// Indent lines that would read as the boot's own markers (or, in a note, its closing tag).
fn guard(text: &str, in_note: bool) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let t = line.trim_start();
            let marker = t.starts_with("<notesoup-boot")
                || t.starts_with("</notesoup-boot")
                || (in_note && t.starts_with("</note>"));
            if marker {
                format!(" {line}")
            } else {
                line.to_owned()
            }
        })
        .collect()
}

fn tool(host: Host, name: &str) -> String {
    format!("`{}`", host.tool(name))
}

#[cfg(test)]
mod tests;
