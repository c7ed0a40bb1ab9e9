//! Merge operators: read-modify-write done inside RocksDB. A `merge(key, operand)` write
//! stores the operand; reads and compactions combine the key's value with its pending
//! operands through the operator set on the column family's [`Options`](crate::Options).
//!
//! Long because: the merge operator's whole contract (inputs, output buffer, partial
//! merges, the fold over codecs) and its trampolines, which only make sense together.

use std::borrow::Borrow;
use std::ffi::{c_char, c_void, CString};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::codec::{Codec, DecodeError};
use crate::raw::c_types::{
    pinrocks_destroy_fn, pinrocks_full_merge_fn, pinrocks_partial_merge_fn, pinrocks_slice,
};
use crate::raw::error::{note_merge_failure, panic_message};
use crate::raw::new_value::{NewValue, OutOfMemory};
use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::raw::trampoline::drop_in_callback;

/// Why a merge failed: said by the operator's function, reported with its name by the read
/// that needed the merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError(String);

impl MergeError {
    /// A failure with this reason.
    pub fn new(reason: impl fmt::Display) -> Self {
        MergeError(reason.to_string())
    }
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MergeError {}

impl From<DecodeError> for MergeError {
    fn from(e: DecodeError) -> Self {
        MergeError::new(e)
    }
}

/// The operands of one merge, oldest first, borrowed from RocksDB for the call.
#[derive(Clone, Copy)]
pub struct MergeOperands<'a> {
    slices: &'a [pinrocks_slice],
}

impl<'a> MergeOperands<'a> {
    /// # Safety
    /// `data` must point to `len` slices whose bytes stay valid for `'a` (or be NULL with
    /// `len == 0`).
    unsafe fn new(data: *const pinrocks_slice, len: usize) -> Self {
        let slices = if len == 0 || data.is_null() {
            &[][..]
        } else {
            // SAFETY: guaranteed by the caller.
            unsafe { std::slice::from_raw_parts(data, len) }
        };
        MergeOperands { slices }
    }

    /// How many operands there are.
    pub fn len(&self) -> usize {
        self.slices.len()
    }

    /// Whether there are none (a full merge always has at least one).
    pub fn is_empty(&self) -> bool {
        self.slices.is_empty()
    }

    /// The `i`-th operand, oldest first.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        self.slices.get(i).map(|s| {
            // SAFETY: every slice RocksDB gives is valid for 'a (see `new`).
            unsafe { value_slice(s.data, s.len) }
        })
    }

    /// Every operand, oldest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + DoubleEndedIterator + 'a {
        let slices = self.slices;
        // SAFETY: as in `get`.
        slices.iter().map(|s| unsafe { value_slice(s.data, s.len) })
    }

    /// The operands after the first.
    fn rest(&self) -> MergeOperands<'a> {
        MergeOperands {
            slices: self.slices.get(1..).unwrap_or(&[]),
        }
    }
}

impl fmt::Debug for MergeOperands<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// What a merge combines: a key, its value before the operands (if any), the operands.
#[derive(Debug, Clone, Copy)]
pub struct MergeInput<'a> {
    /// The key being merged.
    pub key: &'a [u8],
    /// Its value before the operands; `None` if it had none (never written, or deleted).
    pub existing: Option<&'a [u8]>,
    /// The operands, oldest first.
    pub operands: MergeOperands<'a>,
}

/// Where a merge writes its result: RocksDB's own string for it (empty at the start),
/// written in place, so a merge allocates nothing of its own. Or, with
/// [`use_operand`](Self::use_operand) / [`use_existing`](Self::use_existing), the result is
/// one of the inputs and RocksDB copies nothing.
pub struct MergeOutput<'a> {
    value: NewValue<'a>,
    /// `Some` in a full merge: which input is the result (`usize::MAX`: the string).
    reuse: Option<&'a mut usize>,
    input: MergeInput<'a>,
}

impl From<OutOfMemory> for MergeError {
    fn from(_: OutOfMemory) -> Self {
        MergeError::new("the merge result could not be allocated")
    }
}

