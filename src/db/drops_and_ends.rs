//! Column family drops and pessimistic transaction ends, ordered. RocksDB 11.8.1's unlock at
//! a transaction's end (`PointLockManager::UnLock`) stops at the first family whose lock map
//! is gone, keeping the transaction's rows in the families after it locked until the
//! database closes. A transaction whose end may meet a dropped family frees its rows one by
//! one (rocksdb-c/transactions.cc); this decides which may: those during whose life a drop
//! began. A drop waits for the ends already under way when it began (they decided before
//! it), so none of them meets the family gone; an end that begins after it decides
//! carefully. A mutex held only to count, never across a RocksDB call.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};

#[derive(Default)]
struct State {
    /// Drops begun (`drop_cf` past its checks), and ended (RocksDB's drop returned).
    started: u64,
    finished: u64,
    /// Ends under way, by the number of drops begun when each began.
    ends: BTreeMap<u64, usize>,
}

/// One per database.
#[derive(Default)]
pub(crate) struct DropsAndEnds {
    state: Mutex<State>,
    /// Notified when an end is over.
    idle: Condvar,
}

/// An end under way: a drop that begins meanwhile waits for it.
pub(crate) struct EndUnderWay<'a> {
    of: &'a DropsAndEnds,
    generation: u64,
}

/// A drop under way: counted as finished when dropped, after RocksDB's drop returned.
pub(crate) struct DropUnderWay<'a>(&'a DropsAndEnds);

impl DropsAndEnds {
    // A panic under the lock leaves counters that are still consistent.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// For a transaction that begins: the drops finished so far. A family dropped by then
    /// has no lock map, so the transaction cannot lock a row in it.
    pub(crate) fn finished(&self) -> u64 {
        self.state().finished
    }

    /// A transaction that began when `finished` drops had finished ends (or rolls back to
    /// a savepoint): whether a drop began since (its rows must then be freed one by one),
    /// and the end, under way until the guard drops.
    pub(crate) fn end_begins(&self, finished: u64) -> (bool, EndUnderWay<'_>) {
        let mut state = self.state();
        let generation = state.started;
        *state.ends.entry(generation).or_insert(0) += 1;
        (
            generation != finished,
            EndUnderWay {
                of: self,
                generation,
            },
        )
    }

    /// `drop_cf` begins to drop a family: waits for the ends that began before (not for
    /// those after: they free their rows one by one).
    pub(crate) fn drop_begins(&self) -> DropUnderWay<'_> {
        let mut state = self.state();
        let before = state.started;
        state.started += 1;
        while state.ends.range(..=before).next().is_some() {
            state = self
                .idle
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        DropUnderWay(self)
    }
}

impl Drop for EndUnderWay<'_> {
    fn drop(&mut self) {
        let mut state = self.of.state();
        if let Some(count) = state.ends.get_mut(&self.generation) {
            *count -= 1;
            if *count == 0 {
                state.ends.remove(&self.generation);
            }
        }
        drop(state);
        self.of.idle.notify_all();
    }
}

impl Drop for DropUnderWay<'_> {
    fn drop(&mut self) {
        self.0.state().finished += 1;
    }
}
