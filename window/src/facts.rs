//! [`WindowFacts`]: what a session's transcript says about the window it is in.

use crate::WindowId;

/// What a session's transcript says about the window the session is in now: what a new
/// process rebuilds its window state from when the session has no usable record (first
/// start, a fork, a deleted or refused record). A decoder reads it off a transcript
/// (`notesoup-history-claude::window_facts`); the reset flow starts from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowFacts {
    /// The window the session is in: `<host>:<session>:<n>`. `None` when no ordinal can be
    /// known: the ancestry stops at a record the file lacks (a fork of a session that had
    /// no notesoup boot) and no boot re-anchors it.
    pub window: Option<WindowId>,
    /// The newest retained boot naming the highest ordinal, as written (in a fork, its
    /// session is the parent's); `None` when the selected branch holds no boot.
    pub boot: Option<WindowId>,
    /// Compact boundaries after that boot (after the root when there is no boot): 0 means
    /// the current window holds the boot. `None` when the ordinal is unknown.
    pub compactions_since_boot: Option<u64>,
    /// The session the newest boot names, when it is not this one (a fork, or a copied
    /// transcript).
    pub forked_from: Option<String>,
}
