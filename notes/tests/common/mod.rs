//! Setup the notes crate's integration tests share.

use notesoup_notes::Brain;

/// The names `brain.list(folder)` shows, in its order.
pub(crate) fn names(brain: &Brain, folder: &str) -> Vec<String> {
    let listed = brain.list(folder).unwrap();
    listed.into_iter().map(|n| n.name).collect()
}
