//! Every brain under a store root, for people looking for their notes: a project moved
//! or cloned elsewhere has a new domain, so its old brain is found here by the folder it
//! was written from.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use notesoup_safe_fs::{Dir, Kind};

use crate::{Brain, NotesError};

/// One brain as [`brains`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrainInfo {
    /// The brain's own folder.
    pub dir: PathBuf,
    /// The project folder it was first written from (its `domain` file), `None` when that
    /// file is missing or unreadable.
    pub domain: Option<PathBuf>,
    /// How many notes it holds.
    pub notes: usize,
    /// Their bytes in all.
    pub bytes: u64,
    /// When a note of it was last written, in seconds since the Unix epoch (`None`: no
    /// notes).
    pub updated: Option<u64>,
}

/// Every brain under `store_root` (`brains/*`), sorted by project folder; none when the
/// store does not exist yet. Read the way every read of the store is (no links followed,
/// regular files only); a brain folder that cannot be read is left out, never guessed at.
///
/// ```
/// use notesoup_notes::{Brain, brains};
///
/// let root = std::env::temp_dir().join(format!("notesoup-brains-doc-{}", std::process::id()));
/// let project = root.join("app");
/// std::fs::create_dir_all(&project)?;
/// Brain::open(&root.join("store"), &project)?.write("plan", "ship it\n", None)?;
/// let found = brains(&root.join("store"))?;
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].domain.as_deref(), Some(project.canonicalize()?.as_path()));
/// assert_eq!((found[0].notes, found[0].bytes), (1, 8));
/// # std::fs::remove_dir_all(&root)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn brains(store_root: &Path) -> Result<Vec<BrainInfo>, NotesError> {
    let root = match Dir::open(store_root) {
        Ok(root) => root,
        Err(err) if err.is_not_found() => return Ok(Vec::new()),
        Err(err) => return Err(err.into()),
    };
    let Some(folder) = root.open_dir("brains")? else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for entry in folder.entries()? {
        if entry.kind != Kind::Dir {
            continue;
        }
        let Ok(label) = entry.name.into_string() else {
            continue;
        };
        let Ok(Some(dir)) = folder.open_dir(&label) else {
            continue;
        };
        let domain = dir
            .read("domain", 64 * 1024)
            .ok()
            .flatten()
            .and_then(|bytes| {
                let line = bytes.split(|b| *b == b'\n').next()?;
                // The path's own bytes, as the brain's first write recorded them.
                Some(PathBuf::from(std::ffi::OsStr::from_bytes(line)))
            })
            .filter(|path| path.is_absolute());
        let brain = Brain {
            dir: folder.child_path(&label),
            domain: domain.clone().unwrap_or_default(),
            root: store_root.to_path_buf(),
            label,
            lock_wait: crate::LOCK_WAIT,
        };
        let Ok(notes) = brain.list("") else {
            continue;
        };
        found.push(BrainInfo {
            dir: brain.dir,
            domain,
            notes: notes.len(),
            bytes: notes.iter().map(|n| n.bytes).sum(),
            updated: notes.iter().map(|n| n.updated).max(),
        });
    }
    found.sort_by(|a, b| a.domain.cmp(&b.domain).then_with(|| a.dir.cmp(&b.dir)));
    Ok(found)
}

/// The brain a project folder that no longer exists left behind (deleted, or moved or
/// renamed away): the brain first written from `folder` or from its nearest ancestor (a
/// git project's brain is its root's) when that folder is gone too, so its notes can still
/// be read and restored. `None` when no brain was written from there, or its folder still
/// exists (a mistyped folder under a project is not that project's). `folder` is
/// absolute, with no `.` or `..`.
///
/// ```
/// use notesoup_notes::{Brain, left_behind};
///
/// let root = std::env::temp_dir().join(format!("notesoup-left-doc-{}", std::process::id()));
/// let project = root.join("app");
/// std::fs::create_dir_all(project.join(".git"))?;
/// Brain::open(&root.join("store"), &project)?.write("plan", "ship it\n", None)?;
/// let project = project.canonicalize()?;
/// std::fs::remove_dir_all(&project)?;
/// let brain = left_behind(&root.join("store"), &project.join("src"))?.expect("left behind");
/// assert_eq!(brain.read("plan")?.text, "ship it\n");
/// assert!(left_behind(&root.join("store"), &root.join("other"))?.is_none());
/// # std::fs::remove_dir_all(&root)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn left_behind(store_root: &Path, folder: &Path) -> Result<Option<Brain>, NotesError> {
    let found = brains(store_root)?;
    let nearest = folder
        .ancestors()
        .find_map(|ancestor| found.iter().find(|b| b.domain.as_deref() == Some(ancestor)))
        .filter(|b| b.domain.as_deref().is_some_and(|d| !d.exists()));
    Ok(nearest.and_then(|b| {
        Some(Brain {
            label: b.dir.file_name()?.to_str()?.to_owned(),
            dir: b.dir.clone(),
            domain: b.domain.clone()?,
            root: store_root.to_path_buf(),
            lock_wait: crate::LOCK_WAIT,
        })
    }))
}
