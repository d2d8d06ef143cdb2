//! The store across real processes: writers killed mid-write never tear a note, and
//! concurrent read-version→write loops lose no update.
//!
//! The children are this same test binary, re-run with `NOTESOUP_TEST_CHILD` set: the
//! `child` test then plays the part named there instead of returning at once.

#![allow(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod common;

use notesoup_notes::{Brain, NotesError, Version};

const ROLE: &str = "NOTESOUP_TEST_CHILD";
const DIR: &str = "NOTESOUP_TEST_DIR";

/// Large enough that a write takes a while, so kills land inside writes.
const TEXT_BYTES: usize = 60 * 1024;

fn text(fill: char) -> String {
    let mut t: String = std::iter::repeat_n(fill, TEXT_BYTES - 1).collect();
    t.push('\n');
    t
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project")).unwrap();
    dir
}

fn brain(dir: &Path) -> Brain {
    Brain::open(&dir.join("store"), &dir.join("project")).unwrap()
}

fn spawn(role: &str, dir: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(DIR, dir)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// Kills its child when dropped, so a failed assertion leaves no writer running.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The child's part; a no-op in a normal test run.
#[test]
fn child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let dir = PathBuf::from(std::env::var(DIR).unwrap());
    let brain = brain(&dir);
    if role == "crash-writer" {
        // Write A, B, A, B, ... until killed.
        let (a, b) = (text('a'), text('b'));
        for i in 0.. {
            brain
                .write("n", if i % 2 == 0 { &b } else { &a }, None)
                .unwrap();
        }
    } else if let Some(id) = role.strip_prefix("incrementer-") {
        for k in 0..INCREMENTS {
            let line = format!("{id}-{k}\n");
            loop {
                let note = brain.read("counter").unwrap();
                let version: &Version = &note.version;
                match brain.write("counter", &format!("{}{line}", note.text), Some(version)) {
                    Ok(_) => break,
                    Err(NotesError::VersionConflict { .. }) => {}
                    Err(err) => panic!("{err}"),
                }
            }
        }
    } else {
        panic!("unknown child role {role}");
    }
}

#[test]
fn a_writer_killed_mid_write_leaves_the_old_or_the_new_text() {
    let dir = scratch("crash");
    let brain = brain(&dir);
    let (a, b) = (text('a'), text('b'));
    brain.write("n", &a, None).unwrap();
    let mut seen_b = false;
    for round in 0..40_u64 {
        let writer = Killed(spawn("crash-writer", &dir));
        // Vary where the kill lands; read while the writer runs, too.
        for _ in 0..=round % 3 {
            std::thread::sleep(Duration::from_millis(1 + round % 7));
            let now = brain.read("n").unwrap().text;
            assert!(now == a || now == b, "round {round}: torn read");
        }
        drop(writer);
        let now = brain.read("n").unwrap();
        assert!(
            now.text == a || now.text == b,
            "round {round}: the note is neither the old nor the new text ({} bytes)",
            now.text.len()
        );
        seen_b |= now.text == b;
        let names = common::names(&brain, "");
        assert_eq!(names, ["n"], "round {round}");
    }
    assert!(
        seen_b,
        "the writer never got a write through: the test proved nothing"
    );
    // The next writer sweeps what killed writers left in tmp/.
    brain.write("n", "done\n", None).unwrap();
    assert_eq!(
        std::fs::read_dir(brain.dir().join("tmp")).unwrap().count(),
        0
    );
}

const PROCESSES: usize = 4;
const INCREMENTS: usize = 20;

#[test]
fn concurrent_read_then_write_loops_lose_no_update() {
    let dir = scratch("concurrency");
    let brain = brain(&dir);
    // A note is never blank: a heading line the counting below passes over.
    brain.write("counter", "# counter\n", None).unwrap();
    let mut children: Vec<Killed> = (0..PROCESSES)
        .map(|i| Killed(spawn(&format!("incrementer-p{i}"), &dir)))
        .collect();
    for c in &mut children {
        assert!(c.0.wait().unwrap().success(), "an incrementer failed");
    }
    let text = brain.read("counter").unwrap().text;
    let mut lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        lines.len(),
        PROCESSES * INCREMENTS,
        "updates were lost:\n{text}"
    );
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(
        lines.len(),
        PROCESSES * INCREMENTS,
        "duplicated updates:\n{text}"
    );
    for i in 0..PROCESSES {
        // Each process's own lines appear in its order.
        let own: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(&format!("p{i}-")))
            .collect();
        let want: Vec<String> = (0..INCREMENTS).map(|k| format!("p{i}-{k}")).collect();
        assert_eq!(own, want);
    }
}
