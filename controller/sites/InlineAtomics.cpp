#include "sites/InlineAtomics.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <unistd.h>

#include <string_view>
#include <vector>

#include "sites/SiteDecoder.h"
#include "SiteTable.h"

namespace ctrl {

namespace {

struct Fd {
  int fd;
  explicit Fd(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The function symbol of `path` that contains link-time address `addr`
// (empty when none does).
std::string function_at(const std::string& path, uint64_t addr) {
  Fd f(path);
  if (f.fd < 0) return {};
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(f.fd, ELF_C_READ, nullptr);
  if (!elf) return {};
  std::string name;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && name.empty(); scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_entsize == 0)
      continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t k = 0; data && k < sh.sh_size / sh.sh_entsize; k++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(k), &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC) continue;
      if (addr < sym.st_value || addr - sym.st_value >= sym.st_size) continue;
      if (const char* s = elf_strptr(elf, sh.sh_link, sym.st_name)) name = s;
      break;
    }
  }
  elf_end(elf);
  return name;
}

// A C++ atomic class of the standard library, by its DW_AT_name (the
// namespace is not checked: these names are reserved or std's own).
bool cxx_atomic_name(std::string_view n) {
  for (std::string_view p : {"atomic<", "__atomic_base<", "__atomic_float<", "atomic_ref<", "__atomic_ref<",
                             "atomic_flag", "__atomic_flag_base"})
    if (n.substr(0, p.size()) == p) return true;
  return false;
}

// Whether a type (through typedefs, qualifiers, arrays and pointers) is
// an atomic one: C's _Atomic or a C++ atomic class.
bool atomic_type(Dwarf_Die type) {
  for (int depth = 0; depth < 16; depth++) {
    int tag = dwarf_tag(&type);
    if (tag == DW_TAG_atomic_type) return true;
    const char* name = dwarf_diename(&type);
    if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type) && name) return cxx_atomic_name(name);
    Dwarf_Attribute at;
    if (!dwarf_attr(&type, DW_AT_type, &at) || !dwarf_formref_die(&at, &type)) return false;
  }
  return false;
}

// The first variable, member or parameter of atomic type its debug
// information declares ("" when none). Types alone do not count: including
// <stdatomic.h> declares atomic typedefs.
std::string dwarf_atomic_object(const std::string& path) {
  Fd f(path);
  if (f.fd < 0) return {};
  Dwarf* dw = dwarf_begin(f.fd, DWARF_C_READ);
  if (!dw) return {};
  std::string found, fallback;
  Dwarf_Off off = 0, next = 0;
  size_t header = 0;
  while (found.empty() && dwarf_nextcu(dw, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dw, off + header, &cu)) {
      std::vector<Dwarf_Die> stack{cu};
      while (!stack.empty() && found.empty()) {
        Dwarf_Die die = stack.back();
        stack.pop_back();
        int tag = dwarf_tag(&die);
        if (tag == DW_TAG_variable || tag == DW_TAG_member || tag == DW_TAG_formal_parameter) {
          Dwarf_Attribute at;
          Dwarf_Die type;
          if (dwarf_attr(&die, DW_AT_type, &at) && dwarf_formref_die(&at, &type) && atomic_type(type)) {
            // The program's own names first: not `this`, nor the
            // temporaries of <stdatomic.h>'s macros.
            const char* name = dwarf_diename(&die);
            bool own = name && name[0] != '_' && !dwarf_hasattr(&die, DW_AT_artificial);
            if (own)
              found = name;
            else if (fallback.empty())
              fallback = name ? name : "(unnamed)";
          }
        }
        Dwarf_Die child;
        if (dwarf_child(&die, &child) == 0) {
          do stack.push_back(child);
          while (dwarf_siblingof(&stack.back(), &child) == 0);
        }
      }
    }
    off = next;
  }
  dwarf_end(dw);
  return found.empty() ? fallback : found;
}

}  // namespace

std::optional<InlineAtomicsFound> find_inline_atomics(const std::string& program) {
  DecodedModule mod = decode_sites(program, 0);
  uint64_t count = 0, first = 0;
  for (const Site& s : mod.sites) {
    // (The seq_cst fence idiom, a locked or on the stack, is a locked Fence.)
    if (!(s.flags & kSiteLocked) && !(s.kind == SiteKind::Fence && s.op == SiteOp::Mfence)) continue;
    if (count++ == 0) first = s.offset;
  }
  if (count > 0) {
    std::string fn = function_at(program, first);
    std::string where = fn.empty() ? fmt::format("at {:#x}", first) : "in " + fn;
    return InlineAtomicsFound{
        fmt::format("{} lock/xchg/mfence instruction{}, first {}", count, count == 1 ? "" : "s", where)};
  }
  std::string object = dwarf_atomic_object(program);
  if (!object.empty()) return InlineAtomicsFound{fmt::format("atomic object {} in its debug information", object)};
  return std::nullopt;
}

bool has_debug_info(const std::string& program) {
  Fd f(program);
  if (f.fd < 0) return false;
  Dwarf* dw = dwarf_begin(f.fd, DWARF_C_READ);
  if (!dw) return false;
  Dwarf_Off next = 0;
  size_t header = 0;
  bool any = dwarf_nextcu(dw, 0, &next, &header, nullptr, nullptr, nullptr) == 0;
  dwarf_end(dw);
  return any;
}

}  // namespace ctrl
