//! Fails loudly if RocksDB's C API structs no longer have the layout that
//! `rocksdb-c/layout.h` mirrors. For each of its accessors, what is set through the public C
//! API (`ffi::rocksdb_*`) must be what the C++ side reads through the accessor, and each handle
//! must reach its own object. The C++ side is read through the test-only probes of
//! `rocksdb-c-dev/layout_probes.h`, declared here (bindgen does not see them), and through the
//! pinrocks functions that already read or write through an accessor. Only `crate::raw::ffi` is
//! used: nothing else of the crate stands between the test and the C API.
//!
//! Long because: 12 tests reach all 15 mirrored structs (15 accessors), each setting its
//! value through the C API and freeing what it made.

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::Path;
use std::ptr;

use crate::raw::ffi;
// The probes' static library (rocksdb-c-dev/), linked into the tests alone.
use pinrocks_dev_c as _;

// rocksdb-c-dev/layout_probes.h.
unsafe extern "C" {
    fn pinrocks_db_name(db: *mut ffi::rocksdb_t, buf: *mut c_char, buflen: usize) -> usize;
    fn pinrocks_db_is_transactiondb(
        db: *mut ffi::rocksdb_t,
        txn_db: *mut ffi::rocksdb_transactiondb_t,
    ) -> u8;
    fn pinrocks_db_is_optimistictransactiondb(
        db: *mut ffi::rocksdb_t,
        txn_db: *mut ffi::rocksdb_optimistictransactiondb_t,
    ) -> u8;
    fn pinrocks_transactiondb_name(
        txn_db: *mut ffi::rocksdb_transactiondb_t,
        buf: *mut c_char,
        buflen: usize,
    ) -> usize;
    fn pinrocks_optimistictransactiondb_name(
        txn_db: *mut ffi::rocksdb_optimistictransactiondb_t,
        buf: *mut c_char,
        buflen: usize,
    ) -> usize;
    fn pinrocks_readoptions_borrowed_count(options: *const ffi::rocksdb_readoptions_t) -> u32;
    fn pinrocks_options_write_buffer_size(options: *const ffi::rocksdb_options_t) -> usize;
    fn pinrocks_options_max_open_files(options: *const ffi::rocksdb_options_t) -> c_int;
    fn pinrocks_cache_capacity(cache: *const ffi::rocksdb_cache_t) -> usize;
    fn pinrocks_readoptions_fill_cache(options: *const ffi::rocksdb_readoptions_t) -> u8;
    fn pinrocks_readoptions_verify_checksums(options: *const ffi::rocksdb_readoptions_t) -> u8;
    fn pinrocks_writeoptions_sync(options: *const ffi::rocksdb_writeoptions_t) -> u8;
    fn pinrocks_writeoptions_disable_wal(options: *const ffi::rocksdb_writeoptions_t) -> u8;
    fn pinrocks_column_family_name(
        column_family: *mut ffi::rocksdb_column_family_handle_t,
        buf: *mut c_char,
        buflen: usize,
    ) -> usize;
    fn pinrocks_db_column_family_name(
        db: *mut ffi::rocksdb_t,
        column_family: *mut ffi::rocksdb_column_family_handle_t,
        buf: *mut c_char,
        buflen: usize,
    ) -> usize;
    fn pinrocks_writebatch_wi_count(batch: *mut ffi::rocksdb_writebatch_wi_t) -> u32;
    fn pinrocks_iter_key(
        iter: *const ffi::rocksdb_iterator_t,
        buf: *mut c_char,
        buflen: usize,
    ) -> usize;
    fn pinrocks_pinnableslice_value(
        value: *const ffi::rocksdb_pinnableslice_t,
        buf: *mut c_char,
        buflen: usize,
    ) -> usize;
    fn pinrocks_transaction_name(
        txn: *mut ffi::rocksdb_transaction_t,
        buf: *mut c_char,
        buflen: usize,
    ) -> usize;
    fn pinrocks_sstfilewriter_file_size(writer: *mut ffi::rocksdb_sstfilewriter_t) -> u64;
    fn pinrocks_backup_engine_backup_count(
        backup_engine: *mut ffi::rocksdb_backup_engine_t,
    ) -> usize;
}

/// What a probe copies into a buffer (names and values here are short); `len` is what it
/// returned, the full length.
fn copied(f: impl FnOnce(*mut c_char, usize) -> usize) -> Vec<u8> {
    let mut buf = [0u8; 256];
    let len = f(buf.as_mut_ptr().cast(), buf.len());
    assert!(
        len <= buf.len(),
        "probe returned {len} bytes for a 256-byte buffer"
    );
    buf[..len].to_vec()
}

/// The bytes a C API getter points to, copied.
fn bytes_at(data: *const c_char, len: usize) -> Vec<u8> {
    assert!(!data.is_null());
    // SAFETY: the C API returned `data` with `len` readable bytes, valid until the handle it
    // came from changes; it is copied at once.
    unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }.to_vec()
}

