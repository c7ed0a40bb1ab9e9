/* Test-only probes of rocksdb-c/layout.h: each reads, through one of layout.h's accessors,
 * something that a test sets through RocksDB's public C API, so that src/raw/layout_tests.rs
 * can compare the two (a RocksDB whose db/c.cc structs no longer match layout.h's mirrors fails
 * there, loudly). Compiled for the tests alone (rocksdb-c-dev/, a dev-dependency: not in a
 * user's build) and not included from pinrocks.h: bindgen does not see these, and
 * src/raw/layout_tests.rs declares them itself.
 * Plain C. None of them can throw or fail, except as each says.
 *
 * Buffer contract of the probes that copy a name or value: copied into buf (truncated to
 * buflen, not NUL-terminated), and the full length returned.
 *
 * Each accessor of layout.h and its probe (production functions that already read or write
 * through an accessor are listed as probes too):
 *   db_of                         pinrocks_db_name
 *   db_of (written)               pinrocks_transactiondb_as_db and
 *                                 pinrocks_optimistictransactiondb_as_db (pinrocks.h), checked
 *                                 by pinrocks_db_is_transactiondb and
 *                                 pinrocks_db_is_optimistictransactiondb
 *   transaction_db_of             pinrocks_transactiondb_name, pinrocks_db_is_transactiondb
 *   optimistic_transaction_db_of  pinrocks_optimistictransactiondb_name,
 *                                 pinrocks_db_is_optimistictransactiondb
 *   options_of                    pinrocks_options_write_buffer_size (ColumnFamilyOptions),
 *                                 pinrocks_options_max_open_files (DBOptions),
 *                                 pinrocks_options_comparator_name and
 *                                 pinrocks_statistics_of_options (pinrocks.h)
 *   cache_of                      pinrocks_cache_capacity; written by pinrocks_cache_create_lru
 *   read_options_of               pinrocks_readoptions_fill_cache,
 *                                 pinrocks_readoptions_verify_checksums,
 *                                 pinrocks_readoptions_borrowed_count; written by
 *                                 pinrocks_readoptions_copy (pinrocks.h)
 *   write_options_of              pinrocks_writeoptions_sync, pinrocks_writeoptions_disable_wal
 *   handle_of                     pinrocks_column_family_name
 *   column_family_of              pinrocks_db_column_family_name
 *   batch_of                      pinrocks_writebatch_batch (pinrocks.h), read back with
 *                                 pinrocks_writebatch_count and pinrocks_writebatch_data
 *   indexed_batch_of              pinrocks_writebatch_wi_count; written by pinrocks_wbwi_create
 *   iterator_of                   pinrocks_iter_key; written by pinrocks_read_iterator
 *   pinnable_slice_of             pinrocks_pinnableslice_value; written by pinrocks_read_handle
 *   transaction_of                pinrocks_transaction_name
 *   sst_writer_of                 pinrocks_sstfilewriter_file_size
 *   backup_engine_of              pinrocks_backup_engine_backup_count */
#ifndef PINROCKS_LAYOUT_PROBES_H
#define PINROCKS_LAYOUT_PROBES_H

#include <stddef.h>
#include <stdint.h>

#include "pinrocks.h"
#include "rocksdb/c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rocksdb_t: the path RocksDB was opened at, as the C++ DB object reports it. */
size_t pinrocks_db_name(rocksdb_t* db, char* buf, size_t buflen) PINROCKS_NOEXCEPT;
/* 1 if `db`'s DB is the transaction database itself (as pinrocks_transactiondb_as_db makes
 * it), 0 if it is another (its base database, as rocksdb_transactiondb_get_base_db makes it). */
unsigned char pinrocks_db_is_transactiondb(rocksdb_t* db,
                                           rocksdb_transactiondb_t* txn_db) PINROCKS_NOEXCEPT;
unsigned char pinrocks_db_is_optimistictransactiondb(
    rocksdb_t* db, rocksdb_optimistictransactiondb_t* txn_db) PINROCKS_NOEXCEPT;

