//! The decoder's saved state: refused when it cannot be, and a resumed decoder the same as a
//! fresh one.

use super::*;

/// A saved state whose row has no event (the decoder never writes one: every row has its
/// message, notice or attachment event) is refused, not resumed into a row with no
/// timestamp to carry.
#[test]
fn a_state_row_without_events_is_refused() {
    let text = jsonl(&[row("user", "a", None, "hi")]);
    let mut decoder = Decoder::new(Options::default());
    for line in text.lines() {
        decoder.line(line.as_bytes(), true).unwrap();
    }
    let state = decoder.snapshot();
    // The row ends the state: event count (u64 1), role, body kind (a text keeps no
    // bytes of its own: the state is structure only), span count (u64 0: this decoder
    // records none), whether every body has its span (no). Drop its event and say it has
    // none.
    assert_eq!(state[state.len() - 9..], [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let mut empty = state[..state.len() - 19].to_vec();
    empty.extend_from_slice(&0_u64.to_le_bytes());
    // And the next seq (after magic, version, no session option, the flag, the session
    // `s1`, the line count) is 1 again, so only the empty row is wrong.
    let next_seq = 8 + 4 + 1 + 1 + (1 + 8 + 2) + 8;
    assert_eq!(state[next_seq..next_seq + 8], 2_u64.to_le_bytes());
    empty[next_seq..next_seq + 8].copy_from_slice(&1_u64.to_le_bytes());
    assert!(
        matches!(
            Decoder::resume(Options::default(), &empty),
            Err(StateError::Invalid {
                reason: "row without events",
                ..
            })
        ),
        "{:?}",
        Decoder::resume(Options::default(), &empty).err()
    );
}

/// The state writes a parent that is one of its rows as that row's place: a place past its
/// rows is refused, never followed (an index, not a uuid, is all the state says of it).
#[test]
fn a_state_parent_place_past_its_rows_is_refused() {
    let text = jsonl(&[
        row("user", "a", None, "hi"),
        row("assistant", "b", Some("a"), "yo"),
    ]);
    let mut decoder = Decoder::new(Options::default());
    for line in text.lines() {
        decoder.line(line.as_bytes(), true).unwrap();
    }
    let state = decoder.snapshot();
    // Row `b`: its uuid's length (1: its text is among the texts ahead of the rows), its
    // line (2), its kind (assistant), then its parent, written as the place of row `a`
    // (tag 2, place 0).
    let at = row_at(&state, 1, 2, 1) + 8 + 8 + 1;
    assert_eq!(state[at..at + 9], [2, 0, 0, 0, 0, 0, 0, 0, 0]);
    let resumed = Decoder::resume(Options::default(), &state).unwrap();
    assert_eq!(resumed.snapshot(), state);
    let mut bad = state.clone();
    bad[at + 1..at + 9].copy_from_slice(&2_u64.to_le_bytes());
    assert!(
        matches!(
            Decoder::resume(Options::default(), &bad),
            Err(StateError::Invalid {
                reason: "parent out of range",
                ..
            })
        ),
        "{:?}",
        Decoder::resume(Options::default(), &bad).err()
    );
}

/// A state that repeats a uuid is refused when it is resumed, though the resumed decoder
/// builds no uuid map then: two rows of one uuid, next to each other and far apart.
#[test]
fn a_state_that_repeats_a_uuid_is_refused() {
    let uuids: Vec<String> = (0..300).map(|i| format!("u{i:04}")).collect();
    let rows: Vec<Value> = uuids
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let parent = i.checked_sub(1).map(|p| uuids[p].as_str());
            row("user", u, parent, "hi")
        })
        .collect();
    let state = state_of(&jsonl(&rows));
    assert!(Decoder::resume(Options::default(), &state).is_ok());
    // A uuid's text is among the texts ahead of the rows (each row gives its length).
    let written = |u: &str| state.windows(5).position(|w| w == u.as_bytes()).unwrap();
    for (from, to) in [("u0001", "u0000"), ("u0299", "u0000"), ("u0150", "u0298")] {
        let mut bad = state.clone();
        let at = written(from);
        bad[at..at + 5].copy_from_slice(to.as_bytes());
        let resumed = Decoder::resume(Options::default(), &bad);
        assert!(
            matches!(
                resumed,
                Err(StateError::Invalid {
                    reason: "repeated uuid",
                    ..
                })
            ),
            "{from} -> {to}: {:?}",
            resumed.err()
        );
    }
}

