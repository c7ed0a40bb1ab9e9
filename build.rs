//! Generates the FFI bindings (RocksDB's C API plus `rocksdb-c/pinrocks.h`) and compiles
//! our C++ against the exact RocksDB that `librocksdb-sys` builds.

use std::env;
use std::path::PathBuf;

/// rocksdb-c/: the headers and sources (`.cc`, compiled), one list. Besides the library's
/// own: `layout_probes.cc`, test-only probes of layout.h (src/raw/layout_tests.rs; not in
/// pinrocks.h, so bindgen does not see them), and `bench_floor.cc`, the sweep's C++ floors,
/// declared by the bench alone.
const NATIVE: &[&str] = &[
    "pinrocks.h",
    "guarded_calls.h",
    "layout.h",
    "layout_probes.h",
    "guarded.h",
    "pinned_batch.h",
    "batch_only.h",
    "read_source.h",
    "torn_records.h",
    "space_recovery.h",
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
    "guarded_calls.cc",
    "space_recovery.cc",
    "fault_fs.cc",
    "layout_probes.cc",
    "bench_floor.cc",
];

fn main() {
    // Linux only, said before any C++ is compiled: rocksdb-c/layout.h mirrors private
    // structs, and its checks, the defines below and the tests have only run on Linux
    // (x86-64). macOS and Windows cannot be built or tested where pinrocks is made.
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os != "linux" {
        panic!(
            "pinrocks: builds on Linux only (target OS {os:?}): rocksdb-c/ mirrors RocksDB \
             structs checked, and is compiled and tested, on Linux alone; macOS and Windows \
             are not supported yet"
        );
    }
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

    // Every file of rocksdb-c/: its headers and sources, each a reason to rebuild; the
    // sources compiled (`fault_fs.cc` with the `fault-injection` feature only).
    for file in NATIVE {
        println!("cargo:rerun-if-changed=rocksdb-c/{file}");
    }

    let mut cpp = cc::Build::new();
    cpp.cpp(true);
    for file in NATIVE.iter().filter(|file| file.ends_with(".cc")) {
        // The fault file system for tests, only when asked for (RocksDB's part of it is in
        // the static library either way; unused, the linker drops it).
        if *file == "fault_fs.cc" && env::var_os("CARGO_FEATURE_FAULT_INJECTION").is_none() {
            continue;
        }
        cpp.file(format!("rocksdb-c/{file}"));
    }
    cpp.include("rocksdb-c")
        .include(&include)
        .include(&rocksdb_root)
        .flag("-std=c++20")
        .flag_if_supported("-Wno-unused-parameter")
        // The same defines librocksdb-sys compiles RocksDB with on Linux, so headers agree
        // on layout.
        .define("NDEBUG", Some("1"))
        .define("HAVE_ALIGNED_NEW", None)
        .define("HAVE_UINT128_EXTENSION", None)
        .define("OS_LINUX", None)
        .define("ROCKSDB_PLATFORM_POSIX", None)
        .define("ROCKSDB_LIB_IO_POSIX", None);
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
