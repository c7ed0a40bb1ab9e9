// How rocksdb-c/'s C++ is compiled against the RocksDB librocksdb-sys builds: one place,
// included (`include!`) by the library's build.rs and by rocksdb-c-dev/build.rs (the tests'
// and the sweep's C++), so the two agree on every define and so on every layout.

/// The RocksDB sources of the librocksdb-sys this build script's crate depends on directly
/// (librocksdb-sys, `links = "rocksdb"`, exports its manifest dir; the sources are in
/// `rocksdb/` below it).
fn rocksdb_sources() -> std::path::PathBuf {
    std::path::PathBuf::from(
        std::env::var("DEP_ROCKSDB_CARGO_MANIFEST_DIR")
            .expect("librocksdb-sys must export cargo_manifest_dir"),
    )
    .join("rocksdb")
}

/// A C++ build with rocksdb-c/ and RocksDB's headers on the include path and the defines
/// librocksdb-sys compiles RocksDB with on Linux, so that headers agree on layout. `rocksdb_c`
/// is rocksdb-c/ as seen from the build script's crate.
fn rocksdb_cpp(rocksdb_c: &str) -> cc::Build {
    let rocksdb_root = rocksdb_sources();
    let mut cpp = cc::Build::new();
    cpp.cpp(true)
        .include(rocksdb_c)
        .include(rocksdb_root.join("include"))
        .include(&rocksdb_root)
        .flag("-std=c++20")
        .flag_if_supported("-Wno-unused-parameter")
        .define("NDEBUG", Some("1"))
        .define("HAVE_ALIGNED_NEW", None)
        .define("HAVE_UINT128_EXTENSION", None)
        .define("OS_LINUX", None)
        .define("ROCKSDB_PLATFORM_POSIX", None)
        .define("ROCKSDB_LIB_IO_POSIX", None);
    cpp
}
