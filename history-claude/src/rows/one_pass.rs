//! The one-pass parse of a line: the whole record, `message` parsed in place, with the
//! acceptance of the field-by-field parse it stands in for.

use std::borrow::Cow;

use serde::Deserialize;

use super::blocks::{Block, Kept, Lit, TextOrList, text_or_list};
use super::{Content, Ev, Kind, RawRow, Row, check_with, message_events_of};
use crate::spans;

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
/// with [`RawRow`] and [`check`](super::check), whose refusal names the reason. It only ever accepts
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
