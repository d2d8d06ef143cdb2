//! notesoup's per-session window records: the window state that must outlive a process.
//!
//! Every `claude -p` prompt is a new process, `claude -p --resume <id>` continues a session
//! in another one, and the hooks of one session run concurrently in several processes. The
//! reset flow's state (window ordinal, the once-per-window warning, input phases, the boot
//! handed to a compaction, the cap) therefore lives on disk, one small record per session:
//!
//! ```text
//! <notes home>/windows/<harness>/<session-id>.json
//!     {"v":1,"harness":"claude","session":"<session-id>","written_at_ms":<ms>,"state":<blob>}
//! ```
//!
//! The `state` is opaque here (the reset flow's versioned blob); this crate only keeps it
//! safely. A session's first write also tidies up: it removes its own temp files and any
//! other record's temp file older than [`TEMP_STALE`] (a killed writer's), and prunes at
//! most [`PRUNE_MAX`] records (and lock files) untouched for [`PRUNE_AFTER`] (30 days).
//! [`WindowStore::forget`] removes one session's record, lock and temp files (`notesoup
//! history forget`).
//!
//! # Invariants
//!
//! - **Refused rather than misread.** A record of another version, a malformed one, one
//!   that names another session (a copied file) or one over [`RECORD_MAX`] is an error
//!   ([`WindowStoreError::is_stale_record`]), never a guess; the caller rebuilds the state
//!   from the transcript and writes it over.
//! - **Atomic and never through a link.** Every open goes through `notesoup-safe-fs`: the
//!   `windows` and harness folders and the record are opened relative to directory handles
//!   without following links, only a regular file is read (a FIFO is refused at once, not
//!   waited on), reads are bounded, and a write is temp file → fsync → rename → fsync
//!   folder, so a reader or a crash sees the old record or the new one.
//! - **Read-modify-write under the session's own lock.** [`WindowStore::update`] and
//!   [`WindowStore::with_session`] hold an exclusive `flock` on the session's lock file
//!   (`.<id>.lock` beside its record) for the whole read → decide → write, so concurrent
//!   hooks of a session (threads or processes) lose no update, and one session never waits
//!   on another's work. A wait is bounded ([`LOCK_WAIT`]): a holder that is stopped or
//!   hung costs its own session a clear refusal, never a hang. The kernel drops the lock
//!   when a holder dies: no stale lock is ever left.
//! - **Session ids never make a path.** A [`SessionKey`] is checked with
//!   `notesoup-window`'s rules for a window id's host and session, and must also be one
//!   plain file name (no `/`, no leading `.`, at most [`SESSION_MAX`] bytes).
//!
//! The notes home is the caller's to resolve (`notesoup_notes::store_root`, the one rule);
//! this crate reads no environment.
//!
//! ```
//! use notesoup_window::Host;
//! use notesoup_window_store::{SessionKey, WindowStore};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), notesoup_window_store::WindowStoreError> {
//! # let home = std::env::temp_dir().join(format!("notesoup-window-store-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&home);
//! let store = WindowStore::new(&home);
//! let key = SessionKey::new(Host::Claude, "6e9d0c1a-5f2b-4c3d-9e8f-0a1b2c3d4e5f")?;
//! assert!(store.read(&key)?.is_none());
//!
//! // Read, decide, write, under the session's lock.
//! let written = store.update(&key, |prior| {
//!     let ordinal = match prior {
//!         Ok(Some(record)) => record.state["ordinal"].as_u64().unwrap_or(0) + 1,
//!         // No record (or one refused as stale): rebuild, here from nothing.
//!         Ok(None) | Err(_) => 0,
//!     };
//!     Some(json!({ "ordinal": ordinal }))
//! })?;
//! assert_eq!(written.map(|r| r.state), Some(json!({ "ordinal": 0 })));
//! assert_eq!(store.read(&key)?.map(|r| r.state), Some(json!({ "ordinal": 0 })));
//!
//! // A session id can never name a path outside the store.
//! assert!(SessionKey::new(Host::Claude, "../../etc/passwd").is_err());
//! # std::fs::remove_dir_all(&home).unwrap();
//! # Ok(())
//! # }
//! ```

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use notesoup_safe_fs::{Dir, FsError};
use notesoup_window::Host;
use notesoup_window::WindowId;
use serde_json::{Map, Value};

