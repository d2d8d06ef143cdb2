//! How a session is driven: the modes, a stream-json session's inputs, a tmux session's
//! steps and the processes of a chain. Plain data: [`crate::runner`] sets a run up from
//! them and [`crate::drive`] carries them out.

use std::time::Duration;

use serde_json::Value;

/// One message fed to a stream-json session.
#[derive(Clone, Debug)]
pub enum Input {
    /// A user message; waits for its `result` line before going on.
    Message(String),
    /// A user message sent without waiting (it is delivered into the running turn).
    Send(String),
    /// A raw stream-json input line (e.g. an interrupt `control_request`), not waited for.
    Raw(Value),
    /// Waits (at most this long) for one more `result` line than waited for so far;
    /// a result that never comes is recorded as a driver failure and the run goes on.
    AwaitResult(Duration),
    /// Waits (at most 30 s) until the service has received at least this many requests.
    AfterRequests(usize),
    /// Waits until the service got no request for this long.
    Idle(Duration),
    /// Sleeps.
    Wait(Duration),
}

/// One step of an interactive (tmux) session.
#[derive(Clone, Debug)]
pub enum Step {
    /// Types text literally.
    Type(String),
    /// Sends tmux key names (`Enter`, `Escape`, `C-c`, ...), space separated.
    Key(String),
    /// Sleeps.
    Sleep(Duration),
    /// Waits until the screen matches the regex (recorded as a failure on timeout).
    WaitFor(String, Duration),
    /// Waits until the service got no request for this long.
    Idle(Duration),
    /// Waits (at most 30 s) until the service has received at least this many requests.
    AfterRequests(usize),
    /// Saves the screen under this name.
    Capture(String),
    /// Saves a file of the run's copy of the plugin again (a path under it, one line break
    /// added): the engine hot-reloads a `--plugin-dir` module in a terminal session.
    Touch(String),
}

/// How the session is driven.
#[derive(Clone, Debug)]
pub enum Mode {
    /// `claude -p PROMPT`.
    Print(String),
    /// `claude -p FIRST`, then `claude -p NEXT --continue` for each later prompt (same
    /// session, so a command can run while the session is idle with context behind it).
    PrintContinued(Vec<String>),
    /// `claude -p --input-format stream-json --output-format stream-json --verbose`.
    StreamJson(Vec<Input>),
    /// The interactive TUI in a tmux pane.
    Tmux(Vec<Step>),
    /// Several processes one after another in the same HOME and cwd, each in a session
    /// of its own choosing (new, `--resume`, `--resume --fork-session`): what people do
    /// across `claude -p` calls. Outputs are appended in order; the last exit counts.
    Processes(Vec<Process>),
}

/// Which session one process of a [`Mode::Processes`] chain runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// A new session.
    New,
    /// `--resume <id>` of the session that process `i` (0-based, earlier) ran in.
    Of(usize),
    /// `--resume <id> --fork-session`: a new session copied from process `i`'s.
    ForkOf(usize),
}

/// One process of a [`Mode::Processes`] chain.
#[derive(Clone, Debug)]
pub struct Process {
    /// The session it runs in.
    pub session: Resume,
    /// How it is driven: [`Mode::Print`], [`Mode::StreamJson`] or [`Mode::Tmux`].
    pub mode: Mode,
}

impl Process {
    /// `claude -p PROMPT` in a new session.
    pub fn new(prompt: &str) -> Self {
        Self {
            session: Resume::New,
            mode: Mode::Print(prompt.to_owned()),
        }
    }

    /// `claude -p PROMPT --resume <id>` of process `of`'s session.
    pub fn resume(prompt: &str, of: usize) -> Self {
        Self {
            session: Resume::Of(of),
            mode: Mode::Print(prompt.to_owned()),
        }
    }

    /// `claude -p PROMPT --resume <id> --fork-session` of process `of`'s session.
    pub fn fork(prompt: &str, of: usize) -> Self {
        Self {
            session: Resume::ForkOf(of),
            mode: Mode::Print(prompt.to_owned()),
        }
    }

    /// The same process driven another way (stream-json or tmux).
    #[must_use]
    pub fn driven(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
}

impl Mode {
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Self::Print(_) | Self::PrintContinued(_) => "print",
            Self::StreamJson(_) => "stream-json",
            Self::Tmux(_) => "tmux",
            Self::Processes(_) => "processes",
        }
    }
}
