//! Typed values, decoded straight from pinned bytes.
//!
//! A codec is a marker type that says how one kind of value is stored, in the style of
//! heed's `BytesEncode`/`BytesDecode` and redb's `Value`. Keeping the codec apart from the
//! Rust type lets one type be stored several ways (`u64` as [`BigEndian`] for ordered keys,
//! as [`LittleEndian`] for values), and lets decoding *borrow* from the stored bytes through
//! the generic associated type [`Codec::Decoded`]: a [`Utf8`] value decodes to a `&str`
//! pointing into the pinned block, valid for the closure that receives it, with no copy.
//!
//! Encoding hands the bytes to a continuation ([`Codec::with_encoded`]) instead of
//! returning a `Vec`: fixed-size codecs encode into an array on the stack, byte and string
//! codecs pass their input through, so a typed write builds no intermediate `Vec`. Codecs
//! that have no fixed size (serde) encode into a buffer reused per thread.
//!
//! Records with strings and lists are read in place too: `Postcard` (feature `postcard`)
//! decodes a `Record`'s `&str` and `&[u8]` fields borrowing the pin, and `Rkyv` (feature
//! `rkyv`) reads an archived value in place, validated, as `Flat` (feature `flatbuffers`)
//! does a FlatBuffers table after its verifier. A decoded value lives as long as its read;
//! [`Stored`] keeps the bytes with their codec instead, the typed value that outlives the
//! read.
//!
//! Decoding never panics on bad bytes and never reads unaligned memory unsoundly: pinned
//! bytes have any alignment, so the codecs read them as bytes (`from_be_bytes`, zerocopy's
//! `Unaligned` types, FlatBuffers' and postcard's readers) or check each pointer's
//! alignment before they follow it (rkyv's validation). A wrong length, invalid UTF-8 and
//! the like are a [`DecodeError`], which [`Table`](crate::Table) reports with the key and
//! the codec's name. (The owned forms that encode again, and [`Stored::get`], say in their
//! docs where they can panic.)
//!
//! ```
//! use pinrocks::codec::{BigEndian, Codec, Utf8, F64};
//! // Order-preserving encodings: bytes sort as the values do.
//! let enc = |x: i64| BigEndian::<i64>::with_encoded(&x, |b| b.to_vec()).unwrap();
//! assert!(enc(-5) < enc(3));
//! let enc = |x: f64| F64::with_encoded(&x, |b| b.to_vec()).unwrap();
//! assert!(enc(-0.5) < enc(0.25));
//! // Decoding borrows: `&str` points into the bytes given.
//! let stored = b"hello".to_vec();
//! let text: &str = Utf8::decode(&stored).unwrap();
//! assert_eq!(text.as_ptr(), stored.as_ptr());
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

#[cfg(feature = "flatbuffers")]
mod flat;
#[cfg(feature = "serde")]
mod json;
#[cfg(feature = "postcard")]
mod postcard;
#[cfg(feature = "rkyv")]
mod rkyv;
mod stored;

#[cfg(feature = "flatbuffers")]
pub use self::flat::{Flat, FlatTable};
#[cfg(feature = "serde")]
pub use self::json::Json;
#[cfg(feature = "postcard")]
pub use self::postcard::{Postcard, Record};
#[cfg(feature = "rkyv")]
pub use self::rkyv::{realigned_copies, Rkyv};
pub use self::stored::Stored;

/// Why stored bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The stored value has the wrong length for a fixed-size codec.
    #[error("expected {expected} bytes, found {actual}")]
    Length {
        /// The codec's size.
        expected: usize,
        /// The stored value's size.
        actual: usize,
    },
    /// The bytes are not UTF-8.
    #[error("invalid UTF-8: {0}")]
    Utf8(#[from] std::str::Utf8Error),
    /// A boolean byte other than 0 or 1.
    #[error("invalid bool byte {0:#04x}")]
    Bool(u8),
    /// A timestamp outside what this platform's `SystemTime` can hold (every `i64` of
    /// milliseconds fits on 64-bit Unix).
    #[error("timestamp {0} ms is out of range")]
    Timestamp(i64),
    /// An entity lacks a column its [`EntityCodec`](crate::typed::EntityCodec) reads (the name, as
    /// text where it is UTF-8).
    #[error("no column {0:?}")]
    MissingColumn(String),
    /// An archive at an address its format cannot read in place (rkyv's aligned format):
    /// a read through a closure, or a [`Stored`] value, reads it on an aligned copy.
    #[error("the archive needs {align}-byte alignment; it is at {address:#x}")]
    Alignment {
        /// The alignment the format reads at.
        align: usize,
        /// Where the value is.
        address: usize,
    },
    /// Anything else, said by the codec (serde's message, for example).
    #[error("{0}")]
    Other(String),
}

