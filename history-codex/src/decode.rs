//! The history chain (base files cut at `history_base`), each file read once, line by
//! line, then items to events.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read as _};

use serde_json::Value;

use notesoup_history_core::{
    Body, Event, LeaveOut, LeftOut, LineReader, Role, Seq, SessionRef, SessionSummary, SharedText,
    Transcript, Window,
};
use notesoup_window::Host;

use crate::fingerprint::fingerprint;
use crate::items::{Item, item};
use crate::lines::{HistoryBase, Line, Meta, file_ids, lines, meta_of, next_line};
use crate::{CodexError, CodexFile, CodexSource, DECOMPRESSED_MAX_BYTES, Inflate};

/// One rollout line after the `session_meta`, converted as it is read: what the decode
/// needs of it, its JSON dropped.
struct Step {
    at: At,
    timestamp: Option<String>,
    /// What it contributes; `Err` is a schema refusal, raised when the decode reaches it
    /// (after the chain's checks).
    item: Result<Item, String>,
    /// The fingerprint of a payload with a record id, which a repeat must match.
    fingerprint: Option<u128>,
    /// Where each body of `item` left in its line lies (empty when none was).
    left: Vec<Option<LeftOut>>,
}

/// Where a line lies: its 1-based number and its ordinal.
struct At {
    number: usize,
    ordinal: Option<u64>,
}

/// One file of the chain, read up to the length that belongs to the history.
struct Part {
    meta: Meta,
    /// The lines that contribute something (or are refused), in order.
    steps: Vec<Step>,
    /// The ordinals of its first and last lines.
    first_ordinal: Option<u64>,
    last_ordinal: Option<u64>,
}

/// Where a file's history ends: the `end_byte_offset` its successor (the file whose
/// `history_base` names it) gives.
#[derive(Clone, Copy)]
struct Until<'a> {
    end: usize,
    successor: &'a str,
}

