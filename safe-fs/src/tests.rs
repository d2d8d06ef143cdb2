use notesoup_testkit::{Scratch, mkfifo};
use std::os::unix::fs::symlink;

use super::*;

#[test]
fn links_are_refused_for_every_operation_and_nothing_behind_them_changes() {
    let s = Scratch::new("links");
    let outside = Scratch::new("outside");
    std::fs::write(outside.0.join("victim.md"), "keep").unwrap();
    symlink(&outside.0, s.0.join("dirlink")).unwrap();
    symlink(outside.0.join("victim.md"), s.0.join("filelink")).unwrap();
    let dir = Dir::open(&s.0).unwrap();

    assert!(matches!(dir.open_dir("dirlink"), Err(FsError::Link { .. })));
    assert!(matches!(
        dir.create_dir("dirlink"),
        Err(FsError::Link { .. })
    ));
    assert!(matches!(
        dir.open_file("filelink"),
        Err(FsError::Link { .. })
    ));
    assert!(matches!(
        dir.read("filelink", 100),
        Err(FsError::Link { .. })
    ));
    assert!(matches!(
        dir.replace("filelink", b"new"),
        Err(FsError::Link { .. })
    ));
    assert!(matches!(
        dir.create_new("filelink", b"new"),
        Err(FsError::Io { .. })
    ));
    assert_eq!(
        dir.metadata("dirlink").unwrap().unwrap().kind,
        Kind::Symlink
    );
    // Removing a link removes the link, not its target.
    assert!(dir.remove_file("filelink").unwrap());

    assert_eq!(
        std::fs::read_to_string(outside.0.join("victim.md")).unwrap(),
        "keep"
    );
    assert_eq!(outside.names(), ["victim.md"]);
    assert_eq!(s.names(), ["dirlink"]);
}

#[test]
fn special_files_are_refused_at_once_never_read() {
    let s = Scratch::new("special");
    mkfifo(&s.0.join("fifo"));
    std::fs::create_dir(s.0.join("folder")).unwrap();
    let dir = Dir::open(&s.0).unwrap();
    // A FIFO with no writer would block a plain open forever; this returns at once.
    match dir.read("fifo", 100) {
        Err(FsError::NotRegular { kind, .. }) => assert_eq!(kind, "a FIFO"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        dir.open_file("folder"),
        Err(FsError::NotRegular {
            kind: "a folder",
            ..
        })
    ));
    assert!(matches!(dir.open_dir("fifo"), Err(FsError::NotDir { .. })));
    assert!(matches!(
        open_regular(Path::new("/dev/zero")),
        Err(FsError::NotRegular {
            kind: "a character device",
            ..
        })
    ));
    assert!(matches!(
        open_regular(&s.0.join("fifo")),
        Err(FsError::NotRegular { .. })
    ));
    assert!(matches!(
        Dir::open(&s.0.join("fifo")),
        Err(FsError::NotDir { .. })
    ));
}

#[test]
fn reads_are_bounded() {
    let s = Scratch::new("bounded");
    let dir = Dir::open(&s.0).unwrap();
    dir.replace("ten", b"0123456789").unwrap();
    assert_eq!(dir.read("ten", 10).unwrap().unwrap(), b"0123456789");
    assert!(matches!(
        dir.read("ten", 9),
        Err(FsError::TooLarge { limit: 9, .. })
    ));
    assert_eq!(dir.read("missing", 10).unwrap(), None);
}

#[test]
fn replace_is_atomic_and_leaves_no_temp_file() {
    let s = Scratch::new("replace");
    let dir = Dir::open(&s.0).unwrap();
    dir.replace("note.md", b"one").unwrap();
    dir.replace("note.md", b"two").unwrap();
    assert_eq!(std::fs::read_to_string(s.0.join("note.md")).unwrap(), "two");
    assert_eq!(s.names(), ["note.md"]);
    // A folder in the target's place is refused, and no temp file is left.
    std::fs::create_dir(s.0.join("taken")).unwrap();
    assert!(matches!(
        dir.replace("taken", b"x"),
        Err(FsError::NotRegular { .. })
    ));
    assert_eq!(s.names(), ["note.md", "taken"]);
}

