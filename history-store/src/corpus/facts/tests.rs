//! A session only the vault holds is listed from the facts recorded when it was kept, as
//! its file was listed, without decompressing its copy; a copy kept without them (by an
//! earlier notesoup) is listed from the copy, as before.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::fs;
use std::path::Path;

use notesoup_vault_store::{Vault, vault_name};

use super::super::tests::{CLAUDE, PI_MAIN, corpus, files_under, home};
use crate::Roots;

/// Where each harness keeps its sessions in a scratch HOME.
const FOLDERS: [(&str, &str); 3] = [
    ("claude", ".claude/projects"),
    ("pi", ".pi/agent/sessions"),
    ("codex", ".codex/sessions"),
];

/// A listing line: selector, start, cwd, first prompt, parent, why unreadable, last active.
type Line = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<u64>,
);

/// Every session's listing line (`history sessions`), by selector, and whether each is
/// vault only.
fn listing(home: &Path) -> (Vec<Line>, Vec<bool>) {
    let corpus =
        corpus(home, &[], Roots::default()).with_vault(Vault::open(&home.join("vault")).unwrap());
    let (mut sessions, _) = corpus.recent(None, 50);
    sessions.sort_by_key(notesoup_history_core::SessionSummary::selector);
    let vault_only = sessions.iter().map(|s| s.vault_only).collect();
    let lines = sessions
        .into_iter()
        .map(|s| {
            let selector = s.selector();
            (
                selector,
                s.started,
                s.cwd,
                s.first_prompt,
                s.parent,
                s.unreadable,
                s.updated,
            )
        })
        .collect();
    (lines, vault_only)
}

/// Every session file of `home` kept in `vault`.
fn keep_all(home: &Path, vault: &Vault) {
    for (harness, folder) in FOLDERS {
        for file in files_under(&home.join(folder)) {
            vault
                .keep(harness, &vault_name(&file).unwrap(), &file)
                .unwrap();
        }
    }
}

/// The harnesses delete every session file.
fn delete_originals(home: &Path) {
    for (_, folder) in FOLDERS {
        fs::remove_dir_all(home.join(folder)).unwrap();
    }
}

/// The vault keeping as notesoup keeps: with each version's facts.
fn describing(home: &Path) -> Vault {
    Vault::open(&home.join("vault"))
        .unwrap()
        .describing(super::describe)
}

/// The vault folder of a session file by its selector's id.
fn session_folder(home: &Path, harness: &str, id: &str) -> std::path::PathBuf {
    let folder = home.join("vault").join(harness);
    fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir() && p.file_name().unwrap().to_str().unwrap().contains(id))
        .unwrap()
}

