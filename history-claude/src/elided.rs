//! What a structure-only state keeps of a row in place of its bodies ([`Elided`]): the
//! fingerprint a repeat of the row must match, and whether its text is blank. One home for
//! both, read by the line parse (`rows`, which skims a line into them) and by the decoder
//! and its saved state (which check a repeat against them).

use notesoup_history_core::{Body, Event, Role};

/// What a structure-only state keeps of a row's bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elided {
    /// [`fingerprint`] of the row's events (the duplicate check of a repeat).
    pub(crate) fingerprint: Fingerprint,
    /// True when the row's first event (its text) is blank.
    pub(crate) blank: bool,
}

/// A 128-bit [`fingerprint`], held as two words: aligned as a word is, so a node that holds
/// one (every resumed row's) is not padded to 16 bytes (24 bytes fewer a node).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint([u64; 2]);

impl Fingerprint {
    /// The fingerprint as the state writes it (little-endian).
    pub(crate) fn to_le_bytes(self) -> [u8; 16] {
        u128::from(self).to_le_bytes()
    }

    /// The fingerprint the state wrote as `bytes`.
    pub(crate) fn from_le_bytes(bytes: [u8; 16]) -> Self {
        u128::from_le_bytes(bytes).into()
    }
}

impl From<u128> for Fingerprint {
    fn from(v: u128) -> Self {
        // The low word, then the high one (the truncation is the split).
        #[allow(clippy::cast_possible_truncation, reason = "each word is one half")]
        Fingerprint([v as u64, (v >> 64) as u64])
    }
}

impl From<Fingerprint> for u128 {
    fn from(f: Fingerprint) -> Self {
        u128::from(f.0[0]) | (u128::from(f.0[1]) << 64)
    }
}

/// A body's fields as [`fingerprint`] reads them, wherever they are held (a decoded
/// [`Body`], or the texts of a line being skimmed).
#[derive(Debug, Clone, Copy)]
pub(crate) enum BodyRef<'a> {
    Text(&'a str),
    Call {
        id: &'a str,
        name: &'a str,
        input: &'a str,
    },
    Result {
        id: &'a str,
        text: &'a str,
        is_error: bool,
    },
}

impl<'a> From<&'a Body> for BodyRef<'a> {
    fn from(body: &'a Body) -> Self {
        match body {
            Body::Text { text } => BodyRef::Text(text),
            Body::ToolCall { id, name, input } => BodyRef::Call { id, name, input },
            Body::ToolResult { id, text, is_error } => BodyRef::Result {
                id,
                text,
                is_error: *is_error,
            },
        }
    }
}

/// A 128-bit hash of a row's events (roles and whole bodies, in order): a repeat of a row
/// whose events were elided must have the same.
pub(crate) fn fingerprint<'a>(events: impl Iterator<Item = (Role, BodyRef<'a>)>) -> Fingerprint {
    // Each field's length and xxh3-128 (read in place, never copied), then xxh3-128 of those.
    let mut buf = Vec::with_capacity(256);
    let mut put = |bytes: &[u8]| {
        buf.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        buf.extend_from_slice(&twox_hash::xxh3::hash128(bytes).to_le_bytes());
    };
    for (role, body) in events {
        put(role.name().as_bytes());
        match body {
            BodyRef::Text(text) => {
                put(b"text");
                put(text.as_bytes());
            }
            BodyRef::Call { id, name, input } => {
                put(b"call");
                put(id.as_bytes());
                put(name.as_bytes());
                put(input.as_bytes());
            }
            BodyRef::Result { id, text, is_error } => {
                put(if is_error { b"error" } else { b"result" });
                put(id.as_bytes());
                put(text.as_bytes());
            }
        }
    }
    twox_hash::xxh3::hash128(&buf).into()
}

/// The fingerprint of a row's decoded events.
pub(crate) fn fingerprint_of(events: &[(Role, Body)]) -> Fingerprint {
    fingerprint(events.iter().map(|(role, body)| (*role, body.into())))
}

/// True when a text is blank (what lists and the branch selection pass over): history-core's
/// one rule.
pub(crate) use notesoup_history_core::blank;

/// True when the first of `events` is a blank text.
pub(crate) fn blank_first(events: &[Event]) -> bool {
    matches!(events.first(), Some(Event { body: Body::Text { text }, .. }) if blank(text))
}
