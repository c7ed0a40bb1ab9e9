// How a failed allocation ends the process inside an EndingOnOutOfMemory scope: C++'s operator
// new calls the installed new-handler when an allocation fails, before it throws
// std::bad_alloc; pinrocks installs one (at the first scope, keeping the handler it replaces)
// that ends the process when this thread is inside a scope, and otherwise does what was done
// before: calls the replaced handler, or throws std::bad_alloc as operator new does without
// one. The handler is the process's: a program that installs its own later takes the scopes'
// effect away (their calls then unwind to the entry point's catch, as before them).
#include "out_of_memory.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>

namespace {

// The call whose scope this thread is in (nullptr: none).
thread_local const char* ending_call = nullptr;

// The handler installed before pinrocks' (nullptr: none), set once before pinrocks' is.
std::new_handler replaced = nullptr;
std::once_flag installed;

void on_out_of_memory() {
  if (ending_call != nullptr) {
    std::fprintf(stderr,
                 "pinrocks: out of memory inside RocksDB's %s, which an exception would leave "
                 "broken, so the process ends\n",
                 ending_call);
    std::abort();
  }
  if (replaced != nullptr) {
    replaced();
    return;
  }
  throw std::bad_alloc();
}

}  // namespace

namespace pinrocks {

EndingOnOutOfMemory::EndingOnOutOfMemory(const char* call) noexcept : outer_(ending_call) {
  std::call_once(installed, [] {
    replaced = std::get_new_handler();
    std::set_new_handler(on_out_of_memory);
  });
  ending_call = call;
}

EndingOnOutOfMemory::~EndingOnOutOfMemory() { ending_call = outer_; }

}  // namespace pinrocks
