//! [`SharedText`]: a text that many events hold without a copy or an allocation each, as a
//! range of one buffer that many texts may share (a record's id and timestamp are held by
//! each of its events; a decoder may read every record's into one buffer).

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// A text shared by reference: `all[start..start + len]`, where `all` may hold many texts.
/// It reads as a `str` (it derefs to one), compares by its text, and is cloned by a count.
/// Two words: the buffer is an `Arc<String>` (one pointer), not an `Arc<str>` (two).
#[derive(Clone)]
pub struct SharedText {
    all: Arc<String>,
    start: u32,
    len: u32,
}

impl SharedText {
    /// The text `range` of `all`; `None` unless `range` lies in it on char boundaries, and
    /// ends before 4 GiB (a buffer of texts is never that large).
    pub fn within(all: &Arc<String>, range: Range<usize>) -> Option<Self> {
        all.get(range.clone())?;
        Some(Self {
            all: Arc::clone(all),
            start: u32::try_from(range.start).ok()?,
            len: u32::try_from(range.len()).ok()?,
        })
    }

    /// `first` and `second` (a record's id and timestamp, say) in one buffer of their own:
    /// two allocations in all (the buffer and its count), as two `Arc<str>`s take.
    pub fn pair(first: &str, second: Option<&str>) -> (Self, Option<Self>) {
        let mut both = String::with_capacity(first.len() + second.map_or(0, str::len));
        both.push_str(first);
        both.push_str(second.unwrap_or_default());
        let all = Arc::new(both);
        let whole = |range: Range<usize>| Self::within(&all, range);
        let cut = first.len();
        let first = whole(0..cut).unwrap_or_else(|| Self::from(first));
        let second =
            second.map(|text| whole(cut..cut + text.len()).unwrap_or_else(|| Self::from(text)));
        (first, second)
    }

    /// The text as a `str`.
    pub fn as_str(&self) -> &str {
        let start = self.start as usize;
        // `within` and `From` check the range once; it cannot miss.
        self.all
            .get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

impl Deref for SharedText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for SharedText {
    /// The whole of `text`, in a buffer of its own (moved, not copied); a text of 4 GiB or
    /// more is cut to its first char boundary under 4 GiB.
    fn from(mut text: String) -> Self {
        let mut len = text.len().min(u32::MAX as usize);
        while !text.is_char_boundary(len) {
            len -= 1;
        }
        text.truncate(len);
        Self {
            len: u32::try_from(len).unwrap_or(0),
            all: Arc::new(text),
            start: 0,
        }
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> Self {
        Self::from(text.to_owned())
    }
}

impl PartialEq for SharedText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedText {}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::SharedText;

    /// Texts of one buffer read as their ranges, compare by text whatever buffer holds
    /// them, and a range off the buffer or off a char boundary is refused.
    #[test]
    fn a_range_of_a_shared_buffer_reads_and_compares_as_its_text() {
        let all = Arc::new("uuid-1é2026".to_owned());
        let uuid = SharedText::within(&all, 0..6).unwrap();
        let stamp = SharedText::within(&all, 8..12).unwrap();
        assert_eq!(&*uuid, "uuid-1");
        assert_eq!(stamp.as_str(), "2026");
        assert_eq!(uuid, SharedText::from("uuid-1"));
        assert_ne!(uuid, stamp);
        assert_eq!(format!("{uuid} {stamp:?}"), "uuid-1 \"2026\"");
        assert!(SharedText::within(&all, 6..7).is_none(), "inside é");
        assert!(SharedText::within(&all, 8..13).is_none(), "past the end");
        assert_eq!(&*SharedText::within(&all, 12..12).unwrap(), "");
        assert_eq!(&*SharedText::from(String::from("é")), "é");
        let (id, stamp) = SharedText::pair("id-é", Some("2026"));
        assert_eq!((&*id, stamp.as_deref()), ("id-é", Some("2026")));
        assert!(Arc::ptr_eq(&id.all, &stamp.unwrap().all), "one buffer");
        assert_eq!(SharedText::pair("id", None), (SharedText::from("id"), None));
    }
}
