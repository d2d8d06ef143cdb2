//! Properties over the real Pi sessions, with the shared deterministic PRNG and
//! mutations of `notesoup-testkit`:
//!
//! - a session cut at every line (and torn mid-line) keeps the seqs of what it holds;
//! - the decoder and both tools never panic on mutated real sessions or random bytes, and
//!   every answer fits the budget.
//!
//! `NOTESOUP_FUZZ_ITERS=<n>` runs longer by hand (default: bounded for `scripts/test`).

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

mod fixtures;

use notesoup_history_pi::{PiFile, decode};
use notesoup_testkit::{
    Rng, answers_fit, assert_prefix_stable, files_in, iterations, line_ends, mutate,
};

fn sessions() -> Vec<(String, Vec<u8>)> {
    files_in(&fixtures::dir(), |_| true)
}

#[test]
fn real_sessions_cut_at_every_line_keep_their_seqs() {
    for (name, bytes) in sessions() {
        let full = decode(
            &PiFile {
                name: &name,
                bytes: &bytes,
            },
            &[],
        )
        .unwrap();
        for end in line_ends(&bytes) {
            for cut in [end, (end + 40).min(bytes.len())] {
                let prefix = decode(
                    &PiFile {
                        name: &name,
                        bytes: &bytes[..cut],
                    },
                    &[],
                )
                .unwrap();
                assert_prefix_stable(&prefix, &full, &format!("{name} @{cut}"));
            }
        }
    }
}

#[test]
fn mutated_sessions_and_random_bytes_never_panic() {
    let sessions = sessions();
    let mut rng = Rng::new(0x5eed_0001);
    let mut decoded = 0;
    let rounds = iterations(400);
    for round in 0..rounds {
        let (name, bytes) = &sessions[round % sessions.len()];
        let mut mutated = mutate(&mut rng, bytes);
        for _ in 0..rng.below(4) {
            mutated = mutate(&mut rng, &mutated);
        }
        let parent = &sessions[0].1;
        let ancestors = [PiFile {
            name: &sessions[0].0,
            bytes: parent,
        }];
        let given: &[PiFile<'_>] = if rng.below(2) == 0 { &ancestors } else { &[] };
        if let Ok(t) = decode(
            &PiFile {
                name,
                bytes: &mutated,
            },
            given,
        ) {
            decoded += 1;
            answers_fit(t);
        }
        let noise = rng.bytes(512);
        if let Ok(t) = decode(
            &PiFile {
                name: "noise.jsonl",
                bytes: &noise,
            },
            &[],
        ) {
            answers_fit(t);
        }
    }
    // Both paths were taken: mutations that still read, and mutations refused.
    println!("{decoded} of {rounds} mutated sessions decoded");
    assert!(
        decoded > rounds / 10 && decoded < rounds,
        "{decoded} of {rounds} decoded"
    );
}
