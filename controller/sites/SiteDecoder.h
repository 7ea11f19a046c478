// Finds the instruction sites of one ELF file on disk: every instruction that
// accesses memory or fences, classified into a Site record (protocol/
// SiteTable.h) that the agent can act on without a disassembler, with the
// way each one is patched.
//
// Decoding never sweeps blindly. It starts only at known instruction
// boundaries -- function symbols with a size (.symtab, .dynsym) and .eh_frame
// FDE ranges (CodeRanges.h) -- and walks each merged range linearly. When
// capstone cannot decode an instruction (capstone 4 lacks many AVX-512
// forms), a VEX/EVEX/0F-map instruction is skipped whole, its length taken
// from the encoding (InstructionLength.h); anything else is skipped one byte
// at a time, and from then on decoding is "out of step" until the next known
// boundary: instructions found there may be the tails of others, so they
// yield no sites (an int3 inside a real instruction would corrupt it). An
// instruction that would straddle a known boundary is dropped and decoding
// restarts at the boundary. PLT sections are left out: their indirect jumps
// and GOT pushes belong to the dynamic linker, not to the program.
//
// The pieces: MappedFile and ElfLayout read the file, CodeRanges (with
// EhFrame) says where to decode, SiteClassifier says what is a site (its
// rules are documented on classify()), RegisterLiveness fills Site::dead and
// PatchPlanner chooses each site's SitePatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "SiteTable.h"

namespace ctrl {

struct DecodedModule {
  std::string path;
  uint64_t file_size = 0;
  std::vector<Site> sites;  // sorted by offset, at most one per offset
  std::vector<SitePatch> patches;  // one per site, same order
  uint64_t jump_sites = 0;  // sites a jmp can cover (alone or with the instructions after them)
  uint64_t functions = 0;   // distinct code-range starts decoding began from
  uint64_t bytes_decoded = 0;  // bytes covered by successfully decoded instructions
  uint64_t resyncs = 0;     // undecodable instructions or bytes skipped + restarts at a known boundary
  uint64_t sites_out_of_step = 0;  // would-be sites left out: decoded where decoding was not known to be in step
  uint64_t sites_read_as_data = 0;  // would-be sites left out: their first byte is read as data (PatchPlanner.h)
};

// Decodes the executable segments of the ELF file at `path` (ET_EXEC or
// ET_DYN, x86-64) and returns every memory-accessing or fence instruction as
// a Site, with Site::offset the link-time virtual address and Site::module =
// `module`. Throws UsageError (ExitStatus.h) with one line naming `path` if
// the file cannot be read or is not an x86-64 ELF executable or shared object.
//
// Code ranges: function symbols (STT_FUNC/STT_GNU_IFUNC, size > 0, defined)
// and FDEs of the .eh_frame section, clipped to executable (SHF_EXECINSTR)
// sections inside the file-backed part of executable PT_LOAD segments, minus
// .plt/.plt.got/.plt.sec/.plt.bnd. Only when a file has neither symbols nor
// FDEs (stripped and built without unwind tables) are its executable
// sections decoded whole from their starts. A file without section headers
// (sstrip) yields no sites: nothing in it tells code from data.
//
// `syscalls_only`: only `syscall`, rdtsc and rdtscp instructions, and only
// code ranges whose bytes contain theirs are decoded (the program's other
// libraries).
DecodedModule decode_sites(const std::string& path, uint8_t module, bool syscalls_only = false);

}  // namespace ctrl
