#include "HookStack.h"

#include <sys/mman.h>

#include "SharedRegion.h"

namespace ctrl::agent {

thread_local uint64_t t_hook_stack_top = 0;

namespace {
uint8_t* hook_stacks = nullptr;
}

void reserve_hook_stacks() {
  if (hook_stacks) return;
  void* p = mmap(nullptr, kHookStackSize * shm::kMaxThreads, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) hook_stacks = static_cast<uint8_t*>(p);
}

void take_hook_stack(uint32_t index) {
  if (!hook_stacks || index >= shm::kMaxThreads) return;
  t_hook_stack_top = reinterpret_cast<uint64_t>(hook_stacks + (uint64_t(index) + 1) * kHookStackSize);
}

MemoryRange hook_stacks_memory() {
  if (!hook_stacks) return MemoryRange{0, 0};
  uint64_t start = reinterpret_cast<uint64_t>(hook_stacks);
  return MemoryRange{start, start + kHookStackSize * shm::kMaxThreads};
}

int32_t hook_stack_tls_offset() {
  uint64_t tp;  // glibc's thread control block starts with a pointer to itself
  asm("mov %%fs:0, %0" : "=r"(tp));
  return int32_t(int64_t(reinterpret_cast<uint64_t>(&t_hook_stack_top) - tp));
}

}  // namespace ctrl::agent
