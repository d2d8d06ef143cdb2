//! URIs as MCP clients send them: a `file://` root, a percent-escaped resource name.

use std::path::PathBuf;

/// The local path a `file://` URI names (`file:///a%20b` → `/a b`), `None` for anything
/// else.
pub(crate) fn file_uri_path(uri: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt as _;

    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(percent_decode(
        rest,
    )?)))
}

/// The bytes a URI's percent-escaped text stands for (`a%20b` → `a b`), `None` when an
/// escape is not two hex digits.
pub(crate) fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}
