//! `notesoup notes grep TEXT`: the lines of the brain's notes that hold a text.

use notesoup_history_core::Needle;
use notesoup_notes::Brain;

use crate::docs::{GrepDoc, GrepRow};
use crate::term::{Out, Paint};
use crate::{CliError, EXIT_FAILED, EXIT_OK};

/// Prints `name:line: text` for each matching line; exit 1 when none matched.
pub(super) fn grep(
    brain: &Brain,
    text: &str,
    ignore_case: bool,
    out: &mut Out,
) -> Result<u8, CliError> {
    // Lines are matched one by one, so a text over two lines matches none: a text no run
    // could take, as an empty one (rg refuses it too).
    if text.contains(['\n', '\r']) {
        return Err(CliError::BadArgument {
            what: "the text to find holds a line break, and notes grep matches within one line"
                .into(),
            fix: "give one line's text: `notesoup notes grep deploy` (`notesoup notes show NAME` shows a whole note)"
                .into(),
        });
    }
    let Some(needle) = Needle::new(text, ignore_case) else {
        return Err(CliError::BadArgument {
            what: "the text to find is empty".into(),
            fix: "give some text: `notesoup notes grep deploy` (`notesoup notes` lists every note)"
                .into(),
        });
    };
    let lines =
        notesoup_app::notes::grep::grep(brain, &needle).map_err(|e| super::refusal(brain, e))?;
    if out.json {
        out.json_doc(&GrepDoc {
            ok: true,
            text,
            ignore_case,
            matches: lines
                .iter()
                .map(|l| GrepRow {
                    name: &l.name,
                    line: l.line,
                    text: &l.text,
                })
                .collect(),
        });
    } else {
        for l in &lines {
            let shown = crate::clean::escaped(&l.text);
            let place = out.paint(Paint::Strong, &format!("{}:{}:", l.name, l.line));
            out.line(format!("{place} {}", out.painted(&shown, &needle)));
        }
    }
    if lines.is_empty() {
        if !out.json {
            out.hint(format!(
                "No line of {}'s notes holds {text:?}{}.",
                brain.domain().display(),
                if ignore_case { " (case ignored)" } else { "" }
            ));
        }
        return Ok(EXIT_FAILED);
    }
    Ok(EXIT_OK)
}