mod error;

pub use error::WindowStoreError;

/// The record format this crate writes and reads (the `v` field).
pub const VERSION: u64 = 1;
/// The most bytes a record may hold: a larger file is refused unread, a larger state is
/// not written.
pub const RECORD_MAX: u64 = 1024 * 1024;
/// The folder under the notes home that holds the records, one sub-folder per harness.
pub const WINDOWS_DIR: &str = "windows";
/// The most bytes a session id may have (it becomes a file name, `<id>.json`).
pub const SESSION_MAX: usize = 200;
/// A record untouched (not written) for this long is pruned: 30 days. A session resumed
/// after that starts from a rebuilt flow, as after any missing record.
pub const PRUNE_AFTER: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);
/// At most this many old records are pruned by one upkeep, so one write's extra work is
/// bounded (a folder with more catches up over later sessions' first writes).
pub const PRUNE_MAX: usize = 32;

/// Which session a record belongs to: a harness and its session id, checked so it can
/// only ever name one file in one folder.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionKey {
    harness: Host,
    session: String,
}

impl SessionKey {
    /// A key, checked: the session id follows `history-core::window`'s rules for a window
    /// id's session, and is one plain file name (no `/`, not starting with `.`, at most
    /// [`SESSION_MAX`] bytes).
    pub fn new(harness: Host, session: &str) -> Result<Self, WindowStoreError> {
        let bad = |reason: &str| WindowStoreError::bad_key(harness, session, reason);
        if let Err(err) = WindowId::new(harness.name(), session, 0) {
            return Err(bad(&err.reason));
        }
        if session.contains('/') {
            return Err(bad("a session id may not hold `/`"));
        }
        if session.starts_with('.') {
            return Err(bad("a session id may not start with `.`"));
        }
        if session.len() > SESSION_MAX {
            return Err(bad(&format!(
                "a session id may have at most {SESSION_MAX} bytes"
            )));
        }
        Ok(Self {
            harness,
            session: session.to_owned(),
        })
    }

    /// The harness.
    pub fn harness(&self) -> Host {
        self.harness
    }

    /// The session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The record's file name in its harness folder, `<session>.json`.
    pub fn file_name(&self) -> String {
        format!("{}.json", self.session)
    }

    /// The session's lock file beside its record: `.<id>.lock`.
    pub fn lock_name(&self) -> String {
        format!(".{}.lock", self.session)
    }
}

/// One session's record as read from (or just written to) disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The harness it belongs to.
    pub harness: Host,
    /// The session it belongs to.
    pub session: String,
    /// When it was written, milliseconds since the Unix epoch (for people and pruning;
    /// never a decision input).
    pub written_at_ms: u64,
    /// The caller's state, opaque to this crate.
    pub state: Value,
}

