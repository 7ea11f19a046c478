#include "debug/VariablePrinter.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "binary/DwarfValue.h"
#include "binary/ProcessDwfl.h"
#include "cli/ExitStatus.h"
#include "debug/VariablePrinterImpl.h"

namespace ctrl {
namespace {

// x86-64 glibc: tcbhead_t.dtv is the second word of the TCB, and a dtv_t
// (union of a counter and {void* val; void* to_free}) is 16 bytes.
constexpr uint64_t kDtvInTcb = 8;
constexpr uint64_t kDtvEntrySize = 16;

[[noreturn]] void fail(const std::string& message) { throw UsageError(message); }
std::string cannot_access(uint64_t addr) { return fmt::format("Cannot access memory at address {:#x}", addr); }

// As Symbolizer names symbols: demangled, without "@GLIBC_2.2.5".
std::string plain_symbol(const char* raw) {
  std::string name(raw);
  if (size_t at = name.find('@'); at != std::string::npos && at > 0) name.resize(at);
  if (name.starts_with("_Z")) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status == 0 && demangled) name = demangled;
    std::free(demangled);
  }
  return name;
}

}  // namespace

// The qualified name of a definition: its declaration's, when it has one
// (C++ defines namespace and class members outside their scope).
std::string VariablePrinter::Impl::qualified(Dwarf_Die* die, const std::string& in_place) const {
  Dwarf_Attribute attr;
  Dwarf_Die spec;
  if (dwarf_attr(die, DW_AT_specification, &attr) && dwarf_formref_die(&attr, &spec))
    if (auto it = declared.find(dwarf_dieoffset(&spec)); it != declared.end()) return it->second;
  return in_place;
}

void VariablePrinter::Impl::add(const std::string& name, const std::string& leaf, const Entry& entry) {
  globals[name].push_back(entry);
  if (name != leaf) by_leaf[leaf].push_back(entry);
}

void VariablePrinter::Impl::walk(size_t m, Dwarf_Die* parent, const std::string& prefix) {
  Dwarf_Die c;
  if (dwarf_child(parent, &c) != 0) return;
  do {
    const char* raw = dwarf_diename(&c);
    if (!raw) {
      if (dwarf_tag(&c) == DW_TAG_namespace || dwarf_tag(&c) == DW_TAG_lexical_block) walk(m, &c, prefix);
      continue;
    }
    std::string name = raw;
    bool declaration = dwarf_hasattr(&c, DW_AT_declaration) || dwarf_hasattr(&c, DW_AT_external);
    switch (dwarf_tag(&c)) {
      case DW_TAG_variable:
      case DW_TAG_member:
        if (dwarf_hasattr(&c, DW_AT_location))
          add(qualified(&c, prefix + name), name, {m, c});
        else if (declaration)
          declared[dwarf_dieoffset(&c)] = prefix + name;
        break;
      case DW_TAG_subprogram: {
        Dwarf_Addr low = 0;
        std::string full = qualified(&c, prefix + name);
        if (dwarf_lowpc(&c, &low) == 0) add(full, name, {m, c});
        if (declaration) declared[dwarf_dieoffset(&c)] = full;
        walk(m, &c, full + "::");
        break;
      }
      case DW_TAG_namespace:
      case DW_TAG_structure_type:
      case DW_TAG_class_type:
      case DW_TAG_union_type:
        walk(m, &c, prefix + name + "::");
        break;
      case DW_TAG_lexical_block:
        walk(m, &c, prefix);
        break;
      default:
        break;
    }
  } while (dwarf_siblingof(&c, &c) == 0);
}

void VariablePrinter::Impl::index() {
  if (indexed) return;
  indexed = true;
  for (size_t m = 0; m < modules.size(); ++m) {
    Module& mod = modules[m];
    mod.dwarf = dwfl_module_getdwarf(mod.mod, &mod.bias);
    if (!mod.dwarf) continue;
    Dwarf_CU* cu = nullptr;
    Dwarf_Die cudie;
    uint8_t unit_type = 0;
    while (dwarf_get_units(mod.dwarf, cu, &cu, nullptr, &unit_type, &cudie, nullptr) == 0)
      if (unit_type == DW_UT_compile || unit_type == DW_UT_partial) walk(m, &cudie, "");
    declared.clear();
  }
}

