//! notesoup history, harness-neutral.
//!
//! A decoder (`notesoup-history-claude`, `-pi`, `-codex`, one per harness) turns one persisted
//! session into a [`Transcript`]: the selected branch's [`Event`]s, each with a [`Seq`]
//! address, a [`Role`], a [`Window`] and a [`Body`] (visible text, a tool call, or a tool
//! result), plus the ancestors the branch needs but the transcript lacks. [`History`]
//! indexes it (calls paired with results by id, in seq order) and answers the two tools
//! within [`ANSWER_LIMIT`] (32 KiB of UTF-8).
//!
//! Sessions of every harness (Claude, Pi, Codex) are named by `<harness>:<sessionId>`
//! selectors; the [`history_sessions`] page documents them and the recent-sessions listing.
//!
//! # The model (what every decoder must produce)
//!
//! - **Seq**: an address allocated by the decoder in first-occurrence append order of the
//!   transcript, before any branch filtering: one per logical message, attachment or
//!   notice, plus one per tool call and one per tool result. Seqs start at 1 and never
//!   change when the transcript grows; a record repeated under the same id allocates
//!   nothing.
//! - **Window**: `<harness>:<sessionId>:<ordinal>` (ordinal 0 is the session's first window),
//!   or `<harness>:<sessionId>:unknown:<missingId>` when the event's ancestry stops at a
//!   missing record and the ordinal cannot be known. Numbered windows are presented by
//!   ordinal, unknown segments after them; inside a window, by seq.
//! - **Visible text**: only what the harness recorded as shown text (text blocks,
//!   attachment renderings). Thinking and raw payloads never. An envelope without visible
//!   text keeps its address; lists skip it, reads say that no visible text was recorded.
//! - **Tools**: a call and its result are two events (two seqs). The result pairs with the
//!   latest earlier unanswered call of the same id; reading a paired result's seq shows
//!   its call with the result; a call without a result is shown as pending.
//!
//! # The two tools (the same for every harness)
//!
//! `history_list` ([`ListArgs`]) — one folded line per event (at most [`LINE_CHARS`]
//! characters), newest first, grouped under `== window <id> ==` headers; literal search
//! (`query`), `roles`, `window`, a `cursor` to continue, `limit` (1 to [`MAX_LIMIT`],
//! default [`DEFAULT_LIMIT`]) and `order`.
//!
//! `history_read` ([`ReadArgs`]) — whole events by seq (`seq`, or `from`..=`to`), in seq
//! order, with their window and timestamp; a cut event ends with a footer naming the
//! exact arguments (`offset`) that continue it.
//!
//! The JSON Schemas hosts register for them are written once, from these limits, by the
//! `notesoup-app` crate's `tools` module, which adds a `session` selector (resolved by
//! the host, not by this crate: it picks which transcript the decoder reads).
//!
//! A decoder may leave bodies out ([`History::with_bodies`] and a [`BodySource`] that gives
//! them back; [`LeaveOut`] says which, [`LeftOut`] where each lies, [`placeholder`] what
//! stands for it): only the bodies an answer shows, or a search may find its query in, are
//! asked for, and a list for a literal visits only the documents that may hold it. When
//! the decoder reported missing ancestors, both answers prepend a bounded notice naming
//! them (also on empty selections and refusals). A wrongly called tool gets
//! [`History::refusal`], a text answer naming the error.
//!
//! # Invariants
//!
//! - Every answer, notice and footer included, fits [`ANSWER_LIMIT`] bytes: one wrapper,
//!   [`AnswerWriter`], both checks the budget and delivers the text, so nothing is clipped
//!   after the check and a continuation footer is never cut.
//! - The ancestry notice is never searched, and offsets never count it.
//! - Answers from left-out bodies are byte-identical to those of [`History::new`] on the
//!   whole transcript (history-store's `tests/lazy_agreement.rs` holds Claude's index to
//!   it, `tests/left_agreement.rs` the Pi and Codex bodies left in their files).
//!
//! # Example
//!
//! ```
//! use notesoup_history_core::{
//!     Body, Event, History, ListArgs, ReadArgs, Role, SessionRef, Transcript, Window,
//! };
//! use notesoup_window::Host;
//!
//! let event = |seq, role, body| Event {
//!     seq, role, body, window: Window::Numbered(0), record: format!("r{seq}").into(), timestamp: None,
//! };
//! let history = History::new(Transcript {
//!     session: SessionRef { harness: Host::Claude, id: "s1".into() },
//!     events: vec![
//!         event(1, Role::User, Body::Text { text: "list the files".into() }),
//!         event(2, Role::Assistant, Body::Text { text: String::new() }),
//!         event(3, Role::Tool, Body::ToolCall {
//!             id: "t1".into(), name: "Bash".into(), input: r#"{"command":"ls"}"#.into() }),
//!         event(4, Role::Tool, Body::ToolResult {
//!             id: "t1".into(), text: "Cargo.toml".into(), is_error: false }),
//!     ],
//!     missing: vec![],
//!     head_window: Window::Numbered(0),
//! })?;
//! assert_eq!(history.head_window_id(), "claude:s1:0");
//!
//! let page = history.list(&ListArgs { query: Some("Cargo".into()), ..ListArgs::default() })?;
//! assert_eq!(page.shown, vec![3]); // the call stands for its result
//! assert!(page.text.as_str().contains("#3 tool call: Bash"));
//!
//! let read = history.read(&ReadArgs { seq: Some(4), ..ReadArgs::default() })?;
//! assert_eq!(read.shown, vec![3]); // a paired result's seq redirects to its call
//! assert!(read.text.as_str().contains("Cargo.toml"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod budget;
mod documents;
mod hash;
#[doc = include_str!("../docs/history-sessions.md")]
pub mod history_sessions {}
mod history;
mod last_time;
mod left_out;
mod line_error;
mod model;
mod pieces;
mod seek;
mod sessions;
mod shared;
mod surrogates;
mod tools;
mod visits;
mod walk;

pub use budget::{ANSWER_LIMIT, AnswerWriter, BudgetedText, LEAD_LIMIT};
pub use documents::{
    DocPage, DocQuery, DocStream, Document, Needle, ToolResult, ToolUse, folded_size_limit,
};
pub use hash::{WordHash, WordHashBuilder};
pub use history::{BodySource, Contains, History, HistoryError};
pub use last_time::last_line_time;
pub use left_out::{
    LeaveOut, LeftOut, LineAt, blank, line_fingerprint, placeholder, texts_hold, texts_len,
};
pub use line_error::{FileLine, LineError, LineReader, SessionFile};
pub use model::{Body, Event, Role, Seq, SessionRef, Transcript, Window};
pub use seek::partition_from;
pub use sessions::{
    PROMPT_CHARS, SESSIONS_DEFAULT, SESSIONS_MAX, Selector, SelectorError, SessionSummary,
    SessionsLimit, clip, render_sessions, sessions_limit,
};
pub use shared::SharedText;
pub use surrogates::lone_surrogates_replaced;
pub use tools::{
    Answer, DEFAULT_LIMIT, DEFAULT_ROLES, LINE_CHARS, Led, ListArgs, MAX_LIMIT, NO_VISIBLE_TEXT,
    NOTICE_LIMIT, Order, QueryError, ReadArgs,
};

#[cfg(test)]
mod tests;
