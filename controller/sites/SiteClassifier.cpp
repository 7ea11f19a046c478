#include "sites/SiteClassifier.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

#include "cli/ExitStatus.h"
#include "sites/InstructionLength.h"
#include "sites/RegisterLiveness.h"

namespace ctrl {
namespace decoding {
namespace {

bool is_gpr64_stack(uint16_t reg) { return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP; }

bool is_vector_reg(uint16_t reg) { return reg >= X86_REG_XMM0 && reg <= X86_REG_ZMM31; }

bool is_opmask_reg(uint16_t reg) { return reg >= X86_REG_K0 && reg <= X86_REG_K7; }

// Registers whose low 64 bits SiteMath.h can read from a signal context, so
// that a Mov store from them has a known value.
bool is_readable_source(uint16_t reg) {
  switch (reg) {
    case X86_REG_AL:
    case X86_REG_AH:
    case X86_REG_AX:
    case X86_REG_EAX:
    case X86_REG_RAX:
    case X86_REG_BL:
    case X86_REG_BH:
    case X86_REG_BX:
    case X86_REG_EBX:
    case X86_REG_RBX:
    case X86_REG_CL:
    case X86_REG_CH:
    case X86_REG_CX:
    case X86_REG_ECX:
    case X86_REG_RCX:
    case X86_REG_DL:
    case X86_REG_DH:
    case X86_REG_DX:
    case X86_REG_EDX:
    case X86_REG_RDX:
    case X86_REG_SIL:
    case X86_REG_SI:
    case X86_REG_ESI:
    case X86_REG_RSI:
    case X86_REG_DIL:
    case X86_REG_DI:
    case X86_REG_EDI:
    case X86_REG_RDI:
    case X86_REG_BPL:
    case X86_REG_BP:
    case X86_REG_EBP:
    case X86_REG_RBP:
    case X86_REG_SPL:
    case X86_REG_SP:
    case X86_REG_ESP:
    case X86_REG_RSP:
      return true;
    default:
      break;
  }
  if (reg >= X86_REG_R8 && reg <= X86_REG_R15) return true;
  if (reg >= X86_REG_R8B && reg <= X86_REG_R15W) return true;  // r8b..r15b, r8d..r15d, r8w..r15w
  if (reg >= X86_REG_XMM0 && reg <= X86_REG_XMM15) return true;
  if (reg >= X86_REG_YMM0 && reg <= X86_REG_YMM15) return true;
  if (reg >= X86_REG_ZMM0 && reg <= X86_REG_ZMM15) return true;
  return false;
}

bool is_address_register(uint16_t reg) {
  if (reg == X86_REG_INVALID || reg == X86_REG_RIP || reg == X86_REG_EIP) return true;
  if (reg >= X86_REG_R8 && reg <= X86_REG_R15) return true;
  if (reg >= X86_REG_R8D && reg <= X86_REG_R15D) return true;
  switch (reg) {
    case X86_REG_RAX:
    case X86_REG_RBX:
    case X86_REG_RCX:
    case X86_REG_RDX:
    case X86_REG_RSI:
    case X86_REG_RDI:
    case X86_REG_RBP:
    case X86_REG_RSP:
    case X86_REG_EAX:
    case X86_REG_EBX:
    case X86_REG_ECX:
    case X86_REG_EDX:
    case X86_REG_ESI:
    case X86_REG_EDI:
    case X86_REG_EBP:
    case X86_REG_ESP:
      return true;
    default:
      return false;
  }
}

uint64_t size_mask(unsigned size) { return size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1; }

// What the raw bytes say before the opcode; capstone 4's prefix[] misses
// some (xacquire/xrelease, a second F2/F3) and cannot tell umwait from mfence.
struct Prefixes {
  bool lock = false;
  bool rep = false;  // F3 or F2: rep/repe/repne on string instructions
  bool addr32 = false;
  unsigned legacy = 0;  // number of legacy prefix bytes
  unsigned length = 0;  // legacy prefixes + REX
  uint8_t opcode = 0;   // first byte after them
};

Prefixes scan_prefixes(const uint8_t* b, size_t n) {
  Prefixes p;
  size_t i = 0;
  for (; i < n; ++i) {
    uint8_t c = b[i];
    if (c == 0xf0)
      p.lock = true;
    else if (c == 0xf2 || c == 0xf3)
      p.rep = true;
    else if (c == 0x67)
      p.addr32 = true;
    else if (c != 0x2e && c != 0x36 && c != 0x3e && c != 0x26 && c != 0x64 && c != 0x65 && c != 0x66)
      break;
  }
  p.legacy = static_cast<unsigned>(i);
  if (i < n && (b[i] & 0xf0) == 0x40) ++i;
  p.length = static_cast<unsigned>(i);
  p.opcode = i < n ? b[i] : 0;
  return p;
}

std::optional<SiteOp> fence_op(const uint8_t* b, size_t n, const Prefixes& p) {
  if (p.legacy != 0 || n != p.length + 3 || b[p.length] != 0x0f || b[p.length + 1] != 0xae) return std::nullopt;
  switch (b[p.length + 2]) {
    case 0xf0:
      return SiteOp::Mfence;
    case 0xe8:
      return SiteOp::Lfence;
    case 0xf8:
      return SiteOp::Sfence;
    default:
      return std::nullopt;
  }
}

// rdtsc or rdtscp, exactly (the agent's emulation steps over these bytes).
bool tsc_read(const uint8_t* b, size_t n) {
  return (n == 2 && b[0] == 0x0f && b[1] == 0x31) || (n == 3 && b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xf9);
}

std::optional<SiteOp> string_op(uint8_t opcode) {
  switch (opcode) {
    case 0xa4:
    case 0xa5:
      return SiteOp::Movs;
    case 0xa6:
    case 0xa7:
      return SiteOp::Cmps;
    case 0xaa:
    case 0xab:
      return SiteOp::Stos;
    case 0xac:
    case 0xad:
      return SiteOp::Lods;
    case 0xae:
    case 0xaf:
      return SiteOp::Scas;
    default:
      return std::nullopt;
  }
}

enum InsnProp : uint8_t {
  kExcluded = 1,  // has a memory operand but is never a site
  kReadOnly = 2,  // memory operand first in Intel order, yet only read
  kMovLike = 4,   // a store of this writes exactly its (single) source
  kRmwName = 8,   // memory operand first means read-modify-write
  kStringName = 16,
};

}  // namespace

SiteClassifier::SiteClassifier() {
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle_) != CS_ERR_OK)
    throw InternalError("capstone: cannot open an x86-64 disassembler");
  cs_option(handle_, CS_OPT_DETAIL, CS_OPT_ON);
  insn_ = cs_malloc(handle_);
  scratch_ = cs_malloc(handle_);
  if (!insn_ || !scratch_) {
    cs_close(&handle_);
    throw InternalError("capstone: out of memory");
  }
  build_tables();
}

