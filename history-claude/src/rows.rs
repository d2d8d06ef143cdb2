//! One JSONL line to one checked row: the schemas of the four supported record types.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use notesoup_history_core::{Body, Role};
use notesoup_window::Host;
use notesoup_window::marker::retained_window;

use crate::elided::{BodyRef, Elided, blank, fingerprint};
use crate::spans;

/// The fields of any record this decoder looks at, each kept raw until its type is known,
/// so metadata records of any shape pass untouched. `M` is how `message` is read: kept raw
/// ([`Present`], the field-by-field parse) or parsed in place (the one-pass parse, [`fast`]):
/// every other field is the same raw field, checked by the same code.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    bound(deserialize = "M: Deserialize<'de> + Default")
)]
pub(crate) struct RawRow<'a, M = Present<'a>> {
    #[serde(rename = "type", borrow, default, deserialize_with = "present")]
    pub(crate) kind: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) uuid: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) parent_uuid: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) logical_parent_uuid: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) is_sidechain: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) session_id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) timestamp: Option<&'a RawValue>,
    #[serde(default)]
    pub(crate) message: M,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) is_compact_summary: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) subtype: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) content: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) compact_metadata: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) attachment: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) rendered: Option<&'a RawValue>,
}

/// Keeps a present field, `null` included (plain `Option` would read `null` as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// A field kept raw as [`present`] keeps it (`None`: absent).
#[derive(Default, Clone, Copy)]
pub(crate) struct Present<'a>(pub(crate) Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Present<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        present(d).map(Present)
    }
}

/// The four record types that carry conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    User,
    Assistant,
    System,
    Attachment,
}

impl Kind {
    pub(crate) fn parse(name: &str) -> Option<Kind> {
        match name {
            "user" => Some(Kind::User),
            "assistant" => Some(Kind::Assistant),
            "system" => Some(Kind::System),
            "attachment" => Some(Kind::Attachment),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::Assistant => "assistant",
            Kind::System => "system",
            Kind::Attachment => "attachment",
        }
    }
}

/// A checked conversation row; `E` is how its bodies are held: whole ([`Body`]), or as
/// the line holds them ([`Ev`]: texts borrowed from the line where JSON wrote them
/// without escapes), before the row is made whole ([`Row::whole`]) or skimmed
/// ([`Row::skimmed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row<E = Body> {
    pub(crate) kind: Kind,
    pub(crate) uuid: String,
    /// `None` for `parentUuid: null`.
    pub(crate) parent: Option<String>,
    pub(crate) logical_parent: Option<String>,
    pub(crate) is_sidechain: bool,
    pub(crate) session_id: String,
    pub(crate) timestamp: Option<String>,
    /// True for a `compact_boundary` system row.
    pub(crate) compact: bool,
    /// Preserved-segment uuids recorded on a compact boundary.
    pub(crate) preserved: Vec<String>,
    /// The events of this row, in seq order: role and body (seq and window come later).
    pub(crate) events: Vec<(Role, E)>,
    /// The ordinal a retained notesoup boot marker in this row names.
    pub(crate) boot: Option<u64>,
    /// Set when `events` are placeholders (a skimmed row): what the whole events were.
    pub(crate) elided: Option<Elided>,
}

/// A body as a row's line holds it: each text borrowed from the line where JSON wrote it
/// without escapes (decoded into its own string only where it has escapes, or is joined
/// from several blocks), a call's input the verbatim slice of the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ev<'a> {
    Text(Txt<'a>),
    Call {
        id: Cow<'a, str>,
        name: Cow<'a, str>,
        input: &'a str,
    },
    Result {
        id: Cow<'a, str>,
        text: Txt<'a>,
        is_error: bool,
    },
}

/// A text as a row's line holds it, and, when the parse knows it, where the line writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Txt<'a> {
    pub(crate) text: Cow<'a, str>,
    /// The bytes between the quotes of the string literal of the line that holds the whole
    /// text written with the short escapes only (no `\u`, no `\/`: then they are exactly
    /// [`spans::short_escaped`] of the text), when the parse knows it: a hint for
    /// [`spans::find_in`], which takes it only where its own search would.
    pub(crate) raw: Option<&'a str>,
}

