//! Fails loudly if RocksDB's C API structs no longer have the layout that
//! `rocksdb-c/layout.h` mirrors: what is set through the C API must be what the C++ side
//! reads, and each handle must reach its own object.

use crate::{ffi, Db, Options, ReadOptions};

fn name_via(f: impl FnOnce(*mut std::ffi::c_char, usize) -> usize) -> String {
    let mut buf = [0u8; 256];
    let len = f(buf.as_mut_ptr().cast(), buf.len());
    String::from_utf8(buf[..len].to_vec()).unwrap()
}

#[test]
fn read_options_set_through_the_c_api_are_seen_by_cpp() {
    for fill_cache in [false, true] {
        for verify in [false, true] {
            let mut options = ReadOptions::new();
            options.fill_cache(fill_cache).verify_checksums(verify);
            // SAFETY: a live read options handle.
            let (seen_fill, seen_verify) = unsafe {
                (
                    ffi::pinrocks_readoptions_fill_cache(options.raw()),
                    ffi::pinrocks_readoptions_verify_checksums(options.raw()),
                )
            };
            assert_eq!((seen_fill != 0, seen_verify != 0), (fill_cache, verify));
        }
    }
}

#[test]
fn db_and_column_family_handles_reach_their_objects() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .create_missing_column_families(true);
    let db = Db::open_cf(&options, dir.path(), ["alpha", "beta"]).unwrap();
    let raw = db.as_raw().0;
    // SAFETY: live db handle, buffer of the stated length.
    let db_name = name_via(|buf, len| unsafe { ffi::pinrocks_db_name(raw, buf, len) });
    assert_eq!(db_name, dir.path().to_str().unwrap());
    for name in ["default", "alpha", "beta"] {
        let cf = db.cf(name).unwrap();
        let handle = cf.handle().raw();
        // SAFETY: live column family handle, buffer of the stated length.
        let seen =
            name_via(|buf, len| unsafe { ffi::pinrocks_column_family_name(handle, buf, len) });
        assert_eq!(seen, name);
    }
}