/// Panics with RocksDB's message if a C API call set `err`.
fn check(err: *mut c_char, what: &str) {
    if err.is_null() {
        return;
    }
    // SAFETY: the C API's error is a NUL-terminated malloc'd string.
    let message = unsafe { CStr::from_ptr(err) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: freed once, with the allocator the C API used.
    unsafe { ffi::rocksdb_free(err.cast()) };
    panic!("{what}: {message}");
}

/// Panics if a pinrocks call reported an error (its code and message).
fn check_pinrocks(code: c_int, err: *mut c_char, what: &str) {
    check(err, what);
    assert_eq!(code, 0, "{what}: status code {code}");
}

fn c_path(path: &Path) -> CString {
    CString::new(path.to_str().unwrap()).unwrap()
}

/// New options that create a missing database (free with rocksdb_options_destroy).
fn creating_options() -> *mut ffi::rocksdb_options_t {
    // SAFETY: no arguments; the new handle is the caller's.
    let options = unsafe { ffi::rocksdb_options_create() };
    // SAFETY: a live options handle.
    unsafe { ffi::rocksdb_options_set_create_if_missing(options, 1) };
    options
}

/// Opens (creating) a database at `path` (close with rocksdb_close).
fn open_db(options: *const ffi::rocksdb_options_t, path: &Path) -> *mut ffi::rocksdb_t {
    let name = c_path(path);
    let mut err = ptr::null_mut();
    // SAFETY: live options, a NUL-terminated path, an error slot.
    let db = unsafe { ffi::rocksdb_open(options, name.as_ptr(), &mut err) };
    check(err, "rocksdb_open");
    assert!(!db.is_null());
    db
}

fn put(db: *mut ffi::rocksdb_t, key: &[u8], value: &[u8]) {
    // SAFETY: no arguments; destroyed below.
    let options = unsafe { ffi::rocksdb_writeoptions_create() };
    let mut err = ptr::null_mut();
    // SAFETY: live database and options; the bytes are borrowed for the call.
    unsafe {
        ffi::rocksdb_put(
            db,
            options,
            key.as_ptr().cast(),
            key.len(),
            value.as_ptr().cast(),
            value.len(),
            &mut err,
        )
    };
    check(err, "rocksdb_put");
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_writeoptions_destroy(options) };
}

#[test]
fn read_options_set_through_the_c_api_are_seen_by_cpp() {
    for fill_cache in [0u8, 1] {
        for verify in [0u8, 1] {
            // SAFETY: no arguments; destroyed below.
            let options = unsafe { ffi::rocksdb_readoptions_create() };
            // SAFETY: a live read options handle.
            unsafe {
                ffi::rocksdb_readoptions_set_fill_cache(options, fill_cache);
                ffi::rocksdb_readoptions_set_verify_checksums(options, verify);
            }
            // SAFETY: a live read options handle.
            let seen = unsafe {
                (
                    pinrocks_readoptions_fill_cache(options),
                    pinrocks_readoptions_verify_checksums(options),
                )
            };
            assert_eq!(seen, (fill_cache, verify));
            // Written through the accessor: pinrocks_readoptions_copy copies `rep` into a new
            // handle, which the C API's getters read.
            // SAFETY: a live read options handle; the copy is destroyed below.
            let copy = unsafe { ffi::pinrocks_readoptions_copy(options) };
            assert!(!copy.is_null());
            // SAFETY: a live read options handle.
            let copied_back = unsafe {
                (
                    ffi::rocksdb_readoptions_get_fill_cache(copy),
                    ffi::rocksdb_readoptions_get_verify_checksums(copy),
                )
            };
            assert_eq!(copied_back, (fill_cache, verify));
            // SAFETY: both created above, no longer used.
            unsafe {
                ffi::rocksdb_readoptions_destroy(copy);
                ffi::rocksdb_readoptions_destroy(options);
            }
        }
    }
}

/// A table filter that keeps every table (never called here: no read is made).
extern "C" fn keep_every_table(
    _: *mut std::ffi::c_void,
    _: *const ffi::rocksdb_table_properties_t,
) -> u8 {
    1
}

#[test]
fn a_read_options_copy_points_into_nothing_of_its_source() {
    // SAFETY: no arguments; destroyed below.
    let options = unsafe { ffi::rocksdb_readoptions_create() };
    // SAFETY: a live handle; the id is copied into it; the filter has no state.
    unsafe {
        ffi::rocksdb_readoptions_set_request_id(options, b"id".as_ptr().cast(), 2);
        ffi::rocksdb_readoptions_set_table_filter(
            options,
            ptr::null_mut(),
            None,
            Some(keep_every_table),
        );
    }
    // SAFETY: a live handle.
    assert_eq!(unsafe { pinrocks_readoptions_borrowed_count(options) }, 2);
    // SAFETY: a live handle; the copy is destroyed below.
    let copy = unsafe { ffi::pinrocks_readoptions_copy(options) };
    assert!(!copy.is_null());
    // SAFETY: both created above: the source goes first, as a copy may outlive it.
    unsafe { ffi::rocksdb_readoptions_destroy(options) };
    // SAFETY: a live handle.
    assert_eq!(unsafe { pinrocks_readoptions_borrowed_count(copy) }, 0);
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_readoptions_destroy(copy) };
}

