/* pinrocks: RocksDB's C API plus the few native functions pinrocks adds where the C API
 * stops. bindgen reads this header; rocksdb-c/pinrocks.cc implements the additions. */
#ifndef PINROCKS_H
#define PINROCKS_H

#include <stddef.h>

#include "rocksdb/c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives a value while RocksDB holds it pinned. `data` may be NULL when `len` is 0.
 * Must not unwind: the Rust side catches panics before returning here. */
typedef void (*pinrocks_value_fn)(void* ctx, const char* data, size_t len);

/* One native call, no heap allocation of its own: reads `key` into a PinnableSlice on this
 * function's stack and calls `fn(ctx, data, len)` while the pin is held.
 * `column_family` may be NULL for the default column family.
 * Returns 1 if the key was found (fn was called once), 0 if not found or on error; on error
 * *errptr is set to a malloc'd message (free it with rocksdb_free) and *status_code to
 * the rocksdb::Status::Code, so callers need not parse the message. */
unsigned char pinrocks_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                  rocksdb_column_family_handle_t* column_family,
                                  const char* key, size_t keylen, pinrocks_value_fn fn,
                                  void* ctx, int* status_code, char** errptr);

/* Receives the i-th result of a multi-get while every value of the batch is pinned:
 * found = 0 for an absent key (data NULL, len 0). Returns 0 to go on, 1 to stop early. */
typedef unsigned char (*pinrocks_multi_value_fn)(void* ctx, size_t index, unsigned char found,
                                                 const char* data, size_t len);

/* DB::MultiGet of `num_keys` keys of one column family (NULL: default) into PinnableSlices
 * held in one array for the batch, then fn for each key in order while they are pinned.
 * On the first per-key error, nothing is called back, *errptr and *status_code are set. */
void pinrocks_multi_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                               rocksdb_column_family_handle_t* column_family, size_t num_keys,
                               const char* const* keys, const size_t* key_lens,
                               pinrocks_multi_value_fn fn, void* ctx, int* status_code,
                               char** errptr);

/* CompactRange over [start, limit) of a column family (NULL: default), reporting its Status,
 * which the C API's rocksdb_compact_range drops. A NULL start or limit means unbounded. */
void pinrocks_compact_range(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                            const char* start, size_t startlen, const char* limit,
                            size_t limitlen, int* status_code, char** errptr);

/* Layout checks: what the C++ side sees through the mirrored C API structs.
 * Tests compare these with what was set through the C API. */
unsigned char pinrocks_readoptions_fill_cache(const rocksdb_readoptions_t* options);
unsigned char pinrocks_readoptions_verify_checksums(const rocksdb_readoptions_t* options);
/* Copies the column family's name into buf (truncated to buflen); returns its full length. */
size_t pinrocks_column_family_name(rocksdb_column_family_handle_t* column_family, char* buf,
                                   size_t buflen);
/* The path RocksDB was opened at, as the C++ DB object reports it; same contract as above. */
size_t pinrocks_db_name(rocksdb_t* db, char* buf, size_t buflen);

#ifdef __cplusplus
}
#endif

#endif
