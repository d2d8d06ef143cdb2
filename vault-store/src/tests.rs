use std::fs;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "notesoup-vault-unit-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    fn vault(&self) -> Vault {
        Vault::open(&self.0.join("vault")).unwrap()
    }
    fn file(&self, name: &str, text: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn lines(n: usize) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut text = String::new();
    for i in 0..n {
        let _ = writeln!(
            text,
            "{{\"type\":\"user\",\"n\":{i},\"text\":\"line {i} of a transcript\"}}"
        );
    }
    text.into_bytes()
}

#[test]
fn a_growing_file_is_kept_piece_by_piece_and_read_back_exactly() {
    let s = Scratch::new();
    let v = s.vault();
    let all = lines(300);
    let path = s.file("t.jsonl", &all[..4000]);
    assert_eq!(
        v.keep("claude", "s1", &path).unwrap(),
        Kept {
            version: 1,
            raw: 4000,
            added: 4000,
            new_version: true,
            behind: 0,
            cut: false,
        }
    );
    assert_eq!(
        v.keep("claude", "s1", &path).unwrap().added,
        0,
        "up to date"
    );
    fs::write(&path, &all).unwrap();
    let kept = v.keep("claude", "s1", &path).unwrap();
    assert_eq!(
        (kept.version, kept.added, kept.new_version),
        (1, all.len() as u64 - 4000, false)
    );
    fs::remove_file(&path).unwrap();
    assert_eq!(v.read("claude", "s1").unwrap().unwrap(), all);
    let listed = v.sessions().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0].versions, listed[0].raw), (1, all.len() as u64));
    // Stored is what `du` counts of its folder; the compressed pieces in it are a fifth of
    // the raw bytes at most.
    let folder = v.path_of("claude", "s1");
    let (mut du, mut pieces) = (fs::metadata(&folder).unwrap().blocks() * 512, 0);
    for file in fs::read_dir(&folder).unwrap() {
        let file = file.unwrap();
        let meta = file.metadata().unwrap();
        du += meta.blocks() * 512;
        if file.file_name().to_string_lossy().ends_with(".zst") {
            pieces += meta.len();
        }
    }
    assert_eq!(listed[0].stored, du, "{listed:?}");
    assert!(pieces * 5 <= listed[0].raw, "{listed:?}: a fifth at most");
    assert_eq!(v.read("claude", "nope").unwrap(), None);
}

#[test]
fn a_rewritten_original_is_a_new_version_and_a_cut_one_is_not() {
    let s = Scratch::new();
    let v = s.vault();
    let path = s.file("t.jsonl", b"one\ntwo\n");
    v.keep("pi", "s", &path).unwrap();
    fs::write(&path, b"ONE\ntwo\nthree\n").unwrap();
    let kept = v.keep("pi", "s", &path).unwrap();
    assert_eq!((kept.version, kept.new_version), (2, true));
    // Cut shorter, and the kept bytes begin with what is left: nothing is kept again, and
    // what was cut is still read.
    fs::write(&path, b"ONE\ntw").unwrap();
    let kept = v.keep("pi", "s", &path).unwrap();
    assert_eq!(
        (
            kept.version,
            kept.raw,
            kept.added,
            kept.new_version,
            kept.cut
        ),
        (2, 14, 0, false, true)
    );
    assert_eq!(v.read("pi", "s").unwrap().unwrap(), b"ONE\ntwo\nthree\n");
    // Cut shorter and changed: a new version.
    fs::write(&path, b"ONE\n\n").unwrap();
    let kept = v.keep("pi", "s", &path).unwrap();
    assert_eq!((kept.version, kept.cut), (3, false));
    assert_eq!(v.read("pi", "s").unwrap().unwrap(), b"ONE\n\n");
    assert_eq!(
        v.sessions().unwrap()[0].versions,
        3,
        "old versions are kept"
    );
    // The sweep's listing: the newest version and its raw bytes, no piece looked at.
    v.keep("claude", "t", &path).unwrap();
    let held: Vec<_> = v
        .held()
        .unwrap()
        .into_iter()
        .map(|h| (h.harness, h.id, h.version, h.raw))
        .collect();
    assert_eq!(
        held,
        [
            ("claude".to_owned(), "t".to_owned(), 1, 5),
            ("pi".to_owned(), "s".to_owned(), 3, 5)
        ]
    );
}

