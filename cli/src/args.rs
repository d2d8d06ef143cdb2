//! The command line, declared once with clap's derive API: every subcommand, its options,
//! and the example `--help` shows.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use notesoup_window::Host;

/// The exit codes, as `--help` prints them (the same table as README's "Using it").
macro_rules! exit_codes {
    () => {
        "Exit status:
  0  done (doctor: no check failed)
  1  refused or failed: the message says what, which file, and what to do
  2  the command line itself is wrong (unknown option, missing argument)
  3  a note changed under you (edit) or a newer note blocks restore (--force): nothing was lost"
    };
}

/// The exit codes, as `--help` prints them.
pub(crate) const EXIT_CODES: &str = exit_codes!();

/// notesoup: look at and fix the brain your coding agent keeps, read its past sessions
/// (Claude Code, Pi, Codex), see its budget points, and check the set-up.
#[derive(Debug, Parser)]
#[command(
    name = "notesoup",
    version,
    about,
    after_help = concat!("Examples:\n  notesoup doctor\n  notesoup notes\n  notesoup notes edit plan\n  notesoup history sessions --limit 5\n  notesoup history search \"cargo test\"\n\nOutput: a pager when stdout is a terminal and the text is long (--no-pager, $PAGER), colour\nonly on a terminal and never when NO_COLOR is set, --json for scripts.\n\n", exit_codes!())
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print one JSON document instead of text (for scripts).
    #[arg(long, global = true)]
    pub json: bool,
    /// Colour: auto (only on a terminal), always, never. `NO_COLOR` always wins.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    pub color: Color,
    /// Never start a pager, even on a terminal.
    #[arg(long, global = true)]
    pub no_pager: bool,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// Only when stdout is a terminal.
    Auto,
    /// Also into a pipe (e.g. `| less -R`).
    Always,
    /// Never.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The brain of a project: the notes your agent keeps (list, show, edit, rm, trash, restore).
    #[command(
        after_help = "Examples:\n  notesoup notes\n  notesoup notes show plan\n  notesoup notes edit plan\n  notesoup notes rm old/idea && notesoup notes restore old/idea\n  notesoup notes --project ~/src/app trash"
    )]
    Notes(NotesArgs),
    /// Past sessions of Claude Code, Pi and Codex on this machine: list, search, show.
    #[command(
        after_help = "Sessions are found where each harness keeps them: Claude Code in $CLAUDE_CONFIG_DIR/projects\nor ~/.claude/projects; Pi in $PI_CODING_AGENT_SESSION_DIR, else its settings' sessionDir, else\n$PI_CODING_AGENT_DIR/sessions or ~/.pi/agent/sessions; Codex in $CODEX_HOME/sessions or\n~/.codex/sessions (and archived_sessions beside it). A session is named <harness>:<id>; a unique\nprefix of the id is enough.\n\nExamples:\n  notesoup history sessions --harness pi\n  notesoup history search \"parse error\"\n  notesoup history show claude:da56055c --window 2"
    )]
    History(HistoryArgs),
    /// Where notesoup warns and clears for this machine's Claude settings and environment.
    #[command(
        after_help = "Examples:\n  notesoup limits\n  notesoup limits --window 1m --model claude-opus-4-7\n  notesoup limits --cap 100k --json"
    )]
    Limits(LimitsArgs),
    /// Check the set-up: Claude Code, the plugin, the helper, the notes home, session folders, settings.
    #[command(
        after_help = "Each check prints one line, ok / warn / fail, and the fix:\n  claude    Claude Code found ($CLAUDE or `claude` on PATH), its version the one notesoup targets\n  plugin    the notesoup plugin installed and enabled (or named by CLAUDE_CODE_PLUGIN_DIRS)\n  helper    the plugin's staged notesoup-helper runs and is this notesoup's version\n  notes     the notes home (NOTESOUP_HOME, XDG_DATA_HOME, HOME) is a folder you can write\n  sessions  one line per harness (Claude Code, Pi, Codex): sessions found, and each folder looked in\n            (found / missing); none found is a warning, fine for a harness you do not use\n  settings  Claude's settings files parse and their notesoup margins (resetMarginTokens,\n            warningRunwayTokens) are whole numbers of tokens that leave room\n  disabled  NOTESOUP_DISABLED set or not (environment or a settings env block)\n  compact   DISABLE_COMPACT / auto-compaction off (no warnings, no resets)\nThe exit status is 1 when a check fails (warnings alone exit 0); --json gives every check with\nits status, message, fix and detail.\n\nExample:\n  notesoup doctor"
    )]
    Doctor,
    /// Serve notesoup's tools over MCP on stdin/stdout (for MCP clients such as Codex).
    #[command(
        after_help = "Example (an MCP client's configuration):\n  command = \"notesoup\", args = [\"mcp\"]"
    )]
    Mcp(McpArgs),
}

