//! FlatBuffers tables (feature `flatbuffers`): read through their offsets in place, after
//! the verifier, with no alignment needed (FlatBuffers reads every scalar as bytes).

use std::marker::PhantomData;

use flatbuffers::{Follow, Verifiable};

use crate::codec::{Codec, DecodeError, EncodeError};

/// A table type flatc generated, named by its `'static` form: `Of<'a>` is the table read
/// from bytes that live for `'a` (flatc's `Order<'a>`), `Owned` what
/// [`get_owned`](crate::Table::get_owned) returns (the object API's `OrderT`, from
/// `--gen-object-api`, or the bytes).
///
/// On flatc's `Order<'a>`: `impl FlatTable for Order<'static>` with `type Of<'a> =
/// Order<'a>`, `type Owned = OrderT` and an `unpack` that calls the object API's
/// `table.unpack()`; the example `flat_records` has it whole, with its schema and flatc's
/// code.
pub trait FlatTable: 'static {
    /// The table whose buffer lives for `'a`.
    type Of<'a>: Follow<'a, Inner = Self::Of<'a>> + Verifiable + 'a;
    /// The table's owned form.
    type Owned;
    /// The owned form of a table read in place.
    fn unpack(table: &Self::Of<'_>) -> Self::Owned;
}

/// A FlatBuffers table as its root (feature `flatbuffers`): decoded to flatc's `T<'a>`
/// over the pinned bytes once the verifier has checked every offset, table and string in
/// them; accessors then read in place. What is written is a finished buffer
/// (`FlatBufferBuilder::finished_data`), verified as a `T` before it is stored: bytes that
/// are not one are an encode error, not a value a later read fails on.
///
/// `Flat<Order<'static>>` reads `Order<'a>` for the read's `'a`; what the closure makes of
/// the table may leave it, the table may not:
///
/// ```
/// # fn read<T: pinrocks::codec::FlatTable>(
/// #     table: pinrocks::Table<'_, pinrocks::codec::Raw, pinrocks::codec::Flat<T>>,
/// # ) -> pinrocks::Result<()> {
/// let owned: Option<T::Owned> = table.get(b"k", |order| T::unpack(&order))?;
/// # Ok(()) }
/// ```
///
/// ```compile_fail
/// # fn escape<T: pinrocks::codec::FlatTable>(
/// #     table: pinrocks::Table<'_, pinrocks::codec::Raw, pinrocks::codec::Flat<T>>,
/// # ) -> pinrocks::Result<()> {
/// let kept: Option<T::Of<'_>> = table.get(b"k", |order| order)?;
/// # Ok(()) }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "flatbuffers")))]
pub struct Flat<T>(PhantomData<fn() -> T>);

impl<T: FlatTable> Codec for Flat<T> {
    type Item<'i> = [u8];
    type Decoded<'a> = T::Of<'a>;
    type Owned = T::Owned;
    const NAME: &'static str = "Flat";

    fn with_encoded<R>(item: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        flatbuffers::root::<T::Of<'_>>(item).map_err(|e| EncodeError(e.to_string()))?;
        Ok(f(item))
    }

    fn decode(bytes: &[u8]) -> Result<T::Of<'_>, DecodeError> {
        flatbuffers::root::<T::Of<'_>>(bytes).map_err(|e| DecodeError::Other(e.to_string()))
    }

    /// The table where `decode` verified it, not verified again.
    unsafe fn decode_validated(bytes: &[u8]) -> Result<T::Of<'_>, DecodeError> {
        // SAFETY: the caller's promise: `decode` returned `Ok` for these bytes, which it
        // does only after FlatBuffers' verifier accepted them, and they are unchanged since.
        Ok(unsafe { flatbuffers::root_unchecked::<T::Of<'_>>(bytes) })
    }

    fn to_owned(decoded: T::Of<'_>) -> T::Owned {
        T::unpack(&decoded)
    }
}
