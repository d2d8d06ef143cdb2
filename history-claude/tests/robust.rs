//! Properties over generated and mutated transcripts, with the shared deterministic PRNG
//! of `notesoup-testkit` (the seed and iteration count are printed on failure):
//!
//! - appending rows never moves an earlier seq (real transcripts cut at every line, and
//!   random transcripts with branches, duplicates, forward references and torn tails);
//! - the decoder and both tools never panic on random bytes or on mutated real
//!   transcripts, and every answer fits the budget.
//!
//! `NOTESOUP_FUZZ_ITERS=<n>` runs longer by hand (default: bounded for `scripts/test`).

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::PathBuf;

use notesoup_history_claude::{Decoder, Head, Options, StateError, decode};
use notesoup_history_core::{ANSWER_LIMIT, History, ListArgs, ReadArgs, Transcript};
use notesoup_testkit::{Rng, assert_prefix_stable, files_in, iterations, line_ends};
use serde_json::json;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn real_transcripts() -> Vec<(String, Vec<u8>)> {
    files_in(&data_dir(), |p| p.extension().is_some_and(|x| x == "jsonl"))
}

#[test]
fn real_transcripts_cut_at_every_line_keep_their_seqs() {
    for (name, bytes) in real_transcripts() {
        let options = Options {
            sidechain: name.ends_with("agent.jsonl"),
            ..Options::default()
        };
        let full = decode(&bytes, &options, &Head::Leaf).unwrap();
        for end in line_ends(&bytes) {
            // Cut exactly after a line, and in the middle of the next one (a torn tail).
            for cut in [end, (end + 40).min(bytes.len())] {
                match decode(&bytes[..cut], &options, &Head::Leaf) {
                    Ok(prefix) => assert_prefix_stable(&prefix, &full, &format!("{name} @{cut}")),
                    Err(err) => assert_eq!(err.code(), "no_leaf", "{name} @{cut}: {err}"),
                }
            }
        }
    }
}

/// A random but valid transcript of `n` rows: branches, compact boundaries, tool calls
/// and results, repeats of earlier rows, and children written before their parents.
fn random_rows(rng: &mut Rng, n: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    let mut uuids: Vec<String> = Vec::new();
    let mut calls: Vec<String> = Vec::new();
    for i in 0..n {
        let uuid = format!("u{i}");
        let parent = if uuids.is_empty() || rng.below(10) == 0 {
            None
        } else if rng.below(8) == 0 {
            Some(format!("u{}", i + 1 + rng.below(3))) // a forward reference
        } else {
            Some(uuids[uuids.len() - 1 - rng.below(uuids.len().min(4))].clone())
        };
        let common = |kind: &str| {
            json!({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": false,
                   "sessionId": "s1", "timestamp": format!("t{i}")})
        };
        let row = match rng.below(7) {
            0 if !uuids.is_empty() => {
                // A repeat of an earlier row, with new links.
                let earlier = &rows[rng.below(rows.len())];
                let mut value: serde_json::Value = serde_json::from_str(earlier).unwrap();
                value["parentUuid"] = json!(parent);
                rows.push(value.to_string());
                continue;
            }
            1 if !uuids.is_empty() => {
                let mut v = common("system");
                v["parentUuid"] = serde_json::Value::Null;
                v["subtype"] = json!("compact_boundary");
                v["content"] = json!("Conversation compacted");
                v["logicalParentUuid"] = json!(uuids[rng.below(uuids.len())]);
                v
            }
            2 => {
                let id = format!("t{i}");
                calls.push(id.clone());
                let mut v = common("assistant");
                v["message"] = json!({"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hidden"},
                    {"type": "text", "text": format!("calling {i}")},
                    {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "ls"}}]});
                v
            }
            3 if !calls.is_empty() => {
                let mut v = common("user");
                let id = calls[rng.below(calls.len())].clone();
                v["message"] = json!({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": id, "content": format!("out {i}")}]});
                v
            }
            4 => {
                let mut v = common("attachment");
                v["attachment"] = json!({"type": "date"});
                v["rendered"] =
                    json!([{"content": format!("<system-reminder>\n{i}\n</system-reminder>")}]);
                v
            }
            5 => {
                let mut v = common("user");
                v["message"] = json!({"role": "user", "content": format!(
                    "<notesoup-boot window=\"claude:s1:{}\">\nnotes\n</notesoup-boot>\nhandoff", rng.below(5))});
                v
            }
            _ => {
                let mut v = common("user");
                v["message"] = json!({"role": "user", "content": format!("prompt {i} é")});
                v
            }
        };
        uuids.push(uuid);
        rows.push(row.to_string());
        if rng.below(5) == 0 {
            rows.push(json!({"type": "last-prompt", "sessionId": "s1"}).to_string());
        }
    }
    rows
}

