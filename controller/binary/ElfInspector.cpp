#include "binary/ElfInspector.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "cli/ExitStatus.h"

namespace ctrl {
namespace {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

// Closes on every exit path, including the many throws below.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads up to `len` bytes at `offset`; fewer only at end of file.
// Returns nullopt on an I/O error (errno set).
std::optional<size_t> read_at(int fd, void* buf, size_t len, uint64_t offset) {
  size_t done = 0;
  auto* out = static_cast<char*>(buf);
  while (done < len) {
    ssize_t n = ::pread(fd, out + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

// Hashes the whole file from offset 0; returns the byte count through `size`.
std::optional<std::string> hash_fd(int fd, uint64_t& size) {
  uint64_t h = kFnvOffsetBasis;
  uint64_t offset = 0;
  char buf[1 << 16];
  for (;;) {
    auto n = read_at(fd, buf, sizeof buf, offset);
    if (!n) return std::nullopt;
    if (*n == 0) break;
    for (size_t i = 0; i < *n; ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= kFnvPrime;
    }
    offset += *n;
  }
  size = offset;
  return fmt::format("{:016x}", h);
}

bool is_regular_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Like execvp: a name with a '/' is used as is; otherwise the first PATH
// entry holding an executable regular file wins. If PATH only holds
// unusable candidates (directories, files without x permission), the first
// of them is returned so that the caller reports why it is unusable rather
// than claiming nothing exists.
std::string resolve(const std::string& name) {
  if (name.empty()) throw UsageError("no program given");
  if (name.find('/') != std::string::npos) {
    if (!exists(name)) throw UsageError(fmt::format("program '{}' not found", name));
    return name;
  }
  const char* env_path = std::getenv("PATH");
  std::string_view search = env_path ? env_path : "/bin:/usr/bin";
  std::optional<std::string> first_existing;
  for (;;) {
    size_t colon = search.find(':');
    std::string_view dir = search.substr(0, colon);
    // An empty PATH element means the current directory, as for execvp.
    std::string candidate = dir.empty() ? name : fmt::format("{}/{}", dir, name);
    if (is_regular_executable(candidate)) return candidate;
    if (!first_existing && exists(candidate)) first_existing = candidate;
    if (colon == std::string_view::npos) break;
    search.remove_prefix(colon + 1);
  }
  if (first_existing) return *first_existing;
  throw UsageError(fmt::format("program '{}' not found in PATH", name));
}

std::string machine_name(unsigned machine) {
  switch (machine) {
    case EM_386: return "32-bit x86 (i386)";
    case EM_AARCH64: return "AArch64 (arm64)";
    case EM_ARM: return "32-bit ARM";
    case EM_RISCV: return "RISC-V";
    case EM_PPC: return "32-bit PowerPC";
    case EM_PPC64: return "64-bit PowerPC";
    case EM_S390: return "IBM S/390";
    case EM_MIPS: return "MIPS";
    case EM_SPARC: return "SPARC";
    case EM_SPARCV9: return "SPARC v9";
    case EM_IA_64: return "IA-64";
#ifdef EM_LOONGARCH
    case EM_LOONGARCH: return "LoongArch";
#endif
    case EM_X86_64: return "x86-64";
    default: return fmt::format("machine type {}", machine);
  }
}

std::string elf_type_name(unsigned type) {
  switch (type) {
    case ET_NONE: return "an ELF file of no type";
    case ET_REL: return "a relocatable object file";
    case ET_CORE: return "a core dump";
    default: return fmt::format("an ELF file of type {}", type);
  }
}

}  // namespace

std::string hash_file(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw UsageError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  uint64_t size = 0;
  auto hash = hash_fd(fd.get(), size);
  if (!hash) throw UsageError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  return *hash;
}

std::optional<std::string> set_id_note(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !(st.st_mode & (S_ISUID | S_ISGID))) return std::nullopt;
  bool uid_bit = st.st_mode & S_ISUID, gid_bit = st.st_mode & S_ISGID;
  std::string what = fmt::format("{} is {} ({}{}{})", path,
                                 uid_bit && gid_bit ? "set-user-ID and set-group-ID"
                                 : uid_bit          ? "set-user-ID"
                                                    : "set-group-ID",
                                 uid_bit ? fmt::format("uid {}", st.st_uid) : "", uid_bit && gid_bit ? ", " : "",
                                 gid_bit ? fmt::format("gid {}", st.st_gid) : "");
  bool same = (!uid_bit || st.st_uid == ::geteuid()) && (!gid_bit || st.st_gid == ::getegid());
  if (same) return what + ", ctrl's own: it runs as it would outside ctrl";
  // The kernel raises a traced process's rights only for a tracer that may
  // trace any process (root); the loader then runs in secure-execution mode
  // and ignores LD_PRELOAD.
  if (::geteuid() == 0)
    return what +
           ": traced by root it runs as its owner, and the loader then ignores LD_PRELOAD: ctrl's agent "
           "cannot be loaded";
  return what + fmt::format(
                    ": traced, it runs with ctrl's rights (uid {}, gid {}), not its owner's: what needs "
                    "its owner's rights fails",
                    ::geteuid(), ::getegid());
}

ProgramFacts inspect_program(const std::string& name) {
  const std::string candidate = resolve(name);

  struct stat st {};
  if (::stat(candidate.c_str(), &st) != 0)
    throw UsageError(fmt::format("program '{}' not found", name));
  if (S_ISDIR(st.st_mode)) throw UsageError(fmt::format("'{}' is a directory, not a program", name));
  if (!S_ISREG(st.st_mode)) throw UsageError(fmt::format("'{}' is not a regular file", name));
  if (::access(candidate.c_str(), X_OK) != 0)
    throw UsageError(fmt::format("'{}' is not executable (no execute permission)", name));

  char* real = ::realpath(candidate.c_str(), nullptr);
  if (!real) throw UsageError(fmt::format("cannot resolve '{}': {}", name, std::strerror(errno)));
  ProgramFacts facts;
  facts.path = real;
  std::free(real);

  Fd fd(::open(facts.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw UsageError(fmt::format("cannot read '{}': {}", name, std::strerror(errno)));
  auto read_error = [&] { return UsageError(fmt::format("cannot read '{}': {}", name, std::strerror(errno))); };
  auto malformed = [&](std::string_view what) {
    return UsageError(fmt::format("'{}' is a malformed ELF file ({})", name, what));
  };

  // The identification bytes and e_type/e_machine sit at the same offsets in
  // ELF32 and ELF64, so a foreign file can be named before its class is
  // known to match.
  unsigned char ident[20] = {};
  auto got = read_at(fd.get(), ident, sizeof ident, 0);
  if (!got) throw read_error();
  if (*got < SELFMAG || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    bool script = *got >= 2 && ident[0] == '#' && ident[1] == '!';
    throw UsageError(fmt::format("'{}' is not an ELF file{}", name,
                                 script ? " (it is a script: run ctrl on its interpreter instead)" : ""));
  }
  if (*got < sizeof ident) throw malformed("truncated ELF header");
  const unsigned char elf_class = ident[EI_CLASS];
  const unsigned char elf_data = ident[EI_DATA];
  if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64) throw malformed("unknown ELF class");
  if (elf_data != ELFDATA2LSB && elf_data != ELFDATA2MSB) throw malformed("unknown byte order");
  const unsigned machine =
      elf_data == ELFDATA2LSB ? unsigned(ident[18]) | unsigned(ident[19]) << 8 : unsigned(ident[18]) << 8 | ident[19];
  if (machine != EM_X86_64)
    throw UsageError(fmt::format("'{}' is an ELF for {}, ctrl runs x86-64 programs", name, machine_name(machine)));
  if (elf_class != ELFCLASS64)
    throw UsageError(fmt::format("'{}' is a 32-bit (x32) ELF for x86-64, ctrl runs 64-bit x86-64 programs", name));
  if (elf_data != ELFDATA2LSB) throw malformed("big-endian x86-64");

  // From here on the file is ELF64 little-endian, the host's own layout.
  Elf64_Ehdr eh;
  got = read_at(fd.get(), &eh, sizeof eh, 0);
  if (!got) throw read_error();
  if (*got < sizeof eh) throw malformed("truncated ELF header");
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    throw UsageError(fmt::format("'{}' is {}, not an executable", name, elf_type_name(eh.e_type)));

  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  uint64_t phnum = eh.e_phnum;
  if (phnum == PN_XNUM) {
    // Too many program headers for e_phnum: the real count is in section 0.
    Elf64_Shdr sh0;
    if (eh.e_shoff == 0 || eh.e_shoff > file_size || file_size - eh.e_shoff < sizeof sh0)
      throw malformed("section header table out of bounds");
    got = read_at(fd.get(), &sh0, sizeof sh0, eh.e_shoff);
    if (!got) throw read_error();
    if (*got < sizeof sh0) throw malformed("section header table out of bounds");
    phnum = sh0.sh_info;
  }
  if (phnum > 0 && eh.e_phentsize < sizeof(Elf64_Phdr)) throw malformed("program header entries too small");
  if (eh.e_phoff > file_size || (phnum > 0 && (file_size - eh.e_phoff) / eh.e_phentsize < phnum))
    throw malformed("program headers out of bounds");

  bool has_interp = false;
  for (uint64_t i = 0; i < phnum; ++i) {
    Elf64_Phdr ph;
    got = read_at(fd.get(), &ph, sizeof ph, eh.e_phoff + i * eh.e_phentsize);
    if (!got) throw read_error();
    if (*got < sizeof ph) throw malformed("program headers out of bounds");
    has_interp = has_interp || ph.p_type == PT_INTERP;
    // The kernel would kill the process half-way through execve.
    if ((ph.p_type == PT_LOAD || ph.p_type == PT_INTERP) &&
        (ph.p_offset > file_size || file_size - ph.p_offset < ph.p_filesz))
      throw malformed(fmt::format("truncated: a segment ends at byte {}, the file has {}", ph.p_offset + ph.p_filesz,
                                  file_size));
  }
  if (!has_interp) {
    // A shared object without an entry point is a library; with one (and no
    // interpreter) it is a static-pie executable.
    if (eh.e_type == ET_DYN && eh.e_entry == 0)
      throw UsageError(fmt::format("'{}' is a shared library, not a program", name));
    if (is_go_program(facts.path))
      throw UsageError(fmt::format(
          "'{}' is a statically linked Go program: ctrl's agent cannot be preloaded into it (ctrl would have to "
          "follow the Go runtime's own clone and futex system calls from outside the program); build it with cgo "
          "(CGO_ENABLED=1 and a package that imports \"C\", or -ldflags=-linkmode=external) so that it is "
          "dynamically linked",
          name));
    throw UsageError(fmt::format("'{}' is statically linked: ctrl's agent cannot be preloaded into it", name));
  }

  auto hash = hash_fd(fd.get(), facts.size);
  if (!hash) throw read_error();
  facts.content_hash = std::move(*hash);
  return facts;
}

std::optional<bool> imports_libatomic(const std::string& path) { return imports_prefixed(path, "__atomic_"); }

std::optional<bool> imports_prefixed(const std::string& path, std::string_view prefix) {
  return has_dynamic_symbol(path, prefix, false);
}

std::optional<bool> defines_symbol(const std::string& path, std::string_view name) {
  return has_dynamic_symbol(path, name, true);
}

std::optional<bool> has_dynamic_symbol(const std::string& path, std::string_view prefix, bool defined) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) return std::nullopt;
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  // Every read is checked against the file: a malformed file is "unknown".
  auto read_all = [&](void* buf, uint64_t len, uint64_t offset) {
    if (offset > file_size || file_size - offset < len) return false;
    auto got = read_at(fd.get(), buf, size_t(len), offset);
    return got && *got == len;
  };
  Elf64_Ehdr eh;
  if (!read_all(&eh, sizeof eh, 0) || eh.e_shentsize < sizeof(Elf64_Shdr) || eh.e_shnum == 0) return std::nullopt;
  bool has_dynsym = false;
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!read_all(&sh, sizeof sh, eh.e_shoff + i * eh.e_shentsize)) return std::nullopt;
    if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize < sizeof(Elf64_Sym)) continue;
    Elf64_Shdr strtab;
    if (sh.sh_link >= eh.e_shnum || !read_all(&strtab, sizeof strtab, eh.e_shoff + sh.sh_link * eh.e_shentsize))
      return std::nullopt;
    if (strtab.sh_size > (uint64_t(1) << 30)) return std::nullopt;
    std::string names(strtab.sh_size, '\0');
    if (!read_all(names.data(), names.size(), strtab.sh_offset)) return std::nullopt;
    has_dynsym = true;
    for (uint64_t k = 0; k < sh.sh_size / sh.sh_entsize; ++k) {
      Elf64_Sym sym;
      if (!read_all(&sym, sizeof sym, sh.sh_offset + k * sh.sh_entsize)) return std::nullopt;
      if ((sym.st_shndx != SHN_UNDEF) != defined || sym.st_name >= names.size()) continue;
      std::string_view sym_name(names.c_str() + sym.st_name);
      if (defined ? sym_name == prefix : sym_name.rfind(prefix, 0) == 0) return true;
    }
  }
  if (!has_dynsym) return std::nullopt;
  return false;
}

bool is_go_program(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) return false;
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  auto read_all = [&](void* buf, uint64_t len, uint64_t offset) {
    if (offset > file_size || file_size - offset < len) return false;
    auto got = read_at(fd.get(), buf, size_t(len), offset);
    return got && *got == len;
  };
  Elf64_Ehdr eh;
  if (!read_all(&eh, sizeof eh, 0) || eh.e_shentsize < sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum) return false;
  Elf64_Shdr names_sh;
  if (!read_all(&names_sh, sizeof names_sh, eh.e_shoff + uint64_t(eh.e_shstrndx) * eh.e_shentsize) ||
      names_sh.sh_size > (uint64_t(1) << 20))
    return false;
  std::string names(names_sh.sh_size, '\0');
  if (!read_all(names.data(), names.size(), names_sh.sh_offset)) return false;
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!read_all(&sh, sizeof sh, eh.e_shoff + i * eh.e_shentsize)) return false;
    if (sh.sh_name >= names.size()) continue;
    std::string_view name(names.c_str() + sh.sh_name);
    if (name == ".go.buildinfo" || name == ".note.go.buildid") return true;
  }
  return false;
}

}  // namespace ctrl
