//! notesoup's application library: the one place where notesoup's crates are composed, for
//! every front end (`notesoup-helper`, the `notesoup` CLI, `notesoup mcp`).
//!
//! The front ends call typed functions: [`history`] (sessions, list, read, state),
//! [`notes`] (list, read, write, edit, delete), [`boot`] and [`version`], each taking
//! typed arguments and returning a typed answer or an [`AppError`] (a stable
//! [`AppError::code`] and the input at fault); [`tools::call`] answers a model's tool call
//! with them. A history tool called wrongly answers [`history::Answered::Refused`]: text the
//! model reads, and the reason a front end words in its own terms.
//!
//! ```
//! use notesoup_app::history::{Answered, SessionSource};
//! use notesoup_app::{Context, notes};
//!
//! let home = std::env::temp_dir().join(format!("notesoup-app-doc-{}", std::process::id()));
//! let ctx = Context::from_vars([("NOTESOUP_HOME", home.to_str().unwrap())]);
//! std::fs::create_dir_all(&home).unwrap();
//! let cwd = home.to_str().unwrap();
//! let write = notes::WriteArgs { name: "plan".into(), text: "ship it\n".into(), version: None };
//! let written = notes::write(&ctx, cwd, &write)?;
//! let listed = notes::list(&ctx, cwd, &notes::ListArgs::default())?;
//! assert_eq!(listed.notes[0].version, written.version);
//! // No such session: a refusal of the call itself, with its code.
//! let none = notesoup_app::history::list(&ctx, &SessionSource::selected("pi:0000"), &Default::default());
//! assert_eq!(none.unwrap_err().code(), "not_found");
//! # std::fs::remove_dir_all(&home).unwrap();
//! # Ok::<(), notesoup_app::AppError>(())
//! ```
//!
//! The JSON wire (moving to `helper-bin`): the hooks module of each host (Claude Code first)
//! runs `notesoup-helper <op>` with one JSON request on stdin and reads one JSON reply from
//! stdout; [`run`] parses the request, calls the typed function and serializes its answer.
//! The pure crates make the decisions, this crate does the IO they need (reading
//! transcripts, the notes store) and reads the process environment through [`Context`], so
//! tests can run any op in-process with a context of their own.
//!
//! Replies are `{"ok":true, ...}` or
//! `{"ok":false,"error":{"code":"<snake_case>","message":"<one line>"}}`. The exit status is
//! 0 whenever a reply was written and the request was understood, 2 when it could not be
//! parsed (an error reply is written all the same). See `PROTOCOL.md` for every op.
//!
//! ```
//! use notesoup_app::{Context, run};
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

use std::any::Any;
use std::collections::BTreeMap;
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

pub mod boot;
mod error;
pub mod history;
pub mod notes;
mod ops;
mod session_flow;
pub mod tools;

pub use error::AppError;

/// Largest request the helper reads, in bytes: a longer stdin is refused as `bad_request`
/// (exit 2) after reading at most one byte past it. The largest real request (a note's
/// 64 KiB text, a hook's facts) is far below.
pub const REQUEST_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Most characters of any error message, input it quotes included: a longer message is cut
/// there with `…` (so a 50 MB hostile name gives a short reply, not a 50 MB one).
pub const MESSAGE_MAX_CHARS: usize = 2000;

/// What an op may read of the outside world besides its request: the environment, captured
/// once. Only this binary reads the process environment; the library crates never do.
#[derive(Debug, Clone, Default)]
pub struct Context {
    vars: BTreeMap<String, String>,
    /// What [`Context::retire`] hands a value to instead of dropping it
    /// ([`Context::retiring_with`]); `None`: dropped at once.
    retire_with: Option<fn(Box<dyn Any + Send>)>,
}

