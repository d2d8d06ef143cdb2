//! Finding a program: the first executable file of that name on the `PATH` the captured
//! environment names (doctor's `claude` and `pi`, `notes edit`'s fallback editor).

use std::path::{Path, PathBuf};

use crate::Env;

/// `name` on the `PATH` the environment names: the first executable file.
pub(crate) fn on_path(env: &Env, name: &str) -> Option<PathBuf> {
    std::env::split_paths(env.var("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

/// Whether `path` is a file this user may run.
pub(crate) fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}