/// Why a value could not be encoded (only codecs that call user code, such as serde, fail).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EncodeError(pub String);

/// How values of one kind are stored as bytes. See the [module docs](self).
pub trait Codec {
    /// What is written: `str` for [`Utf8`], `u64` for `BigEndian<u64>`, ... A record
    /// that borrows (`Postcard`) is written from any lifetime `'i` of its borrows.
    type Item<'i>: ?Sized;
    /// What is read, borrowing from the stored bytes where it can.
    type Decoded<'a>;
    /// An owned form of [`Decoded`](Self::Decoded), for reads that outlive the pin.
    type Owned;
    /// The codec's name in decode errors.
    const NAME: &'static str;

    /// Calls `f` with the encoding of `item`.
    fn with_encoded<R>(item: &Self::Item<'_>, f: impl FnOnce(&[u8]) -> R)
        -> Result<R, EncodeError>;

    /// Decodes stored bytes, borrowing from them where the type allows.
    fn decode(bytes: &[u8]) -> Result<Self::Decoded<'_>, DecodeError>;

    /// Calls `f` with the decoded value: what every typed read that takes a closure uses.
    /// The same as [`decode`](Self::decode) unless the codec can do better with a
    /// continuation (rkyv reads a misaligned archive on an aligned copy that `decode`
    /// could not return).
    fn with_decoded<R>(
        bytes: &[u8],
        f: impl for<'d> FnOnce(Self::Decoded<'d>) -> R,
    ) -> Result<R, DecodeError> {
        Self::decode(bytes).map(f)
    }

    /// Decodes bytes that [`decode`](Self::decode) accepted before, where they lay then:
    /// what [`Stored::get`] calls, so that a codec whose decode is mostly validation
    /// (rkyv's bytecheck, FlatBuffers' verifier) validates a stored value once, when it is
    /// made, not on every `get`. The default decodes again.
    ///
    /// # Safety
    /// `decode` returned `Ok` for these very bytes, at this address, and they have not
    /// changed since.
    unsafe fn decode_validated(bytes: &[u8]) -> Result<Self::Decoded<'_>, DecodeError> {
        Self::decode(bytes)
    }

    /// Turns a decoded value into its owned form.
    fn to_owned(decoded: Self::Decoded<'_>) -> Self::Owned;

    /// Decodes stored bytes into the owned form (what `get_owned` returns): decoded, then
    /// [`to_owned`](Self::to_owned), unless the codec has a shorter way (a copy of the
    /// bytes, for one whose owned form keeps them).
    fn decode_owned(bytes: &[u8]) -> Result<Self::Owned, DecodeError> {
        Self::with_decoded(bytes, Self::to_owned)
    }

    /// The bytes a [`Stored`] value keeps: these, or a copy at an address the codec
    /// reads in place (rkyv's aligned format).
    fn stored_bytes(bytes: bytes::Bytes) -> bytes::Bytes {
        bytes
    }
}

/// The largest buffer a thread keeps between encodes or reads (a larger one is freed after
/// its use rather than kept).
#[cfg_attr(
    not(any(feature = "serde", feature = "postcard", feature = "rkyv")),
    allow(dead_code)
)]
const KEPT_CAPACITY: usize = 1 << 20;

/// Runs `f` with this thread's encoding buffer, empty, and keeps the buffer for the next
/// encode, whatever `f` returns (up to [`KEPT_CAPACITY`]): codecs with no fixed size
/// allocate once per thread, not per write. The buffer is taken out rather than borrowed,
/// so a nested encode (a `Serialize` impl that writes to the database) gets one of its own
/// instead of a `RefCell` panic.
#[cfg_attr(
    not(any(feature = "serde", feature = "postcard", feature = "rkyv")),
    allow(dead_code)
)]
fn with_thread_buffer<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    use std::cell::RefCell;
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    // `try_with`: an encode from another thread-local's destructor gets a buffer of its own.
    let mut buf = BUFFER
        .try_with(|b| std::mem::take(&mut *b.borrow_mut()))
        .unwrap_or_default();
    buf.clear();
    let result = f(&mut buf);
    if buf.capacity() <= KEPT_CAPACITY {
        let _ = BUFFER.try_with(|b| *b.borrow_mut() = buf);
    }
    result
}

/// The length check shared by every fixed-size codec.
fn exact<const N: usize>(bytes: &[u8]) -> Result<&[u8; N], DecodeError> {
    bytes.try_into().map_err(|_| DecodeError::Length {
        expected: N,
        actual: bytes.len(),
    })
}

/// Bytes as they are: `&[u8]` borrowed from the pin.
#[derive(Debug, Clone, Copy)]
pub enum Raw {}