const VariablePrinter::Impl::Entry* VariablePrinter::Impl::lookup(const std::string& name) {
  index();
  for (auto* table : {&globals, &by_leaf}) {
    auto it = table->find(name);
    if (it == table->end() || it->second.empty()) continue;
    // Modules are in order, the executable first.
    return &it->second.front();
  }
  return nullptr;
}

std::optional<std::pair<uint64_t, uint64_t>> VariablePrinter::Impl::elf_symbol(const std::string& name) const {
  for (const Module& m : modules) {
    int count = dwfl_module_getsymtab(m.mod);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      const char* raw = dwfl_module_getsym_info(m.mod, i, &sym, &addr, nullptr, nullptr, nullptr);
      int type = GELF_ST_TYPE(sym.st_info);
      if (!raw || sym.st_shndx == SHN_UNDEF || (type != STT_OBJECT && type != STT_FUNC)) continue;
      if (plain_symbol(raw) == name) return std::pair<uint64_t, uint64_t>(addr, sym.st_size);
    }
  }
  return std::nullopt;
}

uint64_t VariablePrinter::Impl::read_word(const MemoryReader& read, uint64_t addr) {
  uint64_t v = 0;
  if (!read || !read(addr, &v, sizeof v)) fail(cannot_access(addr));
  return v;
}

uint64_t VariablePrinter::Impl::elf_symbol_address(const char* name) const {
  for (const Module& m : modules) {
    int count = dwfl_module_getsymtab(m.mod);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      const char* raw = dwfl_module_getsym_info(m.mod, i, &sym, &addr, nullptr, nullptr, nullptr);
      if (raw && sym.st_shndx != SHN_UNDEF && plain_symbol(raw) == name) return addr;
    }
  }
  return 0;
}

// The module's TLS module id, from glibc's link_map of that module.
uint64_t VariablePrinter::Impl::tls_modid(const Module& m, const MemoryReader& read) {
  uint64_t r_debug = elf_symbol_address("_r_debug");
  uint64_t desc_at = elf_symbol_address("_thread_db_link_map_l_tls_modid");
  uint32_t desc[3] = {};  // {size in bits, count, offset}
  if (!r_debug || !desc_at || !read(desc_at, desc, sizeof desc) || desc[0] != 64)
    fail(fmt::format("cannot find the TLS module id of {} (no glibc link_map)", m.path));
  uint64_t map = read_word(read, r_debug + 8);  // r_debug.r_map
  for (int n = 0; map != 0 && n < 4096; ++n) {
    if (read_word(read, map + 16) == m.dynamic) return read_word(read, map + desc[2]);  // l_ld
    map = read_word(read, map + 24);                                                    // l_next
  }
  fail(fmt::format("cannot find the TLS module id of {}", m.path));
}

