//! Branch selection, seq allocation and windows over parsed Pi files.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;

use serde_json::Value;

use notesoup_history_core::{
    Event, LeaveOut, LeftOut, LineReader, Seq, SessionRef, SessionSummary, SharedText, Transcript,
    Window,
};
use notesoup_window::Host;

use crate::entries::{self, Entry, Parsed};
use crate::{PiError, PiFile};

/// The session id in a Pi session file name `<time>_<sessionId>.jsonl` (a path is fine).
pub fn session_id_from_file_name(name: &str) -> Option<&str> {
    let base = base_name(name);
    let stem = base.strip_suffix(".jsonl")?;
    let (time, id) = stem.split_once('_')?;
    (!time.is_empty() && !id.is_empty()).then_some(id)
}

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Decodes the session in `selected`. `ancestors` are the files of its parent sessions,
/// nearest first, as named by each header's `parentSession` (pass none when there are
/// none or they are gone: a parent the path needs and nobody has is reported in
/// [`Transcript::missing`]). [`decode_from`] with the files' bytes as readers.
pub fn decode(selected: &PiFile<'_>, ancestors: &[PiFile<'_>]) -> Result<Transcript, PiError> {
    decode_from(
        LineReader::new(selected.name, selected.bytes),
        ancestors
            .iter()
            .map(|file| LineReader::new(file.name, file.bytes))
            .collect(),
    )
}

/// [`decode`] of files read line by line: each file is read once, one line at a time, and
/// a line is dropped once its entry is read, so a decode holds the session's text but never
/// a whole file. The readers' names are the files' (named in refusals, and checked against
/// the header's session id and `parentSession`).
///
/// ```
/// use std::io::BufReader;
/// use notesoup_history_core::LineReader;
/// use notesoup_history_pi::decode_from;
///
/// let file = concat!(
///     r#"{"type":"session","version":3,"id":"s1","timestamp":"t0","cwd":"/w"}"#, "\n",
///     r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hi"}}"#, "\n",
/// );
/// let reader = LineReader::new("s.jsonl", BufReader::new(file.as_bytes()));
/// let transcript = decode_from(reader, Vec::new())?;
/// assert_eq!(transcript.events.len(), 1);
/// # Ok::<(), notesoup_history_pi::PiError>(())
/// ```
pub fn decode_from<R: BufRead>(
    selected: LineReader<R>,
    ancestors: Vec<LineReader<R>>,
) -> Result<Transcript, PiError> {
    Ok(decode_with(selected, ancestors, None)?.0)
}

/// [`decode_from`] that leaves the bodies `leave` names in their files (file 0 is
/// `selected`, then the ancestors in order): the transcript holds their placeholders, and
/// beside it, one entry per event, where each body left out lies
/// ([`line_bodies`] reads it again).
///
/// ```
/// use notesoup_history_core::{Body, LeaveOut, LineReader};
/// use notesoup_history_pi::{decode_leaving, line_bodies};
///
/// let file = concat!(
///     r#"{"type":"session","version":3,"id":"s1","timestamp":"t0","cwd":"/w"}"#, "\n",
///     r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hi"}}"#, "\n",
///     r#"{"type":"message","id":"a2","parentId":"a1","message":{"role":"user","content":"a long question"}}"#, "\n",
/// );
/// let leave = LeaveOut { min_bytes: 10, literal: Some("long"), files: &[true] };
/// let (transcript, left) = decode_leaving(LineReader::new("s.jsonl", file.as_bytes()), Vec::new(), &leave)?;
/// assert_eq!(transcript.events[1].body, Body::Text { text: String::new() });
/// let place = left[1].as_ref().expect("left in its line");
/// assert!(left[0].is_none() && place.holds);
/// let bodies = line_bodies(&file[place.span.clone()], place.number)?;
/// assert_eq!(bodies[place.event], Body::Text { text: "a long question".into() });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_leaving<R: BufRead>(
    selected: LineReader<R>,
    ancestors: Vec<LineReader<R>>,
    leave: &LeaveOut<'_>,
) -> Result<(Transcript, Vec<Option<LeftOut>>), PiError> {
    decode_with(selected, ancestors, Some(leave))
}

/// The bodies of the events the entry on a Pi session file's line yields, decoded again
/// from the line's text (`number`: its 1-based number, named in a refusal) exactly as a
/// decode of the file made them: what reads a body [`decode_leaving`] left in its line.
pub fn line_bodies(text: &str, number: usize) -> Result<Vec<notesoup_history_core::Body>, String> {
    entries::line_bodies(text, number)
}