/// Reads `source` (up to `until`, when a later file continues it): every line parsed and
/// converted in turn, then its `session_meta`. A `.jsonl.zst` is decompressed as it is
/// read, and its refusal ([`CodexError::Zstd`], [`CodexError::TooLarge`]) is the one given.
/// Bodies are left in their lines as `leave` says (`file`: the source's place in the
/// chain), never in a compressed file's.
fn read_part(
    source: &mut CodexSource<'_>,
    until: Option<Until<'_>>,
    scratch: &mut Vec<u8>,
    leave: Option<(&LeaveOut<'_>, usize)>,
) -> Result<Part, CodexError> {
    if !source.compressed {
        return read_lines(source.name, &mut *source.reader, until, scratch, leave);
    }
    let mut inflate = BufReader::new(Inflate::new(
        source.name,
        &mut *source.reader,
        DECOMPRESSED_MAX_BYTES,
    ));
    read_lines(source.name, &mut inflate, until, scratch, None)
        .map_err(|err| inflate.get_ref().failure().cloned().unwrap_or(err))
}

/// [`read_part`] of the (decompressed) bytes `reader` of the file `name`.
fn read_lines(
    name: &str,
    reader: &mut dyn BufRead,
    until: Option<Until<'_>>,
    scratch: &mut Vec<u8>,
    leave: Option<(&LeaveOut<'_>, usize)>,
) -> Result<Part, CodexError> {
    // Only a line that may hold a body left out is fingerprinted.
    let placed = match leave {
        Some((leave, file)) if leave.from(file) => leave.min_bytes,
        _ => usize::MAX,
    };
    let limit = until.as_ref().map_or(u64::MAX, |until| until.end as u64);
    let mut limited = reader.take(limit);
    let mut lines = LineReader::new(name, &mut limited);
    let mut first: Option<Line> = None;
    let mut steps = Vec::new();
    let mut last_ordinal = None;
    while let Some(line) = next_line(name, &mut lines, placed) {
        let mut line = line?;
        let ordinal = line.object.get("ordinal").and_then(Value::as_u64);
        last_ordinal = ordinal;
        if first.is_none() {
            first = Some(line);
            continue;
        }
        // A payload with a record id is fingerprinted before `item` moves its texts out
        // (only a `response_item` has one).
        let print = (line.object.get("type").and_then(Value::as_str) == Some("response_item"))
            .then(|| fingerprint(line.object.get("payload"), scratch));
        let mut item = item(&mut line.object);
        if matches!(item, Ok(Item::Nothing)) {
            continue;
        }
        let left = match (&mut item, &line.at, leave) {
            (Ok(item), Some(at), Some((leave, file))) => leave_out(item, leave, file, at),
            _ => Vec::new(),
        };
        let timestamp = line
            .object
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let fingerprint = match &item {
            Ok(Item::Events {
                record: Some(_), ..
            }) => print,
            _ => None,
        };
        steps.push(Step {
            at: At {
                number: line.number,
                ordinal,
            },
            timestamp,
            item,
            fingerprint,
            left,
        });
    }
    let (read, last) = (lines.position(), lines.last_byte());
    drop(lines);
    if let Some(Until { end, successor }) = until
        && (read != end || (end > 0 && last != Some(b'\n')))
    {
        // Short of `end`, the file ended; at `end`, its length is what follows too.
        let length = if read < end {
            read.to_string()
        } else {
            match io::copy(limited.get_mut(), &mut io::sink()) {
                Ok(rest) => (read as u64 + rest).to_string(),
                Err(err) => format!("more than {read}, the rest unreadable: {err}"),
            }
        };
        return Err(CodexError::HistoryBase {
            file: successor.to_owned(),
            reason: format!("end_byte_offset {end} is not a line end of {name} ({length} bytes)"),
        });
    }
    let meta = meta_of(name, first.as_ref())?;
    let first_ordinal = first
        .as_ref()
        .and_then(|l| l.object.get("ordinal"))
        .and_then(Value::as_u64);
    Ok(Part {
        meta,
        steps,
        first_ordinal,
        last_ordinal,
    })
}

/// Leaves the large bodies of `item` (read from the line `at` of file `file`) in their
/// line: where each lies, one entry per event (empty when none is left).
fn leave_out(
    item: &mut Item,
    leave: &LeaveOut<'_>,
    file: usize,
    at: &notesoup_history_core::LineAt,
) -> Vec<Option<LeftOut>> {
    match item {
        Item::Events { events, .. } => leave.leave_in(events, file, at),
        Item::Compacted { text } => {
            // The summary is the one event the line yields.
            let mut events = [(
                Role::Summary,
                Body::Text {
                    text: std::mem::take(text),
                },
            )];
            let left = leave.leave_in(&mut events, file, at);
            let [(_, body)] = events;
            if let Body::Text { text: kept } = body {
                *text = kept;
            }
            left
        }
        Item::Rollback { .. } | Item::Nothing => Vec::new(),
    }
}

/// The bodies of the events a rollout line yields, decoded again from the line's text
/// exactly as a decode of the file made them (`number`: its 1-based number, named in a
/// refusal): what reads a body [`decode_leaving`] left in its line.
pub fn line_bodies(text: &str, number: usize) -> Result<Vec<Body>, String> {
    let mut object = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Err(format!("line {number}: the line is not a JSON object")),
        Err(err) => return Err(format!("line {number}: {err}")),
    };
    Ok(match item(&mut object)? {
        Item::Events { events, .. } => events.into_iter().map(|(_, body)| body).collect(),
        Item::Compacted { text } => vec![Body::Text { text }],
        Item::Rollback { .. } | Item::Nothing => Vec::new(),
    })
}

/// Decodes one Codex thread from its history chain: `chain[0]` is the oldest file, each
/// next file's `session_meta.history_base` names the previous one (a rewind segment names
/// its base, a fork names the file it was forked from), and the last file is the selected
/// session. Files are already decompressed (see [`crate::decompress`]). Ancestors are read
/// only up to the `end_byte_offset` their successor names. [`decode_from`] over the files'
/// bytes.
pub fn decode(chain: &[CodexFile<'_>]) -> Result<Transcript, CodexError> {
    let mut readers: Vec<&[u8]> = chain.iter().map(|file| file.bytes).collect();
    let mut sources: Vec<CodexSource<'_>> = chain
        .iter()
        .zip(&mut readers)
        .map(|(file, reader)| CodexSource {
            name: file.name,
            reader,
            compressed: false,
        })
        .collect();
    decode_from(&mut sources)
}

/// [`decode`] from readers: each file of the chain is read once, line by line, newest
/// first (each file's `session_meta` says how much of the previous one belongs to the
/// history), and each line is converted as it is read, so the decoder holds one line of
/// a file at a time, never the file. An ancestor is read only up to the `end_byte_offset`
/// its successor names, which must end a line of it.
pub fn decode_from(chain: &mut [CodexSource<'_>]) -> Result<Transcript, CodexError> {
    Ok(decode_with(chain, None)?.0)
}

/// [`decode_from`] that leaves the bodies `leave` names in their files (numbered by their
/// place in `chain`, the oldest 0; never a compressed one's): the transcript holds their
/// placeholders, and beside it, one entry per event, where each body left out lies
/// ([`line_bodies`] reads it again).
///
/// ```
/// use notesoup_history_core::{Body, LeaveOut};
/// use notesoup_history_codex::{CodexSource, decode_leaving, line_bodies};
///
/// let rollout = concat!(
///     r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"th1","timestamp":"t0","cwd":"/w"}}"#, "\n",
///     r#"{"timestamp":"t1","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"a long question"}]}}"#, "\n",
/// );
/// let mut bytes = rollout.as_bytes();
/// let source = CodexSource { name: "rollout.jsonl", reader: &mut bytes, compressed: false };
/// let leave = LeaveOut { min_bytes: 10, literal: Some("long"), files: &[true] };
/// let (transcript, left) = decode_leaving(&mut [source], &leave)?;
/// assert_eq!(transcript.events[0].body, Body::Text { text: String::new() });
/// let place = left[0].as_ref().expect("left in its line");
/// assert!(place.holds);
/// let bodies = line_bodies(&rollout[place.span.clone()], place.number)?;
/// assert_eq!(bodies[place.event], Body::Text { text: "a long question".into() });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_leaving(
    chain: &mut [CodexSource<'_>],
    leave: &LeaveOut<'_>,
) -> Result<(Transcript, Vec<Option<LeftOut>>), CodexError> {
    decode_with(chain, Some(leave))
}

fn decode_with(
    chain: &mut [CodexSource<'_>],
    leave: Option<&LeaveOut<'_>>,
) -> Result<(Transcript, Vec<Option<LeftOut>>), CodexError> {
    if chain.is_empty() {
        return Err(CodexError::EmptyChain);
    }
    let files: Vec<&str> = chain.iter().map(|source| source.name).collect();
    // Walk back from the selected file: each file's meta says how much of the previous
    // file belongs to this history.
    let mut parts: Vec<Part> = Vec::with_capacity(chain.len());
    let mut until: Option<Until<'_>> = None;
    let mut successor: Option<(&str, HistoryBase, Option<u64>)> = None;
    let mut scratch = Vec::new();
    for index in (0..chain.len()).rev() {
        let name = files[index];
        let leave = leave.map(|leave| (leave, index));
        let part = read_part(&mut chain[index], until.take(), &mut scratch, leave)?;
        let meta = &part.meta;
        check_name(name, meta)?;
        if let Some((next, base, next_first)) = successor.take() {
            check_link(name, meta, part.last_ordinal, next, &base, next_first)?;
        }
        match (&meta.history_base, index) {
            (Some(base), i) if i > 0 => {
                let previous = files[i - 1];
                let named = file_ids(previous).map(|ids| ids.segment.unwrap_or(ids.thread));
                if named.is_some_and(|id| id != base.thread_id) {
                    return Err(CodexError::HistoryBase {
                        file: name.to_owned(),
                        reason: format!(
                            "its history_base names `{}`, not {previous}",
                            base.thread_id
                        ),
                    });
                }
                until = Some(Until {
                    end: base.end_byte_offset,
                    successor: name,
                });
                successor = Some((name, base.clone(), part.first_ordinal));
            }
            (None, i) if i > 0 => {
                return Err(CodexError::HistoryBase {
                    file: name.to_owned(),
                    reason: format!(
                        "it has no history_base, yet {} was given as its base",
                        files[i - 1]
                    ),
                });
            }
            _ => {}
        }
        parts.push(part);
    }
    parts.reverse();

    let missing: Vec<String> = parts[0]
        .meta
        .history_base
        .iter()
        .map(|b| b.thread_id.clone())
        .collect();
    let session = SessionRef {
        harness: Host::Codex,
        id: parts[parts.len() - 1].meta.id.clone(),
    };
    let mut state = State {
        window: match missing.first() {
            Some(id) => Window::Unknown {
                missing: id.clone(),
            },
            None => Window::Numbered(0),
        },
        next: 1,
        events: Vec::new(),
        left: Vec::new(),
        turns: Vec::new(),
        seen: HashMap::new(),
    };
    for (index, part) in parts.into_iter().enumerate() {
        for step in part.steps {
            let item = step.item.map_err(|reason| CodexError::Line {
                file: files[index].to_owned(),
                line: step.at.number,
                reason,
            })?;
            let repeat = step.fingerprint.map(|print| (index, print));
            let stamp = step.timestamp.as_deref();
            state.apply(&files, repeat, &step.at, stamp, item, step.left)?;
        }
    }
    let transcript = Transcript {
        session,
        events: state.events,
        missing,
        head_window: state.window,
    };
    // One entry per event, when any body was left out.
    let mut left = state.left;
    if left.iter().any(Option::is_some) {
        left.resize(transcript.events.len(), None);
    } else {
        left = vec![None; transcript.events.len()];
    }
    Ok((transcript, left))
}

/// The running decode: window, next seq, selected events and where each turn starts.
struct State {
    window: Window,
    next: Seq,
    events: Vec<Event>,
    /// Where the bodies of `events` left in their lines lie, one entry per event (shorter
    /// when the last ones left nothing out).
    left: Vec<Option<LeftOut>>,
    /// Index in `events` of each real user prompt, in order.
    turns: Vec<usize>,
    /// Payload id → where it was first seen (file index in the chain, line) and its
    /// payload's fingerprint, to spot repeats.
    seen: HashMap<String, (usize, usize, u128)>,
}

impl State {
    /// Applies `item`, read at `at`; `repeat` is the file (its index in `names`) and
    /// payload fingerprint of an item with a record id.
    fn apply(
        &mut self,
        names: &[&str],
        repeat: Option<(usize, u128)>,
        at: &At,
        timestamp: Option<&str>,
        item: Item,
        left: Vec<Option<LeftOut>>,
    ) -> Result<(), CodexError> {
        let mut left = left.into_iter();
        let record_of = |id: Option<String>| {
            id.unwrap_or_else(|| match at.ordinal {
                Some(ordinal) => format!("ordinal:{ordinal}"),
                None => format!("line:{}", at.number),
            })
        };
        match item {
            Item::Nothing => {}
            Item::Rollback { turns } => {
                let keep = self.turns.len().saturating_sub(turns);
                if let Some(&cut) = self.turns.get(keep) {
                    self.events.truncate(cut);
                    self.left.truncate(cut);
                }
                self.turns.truncate(keep);
            }
            Item::Compacted { text } => {
                if let Window::Numbered(n) = self.window {
                    self.window = Window::Numbered(n + 1);
                }
                let (record, timestamp) = SharedText::pair(&record_of(None), timestamp);
                self.push(
                    Role::Summary,
                    Body::Text { text },
                    record,
                    timestamp,
                    left.next().flatten(),
                );
            }
            Item::Events {
                record,
                events,
                prompt,
                boot,
            } => {
                if let (Some(id), Some((file, print))) = (&record, repeat)
                    && self.repeated(names, file, at, id, print)?
                {
                    return Ok(());
                }
                if let Some(ordinal) = boot {
                    self.window = Window::Numbered(ordinal);
                }
                if prompt {
                    self.turns.push(self.events.len());
                }
                // The item's events share its record and timestamp.
                let (record, timestamp) = SharedText::pair(&record_of(record), timestamp);
                for (role, body) in events {
                    let place = left.next().flatten();
                    self.push(role, body, record.clone(), timestamp.clone(), place);
                }
            }
        }
        Ok(())
    }

    fn push(
        &mut self,
        role: Role,
        body: Body,
        record: SharedText,
        timestamp: Option<SharedText>,
        left: Option<LeftOut>,
    ) {
        if let Some(place) = left {
            self.left.resize(self.events.len(), None);
            self.left.push(Some(place));
        }
        self.events.push(Event {
            seq: self.next,
            role,
            window: self.window.clone(),
            body,
            record,
            timestamp,
        });
        self.next += 1;
    }

    /// True when this payload id was already seen with the same payload (it allocates
    /// nothing); a different payload under the same id is refused. Only where the first
    /// payload lies and its fingerprint (`print`) are kept.
    fn repeated(
        &mut self,
        names: &[&str],
        file: usize,
        at: &At,
        id: &str,
        print: u128,
    ) -> Result<bool, CodexError> {
        let Some(&(first_file, first_line, first_print)) = self.seen.get(id) else {
            self.seen.insert(id.to_owned(), (file, at.number, print));
            return Ok(false);
        };
        if first_print == print {
            return Ok(true);
        }
        Err(CodexError::Duplicate {
            file: names[file].to_owned(),
            line: at.number,
            id: id.to_owned(),
            first: format!("{}:{first_line}", names[first_file]),
        })
    }
}

fn check_name(file: &str, meta: &Meta) -> Result<(), CodexError> {
    match file_ids(file) {
        Some(ids) if ids.thread != meta.id => Err(CodexError::SessionMismatch {
            file: file.to_owned(),
            meta: meta.id.clone(),
            name: ids.thread.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// The id a `history_base.thread_id` names this file by: its segment id for a segment
/// file, else its thread id.
fn history_id<'a>(file: &'a str, meta: &'a Meta) -> &'a str {
    file_ids(file)
        .and_then(|ids| ids.segment)
        .unwrap_or(meta.id.as_str())
}

/// Checks that `next`'s `history_base` (`base`) names `file` and that the ordinals join:
/// `last` is the ordinal of `file`'s last line read, `next_first` that of `next`'s first.
fn check_link(
    file: &str,
    meta: &Meta,
    last: Option<u64>,
    next: &str,
    base: &HistoryBase,
    next_first: Option<u64>,
) -> Result<(), CodexError> {
    let bad = |reason: String| CodexError::HistoryBase {
        file: next.to_owned(),
        reason,
    };
    let id = history_id(file, meta);
    if base.thread_id != id {
        return Err(bad(format!(
            "its history_base names `{}`, not {file} (`{id}`)",
            base.thread_id
        )));
    }
    if let Some(end) = base.end_ordinal_exclusive
        && (last.is_some_and(|last| last >= end) || next_first.is_some_and(|first| first != end))
    {
        return Err(bad(format!(
            "end_ordinal_exclusive {end} does not join {file} (last ordinal {}) to this file (first ordinal {})",
            last.map_or_else(|| "none".into(), |n| n.to_string()),
            next_first.map_or_else(|| "none".into(), |n| n.to_string()),
        )));
    }
    Ok(())
}

/// The listing line of a session from its file (the first few KiB are enough for a plain
/// file): id, start, cwd, the thread it was forked from, and the first prompt a person
/// typed. Only the `session_meta` line must be valid.
pub fn summary(file: &CodexFile<'_>) -> Result<SessionSummary, CodexError> {
    // A file start cut mid-line ends in an unterminated line, which `lines` skips; a bad line
    // after the meta only ends the search for the first prompt.
    let all = match lines(file, file.bytes.len()) {
        Ok(all) => all,
        Err(err) => {
            let line = match &err {
                CodexError::Malformed(err) => err.line(),
                CodexError::Line { line, .. } => *line,
                _ => 0,
            };
            if line <= 1 {
                return Err(err);
            }
            let cut = line_start(file.bytes, line);
            lines(file, cut)?
        }
    };
    let meta = meta_of(file.name, all.first())?;
    check_name(file.name, &meta)?;
    let first_prompt = all
        .into_iter()
        .skip(1)
        .find_map(|mut line| match item(&mut line.object) {
            Ok(Item::Events {
                events,
                prompt: true,
                ..
            }) => events.into_iter().find_map(|(_, body)| match body {
                Body::Text { text } => Some(text),
                _ => None,
            }),
            _ => None,
        });
    Ok(SessionSummary {
        harness: Host::Codex,
        id: meta.id,
        started: meta.timestamp,
        cwd: meta.cwd,
        first_prompt,
        parent: meta.forked_from_id.map(|id| format!("codex:{id}")),
        unreadable: None,
        ..SessionSummary::new(Host::Codex, String::new())
    })
}

/// The byte offset where 1-based line `line` starts.
fn line_start(bytes: &[u8], line: usize) -> usize {
    bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(line.saturating_sub(2))
        .map_or(0, |(at, _)| at + 1)
}

/// The `session_meta` of a rollout (its first line; the first 64 KiB of the file are
/// enough unless the instructions in it are longer): [`meta_from`] over its bytes.
pub fn meta(file: &CodexFile<'_>) -> Result<Meta, CodexError> {
    meta_from(file.name, file.bytes)
}

/// [`meta`] read from a reader as [`decode_from`] reads it: the first committed line
/// (blank lines passed over), and nothing after it.
///
/// ```
/// use notesoup_history_codex::meta_from;
///
/// let rollout = b"\n{\"type\":\"session_meta\",\"payload\":{\"id\":\"th1\"}}\n{\"type\":";
/// assert_eq!(meta_from("rollout.jsonl", &rollout[..])?.id, "th1");
/// # Ok::<(), notesoup_history_codex::CodexError>(())
/// ```
pub fn meta_from(name: &str, reader: impl BufRead) -> Result<Meta, CodexError> {
    let mut lines = LineReader::new(name, reader);
    let first = next_line(name, &mut lines, usize::MAX).transpose()?;
    let meta = meta_of(name, first.as_ref())?;
    check_name(name, &meta)?;
    Ok(meta)
}