impl Codec for Raw {
    type Item<'i> = [u8];
    type Decoded<'a> = &'a [u8];
    type Owned = Vec<u8>;
    const NAME: &'static str = "Raw";

    fn with_encoded<R>(item: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        Ok(f(item))
    }
    fn decode(bytes: &[u8]) -> Result<&[u8], DecodeError> {
        Ok(bytes)
    }
    fn to_owned(decoded: &[u8]) -> Vec<u8> {
        decoded.to_vec()
    }
}

/// UTF-8 text, validated on read: `&str` borrowed from the pin.
#[derive(Debug, Clone, Copy)]
pub enum Utf8 {}

impl Codec for Utf8 {
    type Item<'i> = str;
    type Decoded<'a> = &'a str;
    type Owned = String;
    const NAME: &'static str = "Utf8";

    fn with_encoded<R>(item: &str, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        Ok(f(item.as_bytes()))
    }
    fn decode(bytes: &[u8]) -> Result<&str, DecodeError> {
        Ok(std::str::from_utf8(bytes)?)
    }
    fn to_owned(decoded: &str) -> String {
        decoded.to_owned()
    }
}

/// Exactly `N` bytes: `&[u8; N]` borrowed from the pin (arrays of bytes need no alignment).
#[derive(Debug, Clone, Copy)]
pub enum Array<const N: usize> {}

impl<const N: usize> Codec for Array<N> {
    type Item<'i> = [u8; N];
    type Decoded<'a> = &'a [u8; N];
    type Owned = [u8; N];
    const NAME: &'static str = "Array";

    fn with_encoded<R>(item: &[u8; N], f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        Ok(f(item))
    }
    fn decode(bytes: &[u8]) -> Result<&[u8; N], DecodeError> {
        exact::<N>(bytes)
    }
    fn to_owned(decoded: &[u8; N]) -> [u8; N] {
        *decoded
    }
}

/// Integers in big-endian order. Byte order equals numeric order, so these are the codecs
/// for ordered keys: signed integers have their sign bit flipped so that negative numbers
/// sort before positive ones.
#[derive(Debug, Clone, Copy)]
pub struct BigEndian<T>(std::marker::PhantomData<T>);

/// Integers in little-endian order, as most machines hold them: for values, not for keys
/// that must sort.
#[derive(Debug, Clone, Copy)]
pub struct LittleEndian<T>(std::marker::PhantomData<T>);

macro_rules! int_codecs {
    ($($t:ty => $flip:expr),* $(,)?) => {$(
        impl Codec for BigEndian<$t> {
            type Item<'i> = $t;
            type Decoded<'a> = $t;
            type Owned = $t;
            const NAME: &'static str = concat!("BigEndian<", stringify!($t), ">");

            fn with_encoded<R>(item: &$t, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
                Ok(f(&(*item ^ $flip).to_be_bytes()))
            }
            fn decode(bytes: &[u8]) -> Result<$t, DecodeError> {
                Ok(<$t>::from_be_bytes(*exact(bytes)?) ^ $flip)
            }
            fn to_owned(decoded: $t) -> $t {
                decoded
            }
        }

        impl Codec for LittleEndian<$t> {
            type Item<'i> = $t;
            type Decoded<'a> = $t;
            type Owned = $t;
            const NAME: &'static str = concat!("LittleEndian<", stringify!($t), ">");

            fn with_encoded<R>(item: &$t, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
                Ok(f(&item.to_le_bytes()))
            }
            fn decode(bytes: &[u8]) -> Result<$t, DecodeError> {
                Ok(<$t>::from_le_bytes(*exact(bytes)?))
            }
            fn to_owned(decoded: $t) -> $t {
                decoded
            }
        }
    )*};
}

int_codecs! {
    u8 => 0, u16 => 0, u32 => 0, u64 => 0, u128 => 0,
    i8 => i8::MIN, i16 => i16::MIN, i32 => i32::MIN, i64 => i64::MIN, i128 => i128::MIN,
}

/// An `f64` in 8 bytes whose byte order is the numeric order (negative numbers have all bits
/// flipped, others only the sign bit), so it also serves as a key. Every bit pattern,
/// NaNs included, round-trips exactly.
#[derive(Debug, Clone, Copy)]
pub enum F64 {}

impl Codec for F64 {
    type Item<'i> = f64;
    type Decoded<'a> = f64;
    type Owned = f64;
    const NAME: &'static str = "F64";

    fn with_encoded<R>(item: &f64, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        let bits = item.to_bits();
        let ordered = if bits >> 63 == 1 {
            !bits
        } else {
            bits | 1 << 63
        };
        Ok(f(&ordered.to_be_bytes()))
    }
    fn decode(bytes: &[u8]) -> Result<f64, DecodeError> {
        let ordered = u64::from_be_bytes(*exact(bytes)?);
        let bits = if ordered >> 63 == 1 {
            ordered & !(1 << 63)
        } else {
            !ordered
        };
        Ok(f64::from_bits(bits))
    }
    fn to_owned(decoded: f64) -> f64 {
        decoded
    }
}

