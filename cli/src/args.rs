//! The command line, declared once with clap's derive API: every subcommand, its options,
//! and the example `--help` shows.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use notesoup_history_core::Role;
use notesoup_window::Host;

/// The exit codes, as `--help` prints them (the same table as README's "Using it").
macro_rules! exit_codes {
    () => {
        "Exit status:
  0  done (doctor: no check failed; search: something matched)
  1  refused or failed: the message says what, which file, and what to do (search: no match;
     a session, window or seq the history does not hold, or a prefix that fits several)
  2  the command line itself is wrong (unknown option, missing argument, a value no run could
     take: an empty search text, --limit 0, a --since that is not a time, a session named
     with an unknown harness or no id, or not as <harness>:<id> to history forget)
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
    version = crate::VERSION_TEXT,
    // Not the package's description, which names the command first: the manual's NAME
    // line does (`notesoup - …`).
    about = "The command line for people: the brain's notes, every harness's session history, the budget points, and doctor.",
    after_help = concat!("Examples:\n  notesoup doctor\n  notesoup notes\n  notesoup notes edit plan\n  notesoup history sessions --limit 5\n  notesoup history search \"cargo test\"\n\nOutput: a pager when stdout is a terminal and the text is long (--no-pager, $PAGER), colour\non a terminal unless NO_COLOR is set or TERM=dumb (--color always or never overrides both),\n--json for scripts.\n\n", exit_codes!())
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print one JSON document instead of text (for scripts).
    #[arg(long, global = true)]
    pub json: bool,
    /// Colour: auto (on a terminal, unless `NO_COLOR` is set or `TERM=dumb`), always, never.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    pub color: Color,
    /// Never start a pager, even on a terminal.
    #[arg(long, global = true)]
    pub no_pager: bool,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// Only when stdout is a terminal, and not under `NO_COLOR` or `TERM=dumb`.
    Auto,
    /// Also into a pipe (e.g. `| less -R`), even under `NO_COLOR` or `TERM=dumb`.
    Always,
    /// Never.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The brain of a project: the notes your agent keeps (list, show, edit, write, append, rm, grep, trash, restore, brains).
    #[command(
        after_help = "Examples:\n  notesoup notes\n  notesoup notes show plan\n  notesoup notes edit plan\n  echo \"1. ship it\" | notesoup notes write plan\n  notesoup notes grep -i deploy\n  notesoup notes rm old/idea && notesoup notes restore old/idea\n  notesoup notes --project ~/src/app trash\n  notesoup notes brains"
    )]
    Notes(NotesArgs),
    /// Past sessions of Claude Code, Pi and Codex here: sessions (or list), search, show, vault, forget.
    #[command(
        after_help = "Sessions are found where each harness keeps them: Claude Code in $CLAUDE_CONFIG_DIR/projects\nor ~/.claude/projects; Pi in $PI_CODING_AGENT_SESSION_DIR, else its settings' sessionDir, else\n$PI_CODING_AGENT_DIR/sessions or ~/.pi/agent/sessions; Codex in $CODEX_HOME/sessions or\n~/.codex/sessions (and archived_sessions beside it). A session is named <harness>:<id>; a unique\nprefix of the id is enough, in either case.\n\nExamples:\n  notesoup history sessions --harness pi\n  notesoup history search \"parse error\"\n  notesoup history show claude:da56055c --window 2"
    )]
    History(HistoryArgs),
    /// Where notesoup warns and clears for this machine's Claude or Pi settings.
    #[command(
        after_help = "Examples:\n  notesoup limits\n  notesoup limits --window 1m --model claude-opus-4-7\n  notesoup limits --cap 100k --json\n  notesoup limits --harness pi"
    )]
    Limits(LimitsArgs),
    /// Check the set-up: Claude Code, the plugin, the helper, the notes home, session folders, settings.
    #[command(
        after_help = "Each check prints one line, ok / skip / warn / fail, and for a warning or a failure the fix\n(with the real paths: this checkout's scripts when notesoup was built in one). skip is neither\ngood nor bad: not used here, or not checked because a check above failed.\n  claude    Claude Code found ($CLAUDE, `claude` on PATH, where Claude Code installs itself:\n            ~/.claude/local/claude or ~/.local/bin/claude, or the copy scripts/install fetched), and\n            whether its version is the one notesoup is tested with (skip with no ~/.claude either)\n  plugin    the notesoup plugin installed and enabled (or named by CLAUDE_CODE_PLUGIN_DIRS)\n  helper    the plugin's staged notesoup-helper runs and is this notesoup's version\n  notes     the notes home (NOTESOUP_HOME, XDG_DATA_HOME, HOME) is a folder you can write\n  sessions  one line per harness (Claude Code, Pi, Codex): sessions found, and each folder looked in\n            (found / missing); none found is skip (a harness you do not use)\n  pi        with Pi here ($PI, `pi` on PATH, or Pi's folder ~/.pi/agent), the notesoup extension\n            where Pi loads it (scripts/install's link, Pi's npm folder after `pi install\n            npm:@notesoup/pi`, or this folder's .pi/npm after `pi install -l`, loaded only once Pi\n            trusts the project: until then warn, with how to trust it), once: two copies fail,\n            as Pi does not start with both\n  pi-helper the helper that extension runs is there and is this notesoup's version\n  codex     with Codex here ($CODEX or `codex` on PATH), its MCP server notesoup and whether its\n            command is found\n  vault     the history vault can be written, its size, and Claude sessions near Claude's\n            cleanupPeriodDays it does not hold yet (NOTESOUP_VAULT=off: skip)\n  settings  Claude's settings files parse and their notesoup margins (resetMarginTokens,\n            warningRunwayTokens) are whole numbers of tokens that leave room; with Pi here, Pi's too\n  disabled  NOTESOUP_DISABLED set or not (environment or a settings env block)\n  compact   DISABLE_COMPACT / auto-compaction off (no warnings, no resets)\nThe last line counts them. The exit status is 1 when a check fails (warnings alone exit 0);\n--json gives the counts and every check with its status, message, fix and detail.\n\nExample:\n  notesoup doctor"
    )]
    Doctor,
    /// Serve notesoup's tools over MCP on stdin/stdout (for MCP clients such as Codex).
    #[command(
        after_help = "Example (an MCP client's configuration):\n  command = \"notesoup\", args = [\"mcp\"]"
    )]
    Mcp(McpArgs),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    #[command(
        after_help = "scripts/install puts them where each shell looks. By hand:\n  notesoup completions bash > ~/.local/share/bash-completion/completions/notesoup\n  notesoup completions zsh > ~/.local/share/zsh/site-functions/_notesoup   # a folder on $fpath\n  notesoup completions fish > ~/.config/fish/completions/notesoup.fish\n\nExample:\n  source <(notesoup completions bash)"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page notesoup(1), or write one page per command into a folder.
    #[command(
        after_help = "scripts/install writes them to ~/.local/share/man/man1 (`man notesoup`, `man notesoup-notes`).\n\nExamples:\n  notesoup man | man -l -\n  notesoup man --out-dir ~/.local/share/man/man1"
    )]
    Man {
        /// Write `notesoup.1` and `notesoup-<command>.1` for every command into this folder.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
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
    #[command(
        after_help = "On a terminal, control characters are shown as ^[ and the like, never obeyed; into a pipe\nor a file the text is written exactly as it is.\n\nExample:\n  notesoup notes show plan > plan.md"
    )]
    Show {
        /// The note's name, e.g. `plan` or `project/build`.
        name: String,
    },
    /// Open a note in $VISUAL or $EDITOR and write it back, refusing if the agent changed it meanwhile.
    #[command(
        after_help = "The editor is $VISUAL, else $EDITOR, else vi on PATH, else nano (as git falls back).\nA note that does not exist yet starts empty (left empty, nothing is created,\nand the closest note's name is given: a typo). If the note changed while you were editing,\nnothing is written, your text is kept in a file (the message says where) and the exit status is 3.\nA saved edit keeps the text it replaced in the trash: `notesoup notes restore NAME --force`.\n\nExample:\n  EDITOR=nano notesoup notes edit plan"
    )]
    Edit {
        /// The note's name.
        name: String,
    },
    /// Write a whole note from stdin or a file (created, or replaced).
    #[command(
        after_help = "The text comes from stdin, or from --file (`-` is stdin). A note of that name is replaced,\nas the agent's own write replaces it; `notesoup notes append` adds to it instead.\n\nExamples:\n  echo \"1. ship it\" | notesoup notes write plan\n  notesoup notes write project/build --file build-notes.md"
    )]
    Write {
        /// The note's name, e.g. `plan` or `project/build`.
        name: String,
        /// Read the text from this file instead of stdin.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
    },
    /// Add text at the end of a note (created if missing), from stdin or a file.
    #[command(
        after_help = "The text is added exactly as given (end it with a newline to keep lines apart).\n\nExamples:\n  echo \"- flaky: tests/net.rs\" | notesoup notes append todo\n  notesoup notes append log --file today.md"
    )]
    Append {
        /// The note's name.
        name: String,
        /// Read the text from this file instead of stdin.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
    },
    /// Move notes to the brain's trash (restore brings each back).
    #[command(
        after_help = "Each name is moved in turn; a name that is not a note is reported (with the closest names)\nand the others are still moved. Exit status 1 if any was not.\n\nExamples:\n  notesoup notes rm old/idea\n  notesoup notes rm draft-1 draft-2 draft-3"
    )]
    Rm {
        /// The notes' names.
        #[arg(required = true, value_name = "NAME")]
        names: Vec<String>,
    },
    /// The lines of the brain's notes that hold a text (literal), as `name:line: text`.
    #[command(
        after_help = "Exit status: 0 when something matched, 1 when nothing did (as grep and rg).\n\nExamples:\n  notesoup notes grep deploy\n  notesoup notes grep -i todo --json"
    )]
    Grep {
        /// The text to find (literal; case-sensitive unless -i).
        text: String,
        /// Ignore case (Unicode simple case folding).
        #[arg(short = 'i', long)]
        ignore_case: bool,
    },
    /// Every brain on this machine: its project folder, notes, size and last change.
    #[command(
        after_help = "A brain belongs to the git repository a folder is in (else to the folder itself), by its\npath: a project moved, renamed or cloned elsewhere starts a new brain, and its old one is\nlisted here. `notesoup notes --project DIR` opens the brain of DIR.\n\nExamples:\n  notesoup notes brains\n  notesoup notes brains --json"
    )]
    Brains,
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
    /// The harness.
    pub(crate) fn host(self) -> Host {
        match self {
            Self::Claude => Host::Claude,
            Self::Pi => Host::Pi,
            Self::Codex => Host::Codex,
        }
    }
}

