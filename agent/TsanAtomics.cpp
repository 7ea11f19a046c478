#include "TsanAtomics.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "AtomicOperations.h"
#include "ImportSlots.h"
#include "Runtime.h"
#include "SanitizerRuntime.h"

using namespace ctrl;
using namespace ctrl::agent;

using u128 = unsigned __int128;

#define SITE() CTRL_CALLER_SITE()

namespace {

// TSan's functions, by width (its a8..a128 are char, short, int, long and
// __int128: the same registers as these unsigned types).
AtomicAccess<uint8_t> tsan8;
AtomicAccess<uint16_t> tsan16;
AtomicAccess<uint32_t> tsan32;
AtomicAccess<uint64_t> tsan64;
AtomicAccess<u128> tsan128;
void (*tsan_thread_fence)(int);
void (*tsan_signal_fence)(int);

}  // namespace

// The wrappers: hidden entry points (a stub each, which records the
// caller's state for spin detection) named ctrl_tsan<TSan's name>.
#define CTRL_TSAN_IMPL(ret, name, params)                                             \
  extern "C" ret ctrl_tsan_##name params __asm__("ctrl_impl_ctrl_tsan___tsan_" #name) \
      __attribute__((visibility("hidden")))

#define CTRL_TSAN_RMW(N, T, op, Op)                                    \
  CTRL_TSAN_IMPL(T, atomic##N##_##op, (T * p, T v, int o));            \
  T ctrl_tsan_atomic##N##_##op(T* p, T v, int o) {                     \
    return atomic_rmw<T>(p, v, RmwOp::Op, o, SITE(), false, &tsan##N); \
  }                                                                    \
  CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic" #N "_" #op)

#define CTRL_TSAN_WIDTH(N, T)                                                                        \
  CTRL_TSAN_IMPL(T, atomic##N##_load, (T * p, int o));                                               \
  T ctrl_tsan_atomic##N##_load(T* p, int o) { return atomic_load<T>(p, o, SITE(), &tsan##N); }       \
  CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic" #N "_load")                                        \
  CTRL_TSAN_IMPL(void, atomic##N##_store, (T * p, T v, int o));                                      \
  void ctrl_tsan_atomic##N##_store(T* p, T v, int o) { atomic_store<T>(p, v, o, SITE(), &tsan##N); } \
  CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic" #N "_store")                                       \
  CTRL_TSAN_RMW(N, T, exchange, Xchg)                                                                \
  CTRL_TSAN_RMW(N, T, fetch_add, Add)                                                                \
  CTRL_TSAN_RMW(N, T, fetch_sub, Sub)                                                                \
  CTRL_TSAN_RMW(N, T, fetch_and, And)                                                                \
  CTRL_TSAN_RMW(N, T, fetch_or, Or)                                                                  \
  CTRL_TSAN_RMW(N, T, fetch_xor, Xor)                                                                \
  CTRL_TSAN_RMW(N, T, fetch_nand, Nand)                                                              \
  CTRL_TSAN_IMPL(int, atomic##N##_compare_exchange_strong, (T * p, T * e, T d, int s, int f));       \
  int ctrl_tsan_atomic##N##_compare_exchange_strong(T* p, T* e, T d, int s, int f) {                 \
    return atomic_cas<T>(p, e, d, s, f, SITE(), &tsan##N);                                           \
  }                                                                                                  \
  CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic" #N "_compare_exchange_strong")                     \
  CTRL_TSAN_IMPL(int, atomic##N##_compare_exchange_weak, (T * p, T * e, T d, int s, int f));         \
  int ctrl_tsan_atomic##N##_compare_exchange_weak(T* p, T* e, T d, int s, int f) {                   \
    return atomic_cas<T>(p, e, d, s, f, SITE(), &tsan##N);                                           \
  }                                                                                                  \
  CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic" #N "_compare_exchange_weak")                       \
  CTRL_TSAN_IMPL(T, atomic##N##_compare_exchange_val, (T * p, T e, T d, int s, int f));              \
  T ctrl_tsan_atomic##N##_compare_exchange_val(T* p, T e, T d, int s, int f) {                       \
    atomic_cas<T>(p, &e, d, s, f, SITE(), &tsan##N);                                                 \
    return e; /* what memory held, on success as on failure */                                       \
  }                                                                                                  \
  CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic" #N "_compare_exchange_val")

CTRL_TSAN_WIDTH(8, uint8_t)
CTRL_TSAN_WIDTH(16, uint16_t)
CTRL_TSAN_WIDTH(32, uint32_t)
CTRL_TSAN_WIDTH(64, uint64_t)
CTRL_TSAN_WIDTH(128, u128)

CTRL_TSAN_IMPL(void, atomic_thread_fence, (int o));
void ctrl_tsan_atomic_thread_fence(int o) { atomic_fence(o, SITE(), tsan_thread_fence); }
CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic_thread_fence")
CTRL_TSAN_IMPL(void, atomic_signal_fence, (int o));
void ctrl_tsan_atomic_signal_fence(int o) { tsan_signal_fence(o); }
CTRL_HIDDEN_CALL_STUB("ctrl_tsan___tsan_atomic_signal_fence")

namespace {

// A wrapper and the TSan function it needs (null: only its width's).
struct Wrapper {
  const char* name;  // TSan's
  const void* entry;
  void** real;
  unsigned width;  // 0: a fence
};

// Whether every operation of a width was found in TSan's runtime (each
// wrapper may perform its operation through any of them under c11/rc11).
bool width_complete[5];

unsigned width_index(unsigned width) {
  switch (width) {
    case 8:
      return 0;
    case 16:
      return 1;
    case 32:
      return 2;
    case 64:
      return 3;
    default:
      return 4;
  }
}

#define CTRL_TSAN_ENTRY(N, op, member)                                                          \
  extern "C" char ctrl_tsan___tsan_atomic##N##_##op[] __attribute__((visibility("hidden")));    \
  const Wrapper entry_##N##_##op{"__tsan_atomic" #N "_" #op, ctrl_tsan___tsan_atomic##N##_##op, \
                                 reinterpret_cast<void**>(member), N};
#define CTRL_TSAN_ENTRIES(N)                                              \
  CTRL_TSAN_ENTRY(N, load, &tsan##N.load)                                 \
  CTRL_TSAN_ENTRY(N, store, &tsan##N.store)                               \
  CTRL_TSAN_ENTRY(N, exchange, &tsan##N.rmw[size_t(RmwOp::Xchg)])         \
  CTRL_TSAN_ENTRY(N, fetch_add, &tsan##N.rmw[size_t(RmwOp::Add)])         \
  CTRL_TSAN_ENTRY(N, fetch_sub, &tsan##N.rmw[size_t(RmwOp::Sub)])         \
  CTRL_TSAN_ENTRY(N, fetch_and, &tsan##N.rmw[size_t(RmwOp::And)])         \
  CTRL_TSAN_ENTRY(N, fetch_or, &tsan##N.rmw[size_t(RmwOp::Or)])           \
  CTRL_TSAN_ENTRY(N, fetch_xor, &tsan##N.rmw[size_t(RmwOp::Xor)])         \
  CTRL_TSAN_ENTRY(N, fetch_nand, &tsan##N.rmw[size_t(RmwOp::Nand)])       \
  CTRL_TSAN_ENTRY(N, compare_exchange_strong, &tsan##N.cas)               \
  CTRL_TSAN_ENTRY(N, compare_exchange_weak, static_cast<void**>(nullptr)) \
  CTRL_TSAN_ENTRY(N, compare_exchange_val, static_cast<void**>(nullptr))
CTRL_TSAN_ENTRIES(8)
CTRL_TSAN_ENTRIES(16)
CTRL_TSAN_ENTRIES(32)
CTRL_TSAN_ENTRIES(64)
CTRL_TSAN_ENTRIES(128)
extern "C" char ctrl_tsan___tsan_atomic_thread_fence[] __attribute__((visibility("hidden")));
extern "C" char ctrl_tsan___tsan_atomic_signal_fence[] __attribute__((visibility("hidden")));
const Wrapper entry_thread_fence{"__tsan_atomic_thread_fence", ctrl_tsan___tsan_atomic_thread_fence,
                                 reinterpret_cast<void**>(&tsan_thread_fence), 0};
const Wrapper entry_signal_fence{"__tsan_atomic_signal_fence", ctrl_tsan___tsan_atomic_signal_fence,
                                 reinterpret_cast<void**>(&tsan_signal_fence), 0};

#define CTRL_TSAN_LIST(N)                                                                                       \
  &entry_##N##_load, &entry_##N##_store, &entry_##N##_exchange, &entry_##N##_fetch_add, &entry_##N##_fetch_sub, \
      &entry_##N##_fetch_and, &entry_##N##_fetch_or, &entry_##N##_fetch_xor, &entry_##N##_fetch_nand,           \
      &entry_##N##_compare_exchange_strong, &entry_##N##_compare_exchange_weak, &entry_##N##_compare_exchange_val
const Wrapper* const wrappers[] = {CTRL_TSAN_LIST(8),   CTRL_TSAN_LIST(16),  CTRL_TSAN_LIST(32), CTRL_TSAN_LIST(64),
                                   CTRL_TSAN_LIST(128), &entry_thread_fence, &entry_signal_fence};

void* replacement(const char* name) {
  for (const Wrapper* w : wrappers)
    if (strcmp(w->name, name) == 0) {
      if (w->width ? !width_complete[width_index(w->width)] : !*w->real) return nullptr;
      return const_cast<void*>(w->entry);
    }
  return nullptr;
}

bool skip(const char* path, const void* base) {
  // The agent (its own code never calls TSan's atomics) and the runtimes.
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void*>(&replacement), &self) && self.dli_fbase == base) return true;
  return sanitizer::runtime_library(path);
}

}  // namespace

namespace ctrl::agent::tsan_atomics {

const char* bind() {
  if (!dlsym(RTLD_DEFAULT, "__tsan_init")) return nullptr;
  // TSan's runtime comes first in the lookup order: the default scope finds
  // its definitions (not the program's import slots, which are rebound).
  for (bool& complete : width_complete) complete = true;
  for (const Wrapper* w : wrappers) {
    if (!w->real) continue;
    void* fn = dlsym(RTLD_DEFAULT, w->name);
    memcpy(w->real, &fn, sizeof fn);
    if (!fn && w->width) width_complete[width_index(w->width)] = false;
  }
  static char message[160];
  if (const char* missing = import_slots::rebind("__tsan_atomic", skip, replacement)) {
    snprintf(message, sizeof message,
             "ThreadSanitizer's %s is not followed by ctrl (a TSan runtime newer than ctrl, or one without it)",
             missing);
    return message;
  }
  return nullptr;
}

}  // namespace ctrl::agent::tsan_atomics