impl MergeOutput<'_> {
    /// The result so far.
    pub fn as_bytes(&self) -> &[u8] {
        self.value.as_bytes()
    }

    /// Appends `bytes` to the result.
    pub fn extend(&mut self, bytes: &[u8]) -> Result<(), MergeError> {
        self.reuse_none();
        Ok(self.value.extend(bytes)?)
    }

    /// Makes the result exactly `bytes`.
    pub fn set(&mut self, bytes: &[u8]) -> Result<(), MergeError> {
        self.reuse_none();
        Ok(self.value.set(bytes)?)
    }

    /// Makes the result `len` bytes long (keeping what is there, zero-filling the rest) and
    /// returns it to write in place.
    pub fn resize(&mut self, len: usize) -> Result<&mut [u8], MergeError> {
        self.reuse_none();
        Ok(self.value.resize(len)?)
    }

    /// Empties the result.
    pub fn clear(&mut self) {
        self.reuse_none();
        self.value.clear();
    }

    /// The result is operand `i` as it is: RocksDB uses it without a copy (in a partial
    /// merge it is copied into the result). `Err` if there is no operand `i`.
    pub fn use_operand(&mut self, i: usize) -> Result<(), MergeError> {
        let operand = self
            .input
            .operands
            .get(i)
            .ok_or_else(|| MergeError::new(format!("no operand {i}")))?;
        self.use_input(i, operand)
    }

    /// The result is the existing value as it is, without a copy. `Err` if there is none.
    pub fn use_existing(&mut self) -> Result<(), MergeError> {
        let existing = self
            .input
            .existing
            .ok_or_else(|| MergeError::new("no existing value"))?;
        self.use_input(self.input.operands.len(), existing)
    }

    /// Input `index` (operands first, then the existing value) is the result.
    fn use_input(&mut self, index: usize, bytes: &[u8]) -> Result<(), MergeError> {
        match self.reuse.as_deref_mut() {
            Some(reuse) => {
                *reuse = index;
                self.value.clear();
                Ok(())
            }
            None => Ok(self.value.set(bytes)?),
        }
    }

    /// Writing into the string undoes an earlier `use_operand`/`use_existing`.
    fn reuse_none(&mut self) {
        if let Some(reuse) = self.reuse.as_deref_mut() {
            *reuse = usize::MAX;
        }
    }
}

type FullFn = dyn Fn(MergeInput<'_>, &mut MergeOutput<'_>) -> Result<(), MergeError> + Send + Sync;
type PartialFn = dyn Fn(&[u8], MergeOperands<'_>, &mut MergeOutput<'_>) -> bool + Send + Sync;

struct MergeFns {
    name: CString,
    full: Box<FullFn>,
    partial: Option<Box<PartialFn>>,
}

/// A merge operator: a name (RocksDB logs it and keeps it in the OPTIONS file) and the
/// functions that combine a key's value with its operands. Cheap to clone; one operator may
/// be set on many options.
///
/// A panic in either function is caught: a full merge that panics fails like one that
/// returns `Err`; a partial merge that panics counts as "cannot combine these".
///
/// Merge operators: read-modify-write done inside RocksDB. A `merge(key, operand)` write
/// stores the operand; reads and compactions combine the key's value with its pending
/// operands through the operator set on the column family's [`Options`](crate::Options).
///
/// The user's function sees RocksDB's own bytes: the existing value and every operand are
/// borrowed slices (RocksDB's array of slices, no `Vec` per operand or per merge), and the
/// result is written straight into the string RocksDB gives for it ([`MergeOutput`]), or
/// names an operand or the existing value so that RocksDB copies nothing at all.
///
/// It runs on readers' threads and on RocksDB's flush and compaction threads, so it is
/// `Send + Sync + 'static`; the options own it and RocksDB frees it with the last column
/// family that uses it. A merge that fails (returns `Err` or panics) fails the reads of that
/// key with [`Error::MergeFailed`](crate::Error::MergeFailed), naming the operator; flushes
/// and compactions keep the operands as they are, so the database stays writable and a
/// fixed operator can read them later. A panic never unwinds into RocksDB.
///
/// A callback must not own the last handle to a database ([`Db`](crate::Db), an owned
/// `Bytes` of it): dropped on a RocksDB thread, closing the database would wait for that
/// very thread's job to end, forever.
///
/// ```
/// use pinrocks::codec::BigEndian;
/// use pinrocks::{Db, Options};
/// use pinrocks::callbacks::MergeOperator;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options
///     .create_if_missing(true)
///     .merge_operator(&MergeOperator::fold::<BigEndian<u64>>("add", |sum, x| sum + x));
/// let db = Db::open(&options, dir.path())?;
/// for _ in 0..3 {
///     db.merge(b"visits", &1u64.to_be_bytes())?;
/// }
/// assert_eq!(db.get(b"visits")?, Some(3u64.to_be_bytes().to_vec()));
/// # Ok(()) }
/// ```
///
/// The operands are RocksDB's memory for the call only: keeping one does not compile.
///
/// ```compile_fail
/// use std::sync::Mutex;
/// static KEPT: Mutex<Option<&'static [u8]>> = Mutex::new(None);
/// let op = pinrocks::callbacks::MergeOperator::new("leak", |input, out| {
///     *KEPT.lock().unwrap() = input.operands.get(0); // error: borrowed data escapes
///     out.set(b"")
/// });
/// ```
///
/// Nor does state that cannot cross threads (RocksDB's compaction threads run merges too):
///
/// ```compile_fail
/// let counter = std::rc::Rc::new(std::cell::Cell::new(0));
/// let op = pinrocks::callbacks::MergeOperator::new("rc", move |_input, out| {
///     counter.set(counter.get() + 1); // error: `Rc` is neither `Send` nor `Sync`
///     out.set(b"")
/// });
/// ```
///
/// What an operator may do: compute its result from its inputs. RocksDB runs it inside a
/// read on the reading thread (where a nested read crashes RocksDB), inside writes, flushes
/// and compactions: every pinrocks call into a database from there, read or write, is
/// refused ([`Error::InsideCallback`](crate::Error::InsideCallback); an iterator panics, which
/// fails the merge).
#[derive(Clone)]
pub struct MergeOperator {
    fns: Arc<MergeFns>,
}

