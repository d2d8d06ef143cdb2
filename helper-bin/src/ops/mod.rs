//! One module per op (the notes ops and the history ops share one each); [`OPS`] is the
//! only table of them.

use notesoup_app::{AppError, Context, notes as app};
use serde_json::{Map, Value};

mod boot;
mod event;
mod history;
mod hook;
mod limits;
mod notes;
mod pi_hook;
mod tool;
mod version;

/// The fields of a successful reply (the caller adds `"ok": true`).
pub(crate) type Fields = Map<String, Value>;

/// An op's handler: its parsed request in, its reply's fields out.
pub(crate) type Op = fn(Value, &Context) -> Result<Fields, AppError>;

/// Every op and its handler, in the order `version` lists them.
const OPS: [(&str, Op); 15] = [
    ("version", version::run),
    ("limits", limits::run),
    ("hook", hook::run),
    ("notes_list", |r, c| {
        notes::run("notes_list", r, c, app::list)
    }),
    ("notes_read", |r, c| {
        notes::run("notes_read", r, c, app::read)
    }),
    ("notes_write", |r, c| {
        notes::run("notes_write", r, c, app::write)
    }),
    ("notes_edit", |r, c| {
        notes::run("notes_edit", r, c, app::edit)
    }),
    ("notes_delete", |r, c| {
        notes::run("notes_delete", r, c, app::delete)
    }),
    ("boot", boot::run),
    ("history_list", history::list),
    ("history_read", history::read),
    ("history_state", history::state),
    ("history_sessions", history::sessions),
    ("tool", tool::run),
    ("pi_hook", pi_hook::run),
];

/// Every op's name, in order.
pub(crate) fn names() -> Vec<&'static str> {
    OPS.iter().map(|&(name, _)| name).collect()
}

/// The handler of op `op`, if there is one.
pub(crate) fn find(op: &str) -> Option<Op> {
    OPS.iter()
        .find(|&&(name, _)| name == op)
        .map(|&(_, run)| run)
}
