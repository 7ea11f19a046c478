// Where a module's code is and where its instructions are known to start:
// the ranges the site decoder walks. Decoding never sweeps blindly: it starts
// only at known instruction boundaries -- function symbols with a size
// (.symtab, .dynsym) and .eh_frame FDE ranges -- clipped to executable
// (SHF_EXECINSTR) sections inside the file-backed part of executable PT_LOAD
// segments, minus .plt/.plt.got/.plt.sec/.plt.bnd (their indirect jumps and
// GOT pushes belong to the dynamic linker, not to the program). Only when a
// file has neither symbols nor FDEs are its executable sections taken whole
// from their starts; a file without section headers has no code ranges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "binary/ElfLayout.h"
#include "binary/MappedFile.h"

namespace ctrl::decoding {

// A code range inside one region; merging never joins two regions.
struct Piece {
  uint64_t start;
  uint64_t end;
  size_t region;  // index into CodeRanges::regions
};

struct CodeRanges {
  // Executable sections (.init, .text, .fini, ...) inside the file-backed
  // part of executable segments; `offset` is the file offset of `vaddr`.
  std::vector<ExecSegment> regions;
  // What to decode: sorted by (region, start), overlapping pieces of one
  // region merged, each within its region and outside the PLT sections.
  std::vector<Piece> pieces;
  // Known instruction boundaries (function and FDE starts, after clipping),
  // sorted, unique; taken before the `syscalls_only` filter.
  std::vector<uint64_t> starts;
};

// `syscalls_only`: keep only the pieces whose bytes contain 0f 05, 0f 31 or
// 0f 01 f9 (the bytes of a `syscall`, an rdtsc, an rdtscp, in step or not),
// so a big library's other functions are not decoded. `starts` is the same
// either way.
CodeRanges find_code_ranges(const MappedFile& file, const ElfLayout& elf, bool syscalls_only);

}  // namespace ctrl::decoding