/// A touch makes a missing file empty, moves an existing one's time and keeps its bytes,
/// and refuses a link, a FIFO and a folder in its place without writing through them.
#[test]
fn touch_sets_the_time_and_never_writes_through_a_link() {
    let s = Scratch::new("touch");
    let dir = Dir::open(&s.0).unwrap();
    dir.touch("mark").unwrap();
    assert_eq!(std::fs::read(s.0.join("mark")).unwrap(), b"");
    std::fs::write(s.0.join("mark"), b"kept").unwrap();
    let old = UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    notesoup_testkit::set_modified(&s.0.join("mark"), old);
    dir.touch("mark").unwrap();
    let meta = std::fs::metadata(s.0.join("mark")).unwrap();
    assert!(meta.modified().unwrap() > old);
    assert_eq!(std::fs::read(s.0.join("mark")).unwrap(), b"kept");
    std::fs::write(s.0.join("target"), b"x").unwrap();
    std::os::unix::fs::symlink(s.0.join("target"), s.0.join("link")).unwrap();
    let target_time = std::fs::metadata(s.0.join("target"))
        .unwrap()
        .modified()
        .unwrap();
    assert!(dir.touch("link").is_err());
    assert_eq!(
        std::fs::metadata(s.0.join("target"))
            .unwrap()
            .modified()
            .unwrap(),
        target_time
    );
    mkfifo(&s.0.join("fifo"));
    assert!(matches!(dir.touch("fifo"), Err(FsError::NotRegular { .. })));
    std::fs::create_dir(s.0.join("taken")).unwrap();
    assert!(matches!(
        dir.touch("taken"),
        Err(FsError::NotRegular { .. })
    ));
    assert_eq!(s.names(), ["fifo", "link", "mark", "taken", "target"]);
}

