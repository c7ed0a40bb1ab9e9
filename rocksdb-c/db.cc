// Database administration beyond RocksDB's C API: DB::Close, CompactRange with its options,
// CompactFiles, Flush of several families, background work control and Resume, DestroyDB and
// RepairDB, each reporting its Status (which the C API drops or lets an exception past).
#include "rocksdb/db.h"

#include <cstring>
#include <string>
#include <vector>

#include "guarded.h"
#include "layout.h"
#include "out_of_memory.h"
#include "pinrocks.h"
#include "rocksdb/convenience.h"
#include "rocksdb/metadata.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "space_recovery.h"

#define PINROCKS_SAME_BOTTOMMOST(ours, theirs)                                        \
  static_assert(ours == static_cast<int>(rocksdb::BottommostLevelCompaction::theirs), \
                #ours " is not rocksdb::BottommostLevelCompaction::" #theirs)
PINROCKS_SAME_BOTTOMMOST(PINROCKS_BOTTOMMOST_SKIP, kSkip);
PINROCKS_SAME_BOTTOMMOST(PINROCKS_BOTTOMMOST_IF_HAVE_COMPACTION_FILTER, kIfHaveCompactionFilter);
PINROCKS_SAME_BOTTOMMOST(PINROCKS_BOTTOMMOST_FORCE, kForce);
PINROCKS_SAME_BOTTOMMOST(PINROCKS_BOTTOMMOST_FORCE_OPTIMIZED, kForceOptimized);
#undef PINROCKS_SAME_BOTTOMMOST

#define PINROCKS_SAME_BLOB_GC(ours, theirs)                                             \
  static_assert(ours == static_cast<int>(rocksdb::BlobGarbageCollectionPolicy::theirs), \
                #ours " is not rocksdb::BlobGarbageCollectionPolicy::" #theirs)
PINROCKS_SAME_BLOB_GC(PINROCKS_BLOB_GC_FORCE, kForce);
PINROCKS_SAME_BLOB_GC(PINROCKS_BLOB_GC_DISABLE, kDisable);
PINROCKS_SAME_BLOB_GC(PINROCKS_BLOB_GC_USE_DEFAULT, kUseDefault);
#undef PINROCKS_SAME_BLOB_GC

extern "C" {

void pinrocks_db_close(rocksdb_t* db, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // A close flushes what the WAL does not hold (writes without it).
    pinrocks::report(errptr, status_code, pinrocks::in_write_queue("Close", [&] {
                       return pinrocks::db_of(db)->Close();
                     }));
  });
}

void pinrocks_compact_range(rocksdb_t* db, const pinrocks_compact_options* options,
                            rocksdb_column_family_handle_t* column_family, const char* start,
                            size_t startlen, const char* limit, size_t limitlen, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Slice start_slice(start, startlen);
    rocksdb::Slice limit_slice(limit, limitlen);
    rocksdb::CompactRangeOptions o;
    if (options != nullptr) {
      o.exclusive_manual_compaction = options->exclusive != 0;
      o.change_level = options->change_level != 0;
      o.target_level = options->target_level;
      o.bottommost_level_compaction =
          static_cast<rocksdb::BottommostLevelCompaction>(options->bottommost);
      o.allow_write_stall = options->allow_write_stall != 0;
      o.max_subcompactions = options->max_subcompactions;
      o.blob_garbage_collection_policy =
          static_cast<rocksdb::BlobGarbageCollectionPolicy>(options->blob_gc_policy);
      o.blob_garbage_collection_age_cutoff = options->blob_gc_age_cutoff;
    }
    // A compaction of the range first flushes what the memtables hold of it.
    pinrocks::report(errptr, status_code, pinrocks::in_write_queue("CompactRange", [&] {
                       return pinrocks::db_of(db)->CompactRange(
                           o, pinrocks::column_family_of(db, column_family),
                           start == nullptr ? nullptr : &start_slice,
                           limit == nullptr ? nullptr : &limit_slice);
                     }));
  });
}

void pinrocks_blob_files(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                         pinrocks_blob_file_fn fn, void* ctx, int* status_code,
                         char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::ColumnFamilyMetaData meta;
    pinrocks::db_of(db)->GetColumnFamilyMetaData(pinrocks::handle_of(column_family), &meta);
    for (const rocksdb::BlobMetaData& blob : meta.blob_files) {
      const pinrocks_blob_file file{blob.blob_file_number,      blob.blob_file_name.data(),
                                    blob.blob_file_name.size(), blob.blob_file_path.data(),
                                    blob.blob_file_path.size(), blob.blob_file_size,
                                    blob.total_blob_count,      blob.total_blob_bytes,
                                    blob.garbage_blob_count,    blob.garbage_blob_bytes};
      fn(ctx, &file);
    }
  });
}

