//! [`WordHash`]: the fast hasher for the short, user-owned keys decoders and the index
//! look up (uuids, tool ids).

use std::hash::{BuildHasherDefault, Hasher};

/// A word-at-a-time multiplicative hash (in the manner of rustc's `FxHash`) for short keys
/// such as uuids and tool ids. The default `SipHash` (and byte-at-a-time FNV before this)
/// showed up in profiles of 100 MB transcripts; its protection against chosen keys buys
/// nothing here, since the input is the user's own transcript. Not for keys an adversary
/// picks.
///
/// ```
/// use std::collections::HashMap;
/// use std::hash::Hasher;
/// use notesoup_history_core::{WordHash, WordHashBuilder};
///
/// let mut ids: HashMap<&str, u32, WordHashBuilder> = HashMap::default();
/// ids.insert("toolu_01", 7);
/// assert_eq!(ids["toolu_01"], 7);
///
/// // Deterministic: the same bytes always hash the same (no random seed).
/// let hash = |bytes: &[u8]| {
///     let mut h = WordHash::default();
///     h.write(bytes);
///     h.finish()
/// };
/// assert_eq!(hash(b"6e9d0c1a-uuid"), hash(b"6e9d0c1a-uuid"));
/// assert_ne!(hash(b"6e9d0c1a-uuid"), hash(b"6e9d0c1b-uuid"));
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct WordHash(u64);

/// Builds [`WordHash`]ers for `HashMap` and `HashSet`.
pub type WordHashBuilder = BuildHasherDefault<WordHash>;

impl Hasher for WordHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0_u8; 8];
            word.copy_from_slice(chunk);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
}
