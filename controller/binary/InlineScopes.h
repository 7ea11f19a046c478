// The functions an address was inlined into, from DWARF's inline scopes
// (DW_TAG_inlined_subroutine): what a debugger shows as frames of their
// own for one instruction, so that a report says `pool_stop at pool.c:50,
// inlined in main at pool.c:59` where the symbol table alone says
// `main+0x6b`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct Dwfl_Module;

namespace ctrl {

// One inlined call around an address, innermost first: `function` was
// inlined at `file:line` (basename) of the function around it.
struct InlinedCall {
  std::string function;
  std::string file;
  int line = 0;
};

// Empty when addr is in no inlined code, or the module has no DWARF.
std::vector<InlinedCall> inlined_calls(Dwfl_Module* module, uint64_t addr);

}  // namespace ctrl
