// What a site is about to do, computed from the registers of the thread that
// trapped on it: the address it accesses and the value it will write.
//
// Runs inside the agent's SIGTRAP handler, so everything here is header-only,
// allocation-free, exception-free and async-signal-safe. capstone's header
// is included for its register and instruction numbers only; nothing links
// the library. Register numbers are capstone 4 x86_reg values, as stored in
// Site by the controller's SiteDecoder.
//
// All values are read from the context before the instruction runs.
#pragma once

#include <capstone/x86.h>
#include <sys/ucontext.h>

#include <cstdint>

#include "SiteTable.h"

namespace ctrl {
namespace site_math_detail {

// Where a general register lives in mcontext_t::gregs, and which bits of it.
struct GprSlot {
  int greg;
  uint8_t bytes;
  uint8_t shift;  // 8 for ah/bh/ch/dh
};

constexpr bool gpr_slot(uint16_t reg, GprSlot& out) noexcept {
  // The 64/32/16/8-bit names of one register share a greg entry.
  struct Family {
    uint16_t r64, r32, r16, r8;
    int greg;
  };
  constexpr Family kFamilies[] = {
      {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, REG_RAX},
      {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, REG_RBX},
      {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, REG_RCX},
      {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, REG_RDX},
      {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, REG_RSI},
      {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, REG_RDI},
      {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, REG_RBP},
      {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, REG_RSP},
      {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, REG_R8},
      {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, REG_R9},
      {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, REG_R10},
      {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, REG_R11},
      {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, REG_R12},
      {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, REG_R13},
      {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, REG_R14},
      {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, REG_R15},
      {X86_REG_RIP, X86_REG_EIP, X86_REG_IP, X86_REG_INVALID, REG_RIP},
  };
  for (const Family& f : kFamilies) {
    if (reg == f.r64) out = {f.greg, 8, 0};
    else if (reg == f.r32) out = {f.greg, 4, 0};
    else if (reg == f.r16) out = {f.greg, 2, 0};
    else if (reg == f.r8 && f.r8 != X86_REG_INVALID) out = {f.greg, 1, 0};
    else continue;
    return true;
  }
  switch (reg) {
    case X86_REG_AH: out = {REG_RAX, 1, 8}; return true;
    case X86_REG_BH: out = {REG_RBX, 1, 8}; return true;
    case X86_REG_CH: out = {REG_RCX, 1, 8}; return true;
    case X86_REG_DH: out = {REG_RDX, 1, 8}; return true;
    case X86_REG_EFLAGS: out = {REG_EFL, 8, 0}; return true;
    default: return false;
  }
}

constexpr uint64_t size_mask(unsigned size) noexcept {
  return size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1;
}

// An address computed with a 0x67 prefix wraps at 4 GiB; the decoder leaves
// 32-bit base/index names in the Site exactly in that case.
constexpr bool is_addr32_reg(uint16_t reg) noexcept {
  switch (reg) {
    case X86_REG_EAX: case X86_REG_EBX: case X86_REG_ECX: case X86_REG_EDX:
    case X86_REG_ESI: case X86_REG_EDI: case X86_REG_EBP: case X86_REG_ESP:
    case X86_REG_EIP:
      return true;
    default:
      return reg >= X86_REG_R8D && reg <= X86_REG_R15D;
  }
}

inline uint64_t greg(const ucontext_t& uc, int index) noexcept {
  return static_cast<uint64_t>(uc.uc_mcontext.gregs[index]);
}

constexpr uint64_t kCarryFlag = 1u << 0;
constexpr uint64_t kDirectionFlag = 1u << 10;

}  // namespace site_math_detail

// Reads register `reg` (capstone x86_reg: 64/32/16/8-bit general registers
// including ah/bh/ch/dh, rip/eip/ip, eflags, and the low 64 bits of
// xmm0-15 -- also for ymm0-15/zmm0-15, whose low bits are the same) from a
// signal context. Narrow registers are zero-extended. Returns false for
// anything else (segment, x87, mmx, opmask, xmm16+) or when the context has
// no floating-point state.
inline bool read_register(const ucontext_t& uc, uint16_t reg, uint64_t& value) noexcept {
  site_math_detail::GprSlot slot{};
  if (site_math_detail::gpr_slot(reg, slot)) {
    value = (site_math_detail::greg(uc, slot.greg) >> slot.shift) & site_math_detail::size_mask(slot.bytes);
    return true;
  }
  int xmm = -1;
  if (reg >= X86_REG_XMM0 && reg <= X86_REG_XMM15) xmm = reg - X86_REG_XMM0;
  else if (reg >= X86_REG_YMM0 && reg <= X86_REG_YMM15) xmm = reg - X86_REG_YMM0;
  else if (reg >= X86_REG_ZMM0 && reg <= X86_REG_ZMM15) xmm = reg - X86_REG_ZMM0;
  if (xmm < 0 || uc.uc_mcontext.fpregs == nullptr) return false;
  const auto& lanes = uc.uc_mcontext.fpregs->_xmm[xmm].element;
  value = uint64_t{lanes[0]} | (uint64_t{lanes[1]} << 32);
  return true;
}

namespace site_math_detail {

// The source operand of a Store/Rmw site, zero-extended.
inline uint64_t source(const Site& s, const ucontext_t& uc) noexcept {
  if (s.flags & kSiteHasImm) return static_cast<uint64_t>(s.imm);
  uint64_t v = 0;
  if (s.src_reg != X86_REG_INVALID) read_register(uc, s.src_reg, v);
  return v;
}

// The bit offset of bts/btr/btc, as the instruction sees it: the immediate
// is taken modulo the operand width, the register as a signed number.
inline int64_t bit_offset(const Site& s, const ucontext_t& uc) noexcept {
  const uint64_t raw = source(s, uc);
  if (s.flags & kSiteHasImm) return static_cast<int64_t>(raw & (s.size * 8u - 1));
  switch (s.size) {
    case 2: return static_cast<int16_t>(raw);
    case 4: return static_cast<int32_t>(raw);
    default: return static_cast<int64_t>(raw);
  }
}

}  // namespace site_math_detail

// Effective address of the site's memory operand at this trap: segment base
// + base + index * scale + disp, wrapped to 32 bits under an address-size
// prefix. `rip_next` = runtime address of the instruction + Site::length (for
// rip-relative operands). fs_base/gs_base come from the caller (the agent
// reads them once per thread). For bts/btr/btc with a register bit offset,
// the address of the word actually accessed (the offset can reach outside
// the operand). For StringOp sites this is rdi only; use string_access().
// Meaningless (0 + disp) for Fence sites.
inline uint64_t effective_address(const Site& s, const ucontext_t& uc, uint64_t rip_next, uint64_t fs_base,
                                  uint64_t gs_base) noexcept {
  using namespace site_math_detail;
  uint64_t ea = static_cast<uint64_t>(s.disp);
  uint64_t v = 0;
  if (s.base == X86_REG_RIP || s.base == X86_REG_EIP) ea += rip_next;
  else if (s.base != X86_REG_INVALID && read_register(uc, s.base, v)) ea += v;
  if (s.index != X86_REG_INVALID && read_register(uc, s.index, v)) ea += v * s.scale;
  if (is_addr32_reg(s.base) || is_addr32_reg(s.index)) ea &= 0xffffffffu;
  if ((s.op == SiteOp::Bts || s.op == SiteOp::Btr || s.op == SiteOp::Btc) && !(s.flags & kSiteHasImm) &&
      s.src_reg != X86_REG_INVALID && s.size != 0) {
    // floor(offset / width) operand-sized words away from the operand.
    const int64_t words = bit_offset(s, uc) >> (s.size == 2 ? 4 : s.size == 4 ? 5 : 6);
    ea += static_cast<uint64_t>(words) * s.size;
  }
  if (s.segment == SiteSegment::Fs) ea += fs_base;
  else if (s.segment == SiteSegment::Gs) ea += gs_base;
  return ea;
}

// For string ops: the lowest addresses of the ranges read or written at rdi
// (dst: written by movs/stos, read by cmps/scas) and rsi (src: read by
// movs/lods/cmps), 0 for the one the instruction does not use, and the byte
// count of each range: element size * rcx if rep-prefixed, else the element
// size. With the direction flag set the instruction walks downwards from
// rdi/rsi, so the ranges end there. repe/repne cmps/scas may stop early:
// the count is an upper bound. Under an address-size prefix edi/esi/ecx are
// used.
struct StringAccess {
  uint64_t dst, src, bytes;
};

inline StringAccess string_access(const Site& s, const ucontext_t& uc) noexcept {
  using namespace site_math_detail;
  const bool addr32 = s.base == X86_REG_EDI;
  const uint64_t mask = addr32 ? 0xffffffffu : ~uint64_t{0};
  uint64_t rdi = greg(uc, REG_RDI) & mask;
  uint64_t rsi = greg(uc, REG_RSI) & mask;
  const uint64_t count = (s.flags & kSiteRep) ? (greg(uc, REG_RCX) & mask) : 1;
  const uint64_t bytes = count * s.size;
  if ((greg(uc, REG_EFL) & kDirectionFlag) && count > 0) {
    const uint64_t back = (count - 1) * s.size;
    rdi = (rdi - back) & mask;
    rsi = (rsi - back) & mask;
  }
  const bool uses_dst = s.op == SiteOp::Movs || s.op == SiteOp::Stos || s.op == SiteOp::Cmps || s.op == SiteOp::Scas;
  const bool uses_src = s.op == SiteOp::Movs || s.op == SiteOp::Lods || s.op == SiteOp::Cmps;
  return {uses_dst ? rdi : 0, uses_src ? rsi : 0, bytes};
}

// The value the instruction is about to leave in memory, given the value
// `old` currently there, truncated to the operand size (the low 8 bytes for
// wider operands). For Load, Fence, lods/cmps/scas sites memory does not
// change: `old` is returned. For Mov stores: the source register or imm; for
// stos: rax (every element gets it). A compare-exchange that will not write
// sets `failed` and returns `old`; `failed` is false otherwise. Returns 0
// for values it cannot know (op Other; movs, whose value is in memory at
// rsi).
//
// This full form takes and gives bytes 8..15 too (`old_high`, `new_high`),
// which only cmpxchg16b compares and writes; new_high = old_high otherwise.
inline uint64_t value_to_write(const Site& s, const ucontext_t& uc, uint64_t old, uint64_t old_high, bool& failed,
                               uint64_t& new_high) noexcept {
  using namespace site_math_detail;
  failed = false;
  new_high = old_high;
  if (s.kind == SiteKind::Fence) return old;  // size 0: nothing to truncate to
  const uint64_t mask = size_mask(s.size);
  old &= mask;
  const uint64_t carry = greg(uc, REG_EFL) & kCarryFlag;

  switch (s.kind) {
    case SiteKind::Load:
    case SiteKind::Fence:
    case SiteKind::Syscall:  // writes no memory operand
    case SiteKind::Tsc:
      return old;
    case SiteKind::StringOp:
      if (s.op == SiteOp::Stos) return greg(uc, REG_RAX) & mask;
      return s.op == SiteOp::Movs ? 0 : old;
    case SiteKind::Store:
    case SiteKind::Rmw:
      break;
  }

  const uint64_t src = source(s, uc);
  switch (s.op) {
    case SiteOp::Mov:
    case SiteOp::Xchg: return src & mask;
    case SiteOp::Add:
    case SiteOp::Xadd: return (old + src) & mask;
    case SiteOp::Sub: return (old - src) & mask;
    case SiteOp::And: return old & src & mask;
    case SiteOp::Or: return (old | src) & mask;
    case SiteOp::Xor: return (old ^ src) & mask;
    case SiteOp::Adc: return (old + src + carry) & mask;
    case SiteOp::Sbb: return (old - src - carry) & mask;
    case SiteOp::Inc: return (old + 1) & mask;
    case SiteOp::Dec: return (old - 1) & mask;
    case SiteOp::Neg: return (0 - old) & mask;
    case SiteOp::Not: return ~old & mask;
    case SiteOp::Bts:
    case SiteOp::Btr:
    case SiteOp::Btc: {
      if (s.size == 0) return 0;
      const uint64_t bit = uint64_t{1} << (static_cast<uint64_t>(bit_offset(s, uc)) & (s.size * 8u - 1));
      if (s.op == SiteOp::Bts) return (old | bit) & mask;
      if (s.op == SiteOp::Btr) return old & ~bit & mask;
      return (old ^ bit) & mask;
    }
    case SiteOp::Cmpxchg:
      if (old != (greg(uc, REG_RAX) & mask)) {
        failed = true;
        return old;
      }
      return src & mask;
    case SiteOp::Cmpxchg8b: {
      const uint64_t expected = (greg(uc, REG_RDX) << 32) | (greg(uc, REG_RAX) & 0xffffffffu);
      if (old != expected) {
        failed = true;
        return old;
      }
      return (greg(uc, REG_RCX) << 32) | (greg(uc, REG_RBX) & 0xffffffffu);
    }
    case SiteOp::Cmpxchg16b:
      if (old != greg(uc, REG_RAX) || old_high != greg(uc, REG_RDX)) {
        failed = true;
        return old;
      }
      new_high = greg(uc, REG_RCX);
      return greg(uc, REG_RBX);
    default:
      return 0;
  }
}

// value_to_write() for callers that read only 8 bytes: for cmpxchg16b it
// decides success on the low halves alone (as if the high half matched rdx)
// and returns the low 8 bytes written.
inline uint64_t value_to_write(const Site& s, const ucontext_t& uc, uint64_t old, bool& failed) noexcept {
  uint64_t unused_high = 0;
  return value_to_write(s, uc, old, static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_RDX]), failed, unused_high);
}

}  // namespace ctrl