/// How long a call waits for its session's lock before it is refused (a hook of the same
/// session rebuilding a flow from a large transcript holds it a few seconds at most).
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Age past which another record's temp file is a killed writer's (a live write takes
/// milliseconds).
pub const TEMP_STALE: std::time::Duration = std::time::Duration::from_secs(600);

/// The records under one notes home.
#[derive(Debug, Clone)]
pub struct WindowStore {
    home: PathBuf,
    lock_wait: std::time::Duration,
}

impl WindowStore {
    /// The store under `home`, the notes home the caller resolved (the folder is opened,
    /// and created on the first write, only when used).
    pub fn new(home: impl Into<PathBuf>) -> Self {
        Self {
            home: home.into(),
            lock_wait: LOCK_WAIT,
        }
    }

    /// The same store, waiting at most `wait` for a session's lock (default [`LOCK_WAIT`]).
    #[must_use]
    pub fn with_lock_wait(mut self, wait: std::time::Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// The notes home this store lives under.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Where `key`'s record lives (for messages; every open goes through directory
    /// handles).
    pub fn path_of(&self, key: &SessionKey) -> PathBuf {
        self.home
            .join(WINDOWS_DIR)
            .join(key.harness.name())
            .join(key.file_name())
    }

    /// `key`'s record, `None` when there is none (nothing is created). A record to rebuild
    /// is an error for which [`WindowStoreError::is_stale_record`] is true.
    pub fn read(&self, key: &SessionKey) -> Result<Option<Record>, WindowStoreError> {
        match self.harness_dir(key)? {
            Some(dir) => read_record(&dir, key),
            None => Ok(None),
        }
    }

    /// Read, decide and write `key`'s record under the session's exclusive lock.
    ///
    /// `decide` gets the record (`Ok(None)`: none yet; `Err`: a stale record to rebuild,
    /// see [`WindowStoreError::is_stale_record`]) and returns the new state, or `None` to
    /// write nothing. A state equal to the record's is not rewritten. A link, FIFO or
    /// anything else in the record's or a folder's place is refused before `decide` runs,
    /// and nothing is written. Returns the record as it now stands (`None` when nothing
    /// was written and there was none to keep).
    pub fn update(
        &self,
        key: &SessionKey,
        decide: impl FnOnce(Result<Option<Record>, WindowStoreError>) -> Option<Value>,
    ) -> Result<Option<Record>, WindowStoreError> {
        self.with_session(key, |session| {
            let prior = match session.read() {
                Err(err) if !err.is_stale_record() => return Err(err),
                prior => prior,
            };
            let kept = prior.as_ref().ok().cloned().flatten();
            match decide(prior) {
                None => Ok(kept),
                Some(state) if kept.as_ref().is_some_and(|r| r.state == state) => Ok(kept),
                Some(state) => session.write(state).map(Some),
            }
        })
    }

    /// Run `work` with `key`'s session held under its own exclusive lock (the folders and
    /// the lock file created when missing; refused as [`FsError::Busy`] past the store's
    /// lock wait): [`Session::read`], [`Session::write`] and [`Session::remove`] inside see
    /// and make every change of concurrent holders in order.
    /// For callers that need early returns or their own output; [`WindowStore::update`]
    /// covers the plain read → decide → write.
    pub fn with_session<T, E>(
        &self,
        key: &SessionKey,
        work: impl FnOnce(&mut Session<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<WindowStoreError>,
    {
        let dir = self.create_harness_dir(key)?;
        let lock = dir
            .lock_file(key.lock_name(), self.lock_wait)
            .map_err(WindowStoreError::from)?;
        let result = work(&mut Session { dir: &dir, key });
        drop(lock);
        result
    }

    /// Remove `key`'s record (under the lock); `false` when there was none.
    #[expect(
        clippy::redundant_closure_for_method_calls,
        reason = "`Session::remove` as a path fixes the session's lifetime; the closure is general over it"
    )]
    pub fn remove(&self, key: &SessionKey) -> Result<bool, WindowStoreError> {
        if self.harness_dir(key)?.is_none() {
            return Ok(false);
        }
        self.with_session(key, |session| session.remove())
    }

    /// Forget `key`'s session: its record, its lock file and any temp file a writer of its
    /// record left, each removed as a name relative to the harness folder (a link as a
    /// link). The record and its temp files go under the session's lock, then the lock
    /// file's name while it is still held: a process that was waiting on it takes the lock
    /// on the file it opened, finds it no longer named, and takes it again on the name
    /// (`notesoup-safe-fs`'s `lock_file`), so two holders never run at once. A session still
    /// running writes a fresh record at its next step. Returns the files removed (none when
    /// the session has none).
    pub fn forget(&self, key: &SessionKey) -> Result<Vec<PathBuf>, WindowStoreError> {
        let Some(dir) = self.harness_dir(key)? else {
            return Ok(Vec::new());
        };
        let own_temp = |name: &std::ffi::OsStr| {
            notesoup_safe_fs::temp_target(name)
                .is_some_and(|(target, _)| target.to_string_lossy() == key.file_name())
        };
        let has = |name: &str| dir.metadata(name).map(|meta| meta.is_some());
        let any_temp = dir.entries()?.iter().any(|entry| own_temp(&entry.name));
        let had_lock = has(&key.lock_name())?;
        if !had_lock && !any_temp && !has(&key.file_name())? {
            return Ok(Vec::new());
        }
        let lock = dir
            .lock_file(key.lock_name(), self.lock_wait)
            .map_err(WindowStoreError::from)?;
        let mut removed = Vec::new();
        let mut names: Vec<std::ffi::OsString> = vec![key.file_name().into()];
        names.extend(
            dir.entries()?
                .into_iter()
                .filter(|entry| entry.kind != notesoup_safe_fs::Kind::Dir && own_temp(&entry.name))
                .map(|entry| entry.name),
        );
        for name in names {
            if dir.remove_file(&name)? {
                removed.push(dir.child_path(&name));
            }
        }
        // The lock's name last, while it is held; a lock file this call made is not one
        // the session had.
        if dir.remove_file(key.lock_name())? && had_lock {
            removed.push(dir.child_path(key.lock_name()));
        }
        dir.sync()?;
        drop(lock);
        Ok(removed)
    }

    /// The harness folder, `None` when it (or the home, or `windows/`) does not exist.
    fn harness_dir(&self, key: &SessionKey) -> Result<Option<Dir>, WindowStoreError> {
        let home = match Dir::open(&self.home) {
            Ok(home) => home,
            Err(err) if err.is_not_found() => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let Some(windows) = home.open_dir(WINDOWS_DIR)? else {
            return Ok(None);
        };
        Ok(windows.open_dir(key.harness.name())?)
    }

    /// The harness folder, created (with the home and `windows/`) when missing.
    fn create_harness_dir(&self, key: &SessionKey) -> Result<Dir, WindowStoreError> {
        let (home, _created) = Dir::create_all(&self.home)?;
        let (windows, _) = home.create_dir(WINDOWS_DIR)?;
        let (dir, _) = windows.create_dir(key.harness.name())?;
        Ok(dir)
    }
}

/// One session's record, held under its own lock (see
/// [`WindowStore::with_session`]).
#[derive(Debug)]
pub struct Session<'a> {
    dir: &'a Dir,
    key: &'a SessionKey,
}

impl Session<'_> {
    /// The key this session was opened with.
    pub fn key(&self) -> &SessionKey {
        self.key
    }

    /// The record, `None` when there is none; see [`WindowStore::read`].
    pub fn read(&self) -> Result<Option<Record>, WindowStoreError> {
        read_record(self.dir, self.key)
    }

    /// Replace the record with `state`, stamped now, atomically. A state whose record
    /// would exceed [`RECORD_MAX`] is refused and nothing is written.
    pub fn write(&mut self, state: Value) -> Result<Record, WindowStoreError> {
        let record = Record {
            harness: self.key.harness,
            session: self.key.session.clone(),
            written_at_ms: now_ms(),
            state,
        };
        let bytes = encode(&record);
        if bytes.len() as u64 > RECORD_MAX {
            return Err(WindowStoreError::StateTooLarge {
                path: self.dir.child_path(self.key.file_name()),
                bytes: bytes.len(),
                limit: RECORD_MAX,
            });
        }
        let fresh = self.dir.metadata(self.key.file_name())?.is_none();
        self.dir.replace(self.key.file_name(), &bytes)?;
        if fresh {
            upkeep(self.dir, self.key, SystemTime::now());
        }
        Ok(record)
    }

    /// Remove the record; `false` when there was none. A link in its place is removed as
    /// a link (what it points to is untouched).
    pub fn remove(&mut self) -> Result<bool, WindowStoreError> {
        let removed = self.dir.remove_file(self.key.file_name())?;
        if removed {
            self.dir.sync()?;
        }
        Ok(removed)
    }
}

/// The harness folder's upkeep, run by the first write of a session's record (so at most
/// once per session, under that session's lock): the session's own record temp files
/// (`.<id>.json.<pid>.<n>.tmp`: its writers write under its lock, so one seen now is a
/// killed writer's) and any other record's temp file older than [`TEMP_STALE`] are removed;
/// and at most [`PRUNE_MAX`] records other than `own`'s, and lock files, untouched for
/// [`PRUNE_AFTER`] are removed (a lock file's time is set each time it is taken). Only
/// names of those shapes are touched, each removed as a name relative to the folder's
/// handle (a link is removed as a link, what it points to is never touched; a folder is
/// never removed). Failures are ignored: upkeep never costs the write.
fn upkeep(dir: &Dir, own: &SessionKey, now: SystemTime) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    let own_record = own.file_name();
    let age = |name: &std::ffi::OsStr| {
        dir.metadata(name)
            .ok()
            .flatten()
            .and_then(|meta| now.duration_since(meta.modified).ok())
    };
    let mut pruned = 0;
    for entry in entries {
        if entry.kind == notesoup_safe_fs::Kind::Dir {
            continue;
        }
        if let Some((target, _)) = notesoup_safe_fs::temp_target(&entry.name)
            && target.to_string_lossy().ends_with(".json")
        {
            let stale = target.to_string_lossy() == own_record
                || age(&entry.name).is_some_and(|age| age > TEMP_STALE);
            if stale {
                let _ = dir.remove_file(&entry.name);
            }
            continue;
        }
        let name = entry.name.to_string_lossy();
        let record = !name.starts_with('.') && name.ends_with(".json") && name != own_record;
        let lock = name.starts_with('.') && name.ends_with(".lock") && name != own.lock_name();
        if pruned >= PRUNE_MAX || !(record || lock) {
            continue;
        }
        if age(&entry.name).is_some_and(|age| age > PRUNE_AFTER)
            && dir.remove_file(&entry.name).unwrap_or(false)
        {
            pruned += 1;
        }
    }
    let _ = dir.sync();
}

