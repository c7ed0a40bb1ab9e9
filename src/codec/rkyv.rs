//! Archived values through rkyv (feature `rkyv`): read in place as `&Archived<T>`,
//! validated by bytecheck before any read (a [`Stored`](crate::codec::Stored) value's once,
//! when it is made), never trusted.
//!
//! (Its alignment story is on [`Rkyv`], where a user reads it.)

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use ::rkyv::api::high::{HighDeserializer, HighSerializer, HighValidator};
use ::rkyv::bytecheck::CheckBytes;
use ::rkyv::rancor;
use ::rkyv::ser::allocator::ArenaHandle;
use ::rkyv::util::AlignedVec;
use ::rkyv::validation::archive::ArchiveValidator;
use ::rkyv::validation::shared::SharedValidator;
use ::rkyv::validation::Validator;
use ::rkyv::{Archive, Deserialize, Serialize};
use bytes::Bytes;

use crate::codec::{with_thread_buffer, Codec, DecodeError, EncodeError, KEPT_CAPACITY};

/// The alignment rkyv's own serializer gives a whole archive (its `AlignedVec`'s).
const ARCHIVE_ALIGN: usize = 16;

static REALIGNED: AtomicU64 = AtomicU64::new(0);

/// How many copies rkyv reads in this process made of misaligned values to read them on an
/// aligned buffer (reads through closures, and [`Stored`](crate::codec::Stored) values; a
/// value the copy then finds not to be an archive counts too). With `rkyv-unaligned`, only
/// such invalid values are copied.
pub fn realigned_copies() -> u64 {
    REALIGNED.load(Ordering::Relaxed)
}

/// A value of `T` in rkyv's format (feature `rkyv`): decoded as `&T::Archived` borrowed
/// from the pin after bytecheck's validation, encoded into a buffer reused per thread.
/// The owned form is `T`, deserialized.
///
/// Alignment is the question a pinned value puts to rkyv. rkyv's default format aligns
/// its primitives, and a value RocksDB pins sits at whatever address its block or memtable
/// entry puts it. rkyv's validation checks every pointer's alignment, so a misaligned
/// value is an error, never undefined behaviour; what pinrocks does then:
///
/// * a read that hands the value to a closure (`Table::get`, typed scans) copies it into
///   an aligned buffer of the thread's, reused, and reads it there: one copy, counted by
///   [`realigned_copies`]; a value that validates where it lies is read there;
/// * a read that returns the value ([`Codec::decode`], a typed cursor's entry) gives a
///   [`DecodeError::Alignment`] instead: it has no buffer to lend;
/// * [`Stored`](crate::codec::Stored) copies it into an aligned buffer of its own once.
///
/// How often that happens, measured (`pinned_values_read_at_every_stage_and_the_copies_
/// are_counted` in `tests/reads/typed_rkyv.rs` prints it; 200 archives under 200 bytes,
/// 8-byte keys, RocksDB 11.8.1): a memtable hit comes in RocksDB's own copy inside the
/// `PinnableSlice`, 16-byte aligned, and reads in place (200 of 200); a value pinned in a
/// block of an SST file sits where the block's format puts it, and under the aligned format
/// none of 200 read in place: every such read copied. A cursor's values are pinned in
/// blocks and the memtable's arena alike.
///
/// With the feature `rkyv-unaligned`, pinrocks turns on rkyv's `unaligned` format:
/// archived primitives have alignment 1, every pinned value reads in place and nothing is
/// copied. It is a format decision for the whole build (every crate's rkyv in it writes
/// and reads that format; rkyv refuses a build that also asks for `aligned`), and bytes
/// written in one format do not read in the other. rkyv's `big_endian` and
/// `pointer_width_*` features change the format the same way, for every crate in the build
/// that turns them on; validation makes bytes of another format an error, not a misread.
///
/// Validation follows pointers at most 64 deep (a recursive type's hostile bytes cannot
/// recurse until the stack overflows); a deeper archive is a decode error.
///
/// ```
/// use pinrocks::codec::{BigEndian, Rkyv};
/// use rkyv::{Archive, Deserialize, Serialize};
///
/// #[derive(Archive, Serialize, Deserialize, Debug, PartialEq)]
/// struct Account {
///     owner: String,
///     cents: u64,
///     tags: Vec<String>,
/// }
///
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let accounts: pinrocks::Table<BigEndian<u32>, Rkyv<Account>> =
///     pinrocks::Table::new(db.default_cf());
/// let ada = Account { owner: "ada".into(), cents: 1_234, tags: vec!["vip".into()] };
/// accounts.put(&1, &ada)?;
/// // `account` is an `&ArchivedAccount` in the pinned value (or its aligned copy).
/// let read = accounts.get(&1, |account| (account.owner.len(), account.cents.to_native()))?;
/// assert_eq!(read, Some((3, 1_234)));
/// assert_eq!(accounts.get_owned(&1)?, Some(ada));
/// # Ok(()) }
/// ```
///
/// An archived value lives as long as its read:
///
/// ```compile_fail
/// # use pinrocks::codec::{BigEndian, Rkyv};
/// # #[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
/// # struct Account { owner: String }
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let accounts: pinrocks::Table<BigEndian<u32>, Rkyv<Account>> =
///     pinrocks::Table::new(db.default_cf());
/// let owner = accounts.get(&1, |account| &account.owner)?; // the pin ends here
/// # Ok(()) }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "rkyv")))]
pub struct Rkyv<T>(PhantomData<fn() -> T>);

