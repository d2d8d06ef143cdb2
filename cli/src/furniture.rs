//! `notesoup completions` and `notesoup man`: generated from the one clap declaration
//! (`args.rs`), so they name exactly the commands and flags `--help` does.

use std::path::Path;

use clap::CommandFactory as _;

use crate::args::Cli;
use crate::term::Out;
use crate::{CliError, EXIT_OK, Env};

/// The completion script for `shell`, on stdout.
pub(crate) fn completions(shell: clap_complete::Shell, out: &mut Out) -> u8 {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "notesoup", &mut script);
    let script = String::from_utf8_lossy(&script);
    if out.json {
        out.json_doc(
            &serde_json::json!({"ok": true, "shell": shell.to_string(), "script": script}),
        );
    } else {
        out.text(&script);
    }
    EXIT_OK
}

/// notesoup(1) on stdout; with `out_dir`, notesoup.1 and one page per command
/// (`notesoup-notes.1`, `notesoup-notes-write.1`, ...) written there.
pub(crate) fn man(out_dir: Option<&Path>, env: &Env, out: &mut Out) -> Result<u8, CliError> {
    let command = Cli::command();
    let Some(dir) = out_dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(command)
            .render(&mut page)
            .map_err(|source| CliError::Io {
                what: "render the manual page".into(),
                path: "notesoup.1".into(),
                source,
            })?;
        let page = String::from_utf8_lossy(&page);
        if out.json {
            out.json_doc(&serde_json::json!({"ok": true, "page": page}));
        } else {
            out.text(&page);
        }
        return Ok(EXIT_OK);
    };
    let dir = env.folder(Some(dir));
    let io = |source| CliError::Io {
        what: "write the manual pages into".into(),
        path: dir.clone(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    clap_mangen::generate_to(command, &dir).map_err(io)?;
    if out.json {
        out.json_doc(&serde_json::json!({"ok": true, "folder": dir.to_string_lossy()}));
    } else {
        out.line(format!("Wrote the manual pages to {}.", dir.display()));
    }
    Ok(EXIT_OK)
}
