//! The history chain (base files cut at `history_base`), then items to events.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value;

use notesoup_history_core::{
    Body, Event, Role, Seq, SessionRef, SessionSummary, Transcript, Window,
};
use notesoup_window::Host;

use crate::items::{Item, item};
use crate::lines::{HistoryBase, Line, Meta, each_line, file_ids, line_at, lines, meta_of};
use crate::{CodexError, CodexFile};

/// One rollout line after the `session_meta`, converted as it is read: what the decode
/// needs of it, its JSON dropped.
struct Step {
    at: At,
    timestamp: Option<String>,
    /// What it contributes; `Err` is a schema refusal, raised when the decode reaches it
    /// (after the chain's checks).
    item: Result<Item, String>,
}

/// Where a line lies: its 1-based number, its bytes in its file, and its ordinal.
struct At {
    number: usize,
    span: Range<usize>,
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

/// Reads `file[..limit]`: every line parsed and converted in turn, then its `session_meta`.
fn read_part(file: &CodexFile<'_>, limit: usize) -> Result<Part, CodexError> {
    let mut first: Option<Line> = None;
    let mut steps = Vec::new();
    let mut last_ordinal = None;
    for line in each_line(file, limit) {
        let line = line?;
        let ordinal = line.object.get("ordinal").and_then(Value::as_u64);
        last_ordinal = ordinal;
        if first.is_none() {
            first = Some(line);
            continue;
        }
        let item = item(&line.object);
        if matches!(item, Ok(Item::Nothing)) {
            continue;
        }
        steps.push(Step {
            at: At {
                number: line.number,
                span: line.span,
                ordinal,
            },
            timestamp: line
                .object
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_owned),
            item,
        });
    }
    let meta = meta_of(file, first.as_ref())?;
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

/// Decodes one Codex thread from its history chain: `chain[0]` is the oldest file, each
/// next file's `session_meta.history_base` names the previous one (a rewind segment names
/// its base, a fork names the file it was forked from), and the last file is the selected
/// session. Files are already decompressed (see [`crate::decompress`]). Ancestors are read
/// only up to the `end_byte_offset` their successor names.
pub fn decode(chain: &[CodexFile<'_>]) -> Result<Transcript, CodexError> {
    let Some(selected) = chain.last() else {
        return Err(CodexError::EmptyChain);
    };
    // Walk back from the selected file: each file's meta says how much of the previous
    // file belongs to this history.
    let mut parts: Vec<Part> = Vec::with_capacity(chain.len());
    let mut limit = selected.bytes.len();
    let mut successor: Option<(&CodexFile<'_>, HistoryBase, Option<u64>)> = None;
    for (index, file) in chain.iter().enumerate().rev() {
        let part = read_part(file, limit)?;
        let meta = &part.meta;
        check_name(file, meta)?;
        if let Some((next, base, next_first)) = successor.take() {
            check_link(file, meta, part.last_ordinal, next, &base, next_first)?;
        }
        match (&meta.history_base, index) {
            (Some(base), i) if i > 0 => {
                let previous = &chain[i - 1];
                let named = file_ids(previous.name).map(|ids| ids.segment.unwrap_or(ids.thread));
                if named.is_some_and(|id| id != base.thread_id) {
                    return Err(CodexError::HistoryBase {
                        file: file.name.to_owned(),
                        reason: format!(
                            "its history_base names `{}`, not {}",
                            base.thread_id, previous.name
                        ),
                    });
                }
                if base.end_byte_offset > previous.bytes.len()
                    || (base.end_byte_offset > 0
                        && previous.bytes[base.end_byte_offset - 1] != b'\n')
                {
                    return Err(CodexError::HistoryBase {
                        file: file.name.to_owned(),
                        reason: format!(
                            "end_byte_offset {} is not a line end of {} ({} bytes)",
                            base.end_byte_offset,
                            previous.name,
                            previous.bytes.len()
                        ),
                    });
                }
                limit = base.end_byte_offset;
                successor = Some((file, base.clone(), part.first_ordinal));
            }
            (None, i) if i > 0 => {
                return Err(CodexError::HistoryBase {
                    file: file.name.to_owned(),
                    reason: format!(
                        "it has no history_base, yet {} was given as its base",
                        chain[i - 1].name
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
        turns: Vec::new(),
        seen: HashMap::new(),
    };
    for (index, (part, file)) in parts.into_iter().zip(chain).enumerate() {
        for step in part.steps {
            let item = step.item.map_err(|reason| CodexError::Line {
                file: file.name.to_owned(),
                line: step.at.number,
                reason,
            })?;
            state.apply(chain, index, &step.at, step.timestamp, item)?;
        }
    }
    Ok(Transcript {
        session,
        events: state.events,
        missing,
        head_window: state.window,
    })
}

/// The running decode: window, next seq, selected events and where each turn starts.
struct State {
    window: Window,
    next: Seq,
    events: Vec<Event>,
    /// Index in `events` of each real user prompt, in order.
    turns: Vec<usize>,
    /// Payload id → where it was first seen (file index in the chain, line, bytes), to
    /// spot repeats.
    seen: HashMap<String, (usize, usize, Range<usize>)>,
}

impl State {
    fn apply(
        &mut self,
        chain: &[CodexFile<'_>],
        file: usize,
        at: &At,
        timestamp: Option<String>,
        item: Item,
    ) -> Result<(), CodexError> {
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
                }
                self.turns.truncate(keep);
            }
            Item::Compacted { text } => {
                if let Window::Numbered(n) = self.window {
                    self.window = Window::Numbered(n + 1);
                }
                self.push(
                    Role::Summary,
                    Body::Text { text },
                    record_of(None),
                    timestamp,
                );
            }
            Item::Events {
                record,
                events,
                prompt,
                boot,
            } => {
                if let Some(id) = &record
                    && self.repeated(chain, file, at, id)?
                {
                    return Ok(());
                }
                if let Some(ordinal) = boot {
                    self.window = Window::Numbered(ordinal);
                }
                if prompt {
                    self.turns.push(self.events.len());
                }
                let record = record_of(record);
                for (role, body) in events {
                    self.push(role, body, record.clone(), timestamp.clone());
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, role: Role, body: Body, record: String, timestamp: Option<String>) {
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
    /// payload lies is kept: a repeat (rare) reads both payloads again.
    fn repeated(
        &mut self,
        chain: &[CodexFile<'_>],
        file: usize,
        at: &At,
        id: &str,
    ) -> Result<bool, CodexError> {
        let Some((first_file, first_line, first_span)) = self.seen.get(id) else {
            self.seen
                .insert(id.to_owned(), (file, at.number, at.span.clone()));
            return Ok(false);
        };
        let first = payload(&chain[*first_file], *first_line, first_span.clone())?;
        if first == payload(&chain[file], at.number, at.span.clone())? {
            return Ok(true);
        }
        Err(CodexError::Duplicate {
            file: chain[file].name.to_owned(),
            line: at.number,
            id: id.to_owned(),
            first: format!("{}:{first_line}", chain[*first_file].name),
        })
    }
}

/// The payload of the line at `span`, without the metadata a repeat may change.
fn payload(file: &CodexFile<'_>, line: usize, span: Range<usize>) -> Result<Value, CodexError> {
    let mut payload = match line_at(file, line, span)? {
        Value::Object(mut object) => object.remove("payload").unwrap_or(Value::Null),
        _ => Value::Null,
    };
    if let Value::Object(map) = &mut payload {
        map.remove("internal_chat_message_metadata_passthrough");
        map.remove("status");
    }
    Ok(payload)
}

fn check_name(file: &CodexFile<'_>, meta: &Meta) -> Result<(), CodexError> {
    match file_ids(file.name) {
        Some(ids) if ids.thread != meta.id => Err(CodexError::SessionMismatch {
            file: file.name.to_owned(),
            meta: meta.id.clone(),
            name: ids.thread.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// The id a `history_base.thread_id` names this file by: its segment id for a segment
/// file, else its thread id.
fn history_id<'a>(file: &'a CodexFile<'_>, meta: &'a Meta) -> &'a str {
    file_ids(file.name)
        .and_then(|ids| ids.segment)
        .unwrap_or(meta.id.as_str())
}

/// Checks that `next`'s `history_base` (`base`) names `file` and that the ordinals join:
/// `last` is the ordinal of `file`'s last line read, `next_first` that of `next`'s first.
fn check_link(
    file: &CodexFile<'_>,
    meta: &Meta,
    last: Option<u64>,
    next: &CodexFile<'_>,
    base: &HistoryBase,
    next_first: Option<u64>,
) -> Result<(), CodexError> {
    let bad = |reason: String| CodexError::HistoryBase {
        file: next.name.to_owned(),
        reason,
    };
    let id = history_id(file, meta);
    if base.thread_id != id {
        return Err(bad(format!(
            "its history_base names `{}`, not {} (`{id}`)",
            base.thread_id, file.name
        )));
    }
    if let Some(end) = base.end_ordinal_exclusive
        && (last.is_some_and(|last| last >= end) || next_first.is_some_and(|first| first != end))
    {
        return Err(bad(format!(
            "end_ordinal_exclusive {end} does not join {} (last ordinal {}) to this file (first ordinal {})",
            file.name,
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
    let meta = meta_of(file, all.first())?;
    check_name(file, &meta)?;
    let first_prompt = all
        .iter()
        .skip(1)
        .find_map(|line| match item(&line.object) {
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
        vault_only: false,
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
/// enough unless the instructions in it are longer).
pub fn meta(file: &CodexFile<'_>) -> Result<Meta, CodexError> {
    let end = file
        .bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(file.bytes.len(), |at| at + 1);
    let first = lines(file, end)?;
    let meta = meta_of(file, first.first())?;
    check_name(file, &meta)?;
    Ok(meta)
}
