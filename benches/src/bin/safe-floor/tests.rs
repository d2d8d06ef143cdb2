//! The floors count as rg counts, and validate refuses as the history refuses.

use super::{PIECE, run};
use notesoup_testkit::Scratch;

/// `run` over a file holding `bytes`.
fn over(validate: bool, text: &str, bytes: &[u8]) -> Result<u64, String> {
    let dir = Scratch::new("safe-floor");
    let path = dir.0.join("t.jsonl");
    std::fs::write(&path, bytes).expect("write");
    run(
        validate,
        text.as_bytes(),
        path.to_str().expect("utf-8 path"),
    )
}

#[test]
fn counts_lines_as_rg_does_across_pieces_and_a_line_longer_than_one() {
    // Lines across the 1 MiB piece's edge, one longer than a piece, two matches in one.
    let mut bytes = Vec::new();
    for i in 0..40_000 {
        let hit = if i % 1000 == 7 {
            "needle needle"
        } else {
            "hay"
        };
        bytes.extend_from_slice(format!("{{\"n\":{i},\"t\":\"{hit}\"}}\n").as_bytes());
    }
    let long = "x".repeat(PIECE + 10);
    bytes.extend_from_slice(format!("{{\"t\":\"{long} needle\"}}\n").as_bytes());
    for validate in [false, true] {
        assert_eq!(
            over(validate, "needle", &bytes),
            Ok(41),
            "validate {validate}"
        );
    }
}

#[test]
fn validate_refuses_a_malformed_committed_line_and_keeps_a_torn_last_one() {
    let bad = b"{\"a\":1}\n{\"b\":\n{\"c\":2}\n";
    assert_eq!(over(false, "c", bad), Ok(1));
    assert_eq!(over(true, "c", bad), Err("line 2 is not JSON".into()));
    let torn = b"{\"a\":1}\n{\"c\":2";
    assert_eq!(over(true, "c", torn), Ok(1));
}