#[test]
fn forget_removes_and_a_tombstone_keeps_it_out() {
    let s = Scratch::new();
    let v = s.vault();
    let path = s.file("t.jsonl", b"secret\n");
    v.keep("codex", "s", &path).unwrap();
    assert!(v.forget("codex", "s").unwrap());
    assert_eq!(v.read("codex", "s").unwrap(), None);
    let again = v.keep("codex", "s", &path).unwrap_err();
    assert!(matches!(again, VaultError::Forgotten { .. }), "{again}");
    assert!(v.sessions().unwrap().is_empty());
    assert!(!v.forget("codex", "other").unwrap(), "nothing was vaulted");
}

#[test]
fn a_damaged_piece_is_refused_and_kept_again_from_the_original() {
    let s = Scratch::new();
    let v = s.vault();
    let text = lines(200);
    let path = s.file("t.jsonl", &text);
    v.keep("claude", "s", &path).unwrap();
    let piece = s.0.join("vault/claude/s/v1.0.zst");
    let mut bytes = fs::read(&piece).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(&piece, &bytes).unwrap();
    let err = v.read("claude", "s").unwrap_err();
    assert!(matches!(err, VaultError::Damaged { .. }), "{err}");
    // A bomb in a piece's place, no bigger than the piece: decompression stops one byte
    // past the recorded size, and the piece is refused.
    let bomb = zstd::bulk::compress(&vec![b'x'; 8 << 20], 19).unwrap();
    assert!(
        bomb.len() <= bytes.len(),
        "{} > {}",
        bomb.len(),
        bytes.len()
    );
    let mut padded = bomb.clone();
    padded.resize(bytes.len(), 0);
    fs::write(&piece, &padded).unwrap();
    let err = v.read("claude", "s").unwrap_err();
    assert!(matches!(err, VaultError::Damaged { .. }), "{err}");
    // A damaged record: the next keep starts a version from the original, never misreads.
    fs::write(s.0.join("vault/claude/s/v1.record"), "garbage").unwrap();
    assert_eq!(v.keep("claude", "s", &path).unwrap().version, 2);
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), text);
}

#[test]
fn a_record_claiming_more_bytes_than_can_be_had_is_refused_as_damaged() {
    let s = Scratch::new();
    let v = s.vault();
    let path = s.file("t.jsonl", &lines(20));
    v.keep("claude", "s", &path).unwrap();
    let record = s.0.join("vault/claude/s/v1.record");
    let text = fs::read_to_string(&record).unwrap();
    let mut rows: Vec<String> = text.lines().map(str::to_owned).collect();
    // The size line and the one piece's size, both claiming 2^62 bytes (they add up).
    let huge = 1u64 << 62;
    let (_, file) = rows[1].split_once(' ').unwrap();
    rows[1] = format!("{huge} {file}");
    let piece: Vec<String> = rows[2].split(' ').map(str::to_owned).collect();
    rows[2] = format!("{huge} {} {}", piece[1], piece[2]);
    fs::write(&record, rows.join("\n") + "\n").unwrap();
    let err = v.read("claude", "s").unwrap_err();
    assert!(matches!(err, VaultError::Damaged { .. }), "{err}");
    assert!(err.to_string().contains("claims"), "{err}");
    // The reader, which sizes nothing whole, refuses it too: a piece's decompression is
    // bounded by what its record claims, so no claim over what a keep writes is taken.
    let err = v.reader("claude", "s").unwrap_err();
    assert!(matches!(err, VaultError::Damaged { .. }), "{err}");
    // Within the version's cap, one piece claiming more than a piece holds.
    let big = MAX_RAW;
    let (_, file) = rows[1].split_once(' ').unwrap();
    rows[1] = format!("{big} {file}");
    rows[2] = format!("{big} {} {}", piece[1], piece[2]);
    fs::write(&record, rows.join("\n") + "\n").unwrap();
    for err in [
        v.read("claude", "s").unwrap_err(),
        v.reader("claude", "s").unwrap_err(),
    ] {
        assert!(err.to_string().contains("a piece holds"), "{err}");
    }
}

