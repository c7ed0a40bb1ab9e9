//! Owned values through serde as JSON (feature `serde`): the codec for values other
//! programs read as text.

use crate::codec::{with_thread_buffer, Codec, DecodeError, EncodeError};

/// Owned values through serde, stored as JSON (feature `serde`). Decoding builds an owned
/// `T`; encoding reuses a per-thread buffer.
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
#[derive(Debug, Clone, Copy)]
pub struct Json<T>(std::marker::PhantomData<T>);

impl<T> Codec for Json<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    type Item<'i> = T;
    type Decoded<'a> = T;
    type Owned = T;
    const NAME: &'static str = "Json";

    fn with_encoded<R>(item: &T, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        with_thread_buffer(|buf| {
            serde_json::to_writer(&mut *buf, item).map_err(|e| EncodeError(e.to_string()))?;
            Ok(f(buf))
        })
    }
    fn decode(bytes: &[u8]) -> Result<T, DecodeError> {
        serde_json::from_slice(bytes).map_err(|e| DecodeError::Other(e.to_string()))
    }
    fn to_owned(decoded: T) -> T {
        decoded
    }
}