/// Where the row with a uuid of `len` bytes first recorded on line `line`, of kind `kind`,
/// begins in `state` (its uuid's length, its line and its kind lead it).
fn row_at(state: &[u8], len: u64, line: u64, kind: u8) -> usize {
    let mut lead = len.to_le_bytes().to_vec();
    lead.extend_from_slice(&line.to_le_bytes());
    lead.push(kind);
    state.windows(lead.len()).position(|w| w == lead).unwrap()
}

/// The rows' uuids and timestamps are one text ahead of the rows, each row giving the
/// lengths of its own: a length that runs past that text is refused, and so is a text
/// that holds more than the rows take or that is not UTF-8.
#[test]
fn a_state_whose_rows_and_texts_disagree_is_refused() {
    let text = jsonl(&[
        row("user", "a", None, "hi"),
        row("assistant", "b", Some("a"), "yo"),
    ]);
    let state = state_of(&text);
    let refused = |bad: &[u8], reason: &str| {
        let resumed = Decoder::resume(Options::default(), bad);
        assert!(
            matches!(&resumed, Err(StateError::Invalid { reason: r, .. }) if *r == reason),
            "{reason}: {:?}",
            resumed.err()
        );
    };
    // Row `b`'s uuid is 1 byte long, then its line (2) and its kind (assistant).
    let b = row_at(&state, 1, 2, 1);
    let mut bad = state.clone();
    bad[b..b + 8].copy_from_slice(&1000_u64.to_le_bytes());
    refused(&bad, "text out of range");
    let mut bad = state.clone();
    bad[b..b + 8].copy_from_slice(&0_u64.to_le_bytes());
    refused(&bad, "texts left over");
    // The texts: their length, then `a`, its timestamp, `b`, its timestamp.
    let a = state.windows(2).position(|w| w == b"a2").unwrap();
    let mut bad = state.clone();
    bad[a] = 0xff;
    refused(&bad, "text");
    assert!(Decoder::resume(Options::default(), &state).is_ok());
}

/// A resumed decoder builds its uuid map only when a line is fed (or a lookup needs it):
/// then a new row under one of the state's rows, a repeat of one and a row under that
/// repeat are linked as a fresh decode links them; and one fed nothing finds its head,
/// its boundary's logical parent and a head it lacks as a fresh decode does.
#[test]
fn a_resumed_decoder_links_to_its_rows_as_a_fresh_decode_does() {
    let first = [
        row("user", "a", None, "hi"),
        row("assistant", "b", Some("a"), "yo"),
        boundary("k", "b"),
        row("user", "c", Some("k"), "more"),
        row("user", "d", Some("gone"), "lost"),
    ];
    let more = [
        row("assistant", "e", Some("c"), "new"),
        row("assistant", "b", Some("a"), "yo"),
        row("user", "f", Some("b"), "under the repeat"),
    ];
    let text = jsonl(&first);
    let whole = format!("{text}{}", jsonl(&more));
    let mut resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    let mut fresh = Decoder::new(Options::default());
    for line in whole.lines().take(first.len()) {
        fresh.line(line.as_bytes(), true).unwrap();
    }
    for line in whole.lines().skip(first.len()) {
        resumed.line(line.as_bytes(), true).unwrap();
        fresh.line(line.as_bytes(), true).unwrap();
    }
    assert_eq!(resumed.snapshot(), fresh.snapshot());
    assert_eq!(hydrated(resumed, &whole), decode_leaf(&whole).unwrap());

    for head in ["c", "b", "d", "a"] {
        let head = Head::Uuid(head.into());
        let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let t = resumed
            .finish_skeleton(&head)
            .unwrap()
            .hydrate(|row| row.reload(lines[row.line - 1].as_bytes()))
            .unwrap();
        assert_eq!(
            t,
            decode(text.as_bytes(), &Options::default(), &head).unwrap()
        );
    }
    let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    assert_eq!(resumed.snapshot(), state_of(&text));
    let lacking = Head::Uuid("e".into());
    let resumed = Decoder::resume(Options::default(), &state_of(&text)).unwrap();
    assert_eq!(
        resumed.finish_skeleton(&lacking).err().map(|e| e.code()),
        Some("head_not_written")
    );
}

