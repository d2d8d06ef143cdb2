//! Note names: `segment(/segment)*`, each segment 1..=64 bytes of `a-z 0-9 - _`.

use crate::NotesError;

/// Longest segment of a name, in bytes.
pub const MAX_SEGMENT_BYTES: usize = 64;
/// Most segments (folders plus the note) in one name.
pub const MAX_DEPTH: usize = 8;

/// Check a note name; `Ok` means it is safe to join under the brain's notes folder.
pub fn check_name(name: &str) -> Result<(), NotesError> {
    if name.is_empty() {
        return Err(NotesError::bad_name(name, "a name cannot be empty"));
    }
    if name.starts_with('/') || name.starts_with('\\') || name.starts_with('~') {
        return Err(NotesError::bad_name(
            name,
            "absolute paths are refused; names are relative to the brain, e.g. `plans/today`",
        ));
    }
    let segments: Vec<&str> = name.split('/').collect();
    if segments.len() > MAX_DEPTH {
        return Err(NotesError::bad_name(
            name,
            format!(
                "{} levels deep; at most {MAX_DEPTH} segments",
                segments.len()
            ),
        ));
    }
    for segment in segments {
        check_segment(name, segment)?;
    }
    Ok(())
}

/// Check a folder given to `list`: empty (the whole brain) or a name, a trailing `/` allowed.
/// Returns the folder without its trailing `/`.
pub fn check_folder(folder: &str) -> Result<&str, NotesError> {
    let trimmed = folder.strip_suffix('/').unwrap_or(folder);
    if trimmed.is_empty() {
        return if folder.is_empty() {
            Ok("")
        } else {
            Err(NotesError::bad_name(
                folder,
                "absolute paths are refused; give a folder relative to the brain, e.g. `plans`",
            ))
        };
    }
    check_name(trimmed).map(|()| trimmed)
}

fn check_segment(name: &str, segment: &str) -> Result<(), NotesError> {
    if segment.is_empty() {
        return Err(NotesError::bad_name(
            name,
            "empty segment (a leading, trailing or doubled `/`)",
        ));
    }
    if segment == "." || segment == ".." {
        return Err(NotesError::bad_name(
            name,
            "`.` and `..` segments are refused; a note cannot escape the brain",
        ));
    }
    if segment.len() > MAX_SEGMENT_BYTES {
        return Err(NotesError::bad_name(
            name,
            format!(
                "segment `{}` is {} bytes; at most {MAX_SEGMENT_BYTES}",
                crate::error::quote_name(segment),
                segment.len()
            ),
        ));
    }
    if let Some(bad) = segment
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-' | '_'))
    {
        return Err(NotesError::bad_name(
            name,
            format!(
                "character {bad:?} is not allowed; use lowercase letters, digits, `-`, `_`, and `/` between folders"
            ),
        ));
    }
    Ok(())
}
