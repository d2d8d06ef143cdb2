//! notesoup's application library: the one place where notesoup's crates are composed, for
//! every front end (`notesoup-helper`, the `notesoup` CLI, `notesoup mcp`).
//!
//! The front ends call typed functions: [`history`] (sessions, list, read, state),
//! [`notes`] (list, read, write, edit, delete), [`boot`], [`limits`] and [`hook`], each taking
//! typed arguments and returning a typed answer or an [`AppError`] (a stable
//! [`AppError::code`] and the input at fault); [`tools::call`] answers a model's tool call
//! with them. A history tool called wrongly answers [`history::Answered::Refused`]: text the
//! model reads, and the reason a front end words in its own terms.
//!
//! # Invariants
//!
//! - Every call takes its [`Context`]: the library reads the process environment only in
//!   [`Context::from_process`], which a front end's `main` calls once.
//! - It keeps nothing between calls on its own: what outlives a call is a crate's on disk
//!   (the notes, the session's window record, the transcript index), or a history a
//!   long-lived caller asked its [`Context`] to keep ([`Context::keeping_histories`]:
//!   bounded, owned by that context, never process-global). A value a call is done with
//!   is dropped, or handed to the context's `retire` function.
//! - A session's flow is read, stepped and written only under its record's lock; a record
//!   that is missing or refused is rebuilt from the transcript, never misread.
//! - The model's arguments are held to the tool's schema, a field it does not declare
//!   refused: the folder, transcript, head, agent id and session folders come from the
//!   host's [`tools::Binding`] alone.
//! - A tool call whose effect landed always returns its answer: a step after it (the
//!   flow's, the warning's), a bug included, is logged beside the answer, never in its
//!   place.
//! - Every refusal is an [`AppError`] with a stable code and the input at fault.
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
//! The pure crates make the decisions; this crate does the IO they need (reading
//! transcripts, the notes store, a session's flow kept on disk) and reads the process
//! environment only through [`Context`], so tests can run any call with a context of their
//! own. A hook call of a host's hooks module is [`hook::call`], the budget policy
//! [`limits::resolve`]. The JSON protocol of `notesoup-helper` is not here: `helper-bin`
//! parses its requests, calls these functions and serializes their answers.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

use notesoup_history_store::Kept;

pub mod boot;
mod error;
pub mod history;
pub mod hook;
pub mod limits;
pub mod notes;
mod session_flow;
pub mod tools;
pub mod vault;

pub use error::AppError;

/// Most characters of any error message, input it quotes included: a longer message is cut
/// there with `…` (so a 50 MB hostile name gives a short reply, not a 50 MB one).
pub const MESSAGE_MAX_CHARS: usize = 2000;

/// What a call may read of the outside world besides its arguments: the environment,
/// captured once by a front end's `main`; the library crates never read the process
/// environment.
#[derive(Debug, Clone, Default)]
pub struct Context {
    vars: BTreeMap<String, String>,
    /// What [`Context::retire`] hands a value to instead of dropping it
    /// ([`Context::retiring_with`]); `None`: dropped at once.
    retire_with: Option<fn(Box<dyn Any + Send>)>,
    /// The histories kept between calls ([`Context::keeping_histories`]); `None`: none.
    kept: Option<Arc<Kept>>,
}

impl Context {
    /// The context of this process (its environment variables that are valid UTF-8).
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            retire_with: None,
            kept: None,
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

    /// This context, keeping the histories of the sessions its calls name by selector in
    /// `kept` (bounded; see [`Kept`]), so a later call on the same unchanged session
    /// searches the history an earlier one decoded: for a long-lived process (`notesoup
    /// mcp`). Clones of the context share `kept`; it is freed with the last of them.
    #[must_use]
    pub fn keeping_histories(mut self, kept: Kept) -> Self {
        self.kept = Some(Arc::new(kept));
        self
    }

    /// The histories this context keeps, if it keeps any.
    pub fn kept(&self) -> Option<&Kept> {
        self.kept.as_deref()
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
            kept: None,
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

    /// Where transcript indexes are kept: `cache/history` under the notesoup home, when one
    /// can be named (opened as a handle per call, never through a link: `Cache::in_home`).
    pub fn history_cache(&self) -> Option<notesoup_history_store::Cache> {
        self.notes_home()
            .ok()
            .map(|root| notesoup_history_store::Cache::in_home(&root))
    }
}

/// notesoup's one version: the workspace's (Cargo.toml `[workspace.package]`), which the
/// hooks module (`plugins/claude/hooks/spec.ts`, generated), the plugin manifest and the npm
/// packages (`scripts/dist`) copy; tests hold each copy to it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How long a host's shell (the Claude hooks module, the Pi extension) waits for one helper
/// reply before it takes the helper as unavailable (and kills it): a hung helper must not
/// hang the engine. Both shells read it from their generated `spec.ts`.
pub const HELPER_TIMEOUT_MS: u64 = 30_000;

/// Fold a message onto one line (the protocol promises one-line messages) of at most
/// [`MESSAGE_MAX_CHARS`] characters: the one clip rule for every message a refusal
/// carries, whatever input it quotes (a tool's refusal here, an error reply in
/// `notesoup-helper`).
///
/// ```
/// assert_eq!(notesoup_app::one_line("first\nsecond\t third"), "first second third");
/// ```
pub fn one_line(message: &str) -> String {
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

#[cfg(test)]
mod tests;