impl<'a> Txt<'a> {
    /// A text of unknown place (a borrowed one is where the line wrote it without escapes).
    fn of(text: Cow<'a, str>) -> Self {
        let raw = match text {
            Cow::Borrowed(t) => Some(t),
            Cow::Owned(_) => None,
        };
        Txt { text, raw }
    }
}

impl std::ops::Deref for Txt<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl Ev<'_> {
    /// What a history search looks in: a text, a result's text, a call's input.
    fn text(&self) -> &str {
        match self {
            Ev::Text(text) | Ev::Result { text, .. } => text,
            Ev::Call { input, .. } => input,
        }
    }

    /// The body, its texts owned.
    fn whole(self) -> Body {
        match self {
            Ev::Text(text) => Body::Text {
                text: text.text.into_owned(),
            },
            Ev::Call { id, name, input } => Body::ToolCall {
                id: id.into_owned(),
                name: name.into_owned(),
                input: input.to_owned(),
            },
            Ev::Result { id, text, is_error } => Body::ToolResult {
                id: id.into_owned(),
                text: text.text.into_owned(),
                is_error,
            },
        }
    }

    /// The body as [`fingerprint`] reads it.
    fn as_ref(&self) -> BodyRef<'_> {
        match self {
            Ev::Text(text) => BodyRef::Text(text),
            Ev::Call { id, name, input } => BodyRef::Call { id, name, input },
            Ev::Result { id, text, is_error } => BodyRef::Result {
                id,
                text,
                is_error: *is_error,
            },
        }
    }

    /// The placeholder a structure-only state keeps of this body: a text is empty, a call
    /// keeps its id and name with an empty input, a result its id and error flag with an
    /// empty text.
    fn placeholder(self) -> Body {
        match self {
            Ev::Text(_) => Body::Text {
                text: String::new(),
            },
            Ev::Call { id, name, .. } => Body::ToolCall {
                id: id.into_owned(),
                name: name.into_owned(),
                input: String::new(),
            },
            Ev::Result { id, is_error, .. } => Body::ToolResult {
                id: id.into_owned(),
                text: String::new(),
                is_error,
            },
        }
    }
}

impl<'a> Row<Ev<'a>> {
    /// Every body whole: the row the decoder keeps.
    pub(crate) fn whole(self) -> Row {
        self.with_events(|events| {
            (
                events.into_iter().map(|(r, e)| (r, e.whole())).collect(),
                None,
            )
        })
    }

    /// Placeholder bodies, with the fingerprint and blank flag of the whole ones: the row a
    /// structure-only state keeps (its bodies are read again from its line when needed).
    pub(crate) fn skimmed(self) -> Row {
        self.with_events(|events| {
            let elided = Elided {
                fingerprint: fingerprint(events.iter().map(|(r, e)| (*r, e.as_ref()))),
                blank: matches!(events.first(), Some((_, Ev::Text(text))) if blank(text)),
            };
            let events = events
                .into_iter()
                .map(|(r, e)| (r, e.placeholder()))
                .collect();
            (events, Some(elided))
        })
    }

