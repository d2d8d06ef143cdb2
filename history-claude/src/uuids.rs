//! The uuid -> node map of a [`crate::Decoder`]'s nodes ([`UuidIndex`]), and [`Uuids`],
//! which builds it only when it is first needed.
//!
//! A decoder resumed from a state and fed no more lines (the transcript unchanged since its
//! index) looks up only the head and the few uuids its graph names by their text (a parent
//! the state did not hold, a first-recorded or logical parent, a preserved row): a map of
//! every row would be built for those few. So a resumed decoder keeps each row's uuid hash
//! instead, and builds the whole map from them (no uuid hashed twice) when a line is fed or
//! anything else needs it; its graph resolves just the uuids it names, by one pass over the
//! hashes ([`Uuids::into_index`]).
//!
//! A state that repeats a uuid is still refused when it is resumed, map or no map:
//! [`repeats`] finds a repeat with one bit per hash in a table a few times the rows' count
//! (small enough to stay in cache, where the map's random inserts were not), and compares
//! by their text only the rows whose bit was already taken.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

use notesoup_history_core::{SharedText, WordHash, WordHashBuilder};

/// Node index by uuid, keyed by the uuid's 64-bit hash (no copy of the uuid: the node
/// holds it); a uuid whose hash an earlier one already holds is kept by its text. Every
/// lookup compares the text, so a hash collision can never alias two uuids.
#[derive(Default, Clone)]
pub(crate) struct UuidIndex {
    by_hash: HashMap<u64, usize, WordHashBuilder>,
    collided: HashMap<String, usize>,
}

pub(crate) fn uuid_hash(uuid: &str) -> u64 {
    let mut h = WordHash::default();
    h.write(uuid.as_bytes());
    h.finish()
}

impl UuidIndex {
    /// The node of `uuid` among `nodes` (the nodes this index was built over).
    pub(crate) fn get<N>(&self, uuid: &str, nodes: &[(SharedText, N)]) -> Option<usize> {
        match self.by_hash.get(&uuid_hash(uuid)) {
            None => None,
            Some(&at) if *nodes[at].0 == *uuid => Some(at),
            Some(_) => self.collided.get(uuid).copied(),
        }
    }

    /// Records node `at` for `uuid`, which must not be recorded yet.
    pub(crate) fn insert(&mut self, uuid: &str, at: usize) {
        self.insert_hashed(uuid_hash(uuid), uuid, at);
    }

    /// [`UuidIndex::insert`] of a uuid whose hash is `hash`.
    fn insert_hashed(&mut self, hash: u64, uuid: &str, at: usize) {
        match self.by_hash.entry(hash) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(at);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(uuid.to_owned(), at);
            }
        }
    }
}

/// A decoder's uuid map, built when first needed.
#[derive(Default)]
pub(crate) struct Uuids {
    /// The map over the nodes before `unindexed`'s (all of them once it is empty).
    index: UuidIndex,
    /// The uuid hashes of the first nodes, in node order, not yet in `index` (a resumed
    /// state's rows, every uuid distinct: [`repeats`] checked them).
    unindexed: Vec<u64>,
}

impl Uuids {
    /// No map yet: `hashes` are those of the uuids of `nodes`, all of them, each distinct.
    pub(crate) fn unbuilt(hashes: Vec<u64>) -> Self {
        Self {
            index: UuidIndex::default(),
            unindexed: hashes,
        }
    }

    /// The map over `nodes` (the nodes these uuids are of), built now if it was not.
    pub(crate) fn built<N>(&mut self, nodes: &[(SharedText, N)]) -> &mut UuidIndex {
        if !self.unindexed.is_empty() {
            let hashes = std::mem::take(&mut self.unindexed);
            self.index.by_hash.reserve(hashes.len());
            for (at, hash) in hashes.into_iter().enumerate() {
                self.index.insert_hashed(hash, &nodes[at].0, at);
            }
        }
        &mut self.index
    }

    /// True when the map is built.
    fn is_built(&self) -> bool {
        self.unindexed.is_empty()
    }

