//! The pinned guard tier, typed: a value pinned where RocksDB holds it, checked to decode
//! once, decoded in place on each `get`, released when the guard drops.

use std::fmt;
use std::marker::PhantomData;

use crate::codec::Codec;
use crate::read::pinned_value::PinnedValue;

/// A typed value pinned where RocksDB holds it, from [`TypedReader::pin`] or
/// [`Table::pin`](crate::Table::pin): the [`PinnedValue`] guard with its codec, checked to
/// decode when read (rkyv's validation and FlatBuffers' verifier run then, not on each
/// [`get`](Self::get)). It borrows the database, and a decoded value borrows the guard:
///
/// ```compile_fail,E0597
/// use pinrocks::codec::{BigEndian, Utf8};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// let db = pinrocks::Db::open(&opts, dir.path())?;
/// let names: pinrocks::Table<BigEndian<u32>, Utf8> = pinrocks::Table::new(db.default_cf());
/// names.put(&7, "Grace")?;
/// let name: &str = {
///     let pinned = names.pin(&7)?.expect("present");
///     pinned.get()
/// }; // the guard drops here, and its pin with it
/// # Ok(()) }
/// ```
///
/// nor can the guard outlive its table and database:
///
/// ```compile_fail,E0597
/// use pinrocks::codec::{BigEndian, Utf8};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// let pinned = {
///     let db = pinrocks::Db::open(&opts, dir.path())?;
///     let names: pinrocks::Table<BigEndian<u32>, Utf8> = pinrocks::Table::new(db.default_cf());
///     names.put(&7, "Grace")?;
///     names.pin(&7)?.expect("present")
/// }; // the table and the database drop here
/// # Ok(()) }
/// ```
///
/// An rkyv archive its pin leaves misaligned under rkyv's aligned format cannot be read
/// where it lies, and a guard holds no copy: reading one is a decode error naming the
/// misalignment, as a typed cursor's entry is (read it with [`TypedReader::get`], which
/// lends a copy, or [`TypedReader::get_stored`], which keeps one).
///
/// [`TypedReader::pin`]: crate::typed::TypedReader::pin
/// [`TypedReader::get`]: crate::typed::TypedReader::get
/// [`TypedReader::get_stored`]: crate::typed::TypedReader::get_stored
pub struct TypedPin<'a, V> {
    pinned: PinnedValue<'a>,
    // Invariant in `V`: `get` trusts that this very codec checked the bytes (as `Stored`).
    codec: PhantomData<fn(V) -> V>,
}

impl<'a, V: Codec> TypedPin<'a, V> {
    /// `pinned`, if `V` decodes it.
    pub(crate) fn new(pinned: PinnedValue<'a>) -> Result<Self, crate::codec::DecodeError> {
        V::decode(&pinned)?;
        Ok(TypedPin {
            pinned,
            codec: PhantomData,
        })
    }

    /// The value, decoded in place from the pinned bytes (not validated again where `V`
    /// can skip that: [`Codec::decode_validated`]).
    pub fn get(&self) -> V::Decoded<'_> {
        // SAFETY: `new` had `V::decode` accept exactly these bytes, for this very `V`
        // (invariant; made only by `new`); a pin's bytes neither move nor change while it
        // is held (RocksDB's block, or the `PinnableSlice`'s own copy, behind a handle that
        // moving the guard does not move).
        let decoded = unsafe { V::decode_validated(&self.pinned) };
        decoded.expect("a pinned value decodes as it did when it was read")
    }

    /// The pinned bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.pinned
    }

    /// The untyped guard, the codec forgotten.
    pub fn into_pinned(self) -> PinnedValue<'a> {
        self.pinned
    }
}

impl<V: Codec> fmt::Debug for TypedPin<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedPin")
            .field("codec", &V::NAME)
            .field("len", &self.pinned.len())
            .finish()
    }
}
