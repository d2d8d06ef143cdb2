//! The index never changes an answer: every read through it equals a fresh decode of the
//! file as it is now, on the real fixtures and generated transcripts, after appends, after
//! truncation, an in-place rewrite of the same size, a replaced file, and with a damaged
//! or foreign index (rebuilt).

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use notesoup_history_claude::{Head, Options, decode};
use notesoup_history_core::Body;
use serde_json::json;

use super::*;
use notesoup_history_claude::index::{BLOCK, MAGIC, PrefixHash, checksum};
use notesoup_safe_fs::Dir;
use twox_hash::xxh3;

use staleness::RACY;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("notesoup-tindex-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cache")).unwrap();
    dir
}

type Indexed = Result<Transcript, String>;

fn fresh(path: &Path) -> Indexed {
    let bytes = std::fs::read(path).unwrap();
    decode(&bytes, &Options::default(), &Head::Leaf).map_err(|e| e.to_string())
}

/// The index file of `transcript` in `cache_dir`.
fn index_path(cache_dir: &Path, transcript: &Path) -> PathBuf {
    cache_dir.join(index_name(transcript))
}

/// Every transcript gets an index (the helper's 1 MiB floor would leave these small
/// files without one).
fn every(dir: &Path) -> Cache {
    Cache {
        dir: dir.to_owned(),
        min_bytes: 0,
        keep: 64,
        max_bytes: u64::MAX,
        home: None,
    }
}

fn cached(path: &Path, cache: &Path) -> Indexed {
    read_transcript(path, &Options::default(), &Head::Leaf, Some(&every(cache))).map_err(
        |e| match e {
            StoreError::Claude { source, .. } => source.to_string(),
            other => format!("io: {other}"),
        },
    )
}

/// Reads through the index and checks the answer against a fresh decode.
fn check(path: &Path, cache: &Path, what: &str) {
    assert_eq!(cached(path, cache), fresh(path), "{what}");
}

/// What the index in `cache` vouches for, if it is whole.
fn covered(path: &Path, cache: &Path) -> Option<Covered> {
    let dir = Dir::open(cache).ok()?;
    load_index(
        &dir,
        &index_name(path),
        path,
        &Options::default(),
        u64::MAX,
        |_| {},
    )
    .map(|index| index.covered)
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["../history-claude/tests/data", "../app/tests/data/history"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 10, "the real fixtures are there");
    out
}

fn append(path: &Path, bytes: &[u8]) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// A generated transcript of session `s1`: prompts, answers, tool calls and results,
/// an occasional metadata record.
fn generated(n: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let mut parent: Option<String> = None;
    for i in 0..n {
        let uuid = format!("g{i}");
        let mut row = json!({"uuid": uuid, "parentUuid": parent, "isSidechain": false,
                             "sessionId": "s1", "timestamp": format!("2026-12-02T10:{:02}:00Z", i % 60)});
        match i % 4 {
            0 => {
                row["type"] = json!("user");
                row["message"] =
                    json!({"role": "user", "content": format!("prompt {i}: find zebra-{}", i % 7)});
            }
            1 => {
                row["type"] = json!("assistant");
                row["message"] = json!({"role": "assistant", "content": [
                    {"type": "text", "text": format!("looking {i}")},
                    {"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": format!("grep zebra {i}")}}]});
            }
            2 => {
                row["type"] = json!("user");
                row["message"] = json!({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("t{}", i - 1), "content": format!("zebra line {i}\nnext é")}]});
            }
            _ => {
                row["type"] = json!("assistant");
                row["message"] = json!({"role": "assistant", "content": [{"type": "text", "text": format!("done {i} ✓")}]});
            }
        }
        rows.push(row.to_string());
        if i % 9 == 0 {
            rows.push(json!({"type": "last-prompt", "sessionId": "s1"}).to_string());
        }
        parent = Some(uuid);
    }
    rows
}