#[test]
fn a_vault_only_session_lists_what_its_file_listed() {
    let home = home("facts-same");
    let from_files = listing(&home);
    assert!(from_files.1.iter().all(|v| !v));
    assert!(
        from_files
            .0
            .iter()
            .all(|line| line.5.is_none() && line.6.is_some())
    );
    let vault = describing(&home);
    keep_all(&home, &vault);
    for (harness, folder) in FOLDERS {
        for file in files_under(&home.join(folder)) {
            let facts = vault.facts(harness, &vault_name(&file).unwrap()).unwrap();
            assert!(facts.is_some_and(|f| f.summary.is_some()), "{file:?}");
        }
    }
    delete_originals(&home);
    let from_vault = listing(&home);
    assert!(from_vault.1.iter().all(|v| *v));
    assert_eq!(from_files.0, from_vault.0);
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_vault_kept_by_an_earlier_notesoup_lists_what_its_file_listed() {
    let home = home("facts-earlier");
    let from_files = listing(&home);
    // As an earlier notesoup kept it: no facts.
    let vault = Vault::open(&home.join("vault")).unwrap();
    keep_all(&home, &vault);
    assert_eq!(vault.facts("claude", CLAUDE).unwrap(), None);
    delete_originals(&home);
    let from_vault = listing(&home);
    assert!(from_vault.1.iter().all(|v| *v));
    assert_eq!(from_files.0, from_vault.0);
    let _ = fs::remove_dir_all(home);
}

/// The facts are read, not the copy: with every piece of the Claude and Pi copies damaged
/// after they were kept, the listing is as it was from the files, while a read of the
/// session is refused as damaged; without the facts the listing reads the damaged copies.
#[test]
fn a_vault_only_session_is_listed_from_its_facts_without_decompressing_its_copy() {
    let home = home("facts-not-decompressed");
    let from_files = listing(&home);
    keep_all(&home, &describing(&home));
    delete_originals(&home);
    let damaged = [
        session_folder(&home, "claude", CLAUDE),
        session_folder(&home, "pi", PI_MAIN),
    ];
    for folder in &damaged {
        for piece in fs::read_dir(folder).unwrap().map(|e| e.unwrap().path()) {
            if piece.extension().is_some_and(|e| e == "zst") {
                let mut packed = fs::read(&piece).unwrap();
                let mid = packed.len() / 2;
                packed[mid] ^= 0xff;
                fs::write(&piece, packed).unwrap();
            }
        }
    }
    assert_eq!(listing(&home).0, from_files.0);
    let corpus =
        corpus(&home, &[], Roots::default()).with_vault(Vault::open(&home.join("vault")).unwrap());
    for selector in [format!("claude:{CLAUDE}"), format!("pi:{PI_MAIN}")] {
        let found = corpus.resolve(&selector).unwrap();
        let err = corpus.load(&found, None).unwrap_err();
        assert_eq!(err.code(), "vault_damaged", "{selector}: {err}");
    }
    // The facts gone: the listing reads the copies, and finds them damaged.
    for folder in &damaged {
        fs::remove_file(folder.join("v1.facts")).unwrap();
    }
    let unread = listing(&home).0;
    for id in [CLAUDE, PI_MAIN] {
        let line = unread.iter().find(|l| l.0.ends_with(id)).unwrap();
        assert!(
            line.5.as_ref().is_some_and(|why| why.contains("damaged")),
            "{line:?}"
        );
    }
    let _ = fs::remove_dir_all(home);
}

/// A record that does not parse is refused as before, though facts were recorded.
#[test]
fn a_vault_only_session_whose_record_is_damaged_is_listed_as_unreadable() {
    let home = home("facts-record-damaged");
    keep_all(&home, &describing(&home));
    delete_originals(&home);
    let folder = session_folder(&home, "claude", CLAUDE);
    fs::write(folder.join("v1.record"), "notesoup-vault 2\nnot a size\n").unwrap();
    let (lines, _) = listing(&home);
    let line = lines.iter().find(|l| l.0.ends_with(CLAUDE)).unwrap();
    assert!(
        line.5.as_ref().is_some_and(|why| why.contains("damaged")),
        "{line:?}"
    );
    assert_eq!((&line.1, &line.3), (&None, &None));
    let _ = fs::remove_dir_all(home);
}

/// Records the facts of every session only the vault holds from its copy, as
/// `notesoup history vault` does; how many were recorded.
fn fill_all(home: &Path) -> usize {
    let vault = Vault::open(&home.join("vault")).unwrap();
    let corpus = corpus(home, &[], Roots::default()).with_vault(vault.clone());
    let scanned = corpus.scan(None);
    let mut filled = 0;
    for found in scanned.files().iter().filter(|f| f.only_in_vault()) {
        let name = found.vault_name().unwrap();
        let done = vault
            .fill_facts(found.harness.name(), name, |copy| {
                super::describe_copy(found, copy)
            })
            .unwrap();
        filled += usize::from(done);
    }
    filled
}

/// Every `v1.facts` of the vault, by session folder.
fn facts_files(home: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (harness, _) in FOLDERS {
        let Ok(sessions) = fs::read_dir(home.join("vault").join(harness)) else {
            continue;
        };
        for session in sessions.map(|e| e.unwrap().path()).filter(|p| p.is_dir()) {
            let name = format!(
                "{harness}/{}",
                session.file_name().unwrap().to_str().unwrap()
            );
            out.push((name, fs::read(session.join("v1.facts")).unwrap()));
        }
    }
    out.sort();
    out
}

/// A copy an earlier notesoup kept without facts, whose original is gone, gets them from the
/// copy itself: the same file a keep of the original writes, byte for byte, and the listing
/// is the same before and after; a second run records nothing.
#[test]
fn a_copy_kept_without_facts_gets_the_facts_a_keep_records() {
    let kept = home("facts-fill-kept");
    keep_all(&kept, &describing(&kept));
    let home = home("facts-fill");
    let from_files = listing(&home);
    keep_all(&home, &Vault::open(&home.join("vault")).unwrap());
    delete_originals(&home);
    let before = listing(&home);
    assert!(before.1.iter().all(|v| *v));
    assert_eq!(before.0, from_files.0);
    let filled = fill_all(&home);
    assert_eq!(filled, facts_files(&kept).len());
    assert_eq!(facts_files(&home), facts_files(&kept));
    assert_eq!(listing(&home).0, before.0);
    assert_eq!(fill_all(&home), 0);
    let _ = fs::remove_dir_all(home);
    let _ = fs::remove_dir_all(kept);
}

/// Once filled, the listing reads the facts, not the copy: with the Claude and Pi copies'
/// pieces damaged it is unchanged, while a read of the session is refused as damaged.
#[test]
fn a_filled_copy_is_listed_without_decompressing_it() {
    let home = home("facts-fill-not-decompressed");
    let from_files = listing(&home);
    keep_all(&home, &Vault::open(&home.join("vault")).unwrap());
    delete_originals(&home);
    fill_all(&home);
    for folder in [
        session_folder(&home, "claude", CLAUDE),
        session_folder(&home, "pi", PI_MAIN),
    ] {
        for piece in fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()) {
            if piece.extension().is_some_and(|e| e == "zst") {
                let mut packed = fs::read(&piece).unwrap();
                let mid = packed.len() / 2;
                packed[mid] ^= 0xff;
                fs::write(&piece, packed).unwrap();
            }
        }
    }
    assert_eq!(listing(&home).0, from_files.0);
    let corpus =
        corpus(&home, &[], Roots::default()).with_vault(Vault::open(&home.join("vault")).unwrap());
    for selector in [format!("claude:{CLAUDE}"), format!("pi:{PI_MAIN}")] {
        let found = corpus.resolve(&selector).unwrap();
        let err = corpus.load(&found, None).unwrap_err();
        assert_eq!(err.code(), "vault_damaged", "{selector}: {err}");
    }
    let _ = fs::remove_dir_all(home);
}

