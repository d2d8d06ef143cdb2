//! The harness-neutral model every decoder produces: events with seq addresses, roles,
//! visible text, tool calls and results, and the window each event belongs to.

use std::fmt;

use serde::{Deserialize, Serialize};

use notesoup_window::Host;

use crate::shared::SharedText;

/// An event's address: allocated by the decoder in first-occurrence append order of the
/// persisted transcript, starting at 1, and never changed when the transcript grows.
pub type Seq = u64;

/// Who or what produced an event, as the tools filter and show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A person's prompt, a slash command, or harness text sent to the model as the user.
    User,
    /// The model's own text.
    Assistant,
    /// A tool call (its result is folded into it) or a tool result whose call is unknown.
    Tool,
    /// Context the harness attached (its recorded rendering is the visible text).
    Attachment,
    /// A harness notice: compaction boundaries, command output, API errors.
    Notice,
    /// A compaction summary the harness wrote in place of older turns.
    Summary,
}

impl Role {
    /// Every role, in the order the docs list them.
    pub const ALL: [Role; 6] = [
        Role::User,
        Role::Assistant,
        Role::Tool,
        Role::Attachment,
        Role::Notice,
        Role::Summary,
    ];

    /// The role's name in requests and rendered text.
    pub fn name(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Attachment => "attachment",
            Role::Notice => "notice",
            Role::Summary => "summary",
        }
    }

    /// The role named `name`, if any.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.name() == name)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which context window of a session an event belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Window {
    /// A window with a known ordinal; 0 is the session's first window.
    Numbered(u64),
    /// A segment whose ordinal cannot be known: its ancestry stops at the missing record
    /// named here (never an invented number).
    Unknown {
        /// The harness id of the first missing ancestor.
        missing: String,
    },
}

impl Window {
    /// The ordinal, when known.
    pub fn ordinal(&self) -> Option<u64> {
        match self {
            Window::Numbered(n) => Some(*n),
            Window::Unknown { .. } => None,
        }
    }
}

impl fmt::Display for Window {
    /// The window part of a window id: `2` or `unknown:<missing>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Window::Numbered(n) => write!(f, "{n}"),
            Window::Unknown { missing } => write!(f, "unknown:{missing}"),
        }
    }
}

/// A session of one harness, e.g. `claude:6e9d…`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionRef {
    /// The harness.
    pub harness: Host,
    /// The harness's own session id.
    pub id: String,
}

impl SessionRef {
    /// The id of `window` in this session: `<harness>:<sessionId>:<ordinal>` or
    /// `<harness>:<sessionId>:unknown:<missing>`.
    pub fn window_id(&self, window: &Window) -> String {
        format!("{}:{}:{window}", self.harness, self.id)
    }
}

impl fmt::Display for SessionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.harness, self.id)
    }
}

/// What an event holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// A message, attachment or notice. `text` is only what the harness recorded as visible
    /// text (text blocks, attachment renderings); it is empty for tool-only or
    /// thinking-only envelopes, which keep their address all the same.
    Text {
        /// The visible text, possibly empty.
        text: String,
    },
    /// A tool call (role [`Role::Tool`]).
    ToolCall {
        /// The id results name it by (`tool_use_id` in Claude).
        id: String,
        /// The tool's name.
        name: String,
        /// The call's input, as compact JSON text.
        input: String,
    },
    /// A tool result (role [`Role::Tool`]); paired with its call by `id`.
    ToolResult {
        /// The id of the call it answers.
        id: String,
        /// The result's visible text.
        text: String,
        /// True when the harness marked the result as an error.
        is_error: bool,
    },
}

/// One addressable event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The event's address.
    pub seq: Seq,
    /// Who produced it.
    pub role: Role,
    /// Its window (for a preserved duplicate, the window it was first written in).
    pub window: Window,
    /// What it holds.
    pub body: Body,
    /// The harness id of the record it came from (a Claude row's `uuid`). The events of
    /// one record share it (no allocation an event).
    pub record: SharedText,
    /// The record's timestamp as the harness wrote it, if any (shared as `record` is).
    pub timestamp: Option<SharedText>,
}

/// What a decoder hands over: the selected branch of one session, ready to query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The session.
    pub session: SessionRef,
    /// The selected events, in ascending seq order (append order, not presentation order).
    pub events: Vec<Event>,
    /// Host ids of ancestors the selected branch needs but the transcript lacks, in the
    /// order they were met; each stops one edge of the selection.
    pub missing: Vec<String>,
    /// The window of the selected head.
    pub head_window: Window,
}