uint64_t VariablePrinter::Impl::variable_address(const Entry& e, const std::string& name, uint64_t tp,
                                                 const MemoryReader& read) {
  const Module& m = modules[e.module];
  Dwarf_Die die = e.die;
  Dwarf_Attribute attr;
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (!dwarf_attr(&die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &n) != 0 || n == 0)
    fail(fmt::format("'{}' has no static address (optimized out, or a local)", name));
  auto operand = [&](Dwarf_Op* op, bool* ok) -> uint64_t {
    *ok = true;
    switch (op->atom) {
      case DW_OP_addr:
      case DW_OP_const4u:
      case DW_OP_const8u:
      case DW_OP_constu:
        return op->number;
      case DW_OP_addrx:
      case DW_OP_GNU_addr_index:
      case DW_OP_constx:
      case DW_OP_GNU_const_index: {
        Dwarf_Attribute res;
        Dwarf_Addr a = 0;
        if (dwarf_getlocation_attr(&attr, op, &res) == 0 && dwarf_formaddr(&res, &a) == 0) return a;
        break;
      }
      default:
        break;
    }
    *ok = false;
    return 0;
  };
  bool ok = false;
  uint64_t value = operand(&ops[0], &ok);
  bool addr_op = ops[0].atom == DW_OP_addr || ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index;
  if (ok && n == 1 && addr_op) return value + m.bias;
  bool tls = n == 2 && (ops[1].atom == DW_OP_form_tls_address || ops[1].atom == DW_OP_GNU_push_tls_address);
  if (!ok || !tls) fail(fmt::format("'{}' has no static address (optimized out, or a local)", name));
  if (tp == 0) fail(fmt::format("Cannot access thread-local variable '{}' without a thread", name));
  if (m.executable) {
    // glibc's _dl_determine_tlsoffset for the first module (variant II).
    uint64_t align = std::max<uint64_t>(m.tls_align, 1);
    uint64_t firstbyte = (0 - m.tls_vaddr) & (align - 1);
    uint64_t offset = (m.tls_memsz - firstbyte + align - 1) / align * align + firstbyte;
    return tp - offset + value;
  }
  if (!read) fail(fmt::format("Cannot access thread-local variable '{}' without reading memory", name));
  uint64_t modid = tls_modid(m, read);
  uint64_t dtv = read_word(read, tp + kDtvInTcb);
  uint64_t block = read_word(read, dtv + kDtvEntrySize * modid);
  if (block == 0 || block == UINT64_MAX)
    fail(fmt::format("The thread-local storage of {} is not allocated in this thread yet", m.path));
  return block + value;
}

std::string VariablePrinter::Impl::symbol_at(uint64_t addr) const {
  Dwfl_Module* mod = dwfl_addrmodule(dwfl, addr);
  if (!mod) return "";
  GElf_Off offset = 0;
  GElf_Sym sym{};
  const char* name = dwfl_module_addrinfo(mod, addr, &offset, &sym, nullptr, nullptr, nullptr);
  bool covers = sym.st_size > 0 ? offset < sym.st_size : offset == 0;
  if (!name || !covers) return "";
  return offset == 0 ? plain_symbol(name) : fmt::format("{}+{}", plain_symbol(name), offset);
}

VariablePrinter::VariablePrinter(pid_t pid) : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.dwfl = begin_process_dwfl(pid);  // no module known (process gone): every name is unknown

  char exe[PATH_MAX] = {};
  ssize_t len = ::readlink(fmt::format("/proc/{}/exe", pid).c_str(), exe, sizeof exe - 1);
  std::string exe_path = len > 0 ? std::string(exe, static_cast<size_t>(len)) : "";
  auto collect = [](Dwfl_Module* mod, void**, const char* name, Dwarf_Addr, void* arg) -> int {
    auto* modules = static_cast<std::vector<Impl::Module>*>(arg);
    Impl::Module m;
    m.mod = mod;
    m.path = name ? name : "";
    GElf_Addr bias = 0;
    if (Elf* elf = dwfl_module_getelf(mod, &bias)) {
      size_t phnum = 0;
      elf_getphdrnum(elf, &phnum);
      for (size_t i = 0; i < phnum; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, static_cast<int>(i), &ph)) continue;
        if (ph.p_type == PT_TLS) {
          m.has_tls = true;
          m.tls_memsz = ph.p_memsz;
          m.tls_align = ph.p_align;
          m.tls_vaddr = ph.p_vaddr;
        } else if (ph.p_type == PT_DYNAMIC) {
          m.dynamic = ph.p_vaddr + bias;
        }
      }
      GElf_Ehdr eh;
      if (gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC) m.executable = true;
    }
    // No exception may unwind through libdw's C frames.
    try {
      modules->push_back(std::move(m));
    } catch (const std::bad_alloc&) {
      return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
  };
  dwfl_getmodules(im.dwfl, collect, &im.modules, 0);
  for (Impl::Module& m : im.modules)
    if (!exe_path.empty() && m.path == exe_path) m.executable = true;
  std::stable_partition(im.modules.begin(), im.modules.end(), [](const Impl::Module& m) { return m.executable; });
}

VariablePrinter::~VariablePrinter() { dwfl_end(impl_->dwfl); }

std::string VariablePrinter::symbol_at(uint64_t addr) const { return impl_->symbol_at(addr); }

}  // namespace ctrl
