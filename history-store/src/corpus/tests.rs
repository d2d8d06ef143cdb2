//! The mixed corpus: the real Claude, Pi and Codex fixtures copied into harness-shaped
//! folders, found by `session` selectors and read whole.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use notesoup_history_core::{History, ListArgs, ReadArgs, Role, SessionSummary};
use notesoup_window::Host;

use crate::{Corpus, Roots, StoreError};

pub(super) const CLAUDE: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
pub(super) const PI_MAIN: &str = "01a23754-8e37-7027-8822-e05ee3580bae";
const PI_FORK: &str = "01a23754-922a-7771-b755-13b58637f164";
const CODEX_BASE: &str = "01a23755-7b6b-79d2-9438-c01132a25971";
const CODEX_FORK: &str = "01a23756-b853-7e01-94a2-1ae0a322f736";
const CODEX_ZST: &str = "01a23756-dae0-73f0-a878-6043e965173e";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Copies every file under `from` into `to`, giving the n-th file the mtime `base + n s`.
fn copy_tree(from: &Path, to: &Path, clock: &mut SystemTime) {
    fs::create_dir_all(to).unwrap();
    let mut entries: Vec<PathBuf> = fs::read_dir(from)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target, clock);
        } else {
            fs::copy(&path, &target).unwrap();
            *clock += Duration::from_secs(1);
            notesoup_testkit::set_modified(&target, *clock);
        }
    }
}

