/* Guarded replacements for RocksDB 11.8.1 C API calls (db/c.cc) that have no try/catch and
 * copy or allocate data sized by the caller (keys, values, strings, counts) or by stored
 * data: each runs the C API function's body unchanged inside a try/catch
 * (rocksdb-c/guarded_calls.cc), so a std::bad_alloc comes back as
 * PINROCKS_CODE_OUT_OF_MEMORY (any other exception: PINROCKS_CODE_EXCEPTION) instead of
 * unwinding into Rust; those that may enter RocksDB's write queue or let go of its mutex by
 * hand end the process instead (pinrocks.h rule 5). Error contract as in pinrocks.h: the caller
 * sets *status_code to 0 and *errptr to NULL; a failure sets both.
 *
 * Included by pinrocks.h inside its extern "C" block, after every C API type is declared:
 * include pinrocks.h, never this file on its own. Plain C for bindgen. */
#ifndef PINROCKS_GUARDED_CALLS_H
#define PINROCKS_GUARDED_CALLS_H

/* ---- Reads ---- */

/* Replaces rocksdb_get_into_buffer_cf (no try/catch; Get copies memtable values and
 * merge results into its PinnableSlice, and long keys into a LookupKey). Same results:
 * returns 1 if the value was copied into `buffer`; *found says whether the key exists and
 * *vallen is the value's size (0 if absent). On error, 0 with *found = 0 and *vallen = 0. */
unsigned char pinrocks_get_into_buffer_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                          rocksdb_column_family_handle_t* column_family,
                                          const char* key, size_t keylen, char* buffer,
                                          size_t buffer_size, size_t* vallen, unsigned char* found,
                                          int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Replaces rocksdb_key_may_exist_cf (no try/catch; KeyMayExist reads a value it finds in
 * memory into a std::string). Returns 0 only if the key certainly does not exist; 1 (always a
 * safe answer) if it may, or on error. With a `found` sink, a value RocksDB found is handed to
 * it (once, before returning) with `ctx`. */
unsigned char pinrocks_key_may_exist_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                        rocksdb_column_family_handle_t* column_family,
                                        const char* key, size_t keylen,
                                        void (*found)(void* ctx, const char* value, size_t len),
                                        void* ctx, int* status_code,
                                        char** errptr) PINROCKS_NOEXCEPT;

/* ---- Iterators ---- */

#define PINROCKS_ITER_FIRST 0
#define PINROCKS_ITER_LAST 1
#define PINROCKS_ITER_NEXT 2
#define PINROCKS_ITER_PREV 3
#define PINROCKS_ITER_SEEK 4
#define PINROCKS_ITER_SEEK_FOR_PREV 5
/* Or'd into a move's op for an iterator made with ReadOptions::tailing: RocksDB's tailing
 * iterator (ForwardIterator) frees a replaced SuperVersion and purges obsolete files inside a
 * move, letting go of the database and WAL mutexes by hand and counting the purge as pending
 * until it is done: an exception there would leave a close waiting forever, so one out of a
 * tailing move ends the process (thrown_reads.cc's checks cannot see a count). */
#define PINROCKS_ITER_TAILING 0x100
/* Every move of an iterator, then the entry it lands on: one crossing per step of a scan.
 * The move (op: PINROCKS_ITER_*) is rocksdb_iter_seek_to_first/_last/_next/_prev/_seek/
 * _seek_for_prev (SEEK and SEEK_FOR_PREV to `target`, the others ignore it); _next and _prev
 * do nothing on an iterator that is not valid (RocksDB's would be undefined). None of those
 * has a try/catch in the C API (a seek copies its target into the iterator's saved key, and
 * positioning reads blocks and builds merges): here the only cost on the happy path is a
 * zero-cost try block. If RocksDB throws, the iterator (whose state is then unknown, even to
 * its destructor) is leaked and replaced by one that is not valid and whose status
 * (rocksdb_iter_get_error) is the failure: Status::MemoryLimit (std::bad_alloc) or Status::Aborted,
 * with the message part "pinrocks: C++ exception in an iterator: " and the exception's what(). Then
 * the entry, as pinrocks_iter_entry gives it (0, setting nothing, when not valid). `db` is the
 * database the iterator reads (NULL: none), whose state a throw may have left to mend (a tailing
 * iterator's move can end holding its mutex: then the process ends, see pinrocks.h rule 5). */