#[test]
fn appending_random_rows_never_moves_an_earlier_seq() {
    let mut rng = Rng::new(0x5eed_0001);
    let rounds = iterations(60);
    let mut decoded = 0;
    for round in 0..rounds {
        let n = 5 + rng.below(40);
        let rows = random_rows(&mut rng, n);
        let text = rows.join("\n") + "\n";
        let Ok(full) = decode(text.as_bytes(), &Options::default(), &Head::Leaf) else {
            continue; // a random cycle: refused, fine
        };
        decoded += 1;
        let mut upto = String::new();
        for row in &rows {
            upto.push_str(row);
            upto.push('\n');
            let torn = format!("{upto}{}", &row[..row.len() / 2]);
            for snapshot in [&upto, &torn] {
                if let Ok(prefix) = decode(snapshot.as_bytes(), &Options::default(), &Head::Leaf) {
                    assert_prefix_stable(&prefix, &full, &format!("round {round}"));
                }
            }
        }
    }
    assert!(
        decoded * 2 > rounds,
        "only {decoded} of {rounds} random transcripts decoded"
    );
}

/// Decode, and when that works run both tools; any panic fails the test.
fn exercise(bytes: &[u8]) {
    let Ok(t) = decode(bytes, &Options::default(), &Head::Leaf) else {
        return;
    };
    let history = History::new(t).unwrap();
    let page = history.list(&ListArgs::default()).unwrap();
    assert!(page.text.as_str().len() <= ANSWER_LIMIT);
    if let Some(first) = history.events().first() {
        let read = history
            .read(&ReadArgs {
                from: Some(first.seq),
                to: Some(u64::MAX),
                ..ReadArgs::default()
            })
            .unwrap();
        assert!(read.text.as_str().len() <= ANSWER_LIMIT);
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::new(0x5eed_0002);
    let alphabet = b"{}[]\":,\\\n nulltruefalse0123456789uuidtypeparentUuid\xc3\xa9\xff";
    for _ in 0..iterations(3000) {
        let len = rng.below(400);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(2) == 0 {
                    alphabet[rng.below(alphabet.len())]
                } else {
                    rng.byte()
                }
            })
            .collect();
        exercise(&bytes);
    }
}

