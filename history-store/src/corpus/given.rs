//! A session file a caller was handed (Pi's extension names the live session's file),
//! accepted only where the walk of the harness's folders would have found it for that
//! session: the path is never trusted as given, since the vault keeps what it names.

use std::fs;
use std::path::{Component, Path};

use notesoup_history_pi::session_id_from_file_name;
use notesoup_window::Host;

use super::walk::depth;
use super::{Corpus, Found, found_file};

impl Corpus {
    /// The Pi session file at `path`, when it is one of the session `id`'s that the walk of
    /// Pi's folders ([`Corpus::folders`]) finds: an absolute path of plain names only, at most
    /// one real folder below one of the folders, named `<time>_<id>.jsonl`, a file and not a
    /// link. `None` otherwise (the caller then walks the folders).
    pub fn pi_session_file(&self, id: &str, path: &Path) -> Option<Found> {
        let plain = path.is_absolute()
            && path.components().all(|c| {
                matches!(
                    c,
                    Component::RootDir | Component::Prefix(_) | Component::Normal(_)
                )
            });
        if !plain || session_id_from_file_name(path.file_name()?.to_str()?) != Some(id) {
            return None;
        }
        let root = self.folders(Host::Pi).into_iter().find(|root| {
            path.strip_prefix(root)
                .is_ok_and(|rel| (1..=depth(Host::Pi) + 1).contains(&rel.components().count()))
        })?;
        let parent = path.parent()?;
        let folder_ok = parent == root || fs::symlink_metadata(parent).is_ok_and(|m| m.is_dir());
        let file_ok = fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
        (folder_ok && file_ok).then(|| found_file(Host::Pi, id, path, None, ""))
    }
}
