//! The store never leaves itself: a link at any position of its layout (`brains/`, the
//! brain folder, `notes/`, `tmp/`, `trash/`, `domain`, a note folder, a note file) is
//! refused or left alone, never followed, so a canary folder outside the store is never
//! read, written or deleted; a FIFO or a device in a note's place is refused at once; a
//! refused write on a full disk leaves nothing behind (no temp file, no empty folder).
#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use notesoup_notes::{Brain, Edit};
use notesoup_testkit::mkfifo;

struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let root = std::env::temp_dir().join(format!(
            "notesoup-notes-hostile-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("project")).unwrap();
        let canary = root.join("canary");
        fs::create_dir_all(canary.join("sub")).unwrap();
        fs::write(canary.join("keep.md"), "canary\n").unwrap();
        fs::write(canary.join("sub/deep.md"), "deep\n").unwrap();
        Self { root }
    }

    fn store(&self) -> PathBuf {
        self.root.join("store")
    }

    fn canary(&self) -> PathBuf {
        self.root.join("canary")
    }

    fn brain(&self) -> Brain {
        Brain::open(&self.store(), &self.root.join("project")).unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Every entry under `dir` (folders included) with a file's bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path.clone());
                out.insert(path, None);
            } else if kind.is_file() {
                out.insert(path.clone(), Some(fs::read(&path).unwrap()));
            } else {
                out.insert(path, Some(b"<special>".to_vec()));
            }
        }
    }
    out
}

/// Runs every operation once; returns the codes of the refusals.
fn every_op(brain: &Brain) -> Vec<String> {
    let mut codes = Vec::new();
    let mut note = |result: Result<(), notesoup_notes::NotesError>| {
        if let Err(err) = result {
            codes.push(err.code().to_owned());
        }
    };
    note(brain.write("keep", "overwritten?\n", None).map(drop));
    note(brain.write("sub/new", "new\n", None).map(drop));
    note(
        brain
            .edit("keep", &Edit::Append("more\n".into()), None)
            .map(drop),
    );
    note(brain.read("keep").map(drop));
    note(brain.read("sub/deep").map(drop));
    note(brain.list("").map(drop));
    note(brain.list("sub").map(drop));
    note(brain.delete("keep", None).map(drop));
    note(brain.delete("sub/deep", None).map(drop));
    note(brain.trash().map(drop));
    note(brain.restore("keep", true).map(drop));
    note(brain.write("fresh", "x\n", None).map(drop));
    codes
}

#[test]
fn a_link_anywhere_in_the_layout_is_never_followed() {
    for position in [
        "brains",
        "brain",
        "notes",
        "tmp",
        "trash",
        "domain",
        "notes/sub",
        "notes/keep.md",
    ] {
        let s = Scratch::new(&position.replace('/', "_"));
        let brain = s.brain();
        // A real brain first (so every folder exists), then one position becomes a link
        // into the canary.
        brain.write("seed", "seed\n", None).unwrap();
        brain.delete("seed", None).unwrap();
        let (path, target) = match position {
            "brains" => (s.store().join("brains"), s.canary()),
            "brain" => (brain.dir().to_owned(), s.canary()),
            "domain" => (brain.dir().join("domain"), s.canary().join("keep.md")),
            "notes/keep.md" => (
                brain.dir().join("notes/keep.md"),
                s.canary().join("keep.md"),
            ),
            "notes/sub" => (brain.dir().join("notes/sub"), s.canary().join("sub")),
            other => (brain.dir().join(other), s.canary()),
        };
        if path.is_dir() {
            fs::remove_dir_all(&path).unwrap();
        } else {
            let _ = fs::remove_file(&path);
        }
        symlink(&target, &path).unwrap();
        let before = tree(&s.canary());
        let codes = every_op(&brain);
        assert_eq!(
            tree(&s.canary()),
            before,
            "{position}: the canary changed ({codes:?})"
        );
        assert!(
            !codes.is_empty() || position == "domain",
            "{position}: nothing refused"
        );
        for code in &codes {
            assert!(
                ["link", "bad_name", "not_found", "not_in_trash"].contains(&code.as_str()),
                "{position}: {codes:?}"
            );
        }
        // The link itself is left in place, never replaced or removed.
        assert!(
            path.symlink_metadata().unwrap().file_type().is_symlink(),
            "{position}"
        );
    }
}

#[test]
fn a_fifo_or_a_device_as_a_note_is_refused_at_once() {
    let s = Scratch::new("fifo");
    let brain = s.brain();
    brain.write("real", "x\n", None).unwrap();
    let fifo = brain.dir().join("notes/pipe.md");
    mkfifo(&fifo);
    // Without O_NONBLOCK reading it waits for a writer forever.
    assert_eq!(brain.read("pipe").unwrap_err().code(), "not_regular");
    assert_eq!(
        brain.write("pipe", "y", None).unwrap_err().code(),
        "not_regular"
    );
    assert_eq!(
        brain.delete("pipe", None).unwrap_err().code(),
        "not_regular"
    );
    let names = common::names(&brain, "");
    assert_eq!(names, ["real"]);
    assert_eq!(brain.snapshot().unwrap().len(), 1);
    // A FIFO in tmp/ is cleared by the next writer, never opened.
    mkfifo(&brain.dir().join("tmp/stale.tmp"));
    brain.write("real", "y\n", None).unwrap();
    assert_eq!(fs::read_dir(brain.dir().join("tmp")).unwrap().count(), 0);
    // A character device (/dev/zero: endless) needs root to make.
    let dev = brain.dir().join("notes/zero.md");
    if Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "5"])
        .status()
        .is_ok_and(|s| s.success())
    {
        assert_eq!(brain.read("zero").unwrap_err().code(), "not_regular");
    } else {
        eprintln!("skipped the device case: mknod needs root");
    }
}

/// Unmounts a test's tmpfs when dropped (a failing test included).
struct Unmount(PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_refused_write_on_a_full_disk_changes_nothing() {
    let s = Scratch::new("enospc");
    let mount = s.root.join("tiny");
    fs::create_dir_all(&mount).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=32k", "tmpfs"])
        .arg(&mount)
        .status()
        .is_ok_and(|st| st.success());
    if !mounted {
        eprintln!("skipped: mounting a tiny tmpfs needs root (CAP_SYS_ADMIN)");
        return;
    }
    let _unmount = Unmount(mount.clone());
    let store = mount.join("store");
    let brain = Brain::open(&store, &s.root.join("project")).unwrap();
    // 60 KiB in a 32 KiB filesystem: the folders fit, the text does not.
    let big = "x".repeat(60 * 1024);
    let err = brain.write("plans/big", &big, None).unwrap_err();
    assert_eq!(err.code(), "io", "{err}");
    assert!(err.to_string().contains("No space left"), "{err}");
    assert!(
        tree(&mount).is_empty(),
        "left behind: {:?}",
        tree(&mount).keys()
    );
    // On an existing brain: the old text stays, no temp file, no new folder.
    brain.write("small", "ok\n", None).unwrap();
    let before = tree(&mount);
    assert!(brain.write("plans/big", &big, None).is_err());
    assert!(brain.write("small", &big, None).is_err());
    assert_eq!(tree(&mount), before);
    assert_eq!(brain.read("small").unwrap().text, "ok\n");
}