/* rocksdb_transactiondb_t, rocksdb_optimistictransactiondb_t: the path each was opened at. */
size_t pinrocks_transactiondb_name(rocksdb_transactiondb_t* txn_db, char* buf,
                                   size_t buflen) PINROCKS_NOEXCEPT;
size_t pinrocks_optimistictransactiondb_name(rocksdb_optimistictransactiondb_t* txn_db, char* buf,
                                             size_t buflen) PINROCKS_NOEXCEPT;

/* rocksdb_options_t: a ColumnFamilyOptions field and a DBOptions field of `rep`. */
size_t pinrocks_options_write_buffer_size(const rocksdb_options_t* options) PINROCKS_NOEXCEPT;
int pinrocks_options_max_open_files(const rocksdb_options_t* options) PINROCKS_NOEXCEPT;

/* rocksdb_cache_t: Cache::GetCapacity. */
size_t pinrocks_cache_capacity(const rocksdb_cache_t* cache) PINROCKS_NOEXCEPT;

/* rocksdb_readoptions_t. */
unsigned char pinrocks_readoptions_fill_cache(const rocksdb_readoptions_t* options)
    PINROCKS_NOEXCEPT;
unsigned char pinrocks_readoptions_verify_checksums(const rocksdb_readoptions_t* options)
    PINROCKS_NOEXCEPT;
/* How many of the request id, table filter and table index factory are set, each pointing
 * into the handle (the wrapper) that set it: a copy must have none. */
unsigned int pinrocks_readoptions_borrowed_count(const rocksdb_readoptions_t* options)
    PINROCKS_NOEXCEPT;

/* rocksdb_writeoptions_t. */
unsigned char pinrocks_writeoptions_sync(const rocksdb_writeoptions_t* options) PINROCKS_NOEXCEPT;
unsigned char pinrocks_writeoptions_disable_wal(const rocksdb_writeoptions_t* options)
    PINROCKS_NOEXCEPT;

/* rocksdb_column_family_handle_t: the column family's name. */
size_t pinrocks_column_family_name(rocksdb_column_family_handle_t* column_family, char* buf,
                                   size_t buflen) PINROCKS_NOEXCEPT;
/* The same through column_family_of: NULL names the database's default column family. */
size_t pinrocks_db_column_family_name(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                      char* buf, size_t buflen) PINROCKS_NOEXCEPT;

/* rocksdb_writebatch_wi_t: the number of entries in its WriteBatch. */
unsigned int pinrocks_writebatch_wi_count(rocksdb_writebatch_wi_t* batch) PINROCKS_NOEXCEPT;

/* rocksdb_iterator_t: the key it is at; SIZE_MAX (nothing copied) if it is not valid. */
size_t pinrocks_iter_key(const rocksdb_iterator_t* iter, char* buf,
                         size_t buflen) PINROCKS_NOEXCEPT;

/* rocksdb_pinnableslice_t: the value held. */
size_t pinrocks_pinnableslice_value(const rocksdb_pinnableslice_t* value, char* buf,
                                    size_t buflen) PINROCKS_NOEXCEPT;

/* rocksdb_transaction_t: Transaction::GetName; SIZE_MAX if copying the name failed. */
size_t pinrocks_transaction_name(rocksdb_transaction_t* txn, char* buf,
                                 size_t buflen) PINROCKS_NOEXCEPT;

/* rocksdb_sstfilewriter_t: SstFileWriter::FileSize. */
uint64_t pinrocks_sstfilewriter_file_size(rocksdb_sstfilewriter_t* writer) PINROCKS_NOEXCEPT;

/* rocksdb_backup_engine_t: how many backups BackupEngine::GetBackupInfo lists; SIZE_MAX if
 * listing them failed. */
size_t pinrocks_backup_engine_backup_count(rocksdb_backup_engine_t* backup_engine)
    PINROCKS_NOEXCEPT;

/* Not a probe: sets the count in a batch's header (WriteBatchInternal::SetCount), so that a
 * test reaches a full count (2147483647 records) without writing them. The batch's records
 * no longer match it: the test sets it back before the batch is written or dropped. */
void pinrocks_batch_set_count(pinrocks_batch* batch, uint32_t count) PINROCKS_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