impl fmt::Debug for MergeOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MergeOperator")
            .field("name", &self.fns.name)
            .field("partial", &self.fns.partial.is_some())
            .finish()
    }
}

impl MergeOperator {
    /// An operator with a full merge only: RocksDB keeps every operand until a read or a
    /// compaction reaches the key's base value (or its absence).
    ///
    /// `full` gets the existing value and the operands, and writes the result into the
    /// output (`Err` fails the merge). A name with a NUL byte is cut at it.
    pub fn new<F>(name: &str, full: F) -> Self
    where
        F: Fn(MergeInput<'_>, &mut MergeOutput<'_>) -> Result<(), MergeError>
            + Send
            + Sync
            + 'static,
    {
        MergeOperator {
            fns: Arc::new(MergeFns {
                name: c_name(name),
                full: Box::new(full),
                partial: None,
            }),
        }
    }

    /// Adds a partial merge: combine two or more operands into one operand (`false`:
    /// cannot, and RocksDB keeps them), so that compactions and reads meet fewer operands.
    ///
    /// # Panics
    /// If this operator value was cloned (the clones share their functions).
    pub fn with_partial<P>(mut self, partial: P) -> Self
    where
        P: Fn(&[u8], MergeOperands<'_>, &mut MergeOutput<'_>) -> bool + Send + Sync + 'static,
    {
        Arc::get_mut(&mut self.fns)
            .expect("with_partial on a cloned MergeOperator")
            .partial = Some(Box::new(partial));
        self
    }

    /// An associative operator: `f(existing, operands)` where combining the operands first
    /// gives the same result, so it also serves as the partial merge (with the first operand
    /// as the existing value). A counter, a max, an append.
    ///
    /// ```
    /// # use pinrocks::callbacks::MergeOperator;
    /// // Append-only lists of records: the value is the concatenation of its operands.
    /// let append = MergeOperator::associative("append", |input, out| {
    ///     out.clear();
    ///     if let Some(existing) = input.existing {
    ///         out.extend(existing)?;
    ///     }
    ///     for operand in input.operands.iter() {
    ///         out.extend(operand)?;
    ///     }
    ///     Ok(())
    /// });
    /// ```
    pub fn associative<F>(name: &str, f: F) -> Self
    where
        F: Fn(MergeInput<'_>, &mut MergeOutput<'_>) -> Result<(), MergeError>
            + Send
            + Sync
            + 'static,
    {
        let f = Arc::new(f);
        let partial = Arc::clone(&f);
        MergeOperator::new(name, move |input, out| f(input, out)).with_partial(
            move |_key, _operands, out| {
                // The first operand stands for the existing value; the output names inputs
                // as the function sees them.
                let all = out.input.operands;
                out.input = MergeInput {
                    key: out.input.key,
                    existing: all.get(0),
                    operands: all.rest(),
                };
                partial(out.input, out).is_ok()
            },
        )
    }

