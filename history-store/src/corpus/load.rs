//! A session's whole history: a Claude transcript to its last leaf, a Pi session with the
//! files it continues (`parentSession`), a Codex thread with its bases (`history_base`).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{BufRead, Cursor, Read as _};
use std::path::PathBuf;

use notesoup_history_claude::{Head, Options};
use notesoup_history_codex::{CodexFile, CodexSource, Meta};
use notesoup_history_core::{History, LeaveOut, LeftOut, LineReader, Transcript};
use notesoup_history_pi::{PiFile, parent_session, session_id_from_file_name};
use notesoup_vault_store::Refusal;
use notesoup_window::Host;

use super::left_bodies::{LeftBodies, LineBodies};
use super::read::{CodexOpened, Opened};
use super::{Corpus, Found, found_file};
use crate::StoreError;
use crate::transcript_index::{Cache, read_transcript};

/// Where a Pi or Codex decode keeps the session's large bodies.
#[derive(Clone, Copy)]
enum Bodies<'a> {
    /// In the transcript (what [`Corpus::load`] answers).
    Held,
    /// In the harness's files, which of them hold `literal` (a search's) noted.
    InFiles { literal: Option<&'a str> },
}

/// A Pi or Codex session decoded, its large bodies left in its files when asked: where they
/// lie, and the files, as the decoder numbered them.
struct Decoded {
    transcript: Transcript,
    /// One entry per event (empty when no body was left out).
    left: Vec<Option<LeftOut>>,
    files: Vec<Option<std::fs::File>>,
    names: Vec<String>,
}

impl Decoded {
    /// The decode's history: the bodies left out read again by `reload`.
    fn history(self, literal: Option<&str>, reload: LineBodies) -> Result<History, StoreError> {
        if self.left.is_empty() {
            return Ok(History::new(self.transcript)?);
        }
        LeftBodies::history(
            self.transcript,
            self.left,
            self.files,
            self.names,
            literal,
            reload,
        )
    }
}

/// A session file's first line, and the file open past it ([`Corpus::opened`]).
struct Headed {
    head: Vec<u8>,
    rest: Opened,
}

/// The longest history chain followed (forks of forks, segments of segments).
pub(super) const MAX_CHAIN: usize = 64;

impl Corpus {
    /// A Claude transcript only the vault holds, decoded whole to its last leaf as the vault
    /// gives it, a piece at a time (a damaged piece is the vault's refusal).
    fn vaulted_claude(&self, found: &Found) -> Result<Transcript, StoreError> {
        let options = Options {
            session: Some(found.id.clone()),
            sidechain: false,
        };
        let mut reader = self.vaulted_reader(found)?;
        notesoup_history_claude::decode_from(&mut reader, &options, &Head::Leaf).map_err(|source| {
            match reader.take_failure() {
                Some(failure) => failure.into(),
                None => StoreError::Claude {
                    path: found.path.clone(),
                    source,
                },
            }
        })
    }

    /// [`Corpus::load`] with `files` listing a harness's session files.
    pub(super) fn load_among(
        &self,
        found: &Found,
        cache: Option<&Cache>,
        files: &dyn Fn(Host) -> Vec<Found>,
    ) -> Result<Transcript, StoreError> {
        match found.harness {
            Host::Claude if found.vaulted.is_some() => self.vaulted_claude(found),
            Host::Claude => {
                let options = Options {
                    session: Some(found.id.clone()),
                    sidechain: false,
                };
                read_transcript(&found.path, &options, &Head::Leaf, cache)
            }
            Host::Pi => self
                .load_pi(found, &files(Host::Pi), Bodies::Held)
                .map(|decoded| decoded.transcript),
            Host::Codex => self
                .load_codex(found, &files(Host::Codex), Bodies::Held)
                .map(|decoded| decoded.transcript),
            // An MCP client has no sessions of its own: no scan finds one.
            Host::Mcp => Err(StoreError::NoFile {
                harness: found.harness,
                id: found.id.clone(),
            }),
        }
    }

    /// The history of the session `found` names, for an answer that searches it for
    /// `query`, if any (`files` lists a harness's session files): a Claude transcript
    /// through its index (see [`read_history`](crate::read_history)); a Pi or Codex session
    /// with its bodies of [`Corpus::leaving_bodies_of`] bytes or more left in the harness's
    /// files (which of them hold `query` noted as they are decoded), read again where an
    /// answer shows them.
    pub(super) fn history_among(
        &self,
        found: &Found,
        cache: Option<&Cache>,
        files: &dyn Fn(Host) -> Vec<Found>,
        query: Option<&str>,
    ) -> Result<History, StoreError> {
        match found.harness {
            Host::Claude if found.vaulted.is_none() => {
                let options = Options {
                    session: Some(found.id.clone()),
                    sidechain: false,
                };
                crate::read_history(&found.path, &options, &Head::Leaf, cache, query)
            }
            Host::Pi => self
                .load_pi(found, &files(Host::Pi), Bodies::InFiles { literal: query })?
                .history(query, notesoup_history_pi::line_bodies),
            Host::Codex => self
                .load_codex(
                    found,
                    &files(Host::Codex),
                    Bodies::InFiles { literal: query },
                )?
                .history(query, notesoup_history_codex::line_bodies),
            _ => Ok(History::new(self.load_among(found, cache, files)?)?),
        }
    }

