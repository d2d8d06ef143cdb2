//! `notesoup mcp`: checks the folder whose brain the tools use (a bad one is a bad command
//! line, refused before serving), says on stderr in one line what it serves (version, the
//! brain's project and folder, its note count; typed on a terminal, what it waits for),
//! then serves MCP on stdin and stdout (crate `notesoup-mcp`). MCP clients show a server's stderr in their logs; stdout carries
//! the protocol only.

use std::io::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use notesoup_app::AppError;
use notesoup_app::notes::{BrainSummary, summary};

use crate::args::McpArgs;
use crate::{BUILD_TEXT, CliError, EXIT_OK, Env};

/// Runs `notesoup mcp` until the client closes stdin.
pub(crate) fn run(args: &McpArgs, env: &Env) -> Result<u8, CliError> {
    let cwd = env.folder(args.project.as_deref());
    let ctx = env.helper_context();
    let brain = summary(&ctx, &cwd.to_string_lossy())
        .map_err(|err| refused(err, args.project.is_some(), &cwd))?;
    let mut stderr = std::io::stderr().lock();
    // A closed stderr does not stop the server.
    let _ = writeln!(stderr, "{}", banner(&brain));
    if env.stdin_terminal() {
        // Typed by a person: say what it waits for, not a silent hang.
        let _ = writeln!(stderr, "{WAITING}");
    }
    drop(stderr);
    // The start line named the brain of the folder it started in; a client's root that
    // picks another brain says so in the same words, or the log points at the wrong notes
    // (a root whose folder picks the same brain says nothing).
    let picked = env.helper_context();
    let shown = Mutex::new(brain.dir.clone());
    let on_root = notesoup_mcp::RootPicked(Arc::new(move |folder: &Path| {
        let Ok(brain) = summary(&picked, &folder.to_string_lossy()) else {
            return;
        };
        let mut shown = shown.lock().unwrap_or_else(PoisonError::into_inner);
        if *shown != brain.dir {
            let _ = writeln!(std::io::stderr(), "{}", root_line(&brain));
            shown.clone_from(&brain.dir);
        }
    }));
    notesoup_mcp::serve(notesoup_mcp::Options {
        ctx,
        cwd,
        // A folder the person named is the brain's: no client's roots move it.
        follow_roots: args.project.is_none(),
        on_root: Some(on_root),
    })?;
    Ok(EXIT_OK)
}

/// What `notesoup mcp` says when stdin is a terminal (a person typed it).
const WAITING: &str = "It waits for an MCP client's JSON-RPC on stdin: a client such as Codex starts `notesoup mcp` itself (`notesoup mcp --help` shows how to set one up). Ctrl-D ends it.";

/// The start line: `notesoup mcp <version>: the brain of <project> (<n> notes, in <dir>)`.
pub(crate) fn banner(brain: &BrainSummary) -> String {
    format!(
        "notesoup mcp {BUILD_TEXT}: the brain of {} ({}, in {})",
        brain.project.display(),
        notes_count(brain.notes),
        brain.dir.display()
    )
}

/// The line when a client's root picks the brain: `notesoup mcp: the client's root picks
/// the brain of <project> (<n> notes, in <dir>)`.
pub(crate) fn root_line(brain: &BrainSummary) -> String {
    format!(
        "notesoup mcp: the client's root picks the brain of {} ({}, in {})",
        brain.project.display(),
        notes_count(brain.notes),
        brain.dir.display()
    )
}

fn notes_count(n: usize) -> String {
    match n {
        1 => "1 note".to_owned(),
        n => format!("{n} notes"),
    }
}

/// A folder that cannot pick a brain is a bad command line (exit 2), in the flag's words;
/// any other refusal is the library's.
fn refused(err: AppError, flag: bool, cwd: &Path) -> CliError {
    let AppError::Notes(notesoup_notes::NotesError::BadCwd { reason, .. }) = &err else {
        return err.into();
    };
    // In the person's words: the store's reason is the system's (`os error 2`).
    let reason = crate::folder::not_a_folder(cwd).unwrap_or(reason.as_str());
    let (what, fix) = if flag {
        (
            format!("--project {}: {reason}", cwd.display()),
            "give --project the folder of an existing project, or leave it out to use the folder the MCP client starts notesoup in",
        )
    } else {
        (
            format!("the current folder {}: {reason}", cwd.display()),
            "start `notesoup mcp` in an existing folder, or give it one with --project DIR",
        )
    };
    CliError::BadArgument {
        what,
        fix: fix.to_owned(),
    }
}
