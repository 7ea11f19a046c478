// Bytes of a target's memory shown as values of their DWARF types, the way
// gdb's `print` shows them (libdw). VariablePrinter finds the objects;
// this file knows types: their names, sizes and how their values read.
//
// Invariants:
//  - A DwarfType is a DWARF type plus what expressions add on top: levels of
//    '&' (pointers to the type) and, for arrays, leading dimensions already
//    indexed away. Its Dwarf_Die stays valid while the Dwarf it came from is
//    open (VariablePrinter keeps every module's DWARF for its lifetime).
//  - Formatting reads the target only through the MemoryReader, and only to
//    follow a char pointer (its string) or a reference; an unreadable one is
//    shown as gdb does ("<error: Cannot access memory at address 0x..>").
//  - Arrays and strings show at most 200 elements (gdb's print elements)
//    and collapse runs of more than 10 equal elements (gdb's print repeats).
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "debug/VariablePrinter.h"

namespace ctrl {

// The largest value read to print it; larger arrays show their first part.
constexpr uint64_t kMaxValueBytes = 1 << 20;

struct DwarfType {
  std::optional<Dwarf_Die> die;  // nullopt: void
  unsigned pointers = 0;         // '&' taken this many times on top of die
  unsigned dims = 0;             // die is an array with this many dimensions indexed
};

// DW_AT_type of die (following DW_AT_specification/abstract_origin).
bool die_type(Dwarf_Die* die, Dwarf_Die* out);
// die without typedefs and qualifiers; false for void.
bool peel_type(Dwarf_Die die, Dwarf_Die* out);
uint64_t die_udata(Dwarf_Die* die, unsigned attribute, uint64_t otherwise);
uint64_t type_size(const DwarfType& t);
// What a pointer, reference or array type designates; nullopt for others.
std::optional<DwarfType> type_pointee(const DwarfType& t);
// As C writes it: "int *", "int (*)[3]", "struct s", "void (*)(int)".
std::string type_name(const DwarfType& t);
// A byte as gdb shows it inside quotes `quote`: escapes, octal for the rest.
std::string escaped(uint8_t c, char quote);

class ValueFormatter {
 public:
  // `symbol_at`: "name" or "name+4" for an address a symbol covers, else "".
  ValueFormatter(const MemoryReader& read, std::function<std::string(uint64_t)> symbol_at);

  // The value of type t held in p[0..n). `top`: the outermost value, where
  // gdb prefixes pointers with their type: "(int *) 0x... <counter>".
  std::string format(const DwarfType& t, const uint8_t* p, size_t n, bool top);
  // A pointer of type t whose value is `value`.
  std::string format_pointer(const DwarfType& t, uint64_t value, bool top);
  // Marks bytes of the buffer at `base` that the value's location did not
  // give (missing[i] for base[i], as for a local whose pieces are partly
  // optimized out): a scalar with such a byte shows as "<optimized out>".
  void set_missing(const uint8_t* base, const std::vector<bool>* missing) {
    base_ = base;
    missing_ = missing;
  }

 private:
  std::string format_base(Dwarf_Die d, const uint8_t* p, size_t n);
  std::string format_enum(Dwarf_Die d, const uint8_t* p, size_t n);
  std::string format_array(Dwarf_Die arr, unsigned dims_done, const uint8_t* p, size_t n);
  std::string format_struct(Dwarf_Die d, const uint8_t* p, size_t n);

  bool lost(const DwarfType& t, const uint8_t* p, size_t n) const;

  const MemoryReader& read_;
  std::function<std::string(uint64_t)> symbol_at_;
  const uint8_t* base_ = nullptr;
  const std::vector<bool>* missing_ = nullptr;
};

}  // namespace ctrl
