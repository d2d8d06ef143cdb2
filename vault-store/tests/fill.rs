//! Facts recorded from a kept copy ([`Vault::fill_facts`]): a range of the copy reads its
//! bytes exactly, from the piece that holds it on; only a version without facts gets them;
//! a copy whose read is refused gets none.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::fs;
use std::io::Read as _;
use std::path::PathBuf;

use notesoup_vault_store::{Facts, PIECE_MAX, Vault, VaultError};

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("notesoup-vault-fill-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Numbered lines over `bytes`: every range of them is told apart.
fn lines(bytes: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut n = 0u64;
    while (out.len() as u64) < bytes {
        out.extend_from_slice(format!("{{\"line\":{n}}}\n").as_bytes());
        n += 1;
    }
    out
}

fn read(reader: impl std::io::Read) -> Vec<u8> {
    let mut out = Vec::new();
    { reader }.read_to_end(&mut out).unwrap();
    out
}

#[test]
fn ranges_of_a_copy_of_several_pieces_read_its_bytes() {
    let dir = scratch("ranges");
    let bytes = lines(2 * PIECE_MAX + 1000);
    let original = dir.join("s.jsonl");
    fs::write(&original, &bytes).unwrap();
    let vault = Vault::open(&dir.join("vault")).unwrap();
    vault.keep("claude", "s", &original).unwrap();
    fs::remove_file(&original).unwrap();
    let len = bytes.len() as u64;
    let ranges = [
        (0, 100),
        (PIECE_MAX - 10, PIECE_MAX + 10),
        (2 * PIECE_MAX, len),
        (len - 5, len + 50),
        (len, len + 1),
    ];
    let mut seen = Vec::new();
    let filled = vault
        .fill_facts("claude", "s", |copy| {
            assert_eq!(copy.len(), len);
            for (from, to) in ranges {
                seen.push(read(copy.range(from, to)));
            }
            Facts {
                last_time: Some(7),
                summary: None,
            }
        })
        .unwrap();
    assert!(filled);
    for ((from, to), got) in ranges.iter().zip(&seen) {
        let (from, to) = (
            usize::try_from(*from).unwrap(),
            usize::try_from((*to).min(len)).unwrap(),
        );
        assert_eq!(got.as_slice(), &bytes[from..to], "{from}..{to}");
    }
    assert_eq!(
        vault.facts("claude", "s").unwrap().unwrap().last_time,
        Some(7)
    );
    // Recorded: a second fill leaves them.
    let again = vault
        .fill_facts("claude", "s", |_| Facts::default())
        .unwrap();
    assert!(!again);
    assert_eq!(
        vault.facts("claude", "s").unwrap().unwrap().last_time,
        Some(7)
    );
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn a_copy_whose_read_is_refused_gets_no_facts() {
    let dir = scratch("refused");
    let original = dir.join("s.jsonl");
    fs::write(&original, lines(1000)).unwrap();
    let vault = Vault::open(&dir.join("vault")).unwrap();
    vault.keep("claude", "s", &original).unwrap();
    fs::remove_file(&original).unwrap();
    let piece = dir.join("vault/claude/s/v1.0.zst");
    let mut packed = fs::read(&piece).unwrap();
    let mid = packed.len() / 2;
    packed[mid] ^= 0xff;
    fs::write(&piece, packed).unwrap();
    let err = vault
        .fill_facts("claude", "s", |copy| {
            let mut out = Vec::new();
            let _ = copy.range(0, 10).read_to_end(&mut out);
            Facts::default()
        })
        .unwrap_err();
    assert!(matches!(err, VaultError::Damaged { .. }), "{err}");
    assert!(!dir.join("vault/claude/s/v1.facts").exists());
    assert_eq!(vault.facts("claude", "s").unwrap(), None);
    let _ = fs::remove_dir_all(dir);
}

/// `held` says which newest versions have a facts file (what a sweep fills), from the one
/// listing of each session's folder: a version kept without facts until they are filled.
#[test]
fn held_says_which_versions_have_facts() {
    let dir = scratch("held");
    let original = dir.join("s.jsonl");
    fs::write(&original, lines(1000)).unwrap();
    let vault = Vault::open(&dir.join("vault")).unwrap();
    vault.keep("claude", "s", &original).unwrap();
    let facts = |v: &Vault| -> Vec<bool> { v.held().unwrap().iter().map(|h| h.facts).collect() };
    assert_eq!(facts(&vault), [false]);
    assert!(
        vault
            .fill_facts("claude", "s", |_| Facts::default())
            .unwrap()
    );
    assert_eq!(facts(&vault), [true]);
}
