//! What a history with left-out bodies keeps of the documents a list for a literal visits
//! ([`Walk`]): the data only, held by [`crate::history::History`] and made and read by
//! `walk.rs`.

/// A fixed text longer than this is not kept: its document is visited by every list.
pub(crate) const ENTRY_MAX: usize = 512;

/// What a history with left-out bodies knows, for any literal, of the documents a list
/// visits (made once per history, on its first list for a literal).
#[derive(Debug, Clone, Default)]
pub(crate) struct Walk {
    /// Positions, ascending, of the listed documents with no body left out, or with a
    /// fixed text over [`ENTRY_MAX`] bytes: every list visits them.
    pub(crate) always: Vec<usize>,
    /// The fixed texts of the other documents with a left-out body but a text's (whose
    /// fixed part is nothing), each followed by a line break.
    pub(crate) fixed: String,
    /// Where each text of `fixed` starts, ascending, with its document's event index.
    pub(crate) entries: Vec<(usize, usize)>,
    /// One event index per name among the calls whose input is left out.
    pub(crate) names: Vec<usize>,
}
