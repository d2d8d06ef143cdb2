//! The project's copy of the extension (`pi install -l npm:@notesoup/pi`) in a project Pi
//! does not trust: Pi 1.6.0 ignores an untrusted project's `.pi` packages, so doctor names
//! that copy and how to trust the project, in Pi's words.

use super::pi_copies::{Copy, Kind, Places};
use super::{Check, Status, check};

/// How to trust the project (`trusted` as `trust.json` decides it: `None` undecided, Pi
/// asks when it starts in the project; `Some(false)` "Do not trust" saved, Pi does not ask).
fn trust_fix(trusted: Option<bool>, places: &Places) -> String {
    let project = places.project.display();
    let how = match trusted {
        Some(false) => {
            format!("in pi started in {project}, run /trust and choose Trust, then restart pi")
        }
        _ => format!(
            "start pi in {project} and choose Trust at its \"Trust project folder?\" prompt"
        ),
    };
    format!("{how} (`pi --approve` trusts it for one run)")
}

/// The `pi` line when Pi loads no copy and the project's waits for trust.
pub(super) fn only_waiting(
    pi: &str,
    waiting: &Copy,
    trusted: Option<bool>,
    places: &Places,
) -> Check {
    check(
        "pi",
        Status::Warn,
        format!(
            "{pi} loads no notesoup extension here: this project's copy {} (`pi install -l`) waits until Pi trusts {} (Pi ignores an untrusted project's .pi packages)",
            waiting.folder.display(),
            places.project.display()
        ),
        Some(trust_fix(trusted, places)),
    )
}

/// What the `ok` line of the one copy Pi loads adds about the project's waiting one, when
/// trusting the project keeps one copy (the global npm package: Pi keeps the project's).
pub(super) fn note(waiting: &Copy, places: &Places) -> String {
    format!(
        "; this project's copy {} (`pi install -l`) waits until Pi trusts {}, then Pi loads it instead",
        waiting.folder.display(),
        places.project.display()
    )
}

/// The `pi` line when Pi loads one copy (`loaded`) that is not the npm package and the
/// project's waits for trust: once Pi trusts the project it loads both and does not start.
pub(super) fn conflict_ahead(
    pi: &str,
    loaded: &Copy,
    waiting: &Copy,
    places: &Places,
) -> Option<Check> {
    (loaded.kind != Kind::Npm).then(|| {
        check(
            "pi",
            Status::Warn,
            format!(
                "{pi} loads the notesoup extension at {}; this project's copy {} (`pi install -l`) waits until Pi trusts {}, and then Pi loads both and refuses to start (\"Tool notesoup_notes_list conflicts\")",
                loaded.folder.display(),
                waiting.folder.display(),
                places.project.display()
            ),
            Some(format!("keep one: {}, or {}", waiting.remove, loaded.remove)),
        )
    })
}
