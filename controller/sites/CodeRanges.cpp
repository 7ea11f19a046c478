#include "sites/CodeRanges.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "binary/EhFrame.h"

namespace ctrl::decoding {
namespace {

void add_symbol_ranges(const MappedFile& file, const ElfLayout& elf, std::vector<Range>& out) {
  for (const Section& sec : elf.sections) {
    if (sec.hdr.sh_type != SHT_SYMTAB && sec.hdr.sh_type != SHT_DYNSYM) continue;
    const uint8_t* data = section_data(file, sec.hdr);
    if (!data) continue;
    uint64_t n = sec.hdr.sh_size / sizeof(Elf64_Sym);
    for (uint64_t i = 0; i < n; ++i) {
      Elf64_Sym sym;
      std::memcpy(&sym, data + i * sizeof(Elf64_Sym), sizeof sym);
      int type = ELF64_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_size == 0 || sym.st_shndx == SHN_UNDEF) continue;
      if (sym.st_value + sym.st_size < sym.st_value) continue;
      out.push_back({sym.st_value, sym.st_value + sym.st_size});
    }
  }
}

bool is_plt(std::string_view name) {
  return name == ".plt" || name == ".plt.got" || name == ".plt.sec" || name == ".plt.bnd";
}

// Where code can be: executable sections (.init, .text, .fini, ...) inside
// the file-backed part of executable segments. Clipping to sections, not
// just segments, keeps stray ranges (an FDE of a discarded function left at
// address 0) off the ELF headers and read-only data that older layouts map
// executable.
std::vector<ExecSegment> code_regions(const ElfLayout& elf) {
  std::vector<ExecSegment> out;
  for (const Section& sec : elf.sections) {
    const Elf64_Shdr& sh = sec.hdr;
    if (sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    for (const ExecSegment& seg : elf.exec) {
      uint64_t start = std::max(sh.sh_addr, seg.vaddr);
      uint64_t end = std::min(sh.sh_addr + sh.sh_size, seg.vaddr + seg.size);
      if (start < end) out.push_back({start, end - start, seg.offset + (start - seg.vaddr)});
    }
  }
  return out;
}

// `ranges` intersected with the regions, minus the holes (PLT sections).
std::vector<Piece> clip(const std::vector<Range>& ranges, const std::vector<ExecSegment>& regions,
                        const std::vector<Range>& holes) {
  std::vector<Piece> out;
  for (const Range& r : ranges) {
    for (size_t region = 0; region < regions.size(); ++region) {
      const ExecSegment& reg = regions[region];
      uint64_t start = std::max(r.start, reg.vaddr);
      uint64_t end = std::min(r.end, reg.vaddr + reg.size);
      if (start >= end) continue;
      std::vector<Range> parts{{start, end}};
      for (const Range& h : holes) {
        std::vector<Range> next;
        for (const Range& p : parts) {
          if (h.end <= p.start || h.start >= p.end) {
            next.push_back(p);
            continue;
          }
          if (p.start < h.start) next.push_back({p.start, h.start});
          if (h.end < p.end) next.push_back({h.end, p.end});
        }
        parts = std::move(next);
      }
      for (const Range& p : parts) out.push_back({p.start, p.end, region});
    }
  }
  return out;
}

}  // namespace

CodeRanges find_code_ranges(const MappedFile& file, const ElfLayout& elf, bool syscalls_only) {
  std::vector<Range> holes;
  for (const Section& sec : elf.sections) {
    if (is_plt(sec.name) && sec.hdr.sh_size > 0) holes.push_back({sec.hdr.sh_addr, sec.hdr.sh_addr + sec.hdr.sh_size});
  }

  CodeRanges out;
  out.regions = code_regions(elf);
  const std::vector<ExecSegment>& regions = out.regions;
  std::vector<Range> ranges;
  add_symbol_ranges(file, elf, ranges);
  add_eh_frame_ranges(file, elf, ranges);
  std::vector<Piece> pieces = clip(ranges, regions, holes);
  if (pieces.empty()) {
    // Nothing marks a function start, but each executable section starts
    // with an instruction.
    ranges.clear();
    for (const ExecSegment& reg : regions) ranges.push_back({reg.vaddr, reg.vaddr + reg.size});
    pieces = clip(ranges, regions, holes);
  }

  std::vector<uint64_t>& starts = out.starts;
  starts.reserve(pieces.size());
  for (const Piece& p : pieces) starts.push_back(p.start);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());

  if (syscalls_only) {
    // Only the code ranges that hold the bytes of a `syscall`, an rdtsc or
    // an rdtscp at all (in step or not: decoding tells); a library's other
    // functions are not decoded, which keeps this cheap for big libraries.
    std::erase_if(pieces, [&](const Piece& p) {
      const ExecSegment& seg = regions[p.region];
      const uint64_t n = p.end - p.start;
      const uint8_t* code = file.at(seg.offset + (p.start - seg.vaddr), n);
      if (!code) return true;
      for (uint64_t k = 0; k + 1 < n; ++k) {
        if (code[k] != 0x0f) continue;
        if (code[k + 1] == 0x05 || code[k + 1] == 0x31) return false;
        if (code[k + 1] == 0x01 && k + 2 < n && code[k + 2] == 0xf9) return false;
      }
      return true;
    });
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return a.region != b.region ? a.region < b.region : a.start < b.start;
  });
  std::vector<Piece>& merged = out.pieces;
  for (const Piece& p : pieces) {
    if (!merged.empty() && merged.back().region == p.region && p.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, p.end);
    } else {
      merged.push_back(p);
    }
  }
  return out;
}

}  // namespace ctrl::decoding
