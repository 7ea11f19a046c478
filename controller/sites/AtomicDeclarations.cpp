#include "sites/AtomicDeclarations.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "binary/DwarfTypes.h"

namespace ctrl {

namespace {

// Array elements listed one by one, at most (a bigger array of structs with
// an atomic field is covered up to there).
constexpr uint64_t kMaxElements = 4096;
constexpr int kMaxDepth = 12;

using dwarf_types::size_of;
using dwarf_types::type_of;

// C++ and Rust atomic types are classes: known by their name.
bool atomic_class(Dwarf_Die* type, int lang) {
  const char* raw = dwarf_diename(type);
  if (!raw) return false;
  std::string_view name(raw);
  if (lang == DW_LANG_Rust) return name.starts_with("Atomic") && name.size() > 6 && std::isupper(name[6]);
  return name.starts_with("atomic<") || name.starts_with("__atomic_base<") || name == "atomic_flag" ||
         name.starts_with("__atomic_float<");
}

struct Walker {
  DeclaredAtomics& out;
  int lang;

  // The ranges of `type` at `base` that are atomic or volatile.
  void walk(Dwarf_Die type, uint64_t base, const std::string& name, int depth) {
    if (depth > kMaxDepth) return;
    for (int hops = 0; hops < 16; ++hops) {
      int tag = dwarf_tag(&type);
      if (tag == DW_TAG_atomic_type || tag == DW_TAG_volatile_type) {
        Dwarf_Die inner;
        uint64_t size = size_of(&type);
        if (!size && type_of(&type, &inner)) size = size_of(&inner);
        out.add_variable(base, base + size, name,
                         tag == DW_TAG_atomic_type ? AtomicEvidence::DwarfAtomic : AtomicEvidence::DwarfVolatile);
        return;
      }
      if (tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_restrict_type) {
        if (!type_of(&type, &type)) return;
        continue;
      }
      if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type) {
        if (atomic_class(&type, lang)) {
          out.add_variable(base, base + size_of(&type), name, AtomicEvidence::DwarfAtomic);
          return;
        }
        Dwarf_Die child;
        if (dwarf_child(&type, &child) != 0) return;
        do {
          if (dwarf_tag(&child) != DW_TAG_member && dwarf_tag(&child) != DW_TAG_inheritance) continue;
          Dwarf_Attribute attr;
          Dwarf_Word offset = 0;
          if (!dwarf_attr(&child, DW_AT_data_member_location, &attr)) {
            if (tag != DW_TAG_union_type) continue;  // a static member
          } else if (dwarf_formudata(&attr, &offset) != 0) {
            continue;
          }
          Dwarf_Die member_type;
          if (!type_of(&child, &member_type)) continue;
          const char* field = dwarf_diename(&child);
          walk(member_type, base + offset, field ? name + "." + field : name, depth + 1);
        } while (dwarf_siblingof(&child, &child) == 0);
        return;
      }
      if (tag == DW_TAG_array_type) {
        Dwarf_Die element;
        if (!type_of(&type, &element)) return;
        uint64_t whole = size_of(&type), each = size_of(&element);
        if (!each || !whole) return;
        // What one element holds, at offset 0.
        DeclaredAtomics one;
        Walker inner{one, lang};
        inner.walk(element, 0, "", depth + 1);
        one.finish();
        if (one.empty()) return;
        const auto* first = one.variable_at(0);
        if (one.variables() == 1 && first && first->end == each) {
          out.add_variable(base, base + whole, name + "[]", first->why);
          return;
        }
        for (uint64_t i = 0; i < whole / each && i < kMaxElements; ++i)
          walk(element, base + i * each, name + "[" + std::to_string(i) + "]", depth + 1);
        return;
      }
      // Base types, pointers, enums: plain; a field's name is kept for reports.
      if (name.find('.') != std::string::npos) out.add_field(base, base + size_of(&type), name);
      return;
    }
  }
};

// A variable's static address (DW_OP_addr alone), or false (locals, TLS,
// optimised-out or split locations).
bool static_address(Dwarf_Die* var, uint64_t* addr) {
  Dwarf_Attribute attr;
  if (!dwarf_attr(var, DW_AT_location, &attr)) return false;
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_getlocation(&attr, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_addr) return false;
  *addr = ops[0].number;
  return true;
}

// Whether a mangled function name is an atomic type's member (or libstdc++'s
// helpers behind them), C++ or Rust (legacy mangling).
bool atomic_function(std::string_view mangled) {
  for (std::string_view key : {"St6atomicI", "St13__atomic_baseI", "St11atomic_flag", "St13__atomic_impl",
                               "St14__atomic_floatI", "St10atomic_refI", "4core4sync6atomic"})
    if (mangled.find(key) != std::string_view::npos) return true;
  return false;
}

std::string demangled(const char* raw) {
  int status = 0;
  char* plain = abi::__cxa_demangle(raw, nullptr, nullptr, &status);
  std::string name = status == 0 && plain ? plain : raw;
  std::free(plain);
  if (size_t paren = name.find('('); paren != std::string::npos) name.resize(paren);
  return name;
}

void scan(Dwarf_Die* die, uint64_t bias, Walker& walker, int depth) {
  if (depth > 64) return;
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_variable) {
      uint64_t addr = 0;
      Dwarf_Die type;
      if (static_address(&child, &addr) && type_of(&child, &type)) {
        const char* name = dwarf_diename(&child);
        walker.walk(type, addr + bias, name ? name : "?", 0);
      }
    } else if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Attribute attr;
      const char* mangled = nullptr;
      if (dwarf_attr_integrate(&child, DW_AT_linkage_name, &attr) ||
          dwarf_attr_integrate(&child, DW_AT_MIPS_linkage_name, &attr))
        mangled = dwarf_formstring(&attr);
      if (mangled && atomic_function(mangled)) {
        std::string name = demangled(mangled);
        Dwarf_Addr base = 0, start = 0, end = 0;
        ptrdiff_t offset = 0;
        while ((offset = dwarf_ranges(&child, offset, &base, &start, &end)) > 0)
          walker.out.add_code(start + bias, end + bias, name);
        continue;  // everything inside is the atomic operation
      }
    }
    if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
        tag == DW_TAG_namespace || tag == DW_TAG_module)
      scan(&child, bias, walker, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

DeclaredAtomics read_declared_atomics(Dwarf* dwarf, uint64_t bias) {
  DeclaredAtomics out;
  if (!dwarf) {
    out.finish();
    return out;
  }
  Dwarf_Off offset = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf, offset + header, &cu)) {
      out.had_debug_info = true;
      Walker walker{out, dwarf_srclang(&cu)};
      scan(&cu, bias, walker, 0);
    }
    offset = next;
  }
  out.finish();
  return out;
}

}  // namespace ctrl
