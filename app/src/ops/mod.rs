//! One module per op; `dispatch` is the only table of them.

use serde_json::{Map, Value};

use crate::{Context, OpError};

mod boot;
mod history;
mod history_list;
mod history_read;
mod history_sessions;
mod history_state;
mod hook;
mod limits;
mod notes;
mod tool;
mod version;

/// Every op, in the order `version` lists them.
pub(crate) const NAMES: &[&str] = &[
    "version",
    "limits",
    "hook",
    "notes_list",
    "notes_read",
    "notes_write",
    "notes_edit",
    "notes_delete",
    "boot",
    "history_list",
    "history_read",
    "history_state",
    "history_sessions",
    "tool",
];

/// The fields of a successful reply (the caller adds `"ok": true`).
pub(crate) type Fields = Map<String, Value>;

pub(crate) fn dispatch(op: &str, request: Value, ctx: &Context) -> Result<Fields, OpError> {
    match op {
        "version" => version::run(request, ctx),
        "limits" => limits::run(request, ctx),
        "hook" => hook::run(request, ctx),
        "notes_list" => notes::list(request, ctx),
        "notes_read" => notes::read(request, ctx),
        "notes_write" => notes::write(request, ctx),
        "notes_edit" => notes::edit(request, ctx),
        "notes_delete" => notes::delete(request, ctx),
        "boot" => boot::run(request, ctx),
        "history_list" => history_list::run(request, ctx),
        "history_read" => history_read::run(request, ctx),
        "history_state" => history_state::run(request, ctx),
        "history_sessions" => history_sessions::run(request, ctx),
        "tool" => tool::run(request, ctx),
        _ => Err(OpError {
            malformed: true,
            ..OpError::new(
                "unknown_op",
                format!("unknown op `{op}`; ops: {}", NAMES.join(", ")),
            )
        }),
    }
}
