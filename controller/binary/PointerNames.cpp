#include "binary/PointerNames.h"

#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "binary/AddressNames.h"
#include "binary/Symbolizer.h"

namespace ctrl {

namespace {

// Capstone's 64-bit registers as DWARF numbers them (x86-64 psABI).
int dwarf_register(x86_reg reg) {
  switch (reg) {
    case X86_REG_RAX:
      return 0;
    case X86_REG_RDX:
      return 1;
    case X86_REG_RCX:
      return 2;
    case X86_REG_RBX:
      return 3;
    case X86_REG_RSI:
      return 4;
    case X86_REG_RDI:
      return 5;
    case X86_REG_RBP:
      return 6;
    case X86_REG_R8:
      return 8;
    case X86_REG_R9:
      return 9;
    case X86_REG_R10:
      return 10;
    case X86_REG_R11:
      return 11;
    case X86_REG_R12:
      return 12;
    case X86_REG_R13:
      return 13;
    case X86_REG_R14:
      return 14;
    case X86_REG_R15:
      return 15;
    default:
      return -1;
  }
}

// Up to 16 bytes of code at `vaddr` (the module's own address) from its ELF.
size_t code_bytes(Elf* elf, uint64_t vaddr, uint8_t* out) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type != SHT_PROGBITS) continue;
    if (vaddr < sh.sh_addr || vaddr >= sh.sh_addr + sh.sh_size) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) return 0;
    size_t at = vaddr - sh.sh_addr, n = std::min<size_t>(16, data->d_size - at);
    std::memcpy(out, static_cast<const uint8_t*>(data->d_buf) + at, n);
    return n;
  }
  return 0;
}

struct Operand {
  int reg = -1;  // DWARF number of the base register
  int64_t disp = 0;
};

std::optional<Operand> memory_operand(const uint8_t* code, size_t n, uint64_t addr) {
  csh handle;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) return std::nullopt;
  cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn* insn = nullptr;
  std::optional<Operand> out;
  if (cs_disasm(handle, code, n, addr, 1, &insn) == 1) {
    const cs_x86& x = insn->detail->x86;
    for (uint8_t i = 0; i < x.op_count; ++i) {
      const cs_x86_op& op = x.operands[i];
      if (op.type != X86_OP_MEM || op.mem.index != X86_REG_INVALID || op.mem.segment != X86_REG_INVALID) continue;
      int reg = dwarf_register(x86_reg(op.mem.base));
      if (reg >= 0) out = Operand{reg, op.mem.disp};
      break;
    }
    cs_free(insn, 1);
  }
  cs_close(&handle);
  return out;
}

bool is_register(const Dwarf_Op& op, int reg) {
  return (op.atom >= DW_OP_reg0 && op.atom <= DW_OP_reg31 && int(op.atom - DW_OP_reg0) == reg) ||
         (op.atom == DW_OP_regx && int(op.number) == reg);
}

struct Pointer {
  std::string name;
  Dwarf_Die pointee;
};

// The variable or parameter of a pointer type in `reg` at `pc` (module
// addresses), innermost scope first.
std::optional<Pointer> pointer_in(Dwfl_Module* mod, uint64_t pc, int reg) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(mod, pc, &bias);
  if (!cu) return std::nullopt;
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, pc - bias, &scopes);
  std::optional<Pointer> found;
  for (int s = 0; s < n && !found; ++s) {
    Dwarf_Die child;
    if (dwarf_child(&scopes[s], &child) != 0) continue;
    do {
      int tag = dwarf_tag(&child);
      if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) continue;
      Dwarf_Attribute attr;
      if (!dwarf_attr(&child, DW_AT_location, &attr)) continue;
      Dwarf_Op* expr = nullptr;
      size_t len = 0;
      if (dwarf_getlocation_addr(&attr, pc - bias, &expr, &len, 1) != 1 || len != 1 || !is_register(expr[0], reg))
        continue;
      Dwarf_Die type;
      if (!dwarf_formref_die(dwarf_attr_integrate(&child, DW_AT_type, &attr), &type)) continue;
      while (dwarf_tag(&type) == DW_TAG_typedef || dwarf_tag(&type) == DW_TAG_const_type ||
             dwarf_tag(&type) == DW_TAG_volatile_type || dwarf_tag(&type) == DW_TAG_restrict_type)
        if (!dwarf_formref_die(dwarf_attr_integrate(&type, DW_AT_type, &attr), &type)) break;
      if (dwarf_tag(&type) != DW_TAG_pointer_type) continue;
      Dwarf_Die pointee;
      const char* name = dwarf_diename(&child);
      if (!name || !dwarf_formref_die(dwarf_attr_integrate(&type, DW_AT_type, &attr), &pointee)) continue;
      found = Pointer{name, pointee};
      break;
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  std::free(scopes);
  return found;
}

}  // namespace

void learn_pointer_names(const std::vector<shm::Event>& events, Symbolizer& symbols) {
  constexpr size_t kLooked = 4096;  // instruction events looked at, at most
  size_t looked = 0;
  symbols.forget_blocks();
  for (const shm::Event& e : events) {
    if (!(e.flags & shm::kInstruction) || !e.addr || !e.site || symbols.in_any_module(e.addr)) continue;
    if (symbols.block_named(e.addr) || ++looked > kLooked) continue;
    Dwfl_Module* mod = symbols.module_of(e.site);
    if (!mod) continue;
    Dwarf_Addr ebias = 0;
    Elf* elf = dwfl_module_getelf(mod, &ebias);
    uint8_t code[16];
    size_t n = elf ? code_bytes(elf, e.site - ebias, code) : 0;
    auto operand = n ? memory_operand(code, n, e.site) : std::nullopt;
    if (!operand || operand->disp < 0) continue;
    auto pointer = pointer_in(mod, e.site, operand->reg);
    if (!pointer) continue;
    Dwarf_Word size = 0;
    if (dwarf_aggregate_size(&pointer->pointee, &size) != 0 || size == 0 || uint64_t(operand->disp) >= size) continue;
    uint64_t base = e.addr - uint64_t(operand->disp);
    symbols.name_block(base, base + size, pointer->name, dwarf_cu_getdwarf(pointer->pointee.cu),
                       dwarf_dieoffset(&pointer->pointee));
  }
}

}  // namespace ctrl