    /// A Pi session's file and, following `parentSession`, the files it continues, each
    /// read line by line (a file's first line is read first, to find the one it continues).
    /// `bodies` says where the large bodies of the harness's files are kept.
    fn load_pi(
        &self,
        found: &Found,
        files: &[Found],
        bodies: Bodies<'_>,
    ) -> Result<Decoded, StoreError> {
        let index: HashMap<&str, &Found> = files.iter().map(|f| (f.id.as_str(), f)).collect();
        let lookup = |id: &str| index.get(id).map(|f| (*f).clone());
        let mut chain = vec![found.clone()];
        let mut opened = vec![self.headed(found)?];
        let mut seen: HashSet<PathBuf> = HashSet::from([found.path.clone()]);
        while let (Some(at), Some(Headed { head, .. })) = (chain.last(), opened.last())
            && chain.len() < MAX_CHAIN
        {
            let Some(next) = self.pi_parent(at, head, &lookup)? else {
                break;
            };
            if !seen.insert(next.path.clone()) {
                return Err(StoreError::PiCycle { path: next.path });
            }
            opened.push(self.headed(&next)?);
            chain.push(next);
        }
        let names: Vec<String> = chain.iter().map(|f| f.path.display().to_string()).collect();
        let mut handles = Vec::with_capacity(opened.len());
        let refusals: Vec<Refusal> = opened
            .iter()
            .filter_map(|h| h.rest.refusal.clone())
            .collect();
        let mut lines = names
            .iter()
            .zip(opened)
            .map(|(name, Headed { head, rest })| {
                handles.push(rest.file);
                LineReader::new(name, Cursor::new(head).chain(rest.reader))
            });
        let selected = lines.next().ok_or_else(|| StoreError::NoFile {
            harness: found.harness,
            id: found.id.clone(),
        })?;
        let ancestors = lines.collect();
        self.decoded(bodies, handles, names, |leave| match leave {
            Some(leave) => notesoup_history_pi::decode_leaving(selected, ancestors, leave),
            None => notesoup_history_pi::decode_from(selected, ancestors).map(|t| (t, Vec::new())),
        })
        .map_err(|err| refused(&refusals, err))
    }

