//! A version's record: how many raw bytes it holds, which file they were kept from, and its
//! pieces, each with its own hash.

use std::fmt::Write as _;

use notesoup_safe_fs::Dir;

use crate::{MAX_RAW, PIECE_MAX};

const HEADER: &str = "notesoup-vault 2";

/// One piece of a version: one zstd frame of `raw` bytes, `stored` on disk, its raw bytes
/// hashing (xxh64) to `hash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) raw: u64,
    pub(crate) stored: u64,
    pub(crate) hash: u64,
}

/// `v<N>.record`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) raw: u64,
    /// The original's device and inode at the last keep (`None`: not known).
    pub(crate) file: Option<(u64, u64)>,
    pub(crate) pieces: Vec<Piece>,
}

impl Record {
    pub(crate) fn to_text(&self) -> String {
        let file = self
            .file
            .map_or_else(|| "-".to_owned(), |(dev, ino)| format!("{dev}:{ino}"));
        let mut text = format!("{HEADER}\n{} {file}\n", self.raw);
        for p in &self.pieces {
            let _ = writeln!(text, "{} {} {:016x}", p.raw, p.stored, p.hash);
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
        let (raw, file) = lines
            .next()
            .and_then(|l| l.split_once(' '))
            .ok_or_else(bad)?;
        let file = match file {
            "-" => None,
            pair => {
                let (dev, ino) = pair.split_once(':').ok_or_else(bad)?;
                Some((
                    dev.parse().map_err(|_| bad())?,
                    ino.parse().map_err(|_| bad())?,
                ))
            }
        };
        let mut record = Record {
            raw: raw.parse().map_err(|_| bad())?,
            file,
            pieces: Vec::new(),
        };
        for line in lines {
            let mut fields = line.split(' ');
            let (Some(raw), Some(stored), Some(hash), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(bad());
            };
            record.pieces.push(Piece {
                raw: raw.parse().map_err(|_| bad())?,
                stored: stored.parse().map_err(|_| bad())?,
                hash: u64::from_str_radix(hash, 16).map_err(|_| bad())?,
            });
        }
        if record.pieces.iter().map(|p| p.raw).sum::<u64>() != record.raw {
            return Err(format!(
                "{name}: its pieces do not add up to {} bytes",
                record.raw
            ));
        }
        // What a keep writes, and so all a read will produce or load: a version of at most
        // MAX_RAW bytes, pieces of at most PIECE_MAX (stored in at most twice that: a zstd
        // frame of PIECE_MAX bytes is never larger).
        if record.raw > MAX_RAW {
            return Err(format!(
                "{name} claims {} bytes, over the {MAX_RAW} a copy holds",
                record.raw
            ));
        }
        if let Some(p) = record
            .pieces
            .iter()
            .find(|p| p.raw > PIECE_MAX || p.stored > 2 * PIECE_MAX)
        {
            return Err(format!(
                "{name} claims a piece of {} bytes stored in {}, over the {PIECE_MAX} a piece holds",
                p.raw, p.stored
            ));
        }
        Ok(record)
    }
}
