#include "sites/SiteDecoder.h"

#include <algorithm>

#include "sites/CodeRanges.h"
#include "binary/ElfLayout.h"
#include "sites/InstructionLength.h"
#include "binary/MappedFile.h"
#include "sites/PatchPlanner.h"
#include "sites/SiteClassifier.h"

namespace ctrl {

DecodedModule decode_sites(const std::string& path, uint8_t module, bool syscalls_only) {
  using namespace decoding;
  MappedFile file(path);
  ElfLayout elf = read_layout(file, path);

  DecodedModule result;
  result.path = path;
  result.file_size = file.size();

  const CodeRanges ranges = find_code_ranges(file, elf, syscalls_only);
  const std::vector<ExecSegment>& regions = ranges.regions;
  const std::vector<uint64_t>& starts = ranges.starts;
  result.functions = starts.size();

  SiteClassifier classifier;
  PatchPlanner planner;
  for (const Piece& piece : ranges.pieces) {
    const ExecSegment& seg = regions[piece.region];
    const uint8_t* base = file.at(seg.offset, seg.size);
    if (!base) continue;
    auto boundary = std::lower_bound(starts.begin(), starts.end(), piece.start);
    uint64_t pos = piece.start;
    // In step: every byte since the last known start was decoded as whole
    // instructions of known length. Out of step, an instruction may be the
    // tail of another, and an int3 patched there would corrupt it.
    bool in_step = true;
    while (pos < piece.end) {
      while (boundary != starts.end() && *boundary <= pos) {
        if (*boundary == pos) in_step = true;
        ++boundary;
      }
      const uint8_t* code = base + (pos - seg.vaddr);
      const size_t avail = piece.end - pos;
      if (!classifier.decode(code, avail, pos)) {
        ++result.resyncs;
        auto length = encoded_length(code, avail);
        if (in_step && length) {
          pos += *length;  // an instruction capstone does not know: skip it whole
        } else {
          ++pos;
          in_step = false;
        }
        continue;
      }
      const cs_insn& insn = classifier.insn();
      const uint64_t next = pos + insn.size;
      if (boundary != starts.end() && *boundary < next) {
        // Decoding from `pos` disagrees with a known instruction start.
        pos = *boundary;
        ++result.resyncs;
        continue;
      }
      result.bytes_decoded += insn.size;
      // For the jump planner: branch targets, indirect jumps, and whether
      // this instruction could run from a trampoline.
      planner.add(pos, code, insn, in_step);
      Site site;
      if (classifier.classify(insn, site) &&
          (!syscalls_only || site.kind == SiteKind::Syscall || site.kind == SiteKind::Tsc)) {
        if (in_step) {
          site.module = module;
          site.dead = classifier.dead_registers(code, avail, pos);
          result.sites.push_back(site);
        } else {
          ++result.sites_out_of_step;
        }
      }
      pos = next;
    }
  }

  std::sort(result.sites.begin(), result.sites.end(), [](const Site& a, const Site& b) { return a.offset < b.offset; });
  result.sites.erase(std::unique(result.sites.begin(), result.sites.end(),
                                 [](const Site& a, const Site& b) { return a.offset == b.offset; }),
                     result.sites.end());
  planner.plan(result, starts);
  return result;
}

}  // namespace ctrl
