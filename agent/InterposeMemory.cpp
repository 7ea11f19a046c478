// The program's own changes to memory it had before its first thread that
// a rollback in place cannot see in the pages it copies back (Rollback.h):
// a protection changed by mprotect, content dropped by madvise. Either makes
// the execution's runner exit after it instead of rolling back; memory
// mapped during the execution is free to change.
#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdint>

#include "ReadOnlyMemory.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"

using namespace ctrl::agent;

namespace {

template <typename F>
F next_symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

bool in_execution() { return rt.enabled && rt.active && !t_in_agent; }

}  // namespace

extern "C" {

int mprotect(void* addr, size_t len, int prot) {
  static auto* next = next_symbol<int (*)(void*, size_t, int)>("mprotect");
  read_only_memory::note_protection_change(reinterpret_cast<uint64_t>(addr), len);
  if (in_execution())
    rollback::note_memory_change(reinterpret_cast<uint64_t>(addr), len,
                                 "the program changed the protection of memory it had before its first thread");
  return next(addr, len, prot);
}

int madvise(void* addr, size_t len, int advice) {
  static auto* next = next_symbol<int (*)(void*, size_t, int)>("madvise");
  // Hints that keep the content are harmless.
  bool drops = advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE ||
               advice == MADV_WIPEONFORK || advice == MADV_DONTFORK;
  if (drops && in_execution())
    rollback::note_memory_change(reinterpret_cast<uint64_t>(addr), len,
                                 "the program dropped the content of memory it had before its first thread");
  return next(addr, len, advice);
}

}  // extern "C"
