//! A version's facts ([`Facts`]): what a listing of sessions shows of it, worked out from
//! its original when it is kept, so a listing reads them without decompressing the copy.
//!
//! They sit in `v<N>.facts` beside the version's record, for the record's `raw` bytes: a
//! keep that adds bytes without them (an earlier notesoup, a keep killed in between) leaves
//! facts of fewer bytes, which are not used. They are a summary of the copy, never its
//! bytes: a file that does not parse, or does not match the hash on its last line, is as
//! if it were not there. So they are written without a sync: a crash leaves the old file
//! (of fewer bytes than the record, so not used), the new one, or one its hash refuses.

use std::fmt::Write as _;

use notesoup_safe_fs::Dir;

const HEADER: &str = "notesoup-vault-facts 1";

/// What a listing shows of a kept version, as the reader of its harness's lines worked it
/// out from the original when the version was kept ([`Describe`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// The last time its lines record (milliseconds since the Unix epoch); `None`: none of
    /// them records one that is read (the listing then takes when the original was last
    /// written).
    pub last_time: Option<u64>,
    /// Its listing line from its start; `None` when it was not read whole (the listing
    /// then reads the copy's start, and says why it cannot).
    pub summary: Option<Summary>,
}

/// A kept version's listing line from its start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// When the session started, as the harness wrote it.
    pub started: Option<String>,
    /// The folder it ran in.
    pub cwd: Option<String>,
    /// The first prompt a person typed.
    pub first_prompt: Option<String>,
    /// The session it was forked from, as a selector.
    pub parent: Option<String>,
}

/// What works out a version's [`Facts`] as it is kept: given the harness, the original's
/// path, the original open, and how many of its first bytes the version holds (its bytes
/// are the file's up to there). The vault reads no harness's lines itself; whoever keeps
/// hands it this ([`Vault::describing`](crate::Vault::describing)).
pub type Describe =
    fn(harness: &str, original: &std::path::Path, file: &std::fs::File, raw: u64) -> Facts;

/// `v<N>.facts`.
pub(crate) fn name(version: u32) -> String {
    format!("v{version}.facts")
}

/// Records `facts` as version `version`'s, of `raw` bytes. Best effort and not synced
/// (they are a summary whose hash is checked): facts that cannot be written are not there,
/// and a listing reads the copy instead.
pub(crate) fn write(session: &Dir, version: u32, raw: u64, facts: &Facts) {
    let text = to_text(raw, facts);
    let _ = session.replace_with(name(version), |file| {
        std::io::Write::write_all(file, text.as_bytes())
    });
}

/// The text of `facts` for a version of `raw` bytes.
pub(crate) fn to_text(raw: u64, facts: &Facts) -> String {
    let mut text = format!("{HEADER}\n{raw}\n");
    match facts.last_time {
        Some(ms) => {
            let _ = writeln!(text, "last {ms}");
        }
        None => text.push_str("last -\n"),
    }
    if let Some(summary) = &facts.summary {
        text.push_str("summary\n");
        for (key, value) in [
            ("started", &summary.started),
            ("cwd", &summary.cwd),
            ("prompt", &summary.first_prompt),
            ("parent", &summary.parent),
        ] {
            if let Some(value) = value {
                let _ = writeln!(text, "{key} {}", escape(value));
            }
        }
    }
    let _ = writeln!(text, "xxh64 {:016x}", crate::xxh64(text.as_bytes()));
    text
}

/// The facts of version `n` when they are there, parse, and are of `raw` bytes (the
/// record's); `None` otherwise.
pub(crate) fn load(session: &Dir, n: u32, raw: u64) -> Option<Facts> {
    let bytes = session.read(name(n), 1 << 20).ok()??;
    let text = String::from_utf8(bytes).ok()?;
    let (of, facts) = parse(&text)?;
    (of == raw).then_some(facts)
}

/// The raw bytes a facts text is of, and its facts; `None` at any deviation.
pub(crate) fn parse(text: &str) -> Option<(u64, Facts)> {
    // Written without a sync (they are a summary): a file a crash left cut or garbled
    // does not match its hash.
    let body = text.strip_suffix('\n')?;
    let (body, hash) = body.rsplit_once('\n')?;
    let body = &text[..=body.len()];
    if u64::from_str_radix(hash.strip_prefix("xxh64 ")?, 16).ok()? != crate::xxh64(body.as_bytes())
    {
        return None;
    }
    let mut lines = body.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let raw = lines.next()?.parse().ok()?;
    let last_time = match lines.next()?.strip_prefix("last ")? {
        "-" => None,
        ms => Some(ms.parse().ok()?),
    };
    let mut facts = Facts {
        last_time,
        summary: None,
    };
    let Some(line) = lines.next() else {
        return Some((raw, facts));
    };
    if line != "summary" {
        return None;
    }
    let mut summary = Summary::default();
    for line in lines {
        let (key, value) = line.split_once(' ')?;
        let slot = match key {
            "started" => &mut summary.started,
            "cwd" => &mut summary.cwd,
            "prompt" => &mut summary.first_prompt,
            "parent" => &mut summary.parent,
            _ => return None,
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(unescape(value)?);
    }
    facts.summary = Some(summary);
    Some((raw, facts))
}

/// `value` on one line: `\` as `\\`, a line feed as `\n`, a carriage return as `\r`.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// [`escape`] undone; `None` for an escape it does not write.
fn unescape(value: &str) -> Option<String> {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            _ => return None,
        }
    }
    Some(out)
}
