//! Keys and values through their codecs, the typed point read every typed view shares,
//! and the errors that name the codec (and the key, for a decode).

use crate::codec::{Codec, DecodeError};
use crate::raw::error::{Error, Result};
use crate::read::reader::Reader;
use crate::read::source::ReadSource;

pub(crate) fn encode<C: Codec, R>(item: &C::Item<'_>, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
    C::with_encoded(item, f).map_err(|source| Error::Encode {
        codec: C::NAME,
        source,
    })
}

pub(crate) fn decode<'a, C: Codec>(key: &[u8], bytes: &'a [u8]) -> Result<C::Decoded<'a>> {
    C::decode(bytes).map_err(|source| decode_error::<C>(key, source))
}

/// `f` over the value in `bytes`, decoded by `C` (the value at `key`).
pub(crate) fn with_decoded<C: Codec, R>(
    key: &[u8],
    bytes: &[u8],
    f: impl for<'d> FnOnce(C::Decoded<'d>) -> R,
) -> Result<R> {
    C::with_decoded(bytes, f).map_err(|source| decode_error::<C>(key, source))
}

/// A decode error of codec `C`, of the value at `key`.
pub(crate) fn decode_error<C: Codec>(key: &[u8], source: DecodeError) -> Error {
    Error::Decode {
        codec: C::NAME,
        key: key.to_vec(),
        source,
    }
}

/// The typed point read every typed view shares: `key` encoded with `K`, read pinned
/// through `reader`, the value decoded with `V` in place and handed to `f`.
pub(crate) fn get_typed<K: Codec, V: Codec, S: ReadSource, R>(
    reader: Reader<'_, S>,
    key: &K::Item<'_>,
    f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
) -> Result<Option<R>> {
    encode::<K, _>(key, |k| {
        reader
            .get_pinned(k, |bytes| with_decoded::<V, R>(k, bytes, f))?
            .transpose()
    })?
}
