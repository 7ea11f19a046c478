// What the program's debug information says is atomic, for the race check
// of sequentially consistent executions (HbRaces.h): gcc compiles relaxed,
// acquire and release loads and stores to plain movs, so an instruction
// site alone cannot tell an inline atomic from a plain access.
//
//  * variables: address ranges of global, static and function-static
//    objects whose type is atomic (C `_Atomic`, C++ `std::atomic<...>`,
//    `std::__atomic_base<...>`, `std::atomic_flag`, Rust `core::sync::atomic`
//    types) or volatile-qualified (marked, as the Linux kernel's KCSAN
//    treats them), per field and array element: a plain `int z` beside an
//    `atomic_int x` in one struct is not covered;
//  * code: instruction ranges inlined from an atomic type's member function
//    (C++ `std::atomic<T>::load`, Rust `AtomicUsize::store` ...), whose
//    plain movs are atomic accesses on whatever object they touch.
//
// Invariants: after finish(), both lists are sorted by start and their
// ranges do not overlap (an overlap keeps the first range added), so a
// lookup is one binary search.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ctrl {

enum class AtomicEvidence : uint8_t {
  None,
  DwarfAtomic,    // an atomic-typed variable or field
  DwarfVolatile,  // a volatile-qualified variable or field
  InlineScope,    // an instruction inlined from an atomic member function
  AtomicEvent,    // bytes a libatomic call, a locked instruction or a futex touched in the execution
};

// "DWARF _Atomic", "volatile", ... as the report's "treated as atomic" line says it.
const char* evidence_name(AtomicEvidence e);

class DeclaredAtomics {
 public:
  struct Range {
    uint64_t start = 0, end = 0;  // [start, end)
    std::string name;             // "s.x", "flags[2]", "std::atomic<int>::load"
    AtomicEvidence why = AtomicEvidence::None;
  };

  void add_variable(uint64_t start, uint64_t end, std::string name, AtomicEvidence why);
  void add_code(uint64_t start, uint64_t end, std::string name);
  // Sorts and drops overlaps; lookups are valid from then on.
  void finish();

  // The atomic variable or field holding byte `addr`, or null.
  const Range* variable_at(uint64_t addr) const { return find(variables_, addr); }
  // The first atomic variable or field with a byte in [addr, addr + size), or null.
  const Range* variable_in(uint64_t addr, uint64_t size) const;
  // The atomic member function instruction `pc` was inlined from, or null.
  const Range* code_at(uint64_t pc) const { return find(code_, pc); }

  // Names of the plain fields of static structs ("stats.total"), for
  // reports: add_field, then field_at after finish().
  void add_field(uint64_t start, uint64_t end, std::string name);
  const Range* field_at(uint64_t addr) const { return find(fields_, addr); }

  bool empty() const { return variables_.empty() && code_.empty(); }
  size_t variables() const { return variables_.size(); }
  size_t code_ranges() const { return code_.size(); }
  // Whether any DWARF was read at all (a program without debug info has
  // only the execution's own atomic events as evidence).
  bool had_debug_info = false;

 private:
  static const Range* find(const std::vector<Range>& list, uint64_t addr);
  static void normalise(std::vector<Range>& list);
  std::vector<Range> variables_, code_, fields_;
};

}  // namespace ctrl