SiteClassifier::~SiteClassifier() {
  cs_free(scratch_, 1);
  cs_free(insn_, 1);
  cs_close(&handle_);
}

bool SiteClassifier::decode(const uint8_t* code, size_t size, uint64_t addr) {
  const uint8_t* start = code;
  const size_t avail = size;
  if (!cs_disasm_iter(handle_, &code, &size, &addr, insn_)) return false;
  auto expected = encoded_length(start, avail);
  return !expected || *expected == insn_->size;
}

uint16_t SiteClassifier::dead_registers(const uint8_t* code, size_t size, uint64_t addr) const {
  return decoding::dead_registers(handle_, scratch_, code, size, addr);
}

void SiteClassifier::build_tables() {
  props_.assign(X86_INS_ENDING, 0);
  ops_.assign(X86_INS_ENDING, SiteOp::Other);
  // By name rather than by enum constant: capstone splits families into
  // many ids (xsaveopt64, vgatherpf0dps, ...) that the names cover at once.
  static const std::pair<std::string_view, SiteOp> kOps[] = {
      {"add", SiteOp::Add},
      {"sub", SiteOp::Sub},
      {"and", SiteOp::And},
      {"or", SiteOp::Or},
      {"xor", SiteOp::Xor},
      {"adc", SiteOp::Adc},
      {"sbb", SiteOp::Sbb},
      {"inc", SiteOp::Inc},
      {"dec", SiteOp::Dec},
      {"neg", SiteOp::Neg},
      {"not", SiteOp::Not},
      {"xadd", SiteOp::Xadd},
      {"xchg", SiteOp::Xchg},
      {"cmpxchg", SiteOp::Cmpxchg},
      {"cmpxchg8b", SiteOp::Cmpxchg8b},
      {"cmpxchg16b", SiteOp::Cmpxchg16b},
      {"bts", SiteOp::Bts},
      {"btr", SiteOp::Btr},
      {"btc", SiteOp::Btc},
  };
  static const std::initializer_list<std::string_view> kOtherRmw = {"shl", "shr", "sal", "sar",  "rol",
                                                                    "ror", "rcl", "rcr", "shld", "shrd"};
  static const std::initializer_list<std::string_view> kExcludedNames = {
      "lea",     "nop",     "call",    "jmp",     "lcall",   "ljmp",    "clflush", "clflushopt", "clwb",
      "invlpg",  "invlpga", "xlatb",   "insb",    "insw",    "insd",    "outsb",   "outsw",      "outsd",
      "fnsave",  "frstor",  "fnstenv", "fldenv",  "ud0",     "monitor", "sgdt",    "sidt",       "sldt",
      "str",     "smsw",    "lgdt",    "lidt",    "lldt",    "ltr",     "lmsw",    "verr",       "verw",
      "invpcid", "invept",  "invvpid", "vmptrld", "vmptrst", "vmclear", "vmread",  "vmwrite"};
  static const std::initializer_list<std::string_view> kExcludedPrefixes = {"prefetch", "xsave",   "xrstor",
                                                                            "fxsave",   "fxrstor", "bnd"};
  static const std::initializer_list<std::string_view> kReadOnlyNames = {
      "cmp",   "test",   "bt",   "push",  "mul",   "imul",   "div",  "idiv",  "ldmxcsr", "vldmxcsr",
      "fld",   "fild",   "fbld", "fldcw", "fadd",  "fiadd",  "fmul", "fimul", "fsub",    "fisub",
      "fsubr", "fisubr", "fdiv", "fidiv", "fdivr", "fidivr", "fcom", "fcomp", "ficom",   "ficomp"};
  static const std::initializer_list<std::string_view> kMovNames = {
      "mov",       "movabs",    "movnti",   "movd",     "movq",     "movss",     "movsd",     "movups",
      "movaps",    "movupd",    "movapd",   "movdqu",   "movdqa",   "movntdq",   "movntps",   "movntpd",
      "movlps",    "movlpd",    "vmovd",    "vmovq",    "vmovss",   "vmovsd",    "vmovups",   "vmovaps",
      "vmovupd",   "vmovapd",   "vmovdqu",  "vmovdqa",  "vmovdqu8", "vmovdqu16", "vmovdqu32", "vmovdqu64",
      "vmovdqa32", "vmovdqa64", "vmovntdq", "vmovntps", "vmovntpd", "vmovlps",   "vmovlpd"};
  static const std::initializer_list<std::string_view> kStringNames = {
      "movsb", "movsw", "movsd", "movsq", "stosb", "stosw", "stosd", "stosq", "lodsb", "lodsw",
      "lodsd", "lodsq", "cmpsb", "cmpsw", "cmpsd", "cmpsq", "scasb", "scasw", "scasd", "scasq"};

  auto in = [](std::string_view name, std::initializer_list<std::string_view> list) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (unsigned id = 1; id < X86_INS_ENDING; ++id) {
    const char* raw = cs_insn_name(handle_, id);
    if (!raw) continue;
    std::string_view name(raw);
    uint8_t p = 0;
    if (in(name, kExcludedNames) || name.find("gather") != std::string_view::npos ||
        name.find("scatter") != std::string_view::npos ||
        std::any_of(kExcludedPrefixes.begin(), kExcludedPrefixes.end(),
                    [&](std::string_view pre) { return name.substr(0, pre.size()) == pre; })) {
      p |= kExcluded;
    }
    if (in(name, kReadOnlyNames)) p |= kReadOnly;
    if (in(name, kMovNames)) p |= kMovLike;
    if (in(name, kOtherRmw)) p |= kRmwName;
    if (in(name, kStringNames)) p |= kStringName;
    for (const auto& [op_name, op] : kOps) {
      if (name == op_name) {
        ops_[id] = op;
        p |= kRmwName;
      }
    }
    props_[id] = p;
  }
}

