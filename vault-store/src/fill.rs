//! Facts recorded from a kept copy ([`Vault::fill_facts`]): for a version an earlier
//! notesoup kept without them whose original is gone, so a listing stops decompressing it.

use std::io::Read;
use std::sync::Arc;

use notesoup_safe_fs::Dir;

use crate::reader::{Refusal, VaultReader};
use crate::record::Record;
use crate::{Facts, Vault, VaultError, facts};

/// A kept version's bytes, read a range at a time ([`KeptCopy::range`]): what works out
/// its [`Facts`] when no original is left to work them out from.
#[derive(Debug)]
pub struct KeptCopy {
    session: Arc<Dir>,
    harness: String,
    id: String,
    version: u32,
    record: Record,
    /// The refusals of every range given, looked at once the facts are worked out.
    refusals: std::cell::RefCell<Vec<Refusal>>,
}

impl KeptCopy {
    fn new(session: Arc<Dir>, harness: &str, id: &str, version: u32, record: Record) -> Self {
        Self {
            session,
            harness: harness.to_owned(),
            id: id.to_owned(),
            version,
            record,
            refusals: std::cell::RefCell::default(),
        }
    }

    /// The version's raw bytes.
    pub fn len(&self) -> u64 {
        self.record.raw
    }

    /// Whether it holds no byte.
    pub fn is_empty(&self) -> bool {
        self.record.raw == 0
    }

    /// Its bytes `[from, to)` (cut at its end): only the pieces that hold them are read,
    /// each checked before its bytes are given (a damaged one fails the read).
    pub fn range(&self, from: u64, to: u64) -> impl Read + '_ {
        let reader = VaultReader::shared(
            Arc::clone(&self.session),
            &self.harness,
            &self.id,
            self.version,
            self.record.clone(),
        )
        .starting_at(from);
        self.refusals.borrow_mut().push(reader.refusal());
        reader.take(to.min(self.record.raw).saturating_sub(from))
    }

    /// The first refusal of a range given, if a read of one was refused.
    fn failure(&self) -> Option<VaultError> {
        self.refusals.borrow().iter().find_map(Refusal::take)
    }
}

impl Vault {
    /// The newest version of `harness:id` as a [`KeptCopy`], read a range at a time (a
    /// listing reads a copy kept without facts by its tail, as it reads a file on disk);
    /// `None` when it is not vaulted. A record that does not parse is refused
    /// ([`VaultError::Damaged`]); a piece that does not hold what its record says fails
    /// the read of a range that needs it.
    pub fn copy(&self, harness: &str, id: &str) -> Result<Option<KeptCopy>, VaultError> {
        Ok(self.newest(harness, id)?.map(|(session, version, record)| {
            KeptCopy::new(Arc::new(session), harness, id, version, record)
        }))
    }

    /// Records the facts of `harness:id`'s newest version as `work` finds them in the copy
    /// itself, when none are recorded for all its bytes (an earlier notesoup kept it, and
    /// its original is gone); written as a keep writes them. True when they were recorded;
    /// false when they already were, or it is not vaulted. Nothing is written when a read of
    /// the copy was refused ([`VaultError::Damaged`]): the copy stays refused as damaged.
    pub fn fill_facts(
        &self,
        harness: &str,
        id: &str,
        work: impl FnOnce(&KeptCopy) -> Facts,
    ) -> Result<bool, VaultError> {
        let Some((session, ..)) = self.newest(harness, id)? else {
            return Ok(false);
        };
        let session = Arc::new(session);
        // Under the session's lock, as a keep writes them: the newest version as it is now.
        let _lock = session.lock()?;
        let Some(version) = crate::newest_version(&session)? else {
            return Ok(false);
        };
        let record = Record::load(&session, version).map_err(|reason| VaultError::Damaged {
            harness: harness.into(),
            id: id.into(),
            reason,
        })?;
        if facts::load(&session, version, record.raw).is_some() {
            return Ok(false);
        }
        let raw = record.raw;
        let copy = KeptCopy::new(Arc::clone(&session), harness, id, version, record);
        let found = work(&copy);
        if let Some(failure) = copy.failure() {
            return Err(failure);
        }
        facts::write(&copy.session, version, raw, &found);
        Ok(true)
    }
}
