// How each site is patched (SitePatch, protocol/SiteTable.h): a 5-byte jmp
// to a trampoline where the bytes allow it, an int3 otherwise. The planner
// sees every instruction the decoder decoded, so it can move the
// instructions after a short site (or, failing that, right before it) into
// the trampoline when nothing can branch into them.
#pragma once

#include <capstone/capstone.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "sites/SiteDecoder.h"

namespace ctrl::decoding {

// What the patch planner needs of every decoded instruction.
struct InsnInfo {
  uint64_t addr;
  const uint8_t* bytes;
  uint8_t size;
  bool in_step;
  bool movable;     // no control flow, nothing position-dependent but a rip-relative displacement
  int8_t rip_disp;  // offset of a rip-relative disp32, or -1
};

class PatchPlanner {
 public:
  // Records the instruction `insn` decoded at `addr` from `code` (which must
  // stay valid until plan()); `in_step` as in decode_sites(): decoded from a
  // known instruction boundary. Collects branch targets, indirect jumps, and
  // whether the instruction could run from a trampoline.
  void add(uint64_t addr, const uint8_t* code, const cs_insn& insn, bool in_step);

  // Fills result.patches (one per site, same order) and result.jump_sites.
  // result.sites must be sorted by offset with at most one per offset;
  // `starts` (the known instruction boundaries, CodeRanges.h) sorted and
  // unique. A site of 5 bytes or more takes a jmp alone; a shorter one only
  // with the instructions right after it, and only when every one of those
  // was recorded in step, is movable, is not a site, not a branch target or
  // known start, and the function (the code from the last known start) has
  // no indirect jump (a jump table could land on any of them). Failing that,
  // with the instructions right before it under the same rules, none covered
  // by an earlier site's jmp, where the site itself is no branch target or
  // known start (the first of them may be: a branch there lands on the jmp). Syscall and
  // Tsc sites always keep an int3 (length 0): the agent performs their call,
  // or answers their read, itself.
  // Bytes that an instruction reads rip-relative (not `lea`) are data, even
  // amid code (V8's builtins load constants from earlier instructions'
  // immediates): a jmp never goes over them (the site takes an int3), and a
  // site whose first byte is such data is left out (result.sites shrinks,
  // counted in result.sites_read_as_data).
  void plan(DecodedModule& result, const std::vector<uint64_t>& starts);

 private:
  std::vector<InsnInfo> insns_;
  std::vector<uint64_t> targets_, indirect_jumps_;
  std::vector<std::pair<uint64_t, uint64_t>> data_reads_;  // [start, end) read rip-relative
};

}  // namespace ctrl::decoding
