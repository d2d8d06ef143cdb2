//! A version's facts: recorded for the bytes kept, read back without decompressing the
//! copy, and not used when they are of fewer bytes than the copy holds.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::fs;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use notesoup_vault_store::{Facts, Summary, Vault, VaultError};

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "notesoup-vault-facts-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    /// The vault as an earlier notesoup opened it: no facts recorded.
    fn plain(&self) -> Vault {
        Vault::open(&self.0.join("vault")).unwrap()
    }
    fn describing(&self) -> Vault {
        self.plain().describing(describe)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Facts that show what they were worked out from: the bytes kept, as the first prompt,
/// their count as the last time, and the harness as the folder.
fn describe(harness: &str, _: &Path, file: &fs::File, raw: u64) -> Facts {
    let mut bytes = vec![0; usize::try_from(raw).unwrap()];
    file.read_exact_at(&mut bytes, 0).unwrap();
    Facts {
        last_time: Some(raw),
        summary: Some(Summary {
            started: None,
            cwd: Some(harness.to_owned()),
            first_prompt: Some(String::from_utf8(bytes).unwrap()),
            parent: Some("pi:a\\b\r".to_owned()),
        }),
    }
}

fn facts_of(text: &str) -> Facts {
    Facts {
        last_time: Some(text.len() as u64),
        summary: Some(Summary {
            started: None,
            cwd: Some("claude".to_owned()),
            first_prompt: Some(text.to_owned()),
            parent: Some("pi:a\\b\r".to_owned()),
        }),
    }
}

#[test]
fn facts_are_recorded_for_the_bytes_kept_and_read_back_as_recorded() {
    let s = Scratch::new("recorded");
    let v = s.describing();
    let path = s.0.join("t.jsonl");
    fs::write(&path, "{\"a\":\"one\\\\n\"}\nsecond\\line\n").unwrap();
    v.keep("claude", "s", &path).unwrap();
    assert_eq!(
        v.facts("claude", "s").unwrap(),
        Some(facts_of("{\"a\":\"one\\\\n\"}\nsecond\\line\n"))
    );
    // The transcript grew: the facts follow the copy.
    fs::write(&path, "{\"a\":\"one\\\\n\"}\nsecond\\line\nthird\r\n").unwrap();
    v.keep("claude", "s", &path).unwrap();
    assert_eq!(
        v.facts("claude", "s").unwrap(),
        Some(facts_of("{\"a\":\"one\\\\n\"}\nsecond\\line\nthird\r\n"))
    );
    // Rewritten: a new version, with its own facts.
    fs::write(&path, "other\n").unwrap();
    assert!(v.keep("claude", "s", &path).unwrap().new_version);
    assert_eq!(v.facts("claude", "s").unwrap(), Some(facts_of("other\n")));
    assert_eq!(v.facts("claude", "never").unwrap(), None);
}

#[test]
fn facts_of_fewer_bytes_than_the_copy_are_not_used_until_a_keep_records_them() {
    let s = Scratch::new("stale");
    let path = s.0.join("t.jsonl");
    fs::write(&path, "one\n").unwrap();
    s.describing().keep("claude", "s", &path).unwrap();
    // An earlier notesoup keeps what was added, and records no facts.
    fs::write(&path, "one\ntwo\n").unwrap();
    assert_eq!(s.plain().keep("claude", "s", &path).unwrap().added, 4);
    assert_eq!(s.describing().facts("claude", "s").unwrap(), None);
    // A keep that finds the copy up to date records them.
    assert_eq!(s.describing().keep("claude", "s", &path).unwrap().added, 0);
    assert_eq!(
        s.plain().facts("claude", "s").unwrap(),
        Some(facts_of("one\ntwo\n"))
    );
}

#[test]
fn a_copy_kept_by_an_earlier_notesoup_has_no_facts_and_reads_as_before() {
    let s = Scratch::new("earlier");
    let path = s.0.join("t.jsonl");
    fs::write(&path, "one\n").unwrap();
    s.plain().keep("pi", "s", &path).unwrap();
    let v = s.describing();
    assert_eq!(v.facts("pi", "s").unwrap(), None);
    assert_eq!(v.read("pi", "s").unwrap().unwrap(), b"one\n");
}

#[test]
fn a_damaged_record_is_refused_though_its_facts_are_there() {
    let s = Scratch::new("damaged");
    let path = s.0.join("t.jsonl");
    fs::write(&path, "one\n").unwrap();
    let v = s.describing();
    v.keep("claude", "s", &path).unwrap();
    fs::write(
        s.0.join("vault/claude/s/v1.record"),
        "notesoup-vault 2\nx\n",
    )
    .unwrap();
    assert!(matches!(
        v.facts("claude", "s"),
        Err(VaultError::Damaged { .. })
    ));
}

#[test]
fn facts_that_do_not_parse_are_not_used() {
    let s = Scratch::new("garbled");
    let path = s.0.join("t.jsonl");
    fs::write(&path, "one\n").unwrap();
    let v = s.describing();
    v.keep("claude", "s", &path).unwrap();
    let facts = s.0.join("vault/claude/s/v1.facts");
    let text = fs::read_to_string(&facts).unwrap();
    for garbled in [
        text.replace("summary", "summery"),
        text.replace("\\\\", "\\q"),
        text.replace("last 4", "last four"),
        format!("{text}cwd again\n"),
        // Cut by a crash (they are written without a sync).
        text[..text.len() / 2].to_owned(),
        text.rsplit_once("xxh64").unwrap().0.to_owned(),
        String::new(),
    ] {
        fs::write(&facts, &garbled).unwrap();
        assert_eq!(v.facts("claude", "s").unwrap(), None, "{garbled}");
    }
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), b"one\n");
}
