//! Records the git commit the `notesoup` binary is built from, for `notesoup --version`.
//! Without git (a crates.io tarball, no `.git`), the commit is `unknown`: the build never fails.

use std::process::Command;

/// `git <args>`'s trimmed output, `None` when git is missing, fails, or says nothing.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    let commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=NOTESOUP_GIT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    // Rebuild when HEAD moves (a worktree keeps HEAD in its own git folder, refs in the common one).
    for path in ["HEAD", "refs", "packed-refs"] {
        let file = git(&["rev-parse", "--path-format=absolute", "--git-path", path]);
        if let Some(file) = file.filter(|file| std::path::Path::new(file).exists()) {
            println!("cargo:rerun-if-changed={file}");
        }
    }
}