#[test]
fn links_fifos_and_bad_names_are_refused_and_the_vault_is_private() {
    let s = Scratch::new();
    let v = s.vault();
    let mode = fs::metadata(s.0.join("vault"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    let path = s.file("t.jsonl", b"x\n");
    for name in ["", "..", ".hidden", "a/b", "a b", &"x".repeat(129)] {
        assert!(
            matches!(
                v.keep("claude", name, &path),
                Err(VaultError::BadName { .. })
            ),
            "{name:?}"
        );
    }
    // A link in the vault's place of a harness folder is not followed.
    let canary = s.0.join("canary");
    fs::create_dir_all(&canary).unwrap();
    std::os::unix::fs::symlink(&canary, s.0.join("vault/pi")).unwrap();
    assert!(v.keep("pi", "s", &path).is_err());
    assert_eq!(
        fs::read_dir(&canary).unwrap().count(),
        0,
        "nothing written through the link"
    );
    // A FIFO as the original is refused at once, never waited on.
    let fifo = s.0.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert!(v.keep("claude", "f", &fifo).is_err());
}

/// Two writers keeping one growing session at once: every byte is kept once, in order.
#[test]
fn concurrent_keeps_lose_nothing_and_duplicate_nothing() {
    let s = Scratch::new();
    let all = lines(20_000);
    let path = s.file("t.jsonl", &all[..100]);
    let root = s.0.join("vault");
    Vault::open(&root).unwrap();
    std::thread::scope(|scope| {
        let grower = scope.spawn(|| {
            // Appended, as a transcript grows.
            use std::io::Write as _;
            let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
            let mut at = 100;
            while at < all.len() {
                let end = (at + 4_999).min(all.len());
                file.write_all(&all[at..end]).unwrap();
                at = end;
                std::thread::yield_now();
            }
        });
        let keepers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let v = Vault::open(&root).unwrap();
                    for _ in 0..60 {
                        v.keep("claude", "s", &path).unwrap();
                        // What is kept reads back whole at every moment: a prefix of `all`.
                        let kept = v
                            .read("claude", "s")
                            .unwrap_or_else(|e| panic!("{e}"))
                            .unwrap();
                        assert!(all.starts_with(&kept), "{} bytes kept", kept.len());
                    }
                })
            })
            .collect();
        grower.join().unwrap();
        for k in keepers {
            k.join().unwrap();
        }
    });
    let v = Vault::open(&root).unwrap();
    v.keep("claude", "s", &path).unwrap();
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), all);
    assert_eq!(
        v.sessions().unwrap()[0].versions,
        1,
        "growth never started a version"
    );
}

#[test]
fn names_lists_what_is_held_and_not_what_was_forgotten() {
    let s = Scratch::new();
    let vault = s.vault();
    assert!(vault.names("claude").unwrap().is_empty());
    let a = s.file("a.jsonl", b"{\"a\":1}\n");
    vault.keep("claude", "a", &a).unwrap();
    vault.keep("claude", "b", &a).unwrap();
    vault.keep("pi", "c", &a).unwrap();
    vault.forget("claude", "b").unwrap();
    let names: Vec<String> = vault
        .names("claude")
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["a"]);
    assert_eq!(vault.names("codex").unwrap(), []);
    // A vault folder that does not exist holds nothing and is not made by looking.
    let none = Vault {
        root: s.0.join("nothing"),
        describe: None,
    };
    assert!(none.names("claude").unwrap().is_empty());
    assert!(!s.0.join("nothing").exists());
}