/// `notesoup history <command>`
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Recent sessions of every harness, newest first.
    #[command(
        visible_alias = "list",
        after_help = "--project, --since and --until keep the sessions they name, as they do for `history search`.\n\nExamples:\n  notesoup history sessions --harness codex --limit 5\n  notesoup history sessions --project . --since 7d"
    )]
    Sessions {
        /// Only this harness.
        #[arg(long, value_enum)]
        harness: Option<HarnessArg>,
        #[command(flatten)]
        filter: SessionFilterArgs,
        /// How many sessions, newest first (at least 1).
        #[arg(long, default_value_t = 20, value_parser = at_least_one)]
        limit: usize,
    },
    /// Search every session of every harness on this machine (or one session) for literal text.
    #[command(
        after_help = "Every session of every harness is searched unless you narrow it (--harness, --project,\n--since, --until, --sessions); each session shows its newest matches (--limit).\n\nExit status: 0 when something matched, 1 when nothing did (as grep and rg).\n\nExamples:\n  notesoup history search \"cargo test\"\n  notesoup history search -i todo --harness pi --since 2026-11-01\n  notesoup history search panic --project ~/src/app\n  notesoup history search -l panic\n  notesoup history search TODO --session claude:da56"
    )]
    Search {
        /// The text to find (literal; case-sensitive unless -i).
        query: String,
        /// Ignore case (Unicode simple case folding).
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// Only this session: `<harness>:<id>`, or a unique id (prefix) of any harness.
        #[arg(long, value_name = "SEL", conflicts_with_all = ["project", "since", "until"])]
        session: Option<String>,
        /// Only this harness's sessions.
        #[arg(long, value_enum, conflicts_with = "session")]
        harness: Option<HarnessArg>,
        #[command(flatten)]
        filter: SessionFilterArgs,
        /// Only the sessions whose files were written last, this many (default: every session).
        #[arg(long, value_name = "N", conflicts_with = "session")]
        sessions: Option<usize>,
        /// Only events of these roles (user, assistant, tool, attachment, notice, summary;
        /// default: every role but attachment).
        #[arg(long, value_delimiter = ',', value_name = "ROLES")]
        roles: Option<Vec<RoleArg>>,
        /// Matches shown per session, the newest (default 10; 40 with --session; at most 500).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// With --session: the page before this one (the footer names it).
        #[arg(long, requires = "session")]
        cursor: Option<String>,
        /// Print only the sessions with a match, one per line (as rg -l; --json's document
        /// already names each, so the two do not go together, as in rg).
        #[arg(short = 'l', long, conflicts_with_all = ["session", "count", "json"])]
        files_with_matches: bool,
        /// Print only each matching session and its number of matches, `SESSION:N` (as rg -c;
        /// not with --json, whose document has each session's count).
        #[arg(short = 'c', long, conflicts_with_all = ["session", "json"])]
        count: bool,
    },
    /// Keep a compressed copy of every session of every harness in notesoup's vault.
    #[command(
        after_help = "Claude Code deletes transcripts older than its cleanupPeriodDays (30 by default); the vault\n(<notes home>/vault, private) keeps a zstd copy of each session file, brought up to date by\neach run: a grown file adds what is new, a rewritten one is kept as a new version, and a\nfile cut shorter is named (its copy keeps what was cut).\nNOTESOUP_VAULT=off turns it off. `notesoup history forget` removes a session for good.\n\nExample:\n  notesoup history vault"
    )]
    Vault,
    /// Remove a session from the vault for good (the harness's own file is left alone).
    #[command(
        after_help = "The session is never vaulted again (a tombstone stays). What notesoup made of it under its\nhome goes too: the history index of its transcript (cache/history) and its window record\n(windows/<harness>). Its original, if the harness still has it, is not touched: the command\nnames it. --before forgets every vaulted session file last active before that day or time\n(its UPDATED in `notesoup history sessions`: the last time its transcript records, not when\nits file was copied or touched), each with what notesoup made of it.\n\nExamples:\n  notesoup history forget claude:da56055c-293e-4422-b5b8-62b1c7e6c03d\n  notesoup history forget --before 2026-01-01",
        // One of the two, named together in the usage line and its error.
        group = clap::ArgGroup::new("what").args(["session", "before"]).required(true)
    )]
    Forget {
        /// The session: `<harness>:<id>`, the whole id.
        session: Option<String>,
        /// Every vaulted session file last active before this day (from your midnight) or
        /// time (2026-01-01, 2026-01-01T09:00Z, 90d).
        #[arg(long, value_name = "WHEN")]
        before: Option<String>,
    },
    /// One session, in conversation order: its newest events, one window, or one whole event.
    #[command(
        after_help = "Examples:\n  notesoup history show pi:01a23754-8e37\n  notesoup history show claude:da56 --window 1 --roles user,assistant\n  notesoup history show claude:da56 --all > session.txt\n  notesoup history show claude:da56 --seq 51\n  notesoup history show codex:01a23756-b853 --limit 5 --cursor s10 --reverse"
    )]
    Show {
        /// The session: `<harness>:<id>`, or a unique id (prefix) of any harness.
        session: String,
        /// One whole event (a tool result shows its call and the result).
        #[arg(long, conflicts_with_all = ["window", "cursor", "limit", "all", "roles", "reverse"])]
        seq: Option<u64>,
        /// Only this window (its id or its number).
        #[arg(long, value_name = "W")]
        window: Option<String>,
        /// Only events of these roles (user, assistant, tool, attachment, notice, summary;
        /// default: every role but attachment).
        #[arg(long, value_delimiter = ',', value_name = "ROLES")]
        roles: Option<Vec<RoleArg>>,
        /// Events shown, the newest (default 40; at most 500, --all for every one).
        #[arg(long, conflicts_with = "all")]
        limit: Option<usize>,
        /// Every event of the session (no page).
        #[arg(long)]
        all: bool,
        /// The page before this one (the footer names it).
        #[arg(long, conflicts_with = "all")]
        cursor: Option<String>,
        /// Newest first.
        #[arg(long)]
        reverse: bool,
    },
}

