/* pinrocks: RocksDB's C API plus the native functions pinrocks adds where the C API stops.
 * bindgen reads this header, and the guarded_calls.h it includes, and no other file of
 * rocksdb-c/: plain C. Each section below names the rocksdb-c/ file that implements it.
 *
 * Long because: every entry point the Rust side calls is declared here, in the one header
 * bindgen reads, in sections by the file that implements it.
 *
 * ---- The shape of every entry point ----
 * 1. Arguments, in this order:
 *    a. the handle(s) the call acts on; a transaction or an indexed batch read together with its
 *       database comes after that database (db, txn; db, batch);
 *    b. the options handle (read, write or database options);
 *    c. the column family handle;
 *    d. the op code, for a call that has one (rule 3);
 *    e. the inputs: the key (pointer, length), then the value or the range's end (pointer,
 *       length), then any other input; an array as its count, then its pointer(s);
 *    f. the flags and read modes, which qualify the inputs (batch_only, for_update, ...);
 *    g. a callback, then the context passed to it (`fn, ctx`); for a Rust object that RocksDB
 *       keeps: its state, then the functions given it, its destroy function last;
 *    h. the outputs: an output buffer (pointer, size), then the pointers the call writes;
 *    i. `int* status_code, char** errptr`, always the last two.
 *    Callbacks (the pinrocks_*_fn types) take their context or state first.
 * 2. Types: a boolean is an `unsigned char`, 0 or 1 (the C API's own type for booleans), as an
 *    argument and as a result; a choice among more than two values is an `int` taking PINROCKS_*
 *    constants; lengths and counts of bytes are size_t.
 * 3. Op codes, not one function per operation: operations that take the same arguments on the
 *    same handle (Put, Delete, Merge, DeleteRange; Prepare, Commit, Rollback; savepoints;
 *    iterator moves) share one entry point taking `int op`, a PINROCKS_* constant. Why this and
 *    not per-operation functions: one guarded body and one switch on the C++ side, one enum on
 *    the Rust side, one set of codes for one meaning (the write ops are the PINROCKS_RECORD_*
 *    kinds that pinrocks_writebatch_iterate reports), fewer symbols to keep in step across the
 *    boundary, and the C API already has the per-operation functions these exist to replace.
 *    An op the entry point does not know is reported as InvalidArgument.
 * 4. Errors: every function that can fail takes `int* status_code` and `char** errptr`. The
 *    caller sets *status_code to 0 (rocksdb::Status::kOk) and *errptr to NULL; on failure
 *    *status_code is a rocksdb::Status::Code, or one of the PINROCKS_CODE_* below for a C++
 *    exception caught at this boundary, and *errptr a malloc'd message (free it with
 *    rocksdb_free), which may stay NULL if even that allocation failed. A function that cannot
 *    fail (a copy, a count) has neither; one that reports otherwise says how (an iterator's
 *    seek: in the iterator's status).
 * 5. No C++ exception leaves an entry point: each is noexcept (PINROCKS_NOEXCEPT) and runs its
 *    body inside `pinrocks::guarded` (rocksdb-c/guarded.h) or its own try/catch. Two kinds of
 *    RocksDB call end the process instead, with a message on stderr (guarded.h's
 *    `in_write_queue`, `ending_on_throw`): one that may have entered RocksDB's write queue (a
 *    write to the database, a commit, prepare or rollback, a flush, CompactRange, a family made
 *    or dropped, an ingestion, SetDBOptions, Resume, Close, CancelAllBackgroundWork, a
 *    checkpoint, a backup or an export that flushes, WaitForCompact), whose queue would keep a
 *    writer gone with its stack; and one that lets go of the database mutex by hand or joins
 *    the manifest's writer queue (SetOptions, CompactFiles, DeleteFilesInRange,
 *    IncreaseFullHistoryTsLow, GetAggregatedIntProperty). After a read that threw (a get, a
 *    multi-get, an iterator made, moved or refreshed), what it took of RocksDB's per-thread
 *    state is given back; and if it may have left held a lock RocksDB takes by hand (the
 *    database or WAL mutex, a memtable's range-tombstone cache, a vector memtable's read
 *    lock), or it was a tailing iterator's move, the process ends too (`guarded_read`,
 *    thrown_reads.cc). After a pessimistic transaction's write or read for update threw, a
 *    row it locked and did not track is unlocked, and a stripe of the lock manager left
 *    locked ends the process (row_locks.h). Calls an exception leaves broken beyond repair (an
 *    open of any kind, whose failure's destructor waits on the mutex the open holds; a WAL sync,
 *    EnableFileDeletions, TryCatchUpWithPrimary, ContinueBackgroundWork, a backup, DestroyDB,
 *    RepairDB, a restore's lock, savepoints) run inside an EndingOnOutOfMemory
 *    scope: out of memory there ends the process where the allocation fails, before anything
 *    unwinds (out_of_memory.h).
 * 6. Column families: NULL means the default column family only where the declaration says
 *    so; elsewhere the handle is required.
 * 7. Every handle returned says how to free it; borrowed ones say for how long.
 * 8. A replacement for a C API function rocksdb_NAME is pinrocks_NAME when pinrocks runs
 *    rocksdb_NAME's body itself, pinrocks_guarded_NAME when it calls rocksdb_NAME inside a
 *    try/catch (guarded_calls.h). Both keep rocksdb_NAME's arguments in rocksdb_NAME's order
 *    and types, so that each reads as the call it replaces, and add the error pair (rule 4).
 *
 * The one family of entry points that departs from these rules, and why:
 *  - pinrocks_guarded_*: status_code first (rule 1i): kept, because these are the C API's
 *    own calls wrapped (rule 8), and the pair reads apart from the arguments they replace.
 *    Their other arguments keep rocksdb_NAME's types, `bool` included
 *    (pinrocks_guarded_load_latest_options). Moving status_code to just before errptr would
 *    change every guarded call site on both sides for no change in meaning. */
#ifndef PINROCKS_H
#define PINROCKS_H

#include <stddef.h>
#include <stdint.h>

#include "rocksdb/c.h"

#ifdef __cplusplus
/* Every entry point is noexcept: should an exception ever get past `guarded`, C++ stops the
 * process at once instead of unwinding into Rust frames, which is undefined behaviour. */