#[test]
fn a_kept_copy_carries_the_time_its_original_was_written() {
    let s = Scratch::new();
    let vault = s.vault();
    let a = s.file("a.jsonl", b"{\"a\":1}\n");
    let then = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    notesoup_testkit::set_modified(&a, then);
    vault.keep("claude", "a", &a).unwrap();
    assert_eq!(vault.names("claude").unwrap(), [("a".to_owned(), then)]);
    assert_eq!(vault.sessions().unwrap()[0].kept, then);
}

/// A hook's keep adds at most its budget, cut after a whole line, and the next keeps catch
/// up; a backlog larger than a piece is cut into pieces, and a check reads one of them.
#[test]
fn a_bounded_keep_catches_up_line_by_line_in_pieces() {
    let s = Scratch::new();
    let v = s.vault();
    let all = lines(400_000); // ~19 MB: more than four pieces
    let path = s.file("t.jsonl", &all);
    let first = v.keep_up_to("claude", "s", &path, 0..=1000).unwrap();
    assert!(first.new_version && first.added <= 1000, "{first:?}");
    assert_eq!(
        all[usize::try_from(first.added).unwrap() - 1],
        b'\n',
        "a whole line"
    );
    assert_eq!(first.behind, all.len() as u64 - first.added);
    let mut rounds = 0;
    loop {
        let kept = v.keep_up_to("claude", "s", &path, 0..=3 << 20).unwrap();
        assert_eq!((kept.version, kept.new_version), (1, false));
        rounds += 1;
        if kept.behind == 0 {
            break;
        }
    }
    assert!(rounds >= 6, "{rounds} rounds of 3 MiB for 19 MB");
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), all);
    // Fewer new bytes than the budget's start: nothing is added until there are more.
    let mut grown = all.clone();
    grown.extend_from_slice(b"{\"type\":\"progress\"}\n");
    fs::write(&path, &grown).unwrap();
    let small = v.keep_up_to("claude", "s", &path, 64..=1000).unwrap();
    assert_eq!((small.added, small.behind), (0, 20));
    assert_eq!(
        v.keep_up_to("claude", "s", &path, 0..=1000).unwrap().added,
        20
    );
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), grown);
    // One keep of the whole backlog is cut into pieces of at most PIECE_MAX.
    v.forget("claude", "s").unwrap();
    v.keep("claude", "t", &path).unwrap();
    let pieces = fs::read_dir(s.0.join("vault/claude/t"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "zst")
        })
        .count();
    assert_eq!(pieces as u64, (grown.len() as u64).div_ceil(PIECE_MAX));
    assert_eq!(v.read("claude", "t").unwrap().unwrap(), grown);
}

/// A file replaced by another (a rename over it) whose last kept piece still matches, but
/// not its first: every piece is checked, and it becomes a new version.
#[test]
fn a_replaced_original_is_checked_whole() {
    let s = Scratch::new();
    let v = s.vault();
    let all = lines(200_000); // ~9.6 MB: three pieces
    let path = s.file("t.jsonl", &all);
    v.keep("pi", "s", &path).unwrap();
    let mut changed = all.clone();
    changed[10] = b'X';
    let other = s.file("other.jsonl", &changed);
    fs::rename(&other, &path).unwrap();
    let kept = v.keep("pi", "s", &path).unwrap();
    assert_eq!((kept.version, kept.new_version), (2, true));
    assert_eq!(v.read("pi", "s").unwrap().unwrap(), changed);
}