    fn with_events(
        self,
        f: impl FnOnce(Vec<(Role, Ev<'a>)>) -> (Vec<(Role, Body)>, Option<Elided>),
    ) -> Row {
        let (events, elided) = f(self.events);
        Row {
            kind: self.kind,
            uuid: self.uuid,
            parent: self.parent,
            logical_parent: self.logical_parent,
            is_sidechain: self.is_sidechain,
            session_id: self.session_id,
            timestamp: self.timestamp,
            compact: self.compact,
            preserved: self.preserved,
            events,
            boot: self.boot,
            elided,
        }
    }
}

/// Parses a raw field as `T`, naming the field when it does not fit.
fn field<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>, name: &str) -> Result<T, String> {
    let raw = raw.ok_or_else(|| format!("missing `{name}`"))?;
    serde_json::from_str(raw.get()).map_err(|err| format!("`{name}`: {err}"))
}

fn optional<'a, T: Deserialize<'a>>(
    raw: Option<&'a RawValue>,
    name: &str,
) -> Result<Option<T>, String> {
    match raw {
        None => Ok(None),
        Some(raw) => {
            serde_json::from_str::<Option<T>>(raw.get()).map_err(|err| format!("`{name}`: {err}"))
        }
    }
}

/// A content block, every field borrowed or raw until its type says what it must hold (a
/// struct, not a tagged enum, so nothing is buffered twice). `C` is how a result's
/// `content` is read: kept raw ([`Present`], the field-by-field parse: read as a tool
/// result's only for a result block, by [`result_text`]; [`Kept`], the one-pass parse,
/// which decodes a string itself and so knows where the line writes it). `T` is how
/// `text` is read: decoded by `serde_json` ([`Decoded`], the field-by-field parse) or kept
/// as its literal ([`Lit`], the one-pass parse), decoded for every block all the same.
#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de> + Default, T: Deserialize<'de> + Default"))]
struct Block<'a, C = Present<'a>, T = Decoded<'a>> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    text: T,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    content: C,
    #[serde(default)]
    is_error: Option<bool>,
}

/// A block's `content` as either parse read it.
trait ResultContent<'a> {
    /// The visible text of a tool result with this content (see [`result_text`]).
    fn text(self) -> Result<Txt<'a>, String>;
}

impl<'a> ResultContent<'a> for Present<'a> {
    fn text(self) -> Result<Txt<'a>, String> {
        result_text(self.0).map(|text| Txt::of(Cow::Owned(text)))
    }
}

/// A block's `content` as the one-pass parse reads it: kept raw as [`Present`] keeps it
/// (checked as `serde_json` checks a value it skips), then read as [`result_text`] reads it
/// but for a string, decoded by [`Lit::decode`] (which knows where the line writes it).
#[derive(Default)]
struct Kept<'a>(Present<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for Kept<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Present::deserialize(d).map(Kept)
    }
}

impl<'a> ResultContent<'a> for Kept<'a> {
    fn text(self) -> Result<Txt<'a>, String> {
        let Some(raw) = self.0.0 else {
            return Ok(Txt::of(Cow::Borrowed("")));
        };
        let raw = raw.get();
        if raw.starts_with('"') {
            return Lit(raw).decode();
        }
        if raw == "null" {
            return Ok(Txt::of(Cow::Borrowed("")));
        }
        let blocks: Vec<ResultBlock> =
            serde_json::from_str(raw).map_err(|err| format!("tool result `content`: {err}"))?;
        result_blocks_text(blocks).map(Txt::of)
    }
}

/// A block's `text` as the field-by-field parse reads it: decoded by `serde_json`.
#[derive(Deserialize, Default)]
#[serde(transparent)]
struct Decoded<'a>(#[serde(borrow)] Option<Cow<'a, str>>);

/// A block's `text` as either parse read it.
trait BlockText<'a> {
    /// The text, decoded (`Err` when it does not decode).
    fn text(self) -> Result<Option<Txt<'a>>, String>;
}

impl<'a> BlockText<'a> for Decoded<'a> {
    fn text(self) -> Result<Option<Txt<'a>>, String> {
        Ok(self.0.map(Txt::of))
    }
}

impl<'a> BlockText<'a> for Option<Lit<'a>> {
    fn text(self) -> Result<Option<Txt<'a>>, String> {
        self.map(Lit::decode).transpose()
    }
}

/// A JSON string literal of the line (its quotes included) as the one-pass parse keeps it
/// raw: checked as `serde_json` checks a string it skips (every escape well formed, no
/// control character, valid UTF-8: all of its check of a string it decodes but the pairing
/// of `\u` surrogates, which [`Lit::decode`] leaves to `serde_json`).
#[derive(Clone, Copy)]
struct Lit<'a>(&'a str);