    /// A typed associative fold through a codec: the result is
    /// `f(..f(f(start, op1), op2).., opN)` where `start` is the existing value, or the first
    /// operand when there is none. Values and operands that do not decode fail the merge
    /// (the read reports the decode error). Fixed-size codecs allocate nothing.
    pub fn fold<C>(
        name: &str,
        f: impl Fn(C::Owned, C::Decoded<'_>) -> C::Owned + Send + Sync + 'static,
    ) -> Self
    where
        C: Codec + 'static,
        C::Owned: Borrow<C::Item<'static>>,
    {
        MergeOperator::associative(name, move |input, out| {
            let mut operands = input.operands.iter();
            let start = match input.existing {
                Some(existing) => existing,
                None => operands
                    .next()
                    .ok_or_else(|| MergeError::new("no operands"))?,
            };
            // Through `with_decoded`: a codec that reads on its own copy (rkyv's aligned
            // format, a misaligned operand) folds as any other.
            let mut acc = C::with_decoded(start, C::to_owned)?;
            for operand in operands {
                acc = C::with_decoded(operand, |operand| f(acc, operand))?;
            }
            C::with_encoded(acc.borrow(), |bytes| out.set(bytes)).map_err(MergeError::new)?
        })
    }

    /// The operator's name.
    pub fn name(&self) -> &str {
        self.fns.name.to_str().unwrap_or("(not UTF-8)")
    }

    /// Hands a new reference to the functions to `set`, the C++ operator's constructor:
    /// it owns the reference from then on and drops it with `destroy_fns`.
    pub(crate) fn install(
        &self,
        set: impl FnOnce(
            *const c_char,
            *mut c_void,
            pinrocks_full_merge_fn,
            pinrocks_partial_merge_fn,
            pinrocks_destroy_fn,
        ),
    ) {
        let state = Box::into_raw(Box::new(Arc::clone(&self.fns))).cast::<c_void>();
        set(
            self.fns.name.as_ptr(),
            state,
            Some(full_merge),
            self.fns.partial.as_ref().map(|_| partial_merge as _),
            Some(destroy_fns),
        );
    }
}

/// The name as a C string, cut at a NUL byte.
pub(crate) fn c_name(name: &str) -> CString {
    let cut = name.split('\0').next().unwrap_or("");
    CString::new(cut).unwrap_or_default()
}

extern "C" fn destroy_fns(state: *mut c_void) {
    // SAFETY: `state` is the box made by `install`, freed exactly once by the C++ owner.
    let fns = unsafe { Box::from_raw(state.cast::<Arc<MergeFns>>()) };
    // A panic in the closure's destructor must not unwind into C++.
    drop_in_callback(fns);
}

/// # Safety
/// `state` is a live `install` box; the slices are RocksDB's for this call.
unsafe fn fns<'a>(state: *mut c_void) -> &'a MergeFns {
    // SAFETY: the C++ operator keeps the box alive while RocksDB can call it.
    unsafe { &*state.cast::<Arc<MergeFns>>() }
}

#[allow(clippy::too_many_arguments)]
extern "C" fn full_merge(
    state: *mut c_void,
    key: *const c_char,
    keylen: usize,
    existing: *const pinrocks_slice,
    operands: *const pinrocks_slice,
    num_operands: usize,
    new_value: *mut c_void,
    reuse: *mut usize,
) -> u8 {
    // SAFETY: RocksDB calls with a live state, its key, existing value and operands valid
    // for the call, its result string and our `reuse` out-parameter.
    let (fns, input, reuse) = unsafe {
        let input = MergeInput {
            key: value_slice(key, keylen),
            existing: existing.as_ref().map(|s| value_slice(s.data, s.len)),
            operands: MergeOperands::new(operands, num_operands),
        };
        (fns(state), input, &mut *reuse)
    };
    let mut out = MergeOutput {
        // SAFETY: RocksDB's result string for this merge.
        value: unsafe { NewValue::new(new_value) },
        reuse: Some(reuse),
        input,
    };
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(reentry::MERGE_OPERATOR, || (fns.full)(input, &mut out))
    }));
    match outcome {
        Ok(Ok(())) => 1,
        Ok(Err(e)) => {
            note_merge_failure(&fns.name, e.0);
            0
        }
        Err(panic) => {
            note_merge_failure(&fns.name, format!("panicked: {}", panic_message(&*panic)));
            0
        }
    }
}

extern "C" fn partial_merge(
    state: *mut c_void,
    key: *const c_char,
    keylen: usize,
    operands: *const pinrocks_slice,
    num_operands: usize,
    new_value: *mut c_void,
) -> u8 {
    // SAFETY: as in `full_merge`.
    let (fns, key, operands) = unsafe {
        (
            fns(state),
            value_slice(key, keylen),
            MergeOperands::new(operands, num_operands),
        )
    };
    let Some(partial) = &fns.partial else {
        return 0;
    };
    let mut out = MergeOutput {
        // SAFETY: RocksDB's result string for this merge.
        value: unsafe { NewValue::new(new_value) },
        reuse: None,
        input: MergeInput {
            key,
            existing: None,
            operands,
        },
    };
    let merged = panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(reentry::MERGE_OPERATOR, || partial(key, operands, &mut out))
    }));
    u8::from(matches!(merged, Ok(true)))
}