/// A repeat of a resumed row whose parent the state names by its place compares and keeps
/// the parent's uuid as a fresh decode does: the state after it is the fresh decoder's, for
/// a repeat under the same parent and one that moves it.
#[test]
fn a_repeat_of_a_resumed_row_keeps_its_parent_as_a_fresh_decode_does() {
    let first = [
        row("user", "a", None, "hi"),
        row("assistant", "b", Some("a"), "yo"),
        row("user", "c", Some("b"), "more"),
    ];
    for repeat in [
        row("assistant", "b", Some("a"), "yo"),
        row("assistant", "b", Some("c"), "yo"),
    ] {
        let mut prefix = Decoder::new(Options::default());
        for line in jsonl(&first).lines() {
            prefix.line(line.as_bytes(), true).unwrap();
        }
        let mut resumed = Decoder::resume(Options::default(), &prefix.snapshot()).unwrap();
        let mut fresh = Decoder::new(Options::default());
        for line in jsonl(&first).lines() {
            fresh.line(line.as_bytes(), true).unwrap();
        }
        let line = repeat.to_string();
        resumed.line(line.as_bytes(), true).unwrap();
        fresh.line(line.as_bytes(), true).unwrap();
        assert_eq!(resumed.snapshot(), fresh.snapshot(), "{repeat}");
    }
}

/// Hands a state over a few bytes at a time (as a file read may).
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = out.len().min(self.0.len()).min(7);
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// A state read from a source that hands it over in small pieces, with a value longer than
/// the reader's window (a 100 kB tool name), reads back as the state read from its bytes,
/// and hydrates to the fresh decode; a source that ends before the length it was given, or
/// holds more, is refused.
#[test]
fn a_state_read_in_small_pieces_with_a_long_value_reads_back() {
    let name = "N".repeat(100_000);
    let call = json!({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":name,"input":{}}]});
    let text = jsonl(&[
        row("user", "a", None, "hi"),
        with(row("assistant", "b", Some("a"), ""), "message", call),
        row("user", "c", Some("b"), "bye"),
    ]);
    let state = state_of(&text);
    let len = state.len() as u64;
    let resumed = Decoder::resume_from(Options::default(), Trickle(&state), len).unwrap();
    assert_eq!(resumed.snapshot(), state);
    assert_eq!(hydrated(resumed, &text), decode_leaf(&text).unwrap());
    let short = Decoder::resume_from(Options::default(), Trickle(&state[..state.len() - 1]), len);
    assert!(
        matches!(
            short,
            Err(StateError::Invalid {
                reason: "unexpected end",
                ..
            })
        ),
        "{:?}",
        short.err()
    );
    let mut more = state.clone();
    more.push(0);
    let more = Decoder::resume_from(Options::default(), Trickle(&more), len);
    assert!(
        matches!(
            more,
            Err(StateError::Invalid {
                reason: "trailing bytes",
                ..
            })
        ),
        "{:?}",
        more.err()
    );
}