fn read_record(dir: &Dir, key: &SessionKey) -> Result<Option<Record>, WindowStoreError> {
    let name = key.file_name();
    let path = dir.child_path(&name);
    let bytes = match dir.read(&name, RECORD_MAX) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(None),
        Err(FsError::TooLarge { path, limit }) => {
            return Err(WindowStoreError::TooLarge { path, limit });
        }
        Err(err) => return Err(err.into()),
    };
    decode(&bytes, key, path).map(Some)
}

/// The record's bytes: `v` first so a person (or `head -c`) sees the version at once.
fn encode(record: &Record) -> Vec<u8> {
    let mut out = format!(
        "{{\"v\":{VERSION},\"harness\":{},\"session\":{},\"written_at_ms\":{},\"state\":",
        Value::from(record.harness.name()),
        Value::from(record.session.as_str()),
        record.written_at_ms,
    )
    .into_bytes();
    out.extend_from_slice(record.state.to_string().as_bytes());
    out.extend_from_slice(b"}\n");
    out
}

fn decode(bytes: &[u8], key: &SessionKey, path: PathBuf) -> Result<Record, WindowStoreError> {
    let malformed = |reason: String| WindowStoreError::Malformed {
        path: path.clone(),
        reason,
    };
    let value: Value =
        serde_json::from_slice(bytes).map_err(|err| malformed(format!("not JSON ({err})")))?;
    let Value::Object(mut fields) = value else {
        return Err(malformed("not a JSON object".into()));
    };
    match fields.remove("v") {
        Some(Value::Number(n)) if n.as_u64() == Some(VERSION) => {}
        Some(found) => {
            return Err(WindowStoreError::Version {
                path,
                found: clip(&found.to_string()),
            });
        }
        None => return Err(malformed("no `v` field".into())),
    }
    let mut text = |field: &str| match fields.remove(field) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(malformed(format!("`{field}` is not a string"))),
        None => Err(malformed(format!("no `{field}` field"))),
    };
    let harness = text("harness")?;
    let session = text("session")?;
    if harness != key.harness.name() || session != key.session {
        return Err(WindowStoreError::OtherSession {
            path,
            found: clip(&format!("{harness}:{session}")),
            expected: format!("{}:{}", key.harness, key.session),
        });
    }
    let written_at_ms = match fields.remove("written_at_ms") {
        Some(Value::Number(n)) => n
            .as_u64()
            .ok_or_else(|| malformed("`written_at_ms` is not a non-negative integer".into()))?,
        Some(_) => return Err(malformed("`written_at_ms` is not a number".into())),
        None => return Err(malformed("no `written_at_ms` field".into())),
    };
    let state = fields
        .remove("state")
        .ok_or_else(|| malformed("no `state` field".into()))?;
    if let Some(extra) = first_key(&fields) {
        return Err(malformed(format!("unknown field `{}`", clip(extra))));
    }
    Ok(Record {
        harness: key.harness,
        session,
        written_at_ms,
        state,
    })
}

fn first_key(fields: &Map<String, Value>) -> Option<&str> {
    fields.keys().next().map(String::as_str)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// At most 200 characters of a text an error quotes (a hostile record must not make a huge
/// message).
fn clip(text: &str) -> String {
    const QUOTE_MAX: usize = 200;
    let mut clipped: String = text.chars().take(QUOTE_MAX).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    clipped
}

#[cfg(test)]
mod tests;
