// The vDSO's clocks (VirtualVdso.h).
#include "VirtualVdso.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include <cstdint>
#include <cstring>

#include "RawSyscall.h"
#include "VirtualClock.h"

using namespace ctrl::agent;

namespace {

// The virtual clocks, for a runtime that looks the vDSO's symbols up after
// the constructor (Go), from the agent's interposers (VirtualClock.cpp).
int virtual_clock_gettime(clockid_t clock, timespec* ts) { return clock_gettime(clock, ts); }
int virtual_gettimeofday(timeval* tv, void* tz) { return gettimeofday(tv, static_cast<struct timezone*>(tz)); }

// The real clocks, by system call, for whoever calls the vDSO's code itself
// (libc, which looked it up before the constructor): that code reads the
// TSC, which faults and would read the virtual one (VirtualTsc.h).
int real_clock_gettime(clockid_t clock, timespec* ts) {
  long r = raw_syscall(SYS_clock_gettime, clock, reinterpret_cast<long>(ts));
  return r < 0 ? int(r) : 0;  // the vDSO's convention: -errno, no errno
}
int real_gettimeofday(timeval* tv, void* tz) {
  long r = raw_syscall(SYS_gettimeofday, reinterpret_cast<long>(tv), reinterpret_cast<long>(tz));
  return r < 0 ? int(r) : 0;
}

struct Clock {
  const char* name;  // and its alias without the prefix
  void* real;
  void* virt;
};

const Clock kClocks[] = {
    {"__vdso_clock_gettime", reinterpret_cast<void*>(real_clock_gettime),
     reinterpret_cast<void*>(virtual_clock_gettime)},
    {"__vdso_gettimeofday", reinterpret_cast<void*>(real_gettimeofday), reinterpret_cast<void*>(virtual_gettimeofday)},
};

const Clock* clock_named(const char* name) {
  for (const Clock& c : kClocks)
    if (strcmp(name, c.name) == 0 || strcmp(name, c.name + strlen("__vdso_")) == 0) return &c;
  return nullptr;
}

// The vDSO cannot be made writable (mprotect: EINVAL), but the process's
// memory file writes through protections, as a debugger's poke does (the
// page becomes a private copy).
bool poke(int mem, uintptr_t at, const void* bytes, size_t n) {
  return raw_syscall(SYS_pwrite64, mem, reinterpret_cast<long>(bytes), long(n), long(at)) == long(n);
}

}  // namespace

namespace ctrl::agent::virtual_vdso {

bool redirect_clocks() {
  if (!virtual_clock::on()) return false;
  auto base = uintptr_t(getauxval(AT_SYSINFO_EHDR));
  if (!base) return false;
  auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0)
    return false;
  // The load offset as a symbol table's reader computes it: the first
  // PT_LOAD maps file offset p_offset at p_vaddr.
  auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
  uintptr_t load_offset = 0;
  bool found_load = false;
  for (int i = 0; i < eh->e_phnum && !found_load; ++i)
    if (ph[i].p_type == PT_LOAD) {
      load_offset = base + ph[i].p_offset - ph[i].p_vaddr;
      found_load = true;
    }
  if (!found_load) return false;
  int mem = int(raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc/self/mem"), O_RDWR | O_CLOEXEC));
  if (mem < 0) return false;
  bool all = true;
  // The whole image is mapped, section headers included.
  auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_link >= eh->e_shnum) continue;
    auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
    size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
    auto* names = reinterpret_cast<const char*>(base + sh[sh[i].sh_link].sh_offset);
    // First the code (aliases share it), then the symbols.
    for (int pass = 0; pass < 2; ++pass)
      for (size_t s = 0; s < count; ++s) {
        const Elf64_Sym& sym = syms[s];
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
        const Clock* c = clock_named(names + sym.st_name);
        if (!c) continue;
        if (pass == 0) {
          // movabs rax, real; jmp rax
          uint8_t jump[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};
          auto target = reinterpret_cast<uint64_t>(c->real);
          memcpy(jump + 2, &target, 8);
          uintptr_t code = load_offset + sym.st_value;
          if (sym.st_size < sizeof jump || memcmp(reinterpret_cast<const void*>(code), jump, sizeof jump) == 0)
            continue;
          all = poke(mem, code, jump, sizeof jump) && all;
        } else {
          // (Wraps around: the reader adds it back to the load offset.)
          auto value = Elf64_Addr(reinterpret_cast<uintptr_t>(c->virt) - load_offset);
          all = poke(mem, uintptr_t(&sym.st_value), &value, sizeof value) && all;
        }
      }
  }
  raw_syscall(SYS_close, mem);
  return all;
}

}  // namespace ctrl::agent::virtual_vdso