/// A copy whose piece was damaged while the original is still there is kept again whole,
/// as a new version, and reads back exactly.
#[test]
fn a_damaged_copy_is_renewed_from_its_original() {
    let s = Scratch::new();
    let v = s.vault();
    let text = lines(200);
    let path = s.file("t.jsonl", &text);
    v.keep("claude", "s", &path).unwrap();
    let piece = s.0.join("vault/claude/s/v1.0.zst");
    let mut bytes = fs::read(&piece).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(&piece, &bytes).unwrap();
    assert!(matches!(
        v.read("claude", "s"),
        Err(VaultError::Damaged { .. })
    ));
    // A plain keep does not see it: it checks the original against the record.
    assert_eq!(v.keep("claude", "s", &path).unwrap().added, 0);
    let renewed = v.renew("claude", "s", &path).unwrap();
    assert_eq!((renewed.version, renewed.new_version), (2, true));
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), text);
}

/// The sweep's mark is a file of the vault's own: a link in its place is refused, and what
/// it names is left as it was.
#[test]
fn the_sweep_mark_is_never_written_through_a_link() {
    let s = Scratch::new();
    let v = s.vault();
    assert_eq!(v.last_swept().unwrap(), None);
    v.mark_swept().unwrap();
    assert!(v.last_swept().unwrap().is_some());
    fs::remove_file(s.0.join("vault/swept")).unwrap();
    let target = s.file("canary", b"keep me\n");
    std::os::unix::fs::symlink(&target, s.0.join("vault/swept")).unwrap();
    assert!(matches!(v.mark_swept(), Err(VaultError::File(_))));
    assert_eq!(fs::read(&target).unwrap(), b"keep me\n");
}

/// Marking a sweep makes no temp file (a hook killed meanwhile left one in the vault's
/// root, which no keep ever removed), moves the mark's time, and removes a temp file an
/// earlier mark left; another file of the root is left alone.
#[test]
fn marking_a_sweep_leaves_no_temp_file_and_removes_one_left_behind() {
    let s = Scratch::new();
    let v = s.vault();
    v.mark_swept().unwrap();
    let mark = s.0.join("vault/swept");
    let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    notesoup_testkit::set_modified(&mark, old);
    fs::write(s.0.join("vault/.swept.4242.0.tmp"), b"").unwrap();
    fs::write(s.0.join("vault/.other.4242.0.tmp"), b"not ours").unwrap();
    v.mark_swept().unwrap();
    assert!(v.last_swept().unwrap().unwrap() > old);
    let mut names: Vec<String> = fs::read_dir(s.0.join("vault"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".other.4242.0.tmp", "swept"]);
}

/// A session `claude:s` kept in three pieces (two whole ones and a short last one): its
/// text and its original's path.
fn kept_in_three_pieces(s: &Scratch, v: &Vault) -> (Vec<u8>, std::path::PathBuf) {
    let mut text = lines(200_000);
    text.truncate(usize::try_from(2 * PIECE_MAX).unwrap() + 5000);
    let path = s.file("t.jsonl", &text);
    v.keep("claude", "s", &path).unwrap();
    (text, path)
}

#[test]
fn a_reader_gives_a_copy_piece_by_piece_and_stops_at_a_damaged_piece() {
    use std::io::BufRead as _;
    let s = Scratch::new();
    let v = s.vault();
    let (text, _) = kept_in_three_pieces(&s, &v);
    let mut reader = v.reader("claude", "s").unwrap().unwrap();
    assert_eq!(reader.len(), text.len() as u64);
    // Line by line, as a decoder reads: never more than one piece held.
    let mut read = Vec::new();
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).unwrap() > 0 {
        assert!(reader.fill_buf().unwrap().len() as u64 <= PIECE_MAX);
        read.append(&mut line);
    }
    assert_eq!(read, text);
    assert!(v.reader("claude", "none").unwrap().is_none());
    // The second piece damaged: the first piece's bytes are given, then the refusal.
    let piece = s.0.join("vault/claude/s/v1.1.zst");
    let mut bytes = fs::read(&piece).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(&piece, &bytes).unwrap();
    let mut reader = v.reader("claude", "s").unwrap().unwrap();
    let mut given = Vec::new();
    let err = std::io::Read::read_to_end(&mut reader, &mut given).unwrap_err();
    assert_eq!(given.len() as u64, PIECE_MAX);
    assert_eq!(given[..], text[..given.len()]);
    assert!(err.to_string().contains("damaged"), "{err}");
    let failure = reader.take_failure();
    assert!(
        matches!(failure, Some(VaultError::Damaged { .. })),
        "{failure:?}"
    );
    // The reading stays ended.
    assert!(reader.fill_buf().is_err());
    // Handed on, as a decoder takes it: the one who opened it takes the refusal, once.
    let reader = v.reader("claude", "s").unwrap().unwrap();
    let refusal = reader.refusal();
    let mut lines = std::io::BufReader::new(reader).lines();
    assert!(lines.by_ref().take_while(Result::is_ok).count() > 0);
    assert!(lines.next().unwrap().is_err(), "the reading stays ended");
    assert!(matches!(refusal.take(), Some(VaultError::Damaged { .. })));
    assert!(refusal.take().is_none());
}

