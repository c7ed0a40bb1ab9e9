//! Generates the FFI bindings (RocksDB's C API plus `rocksdb-c/pinrocks.h`) and compiles
//! our C++ against the exact RocksDB that `librocksdb-sys` builds.

use std::env;
use std::path::PathBuf;

include!("rocksdb-c/cpp_build.rs");

#[path = "build/metrics.rs"]
mod metrics;

/// rocksdb-c/: the headers and sources (`.cc`, compiled), one list; `cpp_build.rs`, how they
/// are compiled, is shared with rocksdb-c-dev/ (the tests' and the sweep's C++, not in a
/// user's build).
const NATIVE: &[&str] = &[
    "cpp_build.rs",
    "pinrocks.h",
    "guarded_calls.h",
    "layout.h",
    "guarded.h",
    "pinned_batch.h",
    "batch_only.h",
    "read_source.h",
    "torn_records.h",
    "space_recovery.h",
    "reach.h",
    "row_locks.h",
    "out_of_memory.h",
    "reads.cc",
    "db.cc",
    "writes.cc",
    "write_batch.cc",
    "backup.cc",
    "callbacks.cc",
    "listener.cc",
    "options.cc",
    "rate_limiter.cc",
    "export_import.cc",
    "tracing.cc",
    "option_contract.cc",
    "transactions.cc",
    "indexed_batch.cc",
    "entities.cc",
    "timestamps.cc",
    "guarded_calls.cc",
    "space_recovery.cc",
    "thrown_reads.cc",
    "row_locks.cc",
    "out_of_memory.cc",
    "fault_fs.cc",
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
    // docs.rs (DOCS_RS) documents the crate and links nothing: no C++ of ours is compiled,
    // and Cargo.toml's docs.rs metadata points librocksdb-sys at a RocksDB library that is not
    // there (ROCKSDB_LIB_DIR), so that it does not compile RocksDB either (docs.rs stops a
    // build after 15 minutes); only the headers are read, by bindgen.
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    let docs_only = env::var_os("DOCS_RS").is_some();
    // librocksdb-sys links a system RocksDB instead of building its own when these are set.
    // rocksdb-c/ mirrors 11.8.1's private structs (layout.h, checked against the headers
    // librocksdb-sys ships, which stay 11.8.1): a library of another version would link
    // and then read them wrong. Refuse it here, with the reason, unless it is librocksdb-sys'
    // own 11.8.1 build of this crate, named again in PINROCKS_PREBUILT_ROCKSDB (what
    // scripts/fuzz.sh does, so the fuzz build does not compile RocksDB a second time), or a
    // docs-only build.
    for var in [
        "ROCKSDB_LIB_DIR",
        "ROCKSDB_STATIC",
        "PINROCKS_PREBUILT_ROCKSDB",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    if let Ok(dir) = env::var("ROCKSDB_LIB_DIR") {
        if !docs_only && env::var("PINROCKS_PREBUILT_ROCKSDB").ok().as_deref() != Some(dir.as_str())
        {
            panic!(
                "pinrocks: ROCKSDB_LIB_DIR={dir} would link a system RocksDB, which may not be \
                 11.8.1, the version rocksdb-c/layout.h mirrors; unset it so that \
                 librocksdb-sys builds its own RocksDB 11.8.1 (or, for a directory that holds \
                 librocksdb-sys' own build of it, set PINROCKS_PREBUILT_ROCKSDB to it too)"
            );
        }
    }
    let include = rocksdb_sources().join("include");
    // The version of the headers, so of the RocksDB linked (layout.h refuses versions other
    // than 11.8.1 and 11.12.0); `rocksdb_11_12` on 11.12 (scripts/rocksdb-11.12.sh), where the
    // option table has rows for the names 11.12 added and the tests of RocksDB's own
    // behaviour expect what 11.12 does.
    println!("cargo:rustc-check-cfg=cfg(rocksdb_11_12)");
    let version_h = std::fs::read_to_string(include.join("rocksdb/version.h"))
        .expect("librocksdb-sys ships include/rocksdb/version.h");
    let define = |name: &str| {
        version_h.lines().find_map(|line| {
            let rest = line.trim().strip_prefix("#define ")?.strip_prefix(name)?;
            rest.trim().parse::<u32>().ok()
        })
    };
    let (Some(major), Some(minor), Some(patch)) = (
        define("ROCKSDB_MAJOR"),
        define("ROCKSDB_MINOR"),
        define("ROCKSDB_PATCH"),
    ) else {
        panic!("pinrocks: no ROCKSDB_MAJOR, _MINOR and _PATCH in include/rocksdb/version.h");
    };
    // `pinrocks::ROCKSDB_VERSION`.
    println!("cargo:rustc-env=PINROCKS_ROCKSDB_VERSION={major}.{minor}.{patch}");
    if (major, minor) == (11, 12) {
        println!("cargo:rustc-cfg=rocksdb_11_12");
    }

    // Every file of rocksdb-c/: its headers and sources, each a reason to rebuild; the
    // sources compiled (`fault_fs.cc` with the `fault-injection` feature only).
    for file in NATIVE {
        println!("cargo:rerun-if-changed=rocksdb-c/{file}");
    }
    if !docs_only {
        let mut cpp = rocksdb_cpp("rocksdb-c");
        for file in NATIVE.iter().filter(|file| file.ends_with(".cc")) {
            // The fault file system for tests, only when asked for (RocksDB's part of it is in
            // the static library either way; unused, the linker drops it).
            if *file == "fault_fs.cc" && env::var_os("CARGO_FEATURE_FAULT_INJECTION").is_none() {
                continue;
            }
            cpp.file(format!("rocksdb-c/{file}"));
        }
        cpp.compile("pinrocks_native");
    }

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
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    bindings
        .write_to_file(out_dir.join("bindings.rs"))
        .expect("cannot write the generated bindings");
    // Every ticker, histogram and perf metric of this RocksDB, for src/options/metrics.rs.
    println!("cargo:rerun-if-changed=build/metrics.rs");
    metrics::generate(&rocksdb_sources(), &out_dir);
}
