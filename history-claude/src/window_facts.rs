//! What a decoded transcript says about the window its session is in now: the state a new
//! process rebuilds when the session has no window record (first start, a fork, a deleted
//! or refused record).
//!
//! The decoder already numbers windows (0 at a root, +1 per compact boundary, re-anchored
//! by a retained notesoup boot); this reads the result for the reset flow:
//!
//! - **The current window** is `claude:<session>:<n>` with `n` the head's ordinal, but never
//!   less than the highest ordinal a retained boot on the selected branch names: an old
//!   boot the engine sends again after a newer one (a reactive compaction's retry) can
//!   never make a window ordinal open twice.
//! - **The newest boot** is the newest one (in append order) among those naming that
//!   highest ordinal; the compactions after it say whether the current window holds it
//!   (0) or was cleared since without one.
//! - **A fork**: the newest boot names another session (`--fork-session` copies the
//!   parent's transcript, boot included, under a new id). The ordinal is kept, and the
//!   caller starts the fork's own record; once the fork has a boot of its own, it is no
//!   longer reported as a fork.
//!
//! ```
//! use notesoup_history_claude::{Head, Options, decode, window_facts};
//!
//! let boot = "<notesoup-boot window=\\\"claude:parent:3\\\">\\nnotes\\n</notesoup-boot>";
//! let jsonl = format!(concat!(
//!     r#"{{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"fork","#,
//!     r#""message":{{"role":"user","content":"{}"}}}}"#, "\n",
//! ), boot);
//! let transcript = decode(jsonl.as_bytes(), &Options::default(), &Head::Leaf)?;
//! let facts = window_facts(&transcript, "fork")?;
//! assert_eq!(facts.window.unwrap().to_string(), "claude:fork:3");
//! assert_eq!(facts.forked_from.as_deref(), Some("parent"));
//! assert_eq!(facts.compactions_since_boot, Some(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use notesoup_history_core::{Body, Role, Transcript};
use notesoup_window::Host;
pub use notesoup_window::WindowFacts;
use notesoup_window::WindowId;
use notesoup_window::marker::{newest_highest, retained_window};

/// The harness name in a Claude window id.
const HOST: &str = Host::Claude.name();

/// A transcript that is not the session's it was asked about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WindowFactsError {
    /// The transcript belongs to another session.
    #[error("the transcript is session {found}'s, not {expected}'s")]
    OtherSession {
        /// The session asked about.
        expected: String,
        /// The transcript's session.
        found: String,
    },
    /// The session id cannot name a window (see `history-core::window`).
    #[error(transparent)]
    BadSession(#[from] notesoup_window::WindowIdError),
}

/// The window facts of `transcript` (decoded with the live head, or [`crate::Head::Leaf`]
/// offline) for `session`, its session id.
pub fn window_facts(
    transcript: &Transcript,
    session: &str,
) -> Result<WindowFacts, WindowFactsError> {
    if transcript.session.id != session {
        return Err(WindowFactsError::OtherSession {
            expected: session.to_owned(),
            found: transcript.session.id.clone(),
        });
    }
    // The boot naming the highest ordinal, the newest of those.
    let boot = newest_highest(
        transcript
            .events
            .iter()
            .filter(|e| matches!(e.role, Role::User | Role::Attachment))
            .filter_map(|e| match &e.body {
                Body::Text { text } => retained_window(text).filter(|w| w.host() == HOST),
                _ => None,
            }),
    );
    let boot_ordinal = boot.as_ref().map(|b| u64::from(b.ordinal()));
    let head = transcript.head_window.ordinal();
    let (ordinal, compactions_since_boot) = match (head, boot_ordinal) {
        (Some(h), Some(b)) => (Some(h.max(b)), Some(h.saturating_sub(b))),
        (Some(h), None) => (Some(h), Some(h)),
        (None, Some(b)) => (Some(b), None),
        (None, None) => (None, None),
    };
    let window = match ordinal {
        Some(n) => Some(WindowId::new(
            HOST,
            session,
            u32::try_from(n).unwrap_or(u32::MAX),
        )?),
        None => None,
    };
    let forked_from = boot
        .as_ref()
        .filter(|b| b.session() != session)
        .map(|b| b.session().to_owned());
    Ok(WindowFacts {
        window,
        boot,
        compactions_since_boot,
        forked_from,
    })
}
