// Whether a program that calls no libatomic function still has atomics of
// its own, which --model c11/rc11 cannot follow: compiled inline, their
// memory orders are gone from the code (a relaxed, acquire or release load
// or store is a plain mov; a read-modify-write of any order a locked
// instruction). A program with no atomics at all (every synchronisation a
// pthread call) is one c11/rc11 checks in full: its plain accesses are
// non-atomic, and a data race among them is a bug.
//
// The evidence, in the program's own code only (libraries synchronise
// through their own calls, which ctrl sees or interposes):
//  * atomic instructions: lock-prefixed, xchg with memory, mfence (what
//    gcc and clang emit for read-modify-writes, compare-exchanges,
//    seq_cst stores and seq_cst fences; also __sync_* builtins and inline
//    assembly);
//  * in its debug information, a variable, member or parameter of atomic
//    type (through typedefs, qualifiers, arrays and pointers): C's _Atomic
//    (DW_TAG_atomic_type) or C++'s std::atomic, std::atomic_ref and
//    std::atomic_flag (a program whose only atomics are relaxed, acquire
//    and release loads and stores has no atomic instruction). Types alone do
//    not count: including <stdatomic.h> declares a dozen.
// Not seen: __atomic_load_n/__atomic_store_n on plain types with only
// relaxed/acquire/release orders in a program without debug information,
// and atomics in a static library built without -g: such accesses are
// plain to ctrl, and a race reported on one is false.
#pragma once

#include <optional>
#include <string>

namespace ctrl {

struct InlineAtomicsFound {
  // "3 lock/xchg/mfence instructions, first in worker" (or "at 0x1189"),
  // "atomic object flag in its debug information".
  std::string evidence;
};

// nullopt: neither kind of evidence (the program has no atomics, or only
// ones ctrl cannot tell from plain accesses: see above). Throws UsageError
// when the file cannot be decoded.
std::optional<InlineAtomicsFound> find_inline_atomics(const std::string& program);

// Whether the program carries DWARF debug information (without it, inline
// relaxed/acquire/release atomics cannot be recognised at all).
bool has_debug_info(const std::string& program);

}  // namespace ctrl
