#include "CheckpointClaim.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <new>

namespace ctrl::agent {

namespace {
std::atomic<int32_t>* claim = nullptr;
bool forked = false;
}  // namespace

void note_forked_child() { forked = true; }
bool forked_child() { return forked; }

bool prepare_checkpoint_claim() {
  if (claim) return true;
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  claim = new (p) std::atomic<int32_t>(0);
  return true;
}

bool claim_checkpoint() {
  if (!claim) return true;
  int32_t none = 0;
  return claim->compare_exchange_strong(none, int32_t(getpid())) || none == int32_t(getpid());
}

}  // namespace ctrl::agent
