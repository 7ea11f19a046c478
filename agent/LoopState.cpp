#include "LoopState.h"

#include <cstring>
#include <initializer_list>

namespace ctrl::agent {

namespace {

thread_local uint64_t t_stack_top __attribute__((tls_model("initial-exec"))) = 0;

// A thread's stack is far smaller than this; a larger distance means rsp is
// on another stack (sigaltstack, a coroutine's): its top is unknown.
constexpr uint64_t kMaxStack = uint64_t(1) << 30;

struct Hasher {
  uint64_t h = 0x243f6a8885a308d3ull;
  void add(uint64_t v) {
    h ^= v;
    h *= 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
};

}  // namespace

void set_stack_top(uint64_t top) { t_stack_top = top; }

uint64_t loop_state(const ucontext_t& uc, const void* xsave) {
  Hasher s;
  const greg_t* g = uc.uc_mcontext.gregs;
  for (int r : {REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RDI, REG_RSI, REG_RBP,
                REG_RBX, REG_RDX, REG_RAX, REG_RCX, REG_RSP})
    s.add(uint64_t(g[r]));
  // CF PF AF ZF SF DF OF: a conditional jump's inputs (not TF or RF, which
  // the trap itself may change).
  s.add(uint64_t(g[REG_EFL]) & 0xdd5);
  // SSE registers, when XSAVE wrote them (XSTATE_BV bit 1; in their initial
  // state they are zero and the image holds stale bytes).
  if (xsave) {
    const auto* image = static_cast<const uint8_t*>(xsave);
    uint64_t xstate_bv;
    memcpy(&xstate_bv, image + 512, 8);
    if (xstate_bv & 2) {
      for (int i = 0; i < 32; ++i) {
        uint64_t v;
        memcpy(&v, image + 160 + 8 * i, 8);
        s.add(v);
      }
    }
  }
  uint64_t rsp = uint64_t(g[REG_RSP]), top = t_stack_top;
  if (top > rsp && top - rsp < kMaxStack) {
    uint64_t end = top - rsp < kStackBytes ? top : rsp + kStackBytes;
    for (uint64_t a = rsp & ~uint64_t(7); a + 8 <= end; a += 8) {
      uint64_t v;
      memcpy(&v, reinterpret_cast<const void*>(a), 8);
      s.add(v);
    }
  }
  return s.h | 1;
}

}  // namespace ctrl::agent
