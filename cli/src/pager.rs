//! Which pager a long text on a terminal goes through: `$PAGER` when set, else `less` when
//! it is on `PATH`, else none (the text is printed as it is: a machine without `less`, such
//! as a slim container, still shows it).

use crate::Env;
use crate::programs::on_path;

/// The pager command line to run through `/bin/sh -c`, or `None` for no pager.
pub fn pager_command(env: &Env) -> Option<String> {
    if let Some(pager) = env.var("PAGER").filter(|p| !p.trim().is_empty()) {
        return Some(pager.to_owned());
    }
    on_path(env, "less").map(|_| "less".to_owned())
}

/// Whether a pager that exited with `code` could not run at all (the shell's 126: not
/// executable, 127: not found), so it showed nothing and the text is printed instead.
pub fn pager_failed_to_run(code: Option<i32>) -> bool {
    matches!(code, Some(126 | 127))
}