/// The folder and time filters `history sessions` and `history search` share.
#[derive(Debug, Clone, Args)]
pub struct SessionFilterArgs {
    /// Only sessions that ran in this folder or below it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Only sessions active on or after this day or moment: a day from your midnight
    /// (2026-11-01), a time on your clock (2026-11-01T09:00) or with its zone
    /// (2026-11-01T09:00Z), or a time ago (3d, 12h, 2w).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only sessions started on or before this day or moment (a day counts whole, to your
    /// midnight).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
}

/// A role of a history event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// A person's prompt (or harness text sent as the user).
    User,
    /// The model's text.
    Assistant,
    /// A tool call with its result.
    Tool,
    /// Context the harness attached.
    Attachment,
    /// A harness notice (compactions, command output, errors).
    Notice,
    /// A compaction summary.
    Summary,
}

impl RoleArg {
    /// The history's role.
    pub(crate) fn role(self) -> Role {
        match self {
            Self::User => Role::User,
            Self::Assistant => Role::Assistant,
            Self::Tool => Role::Tool,
            Self::Attachment => Role::Attachment,
            Self::Notice => Role::Notice,
            Self::Summary => Role::Summary,
        }
    }
}

/// The harness whose settings `notesoup limits` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LimitsHarness {
    /// Claude Code: its settings files and environment.
    Claude,
    /// Pi: ~/.pi/agent/settings.json and the project's .pi/settings.json.
    Pi,
}

