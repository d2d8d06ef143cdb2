//! A session's kept flow: a missing or refused record is rebuilt from the session's
//! transcript (real Claude Code 2.1.319 transcripts) before the event.

#![allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]

use std::path::{Path, PathBuf};

use rstest::rstest;
use serde_json::{Value, json};

use notesoup_reset_flow::Event;

use super::{SessionRef, kept};
use crate::Context;

/// Two compactions, the second boot naming window 2's predecessor: window 2.
const TWO: (&str, &str) = (
    "own-two-compactions--da56055c-293e-4422-b5b8-62b1c7e6c03d.jsonl",
    "da56055c-293e-4422-b5b8-62b1c7e6c03d",
);
/// A reactive compaction whose retry re-persisted window 0's boot after window 1's.
const PTL: (&str, &str) = (
    "own-ptl-resent-boot--0ffbd25d-7b28-4def-956b-e0532e45d2a8.jsonl",
    "0ffbd25d-7b28-4def-956b-e0532e45d2a8",
);

/// A scratch notes home and a copy of `fixture` as `<session>.jsonl` in it.
fn scratch(test: &str, fixture: (&str, &str)) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("notesoup-reset-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let transcript = crate::tests::transcript_copy(&dir, fixture);
    (dir, transcript)
}

/// The session ref of `id` (process `p1`), naming its transcript when given.
fn session(id: &str, transcript: Option<&Path>) -> Value {
    let mut session = json!({"harness": "claude", "id": id, "process": "p1"});
    if let Some(path) = transcript {
        session["transcript_path"] = json!(path.to_str().unwrap());
    }
    session
}

/// One step of the kept flow: a boot of window `ordinal` is seen. The effects, and the
/// window ordinal the flow it kept holds after it.
fn seen(home: &Path, session: &Value, ordinal: u32) -> (Value, Option<u32>) {
    let ctx = Context::from_vars([("NOTESOUP_HOME", home.to_str().unwrap())]);
    let session_ref: SessionRef = serde_json::from_value(session.clone()).unwrap();
    let reply = kept(&ctx, &session_ref, [Event::WindowSeen { ordinal }]).unwrap();
    let ordinal = crate::tests::kept_flow(home, session["id"].as_str().unwrap()).ordinal;
    (json!({"effects": reply.effects}), ordinal)
}

#[rstest]
#[case::two_compactions("two", TWO, 2)]
// The re-sent window-0 boot never takes the window back to 0.
#[case::resent_boot("ptl", PTL, 1)]
fn a_session_without_a_record_starts_in_the_window_its_transcript_names(
    #[case] test: &str,
    #[case] fixture: (&str, &str),
    #[case] ordinal: u32,
) {
    let (dir, transcript) = scratch(test, fixture);
    let session = session(fixture.1, Some(&transcript));
    // An older boot seen first (what the shell's kept boots may say) changes nothing.
    let (reply, kept) = seen(&dir.join("home"), &session, 0);
    assert_eq!(kept, Some(ordinal), "{reply}");
    assert_eq!(reply["effects"], json!([]));
    // The record now exists and is what the next step reads.
    let (reply, kept) = seen(&dir.join("home"), &session, 0);
    assert_eq!(kept, Some(ordinal), "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[rstest]
#[case::no_transcript_named(None)]
#[case::transcript_not_written_yet(Some("missing.jsonl"))]
fn without_a_readable_transcript_the_flow_starts_fresh(#[case] path: Option<&str>) {
    let (dir, _) = scratch(&format!("fresh-{}", path.is_some()), TWO);
    let session = session(TWO.1, path.map(|p| dir.join(p)).as_deref());
    let (reply, kept) = seen(&dir.join("home"), &session, 0);
    assert_eq!(kept, Some(0), "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kept_record_wins_over_the_transcript() {
    let (dir, transcript) = scratch("kept", TWO);
    let home = dir.join("home");
    let bare = session(TWO.1, None);
    seen(&home, &bare, 5);
    let session = session(TWO.1, Some(&transcript));
    let (reply, kept) = seen(&home, &session, 0);
    assert_eq!(kept, Some(5), "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_transcript_of_another_session_is_not_rebuilt_from() {
    // A fork's record is the fork's: another session's transcript names no window of it.
    let (dir, transcript) = scratch("other", TWO);
    let session = session("fork-1", Some(&transcript));
    let (reply, kept) = seen(&dir.join("home"), &session, 0);
    assert_eq!(kept, Some(0), "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}
