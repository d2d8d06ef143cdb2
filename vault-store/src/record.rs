//! A version's record: how many raw bytes it holds, their hash, and its pieces.

use std::fmt::Write as _;

use notesoup_safe_fs::Dir;

const HEADER: &str = "notesoup-vault 1";

/// One piece of a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) raw: u64,
    pub(crate) stored: u64,
}

/// `v<N>.record`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) raw: u64,
    pub(crate) hash: u64,
    pub(crate) pieces: Vec<Piece>,
}

impl Record {
    pub(crate) fn to_text(&self) -> String {
        let mut text = format!("{HEADER}\n{} {:016x}\n", self.raw, self.hash);
        for p in &self.pieces {
            let _ = writeln!(text, "{} {}", p.raw, p.stored);
        }
        text
    }

    /// Version `n`'s record; any deviation from the format is an error naming it.
    pub(crate) fn load(session: &Dir, n: u32) -> Result<Self, String> {
        let name = format!("v{n}.record");
        let bytes = session
            .read(&name, 1 << 20)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("{name} is missing"))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{name} is not text"))?;
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Err(format!("{name} is not a vault record"));
        }
        let bad = || format!("{name} is malformed");
        let (raw, hash) = lines
            .next()
            .and_then(|l| l.split_once(' '))
            .ok_or_else(bad)?;
        let mut record = Record {
            raw: raw.parse().map_err(|_| bad())?,
            hash: u64::from_str_radix(hash, 16).map_err(|_| bad())?,
            pieces: Vec::new(),
        };
        for line in lines {
            let (raw, stored) = line.split_once(' ').ok_or_else(bad)?;
            record.pieces.push(Piece {
                raw: raw.parse().map_err(|_| bad())?,
                stored: stored.parse().map_err(|_| bad())?,
            });
        }
        if record.pieces.iter().map(|p| p.raw).sum::<u64>() != record.raw {
            return Err(format!(
                "{name}: its pieces do not add up to {} bytes",
                record.raw
            ));
        }
        Ok(record)
    }
}