/// `notesoup limits ...`
#[derive(Debug, Args)]
pub struct LimitsArgs {
    /// Whose settings: claude (default) or pi.
    #[arg(long, value_enum, default_value = "claude", value_name = "HARNESS")]
    pub harness: LimitsHarness,
    /// The model (Claude: for its `modelSettings` entry, e.g. claude-sonnet-4-6; Pi: provider/id
    /// for `compaction.modelOverrides`, e.g. anthropic/claude-sonnet-4-5).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// A runtime cap, as `/notesoup cap` takes it: 100k, 1.5m, 250000.
    #[arg(long)]
    pub cap: Option<String>,
    /// The model's context window (200k, 1m); without it the points are percent of a 200K
    /// window (Pi: a 200K window).
    #[arg(long, value_name = "TOKENS")]
    pub window: Option<String>,
    /// The project whose `.claude/settings*.json` (or `.pi/settings.json`) apply; default: the
    /// current folder.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// `notesoup mcp ...`
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The project whose brain the tools use (a client's roots do not change it); default:
    /// the client's first folder root, else the current folder.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// A count of at least one (`history sessions --limit`).
fn at_least_one(given: &str) -> Result<usize, String> {
    match given.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("give a whole number of sessions, 1 or more".to_owned()),
    }
}
