//! The options of a transaction database and of one transaction, pessimistic or
//! optimistic; durations checked against what RocksDB does with them.

use std::time::Duration;

use crate::raw::setter::setter;
use crate::raw::transaction_options::{
    OptimisticTransactionOptionsHandle, TransactionDbOptionsHandle, TransactionOptionsHandle,
};

/// From this long on a duration means "no limit": RocksDB multiplies its milliseconds by
/// 1,000 (`int64_t` microseconds) and waits with `condition_variable::wait_for`, which adds
/// nanoseconds to the clock, so anything near `i64::MAX` ms overflows (a lock timeout of
/// `Duration::MAX` gave up at once, an expiration of it expired at once).
pub(crate) const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// RocksDB's milliseconds for `d`, rounded up (so a sub-millisecond wait is not "no wait"),
/// or `None` for [`FOREVER`] and longer.
fn millis(d: Duration) -> Option<i64> {
    if d >= FOREVER {
        return None;
    }
    let ms = d.as_millis() + u128::from(!d.as_nanos().is_multiple_of(1_000_000));
    Some(i64::try_from(ms).expect("below FOREVER"))
}

/// For RocksDB's fields where a negative value means "no limit".
fn millis_or_unlimited(d: Duration) -> i64 {
    millis(d).unwrap_or(-1)
}

/// Options of a pessimistic transaction database (`TransactionDBOptions`).
pub struct TransactionDbOptions {
    raw: TransactionDbOptionsHandle,
}

// SAFETY: a plain C++ value, read by `TransactionDB::Open` through a const pointer.
unsafe impl Send for TransactionDbOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for TransactionDbOptions {}

impl TransactionDbOptions {
    /// The handle, for the calls that begin a transaction or open a database with it.
    pub(crate) fn handle(&self) -> &TransactionDbOptionsHandle {
        &self.raw
    }

    /// RocksDB's defaults: 1 s lock timeout for transactions and for plain writes.
    pub fn new() -> Self {
        TransactionDbOptions {
            raw: TransactionDbOptionsHandle::new(),
        }
    }

    setter!(
        /// Most keys locked at once per column family (0: no limit).
        max_num_locks(i64) => rocksdb_transactiondb_options_set_max_num_locks
    );
    setter!(
        /// Lock table stripes (concurrency of the lock manager).
        num_stripes(usize) => rocksdb_transactiondb_options_set_num_stripes
    );

    /// How long a transaction waits for a lock before `ErrorKind::LockTimeout` (rounded up
    /// to whole milliseconds; 100 years or more, `Duration::MAX` included: for ever).
    pub fn transaction_lock_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.raw
            .set_transaction_lock_timeout(millis_or_unlimited(timeout));
        self
    }

    /// How long a plain write (outside a transaction) waits for a lock (as
    /// [`transaction_lock_timeout`](Self::transaction_lock_timeout)).
    pub fn default_lock_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.raw
            .set_default_lock_timeout(millis_or_unlimited(timeout));
        self
    }
}

impl Default for TransactionDbOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// Options of one pessimistic transaction (`TransactionOptions`).
pub struct TransactionOptions {
    raw: TransactionOptionsHandle,
}

// SAFETY: a plain C++ value, copied by `BeginTransaction`.
unsafe impl Send for TransactionOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for TransactionOptions {}

impl TransactionOptions {
    /// The handle, for the calls that begin a transaction or open a database with it.
    pub(crate) fn handle(&self) -> &TransactionOptionsHandle {
        &self.raw
    }

    /// RocksDB's defaults.
    pub fn new() -> Self {
        TransactionOptions {
            raw: TransactionOptionsHandle::new(),
        }
    }

    setter!(
        /// Take a snapshot at begin: a key written by someone else after it makes this
        /// transaction's write (or read for update) of that key fail with `Busy`.
        set_snapshot(bool) => rocksdb_transaction_options_set_set_snapshot as u8
    );
    setter!(
        /// Detect deadlocks while waiting for a lock (`ErrorKind::Deadlock`).
        deadlock_detect(bool) => rocksdb_transaction_options_set_deadlock_detect as u8
    );

    /// How long this transaction waits for a lock (overrides the database's; rounded up to
    /// whole milliseconds). 100 years or more (`Duration::MAX` included) waits 100 years:
    /// here RocksDB reads a negative value as "the database's timeout", not "for ever".
    pub fn lock_timeout(&mut self, timeout: Duration) -> &mut Self {
        // Just under FOREVER: the longest wait RocksDB takes here.
        const LONGEST_MS: i64 = FOREVER.as_millis() as i64 - 1;
        let ms = millis(timeout).unwrap_or(LONGEST_MS);
        self.raw.set_lock_timeout(ms);
        self
    }

    /// After this long, the transaction's locks may be stolen and it fails with `Expired`
    /// (rounded up to whole milliseconds; `Duration::ZERO` expires at once; 100 years or
    /// more, `Duration::MAX` included: never, RocksDB's default).
    pub fn expiration(&mut self, after: Duration) -> &mut Self {
        self.raw.set_expiration(millis_or_unlimited(after));
        self
    }
}

impl Default for TransactionOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// Options of one optimistic transaction.
pub struct OptimisticTransactionOptions {
    raw: OptimisticTransactionOptionsHandle,
}

// SAFETY: a plain C++ value, copied by `BeginTransaction`.
unsafe impl Send for OptimisticTransactionOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for OptimisticTransactionOptions {}

impl OptimisticTransactionOptions {
    /// The handle, for the calls that begin a transaction or open a database with it.
    pub(crate) fn handle(&self) -> &OptimisticTransactionOptionsHandle {
        &self.raw
    }

    /// RocksDB's defaults.
    pub fn new() -> Self {
        OptimisticTransactionOptions {
            raw: OptimisticTransactionOptionsHandle::new(),
        }
    }

    setter!(
        /// Validate at commit against a snapshot taken at begin (rather than at each key's
        /// first write or read for update).
        set_snapshot(bool) => rocksdb_optimistictransaction_options_set_set_snapshot as u8
    );
}

impl Default for OptimisticTransactionOptions {
    fn default() -> Self {
        Self::new()
    }
}
