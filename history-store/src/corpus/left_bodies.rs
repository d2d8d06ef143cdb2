//! The bodies a Pi or Codex decoder left in their lines ([`LeftBodies`]), read again where
//! an answer shows them or a search may find its literal in them.

use std::fs::File;
use std::sync::Arc;

use notesoup_history_core::{
    Body, BodySource, Contains, History, LeftOut, Seq, Transcript, line_fingerprint, texts_hold,
};

use super::raw_needle::{RawNeedle, judged};
use crate::StoreError;
use crate::transcript_index::read_at;

/// The least size (of its texts) of a Pi or Codex body that [`Corpus::history`] leaves in
/// its line by default: a decode then holds a session's small texts and the places of its
/// large ones, never their text.
///
/// [`Corpus::history`]: crate::Corpus::history
pub const LEFT_IN_FILE_BYTES: usize = 16 << 10;

/// Decodes a line's text (its 1-based number given for refusals) to the bodies of the
/// events it yields, as the decoder that left them out made them.
pub(super) type LineBodies = fn(&str, usize) -> Result<Vec<Body>, String>;

/// The bodies a decoder left in the lines of the files it read, read again through the
/// handles the decode read them by (a file replaced since is never read, and a line
/// changed in place is refused by its fingerprint, never shown as another).
///
/// A search for the literal the decode was told of costs no read: the decoder noted which
/// bodies hold it. A search for another literal reads each line that holds a body left out
/// once, and decodes only the lines whose raw bytes may hold it (by the prefilter's rule,
/// for a literal the raw bytes judge: a body's texts hold it only inside one JSON string of
/// its line); a read reads the line of each body it shows.
pub(super) struct LeftBodies {
    /// The files, as the decoder numbered them (`None`: not one bodies were left in; only
    /// those stay open).
    files: Vec<Option<File>>,
    /// Their names, for refusals.
    names: Vec<String>,
    /// The events whose bodies were left out, in seq order, and where each lies.
    places: Vec<(Seq, LeftOut)>,
    /// The literal the decoder noted of each body, if any.
    literal: Option<String>,
    reload: LineBodies,
}

impl LeftBodies {
    /// The history of `transcript`, whose bodies a decoder left out where `left` says (one
    /// entry per event) in `files` (named `names`), read again by `reload`; `literal` is
    /// the one the decoder noted.
    pub(super) fn history(
        transcript: Transcript,
        left: Vec<Option<LeftOut>>,
        files: Vec<Option<File>>,
        names: Vec<String>,
        literal: Option<&str>,
        reload: LineBodies,
    ) -> Result<History, StoreError> {
        let flags: Vec<Option<bool>> = left.iter().map(|l| l.as_ref().map(|l| l.blank)).collect();
        let places: Vec<(Seq, LeftOut)> = transcript
            .events
            .iter()
            .zip(left)
            .filter_map(|(event, left)| Some((event.seq, left?)))
            .collect();
        if places.is_empty() {
            return Ok(History::new(transcript)?);
        }
        // Only the files bodies were left in stay open (a kept history holds them).
        let mut files = files;
        for (at, file) in files.iter_mut().enumerate() {
            if !places.iter().any(|(_, place)| place.file == at) {
                *file = None;
            }
        }
        let source = LeftBodies {
            files,
            names,
            places,
            literal: literal.map(str::to_owned),
            reload,
        };
        Ok(History::with_bodies(transcript, flags, Arc::new(source))?)
    }

    /// The bodies the line `place` names yields, read again and decoded.
    fn line(&self, place: &LeftOut) -> Result<Vec<Body>, String> {
        self.line_if(place, |_| true).map(Option::unwrap_or_default)
    }

    /// [`LeftBodies::line`], when `may` says its text may yield what is looked for (`None`
    /// when it says not).
    fn line_if(
        &self,
        place: &LeftOut,
        may: impl Fn(&[u8]) -> bool,
    ) -> Result<Option<Vec<Body>>, String> {
        let name = self.names.get(place.file).map_or("?", String::as_str);
        let file = self
            .files
            .get(place.file)
            .and_then(Option::as_ref)
            .ok_or_else(|| format!("{name}: the file is not open"))?;
        let mut bytes = vec![0; place.span.len()];
        read_at(file, &mut bytes, place.span.start as u64)
            .map_err(|err| format!("{name}: line {}: {err}", place.number))?;
        let changed = || format!("{name}: line {} changed since it was read", place.number);
        let text = std::str::from_utf8(&bytes).map_err(|_| changed())?;
        if line_fingerprint(text) != place.fingerprint {
            return Err(changed());
        }
        if !may(&bytes) {
            return Ok(None);
        }
        (self.reload)(text, place.number)
            .map(Some)
            .map_err(|why| format!("{name}: {why}"))
    }
}

impl BodySource for LeftBodies {
    fn body(&self, seq: Seq) -> Result<Body, String> {
        let at = self
            .places
            .binary_search_by_key(&seq, |(seq, _)| *seq)
            .map_err(|_| format!("seq {seq} was not left in its file"))?;
        let place = &self.places[at].1;
        self.line(place)?
            .into_iter()
            .nth(place.event)
            .ok_or_else(|| format!("seq {seq} is not in its line any more"))
    }

    fn may_contain(&self, query: &str) -> Option<Vec<(Seq, Contains)>> {
        if self.literal.as_deref() == Some(query) {
            return Some(
                self.places
                    .iter()
                    .filter(|(_, place)| place.holds)
                    .map(|(seq, _)| (*seq, Contains::Surely))
                    .collect(),
            );
        }
        // Another literal: each line read once (its events' places are side by side), and
        // its bodies decoded and looked in when its raw bytes may hold it. A line that
        // cannot be read: any body may hold it, and reading that body says why.
        let raw = RawNeedle::new(query, false);
        let raw = judged(&raw).then_some(raw);
        let may = |bytes: &[u8]| raw.as_ref().is_none_or(|raw| raw.may_hold(bytes));
        let mut out = Vec::new();
        let mut places = self.places.as_slice();
        while let Some((_, first)) = places.first() {
            let same = places
                .iter()
                .take_while(|(_, p)| p.file == first.file && p.span == first.span)
                .count();
            let bodies = self.line_if(first, may).ok()?.unwrap_or_default();
            for (seq, place) in &places[..same] {
                if bodies
                    .get(place.event)
                    .is_some_and(|b| texts_hold(b, query))
                {
                    out.push((*seq, Contains::Surely));
                }
            }
            places = &places[same..];
        }
        Some(out)
    }
}