#[test]
fn write_options_set_through_the_c_api_are_seen_by_cpp() {
    for sync in [0u8, 1] {
        for disable_wal in [0u8, 1] {
            // SAFETY: no arguments; destroyed below.
            let options = unsafe { ffi::rocksdb_writeoptions_create() };
            // SAFETY: a live write options handle.
            unsafe {
                ffi::rocksdb_writeoptions_set_sync(options, sync);
                ffi::rocksdb_writeoptions_disable_WAL(options, c_int::from(disable_wal));
            }
            // SAFETY: a live write options handle.
            let seen = unsafe {
                (
                    pinrocks_writeoptions_sync(options),
                    pinrocks_writeoptions_disable_wal(options),
                )
            };
            assert_eq!(seen, (sync, disable_wal));
            // SAFETY: created above, no longer used.
            unsafe { ffi::rocksdb_writeoptions_destroy(options) };
        }
    }
}

#[test]
fn options_set_through_the_c_api_are_seen_by_cpp() {
    // SAFETY: no arguments; destroyed below.
    let options = unsafe { ffi::rocksdb_options_create() };
    // SAFETY: a live options handle.
    unsafe {
        ffi::rocksdb_options_set_write_buffer_size(options, 12_345_678);
        ffi::rocksdb_options_set_max_open_files(options, 321);
    }
    // SAFETY: a live options handle.
    let seen = unsafe {
        (
            pinrocks_options_write_buffer_size(options),
            pinrocks_options_max_open_files(options),
        )
    };
    assert_eq!(seen, (12_345_678, 321));
    // The comparator, read through the same accessor: RocksDB's default.
    let comparator = copied(|buf, len| {
        // SAFETY: a live options handle, a buffer of `len` bytes.
        unsafe { ffi::pinrocks_options_comparator_name(options, buf, len) }
    });
    assert_eq!(comparator, b"leveldb.BytewiseComparator");
    // No statistics until the C API enables them.
    // SAFETY: a live options handle.
    let none = unsafe { ffi::pinrocks_statistics_of_options(options) };
    assert!(none.is_null());
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_options_destroy(options) };
}

#[test]
fn statistics_enabled_through_the_c_api_are_seen_by_cpp() {
    let dir = tempfile::tempdir().unwrap();
    let options = creating_options();
    // SAFETY: a live options handle.
    unsafe { ffi::rocksdb_options_enable_statistics(options) };
    let db = open_db(options, dir.path());
    for key in [b"a", b"b", b"c"] {
        put(db, key, b"value");
    }
    // SAFETY: the database, closed once: its statistics, kept by the options, stay (and
    // stop changing).
    unsafe { ffi::rocksdb_close(db) };
    // Through the options accessor (Options::statistics): the database's own counters.
    // SAFETY: a live options handle; the reference is destroyed below.
    let statistics = unsafe { ffi::pinrocks_statistics_of_options(options) };
    assert!(!statistics.is_null());
    // SAFETY: a live statistics reference; nothing written with an empty slice.
    let count = unsafe { ffi::pinrocks_statistics_tickers(statistics, 0, [].as_mut_ptr(), 0) };
    let mut counts = vec![u64::MAX; count];
    // SAFETY: a live statistics reference and `count` slots.
    unsafe { ffi::pinrocks_statistics_tickers(statistics, 0, counts.as_mut_ptr(), count) };
    // The C API's own report of the same tickers, in the same order (RocksDB's TickersNameMap
    // lists them as the enum numbers them), then its histograms (with percentiles).
    // SAFETY: a live options handle; the string is freed below.
    let report = unsafe { ffi::rocksdb_options_statistics_get_string(options) };
    assert!(!report.is_null());
    // SAFETY: a NUL-terminated string malloc'd by the C API.
    let text = unsafe { CStr::from_ptr(report) }
        .to_string_lossy()
        .into_owned();
    assert!(
        text.lines()
            .any(|line| line == "rocksdb.number.keys.written COUNT : 3"),
        "{text}"
    );
    let reported: Vec<u64> = text
        .lines()
        .filter(|line| !line.contains(" P50 : "))
        .filter_map(|line| line.split_once(" COUNT : "))
        .map(|(_, n)| n.parse().unwrap())
        .collect();
    assert_eq!(reported, counts);
    // SAFETY: each created above, freed once (the database closed above).
    unsafe {
        ffi::rocksdb_free(report.cast());
        ffi::pinrocks_statistics_destroy(statistics);
        ffi::rocksdb_options_destroy(options);
    }
}

#[test]
fn cache_capacity_is_seen_both_ways() {
    // SAFETY: no handle arguments; destroyed below.
    let cache = unsafe { ffi::rocksdb_cache_create_lru(1 << 20) };
    // SAFETY: a live cache handle.
    let seen = unsafe { pinrocks_cache_capacity(cache) };
    assert_eq!(seen, 1 << 20);
    // SAFETY: a live cache handle.
    unsafe { ffi::rocksdb_cache_set_capacity(cache, 3 << 20) };
    // SAFETY: a live cache handle.
    let seen = unsafe { pinrocks_cache_capacity(cache) };
    assert_eq!(seen, 3 << 20);
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_cache_destroy(cache) };

    // Written through the accessor (pinrocks_cache_create_lru sets `rep`), read by the C API.
    let mut code = 0;
    let mut err = ptr::null_mut();
    // SAFETY: valid LRU settings, the error slots; destroyed below.
    let cache = unsafe {
        ffi::pinrocks_cache_create_lru(5 << 20, -1, 0.5, 0.0, 0, 0, 0, &mut code, &mut err)
    };
    check_pinrocks(code, err, "pinrocks_cache_create_lru");
    assert!(!cache.is_null());
    // SAFETY: a live cache handle.
    let capacities = unsafe {
        (
            ffi::rocksdb_cache_get_capacity(cache),
            pinrocks_cache_capacity(cache),
        )
    };
    assert_eq!(capacities, (5 << 20, 5 << 20));
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_cache_destroy(cache) };
}

