//! An open database: every kind of open, the owned native handles and what keeps them
//! alive, column families and snapshots.

pub(crate) mod column_family;
pub(crate) mod create_family;
pub(crate) mod database;
pub(crate) mod dirs_in_use;
pub(crate) mod drops_and_ends;
pub(crate) mod family_handle;
pub(crate) mod handles;
pub(crate) mod open;
pub(crate) mod opening;
pub(crate) mod range_free;
pub(crate) mod recovered_txn;
pub(crate) mod snapshot;