impl Context {
    /// The context of this process (its environment variables that are valid UTF-8).
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            retire_with: None,
        }
    }

    /// This context, handing what calls made with it are done with (a decoded history) to
    /// `retire` instead of dropping it. The library keeps nothing: a one-shot process's
    /// `main` may pass a function that lets the operating system reclaim the value at exit
    /// (`notesoup-helper` does: freeing a 100 MB history piece by piece is work the exit
    /// does for free).
    #[must_use]
    pub fn retiring_with(mut self, retire: fn(Box<dyn Any + Send>)) -> Self {
        self.retire_with = Some(retire);
        self
    }

    /// Lets go of a value a call is done with: dropped now, or handed to the function the
    /// context names ([`Context::retiring_with`]).
    pub fn retire<T: Send + 'static>(&self, value: T) {
        if let Some(retire) = self.retire_with {
            retire(Box::new(value));
        }
    }

    /// A context with exactly these variables (for tests and embedding).
    pub fn from_vars<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self {
            vars: vars
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            retire_with: None,
        }
    }

    /// Every variable, by name.
    pub fn vars(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// One environment variable, `None` when unset.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// The notesoup home these variables name (`NOTESOUP_HOME`, else `XDG_DATA_HOME`, else
    /// `HOME`; the notes crate's one rule): brains, window records and the index cache.
    pub fn notes_home(&self) -> Result<std::path::PathBuf, notesoup_notes::NotesError> {
        notesoup_notes::store_root(
            self.var("NOTESOUP_HOME"),
            self.var("XDG_DATA_HOME"),
            self.var("HOME"),
        )
    }
}

/// The reply to write and the exit status to leave with.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The whole JSON reply (one line on stdout).
    pub reply: Value,
    /// 0 when the request was understood (whether the op succeeded or refused), 2 when it
    /// could not be parsed.
    pub exit: u8,
}

impl Response {
    /// The reply when stdin itself could not be read.
    pub fn stdin_error(err: &std::io::Error) -> Self {
        OpError::bad_request(format!("could not read the request from stdin: {err}")).into()
    }

    /// The reply when stdin holds more than [`REQUEST_MAX_BYTES`].
    pub fn too_large_request() -> Self {
        OpError::bad_request(format!(
            "the request is over {REQUEST_MAX_BYTES} bytes; refused unread"
        ))
        .into()
    }
}

/// Read one request from `input` (stdin): its bytes, or the reply refusing it when it
/// cannot be read or holds more than [`REQUEST_MAX_BYTES`] (at most one byte past the cap
/// is read, so memory stays bounded whatever the sender writes).
pub fn read_request(input: impl Read) -> Result<Vec<u8>, Response> {
    let mut bytes = Vec::new();
    match input.take(REQUEST_MAX_BYTES + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 > REQUEST_MAX_BYTES => Err(Response::too_large_request()),
        Ok(_) => Ok(bytes),
        Err(err) => Err(Response::stdin_error(&err)),
    }
}

/// A refusal: a stable `snake_case` `code` the hooks module can branch on, and a one-line
/// `message` a person (or the model) can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct OpError {
    /// Stable machine-readable code, e.g. `bad_request`, `not_found`, `version_conflict`.
    pub code: String,
    /// One line, saying what was wrong with which input and what to do.
    pub message: String,
    /// True when the request itself could not be parsed (exit status 2).
    pub malformed: bool,
}

impl OpError {
    /// A refusal of a well-formed request.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: one_line(&message.into()),
            malformed: false,
        }
    }

    /// The request could not be parsed (wrong JSON, wrong types, missing fields).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self {
            malformed: true,
            ..Self::new("bad_request", message)
        }
    }
}

/// A typed call's refusal as the protocol's error: its code and its one-line message
/// (`bad_request`, exit 2, for a refusal of the request's shape).
impl From<AppError> for OpError {
    fn from(err: AppError) -> Self {
        OpError {
            malformed: err.malformed(),
            ..OpError::new(err.code(), err.to_string())
        }
    }
}

/// A history store refusal as the protocol's error.
impl From<notesoup_history_store::StoreError> for OpError {
    fn from(err: notesoup_history_store::StoreError) -> Self {
        AppError::from(err).into()
    }
}