#define PINROCKS_NOEXCEPT noexcept
extern "C" {
#else
#define PINROCKS_NOEXCEPT
#endif

/* ---- What the sections share ---- */

/* rocksdb::Status::Code's values, by name (static_asserts in rocksdb-c/guarded.h tie
 * each to RocksDB's enum, so a RocksDB that renumbers them does not build). */
#define PINROCKS_CODE_OK 0
#define PINROCKS_CODE_NOT_FOUND 1
#define PINROCKS_CODE_CORRUPTION 2
#define PINROCKS_CODE_NOT_SUPPORTED 3
#define PINROCKS_CODE_INVALID_ARGUMENT 4
#define PINROCKS_CODE_IO_ERROR 5
#define PINROCKS_CODE_MERGE_IN_PROGRESS 6
#define PINROCKS_CODE_INCOMPLETE 7
#define PINROCKS_CODE_SHUTDOWN_IN_PROGRESS 8
#define PINROCKS_CODE_TIMED_OUT 9
#define PINROCKS_CODE_ABORTED 10
#define PINROCKS_CODE_BUSY 11
#define PINROCKS_CODE_EXPIRED 12
#define PINROCKS_CODE_TRY_AGAIN 13
#define PINROCKS_CODE_COMPACTION_TOO_LARGE 14
#define PINROCKS_CODE_COLUMN_FAMILY_DROPPED 15
/* std::bad_alloc was thrown (and caught) inside the call. */
#define PINROCKS_CODE_OUT_OF_MEMORY 100
/* Any other C++ exception was thrown (and caught) inside the call. */
#define PINROCKS_CODE_EXCEPTION 101

/* A rocksdb::WriteBatch itself, wherever it lives: inside a C API batch handle
 * (pinrocks_writebatch_batch), or an indexed batch's or a transaction's own (pinrocks_wbwi_batch,
 * pinrocks_transaction_write_batch), borrowed from its owner. Opaque: never a C API handle, so no
 * batch that RocksDB owns is passed off as one. */
typedef struct pinrocks_batch pinrocks_batch;

/* A key for a multi-get (pinrocks_read_multi, pinrocks_read_entity_multi): bytes the caller keeps
 * alive for the call. */
typedef struct pinrocks_slice {
  const char* data;
  size_t len;
} pinrocks_slice;

/* One column of a wide-column entity: rocksdb::WideColumn's layout (checked in entities.cc). */
typedef struct pinrocks_column {
  pinrocks_slice name;
  pinrocks_slice value;
} pinrocks_column;

/* Receives a value while RocksDB holds it pinned. `data` may be NULL when `len` is 0.
 * Must not unwind: the Rust side catches panics before returning here. */
typedef void (*pinrocks_value_fn)(void* ctx, const char* data, size_t len);

/* Receives the i-th result of a multi-get while every value of the batch is pinned:
 * found = 0 for an absent key (data NULL, len 0). Returns 0 to go on, 1 to stop early. */
typedef unsigned char (*pinrocks_multi_value_fn)(void* ctx, size_t index, unsigned char found,
                                                 const char* data, size_t len);

/* The kinds of record pinrocks_writebatch_iterate reports, and the op codes of the entry points
 * that write one record (pinrocks_db_write_op, pinrocks_transaction_write_op,
 * pinrocks_wbwi_write, pinrocks_sstfilewriter_write). */
#define PINROCKS_RECORD_PUT 0
#define PINROCKS_RECORD_DELETE 1
#define PINROCKS_RECORD_SINGLE_DELETE 2
#define PINROCKS_RECORD_DELETE_RANGE 3 /* key: start, value: end */
#define PINROCKS_RECORD_MERGE 4
#define PINROCKS_RECORD_LOG_DATA 5   /* key: the blob, no column family */
#define PINROCKS_RECORD_PUT_ENTITY 6 /* value: the serialized wide-column entity */
/* Writing only: PutEntity, `value` the bytes of an array of pinrocks_column (their names and
 * values the caller's, alive for the call; RocksDB sorts them and refuses a duplicate name). */
#define PINROCKS_RECORD_PUT_COLUMNS 7

/* The read modes of the reads through a transaction. */
#define PINROCKS_READ_PLAIN 0
#define PINROCKS_READ_FOR_UPDATE 1        /* exclusive lock (pessimistic) / tracked (optimistic) */
#define PINROCKS_READ_FOR_UPDATE_SHARED 2 /* shared lock */

/* ---- Reads, one entry point per tier whatever the source (rocksdb-c/reads.cc for values,
 * rocksdb-c/entities.cc for entities; what each source reads: rocksdb-c/read_source.h) ---- */

/* Where a read reads from. */
#define PINROCKS_SOURCE_DB 0          /* the database */
#define PINROCKS_SOURCE_TRANSACTION 1 /* a transaction: its own writes, then the database */
#define PINROCKS_SOURCE_BATCH 2       /* an indexed batch's entries over the database's */
#define PINROCKS_SOURCE_BATCH_ONLY 3  /* an indexed batch's entries alone */

/* One read's source. `db` is the database (a transaction's: pinrocks_transactiondb_as_db's
 * handle); `column_family` NULL for the default; `transaction` set for
 * PINROCKS_SOURCE_TRANSACTION, `batch` for the batch sources (NULL otherwise); `mode` a
 * PINROCKS_READ_* for a transaction, PINROCKS_READ_PLAIN otherwise. All live for the call;
 * for an iterator, as long as it lives (a batch unchanged meanwhile). */
typedef struct pinrocks_read_source {
  rocksdb_t* db;
  const rocksdb_readoptions_t* options;
  rocksdb_column_family_handle_t* column_family;
  rocksdb_transaction_t* transaction;
  rocksdb_writebatch_wi_t* batch;
  int kind; /* a PINROCKS_SOURCE_* */
  int mode;
} pinrocks_read_source;

/* One native call, no heap allocation of its own: reads `key` into a PinnableSlice on this
 * function's stack and calls `fn(ctx, data, len)` while the pin is held (a value found in a
 * batch is a copy on this frame; one from the database pins its block).
 * Returns 1 if the key was found (fn was called once), 0 if not found or on error. */
unsigned char pinrocks_read_pinned(const pinrocks_read_source* source, const char* key,
                                   size_t keylen, pinrocks_value_fn fn, void* ctx, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT;

/* The same read into a new handle that holds the pin (free with rocksdb_pinnableslice_destroy);
 * NULL if absent or on error (check errptr first). */
rocksdb_pinnableslice_t* pinrocks_read_handle(const pinrocks_read_source* source, const char* key,
                                              size_t keylen, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT;

/* A multi-get of `num_keys` keys into PinnableSlices held in one array for the batch (on this
 * function's stack for up to 32 keys), then fn for each key in order while they are pinned: one
 * MultiGet (the database's, the transaction's, MultiGetFromBatchAndDB), or key by key, stopping
 * at the first failure, for a read tier of kBlockCacheTier (RocksDB's MultiGet reads uncached
 * blocks from their files even then: pinned_batch.h), reads for update (MultiGet neither locks
 * nor tracks) and a batch alone. On the first per-key error (or a failed allocation), nothing
 * is called back. */
void pinrocks_read_multi(const pinrocks_read_source* source, size_t num_keys,
                         const pinrocks_slice* keys, pinrocks_multi_value_fn fn, void* ctx,
                         int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* A new iterator (free with rocksdb_iter_destroy) over the source's entries of the column
 * family: a transaction's or batch's own merged over the database's (or over nothing, batch
 * alone). It reads `options` (its bounds), the handle and the transaction or batch until
 * destroyed. If RocksDB throws, an iterator that reports it from its status (guarded.h); NULL,
 * with the error, only if even that could not be made. */
rocksdb_iterator_t* pinrocks_read_iterator(const pinrocks_read_source* source, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT;

/* Entities (wide columns): a key's named columns (names sorted, unique; the one named "" is the
 * default column, which plain reads return). A plain value read as an entity is one default
 * column. */

/* Receives an entity's `count` columns while RocksDB holds them pinned (RocksDB's own array,
 * valid for the call). Must not unwind. */
typedef void (*pinrocks_columns_fn)(void* ctx, const pinrocks_column* columns, size_t count);

/* Receives the i-th result of an entity multi-get while every entity of the batch is pinned:
 * found = 0 for an absent key (no columns). Returns 0 to go on, 1 to stop early. */
typedef unsigned char (*pinrocks_multi_columns_fn)(void* ctx, size_t index, unsigned char found,
                                                   const pinrocks_column* columns, size_t count);

/* An entity read and pinned on the heap: the guard and owned tiers' handle. */
typedef struct pinrocks_entity_t pinrocks_entity_t;

/* pinrocks_read_pinned for an entity: GetEntity into a PinnableWideColumns on this function's
 * stack, then fn(ctx, columns, count) while it is pinned. Returns 1 if found (fn called once),
 * 0 if not found or on error. */
unsigned char pinrocks_read_entity_pinned(const pinrocks_read_source* source, const char* key,
                                          size_t keylen, pinrocks_columns_fn fn, void* ctx,
                                          int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* The same read into a new pinrocks_entity_t that holds the pin until pinrocks_entity_destroy:
 * NULL if not found or on error (check errptr first). */
pinrocks_entity_t* pinrocks_read_entity_handle(const pinrocks_read_source* source, const char* key,
                                               size_t keylen, int* status_code,
                                               char** errptr) PINROCKS_NOEXCEPT;

/* pinrocks_read_multi for entities (MultiGetEntity, or key by key where the values' is). */
void pinrocks_read_entity_multi(const pinrocks_read_source* source, size_t num_keys,
                                const pinrocks_slice* keys, pinrocks_multi_columns_fn fn, void* ctx,
                                int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* A valid iterator's key and value, both valid until the iterator moves. */
typedef struct pinrocks_entry {
  pinrocks_slice key;
  pinrocks_slice value;
} pinrocks_entry;

/* A valid iterator's key and value in one call (rocksdb_iter_valid, rocksdb_iter_key and
 * rocksdb_iter_value, one crossing instead of three). Returns 0, setting nothing, when the
 * iterator is not valid. Any rocksdb_iterator_t (a database's, a transaction's, an indexed
 * batch's). A scan's steps get their entry from pinrocks_iter_step instead, in the move's
 * own call. */
unsigned char pinrocks_iter_entry(const rocksdb_iterator_t* iter,
                                  pinrocks_entry* entry) PINROCKS_NOEXCEPT;

/* ---- A database's administration (rocksdb-c/db.cc) ---- */

/* DB::Close: closes the database (flushing what must be flushed, closing the WAL and the
 * MANIFEST) and reports its status, which rocksdb_close drops; free the handle with
 * rocksdb_close (or the transaction databases' close) afterwards as usual. */
void pinrocks_db_close(rocksdb_t* db, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* rocksdb::BottommostLevelCompaction's values (static_asserts in rocksdb-c/db.cc). */
#define PINROCKS_BOTTOMMOST_SKIP 0
#define PINROCKS_BOTTOMMOST_IF_HAVE_COMPACTION_FILTER 1
#define PINROCKS_BOTTOMMOST_FORCE 2
#define PINROCKS_BOTTOMMOST_FORCE_OPTIMIZED 3

/* rocksdb::BlobGarbageCollectionPolicy, checked against it in db.cc. */
#define PINROCKS_BLOB_GC_FORCE 0
#define PINROCKS_BLOB_GC_DISABLE 1
#define PINROCKS_BLOB_GC_USE_DEFAULT 2

/* The CompactRangeOptions fields pinrocks sets (the rest keep RocksDB's defaults). */
typedef struct pinrocks_compact_options {
  unsigned char exclusive;
  unsigned char change_level;
  int target_level;
  int bottommost; /* a PINROCKS_BOTTOMMOST_* */
  unsigned char allow_write_stall;
  uint32_t max_subcompactions;
  int blob_gc_policy;        /* a PINROCKS_BLOB_GC_* */
  double blob_gc_age_cutoff; /* in [0, 1], or -1: the column family's own */
} pinrocks_compact_options;

/* CompactRange over [start, limit) of a column family (NULL: default), with `options` (NULL:
 * RocksDB's defaults), reporting its Status, which the C API's rocksdb_compact_range drops. A
 * NULL start or limit means unbounded. */
void pinrocks_compact_range(rocksdb_t* db, const pinrocks_compact_options* options,
                            rocksdb_column_family_handle_t* column_family, const char* start,
                            size_t startlen, const char* limit, size_t limitlen, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT;

/* One blob file of a column family (rocksdb::BlobMetaData); the strings live for the call. */
typedef struct pinrocks_blob_file {
  uint64_t number;
  const char* name; /* relative to path, such as "/000012.blob" */
  size_t name_len;
  const char* path; /* the directory holding it */
  size_t path_len;
  uint64_t size;
  uint64_t blob_count;
  uint64_t blob_bytes;
  uint64_t garbage_count;
  uint64_t garbage_bytes;
} pinrocks_blob_file;

typedef void (*pinrocks_blob_file_fn)(void* ctx, const pinrocks_blob_file* file);

/* The blob files of a column family (never NULL) in its current version
 * (DB::GetColumnFamilyMetaData): fn(ctx, file) for each. */
void pinrocks_blob_files(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                         pinrocks_blob_file_fn fn, void* ctx, int* status_code,
                         char** errptr) PINROCKS_NOEXCEPT;

/* DB::CompactFiles of `count` SST files (their names, as live_files gives them) of a column
 * family (never NULL) into `output_level`; fn(ctx, name, len) for each file written. */
void pinrocks_compact_files(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                            size_t count, const char* const* names, int output_level,
                            pinrocks_value_fn fn, void* ctx, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT;

/* DB::Flush of `count` column families (never NULL) in one call: atomic across them with
 * atomic_flush. `wait`: return when the flush is done and the event listeners'
 * OnFlushCompleted have run; `allow_write_stall`: flush at once even if that stalls writes. */
void pinrocks_flush(rocksdb_t* db, size_t count, rocksdb_column_family_handle_t* const* families,
                    unsigned char wait, unsigned char allow_write_stall, int* status_code,
                    char** errptr) PINROCKS_NOEXCEPT;

#define PINROCKS_BG_PAUSE 0                 /* PauseBackgroundWork */
#define PINROCKS_BG_CONTINUE 1              /* ContinueBackgroundWork */
#define PINROCKS_BG_CANCEL 2                /* CancelAllBackgroundWork(wait = false) */
#define PINROCKS_BG_CANCEL_AND_WAIT 3       /* CancelAllBackgroundWork(wait = true) */
#define PINROCKS_BG_DISABLE_DELETIONS 4     /* DisableFileDeletions */
#define PINROCKS_BG_ENABLE_DELETIONS 5      /* EnableFileDeletions */
#define PINROCKS_BG_RESUME 6                /* Resume: recover from a background error */
#define PINROCKS_BG_VERIFY_CHECKSUM 7       /* VerifyChecksum: every SST file's block checksums */
#define PINROCKS_BG_VERIFY_FILE_CHECKSUMS 8 /* VerifyFileChecksums: whole-file checksums */
/* pinrocks' step before a close: CancelAllBackgroundWork(wait = false) only if a flush or
   compaction failed in this open (the rocksdb.background-errors property is not 0), then the
   database out of its SstFileManager's space recovery (space_recovery.cc). */
#define PINROCKS_BG_READY_TO_CLOSE 9
/* One control of the database's background work (op: PINROCKS_BG_*). */
void pinrocks_db_background(rocksdb_t* db, int op, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT;

#define PINROCKS_DESTROY_DB 0 /* DestroyDB */
#define PINROCKS_REPAIR_DB 1  /* RepairDB */
/* DestroyDB or RepairDB (op: PINROCKS_*_DB) of the database at `name` (not open), with
 * `options`. */
void pinrocks_destroy_or_repair(const rocksdb_options_t* options, const char* name, int op,
                                int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* SstFileReader::Open then VerifyChecksum of the SST file at `path`, read with `options`. */
void pinrocks_verify_sst_file(const rocksdb_options_t* options, const char* path, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT;

/* The range tombstones of the SST file at `path`, read with `options` (its table
 * properties' num_range_deletions), into `count`. */
void pinrocks_sst_file_range_deletions(const rocksdb_options_t* options, const char* path,
                                       uint64_t* count, int* status_code,
                                       char** errptr) PINROCKS_NOEXCEPT;
/* The range tombstones in the live SST files of `column_family` (the sum of their table
 * properties' num_range_deletions), into `count`. Memtables are not counted. */
void pinrocks_cf_range_deletions(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                 uint64_t* count, int* status_code,
                                 char** errptr) PINROCKS_NOEXCEPT;

#define PINROCKS_CF_MERGES 1        /* it has a merge operator */
#define PINROCKS_CF_RANGE_DELETES 2 /* its table format takes range tombstones (not plain) */
/* What the family's options let it hold (PINROCKS_CF_* flags, from
 * ColumnFamilyHandle::GetDescriptor); all of them if that cannot be told. */
unsigned char pinrocks_cf_capabilities(rocksdb_column_family_handle_t* column_family)
    PINROCKS_NOEXCEPT;

/* DB::CreateColumnFamilies, one descriptor per family (`options[i]`, `names[i]`): one
 * OPTIONS file written for all. RocksDB stops at the first failure; `*created` handles (new
 * wrappers, the caller's) are in `handles`, whatever the status. */
void pinrocks_create_column_families(rocksdb_t* db, size_t count,
                                     const rocksdb_options_t* const* options,
                                     const char* const* names,
                                     rocksdb_column_family_handle_t** handles, size_t* created,
                                     int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* ---- Writes to a database (rocksdb-c/writes.cc) ---- */

/* Put, Delete, SingleDelete, Merge or DeleteRange (op: PINROCKS_RECORD_PUT, _DELETE,
 * _SINGLE_DELETE, _MERGE, _DELETE_RANGE with `value` the range's end, or PutEntity: _PUT_COLUMNS)
 * on the database, with the timestamp `ts` (NULL: none; PutEntity takes none):
 * rocksdb_put_cf & co. without an exception escaping: one ends the process (abort, with a
 * message on stderr), since it may come from inside RocksDB's write queue (DB::Put copies key
 * and value into a batch of its own before the queue, the memtable copies them inside it, and
 * the two cannot be told apart here). */
void pinrocks_db_write_op(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                          rocksdb_column_family_handle_t* column_family, int op, const char* key,
                          size_t keylen, const char* value, size_t valuelen, const char* ts,
                          size_t tslen, int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* DB::Write of a batch: its status code returned (0: written), its message, if any, in
 * `errptr`. An exception out of it was thrown inside RocksDB's write path, whose queue may then
 * keep a link to this call's Writer, gone with its stack: the process ends (abort, with a
 * message on stderr) rather than leave a database whose later writes hang or read it. */
int pinrocks_db_write(rocksdb_t* db, const rocksdb_writeoptions_t* options, pinrocks_batch* batch,
                      char** errptr) PINROCKS_NOEXCEPT;

/* ---- Write batches (rocksdb-c/write_batch.cc) ---- */

/* The WriteBatch inside a C API batch handle, as a pinrocks_batch, live as long as the
 * handle. */
pinrocks_batch* pinrocks_writebatch_batch(rocksdb_writebatch_t* batch) PINROCKS_NOEXCEPT;

/* One write into a batch, `op` a PINROCKS_RECORD_* (PUT, DELETE, SINGLE_DELETE, MERGE,
 * DELETE_RANGE, LOG_DATA, PUT_COLUMNS, or PUT_ENTITY with `value` a serialized entity, kept only
 * if it decodes whole; for a range, `value` is its end; for log data, `key` is the blob and the
 * column family is unused; any other op is InvalidArgument), for a column family
 * (NULL: the default one), with the timestamp `ts` (NULL: none; with one, the family is named by
 * its handle and the ops are PUT to DELETE_RANGE), reporting the Status that the C API's
 * rocksdb_writebatch_* drop (RocksDB refuses a key or value over 4 GiB, and then leaves the entry
 * out of the batch). */
void pinrocks_writebatch_write(rocksdb_writebatch_t* batch,
                               rocksdb_column_family_handle_t* column_family, int op,
                               const char* key, size_t keylen, const char* value, size_t valuelen,
                               const char* ts, size_t tslen, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT;

/* A put without a timestamp into a batch, the common record, with the fewest arguments: the
 * same write as pinrocks_writebatch_write's PUT, to the default family (no handle, as
 * rocksdb_writebatch_put) or to `column_family` (_cf), its status code returned (0: written)
 * and its message, if any, in `errptr`. A record that throws is cut off again, here and in
 * pinrocks_writebatch_write: no batch keeps a torn record. */
int pinrocks_writebatch_put(rocksdb_writebatch_t* batch, const char* key, size_t keylen,
                            const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT;
int pinrocks_writebatch_put_cf(rocksdb_writebatch_t* batch,
                               rocksdb_column_family_handle_t* column_family, const char* key,
                               size_t keylen, const char* value, size_t valuelen,
                               char** errptr) PINROCKS_NOEXCEPT;
/* A delete and a merge without a timestamp to the default family, as pinrocks_writebatch_put
 * (the other families and timestamps: pinrocks_writebatch_write). */
int pinrocks_writebatch_delete(rocksdb_writebatch_t* batch, const char* key, size_t keylen,
                               char** errptr) PINROCKS_NOEXCEPT;
int pinrocks_writebatch_merge(rocksdb_writebatch_t* batch, const char* key, size_t keylen,
                              const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT;

/* Receives one record of a batch, its bytes borrowed for the call. Returns 0 to go on, 1 to
 * stop. Must not unwind. */
typedef unsigned char (*pinrocks_record_fn)(void* ctx, int kind, unsigned int column_family,
                                            const char* key, size_t keylen, const char* value,
                                            size_t valuelen);

/* WriteBatch::Iterate over every record of the batch, in order, with its column family id.
 * Transaction markers (prepare, commit, rollback, noop) are passed over. */
void pinrocks_writebatch_iterate(const pinrocks_batch* batch, pinrocks_record_fn fn, void* ctx,
                                 int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* The same over a batch's bytes (WriteBatch::Data of some batch), checked whole: too short,
 * a bad record or a wrong count is Corruption, and anything a pinrocks batch cannot hold (a
 * transaction marker, a timed put, a wide-column entity, a blob index) NotSupported. */
void pinrocks_writebatch_iterate_bytes(const char* data, size_t len, pinrocks_record_fn fn,
                                       void* ctx, int* status_code,
                                       char** errptr) PINROCKS_NOEXCEPT;
/* The number of entries in the batch, as the C++ WriteBatch reports it. */
unsigned int pinrocks_writebatch_count(const pinrocks_batch* batch) PINROCKS_NOEXCEPT;
/* The batch's bytes (WriteBatch::Data), borrowed: valid until the batch changes. */
const char* pinrocks_writebatch_data(const pinrocks_batch* batch, size_t* len) PINROCKS_NOEXCEPT;
/* Whether the batch holds a two-phase commit marker (begin/end prepare, commit, rollback):
 * the WAL's records then no longer use the sequence numbers their counts say, and
 * GetUpdatesSince's iterator goes wrong from there. */
unsigned char pinrocks_writebatch_has_2pc_markers(const pinrocks_batch* batch) PINROCKS_NOEXCEPT;

/* ---- Backups (rocksdb-c/backup.cc) ---- */

/* Called as a backup copies its files (about every 4 MiB); returns 0 to go on, 1 to stop
 * the backup. Must not unwind. */
typedef unsigned char (*pinrocks_progress_fn)(void* ctx);

/* BackupEngine::CreateNewBackup of `db`, flushing first if `flush`, calling `fn` (if not
 * NULL) for progress, and reporting the new backup's id in *backup_id. A stop asked by `fn`
 * ends the backup with Status::Incomplete and keeps no partial backup. */
void pinrocks_backup_engine_create(rocksdb_backup_engine_t* backup_engine, rocksdb_t* db,
                                   unsigned char flush, pinrocks_progress_fn fn, void* ctx,
                                   unsigned int* backup_id, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT;

/* Restores backup `backup_id` (or the newest, if `latest`) into `db_dir` (its WAL too),
 * holding the directory's LOCK file as DB::Open does, on the Env of `options` (those the
 * engine was opened with, whose Env it restores through). Returns 1 (and the lock's error) if
 * the lock is held, by a database open there in this process or another: nothing restored. */
unsigned char pinrocks_backup_engine_restore(rocksdb_backup_engine_t* backup_engine,
                                             const rocksdb_options_t* options, const char* db_dir,
                                             unsigned int backup_id, unsigned char latest,
                                             int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* BackupEngine::VerifyBackup with the choice the C API leaves out: with `verify_checksums`
 * every file's checksum is recomputed (the C API only compares sizes). */
void pinrocks_backup_engine_verify(rocksdb_backup_engine_t* backup_engine, unsigned int backup_id,
                                   unsigned char verify_checksums, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT;

/* ---- User code that RocksDB calls (rocksdb-c/callbacks.cc) ----
 * RocksDB calls these from any thread: readers' threads and its background flush and
 * compaction threads. None of them may unwind: the Rust side catches every panic. The state
 * belongs to the C++ object made here, shared (std::shared_ptr) by every copy of the options
 * and every column family opened with them; `destroy(state)` runs once, when the last of
 * them is gone. If a setter fails, it has already called `destroy(state)`. */
typedef void (*pinrocks_destroy_fn)(void* state);

/* One line of the info log: `level` a rocksdb::InfoLogLevel (0 debug .. 4 fatal, 5 header),
 * the message formatted whole, borrowed for the call. Called on the thread that logs. */
typedef void (*pinrocks_log_fn)(void* state, int level, const char* message, size_t len);
/* Sends the info log of databases opened with `options` to `log` (lines below `level` are
 * not formatted), instead of a LOG file. */
void pinrocks_options_set_info_log(rocksdb_options_t* options, int level, void* state,
                                   pinrocks_log_fn log, pinrocks_destroy_fn destroy,
                                   int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* ---- Event listeners (rocksdb-c/listener.cc) ----
 * Each event's data is borrowed for the call: strings are pinrocks_slice views of RocksDB's
 * own (`reason` a NUL-terminated static name), lists arrays of them. */
typedef struct pinrocks_flush_info {
  pinrocks_slice cf_name;
  pinrocks_slice file_path;
  int job_id;
  uint64_t smallest_seqno;
  uint64_t largest_seqno;
  unsigned char triggered_writes_slowdown;
  unsigned char triggered_writes_stop;
  const char* reason;
} pinrocks_flush_info;
typedef struct pinrocks_compaction_info {
  pinrocks_slice cf_name;
  int job_id;
  int base_input_level;
  int output_level;
  const pinrocks_slice* input_files;
  size_t num_input_files;
  const pinrocks_slice* output_files;
  size_t num_output_files;
  const char* reason;
  int status_code; /* PINROCKS_CODE_*, 0 for OK */
  pinrocks_slice status_message;
  uint64_t input_records;
  uint64_t output_records;
} pinrocks_compaction_info;
/* Write stall conditions: rocksdb::WriteStallCondition (0 delayed, 1 stopped, 2 normal). */
typedef struct pinrocks_stall_info {
  pinrocks_slice cf_name;
  int previous;
  int current;
} pinrocks_stall_info;
/* `severity` is rocksdb::Status::Severity (0 none .. 4 unrecoverable). `choice`, NULL where
 * RocksDB offers none: for a background error, the severity the listener leaves (0
 * suppresses the error; RocksDB keeps the result only for the errors it classifies itself,
 * see event_listener.rs); for a recovery's beginning, 1 to let it run, 0 to stop it. */
typedef struct pinrocks_error_info {
  int reason; /* rocksdb::BackgroundErrorReason; -1 for a recovery's end */
  int status_code;
  pinrocks_slice status_message;
  int severity;
  int* choice;
} pinrocks_error_info;
typedef struct pinrocks_memtable_info {
  pinrocks_slice cf_name;
  uint64_t first_seqno;
  uint64_t earliest_seqno;
  uint64_t num_entries;
  uint64_t num_deletes;
} pinrocks_memtable_info;
/* A table file created (reason: rocksdb::TableFileCreationReason) or deleted (reason -1). */
typedef struct pinrocks_table_file_info {
  pinrocks_slice cf_name;
  pinrocks_slice file_path;
  int job_id;
  int reason;
  uint64_t file_size;
  uint64_t num_entries;
  int status_code;
  pinrocks_slice status_message;
} pinrocks_table_file_info;
typedef struct pinrocks_ingestion_info {
  pinrocks_slice cf_name;
  pinrocks_slice external_file_path;
  pinrocks_slice internal_file_path;
  uint64_t global_seqno;
  uint64_t num_entries;
} pinrocks_ingestion_info;
/* Every event, once: X(the listener's function, the struct it is handed). The list makes
 * the table of functions below, one typed pointer per event; listener.cc calls each through
 * its own field with the struct RocksDB's override builds, and event_listener.rs fills every
 * field by name (a missing, extra or mistyped one does not compile on either side). */
#define PINROCKS_EVENTS(X)                                                         \
  X(on_flush_begin, pinrocks_flush_info)                                           \
  X(on_flush_completed, pinrocks_flush_info)                                       \
  X(on_compaction_begin, pinrocks_compaction_info)                                 \
  X(on_compaction_completed, pinrocks_compaction_info)                             \
  X(on_memtable_sealed, pinrocks_memtable_info)                                    \
  X(on_table_file_created, pinrocks_table_file_info)                               \
  X(on_table_file_deleted, pinrocks_table_file_info) /* no cf_name */              \
  X(on_external_file_ingested, pinrocks_ingestion_info)                            \
  X(on_stall_conditions_changed, pinrocks_stall_info)                              \
  X(on_background_error, pinrocks_error_info)                                      \
  X(on_error_recovery_begin, pinrocks_error_info)    /* `choice`: auto recovery */ \
  X(on_error_recovery_end, pinrocks_error_info)      /* the new status */          \
  X(on_column_family_handle_deleted, pinrocks_slice) /* the family's name */
/* What one listener wants: a function per event, NULL for an event it does not want (the
 * C++ listener then returns at once, building nothing). */
#define PINROCKS_EVENT_FIELD(name, info) void (*name)(void* state, const info* event);
typedef struct pinrocks_events {
  PINROCKS_EVENTS(PINROCKS_EVENT_FIELD)
} pinrocks_events;
#undef PINROCKS_EVENT_FIELD
/* Adds a listener to the databases opened with `options`: `events` (copied) for what it
 * wants, `state` handed to each and freed by `destroy` with the last database using it. */
void pinrocks_options_add_event_listener(rocksdb_options_t* options, void* state,
                                         const pinrocks_events* events, pinrocks_destroy_fn destroy,
                                         int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* The std::string RocksDB gives a callback for its result (a merge's new value, a filter's
 * changed value), written in place. Each returns NULL / 0 if the allocation failed. */
char* pinrocks_value_resize(void* value, size_t len) PINROCKS_NOEXCEPT;
unsigned char pinrocks_value_append(void* value, const char* data, size_t len) PINROCKS_NOEXCEPT;
const char* pinrocks_value_data(void* value, size_t* len) PINROCKS_NOEXCEPT;

/* Full merge: `existing` is NULL when the key has no base value; `operands` are in the order
 * they were written, borrowed for the call (RocksDB's own array of slices, no copy). The
 * result is written into `new_value`, or named by `*reuse`: num_operands for the existing
 * value, i < num_operands for operand i (RocksDB then copies nothing). Returns 1 on success;
 * 0 fails the reads of this key (Corruption "Merge operator failed"), while flushes and
 * compactions keep the operands as they are (OpFailureScope::kMustMerge). */
typedef unsigned char (*pinrocks_full_merge_fn)(void* state, const char* key, size_t keylen,
                                                const pinrocks_slice* existing,
                                                const pinrocks_slice* operands, size_t num_operands,
                                                void* new_value, size_t* reuse);
/* Partial merge of at least two operands into one; 0 means "cannot", and RocksDB keeps them. */
typedef unsigned char (*pinrocks_partial_merge_fn)(void* state, const char* key, size_t keylen,
                                                   const pinrocks_slice* operands,
                                                   size_t num_operands, void* new_value);

/* Sets the options' merge operator (`partial` may be NULL). */
void pinrocks_options_set_merge_operator(rocksdb_options_t* options, const char* name, void* state,
                                         pinrocks_full_merge_fn full,
                                         pinrocks_partial_merge_fn partial,
                                         pinrocks_destroy_fn destroy, int* status_code,
                                         char** errptr) PINROCKS_NOEXCEPT;

/* What a compaction filter factory learns about the compaction it makes a filter for. */
typedef struct pinrocks_compaction_context {
  unsigned char is_full_compaction;
  unsigned char is_manual_compaction;
  int input_start_level; /* -1 if unknown */
  unsigned int column_family_id;
} pinrocks_compaction_context;

#define PINROCKS_FILTER_KEEP 0
#define PINROCKS_FILTER_REMOVE 1
#define PINROCKS_FILTER_CHANGE 2 /* keep, with the value written into `new_value` */

/* Makes the filter for one compaction (used by that compaction's thread only), or NULL for
 * none (every entry kept). */
typedef void* (*pinrocks_create_filter_fn)(void* factory, const pinrocks_compaction_context* ctx);
/* Decides on one plain value (merge operands and deletions are not shown). */
typedef int (*pinrocks_filter_fn)(void* filter, int level, const char* key, size_t keylen,
                                  const char* value, size_t valuelen, void* new_value);

/* Sets the options' compaction filter factory. Each filter made is destroyed with
 * `destroy_filter` when its compaction ends; the factory with `destroy_factory`. */
void pinrocks_options_set_compaction_filter_factory(
    rocksdb_options_t* options, const char* name, void* factory, pinrocks_create_filter_fn create,
    pinrocks_filter_fn filter, pinrocks_destroy_fn destroy_filter,
    pinrocks_destroy_fn destroy_factory, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Table-properties collectors written in Rust. The factory makes one collector per SST file
 * a flush or compaction writes (NULL: none for that file); `add` sees each entry (`kind`:
 * RocksDB's EntryType); `finish` hands the collector's properties, each through
 * pinrocks_user_properties_put(properties, ...); each collector is destroyed with
 * `destroy_collector` when its file is done, the factory with `destroy_factory`. */
typedef void* (*pinrocks_create_collector_fn)(void* factory, uint32_t column_family_id);
typedef void (*pinrocks_collector_add_fn)(void* collector, const char* key, size_t keylen,
                                          const char* value, size_t valuelen, int kind);
typedef void (*pinrocks_collector_finish_fn)(void* collector, void* properties);

/* Adds (or replaces) one property in the map `finish` was given: 1, or 0 if it could not be
 * allocated (the property is then missing). */
unsigned char pinrocks_user_properties_put(void* properties, const char* name, size_t namelen,
                                           const char* value, size_t valuelen) PINROCKS_NOEXCEPT;

/* Appends a collector factory to the options' table_properties_collector_factories. */
void pinrocks_options_add_table_properties_collector_factory(
    rocksdb_options_t* options, const char* name, void* factory,
    pinrocks_create_collector_fn create, pinrocks_collector_add_fn add,
    pinrocks_collector_finish_fn finish, pinrocks_destroy_fn destroy_collector,
    pinrocks_destroy_fn destroy_factory, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* A WAL filter written in Rust: `record` sees each write batch the WAL replays as a
 * database opens (`batch` is RocksDB's, valid for the call; `file` the WAL file's name, not
 * NUL-terminated) and returns one of PINROCKS_WAL_*. RocksDB keeps a raw pointer to the
 * filter in the options and every database opened with them: its owner destroys it with
 * pinrocks_wal_filter_destroy after all of them (the state with `destroy`). */
#define PINROCKS_WAL_REPLAY 0    /* WalProcessingOption::kContinueProcessing */
#define PINROCKS_WAL_SKIP 1      /* kIgnoreCurrentRecord */
#define PINROCKS_WAL_STOP 2      /* kStopReplay */
#define PINROCKS_WAL_CORRUPTED 3 /* kCorruptedRecord */
typedef struct pinrocks_wal_filter pinrocks_wal_filter;
typedef int (*pinrocks_wal_record_fn)(void* state, uint64_t wal_number, const char* file,
                                      size_t file_len, const pinrocks_batch* batch);

/* A new filter named `name` (copied) over `state`, or NULL with the error (`state` then
 * destroyed). */
pinrocks_wal_filter* pinrocks_wal_filter_create(const char* name, void* state,
                                                pinrocks_wal_record_fn record,
                                                pinrocks_destroy_fn destroy, int* status_code,
                                                char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_wal_filter_destroy(pinrocks_wal_filter* filter) PINROCKS_NOEXCEPT;
/* Sets the options' wal_filter (NULL: none). */
void pinrocks_options_set_wal_filter(rocksdb_options_t* options,
                                     pinrocks_wal_filter* filter) PINROCKS_NOEXCEPT;

/* ---- Options and statistics beyond the C API (rocksdb-c/options.cc) ---- */

#define PINROCKS_PREFIX_NONE 0
#define PINROCKS_PREFIX_FIXED 1  /* the first `len` bytes; keys shorter have no prefix */
#define PINROCKS_PREFIX_CAPPED 2 /* the first `len` bytes, or the whole key if shorter */

/* Sets (or with PINROCKS_PREFIX_NONE removes) the options' prefix extractor. */
void pinrocks_options_set_prefix_extractor(rocksdb_options_t* options, int kind, size_t len,
                                           int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Whether the options have a prefix extractor. */
unsigned char pinrocks_options_has_prefix_extractor(const rocksdb_options_t* options)
    PINROCKS_NOEXCEPT;
/* Sets the options' prefix extractor to `extractor` (a new one, which they take over, and
 * free if this fails). */
void pinrocks_options_set_custom_prefix_extractor(rocksdb_options_t* options,
                                                  rocksdb_slicetransform_t* extractor,
                                                  int* status_code,
                                                  char** errptr) PINROCKS_NOEXCEPT;

#define PINROCKS_MEMTABLE_SKIP_LIST 0      /* count: lookahead (0: none) */
#define PINROCKS_MEMTABLE_VECTOR 1         /* count: entries reserved */
#define PINROCKS_MEMTABLE_HASH_SKIP_LIST 2 /* count: buckets; height, branching: the lists' */
#define PINROCKS_MEMTABLE_HASH_LINK_LIST 3 /* count: buckets */
/* Sets the options' memtable factory (kind: PINROCKS_MEMTABLE_*). */
void pinrocks_options_set_memtable(rocksdb_options_t* options, int kind, size_t count,
                                   int32_t height, int32_t branching, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT;

#define PINROCKS_PATHS_DB 0        /* db_paths: `count` paths, each with its target size */
#define PINROCKS_PATHS_CF 1        /* cf_paths: likewise */
#define PINROCKS_PATH_WAL_DIR 2    /* wal_dir: paths[0] (count 0: the database's own) */
#define PINROCKS_PATH_DB_LOG_DIR 3 /* db_log_dir: paths[0] (count 0: the database's own) */
/* Sets one of the options' paths (kind: PINROCKS_PATH*). */
void pinrocks_options_set_paths(rocksdb_options_t* options, int kind, const char* const* paths,
                                const uint64_t* target_sizes, size_t count, int* status_code,
                                char** errptr) PINROCKS_NOEXCEPT;

/* A new read options handle (free with rocksdb_readoptions_destroy) with `source`'s
 * settings, snapshot included, and no iterate bounds or timestamps; NULL if allocation failed. */
rocksdb_readoptions_t* pinrocks_readoptions_copy(const rocksdb_readoptions_t* source)
    PINROCKS_NOEXCEPT;

/* The name of the options' comparator, copied into buf (truncated to buflen); returns its
 * full length. */
size_t pinrocks_options_comparator_name(const rocksdb_options_t* options, char* buf,
                                        size_t buflen) PINROCKS_NOEXCEPT;

/* The option maps of RocksDB the contract table (src/options/contract_table.rs) follows. */
#define PINROCKS_OPTION_SCOPE_DB 0
#define PINROCKS_OPTION_SCOPE_CF 1
#define PINROCKS_OPTION_SCOPE_BLOCK_BASED 2
#define PINROCKS_OPTION_SCOPE_PLAIN 3
#define PINROCKS_OPTION_SCOPE_CUCKOO 4
/* Whatever table factory the options have (pinrocks_options_serialized only). */
#define PINROCKS_OPTION_SCOPE_TABLE 5

/* Sets database and column family options on `options` by RocksDB's own names and value
 * syntax (`count` names and values; each a DBOptions or a ColumnFamilyOptions option, as
 * `scopes[i]` says, PINROCKS_OPTION_SCOPE_DB or _CF, parsed by RocksDB's
 * GetDBOptionsFromMap / GetColumnFamilyOptionsFromMap). All or none:
 * on a refusal `options` is unchanged and *refused is the index of the first pair RocksDB
 * refused (an unknown name, a value it cannot parse or that is out of range), or `count` if
 * the options' own num_levels is outside 1..=PINROCKS_MAX_NUM_LEVELS (refused before any
 * parse, which would size vectors by it). */
void pinrocks_options_set_by_name(rocksdb_options_t* options, size_t count, const char* const* keys,
                                  const char* const* values, const int* scopes, size_t* refused,
                                  int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Env::Default()->SetBackgroundThreads(threads, pool) (pool: rocksdb::Env::Priority, BOTTOM 0,
 * LOW 1, HIGH 2), guarded: a thread that cannot start is an error, and the pools are set back
 * to their sizes before the call. */
void pinrocks_env_set_background_threads(int pool, int threads, int* status_code,
                                         char** errptr) PINROCKS_NOEXCEPT;
/* Lowers the priority of the threads of `pool` of Env::Default() (as pinrocks_env_set_
 * background_threads numbers them), each as it next runs a job: the CPU priority to
 * `cpu_priority` (rocksdb::CpuPriority: 0 idle, 1 low; -1 leaves it), and the I/O priority to
 * idle with `io`. A pool other than 0 to 2 is refused (InvalidArgument). */
void pinrocks_env_lower_thread_pool_priority(int pool, int cpu_priority, unsigned char io,
                                             int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* Options::IncreaseParallelism (which sizes the options' Env's pools at once), guarded as
 * pinrocks_env_set_background_threads. */
void pinrocks_options_increase_parallelism(rocksdb_options_t* options, int threads,
                                           int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Receives one name and value of a parsed options string, borrowed for the call. Must not
 * unwind. */
typedef void (*pinrocks_pair_fn)(void* ctx, const char* key, size_t keylen, const char* value,
                                 size_t valuelen);

/* One SST file's table properties (TableProperties), the numbers. */
typedef struct pinrocks_table_properties {
  uint64_t entries;
  uint64_t deletions;
  uint64_t merge_operands;
  uint64_t range_deletions;
  uint64_t data_size;
  uint64_t raw_key_size;
  uint64_t raw_value_size;
  uint64_t data_blocks;
} pinrocks_table_properties;

/* For each live SST file of `column_family` (DB::GetPropertiesOfAllTables): `file` with its
 * path and numbers, then `property` for each user-collected property of it. */
typedef void (*pinrocks_table_file_fn)(void* ctx, const char* path, size_t pathlen,
                                       const pinrocks_table_properties* properties);
void pinrocks_table_properties_of(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                  pinrocks_table_file_fn file, pinrocks_pair_fn property, void* ctx,
                                  int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* RocksDB's StringToMap: "name=value;name={nested=1;other=2}" into its names and values (a
 * nested value without its outer braces), each handed to `fn`. */
void pinrocks_options_string_to_map(const char* options, size_t optionslen, pinrocks_pair_fn fn,
                                    void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* The most levels an LSM tree may have (the option table's bound on num_levels): RocksDB sizes
 * vectors by it as soon as it reads a family's options. */
#define PINROCKS_MAX_NUM_LEVELS 1000
/* RocksDB's ValidateOptions of the options (what an open checks after sanitizing, and what a
 * family creation and SetOptions never check): the table factory's own rules (a hash index
 * needs a prefix extractor, a format_version it can read back, ...). */
void pinrocks_options_validate(const rocksdb_options_t* options, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT;
/* Each name RocksDB's GetOptionNames lists for a default object of `scope` (deprecated
 * names and aliases left out; with `mutable_only`, the names SetOptions changes), handed to
 * `fn` with an empty value (rocksdb-c/option_contract.cc). */
void pinrocks_option_names(int scope, unsigned char mutable_only, pinrocks_pair_fn fn, void* ctx,
                           int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* Each name and value of a default object of `scope`, as RocksDB serializes it. */
void pinrocks_option_defaults(int scope, pinrocks_pair_fn fn, void* ctx, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT;
/* A new options handle (free with rocksdb_options_destroy) holding what the live database
 * uses now: its DBOptions and the column family's options (DB::GetDBOptions, GetOptions),
 * sharing their objects (table factory, caches). NULL with an error on failure. */
rocksdb_options_t* pinrocks_live_options(rocksdb_t* db, rocksdb_column_family_handle_t* cf,
                                         int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* Each name and value of `options` in `scope` (DB, CF, or TABLE: its table factory's), as
 * RocksDB serializes them for its OPTIONS file; a nested value without its braces. */
void pinrocks_options_serialized(const rocksdb_options_t* options, int scope, pinrocks_pair_fn fn,
                                 void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* An LRU cache with RocksDB's LRUCacheOptions (the C API has no priority pools), and with a
 * secondary cache in memory of `secondary_capacity` bytes (0: none) whose blocks are
 * compressed with `secondary_compression` (a C API compression type; RocksDB falls back on its
 * default for one not compiled in), or NULL with an error if RocksDB refuses them. Free with
 * rocksdb_cache_destroy. */
rocksdb_cache_t* pinrocks_cache_create_lru(size_t capacity, int shard_bits,
                                           double high_pri_pool_ratio, double low_pri_pool_ratio,
                                           unsigned char strict_capacity_limit,
                                           size_t secondary_capacity, int secondary_compression,
                                           int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* A HyperClockCache with RocksDB's HyperClockCacheOptions (estimated_entry_charge 0: the
 * automatic one; shard bits -1: RocksDB's choice, shards of 32 MiB at least), or NULL with an
 * error if RocksDB refuses them or its table cannot be allocated. Free with
 * rocksdb_cache_destroy. */
rocksdb_cache_t* pinrocks_cache_create_hyper_clock(size_t capacity, size_t estimated_entry_charge,
                                                   int shard_bits, int* status_code,
                                                   char** errptr) PINROCKS_NOEXCEPT;

/* How this RocksDB build computes CRC32c (RocksDB's own words, as its LOG says at open:
 * "Supported on x86", "Not supported on x86", ...), copied into buf; returns its length. */
size_t pinrocks_crc32c_mode(char* buf, size_t buflen) PINROCKS_NOEXCEPT;
/* An in-memory file system (MockFileSystem, with the default Env's threads and clock): databases
 * keep their files in its memory, gone with it. */
typedef struct pinrocks_mem_env_t pinrocks_mem_env_t;
pinrocks_mem_env_t* pinrocks_mem_env_create(int* status_code, char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_mem_env_destroy(pinrocks_mem_env_t* env) PINROCKS_NOEXCEPT;
/* Points the options' env at it (which must outlive every database and options using it). */
void pinrocks_options_set_mem_env(rocksdb_options_t* options,
                                  pinrocks_mem_env_t* env) PINROCKS_NOEXCEPT;
/* Whether `path` exists on the options' Env (the disk, or a file system in memory). */
unsigned char pinrocks_options_env_file_exists(const rocksdb_options_t* options, const char* path,
                                               int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* The newest OPTIONS file in `dir`, read through the options' Env: malloc'd (free with
 * rocksdb_free), its length in *len; NULL without an error when there is none. */
char* pinrocks_options_env_read_newest_options_file(const rocksdb_options_t* options,
                                                    const char* dir, size_t* len, int* status_code,
                                                    char** errptr) PINROCKS_NOEXCEPT;
/* file_checksum_gen_factory: RocksDB's CRC32c whole-file checksums (on) or none. */
void pinrocks_options_set_file_checksums(rocksdb_options_t* options, unsigned char on,
                                         int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* A shared reference to the statistics object of `options` (NULL if it has none, or if
 * allocation failed), valid until pinrocks_statistics_destroy. */
typedef struct pinrocks_statistics_t pinrocks_statistics_t;
pinrocks_statistics_t* pinrocks_statistics_of_options(const rocksdb_options_t* options)
    PINROCKS_NOEXCEPT;
void pinrocks_statistics_destroy(pinrocks_statistics_t* statistics) PINROCKS_NOEXCEPT;

typedef struct pinrocks_histogram {
  uint64_t count;
  uint64_t sum;
  double min;
  double max;
  double average;
  double median;
  double p95;
  double p99;
  double std_dev;
} pinrocks_histogram;

/* The counts of the tickers numbered first, first + 1, ... (rocksdb::Tickers values) into
 * out[0..len), as many as exist past `first` (the rest of `out` untouched): returns how many
 * tickers this RocksDB has (TICKER_ENUM_MAX). */
size_t pinrocks_statistics_tickers(pinrocks_statistics_t* statistics, uint32_t first, uint64_t* out,
                                   size_t len) PINROCKS_NOEXCEPT;

/* The histograms numbered first, first + 1, ... (rocksdb::Histograms values) into
 * out[0..len), as many as exist past `first`: returns how many histograms this RocksDB has
 * (HISTOGRAM_ENUM_MAX). Reading one allocates (RocksDB merges each core's histogram into a
 * new one): a failure is reported through status_code and errptr. */
size_t pinrocks_statistics_histograms(pinrocks_statistics_t* statistics, uint32_t first,
                                      pinrocks_histogram* out, size_t len, int* status_code,
                                      char** errptr) PINROCKS_NOEXCEPT;

/* A perf metric of the calling thread's perf context (a value of c.h's metric enum), as
 * rocksdb_perfcontext_metric reads it, and also the ones its switch forgets (it reads them as
 * 0: build/metrics.rs names each). */
uint64_t pinrocks_perf_metric(rocksdb_perfcontext_t* context, int metric) PINROCKS_NOEXCEPT;

/* One level's perf counters (RocksDB's PerfContextByLevel), copied field by field. */
typedef struct pinrocks_level_perf {
  uint32_t level;
  uint64_t bloom_filter_useful;
  uint64_t bloom_filter_full_positive;
  uint64_t bloom_filter_full_true_positive;
  uint64_t user_key_return_count;
  uint64_t get_from_table_nanos;
  uint64_t block_cache_hit_count;
  uint64_t block_cache_miss_count;
} pinrocks_level_perf;

/* The calling thread's perf context counts per level too (on: EnablePerLevelPerfContext,
 * its map made with an entry for every level, so that no read allocates one: the error is
 * an allocation's) or no longer (off). */
void pinrocks_perf_per_level(unsigned char on, int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* Copies the calling thread's per-level counters of the levels with a count, by level, into
 * out[0..len) and returns how many there are (more than len: call again with room). */
size_t pinrocks_perf_levels(pinrocks_level_perf* out, size_t len) PINROCKS_NOEXCEPT;

/* Statistics::Reset: every ticker and histogram back to zero. */
void pinrocks_statistics_reset(pinrocks_statistics_t* statistics, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT;

/* ---- Exported and imported column families (rocksdb-c/export_import.cc) ---- */

/* Checkpoint::ExportColumnFamily of `column_family` into `export_dir` (which must not exist):
 * its SST files there (hard links, or copies) and their metadata (free with
 * rocksdb_export_import_files_metadata_destroy), how many files in *files; NULL with the
 * error otherwise. RocksDB flushes the family first. */
rocksdb_export_import_files_metadata_t* pinrocks_export_column_family(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* export_dir,
    size_t* files, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* DB::CreateColumnFamilyWithImport: a new family named `column_family_name` holding the
 * exported files of `metadata` (moved, or copied), or NULL with the error (RocksDB drops a
 * family it could not fill). An exception inside ends the process (see the file). */
rocksdb_column_family_handle_t* pinrocks_create_column_family_with_import(
    rocksdb_t* db, const rocksdb_options_t* column_family_options, const char* column_family_name,
    unsigned char move_files, rocksdb_export_import_files_metadata_t* metadata,
    char** errptr) PINROCKS_NOEXCEPT;

/* ---- Query tracing (rocksdb-c/tracing.cc) ---- */

/* DB::StartTrace into a new file at `path` (through the database's Env), with TraceOptions'
 * fields (`filter`: RocksDB's kTraceFilter* bits of what not to trace); it replaces a trace
 * running. */
void pinrocks_db_start_trace(rocksdb_t* db, const char* path, uint64_t max_trace_file_size,
                             uint64_t sampling_frequency, uint64_t filter,
                             unsigned char preserve_write_order, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT;
/* DB::EndTrace: the trace file closed (IOError if none runs). */
void pinrocks_db_end_trace(rocksdb_t* db, int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* ---- Rate limiters (rocksdb-c/rate_limiter.cc) ---- */

/* A shared reference to a GenericRateLimiter, valid until pinrocks_ratelimiter_destroy
 * (options given it keep their own). */
typedef struct pinrocks_ratelimiter_t pinrocks_ratelimiter_t;

/* NewGenericRateLimiter with every argument (mode: 0 reads only, 1 writes only, 2 all I/O).
 * Refused (NULL, InvalidArgument) unless it refills at least one byte a period at the lowest
 * rate it can reach (a twentieth of the rate when auto-tuned), the period is 1 ..=
 * INT64_MAX / 100 microseconds, fairness 1..=100, and the burst not negative. */
pinrocks_ratelimiter_t* pinrocks_ratelimiter_create(int64_t rate_bytes_per_sec,
                                                    int64_t refill_period_us, int32_t fairness,
                                                    int mode, unsigned char auto_tuned,
                                                    int64_t single_burst_bytes, int* status_code,
                                                    char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_ratelimiter_destroy(pinrocks_ratelimiter_t* limiter) PINROCKS_NOEXCEPT;

/* Options::rate_limiter: a new shared reference to `limiter`. */
void pinrocks_options_set_ratelimiter(rocksdb_options_t* options,
                                      pinrocks_ratelimiter_t* limiter) PINROCKS_NOEXCEPT;

/* SetBytesPerSecond, refused (InvalidArgument) unless it refills at least one byte every
 * `refill_period_us` (the limiter's). */
void pinrocks_ratelimiter_set_bytes_per_second(pinrocks_ratelimiter_t* limiter,
                                               int64_t bytes_per_second, int64_t refill_period_us,
                                               int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* SetSingleBurstBytes (0: the bytes of one refill). */
void pinrocks_ratelimiter_set_single_burst_bytes(pinrocks_ratelimiter_t* limiter,
                                                 int64_t single_burst_bytes, int* status_code,
                                                 char** errptr) PINROCKS_NOEXCEPT;

typedef struct pinrocks_ratelimiter_counts {
  int64_t bytes_per_second;
  int64_t single_burst_bytes;
  int64_t total_bytes_through;
  int64_t total_requests;
  int64_t total_pending_requests;
} pinrocks_ratelimiter_counts;

/* The limiter's rate and burst now, and its totals for `priority` (an Env::IOPriority, 0 to
 * 4; 4, IO_TOTAL, sums them all). */
void pinrocks_ratelimiter_read(pinrocks_ratelimiter_t* limiter, int priority,
                               pinrocks_ratelimiter_counts* out, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT;

/* ---- Transactions (rocksdb-c/transactions.cc) ---- */

/* A new rocksdb_t handle (free it with rocksdb_transactiondb_close_base_db, before closing
 * the transaction database) whose `rep` is the transaction database itself, not its base:
 * everything done through it goes through the transaction database (plain writes take its
 * locks). NULL if allocation failed. */
rocksdb_t* pinrocks_transactiondb_as_db(rocksdb_transactiondb_t* txn_db) PINROCKS_NOEXCEPT;
/* The same for an optimistic transaction database (free with
 * rocksdb_optimistictransactiondb_close_base_db). */
rocksdb_t* pinrocks_optimistictransactiondb_as_db(rocksdb_optimistictransactiondb_t* txn_db)
    PINROCKS_NOEXCEPT;
/* DeleteRange on an optimistic transaction database's base database (its own DeleteRange
 * says NotSupported): a plain write, in no transaction. */
void pinrocks_optimistictransactiondb_delete_range(rocksdb_optimistictransactiondb_t* txn_db,
                                                   const rocksdb_writeoptions_t* options,
                                                   rocksdb_column_family_handle_t* column_family,
                                                   const char* start, size_t startlen,
                                                   const char* end, size_t endlen, int* status_code,
                                                   char** errptr) PINROCKS_NOEXCEPT;

/* Put, Delete, SingleDelete, Merge or PutLogData (op: PINROCKS_RECORD_PUT, _DELETE,
 * _SINGLE_DELETE, _MERGE, _LOG_DATA with `key` the blob; PutEntity: _PUT_COLUMNS) through a
 * transaction,
 * as rocksdb_transaction_put_cf & co. do but with no exception escaping (they copy the
 * key and value into the transaction's batch and lock tracker: std::bad_alloc). */
void pinrocks_transaction_write_op(rocksdb_transaction_t* txn,
                                   rocksdb_column_family_handle_t* column_family, int op,
                                   const char* key, size_t keylen, const char* value,
                                   size_t valuelen, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT;
/* A put, the common write with the fewest arguments, to the default family or to
 * `column_family` (_cf): its status code returned (0: written), its message, if any, in
 * `errptr`. A put that throws leaves the transaction's batch as it was (so do
 * pinrocks_transaction_write_op's). */
int pinrocks_transaction_put(rocksdb_transaction_t* txn, const char* key, size_t keylen,
                             const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT;
int pinrocks_transaction_put_cf(rocksdb_transaction_t* txn,
                                rocksdb_column_family_handle_t* column_family, const char* key,
                                size_t keylen, const char* value, size_t valuelen,
                                char** errptr) PINROCKS_NOEXCEPT;
#define PINROCKS_TXN_PREPARE 0
#define PINROCKS_TXN_COMMIT 1
#define PINROCKS_TXN_ROLLBACK 2
/* Prepare, Commit or Rollback (each may copy or re-index the whole batch), ending the process
 * if RocksDB throws (it may be inside the write queue: pinrocks.h rule 5). With
 * `free_rows_of` (the pessimistic transaction database of `txn`; NULL otherwise), a commit or
 * rollback then frees each row the transaction locked, one by one: RocksDB's own unlock stops
 * at the first family dropped since (rocksdb-c/transactions.cc). */
void pinrocks_transaction_end(rocksdb_transaction_t* txn, int op,
                              rocksdb_transactiondb_t* free_rows_of, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT;
/* rocksdb_transaction_destroy, having freed each row first with `free_rows_of` (as above). */
void pinrocks_transaction_destroy(rocksdb_transaction_t* txn,
                                  rocksdb_transactiondb_t* free_rows_of) PINROCKS_NOEXCEPT;
/* Frees the C API wrapper of a transaction without the transaction in it (one that
 * rocksdb_transactiondb_get_prepared_transactions listed and RocksDB still owns). */
void pinrocks_transaction_forget(rocksdb_transaction_t* txn) PINROCKS_NOEXCEPT;
/* The transaction's write batch (its writes, and markers once prepared), borrowed: for
 * pinrocks_writebatch_iterate, while nothing else uses the transaction. */
const pinrocks_batch* pinrocks_transaction_write_batch(rocksdb_transaction_t* txn)
    PINROCKS_NOEXCEPT;
/* Transaction::SetSnapshot: a new snapshot for the transaction, now. */
void pinrocks_transaction_set_snapshot(rocksdb_transaction_t* txn, int* status_code,
                                       char** errptr) PINROCKS_NOEXCEPT;
/* Sets the read options' snapshot to the transaction's (Transaction::GetSnapshot; none: the
 * latest). The transaction owns it: the options must not be used once it is replaced
 * (SetSnapshot, RollbackToSavePoint) or the transaction is gone. */
void pinrocks_transaction_snapshot_into(rocksdb_transaction_t* txn,
                                        rocksdb_readoptions_t* options) PINROCKS_NOEXCEPT;

/* Transaction::GetName copied into `out` (at most `capacity` bytes), guarded (it copies a
 * string); returns its whole length ("" if unnamed). */
size_t pinrocks_transaction_copy_name(rocksdb_transaction_t* txn, char* out, size_t capacity,
                                      int* status_code, char** errptr) PINROCKS_NOEXCEPT;

/* Savepoints of a transaction and of an indexed batch (pinrocks_wbwi_savepoint): set one,
 * roll back to the last (and forget it), or forget the last keeping the writes since. */
#define PINROCKS_SAVEPOINT_SET 0
#define PINROCKS_SAVEPOINT_ROLLBACK \
  1 /* an indexed batch's rebuilds its index: no iterator may be live */
#define PINROCKS_SAVEPOINT_POP 2
/* Transaction::SetSavePoint, RollbackToSavePoint or PopSavePoint (`op` a PINROCKS_SAVEPOINT_*),
 * guarded (setting one allocates). With `free_rows_of` (as for pinrocks_transaction_end), a
 * rollback then frees each row it no longer tracks. */
void pinrocks_transaction_savepoint(rocksdb_transaction_t* txn, int op,
                                    rocksdb_transactiondb_t* free_rows_of, int* status_code,
                                    char** errptr) PINROCKS_NOEXCEPT;

/* ---- Write batches with an index (rocksdb-c/indexed_batch.cc) ---- */

/* A new WriteBatchWithIndex (free with rocksdb_writebatch_wi_destroy) ordered by `db`'s
 * default column family comparator, one entry per key (overwrite_key). `db` must outlive it,
 * and so must the comparator of every column family written to it. NULL on failure. */
rocksdb_writebatch_wi_t* pinrocks_wbwi_create(rocksdb_t* db, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT;
/* Put, Delete, SingleDelete, Merge or PutLogData (op: PINROCKS_RECORD_PUT, _DELETE,
 * _SINGLE_DELETE, _MERGE, _LOG_DATA with `key` the blob; PutEntity: _PUT_COLUMNS; `value`
 * unused but for put, merge and columns)
 * into a column family (never NULL), reporting the Status the C API drops. */
void pinrocks_wbwi_write(rocksdb_writebatch_wi_t* batch,
                         rocksdb_column_family_handle_t* column_family, int op, const char* key,
                         size_t keylen, const char* value, size_t valuelen, int* status_code,
                         char** errptr) PINROCKS_NOEXCEPT;
/* A put, the common write with the fewest arguments, to the default family or to
 * `column_family` (_cf): its status code returned (0: written), its message, if any, in
 * `errptr`. A put that throws leaves the batch as it was (so do pinrocks_wbwi_write's). */
int pinrocks_wbwi_put(rocksdb_writebatch_wi_t* batch, const char* key, size_t keylen,
                      const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT;
int pinrocks_wbwi_put_cf(rocksdb_writebatch_wi_t* batch,
                         rocksdb_column_family_handle_t* column_family, const char* key,
                         size_t keylen, const char* value, size_t valuelen,
                         char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_wbwi_savepoint(rocksdb_writebatch_wi_t* batch, int op, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT;
/* The batch's WriteBatch, borrowed (to write, count or iterate its records). */
pinrocks_batch* pinrocks_wbwi_batch(rocksdb_writebatch_wi_t* batch) PINROCKS_NOEXCEPT;

/* ---- Wide-column entities, beyond their reads (rocksdb-c/entities.cc) ---- */

/* The entity's columns (RocksDB's array), valid until it is destroyed. */
void pinrocks_entity_columns(const pinrocks_entity_t* entity, const pinrocks_column** columns,
                             size_t* count) PINROCKS_NOEXCEPT;
void pinrocks_entity_destroy(pinrocks_entity_t* entity) PINROCKS_NOEXCEPT;

/* The columns of a valid iterator's current entry (Iterator::columns), valid until it moves. */
void pinrocks_iter_columns(const rocksdb_iterator_t* iter, const pinrocks_column** columns,
                           size_t* count) PINROCKS_NOEXCEPT;

/* ---- User-defined timestamps (rocksdb-c/timestamps.cc) ----
 * A timestamp is the bytes a family's comparator appends to each key (eight, little-endian,
 * for RocksDB's built-in u64 one); `ts`/`tslen` is one, borrowed for the call. */

/* Orders the family's keys by RocksDB's BytewiseComparatorWithU64Ts (a static object). */
void pinrocks_options_set_u64_timestamps(rocksdb_options_t* options) PINROCKS_NOEXCEPT;
/* The timestamp size of the options' comparator: 0 for one without timestamps. */
size_t pinrocks_options_timestamp_size(const rocksdb_options_t* options) PINROCKS_NOEXCEPT;
/* The timestamp size of the family's comparator: 0 for a family without timestamps. */
size_t pinrocks_cf_timestamp_size(rocksdb_column_family_handle_t* column_family) PINROCKS_NOEXCEPT;
/* As pinrocks_read_pinned from the database, and the value's timestamp: when found, its length is
 * stored in
 * `*ts_len` and up to `ts_capacity` of its bytes in `ts_out`, before `fn` is called. */
unsigned char pinrocks_get_pinned_ts(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                     rocksdb_column_family_handle_t* column_family, const char* key,
                                     size_t keylen, char* ts_out, size_t ts_capacity,
                                     size_t* ts_len, pinrocks_value_fn fn, void* ctx,
                                     int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* An iterator that is never valid and reports no error (for a read pinrocks refused). */
rocksdb_iterator_t* pinrocks_empty_iterator(int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* DB::IncreaseFullHistoryTsLow and DB::GetFullHistoryTsLow (its length returned, up to
 * `ts_capacity` bytes stored; 0: never set). */
void pinrocks_increase_full_history_ts_low(rocksdb_t* db,
                                           rocksdb_column_family_handle_t* column_family,
                                           const char* ts, size_t tslen, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT;
size_t pinrocks_get_full_history_ts_low(rocksdb_t* db,
                                        rocksdb_column_family_handle_t* column_family, char* ts_out,
                                        size_t ts_capacity, int* status_code,
                                        char** errptr) PINROCKS_NOEXCEPT;

/* ---- A file system for tests (rocksdb-c/fault_fs.cc, feature `fault-injection` only) ----
 * RocksDB's FaultInjectionTestFS over the default file system, and the Env over it that a
 * database opens on. Declared always; defined only with the feature. */
typedef struct pinrocks_fault_fs_t pinrocks_fault_fs_t;
/* What injected errors hit (FaultInjectionIOType). */
#define PINROCKS_FAULT_READ 0
#define PINROCKS_FAULT_WRITE 1
#define PINROCKS_FAULT_METADATA_READ 2
#define PINROCKS_FAULT_METADATA_WRITE 3
/* What every operation fails with while the file system is stopped. */
#define PINROCKS_FAULT_STOP_POWER_LOSS 0
#define PINROCKS_FAULT_STOP_IO_ERROR 1
#define PINROCKS_FAULT_STOP_NO_SPACE 2

/* Over the default file system, or (in_memory) over a new MockFileSystem of its own. */
pinrocks_fault_fs_t* pinrocks_fault_fs_create(unsigned char in_memory, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT;
void pinrocks_fault_fs_destroy(pinrocks_fault_fs_t* fs) PINROCKS_NOEXCEPT;
/* RocksDB's sleeps through the Env's clock (1 s after a failed flush or compaction) last at
 * most `max_micros` from now on (clamped to 0..=INT32_MAX; INT32_MAX: as long as asked). */
void pinrocks_fault_fs_cap_sleeps(pinrocks_fault_fs_t* fs, int64_t max_micros) PINROCKS_NOEXCEPT;
/* Points the options' env at the file system's (which must outlive every database on it), and
 * adds the listener that arms background injection on flush and compaction threads. */
void pinrocks_options_set_fault_fs(rocksdb_options_t* options, pinrocks_fault_fs_t* fs,
                                   int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* SetFilesystemActive(false, error): every file operation fails from now on. */
void pinrocks_fault_fs_stop(pinrocks_fault_fs_t* fs, int error, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT;
/* What a restart drops of unsynced file data (and with it, the files created since their
 * directory's last sync): nothing, all of it, or a random part (seeded) of each file's. */
#define PINROCKS_FAULT_KEEP_UNSYNCED 0
#define PINROCKS_FAULT_DROP_UNSYNCED 1
#define PINROCKS_FAULT_DROP_RANDOM_UNSYNCED 2
/* Runs again (this thread's injected errors off), having dropped what `drop` says. */
void pinrocks_fault_fs_restart(pinrocks_fault_fs_t* fs, int drop, unsigned int seed,
                               int* status_code, char** errptr) PINROCKS_NOEXCEPT;
/* Injects IOErrors into one in `one_in` of the calling thread's operations of `kind` (0: stops). */
void pinrocks_fault_fs_inject(pinrocks_fault_fs_t* fs, int kind, unsigned int seed, int one_in,
                              unsigned char retryable, unsigned char data_loss, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT;
/* Injects IOErrors into one in `one_in` of the operations of `kind` of each flush and
 * subcompaction that begins from now on (0: stops); `kind` is a PINROCKS_FAULT_* of 0..=3. */
void pinrocks_fault_fs_inject_background(pinrocks_fault_fs_t* fs, int kind, unsigned int seed,
                                         int one_in, unsigned char retryable,
                                         unsigned char data_loss) PINROCKS_NOEXCEPT;
/* The errors of `kind` injected into flushes and compactions since the last call. */
int pinrocks_fault_fs_background_injected(pinrocks_fault_fs_t* fs, int kind) PINROCKS_NOEXCEPT;
/* The errors of `kind` injected into this thread's operations since the last call. */
int pinrocks_fault_fs_injected(pinrocks_fault_fs_t* fs, int kind) PINROCKS_NOEXCEPT;

/* Guarded replacements for C API calls that copy user-sized data without a try/catch
 * (rocksdb-c/guarded_calls.cc). */
#include "guarded_calls.h"

#ifdef __cplusplus
}
#endif

#endif
