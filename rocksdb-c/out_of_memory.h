// Out of memory where RocksDB cannot be left by an exception (out_of_memory.cc): a scope inside
// which a failed C++ allocation ends the process where it fails, before anything unwinds.
#ifndef PINROCKS_OUT_OF_MEMORY_H
#define PINROCKS_OUT_OF_MEMORY_H

#include <utility>

namespace pinrocks {

// While one lives, on this thread, a C++ allocation that fails ends the process at once: a line
// on stderr naming `call`, then abort, as Rust ends a process whose allocation fails. For the
// RocksDB calls that an exception leaves broken in a way no catch can repair, because the
// unwinding itself breaks it further (a failed open's ~DBImpl takes the database mutex the open
// still holds, and waits on itself forever) or because what it leaves cannot be seen from
// outside (a purge counted as pending, a WAL marked as syncing, a savepoint half rolled back).
// Only allocations through operator new: other exceptions (a thread that cannot start, which
// inside an open or a purge leaves the same state) still unwind to the entry point's catch,
// and an allocation RocksDB makes with posix_memalign (cacheline_aligned_alloc) still fails as
// RocksDB handles it. Pinrocks' own C++ and the Rust callbacks RocksDB runs inside a scope
// (a WAL filter, a merge during recovery) end the process too. Nested scopes keep the
// innermost name.
class EndingOnOutOfMemory {
 public:
  explicit EndingOnOutOfMemory(const char* call) noexcept;
  ~EndingOnOutOfMemory();
  EndingOnOutOfMemory(const EndingOnOutOfMemory&) = delete;
  EndingOnOutOfMemory& operator=(const EndingOnOutOfMemory&) = delete;

 private:
  const char* outer_;
};

// `call()` inside an EndingOnOutOfMemory named `name`, returning what it returns.
template <typename Call>
auto ending_on_out_of_memory(const char* name, Call&& call) -> decltype(call()) {
  const EndingOnOutOfMemory scope(name);
  return std::forward<Call>(call)();
}

}  // namespace pinrocks

#endif  // PINROCKS_OUT_OF_MEMORY_H
