// Names heap memory the way a debugger would through the pointer the code
// used: an instruction `mov 0x5c(%rbx),%eax` in `worker`, where DWARF says
// the parameter `p` (a `struct pool *`) is in %rbx at that pc, read
// `p->stop`. The block the pointer points to (its type's size from `p`'s
// base) is then known for the whole report: a pthread call on its first
// bytes is on `p->lock`, even from code where no variable holds `p`.
//
// Invariants:
//  - Only instructions whose memory operand is a base register plus a
//    displacement (no index) are used, and only a variable whose location
//    at that exact pc is that register (DW_OP_regN), of pointer type.
//  - A block learnt once keeps its first name (the first instruction of
//    the execution that touched it).
//  - Heap and other non-module memory only: static data has AddressNames.
#pragma once

#include <cstdint>
#include <vector>

#include "SharedRegion.h"

namespace ctrl {

class Symbolizer;

// Forgets the blocks named before (another execution's heap), then learns,
// from the execution's instruction events, names for the blocks
// their pointers reached, into `symbols` (Symbolizer::name_block).
void learn_pointer_names(const std::vector<shm::Event>& events, Symbolizer& symbols);

}  // namespace ctrl