fn decode_with<R: BufRead>(
    selected: LineReader<R>,
    ancestors: Vec<LineReader<R>>,
    leave: Option<&LeaveOut<'_>>,
) -> Result<(Transcript, Vec<Option<LeftOut>>), PiError> {
    let name = selected.name().to_owned();
    let mut files = load(selected, ancestors, leave)?;
    let (path, missing) = branch(&name, &files)?;
    let first_seq = allocate(&files, &path);
    let session = SessionRef {
        harness: Host::Pi,
        id: files[0].header.id.clone(),
    };
    let mut window = match missing.first() {
        Some(id) => Window::Unknown {
            missing: id.clone(),
        },
        None => Window::Numbered(0),
    };
    let mut events: Vec<(Event, Option<LeftOut>)> = Vec::new();
    // Each entry is on the path at most once (`branch` refuses a cycle), so its events
    // move into the transcript.
    for &at in &path {
        let entry = &mut files[at.0].entries[at.1];
        if entry.compaction
            && let Window::Numbered(n) = window
        {
            window = Window::Numbered(n + 1);
        }
        if let Some(ordinal) = entry.boot {
            window = Window::Numbered(ordinal);
        }
        if let Some(&seq) = first_seq.get(&at) {
            let mut left = std::mem::take(&mut entry.left).into_iter();
            // The entry's events share its id and timestamp.
            let (record, timestamp) = SharedText::pair(&entry.id, entry.timestamp.as_deref());
            for (offset, (role, body)) in (0..).zip(std::mem::take(&mut entry.events)) {
                let event = Event {
                    seq: seq + offset,
                    role,
                    window: window.clone(),
                    body,
                    record: record.clone(),
                    timestamp: timestamp.clone(),
                };
                events.push((event, left.next().flatten()));
            }
        }
    }
    events.sort_by_key(|(event, _)| event.seq);
    let (events, left) = events.into_iter().unzip();
    let transcript = Transcript {
        session,
        events,
        missing,
        head_window: window,
    };
    Ok((transcript, left))
}

/// Parses the selected file and its ancestors, checking that each ancestor is the parent
/// the previous file's header names.
fn load<R: BufRead>(
    mut selected: LineReader<R>,
    ancestors: Vec<LineReader<R>>,
    leave: Option<&LeaveOut<'_>>,
) -> Result<Vec<Parsed>, PiError> {
    let own = entries::parse(&mut selected, 0, leave)?;
    check_name(selected.name(), &own)?;
    let mut files: Vec<Parsed> = vec![own];
    let mut expected = files[0].header.parent_session.clone();
    let mut child = selected.name().to_owned();
    for (file, mut ancestor) in (1..).zip(ancestors) {
        let fits = expected
            .as_deref()
            .is_some_and(|path| base_name(path) == base_name(ancestor.name()));
        if !fits {
            return Err(PiError::ParentMismatch {
                file: ancestor.name().to_owned(),
                child,
                expected: expected.map_or_else(|| "no parent".to_owned(), |p| format!("`{p}`")),
            });
        }
        let parsed = entries::parse(&mut ancestor, file, leave)?;
        check_name(ancestor.name(), &parsed)?;
        expected.clone_from(&parsed.header.parent_session);
        ancestor.name().clone_into(&mut child);
        files.push(parsed);
    }
    Ok(files)
}

/// The path from the leaf (the selected file's last entry) up to a root or a missing
/// parent, returned root first, with the missing parent if any. Parents are looked up in
/// the selected file first, then in the nearest ancestor that has them.
fn branch(selected: &str, files: &[Parsed]) -> Result<(Vec<At>, Vec<String>), PiError> {
    let mut where_is: HashMap<&str, (usize, usize)> = HashMap::new();
    for (f, parsed) in files.iter().enumerate().rev() {
        for (i, entry) in parsed.entries.iter().enumerate() {
            where_is.insert(entry.id.as_str(), (f, i));
        }
    }
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut visited: HashSet<(usize, usize)> = HashSet::new();
    if let Some(last) = files[0].entries.len().checked_sub(1) {
        let mut at = (0, last);
        loop {
            if !visited.insert(at) {
                return Err(PiError::Cycle {
                    file: selected.to_owned(),
                    id: entry_at(files, at).id.clone(),
                });
            }
            path.push(at);
            let Some(parent) = &entry_at(files, at).parent else {
                break;
            };
            if let Some(&next) = where_is.get(parent.as_str()) {
                at = next;
            } else {
                missing.push(parent.clone());
                break;
            }
        }
    }
    path.reverse();
    Ok((path, missing))
}

