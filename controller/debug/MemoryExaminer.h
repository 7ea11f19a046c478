// gdb's memory examination: `x/FMT ADDRESS`.
//
// FMT is [count][format][unit] (letters in any order after the count):
// formats x z d u o t c a f s i, units b h w g. As in gdb the format and unit
// are remembered from one call to the next (initially x and w), `a` always
// uses 8-byte units, `c` bytes unless a unit is given, and `x` without an
// address continues after the last unit examined.
//
// Invariants:
//  - Output lines are gdb's: "0x555555558010 <counter>:\t0x00000002\t..."
//    with 8 units a line for b and h, 4 for w, 2 for g, one string or
//    instruction a line (instructions in AT&T syntax, decoded by capstone).
//  - ADDRESS is a number (0x.., decimal) or an expression naming an object,
//    with or without '&': its address is examined (not its value, unlike
//    gdb for a scalar variable).
//  - Bad input throws UsageError with one line; memory that cannot be read
//    ends the output with gdb's "Cannot access memory at address 0x..."
//    line (throws if not even the first unit is readable).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "debug/VariablePrinter.h"

namespace ctrl {

class MemoryExaminer {
 public:
  // Address of an expression written without '&' (e.g. bound to
  // VariablePrinter::address_of with the current thread's pointer);
  // nullopt when it names nothing.
  using Resolver = std::function<std::optional<uint64_t>(const std::string& expression)>;
  // "name" or "name+4" when a symbol covers addr, else "" (e.g.
  // VariablePrinter::symbol_at).
  using Namer = std::function<std::string(uint64_t addr)>;

  MemoryExaminer(Resolver resolve, Namer name);

  // ARGUMENTS is what follows "x": "/FMT ADDRESS", "ADDRESS", "/FMT" or "".
  // Returns the lines, separated by '\n', without a final newline.
  std::string examine(const std::string& arguments, const MemoryReader& read);

 private:
  std::string label(uint64_t addr) const;
  std::string unit_text(char format, unsigned unit, uint64_t raw) const;

  Resolver resolve_;
  Namer name_;
  char format_ = 'x';
  unsigned unit_ = 4;
  std::optional<uint64_t> next_;
};

}  // namespace ctrl
