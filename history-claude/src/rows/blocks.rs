//! A message's content blocks and the strings in them, as either parse reads them: the
//! field-by-field one (kept raw, decoded by `serde_json`) and the one-pass one (literals kept
//! where the line writes them, each decoded once).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Present, Txt};

/// A content block, every field borrowed or raw until its type says what it must hold (a
/// struct, not a tagged enum, so nothing is buffered twice). `C` is how a result's
/// `content` is read: kept raw ([`Present`], the field-by-field parse: read as a tool
/// result's only for a result block, by [`result_text`]; [`Kept`], the one-pass parse,
/// which decodes a string itself and so knows where the line writes it). `T` is how
/// `text` is read: decoded by `serde_json` ([`Decoded`], the field-by-field parse) or kept
/// as its literal ([`Lit`], the one-pass parse), decoded for every block all the same.
#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de> + Default, T: Deserialize<'de> + Default"))]
pub(super) struct Block<'a, C = Present<'a>, T = Decoded<'a>> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Cow<'a, str>,
    #[serde(default)]
    pub(super) text: T,
    #[serde(default, borrow)]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) input: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) content: C,
    #[serde(default)]
    pub(super) is_error: Option<bool>,
}

/// A block's `content` as either parse read it.
pub(super) trait ResultContent<'a> {
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
pub(super) struct Kept<'a>(Present<'a>);

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
pub(super) struct Decoded<'a>(#[serde(borrow)] Option<Cow<'a, str>>);

/// A block's `text` as either parse read it.
pub(super) trait BlockText<'a> {
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
pub(super) struct Lit<'a>(&'a str);

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
pub(super) enum TextOrList<'a, T> {
    Text(Cow<'a, str>),
    Null,
    List(Vec<T>),
}

/// The one-pass parse of a `content` field, in place: a string (borrowed from the line
/// when it has no escapes), `null`, or a list of `T`; anything else is an error naming
/// `expecting`. A message's content is read by it (a tool result's is kept raw: [`Kept`]).
pub(super) fn text_or_list<'de, D, T>(
    d: D,
    expecting: &'static str,
) -> Result<TextOrList<'de, T>, D::Error>
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

pub(super) fn need<T>(value: Option<T>, kind: &str, name: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("a `{kind}` block without `{name}`"))
}

/// The visible text of a tool result's `content`: a string, or the text of its text
/// blocks (images, documents and references add no text).
pub(super) fn result_text(content: Option<&RawValue>) -> Result<String, String> {
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
pub(super) fn result_blocks_text(blocks: Vec<ResultBlock<'_>>) -> Result<Cow<'_, str>, String> {
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
pub(super) struct ResultBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
}

pub(super) fn push_text(out: &mut String, text: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
}

/// [`push_text`] of a text as the line holds it: taken as it is (borrowed or moved, never
/// copied) into an empty `out`.
pub(super) fn push_owned<'a>(out: &mut Cow<'a, str>, text: Cow<'a, str>) {
    if out.is_empty() {
        *out = text;
    } else {
        push_text(out.to_mut(), &text);
    }
}

/// [`push_owned`] of texts whose place the line may say: a text taken whole keeps it, a
/// joined one has none.
pub(super) fn push_txt<'a>(out: &mut Txt<'a>, text: Txt<'a>) {
    if out.text.is_empty() {
        *out = text;
    } else {
        push_text(out.text.to_mut(), &text.text);
        out.raw = None;
    }
}
