use crate::uri::file_uri_path;
use std::path::PathBuf;

#[test]
fn file_uris_name_local_folders_only() {
    assert_eq!(
        file_uri_path("file:///a%20b/c"),
        Some(PathBuf::from("/a b/c"))
    );
    assert_eq!(
        file_uri_path("file://localhost/x"),
        Some(PathBuf::from("/x"))
    );
    assert_eq!(file_uri_path("https://example.com/x"), None);
    assert_eq!(file_uri_path("file://server/x"), None);
    assert_eq!(file_uri_path("file:///bad%zz"), None);
}

/// The server keeps what it decoded: a second `history_list` on a session, with another
/// query, searches the history the first one read (the file is read once).
#[test]
#[allow(clippy::unwrap_used, reason = "tests: a panic is the failure report")]
fn a_second_history_call_searches_what_the_server_kept() {
    use notesoup_app::Context;
    use notesoup_app::tools::{Binding, call};

    const SID: &str = "da56055c-293e-4422-b5b8-62b1c7e6c03d";
    let dir = std::env::temp_dir().join(format!("notesoup-mcp-kept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let project = dir.join("projects/-tmp-p");
    std::fs::create_dir_all(&project).unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../app/tests/data/history/{SID}.jsonl"));
    std::fs::copy(fixture, project.join(format!("{SID}.jsonl"))).unwrap();
    let ctx = Context::from_vars([
        ("CLAUDE_CONFIG_DIR", dir.to_str().unwrap()),
        ("NOTESOUP_HOME", dir.join("home").to_str().unwrap()),
    ]);
    let server = super::Server::new(ctx, dir.clone(), true, None);
    let binding = Binding::new(dir.to_string_lossy());
    for query in ["the", "a"] {
        let args = serde_json::json!({"session": "claude:da56055c", "query": query});
        let answer = call("history_list", &args, &binding, &server.ctx);
        assert!(!answer.is_error, "{}", answer.text);
    }
    assert_eq!(
        server.ctx.kept().map(notesoup_app::history::Kept::reads),
        Some(1)
    );
    let _ = std::fs::remove_dir_all(dir);
}