impl<T> Codec for Rkyv<T>
where
    T: Archive + for<'a> Serialize<HighSerializer<Vec<u8>, ArenaHandle<'a>, rancor::BoxedError>>,
    T::Archived: 'static
        + for<'a> CheckBytes<HighValidator<'a, rancor::BoxedError>>
        + for<'a> CheckBytes<HighValidator<'a, rancor::Failure>>
        + Deserialize<T, HighDeserializer<rancor::BoxedError>>,
{
    type Item<'i> = T;
    type Decoded<'a> = &'a T::Archived;
    type Owned = T;
    const NAME: &'static str = "Rkyv";

    fn with_encoded<R>(item: &T, f: impl FnOnce(&[u8]) -> R) -> Result<R, EncodeError> {
        with_thread_buffer(|buf| {
            // rkyv's writer is taken by value; the buffer comes back in its result.
            let written =
                ::rkyv::api::high::to_bytes_in::<_, rancor::BoxedError>(item, std::mem::take(buf))
                    .map_err(|e| EncodeError(e.to_string()))?;
            *buf = written;
            Ok(f(buf))
        })
    }

    fn decode(bytes: &[u8]) -> Result<&T::Archived, DecodeError> {
        if let Some(archived) = in_place::<T>(bytes) {
            return Ok(archived);
        }
        // The copy is made on this error path only, to tell a misaligned archive apart.
        on_aligned_copy::<T, ()>(bytes, |_| ())?;
        Err(DecodeError::Alignment {
            align: ARCHIVE_ALIGN,
            address: bytes.as_ptr() as usize,
        })
    }

    fn with_decoded<R>(
        bytes: &[u8],
        f: impl for<'d> FnOnce(&'d T::Archived) -> R,
    ) -> Result<R, DecodeError> {
        if let Some(archived) = in_place::<T>(bytes) {
            return Ok(f(archived));
        }
        if !aligned(bytes) {
            REALIGNED.fetch_add(1, Ordering::Relaxed);
        }
        on_aligned_copy::<T, R>(bytes, f)
    }

    /// The archive where `decode` validated it, not validated again.
    unsafe fn decode_validated(bytes: &[u8]) -> Result<&T::Archived, DecodeError> {
        // SAFETY: the caller's promise: `decode` returned `Ok` for these bytes at this
        // address, which it does only after bytecheck validated the archive where it lies
        // (so it is aligned as the format needs), and they are unchanged since.
        Ok(unsafe { ::rkyv::api::access_unchecked::<T::Archived>(bytes) })
    }

    fn decode_owned(bytes: &[u8]) -> Result<T, DecodeError> {
        Self::with_decoded(bytes, |archived| deserialize::<T>(archived))?
    }

    fn to_owned(decoded: &T::Archived) -> T {
        deserialize::<T>(decoded).expect("a validated archive deserializes")
    }

    fn stored_bytes(bytes: Bytes) -> Bytes {
        if aligned(&bytes) || in_place::<T>(&bytes).is_some() {
            return bytes;
        }
        REALIGNED.fetch_add(1, Ordering::Relaxed);
        let mut copy = AlignedVec::<ARCHIVE_ALIGN>::with_capacity(bytes.len());
        copy.extend_from_slice(&bytes);
        Bytes::from_owner(copy)
    }
}

