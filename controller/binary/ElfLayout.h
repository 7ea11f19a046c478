// The parts of an ELF file's headers the site decoder needs: its executable
// segments and its section headers, read with every offset checked against
// the file (MappedFile), so a malformed file yields less, never a bad read.
#pragma once

#include <elf.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binary/MappedFile.h"

namespace ctrl::decoding {

// Link-time virtual addresses [start, end).
struct Range {
  uint64_t start;
  uint64_t end;  // exclusive
};

// The file-backed part of an executable PT_LOAD: only those bytes can hold
// code (the rest of p_memsz is zero-filled). Also used for the parts of
// executable sections inside them.
struct ExecSegment {
  uint64_t vaddr;
  uint64_t size;
  uint64_t offset;
};

// Section::name points into the mapped file: a layout is valid only as long
// as the MappedFile it was read from.
struct Section {
  std::string_view name;
  Elf64_Shdr hdr;
};

struct ElfLayout {
  Elf64_Ehdr ehdr;
  std::vector<ExecSegment> exec;
  std::vector<Section> sections;
};

// Reads the ELF header, the executable PT_LOAD segments and, when present,
// the section headers with their names. Throws UsageError (ExitStatus.h)
// naming `path` unless the file is an x86-64 little-endian ET_EXEC or ET_DYN
// with well-formed program headers. Section headers are optional (sstrip):
// when missing or unreadable, `sections` is empty.
ElfLayout read_layout(const MappedFile& file, const std::string& path);

// File bytes of a section, or nullptr if it has none or they lie outside.
const uint8_t* section_data(const MappedFile& file, const Elf64_Shdr& sh);

}  // namespace ctrl::decoding