impl<'de: 'a, 'a> Deserialize<'de> for Lit<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?.get();
        if raw.starts_with('"') {
            Ok(Lit(raw))
        } else {
            Err(serde::de::Error::invalid_type(
                serde::de::Unexpected::Other("a value other than a string"),
                &"a string",
            ))
        }
    }
}

impl<'a> Lit<'a> {
    /// The text as `serde_json` decodes the literal: borrowed when it has no escape, its
    /// short escapes and `\/` decoded here, any `\u` escape by `serde_json` itself (which
    /// refuses an unpaired surrogate: `Err`). The text's [`Txt::raw`] is the literal's
    /// bytes between its quotes unless it has a `\u` or `\/` escape.
    fn decode(self) -> Result<Txt<'a>, String> {
        let inner = self
            .0
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .ok_or("a string literal without its quotes")?;
        let bytes = inner.as_bytes();
        let Some(first) = memchr::memchr(b'\\', bytes) else {
            return Ok(Txt {
                text: Cow::Borrowed(inner),
                raw: Some(inner),
            });
        };
        let serde = || {
            serde_json::from_str::<String>(self.0)
                .map(|text| Txt::of(Cow::Owned(text)))
                .map_err(|err| err.to_string())
        };
        let mut out = String::with_capacity(inner.len());
        let mut short = true;
        let mut at = 0;
        let mut next = Some(first);
        while let Some(k) = next {
            // `k` is a backslash and `at` the byte after an ASCII escape: both on character
            // boundaries.
            out.push_str(
                inner
                    .get(at..k)
                    .ok_or("a string literal cut in a character")?,
            );
            out.push(match bytes.get(k + 1) {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => {
                    short = false;
                    '/'
                }
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                // `\u` (or, never in a checked literal, anything else): `serde_json` decides.
                _ => return serde(),
            });
            at = k + 2;
            next = bytes
                .get(at..)
                .and_then(|rest| memchr::memchr(b'\\', rest))
                .map(|n| at + n);
        }
        out.push_str(
            inner
                .get(at..)
                .ok_or("a string literal cut in a character")?,
        );
        Ok(Txt {
            text: Cow::Owned(out),
            raw: short.then_some(inner),
        })
    }
}

/// What [`text_or_list`] read.
enum TextOrList<'a, T> {
    Text(Cow<'a, str>),
    Null,
    List(Vec<T>),
}

/// The one-pass parse of a `content` field, in place: a string (borrowed from the line
/// when it has no escapes), `null`, or a list of `T`; anything else is an error naming
/// `expecting`. A message's content is read by it (a tool result's is kept raw: [`Kept`]).
fn text_or_list<'de, D, T>(d: D, expecting: &'static str) -> Result<TextOrList<'de, T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Visit<T> {
        expecting: &'static str,
        kind: std::marker::PhantomData<T>,
    }
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
        type Value = TextOrList<'de, T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.expecting)
        }
        fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(TextOrList::Text(Cow::Borrowed(v)))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(TextOrList::Text(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(TextOrList::Text(Cow::Owned(v)))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(TextOrList::Null)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut list = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
            while let Some(element) = seq.next_element::<T>()? {
                list.push(element);
            }
            Ok(TextOrList::List(list))
        }
    }
    d.deserialize_any(Visit::<T> {
        expecting,
        kind: std::marker::PhantomData,
    })
}

fn need<T>(value: Option<T>, kind: &str, name: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("a `{kind}` block without `{name}`"))
}

/// The visible text of a tool result's `content`: a string, or the text of its text
/// blocks (images, documents and references add no text).
fn result_text(content: Option<&RawValue>) -> Result<String, String> {
    let Some(raw) = content else {
        return Ok(String::new());
    };
    let raw = raw.get();
    if raw.starts_with('"') {
        return serde_json::from_str(raw).map_err(|err| format!("tool result `content`: {err}"));
    }
    if raw == "null" {
        return Ok(String::new());
    }
    let blocks: Vec<ResultBlock> =
        serde_json::from_str(raw).map_err(|err| format!("tool result `content`: {err}"))?;
    result_blocks_text(blocks).map(Cow::into_owned)
}