void pinrocks_compact_files(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                            size_t count, const char* const* names, int output_level,
                            pinrocks_value_fn fn, void* ctx, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    std::vector<std::string> inputs(names, names + count);
    std::vector<std::string> outputs;
    // The compaction runs on this thread with the database mutex let go of and taken again by
    // hand inside a lock guard, then LogAndApply.
    rocksdb::Status s = pinrocks::in_manifest_queue("CompactFiles", [&] {
      return pinrocks::db_of(db)->CompactFiles(rocksdb::CompactionOptions(),
                                               pinrocks::handle_of(column_family), inputs,
                                               output_level, /*output_path_id=*/-1, &outputs);
    });
    pinrocks::report(errptr, status_code, s);
    if (s.ok()) {
      for (const std::string& name : outputs) {
        fn(ctx, name.data(), name.size());
      }
    }
  });
}

void pinrocks_flush(rocksdb_t* db, size_t count, rocksdb_column_family_handle_t* const* families,
                    unsigned char wait, unsigned char allow_write_stall, int* status_code,
                    char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    handles.reserve(count);
    for (size_t i = 0; i < count; i++) {
      handles.push_back(pinrocks::handle_of(families[i]));
    }
    rocksdb::FlushOptions o;
    o.wait = wait != 0;
    // A flush that waits also waits for the listeners' OnFlushCompleted: what they do is
    // seen when it returns.
    o.listener_wait = o.wait;
    o.allow_write_stall = allow_write_stall != 0;
    pinrocks::report(errptr, status_code, pinrocks::in_write_queue("Flush", [&] {
                       return pinrocks::db_of(db)->Flush(o, handles);
                     }));
  });
}

void pinrocks_db_background(rocksdb_t* db, int op, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::DB* d = pinrocks::db_of(db);
    rocksdb::Status s;
    switch (op) {
      case PINROCKS_BG_PAUSE:
        s = d->PauseBackgroundWork();
        break;
      case PINROCKS_BG_CONTINUE:
        // It counts a flush or compaction scheduled before it schedules it.
        s = pinrocks::ending_on_out_of_memory("ContinueBackgroundWork",
                                              [&] { return d->ContinueBackgroundWork(); });
        break;
      case PINROCKS_BG_CANCEL:
      case PINROCKS_BG_CANCEL_AND_WAIT:
        // It flushes what the WAL does not hold (writes without it).
        pinrocks::in_write_queue("CancelAllBackgroundWork", [&] {
          rocksdb::CancelAllBackgroundWork(d, /*wait=*/op == PINROCKS_BG_CANCEL_AND_WAIT);
        });
        break;
      case PINROCKS_BG_DISABLE_DELETIONS:
        s = d->DisableFileDeletions();
        break;
      case PINROCKS_BG_ENABLE_DELETIONS:
        // It finds and purges obsolete files, letting go of the database mutex and taking
        // the WAL mutex by hand, the purge counted as pending until done.
        s = pinrocks::ending_on_out_of_memory("EnableFileDeletions",
                                              [&] { return d->EnableFileDeletions(); });
        break;
      case PINROCKS_BG_RESUME:
        s = pinrocks::in_write_queue("Resume", [&] { return d->Resume(); });
        break;
      case PINROCKS_BG_VERIFY_CHECKSUM:
        s = d->VerifyChecksum();
        break;
      case PINROCKS_BG_VERIFY_FILE_CHECKSUMS:
        s = d->VerifyFileChecksums(rocksdb::ReadOptions());
        break;
      case PINROCKS_BG_READY_TO_CLOSE:
        // The cancel first: a space recovery waited for next may be in the flush wait it ends.
        pinrocks::leave_space_recovery(d, pinrocks::cancel_after_failures(d));
        break;
      default:
        s = rocksdb::Status::InvalidArgument("pinrocks_db_background: unknown op");
    }
    pinrocks::report(errptr, status_code, s);
  });
}

void pinrocks_destroy_or_repair(const rocksdb_options_t* options, const char* name, int op,
                                int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    const rocksdb::Options& o = pinrocks::options_of(options);
    rocksdb::Status s;
    switch (op) {
      case PINROCKS_DESTROY_DB:
        // It locks the directory by hand and allocates before it unlocks; both take the
        // process's set of locked files by hand (env/fs_posix.cc:871-922).
        s = pinrocks::ending_on_out_of_memory("DestroyDB",
                                              [&] { return rocksdb::DestroyDB(name, o); });
        break;
      case PINROCKS_REPAIR_DB:
        s = pinrocks::ending_on_out_of_memory("RepairDB",
                                              [&] { return rocksdb::RepairDB(name, o); });
        break;
      default:
        s = rocksdb::Status::InvalidArgument("pinrocks_destroy_or_repair: unknown op");
    }
    pinrocks::report(errptr, status_code, s);
  });
}

