//! Properties over the real Codex rollouts, with a small deterministic PRNG (no new
//! dependency):
//!
//! - a thread cut at every line (and torn mid-line) keeps the seqs of what it holds, also
//!   across its `history_base` chain;
//! - the decoder, the zstd reader and both tools never panic on mutated real rollouts,
//!   mutated `.zst` data or random bytes, and every answer fits the budget.
//!
//! `NOTESOUP_FUZZ_ITERS=<n>` runs longer by hand (default: bounded for `scripts/test`).

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::collections::HashMap;
use std::path::PathBuf;

use notesoup_history_codex::{CodexFile, decode, decompress};
use notesoup_history_core::{ANSWER_LIMIT, History, ListArgs, ReadArgs, Seq, Transcript};

/// splitmix64: tiny, deterministic, good enough to drive mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap()
    }
}

fn iterations(default: usize) -> usize {
    std::env::var("NOTESOUP_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One random edit of `bytes`: flip a byte, cut a range, repeat or swap lines, or tear
/// the tail.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return out;
    }
    match rng.below(6) {
        0 => {
            let at = rng.below(out.len());
            out[at] ^= u8::try_from(1 + rng.below(255)).unwrap();
        }
        1 => {
            let at = rng.below(out.len());
            let len = rng.below(64).min(out.len() - at);
            out.drain(at..at + len);
        }
        2 | 3 => {
            let mut lines: Vec<Vec<u8>> = out.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            let a = rng.below(lines.len());
            let b = rng.below(lines.len());
            if rng.below(2) == 0 {
                let copy = lines[a].clone();
                lines.insert(b, copy);
            } else {
                lines.swap(a, b);
            }
            out = lines.join(&b'\n');
        }
        4 => out.truncate(rng.below(out.len())),
        _ => {
            let at = rng.below(out.len());
            let junk: Vec<u8> = (0..rng.below(16))
                .map(|_| u8::try_from(rng.below(256)).unwrap())
                .collect();
            out.splice(at..at, junk);
        }
    }
    out
}

/// Both tools answer within the budget on any decoded history.
fn answers_fit(t: Transcript) {
    let Ok(history) = History::new(t) else { return };
    for args in [
        ListArgs::default(),
        ListArgs {
            query: Some("e".into()),
            ..ListArgs::default()
        },
    ] {
        if let Ok(answer) = history.list(&args) {
            assert!(answer.text.as_str().len() <= ANSWER_LIMIT);
        }
    }
    let read = ReadArgs {
        from: Some(1),
        to: Some(500),
        ..ReadArgs::default()
    };
    if let Ok(answer) = history.read(&read) {
        assert!(answer.text.as_str().len() <= ANSWER_LIMIT);
    }
}

/// (record, index within record) → seq, for every selected event.
fn addresses(t: &Transcript) -> HashMap<(String, usize), Seq> {
    let mut out = HashMap::new();
    let mut last: Option<(&str, usize)> = None;
    for e in &t.events {
        let k = match last {
            Some((r, k)) if r == e.record => k + 1,
            _ => 0,
        };
        out.insert((e.record.clone(), k), e.seq);
        last = Some((&e.record, k));
    }
    out
}

fn assert_prefix_stable(prefix: &Transcript, full: &Transcript, what: &str) {
    let full = addresses(full);
    for (key, seq) in addresses(prefix) {
        if let Some(later) = full.get(&key) {
            assert_eq!(*later, seq, "{what}: {key:?} moved");
        }
    }
}

/// Line ends of `bytes` (offsets just past each newline).
fn line_ends(bytes: &[u8]) -> Vec<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

const DIR: &str = "tests/data/codex-home/sessions/2026/12/02";
const CHAIN: [&str; 3] = [
    "rollout-2026-12-02T15-17-58-01a23755-7b6b-79d2-9438-c01132a25971.jsonl",
    "rollout-2026-12-02T15-19-06-01a23755-7b6b-79d2-9438-c01132a25971_01a23756-8217-7b21-ab26-ecf2081c409d.jsonl",
    "rollout-2026-12-02T15-19-19-01a23756-b853-7e01-94a2-1ae0a322f736.jsonl",
];
const ZST: &str = "rollout-2026-12-02T15-19-28-01a23756-dae0-73f0-a878-6043e965173e.jsonl.zst";

fn read(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(DIR)
            .join(name),
    )
    .unwrap()
}

#[test]
fn real_threads_cut_at_every_line_keep_their_seqs() {
    let files: Vec<Vec<u8>> = CHAIN.iter().map(|n| read(n)).collect();
    // The base alone, and the fork's own file growing on top of its full chain.
    let base = &files[0];
    let full = decode(&[CodexFile {
        name: CHAIN[0],
        bytes: base,
    }])
    .unwrap();
    for end in line_ends(base) {
        for cut in [end, (end + 40).min(base.len())] {
            let prefix = decode(&[CodexFile {
                name: CHAIN[0],
                bytes: &base[..cut],
            }])
            .unwrap();
            assert_prefix_stable(&prefix, &full, &format!("base @{cut}"));
        }
    }
    let chain = |fork: &[u8]| {
        decode(&[
            CodexFile {
                name: CHAIN[0],
                bytes: &files[0],
            },
            CodexFile {
                name: CHAIN[1],
                bytes: &files[1],
            },
            CodexFile {
                name: CHAIN[2],
                bytes: fork,
            },
        ])
    };
    let full = chain(&files[2]).unwrap();
    for end in line_ends(&files[2]) {
        let prefix = chain(&files[2][..end]).unwrap();
        assert_prefix_stable(&prefix, &full, &format!("fork @{end}"));
    }
}

#[test]
fn mutated_rollouts_zst_and_random_bytes_never_panic() {
    let files: Vec<Vec<u8>> = CHAIN.iter().map(|n| read(n)).collect();
    let packed = read(ZST);
    let mut rng = Rng(0x5eed_0002);
    let mut decoded = 0;
    let rounds = iterations(300);
    for _ in 0..rounds {
        let which = rng.below(files.len());
        let mut mutated = mutate(&mut rng, &files[which]);
        for _ in 0..rng.below(4) {
            mutated = mutate(&mut rng, &mutated);
        }
        let mut chain: Vec<CodexFile<'_>> = CHAIN
            .iter()
            .zip(&files)
            .map(|(name, bytes)| CodexFile { name, bytes })
            .collect();
        chain[which].bytes = &mutated;
        let start = rng.below(chain.len());
        if let Ok(t) = decode(&chain[start..]) {
            decoded += 1;
            answers_fit(t);
        }
        let bad_zst = mutate(&mut rng, &packed);
        if let Ok(plain) = decompress(ZST, &bad_zst)
            && let Ok(t) = decode(&[CodexFile {
                name: ZST,
                bytes: &plain,
            }])
        {
            answers_fit(t);
        }
        let noise: Vec<u8> = (0..rng.below(512))
            .map(|_| u8::try_from(rng.below(256)).unwrap())
            .collect();
        let _ = decompress("noise.jsonl.zst", &noise);
        if let Ok(t) = decode(&[CodexFile {
            name: "noise.jsonl",
            bytes: &noise,
        }]) {
            answers_fit(t);
        }
    }
    // Both paths were taken: mutations that still read, and mutations refused.
    println!("{decoded} of {rounds} mutated chains decoded");
    assert!(
        decoded > rounds / 10 && decoded < rounds,
        "{decoded} of {rounds} decoded"
    );
}
