//! `notesoup notes grep`: the lines of a brain's notes that hold a text, by the same
//! literal and case-folding rule as the history search ([`Needle`]).

use std::ops::Range;

use notesoup_history_core::Needle;
use notesoup_notes::{Brain, NotesError};

/// One line of a note that holds the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMatch {
    /// The note's name.
    pub name: String,
    /// The line's number in the note, from 1.
    pub line: usize,
    /// The line, without its end.
    pub text: String,
    /// Where the text is in the line: byte ranges on character boundaries.
    pub found: Vec<Range<usize>>,
}

/// Every line of every note of `brain` that holds `needle`, in name order then line order.
///
/// ```
/// use notesoup_app::notes::grep::grep;
/// use notesoup_history_core::Needle;
/// use notesoup_notes::Brain;
///
/// let root = std::env::temp_dir().join(format!("notesoup-grep-doc-{}", std::process::id()));
/// std::fs::create_dir_all(root.join("app"))?;
/// let brain = Brain::open(&root.join("store"), &root.join("app"))?;
/// brain.write("plan", "ship it\nTest it\nrest\n", None)?;
/// let needle = Needle::new("test", true).unwrap();
/// let lines = grep(&brain, &needle)?;
/// assert_eq!((lines[0].line, lines[0].text.as_str(), lines[0].found.clone()), (2, "Test it", vec![0..4]));
/// assert_eq!(lines.len(), 1);
/// # std::fs::remove_dir_all(&root)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn grep(brain: &Brain, needle: &Needle) -> Result<Vec<LineMatch>, NotesError> {
    let mut lines = Vec::new();
    for note in brain.snapshot()? {
        for (at, line) in note.text.lines().enumerate() {
            let found = needle.find_all(line);
            if !found.is_empty() {
                lines.push(LineMatch {
                    name: note.name.clone(),
                    line: at + 1,
                    text: line.to_owned(),
                    found,
                });
            }
        }
    }
    Ok(lines)
}
