//! Column family drops and pessimistic transaction ends, ordered. RocksDB 11.8.1's unlock at
//! a transaction's end (`PointLockManager::UnLock`) stops at the first family whose lock map
//! is gone, keeping the transaction's rows in the families after it locked until the
//! database closes. A transaction whose end may meet a dropped family frees its rows one by
//! one (rocksdb-c/transactions.cc); this decides which may: those during whose life a drop
//! began. A drop waits for the ends already under way when it began (they decided before
//! it), so none of them meets the family gone; an end that begins after it decides
//! carefully. A mutex held only to count, never across a RocksDB call; the condition
//! variable notified only when a drop waits (a notification is a system call: measured, two
//! per transaction made a one-put transaction 1.3x-1.5x slower than the `rocksdb` crate's).

use std::sync::{Condvar, Mutex, MutexGuard};

#[derive(Default)]
struct State {
    /// Drops begun (`drop_cf` past its checks), and ended (RocksDB's drop returned).
    started: u64,
    finished: u64,
    /// Ends under way: how many began when each number of drops had begun (few entries,
    /// in a vector kept between ends, so an end allocates nothing).
    ends: Vec<(u64, usize)>,
    /// Drops waiting for ends.
    waiting: usize,
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
        match state.ends.iter_mut().find(|(g, _)| *g == generation) {
            Some((_, count)) => *count += 1,
            None => state.ends.push((generation, 1)),
        }
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
        while state.ends.iter().any(|&(g, _)| g <= before) {
            state.waiting += 1;
            state = self
                .idle
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            state.waiting -= 1;
        }
        DropUnderWay(self)
    }
}

impl Drop for EndUnderWay<'_> {
    fn drop(&mut self) {
        let mut state = self.of.state();
        if let Some(i) = state.ends.iter().position(|&(g, _)| g == self.generation) {
            state.ends[i].1 -= 1;
            if state.ends[i].1 == 0 {
                state.ends.swap_remove(i);
            }
        }
        // A drop that waits counted itself under the lock before waiting (which releases
        // it): seen here, and already waiting when notified.
        let wake = state.waiting > 0;
        drop(state);
        if wake {
            self.of.idle.notify_all();
        }
    }
}

impl Drop for DropUnderWay<'_> {
    fn drop(&mut self) {
        self.0.state().finished += 1;
    }
}