/// The visible text of a tool result's blocks: the text of its text blocks.
fn result_blocks_text(blocks: Vec<ResultBlock<'_>>) -> Result<Cow<'_, str>, String> {
    let mut out = Cow::Borrowed("");
    for block in blocks {
        if block.kind == "text" {
            let text = block
                .text
                .ok_or("a tool result `text` block without `text`")?;
            push_owned(&mut out, text);
        }
    }
    Ok(out)
}

/// A block inside a tool result: only text is visible; other types (images, documents,
/// references) keep their place but add no text.
#[derive(Deserialize)]
struct ResultBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    role: String,
    #[serde(borrow)]
    content: &'a RawValue,
}

#[derive(Deserialize)]
struct AttachmentInfo {
    #[serde(rename = "type")]
    #[allow(
        dead_code,
        reason = "checked for presence: an attachment must name its type"
    )]
    kind: String,
}

#[derive(Deserialize)]
struct Rendering {
    content: RenderedContent,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RenderedContent {
    Text(String),
    Blocks(Vec<RenderedBlock>),
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum RenderedBlock {
    Text { text: String },
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CompactMetadata {
    #[serde(default)]
    preserved_segment: Option<PreservedSegment>,
    #[serde(default)]
    preserved_messages: Option<PreservedMessages>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PreservedSegment {
    #[serde(default)]
    head_uuid: Option<String>,
    #[serde(default)]
    tail_uuid: Option<String>,
}

#[derive(Deserialize)]
struct PreservedMessages {
    #[serde(default)]
    uuids: Vec<String>,
}

fn push_text(out: &mut String, text: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
}

/// [`push_text`] of a text as the line holds it: taken as it is (borrowed or moved, never
/// copied) into an empty `out`.
fn push_owned<'a>(out: &mut Cow<'a, str>, text: Cow<'a, str>) {
    if out.is_empty() {
        *out = text;
    } else {
        push_text(out.to_mut(), &text);
    }
}

/// [`push_owned`] of texts whose place the line may say: a text taken whole keeps it, a
/// joined one has none.
fn push_txt<'a>(out: &mut Txt<'a>, text: Txt<'a>) {
    if out.text.is_empty() {
        *out = text;
    } else {
        push_text(out.text.to_mut(), &text.text);
        out.raw = None;
    }
}

/// The longest uuid a row may name, in bytes. Claude Code's are 36; one far longer is no
/// uuid, and a missing one would be written out whole in a window's id and the history
/// notice, crowding every event out of an answer.
pub const UUID_MAX_BYTES: usize = 256;

/// Refuses a uuid (of field `name`) longer than [`UUID_MAX_BYTES`].
fn uuid_sized(name: &str, id: Option<&String>) -> Result<(), String> {
    match id {
        Some(id) if id.len() > UUID_MAX_BYTES => Err(format!(
            "`{name}` names a uuid of {} bytes (a uuid is at most {UUID_MAX_BYTES})",
            id.len()
        )),
        _ => Ok(()),
    }
}

/// Checks a conversation row of `kind` and turns it into events. `Err` is the reason.
pub(crate) fn check(kind: Kind, raw: &RawRow<'_>) -> Result<Row, String> {
    check_with(kind, raw, || message_events(kind, raw)).map(Row::whole)
}

/// [`check`], with the events of a user or assistant row from `message_events`, bodies as
/// the line holds them.
fn check_with<'a, M>(
    kind: Kind,
    raw: &RawRow<'_, M>,
    message_events: impl FnOnce() -> Result<Vec<(Role, Ev<'a>)>, String>,
) -> Result<Row<Ev<'a>>, String> {
    let uuid: String = field(raw.uuid, "uuid")?;
    if uuid.is_empty() {
        return Err("empty `uuid`".into());
    }
    let parent: Option<String> = field(raw.parent_uuid, "parentUuid")?;
    let logical_parent: Option<String> = optional(raw.logical_parent_uuid, "logicalParentUuid")?;
    for (name, id) in [
        ("uuid", Some(&uuid)),
        ("parentUuid", parent.as_ref()),
        ("logicalParentUuid", logical_parent.as_ref()),
    ] {
        uuid_sized(name, id)?;
    }
    let is_sidechain: bool = field(raw.is_sidechain, "isSidechain")?;
    let session_id: String = field(raw.session_id, "sessionId")?;
    let timestamp: Option<String> = optional(raw.timestamp, "timestamp")?;
    let mut compact = false;
    let mut preserved = Vec::new();
    let events = match kind {
        Kind::User | Kind::Assistant => message_events()?,
        Kind::System => {
            let (events, boundary) = system_events(raw)?;
            if let Some(uuids) = boundary {
                for id in &uuids {
                    uuid_sized("compactMetadata", Some(id))?;
                }
                compact = true;
                preserved = uuids;
            }
            events
        }
        Kind::Attachment => attachment_events(raw)?,
    };
    let boot = match (kind, events.first()) {
        (Kind::User | Kind::Attachment, Some((_, Ev::Text(text)))) => boot_ordinal(text),
        _ => None,
    };
    Ok(Row {
        kind,
        uuid,
        parent,
        logical_parent,
        is_sidechain,
        session_id,
        timestamp,
        compact,
        preserved,
        events,
        boot,
        elided: None,
    })
}

/// A message's `content` as written: plain text (user rows only) or blocks (their results'
/// content read as `C`, their texts as `T`).
enum Content<'a, C = Present<'a>, T = Decoded<'a>> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a, C, T>>),
}

