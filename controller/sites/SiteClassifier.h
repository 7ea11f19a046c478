// Classification of one decoded x86-64 instruction: whether it is a site
// (protocol/SiteTable.h) and, if so, its kind, op, size and operands, so the
// agent can act on it without a disassembler.
#pragma once

#include <capstone/capstone.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "SiteTable.h"

namespace ctrl {

enum class Classification : uint8_t {
  kUndecodable,  // capstone 4 cannot decode the bytes (including its "0 insns, CS_ERR_OK" gaps)
  kNotSite,      // a valid instruction that is not a site
  kSite,         // `out` holds the site
};

// Decodes the one instruction at bytes[0, n) as if it were at address `addr`
// and classifies it. On kSite, `out` is fully written (offset = addr,
// module = 0); otherwise `out` is left unspecified. Uses a capstone handle of
// the calling thread.
//
// Sites:
//  - LOCK-prefixed instructions with a memory operand: Rmw + kSiteLocked, the
//    operand taken as read+write whatever capstone reports (capstone 4 marks
//    cmpxchg* read-only), op from the mnemonic (Add ... Btc, else Other).
//  - xchg with a memory operand (either operand order): Rmw, Xchg, kSiteLocked.
//  - mfence/lfence/sfence, recognised by their exact bytes 0f ae f0/e8/f8 with
//    no legacy prefix (capstone 4 also calls f2/f3/66 0f ae f0 -- umwait,
//    umonitor, tpause -- "mfence"); an optional REX byte is allowed. Fence,
//    size 0, no memory operand.
//  - The seq_cst fence idiom: a locked or/add/sub/xor with 0, or and with all
//    ones, on an rsp-based operand leaves memory unchanged, so it becomes
//    Fence/Mfence (flags kSiteLocked, no memory operand).
//  - Any other locked instruction or xchg on an rsp-based operand stays a
//    locked Rmw site with base rsp: a stack atomic may be shared with other
//    threads, and a locked access is a synchronisation point either way.
//  - Every other instruction with an explicit memory operand not based on or
//    indexed by rsp: Load (memory is only read), Store (only written: op Mov
//    with src_reg or imm for plain moves of a general or xmm/ymm/zmm
//    register or immediate, Other for setcc, x87/movbe/extract/masked stores
//    ...) or unlocked Rmw (op as for locked, Other for shifts/rotates).
//    push/pop with an explicit memory operand (push [rdi]) are a Load/Store
//    of that operand; their stack half is not a site.
//  - movs/stos/lods/cmps/scas (by opcode byte, so SSE movsd/cmpsd are not
//    mistaken for them): StringOp, size = element size, kSiteRep when
//    f3/f2-prefixed, base = rdi (or edi under an address-size prefix, which
//    string_access() honours), no other operand fields.
//  - kSiteVector when an operand is an xmm/ymm/zmm register; src_reg is that
//    register for vector stores.
//  - `syscall`: Syscall, no operand fields; always patched with an int3
//    (the agent performs the call, KernelWaits.h).
//  - rdtsc and rdtscp, by their exact bytes 0f 31 and 0f 01 f9 (no prefix:
//    the agent's emulation knows no other form): Tsc, no operand fields;
//    always patched with an int3 (the agent answers it, VirtualTsc.h).
//
// Not sites: instructions without an explicit memory operand, rsp-addressed
// accesses other than the locked ones above, lea, nop, prefetch*, clflush*,
// clwb, call/jmp (also through memory: those are GOT/vtable loads the agent
// cannot usefully stop on), MPX bnd*, ins/outs, xlat, descriptor-table and
// VMX instructions (sgdt, lidt, verr, vmread...), the fxsave/xsave/xrstor
// families and x87 fnsave/frstor/fnstenv/fldenv (state images of hundreds of
// bytes, used by the dynamic linker and signal code on private buffers),
// gathers/scatters (VSIB addressing has a vector index; capstone 4 also
// misreports the scatter index as a general register), and rip-relative
// instructions whose disp32 position cannot be confirmed from the bytes (the
// agent must relocate it).
//
// Known gaps: instructions capstone 4 cannot decode are never sites -- in
// glibc these are AVX-512 mask instructions and EVEX compares into masks
// (vpcmpeqb k1, zmm0, [rdi]) of the *_evex string functions. bt [m], reg is
// a Load at the operand's address; the bit-offset displacement of the
// register form is applied only for bts/btr/btc (SiteMath.h).
Classification classify(const uint8_t* bytes, size_t n, uint64_t addr, Site& out);

namespace decoding {

// A capstone x86-64 handle (detail on) with the per-instruction-id tables
// classify() needs, built once from capstone's instruction names. Not
// thread-safe: one per thread (classify() keeps a thread_local one).
class SiteClassifier {
 public:
  // Throws InternalError (ExitStatus.h) if capstone cannot be opened.
  SiteClassifier();
  ~SiteClassifier();
  SiteClassifier(const SiteClassifier&) = delete;
  SiteClassifier& operator=(const SiteClassifier&) = delete;

  // Decodes one instruction at `code` (at most `size` bytes) into insn().
  // False also when capstone's length contradicts encoded_length()
  // (InstructionLength.h).
  bool decode(const uint8_t* code, size_t size, uint64_t addr);
  const cs_insn& insn() const { return *insn_; }

  // The rules documented on ctrl::classify(); `insn` must come from decode()
  // of this classifier (its detail is read). True when `s` holds a site.
  bool classify(const cs_insn& insn, Site& s) const;
  // Site::dead for the instruction at `code` (at most `size` bytes, at
  // `addr`): dead_registers() of RegisterLiveness.h with this handle. Leaves
  // insn() alone.
  uint16_t dead_registers(const uint8_t* code, size_t size, uint64_t addr) const;

 private:
  void build_tables();
  uint8_t prop(unsigned id) const { return id < props_.size() ? props_[id] : 0; }
  SiteOp rmw_op(unsigned id) const { return id < ops_.size() ? ops_[id] : SiteOp::Other; }

  csh handle_ = 0;
  cs_insn* insn_ = nullptr;
  cs_insn* scratch_ = nullptr;  // dead_registers()' decoding, so insn() survives it
  std::vector<uint8_t> props_;
  std::vector<SiteOp> ops_;
};

}  // namespace decoding
}  // namespace ctrl