#[test]
fn db_and_column_family_handles_reach_their_objects() {
    let dir = tempfile::tempdir().unwrap();
    let options = creating_options();
    // SAFETY: a live options handle.
    unsafe { ffi::rocksdb_options_set_create_missing_column_families(options, 1) };
    let names = ["default", "alpha", "beta"].map(|n| CString::new(n).unwrap());
    let name_ptrs = names.each_ref().map(|n| n.as_ptr());
    let family_options = [options.cast_const(); 3];
    let mut handles = [ptr::null_mut(); 3];
    let path = c_path(dir.path());
    let mut err = ptr::null_mut();
    // SAFETY: live options, a NUL-terminated path, three names, options and handle slots.
    let db = unsafe {
        ffi::rocksdb_open_column_families(
            options,
            path.as_ptr(),
            3,
            name_ptrs.as_ptr(),
            family_options.as_ptr(),
            handles.as_mut_ptr(),
            &mut err,
        )
    };
    check(err, "rocksdb_open_column_families");
    assert!(!db.is_null());
    // SAFETY: a live database handle, a buffer of `len` bytes.
    let db_name = copied(|buf, len| unsafe { pinrocks_db_name(db, buf, len) });
    assert_eq!(db_name, dir.path().to_str().unwrap().as_bytes());
    for (name, handle) in names.iter().zip(handles) {
        assert!(!handle.is_null());
        // SAFETY: a live column family handle, a buffer of `len` bytes.
        let seen = copied(|buf, len| unsafe { pinrocks_column_family_name(handle, buf, len) });
        assert_eq!(seen, name.as_bytes());
        // SAFETY: live database and column family handles, a buffer of `len` bytes.
        let through_db =
            copied(|buf, len| unsafe { pinrocks_db_column_family_name(db, handle, buf, len) });
        assert_eq!(through_db, name.as_bytes());
    }
    // NULL: the database's default column family.
    let default = copied(|buf, len| {
        // SAFETY: a live database handle, a buffer of `len` bytes.
        unsafe { pinrocks_db_column_family_name(db, ptr::null_mut(), buf, len) }
    });
    assert_eq!(default, b"default");
    // SAFETY: each created above, destroyed once, the handles before their database.
    unsafe {
        for handle in handles {
            ffi::rocksdb_column_family_handle_destroy(handle);
        }
        ffi::rocksdb_close(db);
        ffi::rocksdb_options_destroy(options);
    }
}

#[test]
fn write_batches_are_seen_both_ways() {
    // SAFETY: no arguments; destroyed below.
    let batch = unsafe { ffi::rocksdb_writebatch_create() };
    for key in [b"a", b"b", b"c"] {
        // SAFETY: a live batch; the bytes are copied into it.
        unsafe {
            ffi::rocksdb_writebatch_put(batch, key.as_ptr().cast(), 1, b"v".as_ptr().cast(), 1)
        };
    }
    // SAFETY: a live batch; the batch inside it lives as long as it.
    let inner = unsafe { ffi::pinrocks_writebatch_batch(batch) };
    // SAFETY: a live batch.
    let counts = unsafe {
        (
            ffi::pinrocks_writebatch_count(inner),
            ffi::rocksdb_writebatch_count(batch),
        )
    };
    assert_eq!(counts, (3, 3));
    // The same bytes at the same address: the handle's own batch.
    let (mut len, mut c_len) = (0, 0);
    // SAFETY: a live batch, unchanged while the pointers are read.
    let (data, c_data) = unsafe {
        (
            ffi::pinrocks_writebatch_data(inner, &mut len),
            ffi::rocksdb_writebatch_data(batch, &mut c_len),
        )
    };
    assert_eq!((data, len), (c_data, c_len));
    // Written through the accessor, counted by the C API.
    let mut code = 0;
    let mut err = ptr::null_mut();
    // SAFETY: a live batch, NULL for the default column family, the bytes borrowed for the
    // call, no timestamp, the error slots.
    unsafe {
        ffi::pinrocks_writebatch_write(
            batch,
            ptr::null_mut(),
            ffi::PINROCKS_RECORD_PUT as i32,
            b"d".as_ptr().cast(),
            1,
            b"v".as_ptr().cast(),
            1,
            ptr::null(),
            0,
            &mut code,
            &mut err,
        )
    };
    check_pinrocks(code, err, "pinrocks_writebatch_write");
    // SAFETY: a live batch.
    let count = unsafe { ffi::rocksdb_writebatch_count(batch) };
    assert_eq!(count, 4);
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_writebatch_destroy(batch) };

    // An indexed batch made by the C API, and its own WriteBatch (`pinrocks_batch`).
    // SAFETY: no handle arguments; destroyed below.
    let indexed = unsafe { ffi::rocksdb_writebatch_wi_create(0, 1) };
    for key in [b"a", b"b"] {
        // SAFETY: a live indexed batch; the bytes are copied into it.
        unsafe {
            ffi::rocksdb_writebatch_wi_put(indexed, key.as_ptr().cast(), 1, b"v".as_ptr().cast(), 1)
        };
    }
    // SAFETY: a live indexed batch.
    let counts = unsafe {
        (
            pinrocks_writebatch_wi_count(indexed),
            ffi::rocksdb_writebatch_wi_count(indexed),
        )
    };
    assert_eq!(counts, (2, 2));
    // SAFETY: a live indexed batch; its batch is borrowed while it lives, unchanged.
    let inner = unsafe { ffi::pinrocks_wbwi_batch(indexed) };
    // SAFETY: the batch borrowed above.
    let inner_count = unsafe { ffi::pinrocks_writebatch_count(inner) };
    assert_eq!(inner_count, 2);
    // SAFETY: created above, no longer used (nor is its borrowed batch).
    unsafe { ffi::rocksdb_writebatch_wi_destroy(indexed) };
}

