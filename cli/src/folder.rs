//! A folder a person named on the command line, made absolute: the real path of one that
//! exists, and for one that does not (a project deleted or renamed since its sessions ran)
//! its `.` and `..` resolved by the name, as a shell's `cd` resolves them, under the real
//! path of the part that exists.

use std::path::{Component, Path, PathBuf};

/// `dir` (relative to `cwd` unless absolute) as an absolute path with no `.` or `..`.
pub(crate) fn absolute(cwd: &Path, dir: &Path) -> PathBuf {
    let joined = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        cwd.join(dir)
    };
    if let Ok(real) = std::fs::canonicalize(&joined) {
        return real;
    }
    let mut named = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            // `..` of the root is the root, as the kernel reads it.
            Component::ParentDir => {
                named.pop();
            }
            other => named.push(other),
        }
    }
    // The longest part that exists, by its real path (a link in it resolved as for a
    // folder that exists), and the rest as named.
    for existing in named.ancestors() {
        if let (Ok(real), Ok(rest)) = (
            std::fs::canonicalize(existing),
            named.strip_prefix(existing),
        ) {
            return real.join(rest);
        }
    }
    named
}

/// Why `dir` cannot be read as a folder, in a person's words: `None` when it is one.
pub(crate) fn not_a_folder(dir: &Path) -> Option<&'static str> {
    if dir.is_dir() {
        None
    } else if dir.exists() {
        Some("not a folder")
    } else {
        Some("no such folder")
    }
}
