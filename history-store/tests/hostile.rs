//! Hostile files where the history side reads: a FIFO or a device in a transcript's,
//! an index's or a session file's place is refused at once (never waited on), a file with
//! no newline or over its cap is refused with bounded memory, a zstd bomb is refused at
//! its cap (the listing decodes only the head it shows), and a Pi fork's `parentSession`
//! outside the Pi sessions folders is not followed.
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::fs;
use std::path::{Path, PathBuf};

use notesoup_history_claude::{Head, Options};
use notesoup_history_store::{
    Cache, Corpus, LINE_MAX_BYTES, Roots, SESSION_FILE_MAX_BYTES, StoreError, read_transcript,
};
use notesoup_testkit::mkfifo;
use notesoup_window::Host;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("notesoup-hostile-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn code(result: Result<impl Sized, StoreError>) -> (&'static str, String) {
    match result {
        Ok(_) => panic!("read"),
        Err(err) => (err.code(), err.to_string()),
    }
}

fn transcript(path: &Path, cache: Option<&Cache>) -> Result<(), StoreError> {
    read_transcript(path, &Options::default(), &Head::Leaf, cache).map(drop)
}

#[test]
fn a_fifo_or_a_device_as_a_transcript_is_refused_at_once() {
    let dir = scratch("fifo");
    let fifo = dir.join("t.jsonl");
    mkfifo(&fifo);
    // Without O_NONBLOCK this open waits for a writer forever.
    let (code_, message) = code(transcript(&fifo, None));
    assert_eq!(code_, "not_regular", "{message}");
    assert!(message.contains("FIFO"), "{message}");
    // /dev/zero would grow memory without bound: it is not a regular file.
    let (code_, message) = code(transcript(Path::new("/dev/zero"), None));
    assert_eq!(code_, "not_regular", "{message}");
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn a_fifo_in_the_index_place_is_ignored_not_waited_on() {
    let dir = scratch("fifo-index");
    let path = dir.join("t.jsonl");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../app/tests/data/history/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    fs::copy(fixture, &path).unwrap();
    let mut cache = Cache::new(dir.join("cache"));
    (cache.min_bytes, cache.keep, cache.max_bytes) = (0, 4, 1 << 20);
    fs::create_dir_all(&cache.dir).unwrap();
    // Every name the index could have in the cache folder is a FIFO: try the one read.
    transcript(&path, Some(&cache)).unwrap();
    let mut indexes = 0;
    for entry in fs::read_dir(&cache.dir).unwrap() {
        let index = entry.unwrap().path();
        fs::remove_file(&index).unwrap();
        mkfifo(&index);
        indexes += 1;
    }
    assert_eq!(indexes, 1);
    transcript(&path, Some(&cache)).unwrap();
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn a_line_over_the_cap_is_refused_with_bounded_memory() {
    let dir = scratch("line");
    let path = dir.join("t.jsonl");
    // A sparse file of zeros, no newline: one endless line.
    let file = fs::File::create(&path).unwrap();
    file.set_len(LINE_MAX_BYTES as u64 + (4 << 20)).unwrap();
    let (code_, message) = code(transcript(&path, None));
    assert_eq!(code_, "too_large", "{message}");
    assert!(message.contains(&LINE_MAX_BYTES.to_string()), "{message}");
    let _ = fs::remove_dir_all(dir);
}

/// A line just over the cap that ends (its newline in the block after the one the cap
/// falls in) is refused as too large too: it was decoded, its body left in the file, and a
/// later read of that body said the transcript changed while a read with no body needed
/// answered as if the line were not too long (spec audit 4).
#[test]
fn a_line_over_the_cap_that_ends_is_refused_too() {
    let dir = scratch("line-ends");
    let path = dir.join("t.jsonl");
    let head = r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"t","message":{"role":"user","content":""#;
    let mut line = head.as_bytes().to_vec();
    line.resize(LINE_MAX_BYTES + 10, b'H');
    line.extend_from_slice(b"\"}}\n");
    fs::write(&path, &line).unwrap();
    for cache in [None, Some(scratch("line-ends-cache"))] {
        let cache = cache.map(|dir| {
            let mut cache = Cache::new(dir);
            cache.min_bytes = 0;
            cache
        });
        let (code_, message) = code(transcript(&path, cache.as_ref()));
        assert_eq!(code_, "too_large", "{message}");
    }
    let _ = fs::remove_dir_all(dir);
}

/// A scratch HOME holding one Pi session folder and one Codex sessions folder.
fn corpus(home: &Path) -> Corpus {
    let home = home.to_owned();
    Corpus::new(Roots::default(), move |name| {
        (name == "HOME").then(|| home.display().to_string())
    })
}

const PI_ID: &str = "01a23754-0000-7000-8000-000000000001";
const CODEX_ID: &str = "01a23756-0000-7000-8000-000000000002";

fn pi_file(home: &Path, id: &str) -> PathBuf {
    let dir = home.join(".pi/agent/sessions/--w--");
    fs::create_dir_all(&dir).unwrap();
    dir.join(format!("2026-12-02T15-00-00-000Z_{id}.jsonl"))
}

fn codex_file(home: &Path, id: &str, ext: &str) -> PathBuf {
    let dir = home.join(".codex/sessions/2026/12/02");
    fs::create_dir_all(&dir).unwrap();
    dir.join(format!("rollout-2026-12-02T15-19-28-{id}.{ext}"))
}

fn load(corpus: &Corpus, selector: &str) -> Result<(), StoreError> {
    let found = corpus.resolve(selector)?;
    corpus.load(&found, None).map(drop)
}

#[test]
fn session_files_that_are_fifos_or_over_the_cap_are_refused() {
    let home = scratch("sessions");
    let corpus = corpus(&home);
    mkfifo(&pi_file(&home, PI_ID));
    mkfifo(&codex_file(&home, CODEX_ID, "jsonl"));
    for selector in [format!("pi:{PI_ID}"), format!("codex:{CODEX_ID}")] {
        let (code_, message) = code(load(&corpus, &selector));
        assert_eq!(code_, "not_regular", "{selector}: {message}");
    }
    // The listing names them unreadable rather than waiting.
    let (sessions, total) = corpus.recent(None, 10);
    assert_eq!(total, 2);
    assert!(
        sessions.iter().all(|s| s.unreadable.is_some()),
        "{sessions:?}"
    );
    // A sparse session file over the cap is refused by its size, unread.
    fs::remove_file(pi_file(&home, PI_ID)).unwrap();
    let big = fs::File::create(pi_file(&home, PI_ID)).unwrap();
    big.set_len(SESSION_FILE_MAX_BYTES + 1).unwrap();
    let (code_, message) = code(load(&corpus, &format!("pi:{PI_ID}")));
    assert_eq!(code_, "too_large", "{message}");
    let _ = fs::remove_dir_all(home);
}

/// A zstd frame of `blocks` RLE blocks of 128 KiB of newlines (8 KiB → 256 MiB).
fn zstd_bomb(blocks: u32) -> Vec<u8> {
    const BLOCK: u32 = 128 * 1024;
    let mut zst = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    for i in 0..blocks {
        let header = u32::from(i + 1 == blocks) | (1 << 1) | (BLOCK << 3);
        zst.extend_from_slice(&header.to_le_bytes()[..3]);
        zst.push(b'\n');
    }
    zst
}

#[test]
fn a_zstd_bomb_in_the_codex_folder_is_refused_and_listed_from_its_head() {
    let home = scratch("bomb");
    let corpus = corpus(&home);
    fs::write(codex_file(&home, CODEX_ID, "jsonl.zst"), zstd_bomb(2048)).unwrap();
    let (code_, message) = code(load(&corpus, &format!("codex:{CODEX_ID}")));
    assert_eq!(code_, "too_large", "{message}");
    let (sessions, total) = corpus.recent(Some(Host::Codex), 10);
    assert_eq!(total, 1);
    // Only the 64 KiB head is decoded: newlines only, so no session_meta.
    assert!(sessions[0].unreadable.is_some(), "{sessions:?}");
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_pi_parent_outside_the_sessions_folder_is_not_followed() {
    let home = scratch("pi-parent");
    let outside = home.join("elsewhere/secret.jsonl");
    fs::create_dir_all(outside.parent().unwrap()).unwrap();
    fs::write(
        &outside,
        "{\"type\":\"session\",\"version\":3,\"id\":\"secret\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n",
    )
    .unwrap();
    let fork = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"{PI_ID}\",\"timestamp\":\"t\",\"cwd\":\"/w\",\"parentSession\":{}}}\n",
        serde_json::Value::String(outside.display().to_string())
    );
    fs::write(pi_file(&home, PI_ID), fork).unwrap();
    let (code_, message) = code(load(&corpus(&home), &format!("pi:{PI_ID}")));
    assert_eq!(code_, "history_link", "{message}");
    assert!(message.contains("outside"), "{message}");
    let _ = fs::remove_dir_all(home);
}

#[test]
fn a_link_at_the_index_temp_name_is_not_followed() {
    let dir = scratch("index-temp");
    let path = dir.join("t.jsonl");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../app/tests/data/history/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    fs::copy(fixture, &path).unwrap();
    let mut cache = Cache::new(dir.join("cache"));
    (cache.min_bytes, cache.keep, cache.max_bytes) = (0, 4, 1 << 30);
    // Learn the index's name, then plant links at every temp name this process will use
    // next (`.<index>.<pid>.<n>.tmp`; the counter is per process, so a few cover it).
    transcript(&path, Some(&cache)).unwrap();
    let index = fs::read_dir(&cache.dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::remove_file(&index).unwrap();
    let outside = dir.join("outside.txt");
    fs::write(&outside, "precious").unwrap();
    let name = index.file_name().unwrap().to_str().unwrap().to_owned();
    for nonce in 0..64 {
        let temp = cache
            .dir
            .join(format!(".{name}.{}.{nonce}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&outside, temp).unwrap();
    }
    transcript(&path, Some(&cache)).unwrap();
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    let _ = fs::remove_dir_all(dir);
}

/// A transcript big enough to be indexed by a cache with `min_bytes` 0.
fn indexed_fixture(dir: &Path) -> PathBuf {
    let path = dir.join("t.jsonl");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../app/tests/data/history/da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl");
    fs::copy(fixture, &path).unwrap();
    path
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_link_at_the_cache_folders_keeps_no_index_outside_the_home() {
    let root = scratch("cache-link");
    let path = indexed_fixture(&root);
    let outside = root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    // Stale-looking files of the cache's own kinds: an eviction through a link would remove them.
    fs::write(outside.join("claude-0000000000000000.idx"), "keep").unwrap();
    fs::write(outside.join(".claude-0000000000000000.idx.1.1.tmp"), "keep").unwrap();
    let home = root.join("home");
    let cache = |home: &Path| {
        let mut cache = Cache::in_home(home);
        (cache.min_bytes, cache.keep) = (0, 0);
        cache
    };
    // No home yet: the first index write creates real folders, the index inside.
    assert_eq!(cache(&home).dir, home.join("cache/history"));
    transcript(&path, Some(&cache(&home))).unwrap();
    assert_eq!(names(&home.join("cache/history")).len(), 1);
    // A link at `cache/history`, then at `cache`, then a file: read, nothing written or
    // removed through it.
    fs::remove_dir_all(home.join("cache")).unwrap();
    fs::create_dir(home.join("cache")).unwrap();
    std::os::unix::fs::symlink(&outside, home.join("cache/history")).unwrap();
    transcript(&path, Some(&cache(&home))).unwrap();
    fs::remove_dir_all(home.join("cache")).unwrap();
    std::os::unix::fs::symlink(&outside, home.join("cache")).unwrap();
    transcript(&path, Some(&cache(&home))).unwrap();
    fs::remove_file(home.join("cache")).unwrap();
    fs::write(home.join("cache"), "a file").unwrap();
    transcript(&path, Some(&cache(&home))).unwrap();
    assert_eq!(fs::read_to_string(home.join("cache")).unwrap(), "a file");
    assert_eq!(
        names(&outside),
        [
            ".claude-0000000000000000.idx.1.1.tmp",
            "claude-0000000000000000.idx"
        ]
    );
    let _ = fs::remove_dir_all(&root);
}

/// Eviction lists, inspects and removes relative to the cache folder: a link in it (at an
/// index's name, at a temp file's) is never followed, and its target is never removed.
#[test]
fn eviction_never_follows_a_link_in_the_cache_folder() {
    let root = scratch("evict-link");
    let path = indexed_fixture(&root);
    let outside = root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("precious"), "keep").unwrap();
    let mut cache = Cache::new(root.join("cache"));
    (cache.min_bytes, cache.keep) = (0, 1);
    fs::create_dir_all(&cache.dir).unwrap();
    for name in [
        "claude-0000000000000001.idx",
        ".claude-0000000000000001.idx.1.1.tmp",
    ] {
        std::os::unix::fs::symlink(outside.join("precious"), cache.dir.join(name)).unwrap();
    }
    std::os::unix::fs::symlink(&outside, cache.dir.join("claude-0000000000000002.idx")).unwrap();
    transcript(&path, Some(&cache)).unwrap();
    assert_eq!(names(&outside), ["precious"]);
    assert_eq!(
        fs::read_to_string(outside.join("precious")).unwrap(),
        "keep"
    );
    // The index was written beside the links, which are left as they are.
    assert_eq!(names(&cache.dir).len(), 4, "{:?}", names(&cache.dir));
    let _ = fs::remove_dir_all(&root);
}
