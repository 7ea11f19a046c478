// Names a static address the way a debugger prints it: the variable that
// holds it and the path down its DWARF type to the byte, `q.count`,
// `q.slot[2]`, `stats.total`, rather than the symbol table's `q+16`.
//
// Invariants:
//  - Built once per module from its DWARF: every global, static and
//    function-static variable with a fixed address (DW_OP_addr), sorted by
//    address; thread-locals and variables without a location are left out.
//  - A name is only given for a byte that a variable's type covers; the
//    path stops at the innermost member or element that holds it, and says
//    `+N` for a byte inside a leaf (the middle of an int).
//  - Not thread-safe (libdw's DIE reads are not).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct Dwarf;

namespace ctrl {

class AddressNames {
 public:
  // `bias`: the module's load bias. A null `dwarf` names nothing.
  AddressNames(Dwarf* dwarf, uint64_t bias);

  // "q.count", "x", "table[3].key", or "" when no variable holds addr.
  std::string static_name(uint64_t addr) const;

  // The path inside a value of the type at DIE offset `type` to byte
  // `offset`: ".count", "[2]", "->"-free (no pointer is followed); "" at
  // offset 0 of a scalar, "+N" inside a leaf.
  std::string path_in_type(uint64_t type, uint64_t offset) const { return path_in_type(dwarf_, type, offset); }
  // The same in any module's DWARF (a heap block's type, PointerNames.h).
  static std::string path_in_type(Dwarf* dwarf, uint64_t type, uint64_t offset);

 private:
  struct Variable {
    uint64_t start = 0, end = 0;  // [start, end), load address
    uint64_t type = 0;            // DIE offset of its type
    std::string name;
  };
  Dwarf* dwarf_ = nullptr;
  std::vector<Variable> variables_;  // sorted by start
};

}  // namespace ctrl