#[test]
fn reads_reach_their_iterators_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let options = creating_options();
    let db = open_db(options, dir.path());
    put(db, b"a", b"1");
    put(db, b"b", b"2");
    // SAFETY: no arguments; destroyed below.
    let read = unsafe { ffi::rocksdb_readoptions_create() };

    // An iterator made by the C API.
    // SAFETY: live database and read options; destroyed below.
    let iter = unsafe { ffi::rocksdb_create_iterator(db, read) };
    // SAFETY: a live iterator; the key is borrowed for the call.
    unsafe { ffi::rocksdb_iter_seek(iter, b"b".as_ptr().cast(), 1) };
    // SAFETY: a live iterator, a buffer of `len` bytes.
    let key = copied(|buf, len| unsafe { pinrocks_iter_key(iter, buf, len) });
    assert_eq!(key, b"b");
    let mut len = 0;
    // SAFETY: a live, valid iterator; its key is copied at once.
    let c_key = bytes_at(unsafe { ffi::rocksdb_iter_key(iter, &mut len) }, len);
    assert_eq!(c_key, b"b");
    // SAFETY: a live iterator; the key is borrowed for the call.
    unsafe { ffi::rocksdb_iter_seek(iter, b"c".as_ptr().cast(), 1) };
    // SAFETY: a live iterator, not valid: nothing is copied.
    let past = unsafe { pinrocks_iter_key(iter, ptr::null_mut(), 0) };
    assert_eq!(past, usize::MAX);
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_iter_destroy(iter) };

    // A pinnable slice and a pinnable handle made by the C API.
    let mut err = ptr::null_mut();
    // SAFETY: live database and read options, the key borrowed for the call; destroyed below.
    let slice = unsafe { ffi::rocksdb_get_pinned(db, read, b"a".as_ptr().cast(), 1, &mut err) };
    check(err, "rocksdb_get_pinned");
    assert!(!slice.is_null());
    // SAFETY: a live pinnable slice, a buffer of `len` bytes.
    let value = copied(|buf, len| unsafe { pinrocks_pinnableslice_value(slice, buf, len) });
    assert_eq!(value, b"1");
    // SAFETY: a live pinnable slice; its value is copied at once.
    let c_value = bytes_at(
        unsafe { ffi::rocksdb_pinnableslice_value(slice, &mut len) },
        len,
    );
    assert_eq!(c_value, b"1");
    // SAFETY: created above, no longer used.
    unsafe { ffi::rocksdb_pinnableslice_destroy(slice) };

    // Wrappers pinrocks makes (through the accessors) and the C API reads and frees.
    // SAFETY: a live database; destroyed below (it does not free the family).
    let default = unsafe { ffi::rocksdb_get_default_column_family_handle(db) };
    let mut code = 0;
    let from_db = ffi::pinrocks_read_source {
        db,
        options: read,
        column_family: default,
        transaction: std::ptr::null_mut(),
        batch: std::ptr::null_mut(),
        kind: ffi::PINROCKS_SOURCE_DB as c_int,
        mode: ffi::PINROCKS_READ_PLAIN as c_int,
    };
    // SAFETY: live database, options and column family, the key borrowed for the call, the
    // error slots; destroyed below.
    let handle = unsafe {
        ffi::pinrocks_read_handle(&from_db, b"b".as_ptr().cast(), 1, &mut code, &mut err)
    };
    check_pinrocks(code, err, "pinrocks_read_handle");
    assert!(!handle.is_null());
    // SAFETY: a live pinnable slice, a buffer of `len` bytes.
    let value = copied(|buf, len| unsafe { pinrocks_pinnableslice_value(handle, buf, len) });
    assert_eq!(value, b"2");
    // SAFETY: a live pinnable slice; its value is copied at once.
    let c_value = bytes_at(
        unsafe { ffi::rocksdb_pinnableslice_value(handle, &mut len) },
        len,
    );
    assert_eq!(c_value, b"2");
    // SAFETY: made by pinrocks as c.cc's struct, freed by the C API.
    unsafe { ffi::rocksdb_pinnableslice_destroy(handle) };

    // SAFETY: a live database, the error slots; destroyed below, before the database.
    let indexed = unsafe { ffi::pinrocks_wbwi_create(db, &mut code, &mut err) };
    check_pinrocks(code, err, "pinrocks_wbwi_create");
    assert!(!indexed.is_null());
    // SAFETY: live indexed batch and column family, the bytes borrowed for the call.
    unsafe {
        ffi::pinrocks_wbwi_write(
            indexed,
            default,
            ffi::PINROCKS_RECORD_PUT as c_int,
            b"c".as_ptr().cast(),
            1,
            b"3".as_ptr().cast(),
            1,
            &mut code,
            &mut err,
        )
    };
    check_pinrocks(code, err, "pinrocks_wbwi_write");
    // SAFETY: a live indexed batch, made by pinrocks as c.cc's struct.
    let counts = unsafe {
        (
            ffi::rocksdb_writebatch_wi_count(indexed),
            pinrocks_writebatch_wi_count(indexed),
        )
    };
    assert_eq!(counts, (1, 1));
    let through_batch = ffi::pinrocks_read_source {
        batch: indexed,
        kind: ffi::PINROCKS_SOURCE_BATCH as c_int,
        ..from_db
    };
    // SAFETY: live database, indexed batch, read options and column family (all outlive the
    // iterator); batch and database together; destroyed below.
    let iter = unsafe { ffi::pinrocks_read_iterator(&through_batch, &mut code, &mut err) };
    check_pinrocks(code, err, "pinrocks_read_iterator");
    assert!(!iter.is_null());
    let mut keys = Vec::new();
    // SAFETY: a live iterator.
    unsafe { ffi::rocksdb_iter_seek_to_first(iter) };
    // SAFETY: a live iterator.
    while unsafe { ffi::rocksdb_iter_valid(iter) } != 0 {
        // SAFETY: a live, valid iterator; its key is copied at once.
        keys.push(bytes_at(
            unsafe { ffi::rocksdb_iter_key(iter, &mut len) },
            len,
        ));
        // SAFETY: a live, valid iterator.
        unsafe { ffi::rocksdb_iter_next(iter) };
    }
    assert_eq!(keys, [b"a", b"b", b"c"]);
    // SAFETY: made by pinrocks as c.cc's struct, freed by the C API.
    unsafe { ffi::rocksdb_iter_destroy(iter) };
    let batch_alone = ffi::pinrocks_read_source {
        kind: ffi::PINROCKS_SOURCE_BATCH_ONLY as c_int,
        ..through_batch
    };
    // SAFETY: live database, indexed batch, read options and column family, the key borrowed
    // for the call; from the batch alone; destroyed below.
    let slice = unsafe {
        ffi::pinrocks_read_handle(&batch_alone, b"c".as_ptr().cast(), 1, &mut code, &mut err)
    };
    check_pinrocks(code, err, "pinrocks_read_handle");
    assert!(!slice.is_null());
    // SAFETY: a live pinnable slice; its value is copied at once.
    let c_value = bytes_at(
        unsafe { ffi::rocksdb_pinnableslice_value(slice, &mut len) },
        len,
    );
    assert_eq!(c_value, b"3");
    // SAFETY: a live pinnable slice, a buffer of `len` bytes.
    let value = copied(|buf, len| unsafe { pinrocks_pinnableslice_value(slice, buf, len) });
    assert_eq!(value, b"3");
    // SAFETY: each created above and freed once (the pinnable slice and indexed batch were
    // made by pinrocks as c.cc's structs); the database last.
    unsafe {
        ffi::rocksdb_pinnableslice_destroy(slice);
        ffi::rocksdb_writebatch_wi_destroy(indexed);
        ffi::rocksdb_column_family_handle_destroy(default);
        ffi::rocksdb_readoptions_destroy(read);
        ffi::rocksdb_close(db);
        ffi::rocksdb_options_destroy(options);
    }
}

