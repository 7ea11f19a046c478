#include "ImportSlots.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstdint>
#include <cstring>

#include "RawSyscall.h"

namespace ctrl::agent::import_slots {

namespace {

struct Request {
  const char* prefix;
  bool (*skip)(const char*, const void*);
  void* (*replacement)(const char*);
  bool write;                     // second pass: every name has a replacement
  const char* missing = nullptr;  // first pass: one that has none
};

// A dynamic entry's address: relocated by the loader for an ordinary
// object, an offset for the vDSO (whose dynamic section is read-only).
uint64_t address(uint64_t base, uint64_t ptr) { return ptr < base ? base + ptr : ptr; }

// mprotect without the agent's interposer (it tracks the program's own
// protection changes).
bool protect(uint64_t page, uint64_t bytes, int prot) {
  return raw_syscall(SYS_mprotect, long(page), long(bytes), prot) == 0;
}

void set_slot(uint64_t slot, void* value, uint64_t relro_start, uint64_t relro_end) {
  const uint64_t page = slot & ~uint64_t(4095);
  const bool relro = slot >= relro_start && slot < relro_end;
  if (relro && !protect(page, 4096, PROT_READ | PROT_WRITE)) return;
  *reinterpret_cast<void**>(slot) = value;
  if (relro) protect(page, 4096, PROT_READ);
}

void scan(Request& req, uint64_t base, const ElfW(Rela) * rela, uint64_t bytes, const ElfW(Sym) * symtab,
          const char* strtab, uint64_t relro_start, uint64_t relro_end) {
  const size_t prefix_len = strlen(req.prefix);
  for (uint64_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const uint32_t type = ELF64_R_TYPE(rela[i].r_info), index = ELF64_R_SYM(rela[i].r_info);
    if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || index == 0) continue;
    const ElfW(Sym)& sym = symtab[index];
    if (sym.st_shndx != SHN_UNDEF) continue;
    const char* name = strtab + sym.st_name;
    if (strncmp(name, req.prefix, prefix_len) != 0) continue;
    void* value = req.replacement(name);
    if (!value) {
      if (!req.missing) req.missing = name;
      continue;
    }
    if (req.write) set_slot(base + rela[i].r_offset, value, relro_start, relro_end);
  }
}

int visit(struct dl_phdr_info* info, size_t, void* data) {
  Request& req = *static_cast<Request*>(data);
  const uint64_t base = info->dlpi_addr;
  if (req.skip(info->dlpi_name ? info->dlpi_name : "", reinterpret_cast<const void*>(base))) return 0;
  const ElfW(Dyn)* dyn = nullptr;
  uint64_t relro_start = 0, relro_end = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(base + ph.p_vaddr);
    if (ph.p_type == PT_GNU_RELRO) {
      relro_start = base + ph.p_vaddr;
      relro_end = relro_start + ph.p_memsz;
    }
  }
  if (!dyn) return 0;
  uint64_t symtab = 0, strtab = 0, jmprel = 0, pltrelsz = 0, rela = 0, relasz = 0, pltrel = 0;
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) switch (d->d_tag) {
      case DT_SYMTAB:
        symtab = address(base, d->d_un.d_ptr);
        break;
      case DT_STRTAB:
        strtab = address(base, d->d_un.d_ptr);
        break;
      case DT_JMPREL:
        jmprel = address(base, d->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        pltrelsz = d->d_un.d_val;
        break;
      case DT_RELA:
        rela = address(base, d->d_un.d_ptr);
        break;
      case DT_RELASZ:
        relasz = d->d_un.d_val;
        break;
      case DT_PLTREL:
        pltrel = d->d_un.d_val;
        break;
    }
  if (!symtab || !strtab) return 0;
  const auto* syms = reinterpret_cast<const ElfW(Sym)*>(symtab);
  const auto* names = reinterpret_cast<const char*>(strtab);
  if (jmprel && pltrel == DT_RELA)
    scan(req, base, reinterpret_cast<const ElfW(Rela)*>(jmprel), pltrelsz, syms, names, relro_start, relro_end);
  if (rela) scan(req, base, reinterpret_cast<const ElfW(Rela)*>(rela), relasz, syms, names, relro_start, relro_end);
  return 0;
}

}  // namespace

const char* rebind(const char* prefix, bool (*skip)(const char*, const void*), void* (*replacement)(const char*)) {
  Request req{prefix, skip, replacement, false};
  dl_iterate_phdr(visit, &req);
  if (req.missing) return req.missing;
  req.write = true;
  dl_iterate_phdr(visit, &req);
  return nullptr;
}

}  // namespace ctrl::agent::import_slots
