//! Rollout lines: committed JSONL lines of a (decompressed) rollout, and the file-name and
//! `session_meta` facts the corpus and the decoder need.

use std::io::BufRead;

use serde_json::{Map, Value};

use notesoup_history_core::{LineAt, LineReader, line_fingerprint};

use crate::{CodexError, CodexFile};

/// One committed line: its 1-based number and its JSON object; where its text lies and its
/// fingerprint, when it is long enough to have a body left in it.
pub(crate) struct Line {
    pub(crate) number: usize,
    pub(crate) object: Map<String, Value>,
    pub(crate) at: Option<LineAt>,
}

/// The next committed line of `lines` (the file `name`), parsed; `None` at the end. The
/// lines are [`LineReader`]'s: a final unterminated line is read only when it is already
/// whole JSON, otherwise it is a write in progress, skipped. A refusal ends the lines. A
/// line of at least `placed` bytes gets its [`LineAt`].
pub(crate) fn next_line<R: BufRead>(
    name: &str,
    lines: &mut LineReader<R>,
    placed: usize,
) -> Option<Result<Line, CodexError>> {
    loop {
        let line = match lines.next_line()? {
            Ok(line) => line,
            Err(err) => return Some(Err(err.into())),
        };
        let (number, parsed) = (line.number, serde_json::from_str::<Value>(line.text));
        let error = match parsed {
            Ok(Value::Object(object)) => {
                let at = (line.span.len() >= placed).then(|| LineAt {
                    span: line.span.clone(),
                    number,
                    fingerprint: line_fingerprint(line.text),
                });
                return Some(Ok(Line { number, object, at }));
            }
            Ok(_) => CodexError::Line {
                file: name.to_owned(),
                line: number,
                reason: "the line is not a JSON object".into(),
            },
            Err(err) => match line.not_json(name, err) {
                Some(err) => err.into(),
                None => continue,
            },
        };
        return Some(Err(error));
    }
}

/// All the committed lines of `file.bytes[..limit]` (see [`next_line`]).
pub(crate) fn lines(file: &CodexFile<'_>, limit: usize) -> Result<Vec<Line>, CodexError> {
    let bytes = file.bytes.get(..limit).unwrap_or(file.bytes);
    let mut reader = LineReader::new(file.name, bytes);
    std::iter::from_fn(|| next_line(file.name, &mut reader, usize::MAX)).collect()
}

/// The ids in a rollout file name `rollout-<time>-<threadId>[_<segmentId>].jsonl[.zst]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIds<'a> {
    /// The thread (session) id.
    pub thread: &'a str,
    /// The segment id of a rewind segment file.
    pub segment: Option<&'a str>,
    /// The time part, `YYYY-MM-DDThh-mm-ss`.
    pub time: &'a str,
    /// True for `.jsonl.zst`.
    pub compressed: bool,
}

/// Parses a rollout file name (a path is fine); `None` when it is not one.
pub fn file_ids(name: &str) -> Option<FileIds<'_>> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let (stem, compressed) = match base.strip_suffix(".jsonl.zst") {
        Some(stem) => (stem, true),
        None => (base.strip_suffix(".jsonl")?, false),
    };
    let rest = stem.strip_prefix("rollout-")?;
    // The time part is `YYYY-MM-DDThh-mm-ss` (19 characters), then `-`.
    let time = rest.get(..19)?;
    let ids = rest.get(19..)?.strip_prefix('-')?;
    if !time.is_ascii() || time.as_bytes().get(10) != Some(&b'T') {
        return None;
    }
    let (thread, segment) = match ids.split_once('_') {
        Some((thread, segment)) => (thread, Some(segment)),
        None => (ids, None),
    };
    (!thread.is_empty() && segment != Some("")).then_some(FileIds {
        thread,
        segment,
        time,
        compressed,
    })
}

/// Where a file's history continues from: `session_meta.history_base`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryBase {
    /// The thread or segment id of the file holding the earlier history.
    pub thread_id: String,
    /// The first ordinal not part of the base.
    pub end_ordinal_exclusive: Option<u64>,
    /// The base's length in bytes (its history ends there).
    pub end_byte_offset: usize,
}

/// A rollout's `session_meta` (its first line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// The thread id (`payload.id`).
    pub id: String,
    /// When the thread (or segment) started.
    pub timestamp: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// The thread a fork came from.
    pub forked_from_id: Option<String>,
    /// Where earlier history lives, for forks and rewind segments.
    pub history_base: Option<HistoryBase>,
}

/// Reads the `session_meta` of a line list's first line.
pub(crate) fn meta_of(file: &str, first: Option<&Line>) -> Result<Meta, CodexError> {
    let bad = |line: usize, reason: String| CodexError::Meta {
        file: file.to_owned(),
        line,
        reason,
    };
    let Some(first) = first else {
        return Err(bad(1, "the file has no lines".into()));
    };
    if first.object.get("type").and_then(Value::as_str) != Some("session_meta") {
        return Err(bad(
            first.number,
            "the first line is not `session_meta`".into(),
        ));
    }
    let Some(Value::Object(payload)) = first.object.get("payload") else {
        return Err(bad(first.number, "`payload` is not an object".into()));
    };
    let id = required_str(payload, "id").map_err(|r| bad(first.number, r))?;
    let history_base = match payload.get("history_base") {
        None | Some(Value::Null) => None,
        Some(Value::Object(base)) => {
            let thread_id = required_str(base, "thread_id")
                .map_err(|r| bad(first.number, format!("history_base: {r}")))?;
            let end_byte_offset = base
                .get("end_byte_offset")
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    bad(
                        first.number,
                        "history_base: `end_byte_offset` must be a non-negative integer".into(),
                    )
                })?;
            let end_ordinal_exclusive = match base.get("end_ordinal_exclusive") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_u64().ok_or_else(|| {
                    bad(
                        first.number,
                        "history_base: `end_ordinal_exclusive` must be a non-negative integer"
                            .into(),
                    )
                })?),
            };
            Some(HistoryBase {
                thread_id,
                end_ordinal_exclusive,
                end_byte_offset,
            })
        }
        Some(_) => return Err(bad(first.number, "`history_base` must be an object".into())),
    };
    Ok(Meta {
        id,
        timestamp: optional_str(payload, "timestamp").map_err(|r| bad(first.number, r))?,
        cwd: optional_str(payload, "cwd").map_err(|r| bad(first.number, r))?,
        forked_from_id: optional_str(payload, "forked_from_id")
            .map_err(|r| bad(first.number, r))?,
        history_base,
    })
}

pub(crate) fn required_str(object: &Map<String, Value>, key: &str) -> Result<String, String> {
    match object.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!("`{key}` must be a string, got {}", shown(other))),
        None => Err(format!("`{key}` is missing")),
    }
}

/// [`required_str`], the string moved out of the line's JSON (for a text the decode keeps;
/// each key is read once).
pub(crate) fn take_str(object: &mut Map<String, Value>, key: &str) -> Result<String, String> {
    match object.get_mut(key) {
        Some(Value::String(s)) => Ok(std::mem::take(s)),
        Some(other) => Err(format!("`{key}` must be a string, got {}", shown(other))),
        None => Err(format!("`{key}` is missing")),
    }
}

pub(crate) fn optional_str(
    object: &Map<String, Value>,
    key: &str,
) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{key}` must be a string, got {}", shown(other))),
    }
}

/// A JSON value for an error message, cut to 60 characters.
pub(crate) fn shown(value: &Value) -> String {
    notesoup_history_core::clip(value.to_string(), 60)
}
