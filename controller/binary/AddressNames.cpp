#include "binary/AddressNames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fmt/format.h>

#include <algorithm>

#include "binary/DwarfTypes.h"

namespace ctrl {

namespace {

constexpr int kMaxDepth = 16;

using dwarf_types::size_of;
using dwarf_types::type_of;

// A variable's fixed address (DW_OP_addr alone), or false (locals, TLS,
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

template <typename Add>
void scan(Dwarf_Die* die, int depth, const Add& add) {
  if (depth > 64) return;
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_variable) {
      add(&child);
    } else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
               tag == DW_TAG_namespace || tag == DW_TAG_module) {
      scan(&child, depth + 1, add);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

AddressNames::AddressNames(Dwarf* dwarf, uint64_t bias) : dwarf_(dwarf) {
  if (!dwarf) return;
  auto add = [&](Dwarf_Die* var) {
    uint64_t addr = 0;
    Dwarf_Die type;
    const char* name = dwarf_diename(var);
    if (!name || !static_address(var, &addr) || !type_of(var, &type)) return;
    uint64_t size = size_of(&type);
    if (!size) return;
    variables_.push_back({addr + bias, addr + bias + size, dwarf_dieoffset(&type), name});
  };
  Dwarf_Off offset = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf, offset + header, &cu)) scan(&cu, 0, add);
    offset = next;
  }
  std::sort(variables_.begin(), variables_.end(), [](const Variable& a, const Variable& b) {
    return a.start < b.start || (a.start == b.start && a.end > b.end);
  });
}

std::string AddressNames::static_name(uint64_t addr) const {
  auto it = std::upper_bound(variables_.begin(), variables_.end(), addr,
                             [](uint64_t a, const Variable& v) { return a < v.start; });
  // Variables do not overlap, but a declaration and its definition may both
  // be listed: any one that covers addr will do.
  while (it != variables_.begin()) {
    --it;
    if (addr < it->end) return it->name + path_in_type(it->type, addr - it->start);
    if (it->start + (1u << 20) < addr) break;
  }
  return "";
}

std::string AddressNames::path_in_type(Dwarf* dwarf, uint64_t type_offset, uint64_t offset) {
  Dwarf_Die type;
  if (!dwarf || !dwarf_offdie(dwarf, type_offset, &type)) return offset ? fmt::format("+{}", offset) : "";
  std::string path;
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    int tag = dwarf_tag(&type);
    if (tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type || tag == DW_TAG_atomic_type ||
        tag == DW_TAG_restrict_type) {
      if (!type_of(&type, &type)) break;
      continue;
    }
    if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type) {
      // The member whose bytes hold `offset` (the first, in a union).
      Dwarf_Die child, found;
      uint64_t found_at = 0;
      bool have = false;
      if (dwarf_child(&type, &child) == 0) {
        do {
          int ctag = dwarf_tag(&child);
          if (ctag != DW_TAG_member && ctag != DW_TAG_inheritance) continue;
          Dwarf_Attribute attr;
          Dwarf_Word at = 0;
          if (dwarf_attr(&child, DW_AT_data_member_location, &attr) && dwarf_formudata(&attr, &at) != 0) continue;
          Dwarf_Die member_type;
          if (!type_of(&child, &member_type)) continue;
          uint64_t size = size_of(&member_type);
          if (offset >= at && offset < at + size) {
            found = child;
            found_at = at;
            have = true;
            break;
          }
        } while (dwarf_siblingof(&child, &child) == 0);
      }
      if (!have) break;  // padding
      const char* name = dwarf_diename(&found);
      // A library type's reserved insides (pthread_mutex_t's __data.__lock)
      // say nothing to its user: the object is named, not its bytes.
      if (name && name[0] == '_' && name[1] == '_') break;
      if (dwarf_tag(&found) == DW_TAG_member && name) path += std::string(".") + name;
      offset -= found_at;
      if (!type_of(&found, &type)) break;
      continue;
    }
    if (tag == DW_TAG_array_type) {
      Dwarf_Die element;
      if (!type_of(&type, &element)) break;
      uint64_t each = size_of(&element);
      if (!each) break;
      path += fmt::format("[{}]", offset / each);
      offset %= each;
      type = element;
      continue;
    }
    break;  // a scalar, pointer or enum: a leaf
  }
  if (offset) path += fmt::format("+{}", offset);
  return path;
}

}  // namespace ctrl
