// The local variables and parameters of one frame of a stopped thread: which
// DWARF variable a name means at the frame's pc, and where its value is
// (memory, registers, or computed), for VariablePrinter.
//
// Invariants:
//  - Scopes and location lists are looked up at the frame's pc, or at pc - 1
//    when the pc is a return address (FrameContext::exact_pc false), so a
//    call that ends a block still counts as inside it.
//  - Names are searched as gdb does: the innermost lexical block containing
//    the pc, outwards to the function, which holds its own locals and
//    parameters. Statics of those scopes are found here too, with their
//    static address. gdb shows an inlined function as a frame of its own;
//    here it is part of its caller's frame: its locals and parameters come
//    first, then those of the blocks and function it is inlined in.
//  - Only the registers the frame knows are used. A value in a register it
//    does not know is unavailable: "<not saved>" for a caller-saved register
//    of an outer frame, "<optimized out>" otherwise, as gdb shows them.
//    Vector and x87 registers are not in FrameContext: "<not saved>" in an
//    outer frame (they are all caller-saved), a UsageError in the innermost.
//  - DWARF locations are evaluated by a small stack machine: DW_OP_addr,
//    fbreg (frame base: DW_OP_call_frame_cfa through the module's CFI, or a
//    register), breg/bregx, reg/regx, piece (an empty piece, or one in a
//    register the frame does not know, leaves its bytes missing), stack_value, implicit_value, literals, constants,
//    arithmetic and comparisons. An entry value is shown as
//    "<optimized out>" (its caller's value is not recovered); any other
//    operation throws UsageError naming it.
//  - The Dwarf_Dies returned stay valid while the Dwfl the frame was opened
//    with is (VariablePrinter keeps it for its lifetime).
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "debug/VariablePrinter.h"

namespace ctrl {

// Where a variable's value is at one pc of one frame.
struct Whereabouts {
  enum class Kind { kMemory, kBytes, kUnavailable };
  Kind kind = Kind::kUnavailable;
  uint64_t address = 0;        // kMemory: the object's address
  std::vector<uint8_t> bytes;  // kBytes: the value itself (from registers, or computed)
  std::vector<bool> missing;   // kBytes: bytes no piece gave (padding, or lost); empty: none
  std::string unavailable;     // kUnavailable: what gdb shows instead of the value
};

class FrameLocals {
 public:
  // Finds the frame's module, compile unit and scopes; a pc without DWARF
  // leaves the frame without locals.
  FrameLocals(Dwfl* dwfl, const FrameContext& frame, const MemoryReader& read);

  // The variable or parameter `name` designates in this frame, or nullopt.
  std::optional<Dwarf_Die> find(const std::string& name) const;

  // Where `variable`'s value is; `size` is the size of its type. Throws
  // UsageError for DWARF the evaluator does not support.
  Whereabouts locate(Dwarf_Die variable, uint64_t size) const;

  // The module of the frame's pc (nullptr: none).
  Dwfl_Module* module() const { return module_; }

 private:
  friend class LocationEvaluator;
  // The frame base of the frame's function (DW_AT_frame_base).
  uint64_t frame_base(const std::string& name) const;
  // The canonical frame address, from the module's CFI at the lookup pc.
  uint64_t cfa(const std::string& name) const;

  const FrameContext& frame_;
  const MemoryReader& read_;
  Dwfl_Module* module_ = nullptr;
  Dwarf_Addr bias_ = 0;
  uint64_t lookup_pc_ = 0;             // the run-time pc scopes are looked up at
  std::vector<Dwarf_Die> scopes_;      // innermost first, to the innermost function
  std::optional<Dwarf_Die> function_;  // the out-of-line function: its frame base
};

}  // namespace ctrl
