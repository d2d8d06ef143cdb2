//! The JSON edge of notesoup: `notesoup-helper <op>` reads one JSON request on stdin and
//! writes one JSON reply on stdout. [`run`] parses the request, calls the typed function of
//! `notesoup-app` the op names (one module per op under `ops`) and serializes its answer;
//! nothing here decides anything. See `PROTOCOL.md` beside this crate for every op.
//!
//! Replies are `{"ok":true, ...}` or
//! `{"ok":false,"error":{"code":"<snake_case>","message":"<one line>"}}`. The exit status is
//! 0 whenever a reply was written and the request was understood, 2 when it could not be
//! parsed (an error reply is written all the same).
//!
//! # Invariants
//!
//! - It never panics on any input: a bug inside an op becomes an `internal` error reply
//!   ([`run`] catches it), and `main` keeps the panic message on stderr.
//! - Stdout carries one JSON reply and nothing else.
//! - The exit status is 2 exactly when the request could not be parsed (an error reply is
//!   written all the same); 0 when it was understood and the reply written.
//! - A request is read with a bound: more than [`REQUEST_MAX_BYTES`] is refused after
//!   reading at most one byte past it.
//! - It decides nothing: each op parses its request, calls `notesoup-app`, and serializes
//!   the answer. It depends on `notesoup-app` alone, and no crate depends on it
//!   (`scripts/check-boundaries`).
//!
//! ```
//! use notesoup_app::Context;
//! use notesoup_helper_bin::run;
//!
//! let ctx = Context::from_vars([("NOTESOUP_HOME", "/nonexistent")]);
//! let out = run(Some("version"), b"{}", &ctx);
//! assert_eq!(out.exit, 0);
//! assert_eq!(out.reply["ok"], true);
//!
//! let out = run(Some("version"), b"{not json", &ctx);
//! assert_eq!(out.exit, 2);
//! assert_eq!(out.reply["error"]["code"], "bad_request");
//! ```

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};

use notesoup_app::{AppError, Context, one_line};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

mod ops;

/// Most characters of any error message the helper writes (the library's one clip rule).
pub use notesoup_app::MESSAGE_MAX_CHARS;

/// Largest request the helper reads, in bytes: a longer stdin is refused as `bad_request`
/// (exit 2) after reading at most one byte past it. The largest real request (a note's
/// 64 KiB text, a hook's facts) is far below.
pub const REQUEST_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The reply to write and the exit status to leave with.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The whole JSON reply (one line on stdout).
    pub reply: Value,
    /// 0 when the request was understood (whether the op succeeded or refused), 2 when it
    /// could not be parsed.
    pub exit: u8,
}

/// Read one request from `input` (stdin): its bytes, or the reply refusing it when it
/// cannot be read or holds more than [`REQUEST_MAX_BYTES`] (at most one byte past the cap
/// is read, so memory stays bounded whatever the sender writes).
pub fn read_request(input: impl Read) -> Result<Vec<u8>, Response> {
    let mut bytes = Vec::new();
    let message = match input.take(REQUEST_MAX_BYTES + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 <= REQUEST_MAX_BYTES => return Ok(bytes),
        Ok(_) => format!("the request is over {REQUEST_MAX_BYTES} bytes; refused unread"),
        Err(err) => format!("could not read the request from stdin: {err}"),
    };
    Err(refusal("bad_request", &message, true))
}

/// A refusal as the reply: a stable `snake_case` `code` the hooks module can branch on, a
/// `message` folded onto one line a person (or the model) can act on, and exit status 2
/// when the request itself could not be understood (`malformed`).
fn refusal(code: &str, message: &str, malformed: bool) -> Response {
    Response {
        exit: if malformed { 2 } else { 0 },
        reply: json!({"ok": false, "error": {"code": code, "message": one_line(message)}}),
    }
}

/// A typed call's refusal as the protocol's error: its code and its one-line message
/// (`bad_request`, exit 2, for a refusal of the request's shape).
impl From<AppError> for Response {
    fn from(err: AppError) -> Self {
        let mut response = refusal(err.code(), &err.to_string(), err.malformed());
        if err.turns_off() {
            // The shells turn notesoup off for the session on it (PROTOCOL.md, "Refusal").
            response.reply["error"]["off"] = Value::Bool(true);
            if let Some(fix) = err.off_fix() {
                response.reply["error"]["message"] =
                    Value::from(one_line(&format!("{err}; {fix}")));
            }
        }
        response
    }
}

/// A typed answer as the fields of a reply (every answer type serializes to an object).
pub(crate) fn fields<T: Serialize>(value: &T) -> ops::Fields {
    match serde_json::to_value(value) {
        Ok(Value::Object(fields)) => fields,
        _ => ops::Fields::new(),
    }
}

/// Parse an op's request into its typed form; any mismatch is a `bad_request` naming the
/// op and serde's account of where the input went wrong.
pub(crate) fn parse<T: DeserializeOwned>(op: &str, request: Value) -> Result<T, AppError> {
    serde_json::from_value(request)
        .map_err(|err| AppError::Request(format!("`{op}` request: {err}")))
}

/// Run one op on the raw bytes of a request. Never panics: a bug inside an op becomes an
/// `internal` error reply.
pub fn run(op: Option<&str>, input: &[u8], ctx: &Context) -> Response {
    let refuse = |message: String| refusal("bad_request", &message, true);
    let Some(op) = op else {
        let ops = ops::names().join(", ");
        return refuse(format!(
            "usage: notesoup-helper <op> < request.json; ops: {ops}"
        ));
    };
    let request = match serde_json::from_slice::<Value>(input) {
        Ok(request) if request.is_object() => request,
        Ok(other) => {
            let kind = notesoup_app::tools::kind_of(&other);
            return refuse(format!("`{op}` request must be a JSON object, got {kind}"));
        }
        Err(err) if input.iter().all(u8::is_ascii_whitespace) => {
            return refuse(format!(
                "`{op}` got an empty request on stdin ({err}); send one JSON object"
            ));
        }
        Err(err) => return refuse(format!("`{op}` request is not valid JSON: {err}")),
    };
    let Some(handler) = ops::find(op) else {
        let ops = ops::names().join(", ");
        return refusal(
            "unknown_op",
            &format!("unknown op `{op}`; ops: {ops}"),
            true,
        );
    };
    match catch_unwind(AssertUnwindSafe(|| handler(request, ctx))) {
        Ok(Ok(fields)) => {
            let mut reply = Map::with_capacity(fields.len() + 1);
            reply.insert("ok".into(), Value::Bool(true));
            reply.extend(fields);
            Response {
                reply: Value::Object(reply),
                exit: 0,
            }
        }
        Ok(Err(err)) => err.into(),
        Err(_) => refusal(
            "internal",
            &format!("notesoup-helper hit a bug while answering `{op}`; the details are on stderr"),
            false,
        ),
    }
}

#[cfg(test)]
mod tests;