/// A damaged copy gets no facts: it stays refused as damaged, and the listing says so.
#[test]
fn a_damaged_copy_gets_no_facts() {
    let home = home("facts-fill-damaged");
    keep_all(&home, &Vault::open(&home.join("vault")).unwrap());
    delete_originals(&home);
    let folder = session_folder(&home, "claude", CLAUDE);
    let piece = folder.join("v1.0.zst");
    let mut packed = fs::read(&piece).unwrap();
    let mid = packed.len() / 2;
    packed[mid] ^= 0xff;
    fs::write(&piece, packed).unwrap();
    let vault = Vault::open(&home.join("vault")).unwrap();
    let corpus = corpus(&home, &[], Roots::default()).with_vault(vault.clone());
    let found = corpus.resolve(&format!("claude:{CLAUDE}")).unwrap();
    let err = vault
        .fill_facts("claude", found.vault_name().unwrap(), |copy| {
            super::describe_copy(&found, copy)
        })
        .unwrap_err();
    assert!(
        matches!(err, notesoup_vault_store::VaultError::Damaged { .. }),
        "{err}"
    );
    assert!(!folder.join("v1.facts").exists());
    let (lines, _) = listing(&home);
    let line = lines.iter().find(|l| l.0.ends_with(CLAUDE)).unwrap();
    assert!(
        line.5.as_ref().is_some_and(|why| why.contains("damaged")),
        "{line:?}"
    );
    let _ = fs::remove_dir_all(home);
}

/// A copy kept without facts is listed by its tail, as its file was: only the pieces that
/// hold the tail are read. With the first of a two-piece Claude copy damaged (the second
/// holds more than the first tail read), the listing
/// still shows the last time the copy records (it read the copy whole, failed at the
/// first piece, and showed when the copy was written).
#[test]
fn a_copy_kept_without_facts_is_listed_by_its_tail() {
    let home = home("facts-tail");
    let id = "0badc0de-0000-4000-8000-000000000001";
    let project = home.join(".claude/projects/-work-big");
    fs::create_dir_all(&project).unwrap();
    let mut text = String::new();
    let row = |time: &str| {
        format!(
            r#"{{"type":"user","timestamp":"{time}","sessionId":"{id}","message":{{"role":"user","content":"{}"}}}}"#,
            "x".repeat(200)
        )
    };
    while (text.len() as u64) < notesoup_vault_store::PIECE_MAX + 64 * 1024 {
        text.push_str(&row("2026-01-01T00:00:00Z"));
        text.push('\n');
    }
    text.push_str(&row("2026-12-02T15:18:58Z"));
    text.push('\n');
    let file = project.join(format!("{id}.jsonl"));
    fs::write(&file, &text).unwrap();
    let vault = Vault::open(&home.join("vault")).unwrap();
    vault
        .keep("claude", &vault_name(&file).unwrap(), &file)
        .unwrap();
    assert_eq!(vault.facts("claude", id).unwrap(), None);
    delete_originals(&home);
    let first = session_folder(&home, "claude", id).join("v1.0.zst");
    let mut packed = fs::read(&first).unwrap();
    let mid = packed.len() / 2;
    packed[mid] ^= 0xff;
    fs::write(&first, packed).unwrap();
    let (lines, _) = listing(&home);
    let line = lines.iter().find(|l| l.0.ends_with(id)).unwrap();
    assert_eq!(
        line.6,
        notesoup_window::parse_moment("2026-12-02T15:18:58Z"),
        "{line:?}"
    );
    let _ = fs::remove_dir_all(home);
}