#[test]
fn a_failed_rename_removes_the_temp_file() {
    let s = Scratch::new("failed");
    let dir = Dir::open(&s.0).unwrap();
    let (tmp, _) = dir.create_dir("tmp").unwrap();
    let (target, _) = dir.create_dir("target").unwrap();
    // Remove the target folder under its open handle: the rename into it fails (ENOENT).
    std::fs::remove_dir(s.0.join("target")).unwrap();
    let err = target.replace_via(&tmp, "note.md", b"text").unwrap_err();
    assert!(
        matches!(
            err,
            FsError::Io {
                action: "replace",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(std::fs::read_dir(s.0.join("tmp")).unwrap().next().is_none());
}

#[test]
fn entries_report_links_as_links() {
    let s = Scratch::new("entries");
    std::fs::write(s.0.join("file"), "x").unwrap();
    std::fs::create_dir(s.0.join("sub")).unwrap();
    symlink("/etc", s.0.join("link")).unwrap();
    mkfifo(&s.0.join("fifo"));
    let mut got: Vec<(String, Kind)> = Dir::open(&s.0)
        .unwrap()
        .entries()
        .unwrap()
        .into_iter()
        .map(|e| (e.name.into_string().unwrap(), e.kind))
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("fifo".to_owned(), Kind::Special),
            ("file".to_owned(), Kind::File),
            ("link".to_owned(), Kind::Symlink),
            ("sub".to_owned(), Kind::Dir),
        ]
    );
}

#[test]
fn names_must_be_one_plain_component() {
    let s = Scratch::new("names");
    let dir = Dir::open(&s.0).unwrap();
    for bad in ["", ".", "..", "a/b", "../x", "nul\0"] {
        assert!(
            matches!(dir.open_file(bad), Err(FsError::BadName { .. })),
            "{bad:?}"
        );
    }
    let long = "x".repeat(10_000);
    let err = dir.open_file(&long).unwrap_err();
    assert!(
        err.to_string().len() < 400,
        "the message quotes a clipped name"
    );
}

#[test]
fn create_all_reports_what_it_made_and_remove_created_undoes_it() {
    let s = Scratch::new("create");
    let deep = s.0.join("a/b/c");
    let (_, created) = Dir::create_all(&deep).unwrap();
    assert_eq!(created, [s.0.join("a"), s.0.join("a/b"), deep.clone()]);
    remove_created(&created);
    assert!(s.names().is_empty());
}

#[test]
fn the_lock_is_exclusive_across_handles() {
    let s = Scratch::new("lock");
    let first = Dir::open(&s.0).unwrap();
    let second = Dir::open(&s.0).unwrap();
    let held = first.lock().unwrap();
    assert_eq!(
        rustix::fs::flock(&second, FlockOperation::NonBlockingLockExclusive),
        Err(Errno::WOULDBLOCK)
    );
    drop(held);
    assert!(rustix::fs::flock(&second, FlockOperation::NonBlockingLockExclusive).is_ok());
}

#[test]
fn replace_with_streams_and_a_failed_write_changes_nothing() {
    let s = Scratch::new("replace-with");
    let dir = Dir::open(&s.0).unwrap();
    dir.replace_with("index", |f| {
        for piece in [&b"one "[..], b"two"] {
            f.write_all(piece)?;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(s.0.join("index")).unwrap(),
        "one two"
    );
    // A writer that fails half-way: the old content stays, no temp file is left.
    let err = dir
        .replace_with("index", |f| {
            f.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
    assert!(
        matches!(
            err,
            FsError::Io {
                action: "write",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        std::fs::read_to_string(s.0.join("index")).unwrap(),
        "one two"
    );
    assert_eq!(s.names(), ["index"]);
    // A link in the target's place is refused, never written through.
    symlink("/etc/hostname", s.0.join("linked")).unwrap();
    assert!(matches!(
        dir.replace_with("linked", |f| f.write_all(b"x")),
        Err(FsError::Link { .. })
    ));
    assert_eq!(s.names(), ["index", "linked"]);
}

#[test]
fn temp_names_are_read_back() {
    let s = Scratch::new("temp-names");
    let dir = Dir::open(&s.0).unwrap();
    let (_, name) = dir.create_temp(OsStr::new("s1.json")).unwrap();
    assert_eq!(
        temp_target(&name),
        Some((OsStr::new("s1.json"), std::process::id()))
    );
    for other in [
        "s1.json",
        ".s1.json.tmp",
        "..1.2.tmp",
        ".a.b.1.tmp",
        ".a.1.b.tmp",
        ".a.1.2.tmpx",
    ] {
        assert_eq!(temp_target(OsStr::new(other)), None, "{other}");
    }
}

/// Every folder the crate creates is its owner's alone (0700), whatever the umask: the
/// outer ones `create_all` makes, and a sub-folder; a folder that was there keeps its mode.
#[test]
fn folders_it_creates_are_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = std::env::temp_dir().join(format!("safe-fs-private-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let (dir, created) = Dir::create_all(&tmp.join("a/b")).unwrap();
    assert_eq!(created, [tmp.join("a"), tmp.join("a/b")]);
    let (_, fresh) = dir.create_dir("c").unwrap();
    assert!(fresh);
    for folder in ["a", "a/b", "a/b/c"] {
        assert_eq!(mode(&tmp.join(folder)), 0o700, "{folder}");
    }
    assert_eq!(mode(&tmp), 0o755, "a folder that was there keeps its mode");
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// A lock file whose name its holder removes before letting go (window-store's forget) is
/// taken again on the name by a caller that waited on it: that caller's lock is on the file
/// the name now names, so one that opens the name after it waits on it, never beside it.
/// Before, the waiter kept the lock of the removed file while a later caller locked a new
/// one: two holders at once.
#[test]
fn a_lock_whose_name_was_removed_while_waited_on_is_taken_on_the_name_again() {
    use std::os::unix::fs::MetadataExt as _;
    let s = Scratch::new("lock-removed");
    let dir = Dir::open(&s.0).unwrap();
    let held = dir.lock_file(".s.lock", Duration::from_secs(5)).unwrap();
    let waiter = std::thread::spawn({
        let path = s.0.clone();
        move || {
            let dir = Dir::open(&path).unwrap();
            let lock = dir.lock_file(".s.lock", Duration::from_secs(5)).unwrap();
            let named = std::fs::metadata(path.join(".s.lock")).map(|m| m.ino());
            (lock, named)
        }
    });
    // The waiter has opened the lock file and waits on it.
    std::thread::sleep(Duration::from_millis(200));
    assert!(dir.remove_file(".s.lock").unwrap());
    drop(held);
    let (lock, named) = waiter.join().unwrap();
    let locked = rustix::fs::fstat(&lock.file).unwrap().st_ino;
    assert_eq!(
        named.ok(),
        Some(locked),
        "the waiter's lock is on the file named"
    );
    // And a caller after it waits (Busy here), rather than holding a lock beside it.
    assert!(matches!(
        dir.lock_file(".s.lock", Duration::from_millis(50)),
        Err(FsError::Busy { .. })
    ));
}
