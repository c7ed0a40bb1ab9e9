//! Pinned values that outlive a closure: a guard borrowed from the database, and an owned,
//! cloneable `Bytes` whose owner is the pin itself.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::db::handles::{CfHandle, DbInner};
use crate::raw::pinned::PinnableHandle;

/// A value pinned where RocksDB holds it, released when the guard drops. Derefs to `[u8]`.
///
/// It borrows the database, so it cannot outlive it:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let guard = {
///     let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
///     db.reader().pin(b"k")?
/// }; // error: `db` does not live long enough
/// # Ok(()) }
/// ```
#[doc(alias = "PinnableSlice")]
pub struct PinnedValue<'db> {
    handle: PinnableHandle,
    _db: std::marker::PhantomData<&'db DbInner>,
}

impl PinnedValue<'_> {
    pub(crate) fn new(handle: PinnableHandle) -> Self {
        PinnedValue {
            handle,
            _db: std::marker::PhantomData,
        }
    }
}

/// The pin is released by `handle`'s own destructor; this one tells the borrow checker
/// that a guard must not outlive what it borrows (the database and column family whose
/// block cache holds the pinned block), not even by `let guard; let db = ..;`.
impl Drop for PinnedValue<'_> {
    fn drop(&mut self) {}
}

impl Deref for PinnedValue<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.handle.value()
    }
}

impl AsRef<[u8]> for PinnedValue<'_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl fmt::Debug for PinnedValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PinnedValue").field(&&**self).finish()
    }
}

/// The owner behind a zero-copy `Bytes`: the pin, then what the pinned bytes live in. A
/// block-cache pin lives in its column family's block cache, which the family's table
/// factory owns and which dies with the family's last handle (after `drop_cf`, the `Bytes`
/// may hold that last handle); the handle must be destroyed while the database is open.
/// Field order is drop order: pin, then column family, then database.
pub(crate) struct PinOwner {
    handle: PinnableHandle,
    _cf: Arc<CfHandle>,
    _db: Arc<DbInner>,
}

impl PinOwner {
    pub(crate) fn new(handle: PinnableHandle, cf: Arc<CfHandle>, db: Arc<DbInner>) -> Self {
        PinOwner {
            handle,
            _cf: cf,
            _db: db,
        }
    }
}

impl AsRef<[u8]> for PinOwner {
    fn as_ref(&self) -> &[u8] {
        self.handle.value()
    }
}
