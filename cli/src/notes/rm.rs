//! `notesoup notes rm NAME...`: each note moved to the trash in turn; the names that are not
//! notes are reported with the closest ones, and the others are still moved (as `rm` does).

use notesoup_notes::{Brain, Deleted};

use crate::docs::{NotRemoved, Removed, RmDoc};
use crate::term::Out;
use crate::{CliError, EXIT_FAILED, EXIT_OK};

/// Removes each of `names`; exit 1 when any was not removed.
pub(super) fn rm(brain: &Brain, names: &[String], out: &mut Out) -> u8 {
    let mut removed: Vec<Deleted> = Vec::new();
    let mut failed: Vec<(String, CliError)> = Vec::new();
    for name in names {
        // A name given twice is one name: moved once, or refused once.
        if removed.iter().any(|d| &d.name == name) || failed.iter().any(|(n, _)| n == name) {
            continue;
        }
        match brain.delete(name, None) {
            Ok(deleted) => removed.push(deleted),
            Err(err) => failed.push((name.clone(), super::refusal(brain, err))),
        }
    }
    if out.json {
        out.json_doc(&RmDoc {
            ok: failed.is_empty(),
            removed: removed
                .iter()
                .map(|d| Removed {
                    name: &d.name,
                    version: d.version.as_str(),
                    trash: &d.trash,
                })
                .collect(),
            failed: failed
                .iter()
                .map(|(name, err)| NotRemoved {
                    name: name.clone(),
                    code: err.code().to_owned(),
                    message: err.to_string(),
                    near: match err {
                        CliError::NoSuchNote { near, .. } => near.clone(),
                        CliError::Notes {
                            meant: Some(meant), ..
                        } => vec![meant.clone()],
                        _ => Vec::new(),
                    },
                })
                .collect(),
        });
    } else {
        for d in &removed {
            out.line(format!("Moved note `{}` to the trash.", d.name));
        }
    }
    for (_, err) in &failed {
        out.error_line(err);
    }
    match removed.as_slice() {
        [] => {}
        [one] => out.hint(format!(
            "`notesoup notes restore {}` brings it back.",
            one.name
        )),
        _ => out.hint("`notesoup notes restore NAME` brings each back."),
    }
    if failed.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILED
    }
}
