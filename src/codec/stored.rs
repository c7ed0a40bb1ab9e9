//! A value's bytes kept with the codec that reads them: the owned form of a typed read
//! whose decoded value borrows, and the typed form of the `get_bytes` tier.

use std::fmt;
use std::marker::PhantomData;

use bytes::Bytes;

use crate::codec::{Codec, DecodeError};

/// A stored value, owned, read in place on each [`get`](Self::get): its bytes (a
/// [`Bytes`]) and its codec `C`, checked to decode when made (rkyv's validation and
/// FlatBuffers' verifier run then, not on each `get`).
///
/// From [`Table::get_stored`](crate::Table::get_stored) the bytes are the pinned value
/// itself (the `get_bytes` tier): no copy, the pin kept alive (block, family and database)
/// for as long as the `Stored` lives, and it crosses threads. A decoded value borrows from
/// the `Stored` and cannot outlive it:
///
/// ```compile_fail,E0597
/// use bytes::Bytes;
/// use pinrocks::codec::{Stored, Utf8};
/// let text: &str = {
///     let stored = Stored::<Utf8>::new(Bytes::from_static(b"hi")).unwrap();
///     stored.get()
/// };
/// ```
///
/// A `Stored` is of the one codec that validated its bytes: `Stored<C>` is invariant in
/// `C`, so no subtyping (of a codec over a higher-ranked type, say) turns it into a
/// `Stored` of another codec that would read them unvalidated:
///
/// ```compile_fail,E0308
/// use pinrocks::codec::{Flat, Stored};
/// fn other(s: Stored<Flat<fn(&'static ())>>) {}
/// fn f(s: Stored<Flat<for<'a> fn(&'a ())>>) {
///     other(s)
/// }
/// ```
pub struct Stored<C> {
    bytes: Bytes,
    // Invariant in `C` (see above); `fn` pointers keep `Stored` `Send` and `Sync` for
    // every `C`, as its bytes are.
    codec: PhantomData<fn(C) -> C>,
}

impl<C: Codec> Stored<C> {
    /// `bytes` (or a copy of them where `C` could not read them in place:
    /// [`Codec::stored_bytes`]), if `C` decodes them.
    pub fn new(bytes: Bytes) -> Result<Self, DecodeError> {
        let bytes = C::stored_bytes(bytes);
        C::decode(&bytes)?;
        Ok(Stored {
            bytes,
            codec: PhantomData,
        })
    }

    /// The value, decoded again from the bytes, borrowing from them where `C` does; not
    /// validated again where `C` can skip that ([`Codec::decode_validated`]: `Rkyv` and
    /// `Flat` validate once, in [`new`](Self::new)).
    ///
    /// # Panics
    /// If `C` does not decode the bytes it decoded when this was made: a codec whose
    /// decode is not a function of the bytes and their address alone (every pinrocks codec
    /// is; the address is the one `new` saw, which the bytes keep).
    pub fn get(&self) -> C::Decoded<'_> {
        // SAFETY: `new` had `C::decode` accept exactly these bytes, for this very `C` (`Stored`
        // is invariant in it, and made only by `new` and `clone`); a `Bytes` never moves or
        // changes the bytes it shares (every clone of it reads the same memory).
        let decoded = unsafe { C::decode_validated(&self.bytes) };
        decoded.expect("a stored value decodes as it did when it was stored")
    }

    /// The stored bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The stored bytes, the codec forgotten.
    pub fn into_bytes(self) -> Bytes {
        self.bytes
    }
}

impl<C> Clone for Stored<C> {
    /// Another owner of the same bytes (and pin): no copy.
    fn clone(&self) -> Self {
        Stored {
            bytes: self.bytes.clone(),
            codec: PhantomData,
        }
    }
}

impl<C: Codec> fmt::Debug for Stored<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stored")
            .field("codec", &C::NAME)
            .field("len", &self.bytes.len())
            .finish()
    }
}