/// A `bool` in one byte, 0 or 1; any other byte is a decode error.
#[derive(Debug, Clone, Copy)]
pub enum Bool {}

impl Codec for Bool {
    type Item<'i> = bool;
    type Decoded<'a> = bool;
    type Owned = bool;
    const NAME: &'static str = "Bool";

    fn with_encoded<R>(item: &bool, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        Ok(f(&[*item as u8]))
    }
    fn decode(bytes: &[u8]) -> Result<bool, DecodeError> {
        match *exact::<1>(bytes)? {
            [0] => Ok(false),
            [1] => Ok(true),
            [other] => Err(DecodeError::Bool(other)),
        }
    }
    fn to_owned(decoded: bool) -> bool {
        decoded
    }
}

/// A point in time stored as 8-byte big-endian signed (two's complement) milliseconds since
/// the Unix epoch, as Java's `ByteBuffer.getLong` reads them, read as a [`SystemTime`] with
/// no allocation. Sub-millisecond precision is dropped on
/// write (towards negative infinity, so times before 1970 stay consistent).
#[derive(Debug, Clone, Copy)]
pub enum EpochMillis {}

impl EpochMillis {
    /// Milliseconds since the epoch, rounded towards the past, saturating at the ends of
    /// `i64`.
    pub fn millis(time: &SystemTime) -> i64 {
        let ms: i128 = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => after.as_millis() as i128,
            Err(before) => -(before.duration().as_nanos().div_ceil(1_000_000) as i128),
        };
        ms.clamp(i64::MIN.into(), i64::MAX.into()) as i64
    }
}

impl Codec for EpochMillis {
    type Item<'i> = SystemTime;
    type Decoded<'a> = SystemTime;
    type Owned = SystemTime;
    const NAME: &'static str = "EpochMillis";

    fn with_encoded<R>(item: &SystemTime, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        Ok(f(&Self::millis(item).to_be_bytes()))
    }
    fn decode(bytes: &[u8]) -> Result<SystemTime, DecodeError> {
        let ms = i64::from_be_bytes(*exact(bytes)?);
        let offset = Duration::from_millis(ms.unsigned_abs());
        let time = if ms >= 0 {
            UNIX_EPOCH.checked_add(offset)
        } else {
            UNIX_EPOCH.checked_sub(offset)
        };
        time.ok_or(DecodeError::Timestamp(ms))
    }
    fn to_owned(decoded: SystemTime) -> SystemTime {
        decoded
    }
}

/// A fixed-layout struct read in place through [`zerocopy`]: `&T` borrowed from the pin.
///
/// `T` must be [`Unaligned`] (alignment 1: build it from `u8` arrays and zerocopy's
/// byte-order types such as `zerocopy::byteorder::U64<BigEndian>`), because pinned bytes
/// have no alignment guarantee. A misaligned `&u64` would be undefined behaviour; this
/// bound makes it impossible to ask for one.
///
/// ```
/// use pinrocks::codec::{Codec, ZeroCopy};
/// use zerocopy::byteorder::{BigEndian, U32, U64};
/// use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};
///
/// #[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
/// #[repr(C)]
/// struct Header {
///     id: U64<BigEndian>,
///     len: U32<BigEndian>,
///     kind: u8,
/// }
///
/// let header = Header { id: 7.into(), len: 512.into(), kind: 2 };
/// let stored = ZeroCopy::<Header>::with_encoded(&header, |b| b.to_vec()).unwrap();
/// let read: &Header = ZeroCopy::<Header>::decode(&stored).unwrap();
/// assert_eq!((read.id.get(), read.len.get(), read.kind), (7, 512, 2));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ZeroCopy<T>(std::marker::PhantomData<T>);

impl<T> Codec for ZeroCopy<T>
where
    T: FromBytes + IntoBytes + KnownLayout + Immutable + Unaligned + 'static,
{
    type Item<'i> = T;
    type Decoded<'a> = &'a T;
    type Owned = T;
    const NAME: &'static str = "ZeroCopy";

    fn with_encoded<R>(item: &T, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        Ok(f(item.as_bytes()))
    }
    fn decode(bytes: &[u8]) -> Result<&T, DecodeError> {
        T::ref_from_bytes(bytes).map_err(|_| DecodeError::Length {
            expected: std::mem::size_of::<T>(),
            actual: bytes.len(),
        })
    }
    fn to_owned(decoded: &T) -> T {
        T::read_from_bytes(decoded.as_bytes()).expect("a T's own bytes are a valid T")
    }
}
