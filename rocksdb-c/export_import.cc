// A column family exported to a directory (Checkpoint::ExportColumnFamily) and a family
// created from such an export (DB::CreateColumnFamilyWithImport), through the C API's calls
// (no try/catch of their own). The export runs inside `guarded`; the import does not: a
// std::bad_alloc inside it can leave RocksDB's write queue entered, and a database that
// would deadlock later is worse than the end of the process (its noexcept ends it).
#include <cstdint>
#include <memory>

#include "guarded.h"
#include "pinrocks.h"

extern "C" {

rocksdb_export_import_files_metadata_t* pinrocks_export_column_family(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* export_dir,
    size_t* files, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_export_import_files_metadata_t* metadata = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    std::unique_ptr<rocksdb_checkpoint_t, void (*)(rocksdb_checkpoint_t*)> checkpoint(
        rocksdb_checkpoint_object_create(db, errptr), rocksdb_checkpoint_object_destroy);
    if (*errptr != nullptr) {
      return;
    }
    // The export flushes the family first.
    metadata = pinrocks::in_write_queue("ExportColumnFamily", [&] {
      return rocksdb_checkpoint_export_column_family(checkpoint.get(), column_family, export_dir,
                                                     errptr);
    });
    if (metadata != nullptr) {
      rocksdb_livefiles_t* listed = rocksdb_export_import_files_metadata_get_files(metadata);
      *files = static_cast<size_t>(rocksdb_livefiles_count(listed));
      rocksdb_livefiles_destroy(listed);
    }
  });
  if ((*errptr != nullptr || *status_code != 0) && metadata != nullptr) {
    rocksdb_export_import_files_metadata_destroy(metadata);
    metadata = nullptr;
  }
  return metadata;
}

rocksdb_column_family_handle_t* pinrocks_create_column_family_with_import(
    rocksdb_t* db, const rocksdb_options_t* column_family_options, const char* column_family_name,
    unsigned char move_files, rocksdb_export_import_files_metadata_t* metadata,
    char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_import_column_family_options_t* import = rocksdb_import_column_family_options_create();
  rocksdb_import_column_family_options_set_move_files(import, move_files);
  rocksdb_column_family_handle_t* handle = rocksdb_create_column_family_with_import(
      db, const_cast<rocksdb_options_t*>(column_family_options), column_family_name, import,
      metadata, errptr);
  rocksdb_import_column_family_options_destroy(import);
  // On failure RocksDB has dropped the family, and the C API returns NULL.
  return handle;
}

}  // extern "C"
