//! pinrocks' C++ for its tests and benchmarks alone, so that a user's build of pinrocks
//! compiles none of it: the probes of `rocksdb-c/layout.h` that `src/raw/layout_tests.rs`
//! calls and the sweep's C++ floors (`pinrocks_bench_*`, declared by `benches/sweep/`). Its
//! functions are declared by their callers; a caller names this crate (`use pinrocks_dev_c as
//! _;`) so that its static library is linked, before RocksDB's.
#![no_std]

// The RocksDB the C++ calls into: linked after this crate's library.
use librocksdb_sys as _;
