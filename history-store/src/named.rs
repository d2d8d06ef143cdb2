//! Which session a history request names: the live one (the transcript the harness bound,
//! read up to its live head) or one the corpus finds by selector.

use std::path::Path;

use notesoup_history_core::Selector;
use notesoup_window::Host;

use crate::StoreError;

/// The session a history request names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named<'a> {
    /// The live Claude session: its transcript (read up to the live head) and its session
    /// id, the transcript's file stem (empty when that is not UTF-8).
    Live {
        /// The transcript path, exactly as Claude gave it.
        path: &'a Path,
        /// The session id.
        session: String,
        /// The uuid of the latest main append: what the transcript is read up to.
        head: &'a str,
    },
    /// A session of the corpus, by its `<harness>:<id-or-prefix>` selector.
    Listed(&'a str),
}

/// Refuses a history tool `op` asked by a subagent (`agent`): every history tool, a listing
/// of sessions too, belongs to the main conversation ([`StoreError::Subagent`]).
///
/// ```
/// use notesoup_history_store::main_only;
///
/// assert!(main_only("history_sessions", None).is_ok());
/// assert_eq!(main_only("history_sessions", Some("a1")).unwrap_err().code(), "subagent");
/// ```
pub fn main_only(op: &str, agent: Option<&str>) -> Result<(), StoreError> {
    match agent {
        Some(agent) => Err(StoreError::Subagent {
            op: op.to_owned(),
            agent: agent.to_owned(),
        }),
        None => Ok(()),
    }
}

/// The session history tool `op` reads, named by `selector` (an explicit session) and
/// `transcript_path` (the live session's transcript, when one is bound) with `head` (the
/// live head): a selector names the live session when it is `claude:<id>` with exactly the
/// live transcript's id (so it keeps its live head), any other selector a corpus session
/// (so a caller resolves a prefix to its whole id first, as `notesoup-app` does: a prefix
/// of the live id names the live session too); no selector names the live session. Refused: a subagent's call (`agent`: history is the
/// main conversation's, [`StoreError::Subagent`]), neither a selector nor a live transcript
/// ([`StoreError::Unbound`]), the live session with no head yet ([`StoreError::NoHead`]).
///
/// ```
/// use std::path::Path;
/// use notesoup_history_store::{Named, named};
///
/// let (live, head) = (Some("/p/6e9d0c1a.jsonl"), Some("u1"));
/// let this = Named::Live { path: Path::new("/p/6e9d0c1a.jsonl"), session: "6e9d0c1a".into(), head: "u1" };
/// assert_eq!(named("history_list", None, None, live, head)?, this.clone());
/// assert_eq!(named("history_list", None, Some("claude:6e9d0c1a"), live, head)?, this);
/// assert_eq!(named("history_list", None, Some("claude:6e9d"), live, head)?, Named::Listed("claude:6e9d"));
/// let refused = |agent, live, head| named("history_list", agent, None, live, head).unwrap_err().code();
/// assert_eq!(refused(None, None, None), "history_unavailable");
/// assert_eq!(refused(None, live, None), "no_head");
/// assert_eq!(refused(Some("a1"), live, head), "subagent");
/// # Ok::<(), notesoup_history_store::StoreError>(())
/// ```
pub fn named<'a>(
    op: &str,
    agent: Option<&str>,
    selector: Option<&'a str>,
    transcript_path: Option<&'a str>,
    head: Option<&'a str>,
) -> Result<Named<'a>, StoreError> {
    main_only(op, agent)?;
    let path = transcript_path.map(Path::new);
    let stem = path.and_then(Path::file_stem).and_then(|s| s.to_str());
    if let Some(selector) = selector {
        let this = Selector::parse(selector)
            .ok()
            .filter(|s| s.harness == Host::Claude && stem == Some(s.id.as_str()));
        if this.is_none() {
            return Ok(Named::Listed(selector));
        }
    }
    let Some(path) = path else {
        return Err(StoreError::Unbound { op: op.to_owned() });
    };
    let Some(head) = head else {
        return Err(StoreError::NoHead { op: op.to_owned() });
    };
    Ok(Named::Live {
        path,
        session: stem.unwrap_or_default().to_owned(),
        head,
    })
}

#[cfg(test)]
mod tests;