#[test]
fn mutated_real_transcripts_never_panic() {
    let mut rng = Rng::new(0x5eed_0003);
    let corpus = real_transcripts();
    for _ in 0..iterations(300) {
        let (_, original) = &corpus[rng.below(corpus.len())];
        let mut lines: Vec<Vec<u8>> = original
            .split(|b| *b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        for _ in 0..=rng.below(4) {
            let at = rng.below(lines.len());
            match rng.below(6) {
                0 => {
                    lines.remove(at);
                }
                1 => {
                    let copy = lines[at].clone();
                    lines.insert(rng.below(lines.len()), copy);
                }
                2 => {
                    let other = rng.below(lines.len());
                    lines.swap(at, other);
                }
                3 => {
                    let line = &mut lines[at];
                    let cut = rng.below(line.len() + 1);
                    line.truncate(cut);
                }
                4 => {
                    let line = &mut lines[at];
                    if !line.is_empty() {
                        let i = rng.below(line.len());
                        line[i] = rng.byte();
                    }
                }
                _ => {
                    // Rewire a parent link to another row's uuid (cycles, branches).
                    let text = String::from_utf8_lossy(&lines[at]).into_owned();
                    let other =
                        String::from_utf8_lossy(&lines[rng.below(lines.len())]).into_owned();
                    if let (Some(p), Some(u)) =
                        (text.find("\"parentUuid\":\""), other.find("\"uuid\":\""))
                    {
                        let uuid: String = other[u + 8..].chars().take(36).collect();
                        let mut rewired = text.clone();
                        rewired.replace_range(p + 14..(p + 14 + 36).min(text.len()), &uuid);
                        lines[at] = rewired.into_bytes();
                    }
                }
            }
        }
        exercise(&lines.join(&b'\n'));
    }
}

/// Feeds `bytes` line by line (the last line torn when it has no `\n`), resuming from a
/// snapshot taken after the first `cut` committed lines; the snapshot round-trips.
fn decode_resumed(
    bytes: &[u8],
    cut: usize,
    head: &Head,
) -> Result<Transcript, notesoup_history_claude::DecodeError> {
    let mut lines: Vec<(&[u8], bool)> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(|l| match l.strip_suffix(b"\n") {
            Some(l) => (l, true),
            None => (l, false),
        })
        .collect();
    let rest = lines.split_off(cut.min(lines.len()));
    let mut decoder = Decoder::new(Options::default());
    for (line, terminated) in lines {
        decoder.line(line, terminated)?;
    }
    let state = decoder.snapshot();
    let mut decoder = Decoder::resume(Options::default(), &state).unwrap();
    assert_eq!(
        decoder.snapshot(),
        state,
        "the state round-trips byte for byte"
    );
    for (line, terminated) in rest {
        decoder.line(line, terminated)?;
    }
    // The rows the state covered come back without texts; their lines fill them in.
    let all: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    decoder
        .finish_skeleton(head)?
        .hydrate(|row| row.reload(all[row.line - 1]))
}

#[test]
fn resuming_a_snapshot_at_every_line_of_real_transcripts_decodes_the_same() {
    for (name, bytes) in real_transcripts() {
        let whole = decode(&bytes, &Options::default(), &Head::Leaf);
        let lines = bytes.split(|&b| b == b'\n').count() - 1;
        for cut in 0..=lines {
            let resumed = decode_resumed(&bytes, cut, &Head::Leaf);
            assert_eq!(resumed, whole, "{name} resumed after line {cut}");
        }
    }
}

#[test]
fn resuming_random_transcripts_decodes_the_same_after_appends() {
    let mut rng = Rng::new(0x5eed_0007);
    for round in 0..iterations(60) {
        let n = 5 + rng.below(40);
        let rows = random_rows(&mut rng, n);
        let text = rows.join("\n") + "\n";
        let torn = format!("{text}{}", &rows[0][..rows[0].len() / 2]);
        for bytes in [&text, &torn] {
            let whole = decode(bytes.as_bytes(), &Options::default(), &Head::Leaf);
            for cut in 0..=rows.len() {
                let resumed = decode_resumed(bytes.as_bytes(), cut, &Head::Leaf);
                assert_eq!(resumed, whole, "round {round}, resumed after line {cut}");
            }
        }
    }
}

#[test]
fn a_damaged_snapshot_is_refused_or_reads_back_whole_never_panics() {
    let mut rng = Rng::new(0x5eed_0008);
    let (_, bytes) = real_transcripts().into_iter().next().unwrap();
    let mut decoder = Decoder::new(Options::default());
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        decoder.line(line, true).unwrap();
    }
    let state = decoder.snapshot();
    for end in 0..state.len() {
        assert!(
            Decoder::resume(Options::default(), &state[..end]).is_err(),
            "a state cut at byte {end} is refused"
        );
    }
    for _ in 0..iterations(2000) {
        let mut damaged = state.clone();
        let at = rng.below(damaged.len());
        damaged[at] = rng.byte();
        // A changed text byte may read back (the caller's checksum catches that); any
        // other damage is refused. Neither panics.
        let _ = Decoder::resume(Options::default(), &damaged);
    }
    let other = Options {
        session: Some("other".into()),
        sidechain: false,
    };
    assert_eq!(
        Decoder::resume(other, &state).err(),
        Some(StateError::Options)
    );
}

/// Feeds `bytes` with each committed line skimmed or kept whole as `skim` says (by line
/// number), the last line torn when it has no `\n`; the skimmed rows' bodies come back
/// from their lines.
fn decode_skimming(
    bytes: &[u8],
    head: &Head,
    mut skim: impl FnMut(usize) -> bool,
) -> (
    Result<Transcript, notesoup_history_claude::DecodeError>,
    Option<Vec<u8>>,
) {
    let mut decoder = Decoder::new(Options::default());
    let mut fed = Ok(());
    for (n, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        fed = match line.strip_suffix(b"\n") {
            // Kept: the line-at-a-time path (one-pass parse, else field by field).
            Some(line) if !skim(n) => decoder.line(line, true),
            Some(line) => decoder.feed_skimmed(&[line]),
            None => decoder.line(line, false),
        };
        if fed.is_err() {
            break;
        }
    }
    let state = fed.is_ok().then(|| decoder.snapshot());
    let all: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let transcript = fed.and_then(|()| {
        decoder
            .finish_skeleton(head)?
            .hydrate(|row| row.reload(all[row.line - 1]))
    });
    (transcript, state)
}

