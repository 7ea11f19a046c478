#include "binary/ElfLayout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cli/ExitStatus.h"

namespace ctrl::decoding {

ElfLayout read_layout(const MappedFile& file, const std::string& path) {
  ElfLayout elf{};
  const std::string not_elf = fmt::format("{}: not an x86-64 ELF executable or shared object", path);
  if (!file.read(0, elf.ehdr) || std::memcmp(elf.ehdr.e_ident, ELFMAG, SELFMAG) != 0 ||
      elf.ehdr.e_ident[EI_CLASS] != ELFCLASS64 || elf.ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
      elf.ehdr.e_machine != EM_X86_64 || (elf.ehdr.e_type != ET_EXEC && elf.ehdr.e_type != ET_DYN)) {
    throw UsageError(not_elf);
  }
  const Elf64_Ehdr& eh = elf.ehdr;

  if (eh.e_phnum > 0 && eh.e_phentsize != sizeof(Elf64_Phdr)) throw UsageError(not_elf);
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!file.read(eh.e_phoff + i * sizeof(Elf64_Phdr), ph)) throw UsageError(not_elf);
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    // A segment claiming bytes past the end of the file keeps what exists.
    uint64_t size = std::min(ph.p_filesz, ph.p_offset < file.size() ? file.size() - ph.p_offset : 0);
    if (size > 0) elf.exec.push_back({ph.p_vaddr, size, ph.p_offset});
  }

  // Section headers are optional (sstrip); without them only the fallback
  // ranges apply.
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr)) return elf;
  Elf64_Shdr first;
  if (!file.read(eh.e_shoff, first)) return elf;
  uint64_t count = eh.e_shnum != 0 ? eh.e_shnum : first.sh_size;  // extended numbering
  uint64_t strndx = eh.e_shstrndx != SHN_XINDEX ? eh.e_shstrndx : first.sh_link;
  std::vector<Elf64_Shdr> headers;
  for (uint64_t i = 0; i < count; ++i) {
    Elf64_Shdr sh;
    if (!file.read(eh.e_shoff + i * sizeof(Elf64_Shdr), sh)) return elf;
    headers.push_back(sh);
  }
  const uint8_t* strtab = nullptr;
  uint64_t strtab_size = 0;
  if (strndx < headers.size() && headers[strndx].sh_type == SHT_STRTAB) {
    strtab_size = headers[strndx].sh_size;
    strtab = file.at(headers[strndx].sh_offset, strtab_size);
  }
  for (const Elf64_Shdr& sh : headers) {
    std::string_view name;
    if (strtab && sh.sh_name < strtab_size) {
      const char* s = reinterpret_cast<const char*>(strtab) + sh.sh_name;
      name = std::string_view(s, strnlen(s, strtab_size - sh.sh_name));
    }
    elf.sections.push_back({name, sh});
  }
  return elf;
}

const uint8_t* section_data(const MappedFile& file, const Elf64_Shdr& sh) {
  if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0) return nullptr;
  return file.at(sh.sh_offset, sh.sh_size);
}

}  // namespace ctrl::decoding
