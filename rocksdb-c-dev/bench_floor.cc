// The sweep's C++ (benches/sweep/scans.rs, memtable.rs, write_ways.rs): a floor over RocksDB's own
// objects with no binding between, what a binding's scan costs is measured against; and a route to
// a value RocksDB's public C++ has and its C API does not, measured before any tier takes
// it. Compiled for the tests and benches alone (rocksdb-c-dev/, a dev-dependency: not in a
// user's build) and declared only by the bench (not in pinrocks.h: bindgen does not see it).

#include <cstddef>
#include <cstdint>

#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/wide_columns.h"
#include "rocksdb/write_batch.h"

extern "C" {

// `steps` steps of `iter` forward (backward when `backward` is non-zero), each adding its
// key's and value's lengths to the sum returned; at the end of the data it seeks back to
// the first entry (the last, backward), as the bench's other scans do. One call with
// `steps` = 1 is one step the way a binding makes it, minus the binding. An iterator that is
// not valid (empty, failed) is not moved: the sum so far is returned. Next, Prev, Valid, key and
// value do not throw (RocksDB's iterators report errors in status()); noexcept stops the process
// should one ever do.
uint64_t pinrocks_bench_iter_steps(rocksdb_iterator_t* iter, size_t steps,
                                   int backward) PINROCKS_NOEXCEPT {
  rocksdb::Iterator* it = pinrocks::iterator_of(iter);
  uint64_t sum = 0;
  for (size_t i = 0; i < steps && it->Valid(); i++) {
    if (backward) {
      it->Prev();
      if (!it->Valid()) it->SeekToLast();
    } else {
      it->Next();
      if (!it->Valid()) it->SeekToFirst();
    }
    if (!it->Valid()) break;  // empty, or failed: nothing to read, no further move
    sum += it->key().size() + it->value().size();
  }
  return sum;
}

typedef void (*pinrocks_bench_value_fn)(void* ctx, const char* data, size_t len);

// The value at `key` in the default column family through `DB::GetMergeOperands`, limited to
// one operand: a Put's value comes back as that operand, pinned where it lies (in the
// memtable's arena too, which `Get` copies) once values reach RocksDB's 32 KiB threshold
// (`ShouldReferenceSuperVersion`); `f` sees it while the PinnableSlice holds it. Returns 2
// when the value was pinned, 1 when RocksDB copied it, 0 when absent, -1 on an error or more
// than one operand (a merge). Only right for a column family without merges: a lone merge
// operand would read as a value.
int pinrocks_bench_get_operand_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                      const char* key, size_t keylen, pinrocks_bench_value_fn f,
                                      void* ctx) PINROCKS_NOEXCEPT {
  try {
    rocksdb::DB* d = pinrocks::db_of(db);
    rocksdb::PinnableSlice value;
    rocksdb::GetMergeOperandsOptions limit;
    limit.expected_max_number_of_operands = 1;
    int count = 0;
    rocksdb::Status s =
        d->GetMergeOperands(pinrocks::read_options_of(options), d->DefaultColumnFamily(),
                            rocksdb::Slice(key, keylen), &value, &limit, &count);
    if (s.IsNotFound()) return 0;
    if (!s.ok() || count != 1) return -1;
    f(ctx, value.data(), value.size());
    return value.IsPinned() ? 2 : 1;
  } catch (...) {
    return -1;
  }
}

// The write loops `pinrocks_bench_write_loop` runs.
enum {
  PINROCKS_BENCH_PUT = 0,
  PINROCKS_BENCH_DELETE = 1,
  PINROCKS_BENCH_MERGE = 2,
  PINROCKS_BENCH_ENTITY = 3,
  PINROCKS_BENCH_BATCH = 4,
  PINROCKS_BENCH_BATCH_DELETE = 5,
  PINROCKS_BENCH_BATCH_MERGE = 6,
};

// `n` writes to the default column family, one per key of `keys`, with `value` (an entity's
// default column; unused by deletes), through RocksDB's C++ with no binding between: a loop of
// `DB::Put`, `Delete`, `Merge` or `PutEntity` calls, or (`PINROCKS_BENCH_BATCH`, `_DELETE`,
// `_MERGE`) one `WriteBatch` of `n` puts, deletes or merges, this thread's own, cleared and
// reused as a binding's batch is, then `DB::Write`. The floor a binding's writes are measured
// against. Returns 0, or the first failing status's code (-1 for an unknown `op` or an exception).
int pinrocks_bench_write_loop(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                              const pinrocks_slice* keys, size_t n, const char* value,
                              size_t valuelen, int op) PINROCKS_NOEXCEPT {
  try {
    rocksdb::DB* d = pinrocks::db_of(db);
    const rocksdb::WriteOptions& o = pinrocks::write_options_of(options);
    rocksdb::ColumnFamilyHandle* cf = d->DefaultColumnFamily();
    const rocksdb::Slice v(value, valuelen);
    if (op >= PINROCKS_BENCH_BATCH && op <= PINROCKS_BENCH_BATCH_MERGE) {
      thread_local rocksdb::WriteBatch batch;
      batch.Clear();
      for (size_t i = 0; i < n; i++) {
        const rocksdb::Slice k(keys[i].data, keys[i].len);
        rocksdb::Status s = op == PINROCKS_BENCH_BATCH          ? batch.Put(cf, k, v)
                            : op == PINROCKS_BENCH_BATCH_DELETE ? batch.Delete(cf, k)
                                                                : batch.Merge(cf, k, v);
        if (!s.ok()) return static_cast<int>(s.code());
      }
      return static_cast<int>(d->Write(o, &batch).code());
    }
    if (op < PINROCKS_BENCH_PUT || op > PINROCKS_BENCH_ENTITY) return -1;
    // Each status made in place (no move into a local); an entity's columns made per entity,
    // as any caller of PutEntity makes them.
    auto one = [&](const rocksdb::Slice& k) -> rocksdb::Status {
      switch (op) {
        case PINROCKS_BENCH_PUT:
          return d->Put(o, cf, k, v);
        case PINROCKS_BENCH_DELETE:
          return d->Delete(o, cf, k);
        case PINROCKS_BENCH_MERGE:
          return d->Merge(o, cf, k, v);
        default:
          return d->PutEntity(o, cf, k, rocksdb::WideColumns{{rocksdb::kDefaultWideColumnName, v}});
      }
    };
    for (size_t i = 0; i < n; i++) {
      rocksdb::Status s = one(rocksdb::Slice(keys[i].data, keys[i].len));
      if (!s.ok()) return static_cast<int>(s.code());
    }
    return 0;
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