#[test]
fn transaction_databases_and_transactions_reach_their_objects() {
    let dir = tempfile::tempdir().unwrap();
    let options = creating_options();
    // SAFETY: no arguments; destroyed below.
    let write = unsafe { ffi::rocksdb_writeoptions_create() };

    // Pessimistic.
    let path = dir.path().join("pessimistic");
    let name = c_path(&path);
    // SAFETY: no arguments; destroyed below.
    let txn_db_options = unsafe { ffi::rocksdb_transactiondb_options_create() };
    let mut err = ptr::null_mut();
    // SAFETY: live options, a NUL-terminated path, an error slot; closed below.
    let txn_db = unsafe {
        ffi::rocksdb_transactiondb_open(options, txn_db_options, name.as_ptr(), &mut err)
    };
    check(err, "rocksdb_transactiondb_open");
    assert!(!txn_db.is_null());
    // SAFETY: a live transaction database, a buffer of `len` bytes.
    let seen = copied(|buf, len| unsafe { pinrocks_transactiondb_name(txn_db, buf, len) });
    assert_eq!(seen, path.to_str().unwrap().as_bytes());
    // The C API's base database handle reaches the base, not the transaction database...
    // SAFETY: a live transaction database; the new wrapper is freed below.
    let base = unsafe { ffi::rocksdb_transactiondb_get_base_db(txn_db) };
    // SAFETY: live handles.
    let is_txn_db = unsafe { pinrocks_db_is_transactiondb(base, txn_db) };
    assert_eq!(is_txn_db, 0);
    // SAFETY: the wrapper alone, made above.
    unsafe { ffi::rocksdb_transactiondb_close_base_db(base) };
    // ...and pinrocks_transactiondb_as_db's (written through db_of) the transaction database.
    // SAFETY: a live transaction database; the new wrapper is freed below.
    let as_db = unsafe { ffi::pinrocks_transactiondb_as_db(txn_db) };
    assert!(!as_db.is_null());
    // SAFETY: live handles.
    let is_txn_db = unsafe { pinrocks_db_is_transactiondb(as_db, txn_db) };
    assert_eq!(is_txn_db, 1);
    // SAFETY: a live database handle, a buffer of `len` bytes.
    let db_name = copied(|buf, len| unsafe { pinrocks_db_name(as_db, buf, len) });
    assert_eq!(db_name, path.to_str().unwrap().as_bytes());
    // SAFETY: the wrapper alone, made above.
    unsafe { ffi::rocksdb_transactiondb_close_base_db(as_db) };
    // SAFETY: no arguments; destroyed below.
    let txn_options = unsafe { ffi::rocksdb_transaction_options_create() };
    // SAFETY: live transaction database and options; destroyed below.
    let txn =
        unsafe { ffi::rocksdb_transaction_begin(txn_db, write, txn_options, ptr::null_mut()) };
    assert!(!txn.is_null());
    let txn_name = b"layout-probe";
    // SAFETY: a live transaction, the name borrowed for the call, an error slot.
    unsafe {
        ffi::rocksdb_transaction_set_name(txn, txn_name.as_ptr().cast(), txn_name.len(), &mut err)
    };
    check(err, "rocksdb_transaction_set_name");
    // SAFETY: a live transaction, a buffer of `len` bytes.
    let seen = copied(|buf, len| unsafe { pinrocks_transaction_name(txn, buf, len) });
    assert_eq!(seen, txn_name);
    assert_transaction_batch_counts_its_writes(txn);
    // SAFETY: each created above, freed once; the transaction before its database.
    unsafe {
        ffi::rocksdb_transaction_destroy(txn);
        ffi::rocksdb_transaction_options_destroy(txn_options);
        ffi::rocksdb_transactiondb_close(txn_db);
        ffi::rocksdb_transactiondb_options_destroy(txn_db_options);
    }

    // Optimistic.
    let path = dir.path().join("optimistic");
    let name = c_path(&path);
    // SAFETY: live options, a NUL-terminated path, an error slot; closed below.
    let txn_db =
        unsafe { ffi::rocksdb_optimistictransactiondb_open(options, name.as_ptr(), &mut err) };
    check(err, "rocksdb_optimistictransactiondb_open");
    assert!(!txn_db.is_null());
    // SAFETY: a live optimistic transaction database, a buffer of `len` bytes.
    let seen =
        copied(|buf, len| unsafe { pinrocks_optimistictransactiondb_name(txn_db, buf, len) });
    assert_eq!(seen, path.to_str().unwrap().as_bytes());
    // SAFETY: a live optimistic transaction database; the new wrapper is freed below.
    let base = unsafe { ffi::rocksdb_optimistictransactiondb_get_base_db(txn_db) };
    // SAFETY: live handles.
    let is_txn_db = unsafe { pinrocks_db_is_optimistictransactiondb(base, txn_db) };
    assert_eq!(is_txn_db, 0);
    // SAFETY: the wrapper alone, made above.
    unsafe { ffi::rocksdb_optimistictransactiondb_close_base_db(base) };
    // SAFETY: a live optimistic transaction database; the new wrapper is freed below.
    let as_db = unsafe { ffi::pinrocks_optimistictransactiondb_as_db(txn_db) };
    assert!(!as_db.is_null());
    // SAFETY: live handles.
    let is_txn_db = unsafe { pinrocks_db_is_optimistictransactiondb(as_db, txn_db) };
    assert_eq!(is_txn_db, 1);
    // SAFETY: the wrapper alone, made above.
    unsafe { ffi::rocksdb_optimistictransactiondb_close_base_db(as_db) };
    // SAFETY: no arguments; destroyed below.
    let txn_options = unsafe { ffi::rocksdb_optimistictransaction_options_create() };
    // SAFETY: live optimistic transaction database and options; destroyed below.
    let txn = unsafe {
        ffi::rocksdb_optimistictransaction_begin(txn_db, write, txn_options, ptr::null_mut())
    };
    assert!(!txn.is_null());
    // An optimistic transaction has no name.
    // SAFETY: a live transaction, a buffer of `len` bytes.
    let seen = copied(|buf, len| unsafe { pinrocks_transaction_name(txn, buf, len) });
    assert_eq!(seen, b"");
    assert_transaction_batch_counts_its_writes(txn);
    // SAFETY: each created above, freed once; the transaction before its database.
    unsafe {
        ffi::rocksdb_transaction_destroy(txn);
        ffi::rocksdb_optimistictransaction_options_destroy(txn_options);
        ffi::rocksdb_optimistictransactiondb_close(txn_db);
        ffi::rocksdb_writeoptions_destroy(write);
        ffi::rocksdb_options_destroy(options);
    }
}