/// First seq of each entry that yields events: entries borrowed from ancestors (root-most
/// file first, in their append order), then every entry of the selected file in append
/// order, on the branch or not.
fn allocate(files: &[Parsed], path: &[(usize, usize)]) -> HashMap<(usize, usize), Seq> {
    let mut first_seq: HashMap<(usize, usize), Seq> = HashMap::new();
    let mut next: Seq = 1;
    let mut borrowed: Vec<(usize, usize)> = path.iter().copied().filter(|&(f, _)| f > 0).collect();
    borrowed.sort_by_key(|&(f, i)| (std::cmp::Reverse(f), i));
    let own_all = (0..files[0].entries.len()).map(|i| (0, i));
    for at in borrowed.into_iter().chain(own_all) {
        let count = entry_at(files, at).events.len() as Seq;
        if count > 0 {
            first_seq.insert(at, next);
            next += count;
        }
    }
    first_seq
}

/// Where an entry is: (file index, 0 for the selected file; entry index).
type At = (usize, usize);

fn entry_at(files: &[Parsed], (f, i): (usize, usize)) -> &Entry {
    &files[f].entries[i]
}

fn check_name(file: &str, parsed: &Parsed) -> Result<(), PiError> {
    match session_id_from_file_name(file) {
        Some(name) if name != parsed.header.id => Err(PiError::SessionMismatch {
            file: file.to_owned(),
            header: parsed.header.id.clone(),
            name: name.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// The `parentSession` a session file's header names (the file this session was forked
/// from, as Pi wrote it: a path), if any. Only the header line is read; a file without a
/// valid header is refused as [`decode`] refuses it.
///
/// ```
/// use notesoup_history_pi::{PiFile, parent_session};
///
/// let header = r#"{"type":"session","version":3,"id":"s2","parentSession":"/p/2026_s1.jsonl"}"#;
/// let file = PiFile { name: "s2.jsonl", bytes: header.as_bytes() };
/// assert_eq!(parent_session(&file)?.as_deref(), Some("/p/2026_s1.jsonl"));
/// assert!(parent_session(&PiFile { name: "x.jsonl", bytes: b"[1]\n" }).is_err());
/// # Ok::<(), notesoup_history_pi::PiError>(())
/// ```
pub fn parent_session(file: &PiFile<'_>) -> Result<Option<String>, PiError> {
    let first = entries::lines(file).next().transpose()?;
    match first {
        Some((line, Value::Object(mut object))) => {
            Ok(entries::header_of(file.name, line, &mut object)?.parent_session)
        }
        Some((line, _)) => Err(PiError::Header {
            file: file.name.to_owned(),
            reason: format!("line {line}: the first line is not a JSON object"),
        }),
        None => Err(PiError::Header {
            file: file.name.to_owned(),
            reason: "the file has no header line".into(),
        }),
    }
}

/// The listing line of a session from the start of its file (the first few KiB are
/// enough): id, start, cwd, parent and the first user prompt. Only the header must be
/// valid; lines after it that cannot be read are passed over.
pub fn summary(file: &PiFile<'_>) -> Result<SessionSummary, PiError> {
    let mut out: Option<SessionSummary> = None;
    for item in entries::lines(file) {
        let (line, value) = item?;
        let Value::Object(mut object) = value else {
            if out.is_none() {
                return Err(PiError::Header {
                    file: file.name.to_owned(),
                    reason: format!("line {line}: the first line is not a JSON object"),
                });
            }
            continue;
        };
        let Some(summary) = out.as_mut() else {
            let header = entries::header_of(file.name, line, &mut object)?;
            if let Some(name) = session_id_from_file_name(file.name)
                && name != header.id
            {
                return Err(PiError::SessionMismatch {
                    file: file.name.to_owned(),
                    header: header.id,
                    name: name.to_owned(),
                });
            }
            out = Some(SessionSummary {
                harness: Host::Pi,
                parent: header
                    .parent_session
                    .as_deref()
                    .and_then(session_id_from_file_name)
                    .map(|id| format!("pi:{id}")),
                id: header.id,
                started: header.timestamp,
                cwd: header.cwd,
                first_prompt: None,
                ..SessionSummary::new(Host::Pi, String::new())
            });
            continue;
        };
        if let Some(text) = entries::user_text(&mut object) {
            summary.first_prompt = Some(text);
            break;
        }
    }
    out.ok_or_else(|| PiError::Header {
        file: file.name.to_owned(),
        reason: "the file has no header line".into(),
    })
}