/// A notes store refusal as the protocol's error.
impl From<notesoup_notes::NotesError> for OpError {
    fn from(err: notesoup_notes::NotesError) -> Self {
        AppError::from(err).into()
    }
}

/// A typed answer as the fields of a reply (every answer type serializes to an object).
pub(crate) fn fields<T: Serialize>(value: &T) -> ops::Fields {
    match serde_json::to_value(value) {
        Ok(Value::Object(fields)) => fields,
        _ => ops::Fields::new(),
    }
}

/// Which helper this is and which ops it answers (the `version` op).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionInfo {
    /// This crate's version.
    pub version: &'static str,
    /// Every op the helper answers.
    pub ops: &'static [&'static str],
}

/// notesoup's one version: the workspace's (Cargo.toml `[workspace.package]`), which the
/// hooks module (`plugins/claude/hooks/spec.ts`, generated), the plugin manifest and the npm
/// packages (`scripts/dist`) copy; tests hold each copy to it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// This helper's version and ops.
pub fn version() -> VersionInfo {
    VersionInfo {
        version: VERSION,
        ops: ops::NAMES,
    }
}

impl From<OpError> for Response {
    fn from(err: OpError) -> Self {
        Response {
            exit: if err.malformed { 2 } else { 0 },
            reply: json!({"ok": false, "error": {"code": err.code, "message": err.message}}),
        }
    }
}

/// Fold a message onto one line (the protocol promises one-line messages) of at most
/// [`MESSAGE_MAX_CHARS`] characters: the one clip rule for every message the helper
/// writes, whatever input it quotes.
fn one_line(message: &str) -> String {
    let mut folded = String::new();
    for word in message.split_whitespace() {
        if !folded.is_empty() {
            folded.push(' ');
        }
        folded.push_str(word);
        // Stop folding once the clip is certain: the rest would be cut anyway.
        if folded.len() > 4 * MESSAGE_MAX_CHARS {
            break;
        }
    }
    notesoup_history_core::clip(folded, MESSAGE_MAX_CHARS)
}

/// Parse an op's request into its typed form; any mismatch is a `bad_request` naming the
/// op and serde's account of where the input went wrong.
pub(crate) fn parse<T: DeserializeOwned>(op: &str, request: Value) -> Result<T, OpError> {
    serde_json::from_value(request)
        .map_err(|err| OpError::bad_request(format!("`{op}` request: {err}")))
}

/// Run one op on the raw bytes of a request. Never panics: a bug inside an op becomes an
/// `internal` error reply.
pub fn run(op: Option<&str>, input: &[u8], ctx: &Context) -> Response {
    let Some(op) = op else {
        return OpError::bad_request(format!(
            "usage: notesoup-helper <op> < request.json; ops: {}",
            ops::NAMES.join(", ")
        ))
        .into();
    };
    let request: Value = match serde_json::from_slice(input) {
        Ok(value) => value,
        Err(err) if input.iter().all(u8::is_ascii_whitespace) => {
            return OpError::bad_request(format!(
                "`{op}` got an empty request on stdin ({err}); send one JSON object"
            ))
            .into();
        }
        Err(err) => {
            return OpError::bad_request(format!("`{op}` request is not valid JSON: {err}")).into();
        }
    };
    if !request.is_object() {
        return OpError::bad_request(format!(
            "`{op}` request must be a JSON object, got {}",
            kind(&request)
        ))
        .into();
    }
    answer(op, request, ctx)
}

/// Answers a parsed request (a JSON object). Never panics: a bug inside an op becomes an
/// `internal` error reply.
pub(crate) fn answer(op: &str, request: Value, ctx: &Context) -> Response {
    match catch_unwind(AssertUnwindSafe(|| ops::dispatch(op, request, ctx))) {
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
        Err(_) => OpError::new(
            "internal",
            format!("notesoup-helper hit a bug while answering `{op}`; the details are on stderr"),
        )
        .into(),
    }
}

/// A JSON value's kind, for error messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
