//! Helpers the crate's tests share, and what a [`Context`] keeps.

use super::*;

/// What the flow kept for session `id` (harness claude) under notes home `home` says: what
/// the ops' tests read the state by (the replies carry effects only).
pub(crate) fn kept_flow(home: &std::path::Path, id: &str) -> notesoup_reset_flow::Snapshot {
    use notesoup_window::Host;
    use notesoup_window_store::{SessionKey, WindowStore};
    let key = SessionKey::new(Host::Claude, id).expect("a session id");
    let record = WindowStore::new(home)
        .read(&key)
        .expect("the record reads")
        .expect("a record is kept");
    serde_json::from_value::<notesoup_reset_flow::Saved>(record.state)
        .expect("the kept state reads")
        .flow
        .expect("the kept flow reads")
        .snapshot()
}

/// A copy of the real Claude Code transcript `name` (`history-claude/tests/data`) as
/// `<dir>/<session>.jsonl`, named by its session as Claude names it (a copy already there
/// is kept); its path.
pub(crate) fn transcript_copy(
    dir: &std::path::Path,
    (name, session): (&str, &str),
) -> std::path::PathBuf {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../history-claude/tests/data")
        .join(name);
    let transcript = dir.join(format!("{session}.jsonl"));
    if !transcript.exists() {
        std::fs::copy(&fixture, &transcript).expect("fixture copied");
    }
    transcript
}

/// What a call is done with is freed at once unless the process's `main` handed the
/// context a function for it: a long-lived process (`notesoup mcp`) never accumulates
/// decoded histories, and the library keeps nothing either way.
#[test]
fn retire_frees_at_once_unless_main_says_otherwise() {
    let value = std::sync::Arc::new(());
    let ctx = Context::from_vars([("HOME", "/nonexistent")]);
    ctx.retire(std::sync::Arc::clone(&value));
    assert_eq!(std::sync::Arc::strong_count(&value), 1, "freed at once");
    let leaking = ctx.retiring_with(|value| {
        let _ = Box::leak(value);
    });
    leaking.retire(std::sync::Arc::clone(&value));
    assert_eq!(
        std::sync::Arc::strong_count(&value),
        2,
        "handed to main's function"
    );
    drop(leaking);
    assert_eq!(
        std::sync::Arc::strong_count(&value),
        2,
        "the context held nothing"
    );
}