/// Two writes through the C API, seen in the transaction's batch through transaction_of
/// (pinrocks_transaction_write_batch).
fn assert_transaction_batch_counts_its_writes(txn: *mut ffi::rocksdb_transaction_t) {
    for key in [b"x", b"y"] {
        let mut err = ptr::null_mut();
        // SAFETY: a live transaction, the bytes borrowed for the call, an error slot.
        unsafe {
            ffi::rocksdb_transaction_put(
                txn,
                key.as_ptr().cast(),
                1,
                b"v".as_ptr().cast(),
                1,
                &mut err,
            )
        };
        check(err, "rocksdb_transaction_put");
    }
    // SAFETY: a live transaction; its batch is borrowed while nothing else uses it.
    let batch = unsafe { ffi::pinrocks_transaction_write_batch(txn) };
    // SAFETY: the batch borrowed above, only read.
    let count = unsafe { ffi::pinrocks_writebatch_count(batch) };
    assert_eq!(count, 2);
}

#[test]
fn sst_file_writer_is_seen_by_cpp() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("probe.sst");
    let name = c_path(&path);
    // SAFETY: no arguments; destroyed below.
    let (env_options, options) = unsafe {
        (
            ffi::rocksdb_envoptions_create(),
            ffi::rocksdb_options_create(),
        )
    };
    // SAFETY: live options handles, which outlive the writer; destroyed below.
    let writer = unsafe { ffi::rocksdb_sstfilewriter_create(env_options, options) };
    // SAFETY: a live writer, not open yet.
    let unopened = unsafe { pinrocks_sstfilewriter_file_size(writer) };
    assert_eq!(unopened, 0);
    let mut err = ptr::null_mut();
    // SAFETY: a live writer, a NUL-terminated path, an error slot.
    unsafe { ffi::rocksdb_sstfilewriter_open(writer, name.as_ptr(), &mut err) };
    check(err, "rocksdb_sstfilewriter_open");
    for (key, value) in [(b"a", b"1"), (b"b", b"2")] {
        // SAFETY: a live, open writer, the bytes borrowed for the call, an error slot.
        unsafe {
            ffi::rocksdb_sstfilewriter_put(
                writer,
                key.as_ptr().cast(),
                1,
                value.as_ptr().cast(),
                1,
                &mut err,
            )
        };
        check(err, "rocksdb_sstfilewriter_put");
    }
    // SAFETY: a live, open writer, an error slot.
    unsafe { ffi::rocksdb_sstfilewriter_finish(writer, &mut err) };
    check(err, "rocksdb_sstfilewriter_finish");
    let mut c_size = 0;
    // SAFETY: a live writer, an output slot.
    unsafe { ffi::rocksdb_sstfilewriter_file_size(writer, &mut c_size) };
    // SAFETY: a live writer.
    let seen = unsafe { pinrocks_sstfilewriter_file_size(writer) };
    let on_disk = std::fs::metadata(&path).unwrap().len();
    assert!(on_disk > 0);
    assert_eq!((seen, c_size), (on_disk, on_disk));
    // SAFETY: each created above, freed once; the writer before its options.
    unsafe {
        ffi::rocksdb_sstfilewriter_destroy(writer);
        ffi::rocksdb_options_destroy(options);
        ffi::rocksdb_envoptions_destroy(env_options);
    }
}