#[test]
fn real_fixtures_read_through_the_index_cold_and_warm_equal_a_fresh_decode() {
    let dir = scratch("real");
    for fixture in fixtures() {
        let name = fixture.file_name().unwrap().to_str().unwrap().to_owned();
        let path = dir.join(&name);
        std::fs::copy(&fixture, &path).unwrap();
        let cache = dir.join("cache");
        check(&path, &cache, &format!("{name} cold"));
        if fresh(&path).is_ok() {
            assert!(
                covered(&path, &cache).is_some(),
                "{name}: an index was written"
            );
        }
        check(&path, &cache, &format!("{name} warm"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn real_fixtures_grown_line_by_line_equal_a_fresh_decode_after_every_append() {
    let dir = scratch("grow");
    for fixture in fixtures() {
        let name = fixture.file_name().unwrap().to_str().unwrap().to_owned();
        let bytes = std::fs::read(&fixture).unwrap();
        let path = dir.join(&name);
        let cache = dir.join(format!("cache-{name}"));
        std::fs::write(&path, b"").unwrap();
        // Append each line in two writes: the first half is a torn line for one call.
        for (n, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            let half = line.len() / 2;
            append(&path, &line[..half]);
            check(&path, &cache, &format!("{name} torn line {n}"));
            append(&path, &line[half..]);
            check(&path, &cache, &format!("{name} after line {n}"));
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn generated_transcripts_resume_across_rewrites_of_the_index() {
    let dir = scratch("generated");
    let path = dir.join("s1.jsonl");
    let cache = dir.join("cache");
    let rows = generated(4000);
    std::fs::write(&path, b"").unwrap();
    let mut lens = Vec::new();
    for chunk in rows.chunks(157) {
        append(&path, (chunk.join("\n") + "\n").as_bytes());
        check(&path, &cache, "after a chunk");
        lens.push(covered(&path, &cache).unwrap().len);
    }
    // Small appends were decoded on top of an older index; larger ones rewrote it.
    lens.dedup();
    assert!(lens.len() > 3 && lens.len() < rows.len() / 157, "{lens:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A string Claude Code cut inside an emoji (a lone `\ud83d` escape, as JavaScript writes
/// it) reads as U+FFFD, through the index cold and warm as in a fresh decode: it refused
/// the whole transcript.
#[test]
fn a_lone_surrogate_reads_as_the_replacement_character_through_the_index() {
    let dir = scratch("surrogate");
    let path = dir.join("s1.jsonl");
    let cache = dir.join("cache");
    let rows: Vec<String> = generated(400)
        .into_iter()
        .map(|row| {
            row.replace("next é", r"next \ud83d")
                .replace("find zebra", r"\ude00 find zebra")
        })
        .collect();
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    let fresh = fresh(&path).unwrap();
    let cut = |t: &Transcript| {
        t.events
            .iter()
            .filter(|e| match &e.body {
                Body::Text { text } | Body::ToolResult { text, .. } => text.contains('\u{fffd}'),
                Body::ToolCall { .. } => false,
            })
            .count()
    };
    assert_eq!(cut(&fresh), 200, "every cut text reads with U+FFFD");
    check(&path, &cache, "cold");
    assert!(covered(&path, &cache).is_some(), "an index was written");
    check(&path, &cache, "warm");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_changed_prefix_is_decoded_afresh_never_served_from_the_index() {
    let dir = scratch("changed");
    let cache = dir.join("cache");
    let path = dir.join("s1.jsonl");
    let text = generated(300).join("\n") + "\n";
    let reset = |content: &str| {
        std::fs::write(&path, content).unwrap();
        check(&path, &cache, "index built");
        assert!(covered(&path, &cache).is_some());
    };

    // Truncated to a shorter file (a rewrite that dropped rows).
    reset(&text);
    let cut = text[..text.len() / 2].rfind('\n').unwrap() + 1;
    std::fs::write(&path, &text[..cut]).unwrap();
    check(&path, &cache, "truncated");

    // The same size, rewritten in place (same inode), one byte in the middle changed.
    reset(&text);
    let at = text.find("prompt 148").unwrap() + "prompt ".len();
    let mut file = OpenOptions::new().write(true).open(&path).unwrap();
    file.seek(SeekFrom::Start(at as u64)).unwrap();
    file.write_all(b"9").unwrap();
    drop(file);
    let changed = fresh(&path).unwrap();
    assert_ne!(
        Ok(changed.clone()),
        fresh_of(&text),
        "the rewrite changed the answer"
    );
    assert_eq!(cached(&path, &cache), Ok(changed), "same-size rewrite");

    // Rewritten in place, then appended to.
    reset(&text);
    let mut file = OpenOptions::new().write(true).open(&path).unwrap();
    file.seek(SeekFrom::Start(10)).unwrap();
    file.write_all(b"x").unwrap();
    drop(file);
    append(&path, (generated(301)[300].clone() + "\n").as_bytes());
    check(&path, &cache, "rewrite then append");

    // Replaced by another file (a new inode) with more rows.
    reset(&text);
    let other = dir.join("other.jsonl");
    std::fs::write(&other, generated(320).join("\n") + "\n").unwrap();
    std::fs::rename(&other, &path).unwrap();
    check(&path, &cache, "replaced");

    // A committed line made invalid behind the index: refused as a fresh decode refuses.
    reset(&text);
    let mut broken = text.clone().into_bytes();
    let brace = text.find("\n{").unwrap() + 1;
    broken[brace] = b'[';
    std::fs::write(&path, &broken).unwrap();
    assert!(fresh(&path).is_err());
    check(&path, &cache, "broken prefix");
    let _ = std::fs::remove_dir_all(dir);
}

fn fresh_of(text: &str) -> Indexed {
    decode(text.as_bytes(), &Options::default(), &Head::Leaf).map_err(|e| e.to_string())
}

/// An index file's bytes without the time it was written (and so without its checksum).
fn without_time(index: &[u8]) -> Vec<u8> {
    // MAGIC, dev, ino, len, hash, seen (size, modified, changed), then `written`.
    let at = MAGIC.len() + 8 + 8 + 8 + 16 + 8 + 16 + 16;
    let mut out = index[..at].to_vec();
    out.extend_from_slice(&index[at + 16..index.len() - 8]);
    out
}

#[test]
fn a_damaged_or_foreign_index_is_rebuilt_silently() {
    let dir = scratch("damaged");
    let cache = dir.join("cache");
    let path = dir.join("s1.jsonl");
    std::fs::write(&path, generated(500).join("\n") + "\n").unwrap();
    check(&path, &cache, "built");
    let index = index_path(&cache, &path);
    let good = std::fs::read(&index).unwrap();
    let step = good.len() / 97;
    for at in (0..good.len()).step_by(step.max(1)) {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        std::fs::write(&index, &bad).unwrap();
        assert!(
            covered(&path, &cache).is_none(),
            "a flipped byte at {at} fails the checksum"
        );
        check(&path, &cache, &format!("flipped byte {at}"));
        assert_eq!(
            without_time(&std::fs::read(&index).unwrap()),
            without_time(&good),
            "rebuilt after byte {at}"
        );
    }
    for bad in [&good[..good.len() / 2], &b""[..], &b"not an index"[..]] {
        std::fs::write(&index, bad).unwrap();
        check(&path, &cache, "cut or foreign bytes");
        assert_eq!(
            without_time(&std::fs::read(&index).unwrap()),
            without_time(&good)
        );
    }
    // A whole index of the previous format (6: every parent written as its uuid), its
    // checksum valid, is not used.
    let mut old = good.clone();
    old[MAGIC.len() - 1] = 6;
    let body = old.len() - 8;
    let sum = checksum(&[xxh3::hash64_with_seed(&old[..body], 0)], body as u64);
    old[body..].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&index, &old).unwrap();
    assert!(
        covered(&path, &cache).is_none(),
        "a format 6 index is refused"
    );
    check(&path, &cache, "format 6 index");
    assert_eq!(
        without_time(&std::fs::read(&index).unwrap()),
        without_time(&good)
    );
    // Another transcript's (whole, valid) index under this one's name is not used.
    let other = dir.join("s2.jsonl");
    std::fs::write(&other, generated(20).join("\n") + "\n").unwrap();
    check(&other, &cache, "other built");
    std::fs::copy(index_path(&cache, &other), &index).unwrap();
    check(&path, &cache, "foreign index");
    assert_eq!(
        without_time(&std::fs::read(&index).unwrap()),
        without_time(&good)
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_unwritable_cache_is_ignored() {
    let dir = scratch("unwritable");
    let path = dir.join("s1.jsonl");
    std::fs::write(&path, generated(50).join("\n") + "\n").unwrap();
    // The cache folder's place is taken by a file: nothing can be written there.
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, b"").unwrap();
    check(&path, &blocked.join("history"), "no cache");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn concurrent_readers_agree_and_leave_a_whole_index() {
    let dir = scratch("concurrent");
    let cache = dir.join("cache");
    let path = dir.join("s1.jsonl");
    std::fs::write(&path, generated(2000).join("\n") + "\n").unwrap();
    let expected = fresh(&path);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..5 {
                    assert_eq!(cached(&path, &cache), expected);
                    let _ = std::fs::remove_file(index_path(&cache, &path));
                }
            });
        }
    });
    check(&path, &cache, "after the race");
    assert!(covered(&path, &cache).is_some());
    let leftovers: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".tmp."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A transcript of 100 generated events at `dir/name`, read once through `cache`.
fn indexed_transcript(dir: &Path, name: &str, cache: &Cache) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, generated(100).join("\n") + "\n").unwrap();
    assert!(read_transcript(&path, &Options::default(), &Head::Leaf, Some(cache)).is_ok());
    path
}

/// Dates the index of `path` `secs` seconds after an hour ago, so eviction order does not
/// hang on timestamp granularity.
fn age_index(cache: &Cache, path: &Path, secs: u64) {
    let at = std::time::SystemTime::now() - std::time::Duration::from_secs(3600)
        + std::time::Duration::from_secs(secs);
    notesoup_testkit::set_modified(&index_path(&cache.dir, path), at);
}

/// Which of `paths` still have an index.
fn kept(cache: &Cache, paths: &[&PathBuf]) -> Vec<bool> {
    paths
        .iter()
        .map(|p| index_path(&cache.dir, p).exists())
        .collect()
}

#[test]
fn small_transcripts_get_no_index_and_the_least_recently_used_indexes_go_first() {
    let dir = scratch("evict");
    let cache = Cache {
        dir: dir.join("cache"),
        min_bytes: 4000,
        keep: 3,
        max_bytes: u64::MAX,
        home: None,
    };
    let small = dir.join("small.jsonl");
    std::fs::write(&small, generated(5).join("\n") + "\n").unwrap();
    assert!(read_transcript(&small, &Options::default(), &Head::Leaf, Some(&cache)).is_ok());
    assert!(!index_path(&cache.dir, &small).exists(), "below min_bytes");
    let paths: Vec<PathBuf> = (0..5)
        .map(|i| {
            let path = indexed_transcript(&dir, &format!("t{i}.jsonl"), &cache);
            age_index(&cache, &path, i);
            path
        })
        .collect();
    // Using t0's index makes it the most recent; the next write evicts down to 3.
    assert_eq!(
        read_transcript(&paths[0], &Options::default(), &Head::Leaf, Some(&cache))
            .map(|t| t.events.len())
            .map_err(|_| ()),
        fresh(&paths[0]).map(|t| t.events.len()).map_err(|_| ())
    );
    let last = indexed_transcript(&dir, "t5.jsonl", &cache);
    let all: Vec<&PathBuf> = paths.iter().chain([&last]).collect();
    assert_eq!(kept(&cache, &all), [true, false, false, false, true, true]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_byte_budget_evicts_the_oldest_indexes_but_never_the_newest() {
    let dir = scratch("evict-bytes");
    let mut cache = Cache {
        dir: dir.join("cache"),
        min_bytes: 0,
        keep: 64,
        max_bytes: u64::MAX,
        home: None,
    };
    let paths: Vec<PathBuf> = (0..3)
        .map(|i| {
            let path = indexed_transcript(&dir, &format!("t{i}.jsonl"), &cache);
            age_index(&cache, &path, i);
            path
        })
        .collect();
    let one = std::fs::metadata(index_path(&cache.dir, &paths[2]))
        .unwrap()
        .len();
    // Room for two indexes of this size: the next write keeps itself and the newest other.
    cache.max_bytes = one * 2 + one / 2;
    let third = indexed_transcript(&dir, "t3.jsonl", &cache);
    let all: Vec<&PathBuf> = paths.iter().chain([&third]).collect();
    assert_eq!(kept(&cache, &all), [false, false, true, true]);
    // A budget smaller than one index still keeps the newest.
    cache.max_bytes = 1;
    let fourth = indexed_transcript(&dir, "t4.jsonl", &cache);
    assert_eq!(
        kept(&cache, &[&paths[2], &third, &fourth]),
        [false, false, true]
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Rewrites the index of `path` as if it had been written `after` nanoseconds after the
/// status change it recorded.
fn index_written_after(path: &Path, cache: &Path, after: i128) {
    let (dir, index_file) = (Dir::open(cache).unwrap(), index_name(path));
    let mut indexed = load_index(
        &dir,
        &index_file,
        path,
        &Options::default(),
        u64::MAX,
        |_| {},
    )
    .unwrap();
    indexed.covered.written = indexed.covered.seen.changed + after;
    assert!(save_index(
        &dir,
        &index_file,
        path,
        &indexed.covered,
        &indexed.decoder,
        &indexed.starts
    ));
}

/// A warm read: its answer and how many bytes of the transcript it read.
fn warm_read(path: &Path, cache: &Path) -> (Indexed, u64) {
    match read_indexed(path, &Options::default(), &Head::Leaf, Some(&every(cache))) {
        Ok((t, read)) => (Ok(t), read),
        Err(ReadError::Decode(err)) => (Err(err.to_string()), 0),
        Err(ReadError::Io(err)) => panic!("io: {err}"),
        Err(ReadError::File(err)) => panic!("file: {err}"),
        Err(ReadError::LineTooLong) => panic!("a line over the limit"),
    }
}

/// A file unchanged since it was indexed, indexed well after its last change, is trusted
/// on its times: nothing of the indexed prefix is read (only the torn line after it), and
/// the answer is a fresh decode's. Indexed within the racy window, or touched since
/// (same bytes, a new modification time), it is hashed again, read whole.
#[test]
fn an_unchanged_file_is_trusted_on_its_times_and_its_prefix_is_not_read() {
    let dir = scratch("unchanged");
    let cache = dir.join("cache");
    let path = dir.join("s1.jsonl");
    let torn = r#"{"type":"user","uuid":"torn"#;
    let text = generated(300).join("\n") + "\n" + torn;
    std::fs::write(&path, &text).unwrap();
    check(&path, &cache, "index built");
    let whole = text.len() as u64;

    index_written_after(&path, &cache, 10 * RACY);
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path));
    assert_eq!(read, torn.len() as u64, "only the torn tail is read");

    // Indexed within the racy window: a same-tick rewrite could hide, so it is hashed.
    index_written_after(&path, &cache, RACY / 2);
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path));
    assert_eq!(read, whole, "racy: the prefix is read and hashed");

    // Touched (the same bytes, another modification time): hashed, not trusted.
    index_written_after(&path, &cache, 10 * RACY);
    notesoup_testkit::set_modified(
        &path,
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000),
    );
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path));
    assert_eq!(read, whole, "touched: the prefix is read and hashed");
}

/// An index its file's times cannot vouch for (written within the racy window of the
/// file's last change, or the file touched since) is written again by the first call that
/// hashes the prefix once that change lies more than [`RACY`] back, so later calls read
/// nothing of the prefix (a finished session indexed as it ended is not read and hashed
/// whole on every call); a file changed within the window is still hashed every time.
#[test]
fn an_index_vouched_for_by_its_hash_is_refreshed_once_its_times_can_vouch() {
    let dir = scratch("refreshed");
    let cache = dir.join("cache");
    let path = dir.join("s1.jsonl");
    let text = generated(300).join("\n") + "\n";
    std::fs::write(&path, &text).unwrap();
    check(&path, &cache, "index built");
    let whole = text.len() as u64;

    // Within the racy window of the file's change: hashed, and not refreshed yet.
    index_written_after(&path, &cache, RACY / 2);
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path));
    assert_eq!(read, whole, "racy: the prefix is read and hashed");
    let (_, read) = warm_read(&path, &cache);
    assert_eq!(read, whole, "still within the window: hashed again");

    // Once the change is older than the window: hashed once more, and refreshed.
    std::thread::sleep(std::time::Duration::from_nanos(
        u64::try_from(RACY).unwrap() + 200_000_000,
    ));
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path));
    assert_eq!(read, whole, "hashed once more");
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path));
    assert_eq!(read, 0, "refreshed: trusted on its times");
}

