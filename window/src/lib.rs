//! The names every notesoup crate shares: which coding agent ([`Host`]), which context
//! window of which session ([`WindowId`]), how a boot block is marked in a conversation
//! ([`marker`]), what a transcript says about the window a session is in ([`WindowFacts`]),
//! the one way a moment is written for people ([`format_utc`]) and scripts
//! ([`format_rfc3339`]), and read ([`parse_moment`]), and the one way a count is written
//! for people ([`thousands`]).
//!
//! Each is defined here once and nowhere else: the boot writes the marker line, the
//! decoders and the reset flow read it back, the window store names its records by host,
//! the history tools name sessions by host. Pure: no IO.
//!
//! # Invariants
//!
//! - A window id that parses names a host of lowercase letters and digits, a session id
//!   that can sit in a marker line as it is, and an ordinal of at most [`ORDINAL_MAX`].
//! - A text names a window only through a complete boot block: a marker line at a line
//!   start, and a closing line after it.
//! - Every scan of a text is linear in its length.
//!
//! # Example
//! ```
//! use notesoup_window::{Host, WindowId, marker};
//!
//! let host: Host = "claude".parse()?;
//! let w = WindowId::new(host.name(), "6e9d0c1a", 2)?;
//! assert_eq!(w.marker_line(), "<notesoup-boot window=\"claude:6e9d0c1a:2\">");
//! let kept = format!("{}\nnotes\n{}\nhandoff", w.marker_line(), marker::CLOSE);
//! assert_eq!(marker::retained_window(&kept), Some(w));
//! assert!(Host::harness("mcp").is_err()); // mcp is a host, not a harness with sessions
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod count;
mod facts;
mod host;
mod id;
pub mod marker;
mod time;

pub use count::thousands;
pub use facts::WindowFacts;
pub use host::{Host, UnknownHost};
pub use id::{ORDINAL_MAX, WindowId, WindowIdError};
pub use time::{format_rfc3339, format_utc, parse_moment};
