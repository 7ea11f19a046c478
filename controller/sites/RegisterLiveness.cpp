#include "sites/RegisterLiveness.h"

#include "sites/ControlFlow.h"
#include "sites/SiteClassifier.h"
#include "SiteTable.h"

namespace ctrl {
namespace decoding {
namespace {

// The Site::dead bit of a general register (rsp has none: always kept) and
// whether writing `reg` defines the whole register (32- and 64-bit writes
// do; 8- and 16-bit ones keep the other bits). -1: not a general register.
int gpr_bit(unsigned reg, bool& whole) {
  static const unsigned kFamilies[][4] = {
      {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL},      {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL},
      {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL},      {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL},
      {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL},     {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL},
      {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL},     {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},
      {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},     {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B},
      {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B}, {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B},
      {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B}, {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B},
      {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B}};
  for (int f = 0; f < 15; ++f)
    for (int w = 0; w < 4; ++w)
      if (kFamilies[f][w] == reg) {
        whole = w < 2;
        return f;
      }
  if (reg == X86_REG_AH || reg == X86_REG_CH || reg == X86_REG_DH || reg == X86_REG_BH) {
    whole = false;
    return reg == X86_REG_AH ? 0 : reg == X86_REG_CH ? 1 : reg == X86_REG_DH ? 2 : 3;
  }
  return -1;
}

}  // namespace

uint16_t dead_registers(csh handle, cs_insn* scratch, const uint8_t* code, size_t size, uint64_t addr) {
  // Forward from the site (itself included) through straight-line code: a
  // register is dead when an instruction defines it whole before any reads
  // it; a read, a partial write, or the end of the scan (a branch, a call,
  // an instruction capstone cannot tell) keeps it. The flags are dead when
  // an instruction sets all six arithmetic flags before any tests one.
  constexpr uint64_t kSixFlags[6][4] = {
      {X86_EFLAGS_MODIFY_CF, X86_EFLAGS_SET_CF, X86_EFLAGS_RESET_CF, X86_EFLAGS_UNDEFINED_CF},
      {X86_EFLAGS_MODIFY_PF, X86_EFLAGS_SET_PF, X86_EFLAGS_RESET_PF, X86_EFLAGS_UNDEFINED_PF},
      {X86_EFLAGS_MODIFY_AF, X86_EFLAGS_SET_AF, X86_EFLAGS_RESET_AF, X86_EFLAGS_UNDEFINED_AF},
      {X86_EFLAGS_MODIFY_ZF, X86_EFLAGS_SET_ZF, X86_EFLAGS_RESET_ZF, X86_EFLAGS_UNDEFINED_ZF},
      {X86_EFLAGS_MODIFY_SF, X86_EFLAGS_SET_SF, X86_EFLAGS_RESET_SF, X86_EFLAGS_UNDEFINED_SF},
      {X86_EFLAGS_MODIFY_OF, X86_EFLAGS_SET_OF, X86_EFLAGS_RESET_OF, X86_EFLAGS_UNDEFINED_OF}};
  constexpr uint64_t kTests = X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF | X86_EFLAGS_TEST_PF |
                              X86_EFLAGS_TEST_CF | X86_EFLAGS_TEST_NT | X86_EFLAGS_TEST_DF | X86_EFLAGS_TEST_RF |
                              X86_EFLAGS_TEST_TF | X86_EFLAGS_TEST_IF | X86_EFLAGS_TEST_AF;
  uint16_t decided = 0, dead = 0;
  for (int n = 0; n < 16 && size > 0; ++n) {
    if (!cs_disasm_iter(handle, &code, &size, &addr, scratch)) break;
    cs_regs read, write;
    uint8_t reads = 0, writes = 0;
    if (cs_regs_access(handle, scratch, read, &reads, write, &writes) != CS_ERR_OK) break;
    uint16_t live = 0, defined = 0;
    bool flags_read = false, flags_written = false;
    for (uint8_t i = 0; i < reads; ++i) {
      bool whole;
      int b = gpr_bit(read[i], whole);
      if (b >= 0) live |= uint16_t(1u << b);
      if (read[i] == X86_REG_EFLAGS) flags_read = true;
    }
    for (uint8_t i = 0; i < writes; ++i) {
      bool whole = false;
      int b = gpr_bit(write[i], whole);
      if (b >= 0) (whole ? defined : live) |= uint16_t(1u << b);
      if (write[i] == X86_REG_EFLAGS) flags_written = true;
    }
    const uint64_t eflags = scratch->detail->x86.eflags;
    if (eflags & kTests) flags_read = true;
    if (flags_written) {
      bool all = true;
      for (const auto& f : kSixFlags) all = all && (eflags & (f[0] | f[1] | f[2] | f[3]));
      if (all)
        defined |= kDeadFlags;
      else
        live |= kDeadFlags;  // some flags kept: the rest may be read later
    }
    if (flags_read) live |= kDeadFlags;
    // Reads come before writes within an instruction.
    decided |= live;
    dead |= defined & ~decided;
    decided |= defined;
    if (is_control_flow(scratch->id)) break;
  }
  return dead;
}

}  // namespace decoding

uint16_t dead_registers(const uint8_t* bytes, size_t n, uint64_t addr) {
  thread_local decoding::SiteClassifier classifier;
  return classifier.dead_registers(bytes, n, addr);
}

}  // namespace ctrl