/// An index of more line starts than its reader takes at once (1,024) loads whole: every
/// start read back, and a warm read of the unchanged file served from it (nothing of the
/// prefix read) equals a fresh decode.
#[test]
fn an_index_of_many_lines_loads_all_its_starts() {
    let dir = scratch("many-lines");
    let cache = dir.join("cache");
    let path = dir.join("s1.jsonl");
    let rows = generated(2500);
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    check(&path, &cache, "index built");
    index_written_after(&path, &cache, 10 * RACY);
    let (folder, index_file) = (Dir::open(&cache).unwrap(), index_name(&path));
    let loaded = load_index(
        &folder,
        &index_file,
        &path,
        &Options::default(),
        u64::MAX,
        |_| {},
    )
    .unwrap();
    assert!(rows.len() > 2 * 1024);
    assert_eq!(
        loaded.starts.len(),
        rows.len() + 1,
        "each line's start, then the end"
    );
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path));
    assert_eq!(read, 0, "served from the index");
}

/// The raw search run beside the index's load finds, in the whole lines before the length
/// it is given, every match of the query as it is (with the run of backslashes right
/// before it, counted for a query an escaped text can surely hold) and of its JSON-escaped
/// form, across its blocks and in a line longer than one block, exactly as one search of
/// the whole bytes does.
#[test]
fn the_prescan_finds_every_match_in_whole_lines_across_its_blocks() {
    let dir = scratch("prescan");
    let path = dir.join("t.jsonl");
    for (query, counted) in [("zeb/ra", true), ("say \"z\"", false)] {
        let escaped = notesoup_history_claude::short_escaped(query);
        let mut text = Vec::new();
        for n in 0..60_000_usize {
            let filler = "x".repeat(n % 97);
            let line = match n % 7 {
                0 => format!("{filler}{query}{filler}"),
                1 => format!("{filler}\\\\\\{escaped}{filler}{escaped}"),
                2 => format!("{filler}\\\\\\{query}"),
                _ => filler,
            };
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
            if n == 30_000 {
                // A line longer than one block, a match at its end.
                text.extend_from_slice("y".repeat(3 << 20).as_bytes());
                text.extend_from_slice(query.as_bytes());
                text.push(b'\n');
            }
        }
        // The search stops at the last whole line before `len`: no match past it.
        let cut = text.len() - 1;
        let len = cut as u64;
        text.extend_from_slice(format!("{query}\n{query}").as_bytes());
        std::fs::write(&path, &text).unwrap();
        let file = File::open(&path).unwrap();
        let hits = Prescan::start(&file, Some(RawQuery::new(query)), len, false)
            .unwrap()
            .join()
            .unwrap();
        let whole = &text[..=text[..cut].iter().rposition(|&b| b == b'\n').unwrap()];
        assert_eq!(hits.len, whole.len() as u64);
        let run = |at: usize| {
            let run = whole[..at]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if counted { run } else { 0 }
        };
        let plain: Vec<(u64, usize)> = memchr::memmem::find_iter(whole, query.as_bytes())
            .map(|at| (at as u64, run(at)))
            .collect();
        let escaped_at: Vec<u64> = if escaped == query {
            Vec::new()
        } else {
            memchr::memmem::find_iter(whole, escaped.as_bytes())
                .map(|at| at as u64)
                .collect()
        };
        assert!(plain.len() > 10_000 && plain.iter().any(|&(_, run)| run == 3) == counted);
        assert_eq!(hits.plain, plain, "{query}");
        assert_eq!(hits.escaped, escaped_at, "{query}");
        // Hashing the whole blocks as they pass, with the search or alone: the hashes of
        // the blocks read in turn, and the same matches.
        let mut blocks = PrefixHash::default();
        for block in text[..cut].chunks_exact(BLOCK) {
            blocks.push(block);
        }
        let want = blocks.finish(blocks.whole(), None, 0);
        assert!(blocks.whole() >= 3);
        let mut both = Prescan::start(&file, Some(RawQuery::new(query)), len, true).unwrap();
        let hash = both.take_hash().unwrap();
        assert_eq!(hash.whole(), blocks.whole());
        assert_eq!(hash.finish(hash.whole(), None, 0), want);
        let again = both.join().unwrap();
        assert_eq!((again.len, again.plain), (hits.len, hits.plain));
        let mut alone = Prescan::start(&file, None, len, true).unwrap();
        let hash = alone.take_hash().unwrap();
        assert_eq!(hash.finish(hash.whole(), None, 0), want);
        assert!(alone.join().is_none(), "no search, no matches");
        // A file shorter than the length it was given, or more matches than it keeps: no
        // result (the search then reads the lines itself).
        let past = Prescan::start(
            &file,
            Some(RawQuery::new(query)),
            text.len() as u64 + 10,
            false,
        )
        .unwrap();
        assert!(past.join().is_none());
        assert!(
            Prescan::start(&file, Some(RawQuery::new("x")), len, false)
                .unwrap()
                .join()
                .is_none()
        );
    }
}

