#include "ThreadLocalStorage.h"

#include <link.h>

#include <atomic>

namespace ctrl::agent {

namespace {

uint64_t thread_pointer() {
  uint64_t tp;
  asm("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

// How far below the thread pointer the lowest static block starts (0: no
// module has TLS). The same in every thread; computed once.
std::atomic<uint64_t> below_tp{UINT64_MAX};

int visit(struct dl_phdr_info* info, size_t, void* data) {
  auto* lowest = static_cast<uint64_t*>(data);
  auto block = reinterpret_cast<uint64_t>(info->dlpi_tls_data);
  uint64_t tp = thread_pointer();
  // A module's block is static when it lies below the thread pointer; a
  // dynamic block (allocated already) is elsewhere, in the heap.
  if (block == 0 || block >= tp) return 0;
  for (int k = 0; k < info->dlpi_phnum; k++)
    if (info->dlpi_phdr[k].p_type == PT_TLS && block + info->dlpi_phdr[k].p_memsz <= tp && tp - block < (1u << 24) &&
        tp - block > *lowest)
      *lowest = tp - block;
  return 0;
}

}  // namespace

TlsSpan own_static_tls() {
  uint64_t below = below_tp.load(std::memory_order_relaxed);
  if (below == UINT64_MAX) {
    below = 0;
    dl_iterate_phdr(visit, &below);
    below_tp.store(below, std::memory_order_relaxed);
  }
  uint64_t tp = thread_pointer();
  return {tp - below, tp};
}

}  // namespace ctrl::agent
