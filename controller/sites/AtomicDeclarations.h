// Reads DeclaredAtomics (analyses/DeclaredAtomics.h) from a program's DWARF:
// atomic and volatile globals, statics and their fields, and the code
// inlined from atomic member functions. Done once per session, when the
// race check first needs it.
#pragma once

#include <cstdint>

#include "DeclaredAtomics.h"

struct Dwarf;

namespace ctrl {

// `bias`: the module's load bias. A null `dwarf` (no debug information)
// gives an empty result with had_debug_info false. Thread-local variables
// are left out (each thread has its own: no race between threads).
DeclaredAtomics read_declared_atomics(Dwarf* dwarf, uint64_t bias);

}  // namespace ctrl