/// A warm search counts a raw match as its text's only where the text holds it: a match
/// right after an escaping backslash (`\nope` is a line break and `ope`) is no match of
/// `nope`, one after an escaped backslash (`\\nope`) is. Once the page is full, the count
/// is the whole transcript's, whether the index's matches came from the search run beside
/// its load or from the search's own reads.
#[test]
fn a_warm_count_tells_a_match_after_an_escaping_backslash_from_a_text_holding_it() {
    let dir = scratch("escaping");
    let path = dir.join("t.jsonl");
    let texts = [
        "x\nope",
        "nope",
        "a\\nope",
        "x\\\nope",
        "no\nnope",
        "\\\\\nope",
    ];
    let mut rows = Vec::new();
    let mut parent: Option<String> = None;
    for i in 0..120 {
        let uuid = format!("e{i}");
        rows.push(
            json!({"type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
                   "sessionId": "s1", "timestamp": "2026-12-02T10:00:00Z",
                   "message": {"role": "user", "content": texts[i % texts.len()]}})
            .to_string(),
        );
        parent = Some(uuid);
    }
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    let cache = every(&dir.join("cache"));
    let whole = History::new(fresh(&path).unwrap()).unwrap();
    for limit in [1, 5, 50] {
        let args = notesoup_history_core::ListArgs {
            query: Some("nope".into()),
            limit: Some(limit),
            ..Default::default()
        };
        // Cold (writes the index), then warm twice (through the index).
        for _ in 0..3 {
            let lazy = read_history(
                &path,
                &Options::default(),
                &Head::Leaf,
                Some(&cache),
                Some("nope"),
            )
            .unwrap();
            assert_eq!(lazy.list(&args), whole.list(&args), "limit {limit}");
        }
    }
    assert!(covered(&path, &dir.join("cache")).is_some());
}