bool SiteClassifier::classify(const cs_insn& insn, Site& s) const {
  const cs_x86& x = insn.detail->x86;
  s = Site{};
  s.offset = insn.address;
  s.length = static_cast<uint8_t>(insn.size);
  std::memcpy(s.bytes, insn.bytes, std::min<size_t>(insn.size, sizeof s.bytes));
  s.insn_id = static_cast<uint16_t>(insn.id);
  s.scale = 1;

  if (insn.id == X86_INS_SYSCALL) {
    s.kind = SiteKind::Syscall;
    return true;
  }
  if (tsc_read(insn.bytes, insn.size)) {
    s.kind = SiteKind::Tsc;
    return true;
  }
  const Prefixes pre = scan_prefixes(insn.bytes, insn.size);
  if (auto op = fence_op(insn.bytes, insn.size, pre)) {
    s.kind = SiteKind::Fence;
    s.op = *op;
    return true;
  }

  int mem_index = -1;
  for (int i = 0; i < x.op_count; ++i) {
    if (x.operands[i].type == X86_OP_MEM) {
      mem_index = i;
      break;
    }
  }
  if (mem_index < 0) return false;
  const uint8_t props = prop(insn.id);
  if (props & kExcluded) return false;
  const cs_x86_op& mem = x.operands[mem_index];

  if (props & kStringName) {
    if (auto op = string_op(pre.opcode)) {
      s.kind = SiteKind::StringOp;
      s.op = *op;
      s.size = mem.size;
      s.base = pre.addr32 ? X86_REG_EDI : X86_REG_RDI;
      if (pre.rep) s.flags |= kSiteRep;
      return true;
    }
  }

  const x86_op_mem& m = mem.mem;
  if (!is_address_register(m.base) || !is_address_register(m.index) || m.index == X86_REG_RIP ||
      m.index == X86_REG_EIP) {
    return false;  // vector index (VSIB) or something capstone made up
  }
  s.base = static_cast<uint16_t>(m.base);
  s.index = static_cast<uint16_t>(m.index);
  s.scale = m.index != X86_REG_INVALID ? static_cast<uint8_t>(m.scale) : 1;
  s.disp = m.disp;
  s.size = mem.size;
  s.segment = m.segment == X86_REG_FS ? SiteSegment::Fs : m.segment == X86_REG_GS ? SiteSegment::Gs : SiteSegment::None;

  bool masked = false;
  bool has_imm = false;
  int other_operands = 0;
  for (int i = 0; i < x.op_count; ++i) {
    if (i == mem_index) continue;
    const cs_x86_op& op = x.operands[i];
    ++other_operands;
    if (op.type == X86_OP_REG) {
      if (is_opmask_reg(op.reg)) {
        masked = true;
        continue;
      }
      if (is_vector_reg(op.reg)) s.flags |= kSiteVector;
      if (s.src_reg == 0) s.src_reg = static_cast<uint16_t>(op.reg);
    } else if (op.type == X86_OP_IMM && !has_imm) {
      has_imm = true;
      s.imm = op.imm;
    }
  }
  if (has_imm) s.flags |= kSiteHasImm;

  const bool rsp_based = is_gpr64_stack(s.base) || is_gpr64_stack(s.index);
  const bool locked = pre.lock || insn.id == X86_INS_XCHG;
  if (locked) {
    s.kind = SiteKind::Rmw;
    s.op = rmw_op(insn.id);
    s.flags |= kSiteLocked;
    if (rsp_based && has_imm) {
      const uint64_t mask = size_mask(s.size);
      const uint64_t imm = static_cast<uint64_t>(s.imm) & mask;
      bool unchanged = false;
      switch (s.op) {
        case SiteOp::Or:
        case SiteOp::Add:
        case SiteOp::Sub:
        case SiteOp::Xor:
          unchanged = imm == 0;
          break;
        case SiteOp::And:
          unchanged = imm == mask;
          break;
        default:
          break;
      }
      if (unchanged) {
        // The compiler's seq_cst fence on its own stack: only the ordering matters.
        Site fence{};
        fence.offset = s.offset;
        fence.length = s.length;
        std::memcpy(fence.bytes, s.bytes, sizeof fence.bytes);
        fence.insn_id = s.insn_id;
        fence.scale = 1;
        fence.kind = SiteKind::Fence;
        fence.op = SiteOp::Mfence;
        fence.flags = kSiteLocked;
        s = fence;
        return true;
      }
    }
  } else {
    if (rsp_based) return false;
    if (mem_index != 0) {
      s.kind = SiteKind::Load;
    } else if (props & kReadOnly) {
      s.kind = SiteKind::Load;
    } else if (props & kRmwName) {
      s.kind = SiteKind::Rmw;
      s.op = rmw_op(insn.id);
    } else if (mem.access == (CS_AC_READ | CS_AC_WRITE)) {
      s.kind = SiteKind::Rmw;  // something else that capstone knows updates memory
    } else {
      // capstone 4 reports many SSE/AVX, x87 and movbe/movnti stores as reads;
      // a destination memory operand of an instruction not known to read it is written.
      s.kind = SiteKind::Store;
      bool plain_source =
          other_operands == 1 && !masked && (has_imm || (s.src_reg != 0 && is_readable_source(s.src_reg)));
      s.op = (props & kMovLike) && plain_source ? SiteOp::Mov : SiteOp::Other;
    }
  }
  if (s.kind == SiteKind::Load) {
    s.src_reg = 0;
    s.imm = 0;
    s.flags &= static_cast<uint8_t>(~kSiteHasImm);
  }

  if (s.base == X86_REG_RIP || s.base == X86_REG_EIP) {
    // mod=00 rm=101 has no SIB byte, so the disp32 follows the ModR/M byte.
    // Cross-checked against the bytes because the agent rewrites it when it
    // moves the instruction: a wrong offset would corrupt the program.
    const unsigned modrm = x.encoding.modrm_offset;
    const unsigned at = modrm + 1;
    if (modrm == 0 || at + 4 > insn.size || (insn.bytes[modrm] & 0xc7) != 0x05) return false;
    int32_t disp32;
    std::memcpy(&disp32, insn.bytes + at, sizeof disp32);
    if (disp32 != m.disp || (x.encoding.disp_offset != 0 && x.encoding.disp_offset != at)) return false;
    s.flags |= kSiteRipRelative;
    s.disp_offset = static_cast<uint8_t>(at);
  }
  return true;
}

}  // namespace decoding

Classification classify(const uint8_t* bytes, size_t n, uint64_t addr, Site& out) {
  thread_local decoding::SiteClassifier classifier;
  if (!classifier.decode(bytes, n, addr)) return Classification::kUndecodable;
  return classifier.classify(classifier.insn(), out) ? Classification::kSite : Classification::kNotSite;
}

}  // namespace ctrl
