#include "InitialisedMemory.h"

#include <cstddef>

#include "Runtime.h"

extern "C" void* __libc_calloc(size_t n, size_t size);

namespace ctrl::agent {

void note_initialised(uint64_t addr, uint64_t size) {
  shm::Header* h = rt.region.header;
  if (!h) return;
  if (h->ninitialised >= shm::kMaxInitialised) {
    h->initialised_overflow = 1;
    return;
  }
  h->initialised[h->ninitialised++] = {addr, size};
}

}  // namespace ctrl::agent

using namespace ctrl::agent;

// calloc's zeroes are the program's initialisation, made by libc code ctrl
// does not see. __libc_calloc: dlsym itself may call calloc.
extern "C" void* calloc(size_t n, size_t size) {
  void* p = __libc_calloc(n, size);
  if (p && rt.enabled && !rt.checkpointed && rt.region.header)
    note_initialised(reinterpret_cast<uint64_t>(p), uint64_t(n) * size);
  return p;
}