/// The events of a user or assistant row (checked by the line-at-once parse, the role
/// and content already parsed): the message (visible text only), then one per tool call
/// or result block.
fn message_events_of<'a, M, C: ResultContent<'a>, T: BlockText<'a>>(
    kind: Kind,
    raw: &RawRow<'_, M>,
    role: &str,
    content: impl FnOnce() -> Result<Content<'a, C, T>, String>,
) -> Result<Vec<(Role, Ev<'a>)>, String> {
    if role != kind.name() {
        return Err(format!(
            "a {} row whose message role is {:?}",
            kind.name(),
            role
        ));
    }
    let summary: Option<bool> = optional(raw.is_compact_summary, "isCompactSummary")?;
    let role = match (kind, summary) {
        (Kind::Assistant, _) => Role::Assistant,
        (_, Some(true)) => Role::Summary,
        _ => Role::User,
    };
    let (mut visible, blocks) = match content()? {
        Content::Text(_) if kind == Kind::Assistant => {
            return Err("assistant `message.content` must be a list of blocks".into());
        }
        Content::Text(text) => (Txt::of(text), Vec::new()),
        Content::Blocks(blocks) => (Txt::of(Cow::Borrowed("")), blocks),
    };
    let mut events = Vec::with_capacity(1 + blocks.len());
    events.push((role, Ev::Text(Txt::of(Cow::Borrowed("")))));
    for block in blocks {
        let kind = block.kind.as_ref();
        // Decoded whatever the block's type (a `text` that does not decode refuses the line).
        let text = block.text.text()?;
        match kind {
            "text" => push_txt(
                &mut visible,
                text.ok_or_else(|| format!("a `{kind}` block without `text`"))?,
            ),
            "image" | "document" | "thinking" | "redacted_thinking" => {}
            "tool_use" | "server_tool_use" | "mcp_tool_use" => events.push((
                Role::Tool,
                Ev::Call {
                    id: need(block.id, kind, "id")?,
                    name: need(block.name, kind, "name")?,
                    input: need(block.input, kind, "input")?.get(),
                },
            )),
            "tool_result"
            | "mcp_tool_result"
            | "web_search_tool_result"
            | "web_fetch_tool_result"
            | "code_execution_tool_result" => {
                let text = if kind == "tool_result" || kind == "mcp_tool_result" {
                    block.content.text()?
                } else {
                    Txt::of(Cow::Borrowed("")) // server results are structured, not text
                };
                events.push((
                    Role::Tool,
                    Ev::Result {
                        id: need(block.tool_use_id, kind, "tool_use_id")?,
                        text,
                        is_error: block.is_error.unwrap_or(false),
                    },
                ));
            }
            other => return Err(format!("unsupported content block type {other:?}")),
        }
    }
    events[0].1 = Ev::Text(visible);
    Ok(events)
}