/// A decoder that skims some lines (the cold history read: all but the lines that may hold
/// the query) makes the same state, byte for byte, as one that keeps every body, and, its
/// skimmed bodies read back from their lines, the same transcript or the same refusal:
/// real transcripts skimmed whole, every other line and at random, and random transcripts
/// whose repeats (kept or skimmed on either side) may conflict, and real transcripts with
/// hostile lines (mutated, moved, copied, removed): refused or skipped exactly alike.
#[test]
fn skimming_lines_decodes_the_same_and_refuses_the_same() {
    let mut rng = Rng::new(0x5eed_0009);
    let mut cases: Vec<String> = real_transcripts()
        .into_iter()
        .filter(|(name, _)| !name.ends_with("agent.jsonl"))
        .map(|(_, bytes)| String::from_utf8(bytes).unwrap())
        .collect();
    for _ in 0..iterations(60) {
        let n = 5 + rng.below(40);
        let mut rows = random_rows(&mut rng, n);
        if rng.below(3) == 0 {
            // A repeat whose body differs: a conflict, whichever side is skimmed.
            let at = rng.below(rows.len());
            let changed = rows[at].replacen("\"content\":\"", "\"content\":\"changed ", 1);
            rows.push(changed);
        }
        let text = rows.join("\n") + "\n";
        cases.push(format!("{text}{}", &rows[0][..rows[0].len() / 2]));
        cases.push(text);
    }
    // Real transcripts with a hostile line or two: mutated (bytes flipped, cut, spliced,
    // invalid UTF-8), or moved, copied, removed.
    let real = real_transcripts();
    let mut hostile = 0;
    for _ in 0..iterations(60) {
        let (name, original) = &real[rng.below(real.len())];
        if name.ends_with("agent.jsonl") {
            continue;
        }
        let mut lines: Vec<Vec<u8>> = original
            .split(|b| *b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        for _ in 0..=rng.below(2) {
            let at = rng.below(lines.len());
            match rng.below(3) {
                0 => {
                    let copy = lines[at].clone();
                    lines.insert(rng.below(lines.len()), copy);
                }
                1 => {
                    lines.remove(at);
                }
                _ => lines[at] = notesoup_testkit::mutate(&mut rng, &lines[at]),
            }
        }
        // Bytes that are not UTF-8 cannot be a `String` case: keep them lossless below.
        let bytes = lines.join(&b'\n');
        if let Ok(text) = String::from_utf8(bytes.clone()) {
            cases.push(text);
        } else {
            let (whole, _) = decode_skimming(&bytes, &Head::Leaf, |_| false);
            let (skimmed, _) = decode_skimming(&bytes, &Head::Leaf, |_| true);
            assert_eq!(skimmed, whole, "{name}: a line not UTF-8");
            assert_eq!(whole, decode(&bytes, &Options::default(), &Head::Leaf));
        }
        hostile += 1;
    }
    assert!(hostile > 10);
    let mut conflicts = 0;
    let mut refused = 0;
    for (i, bytes) in cases.iter().enumerate() {
        let bytes = bytes.as_bytes();
        let (whole, whole_state) = decode_skimming(bytes, &Head::Leaf, |_| false);
        assert_eq!(whole, decode(bytes, &Options::default(), &Head::Leaf));
        if matches!(&whole, Err(err) if err.code() == "transcript_conflict") {
            conflicts += 1;
        }
        if matches!(&whole, Err(err) if matches!(err.code(), "transcript_malformed" | "transcript_schema"))
        {
            refused += 1;
        }
        let picks: Vec<Box<dyn FnMut(usize) -> bool>> = vec![
            Box::new(|_| true),
            Box::new(|n| n % 2 == 0),
            Box::new(|n| n % 2 == 1),
            Box::new(|_| rng.below(2) == 0),
        ];
        for (p, pick) in picks.into_iter().enumerate() {
            let (skimmed, state) = decode_skimming(bytes, &Head::Leaf, pick);
            assert_eq!(skimmed, whole, "case {i}, pick {p}");
            assert!(
                state == whole_state,
                "case {i}, pick {p}: the state differs"
            );
        }
    }
    assert!(conflicts > 3, "{conflicts} conflicting repeats");
    assert!(refused > 3, "{refused} malformed or invalid lines");
}
