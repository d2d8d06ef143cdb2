//! Whether Pi loads notesoup's extension more than once: `scripts/install`'s link, the
//! package `pi install npm:@notesoup/pi` installed, and a folder the `extensions` list of
//! Pi's settings names. Pi 1.6.0 refuses to start when two register the same tools
//! (`Tool "notesoup_notes_list" conflicts with ...`), so two copies are a failure.

use std::path::{Path, PathBuf};

use super::{Check, Status, check};
use crate::limits::pi_read::PiRead;

/// The Pi package `pi install` fetches (scripts/dist makes it).
pub(super) const PACKAGE: &str = "@notesoup/pi";

/// One copy of the extension Pi loads, and what removes it.
pub(super) struct Copy {
    pub(super) folder: PathBuf,
    pub(super) remove: String,
}

/// Every copy Pi loads: the link (when it holds `index.ts`), the npm package (when it holds
/// `index.ts` and the `packages` of a settings file Pi reads name it), and the listed
/// folder; one folder counts once, however it is reached.
pub(super) fn copies(read: &PiRead, link: &Path, npm: &Path, listed: Option<PathBuf>) -> Vec<Copy> {
    let mut found = Vec::new();
    if link.join("index.ts").is_file() {
        found.push(Copy {
            folder: link.to_path_buf(),
            remove: format!("rm {}", link.display()),
        });
    }
    if npm.join("index.ts").is_file() && read.packages().iter().any(|p| names_package(p)) {
        found.push(Copy {
            folder: npm.to_path_buf(),
            remove: format!("pi remove npm:{PACKAGE}"),
        });
    }
    if let Some(folder) = listed {
        let remove = format!(
            "take {} out of the extensions of {}",
            folder.display(),
            read.setting_files("extensions")
        );
        found.push(Copy { folder, remove });
    }
    let mut resolved = Vec::new();
    found.retain(|c| {
        let target = std::fs::canonicalize(&c.folder).unwrap_or_else(|_| c.folder.clone());
        let fresh = !resolved.contains(&target);
        resolved.push(target);
        fresh
    });
    found
}

/// A `packages` entry that is notesoup's npm package (`npm:@notesoup/pi`, with or without
/// a version).
fn names_package(source: &str) -> bool {
    let spec = format!("npm:{PACKAGE}");
    source == spec
        || source
            .strip_prefix(&spec)
            .is_some_and(|rest| rest.starts_with('@'))
}

/// The lines for two or more copies (`pi` names the Pi found): `pi` a failure, with the
/// command that removes each; `pi-helper` not checked until one is left.
pub(super) fn twice(pi: &str, loaded: &[Copy]) -> [Check; 2] {
    let folders: Vec<String> = loaded
        .iter()
        .map(|c| c.folder.display().to_string())
        .collect();
    let removes: Vec<&str> = loaded.iter().map(|c| c.remove.as_str()).collect();
    let times = match loaded.len() {
        2 => "twice".to_owned(),
        n => format!("{n} times"),
    };
    let line = check(
        "pi",
        Status::Fail,
        format!(
            "{pi} loads the notesoup extension {times}: {}; Pi then refuses to start (\"Tool notesoup_notes_list conflicts\")",
            folders.join(" and ")
        ),
        Some(format!("keep one: {}", removes.join(", or "))),
    );
    let helper = check(
        "pi-helper",
        Status::Skip,
        "not checked: Pi loads the extension more than once",
        None,
    );
    [line, helper]
}
