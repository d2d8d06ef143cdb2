//! Several processes updating one session's record at once lose no update: each worker is
//! this test binary run again (`worker`, selected by an environment variable), doing
//! read → +1 → write loops under the store's lock.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use notesoup_window::Host;
use notesoup_window_store::{SessionKey, WindowStore};
use serde_json::json;

const HOME_VAR: &str = "NOTESOUP_WINDOW_STORE_TEST_HOME";
const WORKERS: u64 = 4;
const ROUNDS: u64 = 40;

fn key() -> SessionKey {
    SessionKey::new(Host::Claude, "6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f").expect("a valid key")
}

/// One worker's loop; does nothing when run as an ordinary test.
#[test]
fn worker() {
    let Some(home) = std::env::var_os(HOME_VAR) else {
        return;
    };
    let store = WindowStore::new(PathBuf::from(home));
    for _ in 0..ROUNDS {
        store
            .update(&key(), |prior| {
                let record = prior.expect("a record this test wrote reads back");
                let n = record.map_or(0, |r| r.state["n"].as_u64().expect("n"));
                // Widen the window between read and write so a missing lock shows.
                std::thread::yield_now();
                Some(json!({ "n": n + 1 }))
            })
            .unwrap();
    }
}

#[test]
fn concurrent_updaters_in_several_processes_lose_no_update() {
    let home = std::env::temp_dir().join(format!(
        "notesoup-window-store-processes-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&home);
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..WORKERS)
        .map(|_| {
            Command::new(&exe)
                .args(["worker", "--exact", "--test-threads=1"])
                .env(HOME_VAR, &home)
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let record = WindowStore::new(&home).read(&key()).unwrap().unwrap();
    assert_eq!(record.state, json!({ "n": WORKERS * ROUNDS }));
    // No temp file is left behind: the record and the session's lock file only.
    let mut names: Vec<_> = std::fs::read_dir(home.join("windows/claude"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [format!(".{}.lock", key().session()), key().file_name()],
        "{names:?}"
    );
    std::fs::remove_dir_all(&home).unwrap();
}