/// A read stops at the size the call opened the file at: what a writer appends meanwhile
/// (here: the ten lines past that size, already there) is never read (issue 24).
#[test]
fn a_read_stops_at_the_size_the_file_had_when_opened() {
    let dir = scratch("bounded");
    let path = dir.join("s1.jsonl");
    let lines = generated(20);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let opened = (lines[..10].join("\n").len() + 1) as u64;
    let mut file = File::open(&path).unwrap();
    let mut reader = blocks::BlockReader::new(opened);
    let mut decoder = Decoder::new(Options::default());
    let mut starts = Vec::new();
    let torn = reader
        .decode_rest(&mut file, 0, &mut decoder, &mut starts, &Keep::All)
        .unwrap_or_else(|_| panic!("the first ten lines decode"));
    assert!(torn.is_empty());
    assert_eq!((decoder.lines(), reader.offset), (10, opened));
    let _ = std::fs::remove_dir_all(dir);
}

/// A grown file (a live session's, after every turn) cannot be vouched for by its times:
/// its prefix's whole blocks are hashed on a thread beside the index's load, the part
/// after them once it is loaded. A byte changed in place in any whole block, or in that
/// last part, is found, and the file is decoded afresh; unchanged, the index is resumed,
/// and the file is read once.
#[test]
fn a_grown_file_changed_in_any_block_of_its_prefix_is_decoded_afresh() {
    let dir = scratch("blocks");
    let cache = dir.join("cache");
    let path = dir.join("s1.jsonl");
    let rows = generated(18_001);
    let text = rows[..18_000].join("\n") + "\n";
    let next = rows[18_000].clone() + "\n";
    assert!(text.len() > 3 * BLOCK + BLOCK / 2, "{} bytes", text.len());
    let indexed = |content: &[u8]| {
        std::fs::write(&path, content).unwrap();
        check(&path, &cache, "index built");
        assert!(covered(&path, &cache).is_some());
    };

    indexed(text.as_bytes());
    append(&path, next.as_bytes());
    let (answer, read) = warm_read(&path, &cache);
    assert_eq!(answer, fresh(&path), "unchanged prefix");
    assert_eq!(read, (text.len() + next.len()) as u64, "read once");
    // Resumed: the index still covers what it did (a decode from byte 0 rewrites it).
    assert_eq!(
        covered(&path, &cache).map(|c| c.len),
        Some(text.len() as u64)
    );

    // In the first, the second and the third whole block, and after the last one.
    for (k, at) in [BLOCK / 2, BLOCK + 100, 2 * BLOCK + 7, text.len() - 2000]
        .into_iter()
        .enumerate()
    {
        indexed(text.as_bytes());
        // A digit of a prompt's number: the transcript stays valid, its answer changes.
        let digit = at + text[at..].find("prompt ").unwrap() + "prompt ".len();
        let mut changed = text.clone().into_bytes();
        changed[digit] = if changed[digit] == b'9' { b'8' } else { b'9' };
        let mut file = OpenOptions::new().write(true).open(&path).unwrap();
        file.seek(SeekFrom::Start(digit as u64)).unwrap();
        file.write_all(&changed[digit..=digit]).unwrap();
        drop(file);
        append(&path, next.as_bytes());
        let now = fresh(&path);
        assert!(now.is_ok(), "change {k} keeps the transcript valid");
        assert_ne!(
            now,
            fresh_of(&(text.clone() + &next)),
            "change {k} changed the answer"
        );
        let (answer, _) = warm_read(&path, &cache);
        assert_eq!(
            answer,
            now,
            "changed at byte {digit} (block {})",
            digit / BLOCK
        );
        // Decoded from byte 0, so the index was rewritten over the whole file.
        assert_eq!(
            covered(&path, &cache).map(|c| c.len),
            Some((text.len() + next.len()) as u64),
            "change {k}: decoded afresh"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A line read again after the file was cut before it: the error says the file got shorter,
/// not the system's "failed to fill whole buffer".
#[test]
fn a_read_past_a_cut_says_the_file_got_shorter() {
    let dir = std::env::temp_dir().join(format!("notesoup-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cut.jsonl");
    std::fs::write(&path, b"0123456789").unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let mut out = [0u8; 8];
    let err = blocks::read_at(&file, &mut out, 6).unwrap_err();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        err.to_string(),
        "the file ends before bytes 6..14: it got shorter since it was read"
    );
}

/// `forget_session` removes every index made of a transcript of the session, wherever the
/// transcript lay (its header names it; the id in any case), and a temp file on the way
/// to one; another session's index stays, and another harness's session has none.
#[test]
fn forgetting_a_session_removes_its_indexes_only() {
    let dir = scratch("forget");
    for folder in ["a", "b"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    let cache = every(&dir.join("cache"));
    let moved = indexed_transcript(&dir.join("a"), "S1.jsonl", &cache);
    let here = indexed_transcript(&dir.join("b"), "S1.jsonl", &cache);
    let other = indexed_transcript(&dir.join("b"), "s2.jsonl", &cache);
    let temp = cache.dir.join(format!(".{}.4242.7.tmp", index_name(&here)));
    std::fs::copy(index_path(&cache.dir, &here), &temp).unwrap();
    assert!(
        cache
            .forget_session(notesoup_window::Host::Pi, "s1")
            .unwrap()
            .is_empty()
    );
    let mut removed = cache
        .forget_session(notesoup_window::Host::Claude, "s1")
        .unwrap();
    removed.sort();
    let mut expected = vec![
        index_path(&cache.dir, &moved),
        index_path(&cache.dir, &here),
        temp,
    ];
    expected.sort();
    assert_eq!(removed, expected);
    assert_eq!(kept(&cache, &[&moved, &here, &other]), [false, false, true]);
    // The transcripts are never touched.
    assert!(moved.is_file() && here.is_file());
    let _ = std::fs::remove_dir_all(dir);
}