#[test]
fn backup_engine_is_seen_by_cpp() {
    let dir = tempfile::tempdir().unwrap();
    let options = creating_options();
    let db = open_db(options, &dir.path().join("db"));
    put(db, b"a", b"1");
    let backups = c_path(&dir.path().join("backups"));
    let mut err = ptr::null_mut();
    // SAFETY: live options, a NUL-terminated path, an error slot; closed below.
    let engine = unsafe { ffi::rocksdb_backup_engine_open(options, backups.as_ptr(), &mut err) };
    check(err, "rocksdb_backup_engine_open");
    assert!(!engine.is_null());
    // SAFETY: a live backup engine.
    let none = unsafe { pinrocks_backup_engine_backup_count(engine) };
    assert_eq!(none, 0);
    for _ in 0..2 {
        // SAFETY: live backup engine and database, an error slot.
        unsafe { ffi::rocksdb_backup_engine_create_new_backup(engine, db, &mut err) };
        check(err, "rocksdb_backup_engine_create_new_backup");
    }
    // SAFETY: a live backup engine.
    let seen = unsafe { pinrocks_backup_engine_backup_count(engine) };
    // SAFETY: a live backup engine; the list is destroyed below.
    let info = unsafe { ffi::rocksdb_backup_engine_get_backup_info(engine) };
    // SAFETY: a live backup list.
    let c_count = unsafe { ffi::rocksdb_backup_engine_info_count(info) };
    assert_eq!((seen, c_count), (2, 2));
    // SAFETY: each created above, freed once; the database last.
    unsafe {
        ffi::rocksdb_backup_engine_info_destroy(info);
        ffi::rocksdb_backup_engine_close(engine);
        ffi::rocksdb_close(db);
        ffi::rocksdb_options_destroy(options);
    }
}
