//! One JSONL line to one checked row: the schemas of the four supported record types. A
//! message's content blocks are read in [`blocks`], and [`one_pass`] is the parse of a whole
//! line at once that stands in for the field-by-field one here when it can.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use notesoup_history_core::{Body, Role};
use notesoup_window::Host;
use notesoup_window::marker::retained_window;

use crate::elided::{BodyRef, Elided, blank, fingerprint};

mod blocks;
mod one_pass;

use blocks::{Block, BlockText, Decoded, ResultContent, need, push_text, push_txt};
pub(crate) use one_pass::{Fast, fast, skim};

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
    /// [`crate::spans::short_escaped`] of the text), when the parse knows it: a hint for
    /// [`crate::spans::find_in`], which takes it only where its own search would.
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