/// For bytes that did not validate where they lie: `f` over the archive on an aligned copy
/// of them, if they are misaligned and the copy validates; otherwise why they are not an
/// archive (in the copy's words, so a misalignment is not the reason given).
fn on_aligned_copy<T, R>(
    bytes: &[u8],
    f: impl for<'d> FnOnce(&'d T::Archived) -> R,
) -> Result<R, DecodeError>
where
    T: Archive,
    T::Archived: for<'a> CheckBytes<HighValidator<'a, rancor::BoxedError>>
        + for<'a> CheckBytes<HighValidator<'a, rancor::Failure>>,
{
    if aligned(bytes) {
        return Err(why_not::<T>(bytes));
    }
    with_aligned_copy(bytes, |copy| match in_place::<T>(copy) {
        Some(archived) => Ok(f(archived)),
        None => Err(why_not::<T>(copy)),
    })
}

/// Whether `bytes` start where rkyv's serializer starts an archive.
fn aligned(bytes: &[u8]) -> bool {
    (bytes.as_ptr() as usize).is_multiple_of(ARCHIVE_ALIGN)
}

/// The archived root in `bytes`, validated where they lie; `None` if it does not validate
/// there. bytecheck's zero-sized `Failure` says so without allocating, so the common miss
/// (a misaligned pin) costs no allocation.
fn in_place<T>(bytes: &[u8]) -> Option<&T::Archived>
where
    T: Archive,
    T::Archived: for<'a> CheckBytes<HighValidator<'a, rancor::Failure>>,
{
    validate::<T, rancor::Failure>(bytes).ok()
}

/// How deep validation follows pointers (a `Box` in a `Box`, a `Vec` of `Vec`s) before it
/// calls an archive invalid: a recursive type's hostile bytes could otherwise recurse until
/// the stack overflows, which aborts the process. FlatBuffers' verifier stops at 64 too.
/// rkyv counts its subtree claims against it: lists nested 61 deep read, 62 do not
/// (`validation_stops_at_its_depth_bound` in `tests/reads/typed_rkyv_depth.rs`).
const MAX_DEPTH: usize = 64;

/// bytecheck's validation of the root in `bytes`, at most [`MAX_DEPTH`] pointers deep.
fn validate<T, E>(bytes: &[u8]) -> Result<&T::Archived, E>
where
    T: Archive,
    T::Archived: for<'a> CheckBytes<HighValidator<'a, E>>,
    E: rancor::Source,
{
    let depth = std::num::NonZeroUsize::new(MAX_DEPTH);
    let mut context = Validator::new(
        ArchiveValidator::with_max_depth(bytes, depth),
        SharedValidator::new(),
    );
    ::rkyv::api::access_with_context::<T::Archived, _, E>(bytes, &mut context)
}

/// Why `bytes` do not validate, in bytecheck's words (an error path: the message
/// allocates).
fn why_not<T>(bytes: &[u8]) -> DecodeError
where
    T: Archive,
    T::Archived: for<'a> CheckBytes<HighValidator<'a, rancor::BoxedError>>,
{
    match validate::<T, rancor::BoxedError>(bytes) {
        Err(e) => DecodeError::Other(e.to_string()),
        Ok(_) => DecodeError::Other("the archive validated only when looked at twice".into()),
    }
}

fn deserialize<T>(archived: &T::Archived) -> Result<T, DecodeError>
where
    T: Archive,
    T::Archived: Deserialize<T, HighDeserializer<rancor::BoxedError>>,
{
    ::rkyv::deserialize::<T, rancor::BoxedError>(archived)
        .map_err(|e| DecodeError::Other(e.to_string()))
}

/// Runs `f` over a copy of `bytes` in this thread's aligned buffer, taken out while `f`
/// runs (a read inside `f` gets one of its own) and kept for the next copy.
fn with_aligned_copy<R>(bytes: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    thread_local! {
        static ALIGNED: RefCell<AlignedVec<ARCHIVE_ALIGN>> = RefCell::new(AlignedVec::new());
    }
    // `try_with`: a read from another thread-local's destructor gets a buffer of its own.
    let mut copy = ALIGNED
        .try_with(|b| std::mem::take(&mut *b.borrow_mut()))
        .unwrap_or_default();
    copy.clear();
    copy.extend_from_slice(bytes);
    let result = f(&copy);
    if copy.capacity() <= KEPT_CAPACITY {
        let _ = ALIGNED.try_with(|b| *b.borrow_mut() = copy);
    }
    result
}
