//! The hashes of a transcript's whole blocks under an index's covered prefix, taken on a
//! thread of its own beside the index's load ([`Hashed`]).

use std::fs::File;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use notesoup_history_claude::index::{BLOCK, PrefixHash};

use super::blocks::read_at;

/// The hashes of the whole [`BLOCK`]s before byte `len` of a transcript, read and hashed on
/// a thread of its own while the index is read and its state rebuilt: a file the index
/// cannot vouch for on its times (grown since, as a live session's is after every turn;
/// touched; indexed within the racy window) is then verified by hashing only the block
/// that holds the prefix's end after the load, not the whole prefix. The blocks are read
/// at their offsets through a second handle of the call's file (never one opened again by
/// path), so what is hashed is what a read in turn would have hashed: the same bytes of
/// the same file, read at another moment, as any two blocks of one read are.
/// [`BlockReader::adopt`](super::blocks::BlockReader::adopt) takes the result; a read that
/// fails or ends early gives none, and the reader then hashes the prefix itself. Dropped
/// unjoined (the index was not used), it stops at its next block.
pub(super) struct Hashed {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<Option<PrefixHash>>>,
}

impl Hashed {
    /// Starts hashing the whole blocks before byte `len` of `file`; `None` when there are
    /// none, or no thread or handle can be had.
    pub(super) fn start(file: &File, len: u64) -> Option<Hashed> {
        let blocks = len / BLOCK as u64;
        if blocks == 0 {
            return None;
        }
        let file = file.try_clone().ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .spawn(move || Self::run(&file, blocks, &stopped))
            .ok()?;
        Some(Hashed {
            stop,
            handle: Some(handle),
        })
    }

    fn run(file: &File, blocks: u64, stop: &AtomicBool) -> Option<PrefixHash> {
        let mut hash = PrefixHash::default();
        let mut block = vec![0; BLOCK];
        for number in 0..blocks {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            read_at(file, &mut block, number * BLOCK as u64).ok()?;
            hash.push(&block);
        }
        Some(hash)
    }

    /// The hashes, once every block is hashed.
    pub(super) fn join(mut self) -> Option<PrefixHash> {
        self.handle.take()?.join().ok().flatten()
    }
}

impl Drop for Hashed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
