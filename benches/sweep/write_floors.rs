//! The writes section's floors (`write_ways.rs`): RocksDB with no Rust binding between, the
//! C API's call on a pinrocks database, one crossing per write or per batch, and a C++ loop
//! over `DB::Put` & co. or over a `WriteBatch` and `DB::Write`
//! (`pinrocks_bench_write_loop`, `rocksdb-c-dev/bench_floor.cc`), no crossing per write.

use std::os::raw::{c_char, c_int};

use pinrocks::{ffi, Db};

use crate::write_kinds::{Kind, Record, Side};
use crate::write_ways::{Runs, Way};

/// The C++ loop's view of a key (`pinrocks_slice`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CSlice {
    pub data: *const c_char,
    pub len: usize,
}

unsafe extern "C" {
    /// `rocksdb-c-dev/bench_floor.cc`.
    fn pinrocks_bench_write_loop(
        db: *mut ffi::rocksdb_t,
        options: *const ffi::rocksdb_writeoptions_t,
        keys: *const CSlice,
        n: usize,
        value: *const c_char,
        valuelen: usize,
        op: c_int,
    ) -> c_int;
}

/// `op`s of `pinrocks_bench_write_loop`.
const LOOP_PUT: c_int = 0;
const LOOP_DELETE: c_int = 1;
const LOOP_MERGE: c_int = 2;
const LOOP_ENTITY: c_int = 3;
const LOOP_BATCH: c_int = 4;
const LOOP_BATCH_DELETE: c_int = 5;
const LOOP_BATCH_MERGE: c_int = 6;

/// The C API's batch, cleared and reused as pinrocks' is. A way uses it through `ptr`, so
/// that its closure captures (owns) the whole batch, not the pointer field alone.
struct RawBatch(*mut ffi::rocksdb_writebatch_t);

impl RawBatch {
    fn ptr(&self) -> *mut ffi::rocksdb_writebatch_t {
        self.0
    }
}

impl Drop for RawBatch {
    fn drop(&mut self) {
        // SAFETY: created by `rocksdb_writebatch_create`, destroyed once.
        unsafe { ffi::rocksdb_writebatch_destroy(self.0) };
    }
}

/// The C API's indexed batch (keys overwritten, as pinrocks' is), cleared and reused; used
/// through `ptr`, as `RawBatch`.
struct RawIndexed(*mut ffi::rocksdb_writebatch_wi_t);

impl RawIndexed {
    fn ptr(&self) -> *mut ffi::rocksdb_writebatch_wi_t {
        self.0
    }
}

impl Drop for RawIndexed {
    fn drop(&mut self) {
        // SAFETY: created by `rocksdb_writebatch_wi_create`, destroyed once.
        unsafe { ffi::rocksdb_writebatch_wi_destroy(self.0) };
    }
}

/// Panics unless the C API reported no error (the floor's check, as a binding's).
fn no_error(err: *mut c_char, call: &str) {
    assert!(err.is_null(), "{call} failed");
}