    /// A map that finds at least the `wanted` uuids among `nodes` (and, once built, every
    /// one): the whole map when it is built, else one of just those, from one pass over the
    /// hashes. A uuid not wanted may then not be found: only ask it for wanted ones.
    pub(crate) fn for_wanted<'a, N>(
        &self,
        nodes: &[(SharedText, N)],
        wanted: impl IntoIterator<Item = &'a str>,
    ) -> Cow<'_, UuidIndex> {
        if self.is_built() {
            return Cow::Borrowed(&self.index);
        }
        let wanted: HashSet<u64, WordHashBuilder> = wanted.into_iter().map(uuid_hash).collect();
        let mut index = UuidIndex::default();
        if !wanted.is_empty() {
            for (at, hash) in self.unindexed.iter().enumerate() {
                if wanted.contains(hash) {
                    index.insert_hashed(*hash, &nodes[at].0, at);
                }
            }
        }
        Cow::Owned(index)
    }

    /// The map for a graph that will ask it only the `wanted` uuids ([`Uuids::for_wanted`]).
    pub(crate) fn into_index<'a, N>(
        self,
        nodes: &[(SharedText, N)],
        wanted: impl IntoIterator<Item = &'a str>,
    ) -> UuidIndex {
        if self.is_built() {
            return self.index;
        }
        self.for_wanted(nodes, wanted).into_owned()
    }
}

/// True when two of `uuids` are the same text; `hashes[i]` is [`uuid_hash`] of `uuids(i)`.
/// One bit per hash (its top bits) in a table of at least 16 bits per uuid: a uuid whose
/// bit is not yet taken is new; the others, few (about one in 32 when all are distinct),
/// are compared by their text with every uuid of their bits.
pub(crate) fn repeats<'a>(hashes: &[u64], uuids: impl Fn(usize) -> &'a str) -> bool {
    if hashes.len() < 2 {
        return false;
    }
    let bits = (hashes.len() * 16).next_power_of_two().max(64);
    let shift = 64 - bits.trailing_zeros();
    // The top bits of the hash, fewer than a `usize` holds (`bits` places, `seen` in memory).
    let place = |hash: u64| usize::try_from(hash >> shift).unwrap_or_default();
    let mut seen = vec![0_u64; bits / 64];
    let mut taken = Vec::new();
    for &hash in hashes {
        let p = place(hash);
        let (word, bit) = (p / 64, 1_u64 << (p % 64));
        if seen[word] & bit != 0 {
            taken.push(p);
        }
        seen[word] |= bit;
    }
    if taken.is_empty() {
        return false;
    }
    // The bits two or more uuids share; every uuid on one of them is compared by its text.
    seen.fill(0);
    for p in taken {
        seen[p / 64] |= 1 << (p % 64);
    }
    let mut texts: HashSet<&str, WordHashBuilder> = HashSet::default();
    hashes.iter().enumerate().any(|(i, &hash)| {
        let p = place(hash);
        seen[p / 64] & (1 << (p % 64)) != 0 && !texts.insert(uuids(i))
    })
}

#[cfg(test)]
mod tests {
    use super::repeats;

    /// A repeat is found, and distinct uuids are not taken for one, whatever their hashes
    /// share: distinct hashes, every hash the same, and one bit for every other uuid.
    #[test]
    fn repeats_compares_the_texts_of_shared_bits() {
        let uuids: Vec<String> = (0..1000).map(|i| format!("{i:036}")).collect();
        let text = |i: usize| uuids[i].as_str();
        let distinct: Vec<u64> = (0..1000_u64).map(|i| i << 54).collect();
        let same = vec![7_u64; 1000];
        let halves: Vec<u64> = (0..1000_u64)
            .map(|i| if i % 2 == 0 { 0 } else { i << 54 })
            .collect();
        for hashes in [&distinct, &same, &halves] {
            assert!(!repeats(hashes, text));
        }
        // A repeated text has its first occurrence's hash.
        let mut twice = uuids.clone();
        twice[999] = twice[10].clone();
        let text = |i: usize| twice[i].as_str();
        for hashes in [&distinct, &same, &halves] {
            let mut hashes = hashes.clone();
            hashes[999] = hashes[10];
            assert!(repeats(&hashes, text));
        }
        assert!(!repeats(&[1], |_| "a"));
        assert!(repeats(&[1, 1], |_| "a"));
    }
}
