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