unsigned char pinrocks_iter_step(rocksdb_t* db, rocksdb_iterator_t* iter, int op,
                                 const char* target, size_t targetlen,
                                 pinrocks_entry* entry) PINROCKS_NOEXCEPT;
/* rocksdb_iter_refresh (no try/catch; it rebuilds the iterator's tree), to the snapshot set in
 * `at` (Iterator::Refresh(snapshot)), or to the latest state if `at` has none. The iterator
 * keeps the snapshot pointer: the caller keeps that snapshot alive while the iterator lives or
 * until the next refresh. The iterator is not positioned afterwards (seek it). An iterator
 * that cannot be refreshed (through a transaction or an indexed batch) reports NotSupported and
 * stays as it was. A refresh that throws is reported, and the iterator, left pointing at what
 * the refresh had destroyed, is leaked and replaced by one that is not valid and whose status
 * is Aborted. `db`: the database the iterator reads, as for pinrocks_iter_step. */
void pinrocks_iter_refresh_at(rocksdb_t* db, rocksdb_iterator_t* iter,
                              const rocksdb_readoptions_t* at, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT;

/* ---- SST file writer ---- */

/* Replaces rocksdb_sstfilewriter_put, _delete and _merge (op: PINROCKS_RECORD_PUT, _DELETE,
 * _MERGE; `value` unused for a delete): no try/catch while the key is copied and key and
 * value appended to the block being built (and compressed). */
void pinrocks_sstfilewriter_write(rocksdb_sstfilewriter_t* writer, int op, const char* key,
                                  size_t keylen, const char* value, size_t valuelen,
                                  int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* The same at a user-defined timestamp (`ts`, 8 bytes little-endian: the u64 comparator's):
 * Put(key, ts, value), Delete(key, ts), DeleteRange(key, value, ts). RocksDB refuses a writer
 * whose comparator takes no 8-byte timestamp (InvalidArgument). */
void pinrocks_sstfilewriter_write_at(rocksdb_sstfilewriter_t* writer, int op, const char* key,
                                     size_t keylen, uint64_t ts, const char* value, size_t valuelen,
                                     int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Replaces rocksdb_sstfilewriter_finish (no try/catch while it compresses the last block and
 * builds the filter and index, sized by the file's keys). */
void pinrocks_sstfilewriter_finish(rocksdb_sstfilewriter_t* writer, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT;

/* ---- Properties ---- */

/* Replaces rocksdb_property_value_cf (no try/catch; GetProperty copies the name and builds
 * a std::string sized by the database, e.g. every file's key range). Same contract: a
 * malloc'd copy (free with rocksdb_free), or NULL if RocksDB does not know the property;
 * NULL also on error, which sets *status_code (a failed strdup, which the C API would read
 * as "unknown property", is PINROCKS_CODE_OUT_OF_MEMORY). */
char* pinrocks_property_value_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                 const char* propname, int* status_code,
                                 char** errptr) PINROCKS_NOEXCEPT;

/* DB::GetMapProperty: each name and value of the map property handed to `fn`; returns 0 if
 * RocksDB has no map for the property (or on error). */
unsigned char pinrocks_property_map_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                       const char* propname, pinrocks_pair_fn fn, void* ctx,
                                       int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* DB::GetAggregatedIntProperty: the integer property summed over every column family; 0 if
 * there is no such integer property (or on error), 1 with *out_val set. */
unsigned char pinrocks_property_int_aggregated(rocksdb_t* db, const char* propname,
                                               uint64_t* out_val, int* status_code,
                                               char** errptr) PINROCKS_NOEXCEPT;

/* DB::GetApproximateMemTableStats over [start, limit): entries and bytes in the memtables. */
void pinrocks_approximate_memtable_stats_cf(rocksdb_t* db,
                                            rocksdb_column_family_handle_t* column_family,
                                            const char* start, size_t startlen, const char* limit,
                                            size_t limitlen, uint64_t* count, uint64_t* size,
                                            int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Whether the database's writes are stopped by a background error: an empty batch written
 * with no_slowdown, which a stopped database refuses with its stored error before anything
 * is written (otherwise the batch writes an empty WAL record and nothing else). Returns 1
 * with that error in *status_code / *errptr and its rocksdb::Status::Severity (hard or worse)
 * in *severity; 0 if writes go on (or stall: that is not a stop), or with an error in
 * *status_code if the probe itself failed or cannot be made (pipelined, unordered or
 * two-queue writes, where a refused write would become a new background error). */
unsigned char pinrocks_db_background_error(rocksdb_t* db, int* severity, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT;

/* Replaces rocksdb_property_int_cf (no try/catch; GetIntProperty copies the caller's name
 * into a std::string). Same results: 0 with *out_val set, or -1 if there is no such integer
 * property; -1 also on error. */
int pinrocks_property_int_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                             const char* propname, uint64_t* out_val, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT;

/* ---- Live options ---- */

/* Replaces rocksdb_set_options_cf (no try/catch; the caller's names and values are copied
 * into a std::unordered_map, then parsed and copied again by SetOptions). */
void pinrocks_set_options_cf(rocksdb_t* db, rocksdb_column_family_handle_t* handle, int count,
                             const char* const* keys, const char* const* values, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT;

/* Replaces rocksdb_set_db_options (no try/catch; copies the caller's names and values into a
 * std::unordered_map). */
void pinrocks_set_db_options(rocksdb_t* db, int count, const char* const* keys,
                             const char* const* values, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT;

/* ---- Metadata and maintenance ---- */

/* Replaces rocksdb_approximate_sizes_cf_with_flags (no try/catch; allocates num_ranges
 * Ranges and copies every key into an InternalKey). include_flags: DB::SizeApproximationFlags
 * (1 memtables, 2 files). */
void pinrocks_approximate_sizes_cf_with_flags(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, int num_ranges,
    const char* const* range_start_key, const size_t* range_start_key_len,
    const char* const* range_limit_key, const size_t* range_limit_key_len, uint8_t include_flags,
    uint64_t* sizes, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Replaces rocksdb_delete_file_in_range_cf (no try/catch; DeleteFilesInRange copies both
 * keys into std::strings and InternalKeys). A NULL start_key or limit_key is unbounded. */
void pinrocks_delete_file_in_range_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                      const char* start_key, size_t start_key_len,
                                      const char* limit_key, size_t limit_key_len, int* status_code,
                                      char** errptr) PINROCKS_NOEXCEPT;

/* ---- Calls through the C API itself, inside a try/catch (they copy data the caller or
 * the stored data sizes). Same results as the C API function named; a caught exception is
 * reported in status_code/errptr (where the function had none, these are added). ---- */

/* rocksdb_get_updates_since with default read options. */
rocksdb_wal_iterator_t* pinrocks_get_updates_since(rocksdb_t* db, uint64_t seq_number,
                                                   int* status_code,
                                                   char** errptr) PINROCKS_NOEXCEPT;
/* rocksdb_wal_iter_next; after a failure the iterator must only be destroyed. */
void pinrocks_wal_iter_next(rocksdb_wal_iterator_t* iter, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT;
/* rocksdb_wal_iter_get_batch; NULL on failure. */
rocksdb_writebatch_t* pinrocks_wal_iter_get_batch(const rocksdb_wal_iterator_t* iter, uint64_t* seq,
                                                  int* status_code,
                                                  char** errptr) PINROCKS_NOEXCEPT;
/* rocksdb_livefiles; NULL on failure. */
const rocksdb_livefiles_t* pinrocks_livefiles(rocksdb_t* db, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT;
/* rocksdb_get_column_family_metadata_cf; NULL on failure. */
rocksdb_column_family_metadata_t* pinrocks_get_column_family_metadata_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, int* status_code,
    char** errptr) PINROCKS_NOEXCEPT;
/* rocksdb_create_column_family, or (with_ttl) rocksdb_create_column_family_with_ttl, which
 * casts the database to DBWithTTL: only on a TTL database. NULL on failure. */
rocksdb_column_family_handle_t* pinrocks_create_column_family(
    rocksdb_t* db, const rocksdb_options_t* column_family_options, const char* column_family_name,
    int ttl, unsigned char with_ttl, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* ---- The other C API calls that allocate what the stored data or the caller sizes:
 * pinrocks_guarded_NAME is rocksdb_NAME inside a try/catch, with `status_code` first (and
 * `errptr` last where rocksdb_NAME has none); same results otherwise (NULL or nothing on a
 * caught exception). ---- */
rocksdb_checkpoint_t* pinrocks_guarded_checkpoint_object_create(int* status_code, rocksdb_t* db,
                                                                char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_checkpoint_create(int* status_code, rocksdb_checkpoint_t* checkpoint,
                                        const char* checkpoint_dir, uint64_t log_size_for_flush,
                                        char** errptr) PINROCKS_NOEXCEPT;
rocksdb_backup_engine_t* pinrocks_guarded_backup_engine_open(int* status_code,
                                                             const rocksdb_options_t* options,
                                                             const char* path,
                                                             char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_backup_engine_purge_old_backups(int* status_code, rocksdb_backup_engine_t* be,
                                                      uint32_t num_backups_to_keep,
                                                      char** errptr) PINROCKS_NOEXCEPT;
rocksdb_transactiondb_t* pinrocks_guarded_transactiondb_open_column_families(
    int* status_code, const rocksdb_options_t* options,
    const rocksdb_transactiondb_options_t* txn_db_options, const char* name,
    int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT;
rocksdb_optimistictransactiondb_t*
pinrocks_guarded_optimistictransactiondb_open_column_families_with_otxn_db_options(
    int* status_code, const rocksdb_options_t* options,
    const rocksdb_optimistictransactiondb_options_t* otxn_db_options, const char* name,
    int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_sst_file_manager_set_delete_rate_bytes_per_second(
    int* status_code, rocksdb_sst_file_manager_t* manager, int64_t rate,
    char** errptr) PINROCKS_NOEXCEPT;
rocksdb_optimistictransactiondb_lock_buckets_t*
pinrocks_guarded_optimistictransactiondb_lock_buckets_create(int* status_code, size_t bucket_count,
                                                             unsigned char cache_aligned,
                                                             char** errptr) PINROCKS_NOEXCEPT;
rocksdb_t* pinrocks_guarded_open_for_read_only_column_families(
    int* status_code, const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, unsigned char error_if_wal_file_exists,
    char** errptr) PINROCKS_NOEXCEPT;
rocksdb_t* pinrocks_guarded_open_column_families(
    int* status_code, const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT;
rocksdb_t* pinrocks_guarded_open_as_secondary_column_families(
    int* status_code, const rocksdb_options_t* options, const char* name,
    const char* secondary_path, int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT;
rocksdb_t* pinrocks_guarded_open_column_families_with_ttl(
    int* status_code, const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, const int* ttls,
    char** errptr) PINROCKS_NOEXCEPT;
char** pinrocks_guarded_list_column_families(int* status_code, const rocksdb_options_t* options,
                                             const char* name, size_t* lencf,
                                             char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_drop_column_family(int* status_code, rocksdb_t* db,
                                         rocksdb_column_family_handle_t* handle,
                                         char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_wait_for_compact(int* status_code, rocksdb_t* db,
                                       rocksdb_wait_for_compact_options_t* options,
                                       char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_flush_wal(int* status_code, rocksdb_t* db, unsigned char sync,
                                char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_try_catch_up_with_primary(int* status_code, rocksdb_t* db,
                                                char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_ingest_external_file_cf(int* status_code, rocksdb_t* db,
                                              rocksdb_column_family_handle_t* handle,
                                              const char* const* file_list, const size_t list_len,
                                              const rocksdb_ingestexternalfileoptions_t* opt,
                                              char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_load_latest_options(int* status_code, const char* db_path, rocksdb_env_t* env,
                                          bool ignore_unknown_options, rocksdb_cache_t* cache,
                                          rocksdb_options_t** db_options,
                                          size_t* num_column_families, char*** column_family_names,
                                          rocksdb_options_t*** column_family_options,
                                          char** errptr) PINROCKS_NOEXCEPT;
const rocksdb_backup_engine_info_t* pinrocks_guarded_backup_engine_get_backup_info(
    int* status_code, rocksdb_backup_engine_t* be, char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_options_set_compression_per_level(int* status_code, rocksdb_options_t* opt,
                                                        const int* level_values, size_t num_levels,
                                                        char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_close(int* status_code, rocksdb_t* db, char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_transactiondb_close(int* status_code, rocksdb_transactiondb_t* txn_db,
                                          char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_transactiondb_close_base_db(int* status_code, rocksdb_t* base_db,
                                                  char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_optimistictransactiondb_close(int* status_code,
                                                    rocksdb_optimistictransactiondb_t* otxn_db,
                                                    char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_guarded_optimistictransactiondb_close_base_db(int* status_code, rocksdb_t* base_db,
                                                            char** errptr) PINROCKS_NOEXCEPT;

#endif