/// A copy over the Pi and Codex readers' 128 MiB (a long Claude transcript has no such cap)
/// is kept, checked and read back a piece at a time, byte for byte.
#[test]
fn a_copy_over_128_mib_is_kept_and_read_back() {
    use std::io::{BufRead as _, Read as _, Write as _};
    let s = Scratch::new();
    let v = s.vault();
    let path = s.0.join("big.jsonl");
    {
        let mut out = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        let mut n = 0u64;
        while n <= 130 << 20 {
            let line = format!(
                "{{\"type\":\"user\",\"n\":{n},\"pad\":\"{}\"}}\n",
                "x".repeat(200)
            );
            out.write_all(line.as_bytes()).unwrap();
            n += line.len() as u64;
        }
    }
    let len = fs::metadata(&path).unwrap().len();
    assert!(len > 128 << 20);
    let kept = v.keep("claude", "big", &path).unwrap();
    assert_eq!(kept.added, len);
    assert!(v.check("claude", "big").unwrap());
    let mut reader = v.reader("claude", "big").unwrap().unwrap();
    let mut original = std::io::BufReader::new(fs::File::open(&path).unwrap());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    loop {
        a.clear();
        b.clear();
        let got = reader.read_until(b'\n', &mut a).unwrap();
        original.read_until(b'\n', &mut b).unwrap();
        assert_eq!(a, b);
        if got == 0 {
            break;
        }
    }
    assert_eq!(reader.read(&mut [0; 8]).unwrap(), 0);
}

/// A cut original is compared with the kept version across its pieces: a cut past the
/// first piece keeps the version; a change anywhere before the cut starts a new one, and a
/// damaged kept piece never passes for the original's bytes.
#[test]
fn a_cut_original_is_compared_across_pieces() {
    let s = Scratch::new();
    let v = s.vault();
    let (text, path) = kept_in_three_pieces(&s, &v);
    let cut = usize::try_from(PIECE_MAX).unwrap() + 100;
    fs::write(&path, &text[..cut]).unwrap();
    let kept = v.keep("claude", "s", &path).unwrap();
    assert_eq!((kept.version, kept.added), (1, 0));
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), text);
    // One byte changed in the first piece, before the cut.
    let mut changed = text[..cut].to_vec();
    changed[10] ^= 0x01;
    fs::write(&path, &changed).unwrap();
    let kept = v.keep("claude", "s", &path).unwrap();
    assert_eq!((kept.version, kept.new_version), (2, true));
    assert_eq!(v.read("claude", "s").unwrap().unwrap(), changed);
    // Version 2's second piece damaged: a cut of it is kept anew, not matched against it.
    let damaged = s.0.join("vault/claude/s/v2.1.zst");
    let mut bytes = fs::read(&damaged).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(&damaged, &bytes).unwrap();
    fs::write(&path, &changed[..cut - 10]).unwrap();
    let kept = v.keep("claude", "s", &path).unwrap();
    assert_eq!((kept.version, kept.new_version), (3, true));
    assert_eq!(
        v.read("claude", "s").unwrap().unwrap(),
        &changed[..cut - 10]
    );
}