/// The events of a user or assistant row whose `message` is still raw.
fn message_events<'a>(kind: Kind, raw: &RawRow<'a>) -> Result<Vec<(Role, Ev<'a>)>, String> {
    let message: Message<'a> = field(raw.message.0, "message")?;
    let raw_content = message.content.get();
    message_events_of(
        kind,
        raw,
        &message.role,
        || -> Result<Content<'a>, String> {
            if raw_content.starts_with('"') {
                if kind == Kind::Assistant {
                    // Refused before the text is parsed, as `message_events_of` would.
                    return Ok(Content::Text(Cow::Borrowed("")));
                }
                serde_json::from_str::<String>(raw_content)
                    .map(|text| Content::Text(Cow::Owned(text)))
                    .map_err(|err| format!("`message.content`: {err}"))
            } else {
                serde_json::from_str(raw_content)
                    .map(Content::Blocks)
                    .map_err(|err| format!("`message.content`: {err}"))
            }
        },
    )
}

/// The notice of a system row, and for a compact boundary its preserved uuids.
#[allow(clippy::type_complexity, reason = "a private helper's pair of results")]
fn system_events<'a, M>(
    raw: &RawRow<'_, M>,
) -> Result<(Vec<(Role, Ev<'a>)>, Option<Vec<String>>), String> {
    let subtype: Option<String> = optional(raw.subtype, "subtype")?;
    let content: Option<String> = optional(raw.content, "content")?;
    let mut boundary = None;
    if subtype.as_deref() == Some("compact_boundary") {
        let meta: Option<CompactMetadata> = optional(raw.compact_metadata, "compactMetadata")?;
        let meta = meta.unwrap_or_default();
        let mut preserved = Vec::new();
        if let Some(messages) = meta.preserved_messages {
            preserved.extend(messages.uuids);
        }
        if let Some(segment) = meta.preserved_segment {
            preserved.extend(segment.head_uuid);
            preserved.extend(segment.tail_uuid);
        }
        boundary = Some(preserved);
    }
    let text = content.unwrap_or_default();
    Ok((
        vec![(Role::Notice, Ev::Text(Txt::of(Cow::Owned(text))))],
        boundary,
    ))
}

/// The event of an attachment row: its recorded rendering (never the raw payload).
fn attachment_events<'a, M>(raw: &RawRow<'_, M>) -> Result<Vec<(Role, Ev<'a>)>, String> {
    let _: AttachmentInfo = field(raw.attachment, "attachment")?;
    let rendered: Option<Vec<Rendering>> = optional(raw.rendered, "rendered")?;
    let mut visible = String::new();
    for rendering in rendered.unwrap_or_default() {
        match rendering.content {
            RenderedContent::Text(text) => push_text(&mut visible, &text),
            RenderedContent::Blocks(blocks) => {
                for RenderedBlock::Text { text } in blocks {
                    push_text(&mut visible, &text);
                }
            }
        }
    }
    Ok(vec![(
        Role::Attachment,
        Ev::Text(Txt::of(Cow::Owned(visible))),
    )])
}

/// The ordinal a complete retained Claude boot block in `text` names (the window module
/// of history-core says what a complete block is).
pub(crate) fn boot_ordinal(text: &str) -> Option<u64> {
    retained_window(text)
        .filter(|w| w.host() == Host::Claude.name())
        .map(|w| u64::from(w.ordinal()))
}

/// What the line-at-once parse made of a line.
#[allow(
    clippy::large_enum_variant,
    reason = "made once per line and moved into the decoder: a box would be one more allocation per line"
)]
pub(crate) enum Fast {
    /// A checked conversation row.
    Row(Row),
    /// A valid record of another type (metadata: no address).
    Other,
}

