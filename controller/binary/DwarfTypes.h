// Small readings of a DWARF type that every walker over variables needs
// (AddressNames names an address by its field path, AtomicDeclarations lists
// atomic fields): libdw answers both, but each answer takes two calls.
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstdint>

namespace ctrl::dwarf_types {

// The DIE's DW_AT_type (through DW_AT_abstract_origin/specification), into
// *out; false when it has none (void).
inline bool type_of(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Attribute attr;
  return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, out);
}

// The type's size in bytes, 0 when DWARF does not give one.
inline uint64_t size_of(Dwarf_Die* type) {
  Dwarf_Word size = 0;
  return dwarf_aggregate_size(type, &size) == 0 ? size : 0;
}

}  // namespace ctrl::dwarf_types
