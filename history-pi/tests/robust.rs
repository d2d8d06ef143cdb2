//! Properties over the real Pi sessions, with a small deterministic PRNG (no new
//! dependency):
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

use std::collections::HashMap;
use std::path::PathBuf;

use notesoup_history_core::{ANSWER_LIMIT, History, ListArgs, ReadArgs, Seq, Transcript};
use notesoup_history_pi::{PiFile, decode};

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

fn sessions() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agent/sessions/--tmp-xh-pirun-r3-work--");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
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
    let mut rng = Rng(0x5eed_0001);
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
        let noise: Vec<u8> = (0..rng.below(512))
            .map(|_| u8::try_from(rng.below(256)).unwrap())
            .collect();
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