/// A user or assistant message, its content parsed in place.
#[derive(Deserialize)]
struct FastMessage<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(borrow)]
    content: Content<'a, Kept<'a>, Option<Lit<'a>>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a, Kept<'a>, Option<Lit<'a>>> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match text_or_list::<D, Block<'a, Kept<'a>, Option<Lit<'a>>>>(
            d,
            "a string or a list of content blocks",
        )? {
            TextOrList::Text(text) => Ok(Content::Text(text)),
            TextOrList::List(blocks) => Ok(Content::Blocks(blocks)),
            // A message's content is never null: the field-by-field parse decides.
            TextOrList::Null => Err(serde::de::Error::invalid_type(
                serde::de::Unexpected::Unit,
                &"a string or a list of content blocks",
            )),
        }
    }
}

/// The line-at-once parse of `line`: `None` when it is not sure (the line is not UTF-8,
/// does not parse in this shape, or its row does not check), and the caller then decides
/// with [`RawRow`] and [`check`], whose refusal names the reason. It only ever accepts
/// what that path accepts, and makes the same row of it: every field but `message` is
/// the same raw field checked by the same code, and `message` is read by the same
/// [`Block`] type into the same [`message_events_of`]; a `message` of any other shape,
/// which a metadata record may carry, fails this parse and goes that way.
pub(crate) fn fast(line: &[u8]) -> Option<Fast> {
    one_pass(line, Row::whole)
}

/// A picker of texts and the list of the events it picked.
pub(crate) type Picking<'p> = (&'p dyn Fn(&str) -> bool, &'p mut Vec<u32>);

/// [`fast`], the row kept `whole` or else skimmed ([`Row::skimmed`]): the same parse,
/// which checks every byte of the line, and the same acceptance, but no body is kept:
/// texts the line holds without escapes are hashed where they lie, inputs are never copied.
///
/// With `spans`, where the row's bodies lie in the line is added to it ([`spans::find_in`]).
/// With `picking`, the index of each of the row's events whose text (a visible text, a
/// call's input, a result's text) its picker picks is added to its list.
pub(crate) fn skim(
    line: &[u8],
    whole: bool,
    spans: Option<&mut spans::Found>,
    picking: Option<Picking<'_>>,
) -> Option<Fast> {
    one_pass(line, |row| {
        if let Some(out) = spans {
            let bodies = row.events.iter().map(|(_, ev)| match ev {
                Ev::Text(text) | Ev::Result { text, .. } => {
                    (text.as_bytes(), true, text.raw.map(str::as_bytes))
                }
                Ev::Call { input, .. } => (input.as_bytes(), false, Some(input.as_bytes())),
            });
            spans::find_in(line, bodies, out);
        }
        if let Some((pick, picked)) = picking {
            picked.extend(
                row.events
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, ev))| pick(ev.text()))
                    .filter_map(|(k, _)| u32::try_from(k).ok()),
            );
        }
        if whole { row.whole() } else { row.skimmed() }
    })
}

/// The one-pass parse, the row's bodies as the line holds them made into the row the
/// caller keeps by `finish`.
fn one_pass<'a>(line: &'a [u8], finish: impl FnOnce(Row<Ev<'a>>) -> Row) -> Option<Fast> {
    let text = std::str::from_utf8(line).ok()?;
    // A record parsed in one pass over the line: `message` parsed in place rather than kept
    // raw (the raw form costs a second and a third scan of the message, the bulk of a line);
    // only its texts and tool results' contents are kept as their literals, each then
    // decoded once (so the parse knows where the line writes them).
    let mut raw: RawRow<'a, Option<FastMessage<'a>>> = serde_json::from_str(text).ok()?;
    let kind_name: Cow<'_, str> = serde_json::from_str(raw.kind?.get()).ok()?;
    let Some(kind) = Kind::parse(&kind_name) else {
        return Some(Fast::Other);
    };
    let message = raw.message.take();
    check_with(kind, &raw, || {
        let message = message.ok_or_else(|| "missing `message`".to_owned())?;
        message_events_of(kind, &raw, &message.role, || Ok(message.content))
    })
    .ok()
    .map(|row| Fast::Row(finish(row)))
}
