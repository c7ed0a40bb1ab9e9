//! Who owns an `Env` that RocksDB holds by raw pointer (a fault file system, a file system
//! in memory): the options, and everything made with them, keep the owner alive; a database
//! also tells it that it is open there.

/// Something that owns an `Env` RocksDB points at, kept alive as long as it does.
pub(crate) type EnvOwner = std::sync::Arc<dyn EnvKeeper>;

/// What a database opened on an `Env` (or with a shared budget) holds until it has closed.
pub(crate) type DatabaseOnEnv = Box<dyn std::any::Any + Send + Sync>;

/// The owner of an `Env` a database may open on.
pub(crate) trait EnvKeeper: Send + Sync {
    /// Keeps the `Env` alive for a database opened on it and tells the owner a database is
    /// open there until the result drops (after the database has closed).
    fn hold_for_database(self: std::sync::Arc<Self>) -> DatabaseOnEnv;

    /// Whether the files live in memory, not on the disk at their paths (what pinrocks
    /// reads of a database's files itself, it reads from the disk).
    fn in_memory(&self) -> bool;
}

/// A budget databases share that counts them (a memtable budget that stalls serves one
/// database at a time): each open database holds a place in it until it has closed.
pub(crate) trait DatabaseBudget: Send + Sync {
    /// A place for one more database, or why it cannot have one.
    fn hold_for_database(&self) -> crate::raw::error::Result<DatabaseOnEnv>;
}
