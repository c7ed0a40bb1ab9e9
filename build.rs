//! Generates the FFI bindings (RocksDB's C API plus `rocksdb-c/pinrocks.h`) and compiles
//! our C++ against the exact RocksDB that `librocksdb-sys` builds.

use std::env;
use std::path::PathBuf;

fn main() {
    // librocksdb-sys links a system RocksDB instead of building its own when these are set.
    // rocksdb-c/ mirrors 11.8.1's private structs (layout.h, checked against the headers
    // librocksdb-sys ships, which stay 11.8.1): a library of another version would link
    // and then read them wrong. Refuse it here, with the reason, unless it is librocksdb-sys'
    // own 11.8.1 build of this crate, named again in PINROCKS_PREBUILT_ROCKSDB (what
    // scripts/fuzz.sh does, so the fuzz build does not compile RocksDB a second time).
    for var in [
        "ROCKSDB_LIB_DIR",
        "ROCKSDB_STATIC",
        "PINROCKS_PREBUILT_ROCKSDB",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    if let Ok(dir) = env::var("ROCKSDB_LIB_DIR") {
        if env::var("PINROCKS_PREBUILT_ROCKSDB").ok().as_deref() != Some(dir.as_str()) {
            panic!(
                "pinrocks: ROCKSDB_LIB_DIR={dir} would link a system RocksDB, which may not be \
                 11.8.1, the version rocksdb-c/layout.h mirrors; unset it so that \
                 librocksdb-sys builds its own RocksDB 11.8.1 (or, for a directory that holds \
                 librocksdb-sys' own build of it, set PINROCKS_PREBUILT_ROCKSDB to it too)"
            );
        }
    }
    // librocksdb-sys (links = "rocksdb") exports its manifest dir; its RocksDB sources live
    // in `rocksdb/` below it.
    let rocksdb_root = PathBuf::from(
        env::var("DEP_ROCKSDB_CARGO_MANIFEST_DIR")
            .expect("librocksdb-sys must export cargo_manifest_dir"),
    )
    .join("rocksdb");
    let include = rocksdb_root.join("include");

    for file in [
        "pinrocks.h",
        "guarded_calls.h",
        "layout.h",
        "layout_probes.h",
        "guarded.h",
        "pinned_batch.h",
        "batch_only.h",
        "read_source.h",
        "torn_records.h",
        "reads.cc",
        "db.cc",
        "writes.cc",
        "write_batch.cc",
        "backup.cc",
        "callbacks.cc",
        "listener.cc",
        "options.cc",
        "option_contract.cc",
        "transactions.cc",
        "indexed_batch.cc",
        "entities.cc",
        "timestamps.cc",
        "fault_fs.cc",
        "guarded_calls.cc",
        "space_recovery.h",
        "space_recovery.cc",
        "layout_probes.cc",
        "bench_floor.cc",
    ] {
        println!("cargo:rerun-if-changed=rocksdb-c/{file}");
    }

    let mut cpp = cc::Build::new();
    // The `mt_static` feature: the static C runtime, as librocksdb-sys builds RocksDB with
    // it (MSVC only; nothing elsewhere).
    if env::var_os("CARGO_FEATURE_MT_STATIC").is_some() {
        cpp.static_crt(true);
    }
    cpp.cpp(true)
        .file("rocksdb-c/reads.cc")
        .file("rocksdb-c/db.cc")
        .file("rocksdb-c/writes.cc")
        .file("rocksdb-c/write_batch.cc")
        .file("rocksdb-c/backup.cc")
        .file("rocksdb-c/callbacks.cc")
        .file("rocksdb-c/listener.cc")
        .file("rocksdb-c/options.cc")
        .file("rocksdb-c/option_contract.cc")
        .file("rocksdb-c/transactions.cc")
        .file("rocksdb-c/indexed_batch.cc")
        .file("rocksdb-c/entities.cc")
        .file("rocksdb-c/timestamps.cc")
        .file("rocksdb-c/guarded_calls.cc")
        .file("rocksdb-c/space_recovery.cc")
        // Test-only probes of layout.h (src/raw/layout_tests.rs); not in pinrocks.h, so
        // bindgen does not see them.
        .file("rocksdb-c/layout_probes.cc")
        // The sweep's C++ floors (benches/sweep/scans.rs), declared by the bench alone.
        .file("rocksdb-c/bench_floor.cc")
        .include("rocksdb-c")
        .include(&include)
        .include(&rocksdb_root)
        .flag("-std=c++20")
        .flag_if_supported("-Wno-unused-parameter")
        // The same defines librocksdb-sys compiles RocksDB with, so headers agree on layout.
        .define("NDEBUG", Some("1"))
        .define("HAVE_ALIGNED_NEW", None)
        .define("HAVE_UINT128_EXTENSION", None);
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        cpp.define("OS_LINUX", None)
            .define("ROCKSDB_PLATFORM_POSIX", None)
            .define("ROCKSDB_LIB_IO_POSIX", None);
    } else if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        cpp.define("OS_MACOSX", None)
            .define("ROCKSDB_PLATFORM_POSIX", None)
            .define("ROCKSDB_LIB_IO_POSIX", None);
    }
    // The fault file system for tests, only when asked for (RocksDB's part of it is in the
    // static library either way; unused, the linker drops it).
    if env::var_os("CARGO_FEATURE_FAULT_INJECTION").is_some() {
        cpp.file("rocksdb-c/fault_fs.cc");
    }
    cpp.compile("pinrocks_native");

    let bindings = bindgen::Builder::default()
        .header("rocksdb-c/pinrocks.h")
        .clang_arg(format!("-I{}", include.display()))
        .allowlist_function("rocksdb_.*|pinrocks_.*")
        .allowlist_type("rocksdb_.*|pinrocks_.*")
        .allowlist_var("rocksdb_.*|PINROCKS_.*")
        .size_t_is_usize(true)
        .use_core()
        .derive_debug(false)
        .layout_tests(false)
        .generate()
        .expect("bindgen failed on rocksdb-c/pinrocks.h (is libclang installed?)");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("bindings.rs");
    bindings
        .write_to_file(&out)
        .expect("cannot write the generated bindings");
}
