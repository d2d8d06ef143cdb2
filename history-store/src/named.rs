//! Which session a history request names: the live one (the transcript the harness bound,
//! read up to its live head) or one the corpus finds by selector.

use std::path::Path;

use notesoup_history_core::{Harness, Selector};

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
    },
    /// A session of the corpus, by its `<harness>:<id-or-prefix>` selector.
    Listed(&'a str),
}

/// The session named by `selector` (an explicit session) and `transcript_path` (the live
/// session's transcript, when one is bound): a selector names the live session when it is
/// `claude:<id>` with exactly the live transcript's id (so it keeps its live head), any
/// other selector a corpus session; no selector names the live session. `None`: neither is
/// given.
///
/// ```
/// use std::path::Path;
/// use notesoup_history_store::{Named, named};
///
/// let live = Some("/p/6e9d0c1a.jsonl");
/// let this = Named::Live { path: Path::new("/p/6e9d0c1a.jsonl"), session: "6e9d0c1a".into() };
/// assert_eq!(named(None, live), Some(this.clone()));
/// assert_eq!(named(Some("claude:6e9d0c1a"), live), Some(this));
/// assert_eq!(named(Some("claude:6e9d"), live), Some(Named::Listed("claude:6e9d")));
/// assert_eq!(named(None, None), None);
/// ```
pub fn named<'a>(selector: Option<&'a str>, transcript_path: Option<&'a str>) -> Option<Named<'a>> {
    let live = transcript_path.map(|path| {
        let path = Path::new(path);
        let session = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        Named::Live { path, session }
    });
    let Some(selector) = selector else {
        return live;
    };
    let this = Selector::parse(selector)
        .ok()
        .filter(|s| s.harness == Harness::Claude);
    match (this, live) {
        (Some(this), Some(Named::Live { path, session }))
            if path.file_stem().and_then(|s| s.to_str()) == Some(this.id.as_str()) =>
        {
            Some(Named::Live { path, session })
        }
        _ => Some(Named::Listed(selector)),
    }
}

#[cfg(test)]
mod tests;
