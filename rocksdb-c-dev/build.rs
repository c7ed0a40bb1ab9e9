//! Compiles the C++ that pinrocks' tests and benchmarks call and its library does not: the
//! layout probes (`layout_probes.cc`, for src/raw/layout_tests.rs) and the sweep's floors
//! (`bench_floor.cc`). Same flags as the library's (rocksdb-c/cpp_build.rs).

include!("../rocksdb-c/cpp_build.rs");

/// This folder's sources, compiled; `layout_probes.h` is read by `layout_probes.cc`.
const SOURCES: &[&str] = &["layout_probes.h", "layout_probes.cc", "bench_floor.cc"];

fn main() {
    // rocksdb-c/ as a whole: layout.h and pinrocks.h are what the sources include.
    println!("cargo:rerun-if-changed=../rocksdb-c");
    let mut cpp = rocksdb_cpp("../rocksdb-c");
    for file in SOURCES {
        println!("cargo:rerun-if-changed={file}");
        if file.ends_with(".cc") {
            cpp.file(file);
        }
    }
    cpp.compile("pinrocks_dev_c");
}
