//! Whether Pi loads notesoup's extension more than once: `scripts/install`'s link, the
//! package `pi install npm:@notesoup/pi` installed (or `pi install -l` into the project),
//! and a folder the `extensions` list of Pi's settings names. Pi 1.6.0 refuses to start
//! when two register the same tools (`Tool "notesoup_notes_list" conflicts with ...`), so
//! two copies are a failure; the global and the project's npm package are one package to
//! Pi (it keeps the project's).

use std::path::{Path, PathBuf};

use super::{Check, Status, check};
use crate::limits::pi_read::PiRead;

/// The Pi package `pi install` fetches (scripts/dist makes it).
pub(super) const PACKAGE: &str = "@notesoup/pi";

/// Where Pi finds notesoup's extension for one project.
pub(super) struct Places {
    /// `scripts/install`'s link: `<agent>/extensions/notesoup`.
    pub(super) link: PathBuf,
    /// `pi install npm:@notesoup/pi`: `<agent>/npm/node_modules/@notesoup/pi`.
    pub(super) npm: PathBuf,
    /// The project: the folder Pi starts in (Pi reads `.pi` there, not in a parent).
    pub(super) project: PathBuf,
    /// `pi install -l npm:@notesoup/pi`: `<project>/.pi/npm/node_modules/@notesoup/pi`.
    pub(super) project_npm: PathBuf,
    /// The first folder the `extensions` lists of the settings Pi reads name.
    pub(super) listed: Option<PathBuf>,
}

impl Places {
    pub(super) fn new(agent: &Path, project: &Path, listed: Option<PathBuf>) -> Self {
        Self {
            link: agent.join("extensions/notesoup"),
            npm: agent.join("npm/node_modules").join(PACKAGE),
            project: project.to_path_buf(),
            project_npm: project.join(".pi/npm/node_modules").join(PACKAGE),
            listed,
        }
    }
}

/// How a copy came to be where Pi loads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Linked,
    Npm,
    ProjectNpm,
    Listed,
}

/// One copy of the extension Pi loads, and what removes it.
pub(super) struct Copy {
    pub(super) folder: PathBuf,
    pub(super) kind: Kind,
    pub(super) remove: String,
}

/// Every copy Pi loads: the link (when it holds `index.ts`); the npm package, the
/// project's when Pi trusts the project and its `.pi/settings.json` names the package
/// (Pi then passes the global one over), else the global one when the global settings
/// name it (each only when its folder holds `index.ts`); and the listed folder. One folder
/// counts once, however it is reached.
pub(super) fn copies(read: &PiRead, places: &Places) -> Vec<Copy> {
    let mut found = Vec::new();
    if places.link.join("index.ts").is_file() {
        found.push(Copy {
            folder: places.link.clone(),
            kind: Kind::Linked,
            remove: format!("rm {}", places.link.display()),
        });
    }
    if read.trusted == Some(true) && names(read, "project") {
        if places.project_npm.join("index.ts").is_file() {
            found.push(Copy {
                folder: places.project_npm.clone(),
                kind: Kind::ProjectNpm,
                remove: remove_local(&places.project, false),
            });
        }
    } else if places.npm.join("index.ts").is_file() && names(read, "global") {
        found.push(Copy {
            folder: places.npm.clone(),
            kind: Kind::Npm,
            remove: format!("pi remove npm:{PACKAGE}"),
        });
    }
    if let Some(folder) = &places.listed {
        let remove = format!(
            "take {} out of the extensions of {}",
            folder.display(),
            read.setting_files("extensions")
        );
        found.push(Copy {
            folder: folder.clone(),
            kind: Kind::Listed,
            remove,
        });
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

/// The project's copy Pi does not load yet because it does not trust the project: named
/// in the project's `.pi/settings.json` (`pi install -l`), its folder holding `index.ts`.
pub(super) fn waiting(read: &PiRead, places: &Places) -> Option<Copy> {
    (read.trusted != Some(true)
        && names(read, "project")
        && places.project_npm.join("index.ts").is_file())
    .then(|| Copy {
        folder: places.project_npm.clone(),
        kind: Kind::ProjectNpm,
        remove: remove_local(&places.project, true),
    })
}

/// `pi remove -l` run in the project (Pi refuses it in a project it does not trust
/// without `--approve`: "Project is not trusted. Use --approve to modify local package
/// config.").
fn remove_local(project: &Path, approve: bool) -> String {
    format!(
        "cd {} && pi remove -l{} npm:{PACKAGE}",
        project.display(),
        if approve { " --approve" } else { "" }
    )
}

/// Whether the `packages` of one settings file (`global` or `project`) name notesoup's
/// npm package (`npm:@notesoup/pi`, with or without a version).
fn names(read: &PiRead, source: &str) -> bool {
    let spec = format!("npm:{PACKAGE}");
    read.packages(source).iter().any(|p| {
        p == &spec
            || p.strip_prefix(&spec)
                .is_some_and(|rest| rest.starts_with('@'))
    })
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