/// The C API's calls on a pinrocks database: one crossing per write or per batch.
pub fn floor<'a>(
    kind: Kind,
    db: &'a Db,
    options: *mut ffi::rocksdb_writeoptions_t,
    value: &'a [u8],
    runs: &'a Runs,
) -> Way<'a> {
    let (raw, _) = db.as_raw();
    let (v, vlen) = (value.as_ptr().cast::<c_char>(), value.len());
    // Each call below: a live database (`db`, borrowed by the way) and write options
    // (`Durability`, borrowed by the caller for the way's life); keys and values are borrowed
    // for the call and copied by RocksDB.
    match kind {
        Kind::Put => Box::new(move |k| {
            let mut err = std::ptr::null_mut();
            // SAFETY: live database and options, bytes borrowed for the call (above).
            unsafe {
                ffi::rocksdb_put(raw, options, k.as_ptr().cast(), k.len(), v, vlen, &mut err)
            };
            no_error(err, "rocksdb_put");
            1
        }),
        Kind::Delete => Box::new(move |k| {
            let mut err = std::ptr::null_mut();
            // SAFETY: live database and options, bytes borrowed for the call (above).
            unsafe { ffi::rocksdb_delete(raw, options, k.as_ptr().cast(), k.len(), &mut err) };
            no_error(err, "rocksdb_delete");
            1
        }),
        Kind::Merge => Box::new(move |k| {
            let mut err = std::ptr::null_mut();
            // SAFETY: live database and options, bytes borrowed for the call (above).
            unsafe {
                ffi::rocksdb_merge(raw, options, k.as_ptr().cast(), k.len(), v, vlen, &mut err)
            };
            no_error(err, "rocksdb_merge");
            1
        }),
        // The C API has no entities: the C++ call, one crossing per entity.
        Kind::Entity => Box::new(move |k| {
            // SAFETY: live database and options; the key's view points into `runs`, and
            // the value is borrowed, for the call (above).
            let code = unsafe {
                pinrocks_bench_write_loop(
                    raw,
                    options,
                    runs.slices(k, 1).as_ptr(),
                    1,
                    v,
                    vlen,
                    LOOP_ENTITY,
                )
            };
            assert_eq!(code, 0, "PutEntity failed");
            1
        }),
        Kind::Batch(record, n) => {
            // SAFETY: a new batch, owned by `RawBatch` (destroyed on its drop).
            let batch = RawBatch(unsafe { ffi::rocksdb_writebatch_create() });
            Box::new(move |k| {
                let mut err = std::ptr::null_mut();
                // SAFETY: the way's own live batch, used by this thread alone; live database
                // and options, bytes borrowed for the calls (above).
                unsafe {
                    ffi::rocksdb_writebatch_clear(batch.ptr());
                    for key in runs.keys(k, n) {
                        let (b, kp, kl) = (batch.ptr(), key.as_ptr().cast(), key.len());
                        match record {
                            Record::Put => ffi::rocksdb_writebatch_put(b, kp, kl, v, vlen),
                            Record::Delete => ffi::rocksdb_writebatch_delete(b, kp, kl),
                            Record::Merge => ffi::rocksdb_writebatch_merge(b, kp, kl, v, vlen),
                        }
                    }
                    ffi::rocksdb_write(raw, options, batch.ptr(), &mut err);
                }
                no_error(err, "rocksdb_write");
                n as u64
            })
        }
        Kind::Indexed(n) => {
            // SAFETY: a new indexed batch, owned by `RawIndexed` (destroyed on its drop).
            let batch = RawIndexed(unsafe { ffi::rocksdb_writebatch_wi_create(0, 1) });
            Box::new(move |k| {
                let mut err = std::ptr::null_mut();
                // SAFETY: the way's own live indexed batch, used by this thread alone; live
                // database and options, bytes borrowed for the calls (above).
                unsafe {
                    ffi::rocksdb_writebatch_wi_clear(batch.ptr());
                    for key in runs.keys(k, n) {
                        ffi::rocksdb_writebatch_wi_put(
                            batch.ptr(),
                            key.as_ptr().cast(),
                            key.len(),
                            v,
                            vlen,
                        );
                    }
                    ffi::rocksdb_write_writebatch_wi(raw, options, batch.ptr(), &mut err);
                }
                no_error(err, "rocksdb_write_writebatch_wi");
                n as u64
            })
        }
        Kind::Txn { .. } => panic!("no floor for a transaction"),
    }
}

/// The C++ loop: `LOOP_RUN` single writes, or one batch, per crossing.
pub fn looped<'a>(
    kind: Kind,
    db: &'a Db,
    options: *mut ffi::rocksdb_writeoptions_t,
    value: &'a [u8],
    runs: &'a Runs,
) -> Way<'a> {
    let (raw, _) = db.as_raw();
    let op = match kind {
        Kind::Put => LOOP_PUT,
        Kind::Delete => LOOP_DELETE,
        Kind::Merge => LOOP_MERGE,
        Kind::Entity => LOOP_ENTITY,
        Kind::Batch(Record::Put, _) => LOOP_BATCH,
        Kind::Batch(Record::Delete, _) => LOOP_BATCH_DELETE,
        Kind::Batch(Record::Merge, _) => LOOP_BATCH_MERGE,
        other => panic!("no C++ loop for {other:?}"),
    };
    let n = kind.ops_of(Side::Loop);
    // Single writes: the next `n` keys of the harness' random order, as scattered as the
    // other ways' (the key given is not used: its place in that order is not known here); a
    // batch: the run from the key given, as the other ways' batches.
    let mut at = 0usize;
    Box::new(move |k| {
        let keys = if matches!(kind, Kind::Batch(..)) {
            runs.slices(k, n)
        } else {
            at += n;
            runs.random(at - n, n)
        };
        // SAFETY: a live database and write options (as `floor`'s); the keys and the value
        // are borrowed for the call and copied by RocksDB.
        let code = unsafe {
            pinrocks_bench_write_loop(
                raw,
                options,
                keys.as_ptr(),
                keys.len(),
                value.as_ptr().cast(),
                value.len(),
                op,
            )
        };
        assert_eq!(code, 0, "the C++ write loop failed");
        n as u64
    })
}
