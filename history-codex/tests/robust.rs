//! Properties over the real Codex rollouts, with the shared deterministic PRNG and
//! mutations of `notesoup-testkit`:
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

mod fixtures;

use fixtures::{CHAIN, ZST, read};
use notesoup_history_codex::{CodexFile, decode, decompress};
use notesoup_testkit::{Rng, answers_fit, assert_prefix_stable, iterations, line_ends, mutate};

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
    let mut rng = Rng::new(0x5eed_0002);
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
        let noise = rng.bytes(512);
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
