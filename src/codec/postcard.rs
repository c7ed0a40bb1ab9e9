//! Records through serde in postcard's compact binary format (feature `postcard`), read in
//! place: a record's `&str` and `&[u8]` fields (and `Cow`s marked `#[serde(borrow)]`) point
//! into the pinned value, so a read copies no bytes and allocates nothing for them.

use std::marker::PhantomData;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::codec::stored::Stored;
use crate::codec::{with_thread_buffer, Codec, DecodeError, EncodeError};

/// A record type with one lifetime, named by its `'static` form: `Of<'a>` is the record
/// whose borrowed fields live for `'a`. The borrowed codecs read `Of<'a>` from bytes that
/// live for `'a`, and write `Of<'i>` for any `'i`.
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Order<'a> {
///     id: u64,
///     customer: &'a str,
///     lines: Vec<(u32, u16)>,
/// }
///
/// impl pinrocks::codec::Record for Order<'static> {
///     type Of<'a> = Order<'a>;
/// }
/// ```
///
/// A record that borrows nothing is its own family: `type Of<'a> = Point;`.
pub trait Record: 'static {
    /// The record whose borrows live for `'a`.
    type Of<'a>: Serialize + Deserialize<'a>;
}

/// A [`Record`] in postcard's format (feature `postcard`): decoded borrowing from the pin,
/// encoded into a buffer reused per thread. `Postcard<Order<'static>>` stores `Order<'i>`
/// and reads `Order<'a>` for the read's `'a`.
///
/// Why postcard: its wire format is specified and stable since 1.0 (what a value written
/// today by any postcard code reads as, next year, is written down), it borrows strings and
/// bytes, writes integers as varints (small numbers, small records) and needs no schema
/// beside the Rust type. bincode 1 is unmaintained, and bincode 2 reads serde types
/// through a compatibility layer with its own configuration to agree on.
///
/// postcard sets no limit on nesting: a recursive record type (one that holds a `Box` of
/// itself) read from hostile bytes recurses as deep as the bytes say and can overflow the
/// stack. Keep recursive records to bytes you wrote, or use a codec that bounds depth
/// (`Rkyv`, `Flat`).
///
/// The whole value must be one record: bytes left after it are a decode error (a value
/// written by another codec, or truncated and appended to, is not read as a shorter one).
/// The owned form ([`Codec::Owned`]) is a [`Stored`] record: its bytes, read again on
/// [`Stored::get`].
///
/// ```
/// use pinrocks::codec::{Codec, Postcard, Record};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct User<'a> {
///     name: &'a str,
///     roles: Vec<&'a str>,
/// }
/// impl Record for User<'static> {
///     type Of<'a> = User<'a>;
/// }
///
/// let name = String::from("ada");
/// let stored = Postcard::<User<'static>>::with_encoded(
///     &User { name: &name, roles: vec!["admin"] },
///     |bytes| bytes.to_vec(),
/// )
/// .unwrap();
/// assert_eq!(stored, b"\x03ada\x01\x05admin");
/// let read = Postcard::<User<'static>>::decode(&stored).unwrap();
/// assert_eq!(read.name.as_ptr(), stored[1..].as_ptr()); // borrowed, not copied
/// assert_eq!(read, User { name: "ada", roles: vec!["admin"] });
/// ```
///
/// Through a [`Table`](crate::Table), a record read in place lives as long as its read: a
/// field used inside the closure is fine, a field that leaves it does not compile.
///
/// ```
/// # use pinrocks::codec::{BigEndian, Postcard, Record};
/// # #[derive(serde::Serialize, serde::Deserialize)]
/// # struct User<'a> { name: &'a str }
/// # impl Record for User<'static> { type Of<'a> = User<'a>; }
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let users: pinrocks::Table<BigEndian<u32>, Postcard<User<'static>>> =
///     pinrocks::Table::new(db.default_cf());
/// users.put(&1, &User { name: "ada" })?;
/// let len: Option<usize> = users.get(&1, |user| user.name.len())?;
/// assert_eq!(len, Some(3));
/// # Ok(()) }
/// ```
///
/// ```compile_fail
/// # use pinrocks::codec::{BigEndian, Postcard, Record};
/// # #[derive(serde::Serialize, serde::Deserialize)]
/// # struct User<'a> { name: &'a str }
/// # impl Record for User<'static> { type Of<'a> = User<'a>; }
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let users: pinrocks::Table<BigEndian<u32>, Postcard<User<'static>>> =
///     pinrocks::Table::new(db.default_cf());
/// users.put(&1, &User { name: "ada" })?;
/// let name: Option<&str> = users.get(&1, |user| user.name)?; // the pin ends here
/// # Ok(()) }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "postcard")))]
pub struct Postcard<T>(PhantomData<fn() -> T>);

/// postcard's writer into a borrowed buffer (it takes its writer by value).
struct Appender<'b>(&'b mut Vec<u8>);

impl Extend<u8> for Appender<'_> {
    fn extend<I: IntoIterator<Item = u8>>(&mut self, bytes: I) {
        self.0.extend(bytes);
    }
}

impl<T: Record> Codec for Postcard<T> {
    type Item<'i> = T::Of<'i>;
    type Decoded<'a> = T::Of<'a>;
    type Owned = Stored<Self>;
    const NAME: &'static str = "Postcard";

    fn with_encoded<R>(item: &T::Of<'_>, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        with_thread_buffer(|buf| {
            postcard::to_extend(item, Appender(buf)).map_err(|e| EncodeError(e.to_string()))?;
            Ok(f(buf))
        })
    }

    fn decode(bytes: &[u8]) -> Result<T::Of<'_>, DecodeError> {
        let (record, rest) =
            postcard::take_from_bytes(bytes).map_err(|e| DecodeError::Other(e.to_string()))?;
        match rest.len() {
            0 => Ok(record),
            left => Err(DecodeError::Other(format!("{left} bytes after the record"))),
        }
    }

    /// Copies the stored bytes (one allocation), checked to decode by [`Stored::new`].
    fn decode_owned(bytes: &[u8]) -> Result<Stored<Self>, DecodeError> {
        Stored::new(Bytes::copy_from_slice(bytes))
    }

    /// Encodes the record again (its stored bytes are not at hand here).
    ///
    /// # Panics
    /// If the record cannot be encoded (a `Serialize` impl postcard cannot write: a
    /// sequence of unknown length), or its encoding does not decode: neither happens unless
    /// the record's `Serialize` and `Deserialize` disagree.
    fn to_owned(decoded: T::Of<'_>) -> Stored<Self> {
        let bytes = postcard::to_extend(&decoded, Vec::new())
            .expect("a record read by postcard writes back");
        Stored::new(Bytes::from(bytes)).expect("a record postcard wrote reads back")
    }
}