    /// A decode by `decode` of the files `files` (named `names`, as the decoder numbers
    /// them; `None` for one that cannot be read again): handed a [`LeaveOut`] when `bodies`
    /// says to leave the large bodies in the files, which are then kept to read them again.
    fn decoded<E>(
        &self,
        bodies: Bodies<'_>,
        files: Vec<Option<std::fs::File>>,
        names: Vec<String>,
        decode: impl FnOnce(Option<&LeaveOut<'_>>) -> Result<(Transcript, Vec<Option<LeftOut>>), E>,
    ) -> Result<Decoded, StoreError>
    where
        StoreError: From<E>,
    {
        let Bodies::InFiles { literal } = bodies else {
            let (transcript, _) = decode(None)?;
            return Ok(Decoded {
                transcript,
                left: Vec::new(),
                files: Vec::new(),
                names,
            });
        };
        let readable: Vec<bool> = files.iter().map(Option::is_some).collect();
        let leave = LeaveOut {
            min_bytes: self.left_in_file,
            literal,
            files: &readable,
        };
        let (transcript, left) = decode(Some(&leave))?;
        Ok(Decoded {
            transcript,
            left,
            files,
            names,
        })
    }

    /// A session file ([`Corpus::opened`]) with its first line read.
    fn headed(&self, found: &Found) -> Result<Headed, StoreError> {
        let mut rest = self.opened(found)?;
        let mut head = Vec::new();
        rest.reader.read_until(b'\n', &mut head).map_err(|source| {
            let err = StoreError::SessionFile {
                path: found.path.clone(),
                source,
            };
            refused(rest.refusal.as_slice(), err)
        })?;
        Ok(Headed { head, rest })
    }

    /// The file the Pi session file `at` continues (`parentSession` in its header, read from
    /// `bytes`, its start), if there is one: by id among the Pi files (`by_id`: the sessions
    /// folders, or the vault) first, since the home may have moved, else the path as
    /// written, followed only inside the Pi sessions folders. A parent that is gone ends the
    /// chain (the decoder reports the gap).
    pub(super) fn pi_parent(
        &self,
        at: &Found,
        bytes: &[u8],
        by_id: &dyn Fn(&str) -> Option<Found>,
    ) -> Result<Option<Found>, StoreError> {
        let name = at.path.display().to_string();
        let Some(parent) = parent_session(&PiFile { name: &name, bytes })? else {
            return Ok(None);
        };
        if let Some(next) = session_id_from_file_name(&parent).and_then(by_id) {
            return Ok(Some(next));
        }
        let named = PathBuf::from(&parent);
        if !named.is_file() {
            return Ok(None);
        }
        // Followed only inside the Pi sessions folders, links resolved on both sides.
        let inside = fs::canonicalize(&named).is_ok_and(|real| {
            self.folders(Host::Pi)
                .iter()
                .filter_map(|root| fs::canonicalize(root).ok())
                .any(|root| real.starts_with(root))
        });
        if inside {
            let id = session_id_from_file_name(&parent).unwrap_or_default();
            Ok(Some(found_file(Host::Pi, id, &named, None, "")))
        } else {
            Err(StoreError::ParentOutside {
                child: at.path.clone(),
                parent: named,
            })
        }
    }

    /// A Codex thread's file and, following `history_base`, the files it continues, each
    /// opened (only its first line read, to find the next) and handed to the decoder, which
    /// reads each once, line by line. `bodies` says where the large bodies of the harness's
    /// plain files are kept.
    fn load_codex(
        &self,
        found: &Found,
        all: &[Found],
        bodies: Bodies<'_>,
    ) -> Result<Decoded, StoreError> {
        let mut chain: Vec<(String, CodexOpened)> = Vec::new();
        let mut at = found.clone();
        let mut seen: HashSet<PathBuf> = HashSet::new();
        loop {
            if !seen.insert(at.path.clone()) || chain.len() >= MAX_CHAIN {
                return Err(StoreError::CodexCycle { path: at.path });
            }
            let opened = self.open_codex(&at)?;
            let next = base_among(&opened.meta, all);
            chain.push((at.path.display().to_string(), opened));
            match next {
                Some(file) => at = file,
                None => break,
            }
        }
        chain.reverse();
        let files: Vec<Option<std::fs::File>> = chain
            .iter_mut()
            .map(|(_, opened)| opened.file.take())
            .collect();
        let names: Vec<String> = chain.iter().map(|(name, _)| name.clone()).collect();
        let refusals: Vec<Refusal> = chain
            .iter()
            .filter_map(|(_, opened)| opened.refusal.clone())
            .collect();
        let mut sources: Vec<CodexSource<'_>> = chain
            .iter_mut()
            .map(|(name, opened)| CodexSource {
                name,
                reader: &mut *opened.reader,
                compressed: opened.compressed,
            })
            .collect();
        self.decoded(bodies, files, names, |leave| match leave {
            Some(leave) => notesoup_history_codex::decode_leaving(&mut sources, leave),
            None => notesoup_history_codex::decode_from(&mut sources).map(|t| (t, Vec::new())),
        })
        .map_err(|err| refused(&refusals, err))
    }
}

/// `err`, the refusal of a decode that read vault copies whose refusals are `refusals`, as
/// the vault says it when one of them was damaged (`vault_damaged`), whatever the decoder
/// made of its failed read (`io_error`, or a `.jsonl.zst`'s `transcript_malformed`).
fn refused(refusals: &[Refusal], err: StoreError) -> StoreError {
    refusals
        .iter()
        .find_map(Refusal::take)
        .map_or(err, StoreError::from)
}

/// The file the Codex rollout `at` continues (`history_base` in its first line, read from
/// `bytes`, its start: the first line is enough), if there is one among `all` (the Codex
/// files): a segment by segment id, or a thread's base file by thread id. A base that is
/// gone ends the chain (the decoder reports it missing).
pub(super) fn codex_base(
    at: &Found,
    bytes: &[u8],
    all: &[Found],
) -> Result<Option<Found>, StoreError> {
    let name = at.path.display().to_string();
    let meta = notesoup_history_codex::meta(&CodexFile { name: &name, bytes })?;
    Ok(base_among(&meta, all))
}

/// The file a rollout whose `session_meta` is `meta` continues, among `all` (see
/// [`codex_base`]).
fn base_among(meta: &Meta, all: &[Found]) -> Option<Found> {
    let Some(base) = &meta.history_base else {
        return None;
    };
    let mut codex = all.iter().filter(|f| f.harness == Host::Codex);
    codex
        .clone()
        .find(|f| f.segment.as_deref() == Some(base.thread_id.as_str()))
        .or_else(|| codex.find(|f| f.segment.is_none() && f.id == base.thread_id))
        .cloned()
}