void pinrocks_verify_sst_file(const rocksdb_options_t* options, const char* path, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::SstFileReader reader(pinrocks::options_of(options));
    rocksdb::Status s = reader.Open(path);
    if (s.ok()) {
      s = reader.VerifyChecksum(rocksdb::ReadOptions());
    }
    pinrocks::report(errptr, status_code, s);
  });
}

void pinrocks_sst_file_range_deletions(const rocksdb_options_t* options, const char* path,
                                       uint64_t* count, int* status_code,
                                       char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    *count = 0;
    rocksdb::SstFileReader reader(pinrocks::options_of(options));
    rocksdb::Status s = reader.Open(path);
    if (s.ok()) {
      const std::shared_ptr<const rocksdb::TableProperties> properties =
          reader.GetTableProperties();
      if (properties == nullptr) {
        s = rocksdb::Status::Corruption("pinrocks: an SST file without table properties");
      } else {
        *count = properties->num_range_deletions;
      }
    }
    pinrocks::report(errptr, status_code, s);
  });
}

void pinrocks_cf_range_deletions(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                 uint64_t* count, int* status_code,
                                 char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    *count = 0;
    rocksdb::TablePropertiesCollection tables;
    rocksdb::Status s =
        pinrocks::db_of(db)->GetPropertiesOfAllTables(pinrocks::handle_of(column_family), &tables);
    for (const auto& table : tables) {
      if (table.second == nullptr) {
        s = rocksdb::Status::Corruption("pinrocks: a live SST file without table properties");
        break;
      }
      *count += table.second->num_range_deletions;
    }
    pinrocks::report(errptr, status_code, s);
  });
}

unsigned char pinrocks_cf_capabilities(rocksdb_column_family_handle_t* column_family)
    PINROCKS_NOEXCEPT {
  const unsigned char unknown = PINROCKS_CF_MERGES | PINROCKS_CF_RANGE_DELETES;
  try {
    rocksdb::ColumnFamilyDescriptor descriptor;
    if (!pinrocks::handle_of(column_family)->GetDescriptor(&descriptor).ok()) {
      return unknown;  // let RocksDB decide, as before
    }
    const rocksdb::ColumnFamilyOptions& o = descriptor.options;
    unsigned char capabilities = 0;
    if (o.merge_operator != nullptr) {
      capabilities |= PINROCKS_CF_MERGES;
    }
    // PlainTableBuilder fails every flush that meets a range tombstone.
    if (o.table_factory == nullptr || std::strcmp(o.table_factory->Name(), "PlainTable") != 0) {
      capabilities |= PINROCKS_CF_RANGE_DELETES;
    }
    return capabilities;
  } catch (...) {
    return unknown;
  }
}

void pinrocks_create_column_families(rocksdb_t* db, size_t count,
                                     const rocksdb_options_t* const* options,
                                     const char* const* names,
                                     rocksdb_column_family_handle_t** handles, size_t* created,
                                     int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  *created = 0;
  std::vector<rocksdb_column_family_handle_t*> wrappers;
  pinrocks::guarded(status_code, errptr, [&] {
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    families.reserve(count);
    for (size_t i = 0; i < count; i++) {
      families.emplace_back(names[i],
                            rocksdb::ColumnFamilyOptions(pinrocks::options_of(options[i])));
    }
    // Every wrapper made before RocksDB creates anything, so that none of our allocations
    // can fail after it has (an exception inside RocksDB's own call would leak what it made).
    wrappers.reserve(count);
    for (size_t i = 0; i < count; i++) {
      wrappers.push_back(new rocksdb_column_family_handle_t{nullptr, false});
    }
    std::vector<rocksdb::ColumnFamilyHandle*> made;
    made.reserve(count);
    rocksdb::Status s = pinrocks::in_write_queue("CreateColumnFamilies", [&] {
      return pinrocks::db_of(db)->CreateColumnFamilies(families, &made);
    });
    for (size_t i = 0; i < made.size() && i < count; i++) {
      wrappers[i]->rep = made[i];
      handles[i] = wrappers[i];
      wrappers[i] = nullptr;
      *created = i + 1;
    }
    pinrocks::report(errptr, status_code, s);
  });
  for (rocksdb_column_family_handle_t* unused : wrappers) {
    delete unused;  // NULL once handed out
  }
}

}  // extern "C"