/// `notesoup notes ...`
#[derive(Debug, Args)]
pub struct NotesArgs {
    /// What to do with the notes (default: list).
    #[command(subcommand)]
    pub command: Option<NotesCommand>,
    /// The project whose brain to use (its git root, else the folder itself); default: the current folder.
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// `notesoup notes <command>`
#[derive(Debug, Subcommand)]
pub enum NotesCommand {
    /// Every note: name, size, when written, first line.
    #[command(after_help = "Example:\n  notesoup notes list project/")]
    List {
        /// Only notes under this folder.
        folder: Option<String>,
    },
    /// One note's whole text.
    #[command(after_help = "Example:\n  notesoup notes show plan")]
    Show {
        /// The note's name, e.g. `plan` or `project/build`.
        name: String,
    },
    /// Open a note in $VISUAL or $EDITOR and write it back, refusing if the agent changed it meanwhile.
    #[command(
        after_help = "A note that does not exist yet starts empty. If the note changed while you were editing,\nnothing is written, your text is kept in a file (the message says where) and the exit status is 3.\n\nExample:\n  EDITOR=nano notesoup notes edit plan"
    )]
    Edit {
        /// The note's name.
        name: String,
    },
    /// Move a note to the brain's trash (restore brings it back).
    #[command(after_help = "Example:\n  notesoup notes rm old/idea")]
    Rm {
        /// The note's name.
        name: String,
    },
    /// The deleted notes the trash keeps (newest first).
    #[command(after_help = "Example:\n  notesoup notes trash")]
    Trash,
    /// Bring the newest deleted copy of a note back from the trash.
    #[command(
        after_help = "Refuses when a note of that name exists (it is newer than the deleted one): nothing changes\nand the exit status is 3. With --force the current note goes to the trash first, so nothing is lost.\n`notesoup notes trash` lists what can be restored.\n\nExamples:\n  notesoup notes restore plan\n  notesoup notes restore plan --force"
    )]
    Restore {
        /// The note's name.
        name: String,
        /// Replace an existing note (it is moved to the trash first).
        #[arg(long)]
        force: bool,
    },
}

/// `notesoup history ...`
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: HistoryCommand,
}

/// A harness notesoup reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HarnessArg {
    /// Claude Code.
    Claude,
    /// The Pi coding agent.
    Pi,
    /// The Codex CLI.
    Codex,
}

impl HarnessArg {
    /// The selector prefix (`claude`, `pi`, `codex`).
    pub(crate) fn name(self) -> &'static str {
        let harness = match self {
            Self::Claude => Host::Claude,
            Self::Pi => Host::Pi,
            Self::Codex => Host::Codex,
        };
        harness.name()
    }
}

/// `notesoup history <command>`
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Recent sessions of every harness, newest first.
    #[command(after_help = "Example:\n  notesoup history sessions --harness codex --limit 5")]
    Sessions {
        /// Only this harness.
        #[arg(long, value_enum)]
        harness: Option<HarnessArg>,
        /// How many sessions (1 to 200).
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Literal, case-sensitive search in one session, or in the recent sessions of every harness.
    #[command(
        after_help = "Examples:\n  notesoup history search \"cargo test\"\n  notesoup history search TODO --session pi:01a23754\n  notesoup history search TODO --session claude:da56 --cursor s41"
    )]
    Search {
        /// The text to find (literal, case-sensitive).
        query: String,
        /// One session, `<harness>:<id>` (a unique id prefix is enough); default: the recent sessions.
        #[arg(long, value_name = "SEL")]
        session: Option<String>,
        /// Without --session: only this harness's sessions.
        #[arg(long, value_enum, conflicts_with = "session")]
        harness: Option<HarnessArg>,
        /// Without --session: how many recent sessions to search (1 to 200).
        #[arg(long, default_value_t = 20, conflicts_with = "session")]
        sessions: usize,
        /// Matches per page (per session without --session).
        #[arg(long)]
        limit: Option<usize>,
        /// With --session: continue from this cursor (the previous page names it).
        #[arg(long, requires = "session")]
        cursor: Option<String>,
    },
    /// One session: its newest events, one window, or whole events by seq.
    #[command(
        after_help = "Examples:\n  notesoup history show pi:01a23754-8e37\n  notesoup history show claude:da56 --window 1\n  notesoup history show claude:da56 --seq 51\n  notesoup history show codex:01a23756 --cursor s40"
    )]
    Show {
        /// The session, `<harness>:<id>` (a unique id prefix is enough).
        session: String,
        /// Whole event(s): this seq (a tool result shows its call too).
        #[arg(long, conflicts_with_all = ["window", "cursor", "limit"])]
        seq: Option<u64>,
        /// With --seq: bytes of the event already read (the previous page names it).
        #[arg(long, requires = "seq")]
        offset: Option<usize>,
        /// Only this window (its id or its number).
        #[arg(long, value_name = "W")]
        window: Option<String>,
        /// Events per page (1 to 500, default 40).
        #[arg(long)]
        limit: Option<usize>,
        /// Continue from this cursor (the previous page names it).
        #[arg(long)]
        cursor: Option<String>,
    },
}

/// `notesoup limits ...`
#[derive(Debug, Args)]
pub struct LimitsArgs {
    /// The model (for its `modelSettings` entry), e.g. claude-sonnet-4-6.
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// A runtime cap, as `/notesoup cap` takes it: 100k, 1.5m, 250000.
    #[arg(long)]
    pub cap: Option<String>,
    /// The model's context window (200k, 1m); without it the points are percent of a 200K window.
    #[arg(long, value_name = "TOKENS")]
    pub window: Option<String>,
    /// The project whose `.claude/settings*.json` apply; default: the current folder.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// `notesoup mcp ...`
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The project whose brain the tools use; default: the current folder.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}