/// A scratch HOME with `~/.claude/projects`, `~/.pi/agent/sessions` and `~/.codex/sessions`
/// holding the fixtures; Claude's session is the most recently written.
pub(super) fn home(name: &str) -> PathBuf {
    let home = std::env::temp_dir().join(format!("notesoup-corpus-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&home);
    let mut clock = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    copy_tree(
        &repo().join("history-pi/tests/data/agent/sessions"),
        &home.join(".pi/agent/sessions"),
        &mut clock,
    );
    copy_tree(
        &repo().join("history-codex/tests/data/codex-home/sessions"),
        &home.join(".codex/sessions"),
        &mut clock,
    );
    let project = home.join(".claude/projects/-tmp-project");
    fs::create_dir_all(&project).unwrap();
    let target = project.join(format!("{CLAUDE}.jsonl"));
    fs::copy(
        repo().join(format!("app/tests/data/history/{CLAUDE}.jsonl")),
        &target,
    )
    .unwrap();
    notesoup_testkit::set_modified(&target, clock + Duration::from_secs(60));
    home
}

/// The corpus of a scratch HOME, with these other variables.
pub(super) fn corpus(home: &Path, vars: &[(&str, &Path)], roots: Roots) -> Corpus {
    Corpus::new(roots, |name| {
        if name == "HOME" {
            return Some(home.display().to_string());
        }
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.display().to_string())
    })
}

/// The history `selector` names in `home`'s corpus.
fn open(selector: &str, home: &Path) -> Result<History, StoreError> {
    let corpus = corpus(home, &[], Roots::default());
    let found = corpus.resolve(selector)?;
    Ok(History::new(corpus.load(&found, None)?).unwrap())
}

/// The text of a `history_list` page.
fn list(selector: &str, args: &ListArgs, home: &Path) -> String {
    let history = open(selector, home).unwrap_or_else(|e| panic!("{selector}: {e}"));
    let page = history.list(args).unwrap();
    assert!(!page.shown.is_empty(), "{selector}: {}", page.text.as_str());
    page.text.into_string()
}

fn query(text: &str) -> ListArgs {
    ListArgs {
        query: Some(text.into()),
        ..ListArgs::default()
    }
}

fn refusal(selector: &str, home: &Path) -> (&'static str, String) {
    match open(selector, home) {
        Ok(_) => panic!("{selector} was read"),
        Err(err) => (err.code(), err.to_string()),
    }
}

#[test]
fn every_harness_is_read_by_selector_and_prefix() {
    let home = home("list");
    for (selector, needle) in [
        (format!("pi:{PI_MAIN}"), "pi-probe"),
        ("pi:01a23754-922a".to_owned(), "pi-probe"),
        (format!("codex:{CODEX_FORK}"), "codex-probe"),
        ("codex:01a23756-dae".to_owned(), "codex-probe"),
        (format!("claude:{CLAUDE}"), "RESUMED-PROMPT"),
        ("claude:da56".to_owned(), "RESUMED-PROMPT"),
    ] {
        let text = list(&selector, &query(needle), &home);
        assert!(text.contains(needle), "{selector}: {text}");
    }
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_codex_fork_reads_whole_through_the_rewind_segment_and_its_base() {
    let home = home("fork");
    let args = ListArgs {
        roles: Some(vec![Role::User]),
        order: Some(notesoup_history_core::Order::Oldest),
        ..ListArgs::default()
    };
    let text = list(&format!("codex:{CODEX_FORK}"), &args, &home);
    let order = [
        "Please run a command that writes a probe file.",
        "Name a third prime number.",
        "Say goodbye in German instead.",
        "In this fork, name a colour.",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|p| text.find(p).unwrap_or_else(|| panic!("{p}: {text}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(
        !text.contains("Say goodbye in French."),
        "the rewound turn is not on the fork's history"
    );
    let fork = open(&format!("codex:{CODEX_FORK}"), &home).unwrap();
    assert_eq!(fork.head_window_id(), format!("codex:{CODEX_FORK}:1"));
    // The thread itself reads from its newest segment.
    let text = list(&format!("codex:{CODEX_BASE}"), &query("goodbye"), &home);
    assert!(
        text.contains("German") && !text.contains("French"),
        "{text}"
    );
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_pi_fork_reads_whole_and_its_parent_path_may_have_moved() {
    let home = home("pi");
    // The fork's parentSession names /tmp/xh/pirun/r3/...: found again by id.
    let fork = open(&format!("pi:{PI_FORK}"), &home).unwrap();
    let read = fork
        .read(&ReadArgs {
            from: Some(1),
            to: Some(40),
            ..ReadArgs::default()
        })
        .unwrap();
    let text = read.text.as_str();
    assert!(
        text.contains("List the files here with bash.")
            && text.contains("In this fork, name a colour instead."),
        "{text}"
    );
    let main = open(&format!("pi:{PI_MAIN}"), &home).unwrap();
    assert_eq!(main.head_window_id(), format!("pi:{PI_MAIN}:1"));
    let _ = fs::remove_dir_all(home);
}

#[test]
fn bad_unknown_and_ambiguous_selectors_are_refused() {
    let home = home("refuse");
    for (selector, code) in [
        ("codex:01a2375", "ambiguous_session"),
        ("pi:01a23754", "ambiguous_session"),
        ("pi:ffff", "not_found"),
        ("gemini:abc", "bad_session"),
        ("pi:../../etc", "bad_session"),
        ("01a23754", "bad_session"),
    ] {
        assert_eq!(refusal(selector, &home).0, code, "{selector}");
    }
    // One Claude session id in two project folders is two sessions: refused, not picked.
    let other = home.join(".claude/projects/-another");
    fs::create_dir_all(&other).unwrap();
    fs::copy(
        home.join(format!(".claude/projects/-tmp-project/{CLAUDE}.jsonl")),
        other.join(format!("{CLAUDE}.jsonl")),
    )
    .unwrap();
    let (code, message) = refusal(&format!("claude:{CLAUDE}"), &home);
    assert_eq!(code, "duplicate_session", "{message}");
    assert!(
        message.contains("-another") && message.contains("-tmp-project"),
        "{message}"
    );
    let _ = fs::remove_dir_all(home);
}

#[test]
fn malformed_and_corrupt_files_are_refused_with_the_reason() {
    let home = home("bad");
    let pi = home.join(".pi/agent/sessions/--w--/2026-12-02T15-00-00-000Z_badbad.jsonl");
    fs::create_dir_all(pi.parent().unwrap()).unwrap();
    fs::write(
        &pi,
        "{\"type\":\"session\",\"version\":3,\"id\":\"badbad\"}\n{oops\n{}\n",
    )
    .unwrap();
    let (code, message) = refusal("pi:badbad", &home);
    assert_eq!(code, "transcript_malformed", "{message}");
    assert!(
        message.contains(":2: the line is not valid JSON"),
        "{message}"
    );
    let zst = home.join(format!(
        ".codex/sessions/2026/12/02/rollout-2026-12-02T15-19-28-{CODEX_ZST}.jsonl.zst"
    ));
    let mut bytes = fs::read(&zst).unwrap();
    bytes.truncate(bytes.len() / 2);
    fs::write(&zst, bytes).unwrap();
    let (code, message) = refusal(&format!("codex:{CODEX_ZST}"), &home);
    assert_eq!(code, "transcript_malformed", "{message}");
    // The listing still names both, saying why they cannot be read.
    let (sessions, _) = corpus(&home, &[], Roots::default()).recent(None, 200);
    for id in ["badbad", CODEX_ZST] {
        let summary = sessions.iter().find(|s| s.id == id).unwrap();
        assert!(summary.unreadable.is_some(), "{summary:?}");
    }
    let _ = fs::remove_dir_all(home);
}

#[test]
fn the_recent_listing_spans_harnesses_newest_first() {
    let home = home("recent");
    let corpus = corpus(&home, &[], Roots::default());
    let (sessions, total) = corpus.recent(None, 20);
    assert_eq!(total, 7); // 1 claude, 2 pi, 4 codex threads
    let names: Vec<String> = sessions.iter().map(SessionSummary::selector).collect();
    // Newest first by the last time each file records, whatever order they were copied in
    // (Claude's last); a compressed rollout by the last time it decompresses to, not by its
    // file's last write (2027, when Codex would have compressed it: after every recorded
    // time).
    assert_eq!(
        names,
        [
            "codex:01a23756-dc4b-7611-8782-70c642f15bd0".to_owned(),
            format!("codex:{CODEX_ZST}"),
            format!("codex:{CODEX_FORK}"),
            format!("codex:{CODEX_BASE}"),
            format!("claude:{CLAUDE}"),
            format!("pi:{PI_MAIN}"),
            format!("pi:{PI_FORK}"),
        ]
    );
    let updated = |id: &str| sessions.iter().find(|s| s.id == id).unwrap().updated;
    assert_eq!(
        updated(CLAUDE),
        notesoup_window::parse_moment("2026-12-02T15:18:58.139Z")
    );
    assert_eq!(
        updated(CODEX_ZST),
        notesoup_window::parse_moment("2026-12-02T15:19:28.954Z"),
        "the compressed rollout's last line"
    );
    let by_id = |id: &str| sessions.iter().find(|s| s.id == id).unwrap();
    let fork = by_id(CODEX_FORK);
    assert_eq!(fork.parent, Some(format!("codex:{CODEX_BASE}")));
    assert_eq!(
        fork.first_prompt.as_deref(),
        Some("In this fork, name a colour.")
    );
    assert_eq!(fork.cwd.as_deref(), Some("/tmp/xh/codexrun/c2/work"));
    assert_eq!(
        by_id(CODEX_BASE).first_prompt.as_deref(),
        Some("Please run a command that writes a probe file.")
    );
    assert_eq!(
        by_id(CODEX_ZST).first_prompt.as_deref(),
        Some("Please run a command that writes a probe file, then stop.")
    );
    let (pi, total) = corpus.recent(Some(Host::Pi), 1);
    assert_eq!(total, 2);
    assert_eq!(pi[0].id, PI_MAIN);
    let _ = fs::remove_dir_all(home);
}

/// When a session was last active is the last time its file records, found in a tail that
/// grows past a last line too long for the first read and past lines with no time; a file
/// that records no time is as recent as its last write (CLI walkthrough, finding 4: a
/// `touch` moved a three-week-old session to the top).
#[test]
fn a_session_is_as_recent_as_the_last_time_its_file_records() {
    let home = home("updated");
    let transcript = home.join(format!(".claude/projects/-tmp-project/{CLAUDE}.jsonl"));
    let mut text = fs::read_to_string(&transcript).unwrap();
    // A last-prompt row of 200 KB and a cut write: no time in the first tails read.
    text.push_str("{\"type\":\"last-prompt\",\"lastPrompt\":\"");
    text.push_str(&"x".repeat(200_000));
    text.push_str("\"}\n{\"type\":\"user\",\"timestamp\":\"2027-");
    fs::write(&transcript, text).unwrap();
    let now = SystemTime::now();
    notesoup_testkit::set_modified(&transcript, now);
    let untimed = home.join(".claude/projects/-tmp-project/untimed.jsonl");
    fs::write(&untimed, "{\"type\":\"summary\",\"summary\":\"s\"}\n").unwrap();
    let written = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    notesoup_testkit::set_modified(&untimed, written);
    let scanned = corpus(&home, &[], Roots::default()).scan(Some(Host::Claude));
    let updated = |id: &str| {
        let found = scanned.sessions().iter().find(|f| f.id == id).unwrap();
        scanned.updated(found)
    };
    assert_eq!(
        updated(CLAUDE),
        notesoup_window::parse_moment("2026-12-02T15:18:58.139Z"),
        "written just now, but its last recorded time is older"
    );
    assert_eq!(updated("untimed"), Some(1_700_000_000_000));
    let _ = fs::remove_dir_all(home);
}

#[test]
fn harness_variables_and_the_notesoup_setting_move_the_folders() {
    let home = home("vars");
    let empty = std::env::temp_dir().join(format!("notesoup-corpus-empty-{}", std::process::id()));
    fs::create_dir_all(&empty).unwrap();
    let count = |vars: &[(&str, &Path)], roots: Roots, harness: Option<Host>| {
        corpus(&home, vars, roots).recent(harness, 1).1
    };
    assert_eq!(count(&[], Roots::default(), None), 7);
    // Each harness's own variable replaces its default folder.
    let moved = [
        ("PI_CODING_AGENT_DIR", empty.as_path()),
        ("CODEX_HOME", &empty),
        ("CLAUDE_CONFIG_DIR", &empty),
    ];
    assert_eq!(count(&moved, Roots::default(), None), 0);
    let sessions = home.join(".pi/agent/sessions");
    let session_dir = [("PI_CODING_AGENT_SESSION_DIR", sessions.as_path())];
    assert_eq!(count(&session_dir, Roots::default(), Some(Host::Pi)), 2);
    // Pi's own sessionDir setting, absolute, is honoured.
    let agent = home.join("agent-with-setting");
    fs::create_dir_all(&agent).unwrap();
    let setting = format!("{{\"sessionDir\": {:?}}}", sessions.display().to_string());
    fs::write(agent.join("settings.json"), setting).unwrap();
    let pi_setting = [("PI_CODING_AGENT_DIR", agent.as_path())];
    assert_eq!(count(&pi_setting, Roots::default(), Some(Host::Pi)), 2);
    // The notesoup setting wins over the variables.
    let roots = Roots {
        pi: Some(sessions.display().to_string()),
        codex: Some(home.join(".codex/sessions").display().to_string()),
        claude: Some(home.join(".claude/projects").display().to_string()),
    };
    assert_eq!(count(&moved, roots, None), 7);
    let _ = fs::remove_dir_all(home);
    let _ = fs::remove_dir_all(empty);
}

/// `may_hold` reads a Claude transcript in windows, each starting with the last
/// [`overlap`](super::prefilter::RawNeedle::overlap) bytes of the one before: a match whose
/// last byte is past the first window's end is found, as it is and with case ignored (the
/// Kelvin sign is three bytes for the one of `k`), and an absent one is not.
#[test]
fn may_hold_finds_a_literal_across_windows() {
    use crate::RawNeedle;
    for (n, (written, sought, absent, ignore_case)) in [
        ("NEEDLE-77", "NEEDLE-77", "NEEDLE-78", false),
        ("\u{212A}", "k", "q", true),
    ]
    .into_iter()
    .enumerate()
    {
        let dir =
            std::env::temp_dir().join(format!("notesoup-may-hold-{}-{n}", std::process::id()));
        let project = dir.join("projects/-w");
        fs::create_dir_all(&project).unwrap();
        let id = "00000000-0000-4000-8000-00000000ab01";
        let needle = RawNeedle::new(sought, ignore_case);
        // The first window is WINDOW_BYTES and the overlap long: the match ends one byte
        // past it, so the next window finds it only from the bytes it keeps.
        let before = super::prefilter::WINDOW_BYTES + needle.overlap() + 1 - written.len();
        let mut bytes = vec![b'x'; before];
        bytes.extend_from_slice(written.as_bytes());
        bytes.extend_from_slice(&[b'y'; 100]);
        bytes.push(b'\n');
        fs::write(project.join(format!("{id}.jsonl")), &bytes).unwrap();
        let corpus = Corpus::new(
            Roots {
                claude: Some(dir.join("projects").display().to_string()),
                ..Roots::default()
            },
            |_| None,
        );
        let scan = corpus.scan(None);
        let found = &scan.sessions()[0];
        assert!(scan.may_hold(found, &needle).unwrap(), "{sought}");
        assert!(
            !scan
                .may_hold(found, &RawNeedle::new(absent, ignore_case))
                .unwrap(),
            "{absent}"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_pi_session_file_handed_in_is_taken_only_where_the_walk_would_find_it() {
    let home = home("given");
    let corpus = corpus(&home, &[], Roots::default());
    let sessions = home.join(".pi/agent/sessions");
    let folder = sessions.join("--tmp-xh-pirun-r3-work--");
    let name = format!("2026-12-02T15-16-58-039Z_{PI_MAIN}.jsonl");
    let real = folder.join(&name);
    let found = corpus.pi_session_file(PI_MAIN, &real).unwrap();
    assert_eq!((found.harness, found.id.as_str()), (Host::Pi, PI_MAIN));
    assert_eq!(found.path, real);
    // The walk finds the same file for that id.
    assert_eq!(corpus.resolve(&format!("pi:{PI_MAIN}")).unwrap().path, real);
    // Another session's id, a path that leaves the folder and comes back, a relative path.
    assert!(corpus.pi_session_file(PI_FORK, &real).is_none());
    let dotted = folder
        .join("..")
        .join("--tmp-xh-pirun-r3-work--")
        .join(&name);
    assert!(dotted.is_file());
    assert!(corpus.pi_session_file(PI_MAIN, &dotted).is_none());
    assert!(corpus.pi_session_file(PI_MAIN, Path::new(&name)).is_none());
    // One step up and out: a file beside the sessions folder named through it.
    fs::copy(&real, home.join(".pi/agent").join(&name)).unwrap();
    let escaped = sessions.join("..").join(&name);
    assert!(escaped.is_file());
    assert!(corpus.pi_session_file(PI_MAIN, &escaped).is_none());
    // A file of that name outside the sessions folder, or too deep in it.
    let outside = home.join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    fs::copy(&real, outside.join(&name)).unwrap();
    assert!(
        corpus
            .pi_session_file(PI_MAIN, &outside.join(&name))
            .is_none()
    );
    let deep = folder.join("deeper");
    fs::create_dir_all(&deep).unwrap();
    fs::copy(&real, deep.join(&name)).unwrap();
    assert!(corpus.pi_session_file(PI_MAIN, &deep.join(&name)).is_none());
    // A link in the folder to a file elsewhere, a folder of that name, a missing file.
    let linked = sessions.join(format!("2026-12-03T00-00-00-000Z_{PI_MAIN}.jsonl"));
    std::os::unix::fs::symlink(outside.join(&name), &linked).unwrap();
    assert!(corpus.pi_session_file(PI_MAIN, &linked).is_none());
    let as_folder = sessions.join(format!("2026-12-04T00-00-00-000Z_{PI_MAIN}.jsonl"));
    fs::create_dir_all(&as_folder).unwrap();
    assert!(corpus.pi_session_file(PI_MAIN, &as_folder).is_none());
    let missing = folder.join(format!("2026-12-05T00-00-00-000Z_{PI_MAIN}.jsonl"));
    assert!(corpus.pi_session_file(PI_MAIN, &missing).is_none());
    // A file straight in the sessions folder is one the walk finds.
    let top = sessions.join(format!("2026-12-06T00-00-00-000Z_{PI_MAIN}.jsonl"));
    fs::copy(&real, &top).unwrap();
    assert_eq!(corpus.pi_session_file(PI_MAIN, &top).unwrap().path, top);
    let _ = fs::remove_dir_all(home);
}

/// Every file under `dir`, at any depth.
pub(super) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A Codex thread whose files only the vault holds (a `.jsonl.zst` kept compressed, a fork
/// with its segment and base) is handed to the decoder from the vault's bytes and reads as
/// it did from its files.
#[test]
fn a_codex_thread_only_the_vault_holds_reads_as_its_files_did() {
    use notesoup_vault_store::{Vault, vault_name};
    let home = home("codex-vault");
    let sessions = home.join(".codex/sessions");
    let vault = Vault::open(&home.join("vault")).unwrap();
    for path in files_under(&sessions) {
        vault
            .keep("codex", &vault_name(&path).unwrap(), &path)
            .unwrap();
    }
    let read_all = || {
        let corpus = corpus(&home, &[], Roots::default())
            .with_vault(Vault::open(&home.join("vault")).unwrap());
        [CODEX_FORK, CODEX_ZST, CODEX_BASE].map(|id| {
            let found = corpus.resolve(&format!("codex:{id}")).unwrap();
            (found.only_in_vault(), corpus.load(&found, None).unwrap())
        })
    };
    // The listing's lines too (each read from the file's start only).
    let listed = || {
        let corpus = corpus(&home, &[], Roots::default())
            .with_vault(Vault::open(&home.join("vault")).unwrap());
        let (mut sessions, _) = corpus.recent(Some(Host::Codex), 50);
        sessions.sort_by(|a, b| a.id.cmp(&b.id));
        sessions
            .into_iter()
            .map(|s| {
                (
                    s.id,
                    s.started,
                    s.cwd,
                    s.first_prompt,
                    s.parent,
                    s.unreadable,
                )
            })
            .collect::<Vec<_>>()
    };
    let from_files = (read_all(), listed());
    assert!(from_files.0.iter().all(|(vaulted, _)| !vaulted));
    assert!(
        from_files.1.iter().all(|s| s.5.is_none()),
        "{:?}",
        from_files.1
    );
    assert!(
        from_files
            .1
            .iter()
            .any(|s| s.0 == CODEX_ZST && s.3.is_some())
    );
    fs::remove_dir_all(&sessions).unwrap();
    let from_vault = (read_all(), listed());
    for ((_, files), (vaulted, vault)) in from_files.0.iter().zip(&from_vault.0) {
        assert!(vaulted, "{}", vault.session.id);
        assert_eq!(files, vault);
    }
    assert_eq!(from_files.1, from_vault.1);
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_vault_only_session_whose_copy_is_damaged_past_its_first_piece_is_the_vaults_refusal() {
    use notesoup_vault_store::{PIECE_MAX, Vault, vault_name};
    let home = home("vault-damaged");
    let sessions = home.join(".pi/agent/sessions");
    let path = sessions.join(format!(
        "--tmp-xh-pirun-r3-work--/2026-12-02T15-16-58-039Z_{PI_MAIN}.jsonl"
    ));
    // Past one piece of the vault's copy: a long prompt continuing the last entry.
    let bytes = fs::read_to_string(&path).unwrap();
    let last: serde_json::Value = serde_json::from_str(bytes.lines().last().unwrap()).unwrap();
    let text = "a long prompt ".repeat(usize::try_from(PIECE_MAX).unwrap() / 10);
    let entry = serde_json::json!({"type": "message", "id": "long", "parentId": last["id"],
        "timestamp": "t", "message": {"role": "user", "content": text}});
    fs::write(&path, format!("{bytes}{entry}\n")).unwrap();
    let vault = Vault::open(&home.join("vault")).unwrap();
    let name = vault_name(&path).unwrap();
    for file in files_under(&sessions) {
        vault
            .keep("pi", &vault_name(&file).unwrap(), &file)
            .unwrap();
    }
    fs::remove_dir_all(&sessions).unwrap();
    let corpus =
        corpus(&home, &[], Roots::default()).with_vault(Vault::open(&home.join("vault")).unwrap());
    let found = corpus.resolve(&format!("pi:{PI_MAIN}")).unwrap();
    // The fork continues the main session: its decode reads the main's copy too.
    let fork = corpus.resolve(&format!("pi:{PI_FORK}")).unwrap();
    assert!(found.only_in_vault() && fork.only_in_vault());
    assert!(corpus.load(&found, None).is_ok());
    assert!(corpus.load(&fork, None).is_ok());
    // The second piece damaged: the decode has read the first when the vault refuses.
    let piece = home.join(format!("vault/pi/{name}/v1.1.zst"));
    let mut packed = fs::read(&piece).unwrap();
    let mid = packed.len() / 2;
    packed[mid] ^= 0xff;
    fs::write(&piece, packed).unwrap();
    // The main session, and the fork whose damaged copy is its ancestor's.
    let errors = [
        corpus.load(&found, None).unwrap_err(),
        corpus
            .history(&found, None, Some("long"), None)
            .unwrap_err(),
        corpus.load(&fork, None).unwrap_err(),
        corpus.history(&fork, None, Some("long"), None).unwrap_err(),
    ];
    for err in errors {
        assert_eq!(err.code(), "vault_damaged", "{err}");
        assert!(err.to_string().contains(PI_MAIN), "{err}");
    }
    let _ = fs::remove_dir_all(home);
}

/// A vault-only Codex thread (a rewind segment and the base file it continues) whose copy
/// is damaged past its first piece is refused as the vault says it, not as the decoder says
/// its failed read.
#[test]
fn a_vault_only_codex_thread_whose_copy_is_damaged_is_the_vaults_refusal() {
    use notesoup_vault_store::{PIECE_MAX, Vault, vault_name};
    let home = home("codex-vault-damaged");
    let sessions = home.join(".codex/sessions");
    let vault = Vault::open(&home.join("vault")).unwrap();
    let mut segment = None;
    for path in files_under(&sessions) {
        let name = vault_name(&path).unwrap();
        if name.starts_with("rollout-") && name.contains(&format!("{CODEX_BASE}_")) {
            // Past one piece of the vault's copy: an event the decoder passes over.
            let text = "padding ".repeat(usize::try_from(PIECE_MAX).unwrap() / 5);
            let entry = serde_json::json!({"timestamp": "2026-12-02T15:19:09.800Z",
                "type": "event_msg", "payload": {"type": "padding", "text": text}});
            let bytes = fs::read_to_string(&path).unwrap();
            fs::write(&path, format!("{bytes}{entry}\n")).unwrap();
            segment = Some(name.clone());
        }
        vault.keep("codex", &name, &path).unwrap();
    }
    fs::remove_dir_all(&sessions).unwrap();
    let corpus =
        corpus(&home, &[], Roots::default()).with_vault(Vault::open(&home.join("vault")).unwrap());
    let thread = corpus.resolve(&format!("codex:{CODEX_BASE}")).unwrap();
    assert!(thread.only_in_vault());
    assert_eq!(thread.vaulted, segment);
    assert!(corpus.load(&thread, None).is_ok());
    // The segment's second piece damaged: its first line was read, then the decode fails.
    let piece = home.join(format!("vault/codex/{}/v1.1.zst", segment.unwrap()));
    let mut packed = fs::read(&piece).unwrap();
    let at = packed.len() / 2;
    packed[at] ^= 0xff;
    fs::write(&piece, packed).unwrap();
    for err in [
        corpus.load(&thread, None).unwrap_err(),
        corpus.history(&thread, None, Some("x"), None).unwrap_err(),
    ] {
        assert_eq!(err.code(), "vault_damaged", "{err}");
    }
    let _ = fs::remove_dir_all(home);
}
