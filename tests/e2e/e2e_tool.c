/* Helper of the end-to-end tests, for what a CMake script cannot do with
 * binary files:
 *   ctrl_e2e_tool foreign-elf FILE   writes a small executable ELF64 file for
 *                                    AArch64 (e_machine 183), mode 0755
 *   ctrl_e2e_tool truncate FILE      cuts FILE to half its size */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int foreign_elf(const char *path) {
  /* mov x0, #0; mov x8, #93 (exit); svc #0 */
  static const unsigned char code[] = {0x00, 0x00, 0x80, 0xd2, 0xa8, 0x0b, 0x80, 0xd2,
                                       0x01, 0x00, 0x00, 0xd4};
  const Elf64_Addr base = 0x400000;
  const size_t code_off = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  Elf64_Ehdr eh;
  Elf64_Phdr ph;
  memset(&eh, 0, sizeof eh);
  memset(&ph, 0, sizeof ph);
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_AARCH64; /* 183 */
  eh.e_version = EV_CURRENT;
  eh.e_entry = base + code_off;
  eh.e_phoff = sizeof eh;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = sizeof ph;
  eh.e_phnum = 1;
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_X;
  ph.p_offset = 0;
  ph.p_vaddr = ph.p_paddr = base;
  ph.p_filesz = ph.p_memsz = code_off + sizeof code;
  ph.p_align = 0x1000;

  FILE *f = fopen(path, "wb");
  if (!f || fwrite(&eh, sizeof eh, 1, f) != 1 || fwrite(&ph, sizeof ph, 1, f) != 1 ||
      fwrite(code, sizeof code, 1, f) != 1 || fclose(f) != 0) {
    perror(path);
    return 1;
  }
  if (chmod(path, 0755) != 0) {
    perror(path);
    return 1;
  }
  return 0;
}

static int truncate_half(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    return 1;
  }
  if (st.st_size < 2) {
    fprintf(stderr, "%s: too small to truncate (%lld bytes)\n", path, (long long)st.st_size);
    return 1;
  }
  if (truncate(path, st.st_size / 2) != 0) {
    perror(path);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "foreign-elf") == 0) return foreign_elf(argv[2]);
  if (argc == 3 && strcmp(argv[1], "truncate") == 0) return truncate_half(argv[2]);
  fprintf(stderr, "usage: %s foreign-elf FILE | truncate FILE\n", argv[0]);
  return 2;
}
