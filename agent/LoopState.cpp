#include "LoopState.h"

#include <cstddef>
#include <cstring>
#include <initializer_list>

#include "SiteTable.h"

namespace ctrl::agent {

namespace {

thread_local uint64_t t_stack_low __attribute__((tls_model("initial-exec"))) = 0;
thread_local uint64_t t_stack_top __attribute__((tls_model("initial-exec"))) = 0;

constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;

inline uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * kMul; }

// Four independent multiply chains, in registers: the hash is on the path of
// every read, and one chain's latency would dominate its cost.
struct Hasher {
  uint64_t h0 = 0x243f6a8885a308d3ull, h1 = 0x13198a2e03707344ull, h2 = 0xa4093822299f31d0ull,
           h3 = 0x082efa98ec4e6c89ull;
  // `words` 8-byte words at p (any alignment).
  void add_words(const uint8_t* p, size_t words) {
    const uint8_t* end = p + 8 * words;
    for (; p + 32 <= end; p += 32) {
      uint64_t v[4];
      memcpy(v, p, 32);
      h0 = mix(h0, v[0]);
      h1 = mix(h1, v[1]);
      h2 = mix(h2, v[2]);
      h3 = mix(h3, v[3]);
    }
    for (; p < end; p += 8) {
      uint64_t v;
      memcpy(&v, p, 8);
      h0 = mix(h0, v);
    }
  }
  uint64_t finish() const {
    uint64_t h = 0;
    for (uint64_t l : {h0, h1, h2, h3}) {
      h = (h ^ l) * 0xff51afd7ed558ccdull;
      h ^= h >> 33;
    }
    return h;
  }
};

// The top of the stack from rsp, within the thread's own stack.
void add_stack(Hasher& s, uint64_t rsp) {
  uint64_t top = t_stack_top;
  if (t_stack_low <= rsp && rsp < top) {
    uint64_t from = rsp & ~uint64_t(7);
    uint64_t end = top - from < kStackBytes ? top : from + kStackBytes;
    s.add_words(reinterpret_cast<const uint8_t*>(from), (end - from) / 8);
  }
}

}  // namespace

void set_stack(uint64_t low, uint64_t top) {
  t_stack_low = low;
  t_stack_top = top;
}

uint64_t loop_state(const ucontext_t& uc, const void* xsave, uint16_t dead) {
  Hasher s;
  const greg_t* g = uc.uc_mcontext.gregs;
  // REG_R8 .. REG_RCX are consecutive in gregs (sys/ucontext.h): r8-r15,
  // rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp.
  static_assert(REG_RSP - REG_R8 == 15);
  uint64_t regs[16];
  memcpy(regs, g + REG_R8, sizeof regs);
  if (dead) {
    // Site::dead bits 0..14: rax rcx rdx rbx rbp rsi rdi r8..r15.
    static constexpr int kGreg[15] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RBP, REG_RSI, REG_RDI, REG_R8,
                                      REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
    for (int b = 0; b < 15; ++b)
      if (dead >> b & 1) regs[kGreg[b] - REG_R8] = 0;
  }
  s.add_words(reinterpret_cast<const uint8_t*>(regs), 16);
  // CF PF AF ZF SF DF OF: a conditional jump's inputs (not TF or RF, which
  // the trap itself may change); DF alone when the arithmetic ones are dead.
  s.h1 = mix(s.h1, uint64_t(g[REG_EFL]) & (dead & kDeadFlags ? 0x400 : 0xdd5));
  // SSE registers, when XSAVE wrote them (XSTATE_BV bit 1; in their initial
  // state they are zero and the image holds stale bytes).
  if (xsave) {
    const auto* image = static_cast<const uint8_t*>(xsave);
    uint64_t xstate_bv;
    memcpy(&xstate_bv, image + 512, 8);
    if (xstate_bv & 2) s.add_words(image + 160, 32);
  }
  add_stack(s, uint64_t(g[REG_RSP]));
  return s.finish() | 1;
}

uint64_t call_state(const uint64_t saved[6], uint64_t rsp) {
  Hasher s;
  s.add_words(reinterpret_cast<const uint8_t*>(saved), 6);
  s.h2 = mix(s.h2, rsp);
  add_stack(s, rsp);
  return s.finish() | 1;
}

}  // namespace ctrl::agent
