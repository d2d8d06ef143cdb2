//! A command line clap refused (exit 2), as `--json` gives it: the same `{"ok": false,
//! "error": {…}}` document every other refusal writes on stdout, so a script reading
//! `--json` gets a document for every failure, not only for those the run itself refuses.

use std::ffi::OsString;

use crate::docs::{ErrorBody, ErrorDoc};

/// Whether `argv` asks for `--json` (a global flag, anywhere before a `--` that ends the
/// options; the program name is not looked at).
pub(crate) fn wants_json(argv: &[OsString]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|arg| *arg != "--")
        .any(|arg| arg == "--json")
}

/// The command `argv` names (`notesoup history show`): the words of `argv` that are its
/// subcommands, in turn.
fn command_named(argv: &[OsString]) -> String {
    let mut command = <crate::args::Cli as clap::CommandFactory>::command();
    let mut named = vec!["notesoup".to_owned()];
    for arg in argv.iter().skip(1).filter_map(|a| a.to_str()) {
        if arg == "--" {
            break;
        }
        let Some(sub) = command
            .get_subcommands()
            .find(|s| s.get_name() == arg || s.get_all_aliases().any(|a| a == arg))
            .cloned()
        else {
            continue;
        };
        named.push(sub.get_name().to_owned());
        command = sub;
    }
    named.join(" ")
}

/// clap's `rendered` refusal of `argv` as the error document (`code` `bad_argument`, as
/// the run's own exit-2 refusals): its first paragraph as the message (without `error: `),
/// and the command's `--help` as the fix. Ends with a newline.
pub(crate) fn error_doc(argv: &[OsString], rendered: &str) -> String {
    let mut paragraphs = rendered.split("\n\n");
    let first = paragraphs.next().unwrap_or_default();
    let message = first
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let message = message
        .strip_prefix("error: ")
        .unwrap_or(&message)
        .to_owned();
    let fix = Some(format!(
        "`{} --help` says what it takes",
        command_named(argv)
    ));
    let doc = ErrorDoc {
        ok: false,
        error: ErrorBody {
            code: "bad_argument",
            message,
            file: None,
            fix,
        },
    };
    format!("{}\n", crate::term::sorted_pretty(&doc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_asked_for_before_the_end_of_the_options_only() {
        let argv = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(wants_json(&argv(&["notesoup", "history", "--json", "x"])));
        assert!(!wants_json(&argv(&[
            "notesoup", "history", "search", "--", "--json"
        ])));
        assert!(!wants_json(&argv(&["--json", "notes"])));
    }
}
