use std::io::ErrorKind;
use std::path::PathBuf;

use notesoup_notes::NotesError;

use super::CliError;

/// The store's refusal from the filesystem, as the store reports a failed write.
fn failed_write(kind: ErrorKind) -> CliError {
    let source = NotesError::Io {
        action: "write",
        path: PathBuf::from("/notes/brains/app-0a56/tmp/.plan.md.1.0.tmp"),
        source: kind.into(),
    };
    CliError::notes(source, Some(PathBuf::from("/notes/brains/app-0a56")))
}

/// A full disk is said as one, with the fix that frees it, not as a notes home that cannot
/// be written (which sends the person to permissions and `NOTESOUP_HOME`).
#[test]
fn a_full_disk_says_to_free_space() {
    let full = failed_write(ErrorKind::StorageFull)
        .fix()
        .unwrap_or_default();
    assert!(
        full.starts_with("free some space on the disk of the notes home"),
        "{full}"
    );
    let denied = failed_write(ErrorKind::PermissionDenied)
        .fix()
        .unwrap_or_default();
    assert!(
        denied.starts_with("check that the notes home can be written"),
        "{denied}"
    );
}
