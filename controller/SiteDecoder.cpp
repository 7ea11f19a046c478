#include "SiteDecoder.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "ExitStatus.h"

namespace ctrl {
namespace {

// ---------------------------------------------------------------------------
// The file

// The whole file mapped read-only; every access goes through at(), which
// refuses ranges outside the file, so malformed headers cannot read past it.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw UsageError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      throw UsageError(fmt::format("{}: cannot read: {}", path, std::strerror(err)));
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      throw UsageError(fmt::format("{}: cannot read: not a regular file", path));
    }
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        int err = errno;
        ::close(fd);
        throw UsageError(fmt::format("{}: cannot read: {}", path, std::strerror(err)));
      }
      data_ = static_cast<const uint8_t*>(p);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  uint64_t size() const { return size_; }

  // [offset, offset + len) of the file, or nullptr if any of it is outside.
  const uint8_t* at(uint64_t offset, uint64_t len) const {
    if (offset > size_ || len > size_ - offset) return nullptr;
    return data_ + offset;
  }

  template <class T>
  bool read(uint64_t offset, T& out) const {
    const uint8_t* p = at(offset, sizeof(T));
    if (!p) return false;
    std::memcpy(&out, p, sizeof(T));
    return true;
  }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// ---------------------------------------------------------------------------
// ELF headers

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

struct Section {
  std::string_view name;
  Elf64_Shdr hdr;
};

struct ElfLayout {
  Elf64_Ehdr ehdr;
  std::vector<ExecSegment> exec;
  std::vector<Section> sections;
};

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

// File bytes of a section, or nullptr if it has none or they lie outside.
const uint8_t* section_data(const MappedFile& file, const Elf64_Shdr& sh) {
  if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0) return nullptr;
  return file.at(sh.sh_offset, sh.sh_size);
}

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

// ---------------------------------------------------------------------------
// .eh_frame (LSB "Exception Frame" format): only the FDEs' initial location
// and address range are needed, but reaching them means decoding the CIE's
// augmentation to learn the FDE pointer encoding.

constexpr uint8_t kPeAbsptr = 0x00, kPeUleb128 = 0x01, kPeUdata2 = 0x02, kPeUdata4 = 0x03,
                  kPeUdata8 = 0x04, kPeSleb128 = 0x09, kPeSdata2 = 0x0a, kPeSdata4 = 0x0b,
                  kPeSdata8 = 0x0c, kPePcrel = 0x10, kPeOmit = 0xff;

// Bounds-checked little-endian reader over [0, end) of a buffer; a read past
// `end` clears ok() and yields 0.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, uint64_t end, uint64_t pos) : data_(data), end_(end), pos_(pos) {}
  bool ok() const { return ok_; }
  uint64_t pos() const { return pos_; }

  template <class T>
  T fixed() {
    T v{};
    if (!take(sizeof(T))) return v;
    std::memcpy(&v, data_ + pos_ - sizeof(T), sizeof(T));
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!take(1)) return 0;
      uint8_t b = data_[pos_ - 1];
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
      if (!take(1)) return 0;
      b = data_[pos_ - 1];
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  std::string_view cstr() {
    uint64_t start = pos_;
    while (pos_ < end_ && data_[pos_] != 0) ++pos_;
    if (!take(1)) return {};
    return std::string_view(reinterpret_cast<const char*>(data_ + start), pos_ - 1 - start);
  }
  bool take(uint64_t n) {
    if (!ok_ || n > end_ - pos_) {
      ok_ = false;
      return false;
    }
    pos_ += n;
    return true;
  }

 private:
  const uint8_t* data_;
  uint64_t end_;
  uint64_t pos_;
  bool ok_ = true;
};

// The value format of a DW_EH_PE encoding (low nibble), no application.
std::optional<uint64_t> read_pointer_value(ByteReader& r, uint8_t encoding) {
  uint64_t v = 0;
  switch (encoding & 0x0f) {
    case kPeAbsptr:
    case kPeUdata8: v = r.fixed<uint64_t>(); break;
    case kPeUleb128: v = r.uleb(); break;
    case kPeUdata2: v = r.fixed<uint16_t>(); break;
    case kPeUdata4: v = r.fixed<uint32_t>(); break;
    case kPeSleb128: v = static_cast<uint64_t>(r.sleb()); break;
    case kPeSdata2: v = static_cast<uint64_t>(int64_t{r.fixed<int16_t>()}); break;
    case kPeSdata4: v = static_cast<uint64_t>(int64_t{r.fixed<int32_t>()}); break;
    case kPeSdata8: v = static_cast<uint64_t>(r.fixed<int64_t>()); break;
    default: return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  return v;
}

// An encoded pointer as a link-time address. Only absolute and pc-relative
// pointers can be resolved from the file alone; x86-64 toolchains emit
// pc-relative FDE pointers, so the others just drop the FDE.
std::optional<uint64_t> read_pointer(ByteReader& r, uint8_t encoding, uint64_t section_vaddr) {
  if (encoding == kPeOmit) return std::nullopt;
  uint64_t field = section_vaddr + r.pos();
  auto v = read_pointer_value(r, encoding);
  if (!v) return std::nullopt;
  switch (encoding & 0xf0) {
    case 0: return v;
    case kPePcrel: return *v + field;
    default: return std::nullopt;
  }
}

struct Cie {
  bool usable = false;
  uint8_t fde_encoding = kPeAbsptr;
};

// `off` is the CIE's length field inside the section.
Cie parse_cie(const uint8_t* data, uint64_t size, uint64_t off) {
  Cie cie;
  ByteReader r(data, size, off);
  uint64_t len = r.fixed<uint32_t>();
  if (len == 0xffffffff) len = r.fixed<uint64_t>();
  if (!r.ok() || len > size - r.pos()) return cie;
  ByteReader body(data, r.pos() + len, r.pos());
  if (body.fixed<uint32_t>() != 0) return cie;  // not a CIE
  uint8_t version = body.fixed<uint8_t>();
  std::string_view aug = body.cstr();
  body.uleb();  // code alignment
  body.sleb();  // data alignment
  if (version == 1) body.fixed<uint8_t>();
  else body.uleb();  // return address register
  if (!body.ok()) return cie;
  if (aug.empty()) {
    cie.usable = true;
    return cie;
  }
  if (aug[0] != 'z') return cie;  // pre-'z' augmentations: data layout unknown
  body.uleb();                    // augmentation data length
  for (char c : aug.substr(1)) {
    switch (c) {
      case 'L': body.fixed<uint8_t>(); break;
      case 'P': {
        uint8_t enc = body.fixed<uint8_t>();
        if (!read_pointer_value(body, enc)) return cie;
        break;
      }
      case 'R': cie.fde_encoding = body.fixed<uint8_t>(); break;
      case 'S':
      case 'B':
      case 'G': break;
      default:
        // Letters after 'R' cannot change the FDE encoding already read.
        cie.usable = body.ok() && aug.find('R') < aug.find(c);
        return cie;
    }
  }
  cie.usable = body.ok();
  return cie;
}

void add_eh_frame_ranges(const MappedFile& file, const ElfLayout& elf, std::vector<Range>& out) {
  for (const Section& sec : elf.sections) {
    if (sec.name != ".eh_frame") continue;
    if (sec.hdr.sh_type != SHT_PROGBITS && sec.hdr.sh_type != SHT_X86_64_UNWIND) continue;
    const uint8_t* data = section_data(file, sec.hdr);
    if (!data) continue;
    const uint64_t size = sec.hdr.sh_size;
    std::unordered_map<uint64_t, Cie> cies;
    uint64_t off = 0;
    while (size - off >= 4) {
      ByteReader r(data, size, off);
      uint64_t len = r.fixed<uint32_t>();
      if (len == 0) {  // terminator, or padding between input sections: keep scanning
        off += 4;
        continue;
      }
      if (len == 0xffffffff) len = r.fixed<uint64_t>();
      if (!r.ok() || len > size - r.pos() || len < 4) break;
      const uint64_t body = r.pos();
      const uint64_t next = body + len;
      uint32_t cie_pointer = r.fixed<uint32_t>();
      // An FDE's CIE pointer is the distance back from the pointer field itself.
      if (cie_pointer != 0 && cie_pointer <= body) {
        uint64_t cie_off = body - cie_pointer;
        auto it = cies.find(cie_off);
        if (it == cies.end()) it = cies.emplace(cie_off, parse_cie(data, size, cie_off)).first;
        if (it->second.usable) {
          ByteReader fr(data, next, r.pos());
          auto begin = read_pointer(fr, it->second.fde_encoding, sec.hdr.sh_addr);
          auto length = read_pointer_value(fr, it->second.fde_encoding);
          if (begin && length && *length > 0 && *begin + *length > *begin) {
            out.push_back({*begin, *begin + *length});
          }
        }
      }
      off = next;
    }
  }
}

bool is_plt(std::string_view name) {
  return name == ".plt" || name == ".plt.got" || name == ".plt.sec" || name == ".plt.bnd";
}

// ---------------------------------------------------------------------------
// Classification

bool is_gpr64_stack(uint16_t reg) { return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP; }

bool is_vector_reg(uint16_t reg) { return reg >= X86_REG_XMM0 && reg <= X86_REG_ZMM31; }

bool is_opmask_reg(uint16_t reg) { return reg >= X86_REG_K0 && reg <= X86_REG_K7; }

// Registers whose low 64 bits SiteMath.h can read from a signal context, so
// that a Mov store from them has a known value.
bool is_readable_source(uint16_t reg) {
  switch (reg) {
    case X86_REG_AL: case X86_REG_AH: case X86_REG_AX: case X86_REG_EAX: case X86_REG_RAX:
    case X86_REG_BL: case X86_REG_BH: case X86_REG_BX: case X86_REG_EBX: case X86_REG_RBX:
    case X86_REG_CL: case X86_REG_CH: case X86_REG_CX: case X86_REG_ECX: case X86_REG_RCX:
    case X86_REG_DL: case X86_REG_DH: case X86_REG_DX: case X86_REG_EDX: case X86_REG_RDX:
    case X86_REG_SIL: case X86_REG_SI: case X86_REG_ESI: case X86_REG_RSI:
    case X86_REG_DIL: case X86_REG_DI: case X86_REG_EDI: case X86_REG_RDI:
    case X86_REG_BPL: case X86_REG_BP: case X86_REG_EBP: case X86_REG_RBP:
    case X86_REG_SPL: case X86_REG_SP: case X86_REG_ESP: case X86_REG_RSP:
      return true;
    default: break;
  }
  if (reg >= X86_REG_R8 && reg <= X86_REG_R15) return true;
  if (reg >= X86_REG_R8B && reg <= X86_REG_R15W) return true;  // r8b..r15b, r8d..r15d, r8w..r15w
  if (reg >= X86_REG_XMM0 && reg <= X86_REG_XMM15) return true;
  if (reg >= X86_REG_YMM0 && reg <= X86_REG_YMM15) return true;
  if (reg >= X86_REG_ZMM0 && reg <= X86_REG_ZMM15) return true;
  return false;
}

bool is_address_register(uint16_t reg) {
  if (reg == X86_REG_INVALID || reg == X86_REG_RIP || reg == X86_REG_EIP) return true;
  if (reg >= X86_REG_R8 && reg <= X86_REG_R15) return true;
  if (reg >= X86_REG_R8D && reg <= X86_REG_R15D) return true;
  switch (reg) {
    case X86_REG_RAX: case X86_REG_RBX: case X86_REG_RCX: case X86_REG_RDX:
    case X86_REG_RSI: case X86_REG_RDI: case X86_REG_RBP: case X86_REG_RSP:
    case X86_REG_EAX: case X86_REG_EBX: case X86_REG_ECX: case X86_REG_EDX:
    case X86_REG_ESI: case X86_REG_EDI: case X86_REG_EBP: case X86_REG_ESP:
      return true;
    default: return false;
  }
}

uint64_t size_mask(unsigned size) { return size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1; }

// What the raw bytes say before the opcode; capstone 4's prefix[] misses
// some (xacquire/xrelease, a second F2/F3) and cannot tell umwait from mfence.
struct Prefixes {
  bool lock = false;
  bool rep = false;  // F3 or F2: rep/repe/repne on string instructions
  bool addr32 = false;
  unsigned legacy = 0;  // number of legacy prefix bytes
  unsigned length = 0;  // legacy prefixes + REX
  uint8_t opcode = 0;   // first byte after them
};

Prefixes scan_prefixes(const uint8_t* b, size_t n) {
  Prefixes p;
  size_t i = 0;
  for (; i < n; ++i) {
    uint8_t c = b[i];
    if (c == 0xf0) p.lock = true;
    else if (c == 0xf2 || c == 0xf3) p.rep = true;
    else if (c == 0x67) p.addr32 = true;
    else if (c != 0x2e && c != 0x36 && c != 0x3e && c != 0x26 && c != 0x64 && c != 0x65 && c != 0x66) break;
  }
  p.legacy = static_cast<unsigned>(i);
  if (i < n && (b[i] & 0xf0) == 0x40) ++i;
  p.length = static_cast<unsigned>(i);
  p.opcode = i < n ? b[i] : 0;
  return p;
}

std::optional<SiteOp> fence_op(const uint8_t* b, size_t n, const Prefixes& p) {
  if (p.legacy != 0 || n != p.length + 3 || b[p.length] != 0x0f || b[p.length + 1] != 0xae) return std::nullopt;
  switch (b[p.length + 2]) {
    case 0xf0: return SiteOp::Mfence;
    case 0xe8: return SiteOp::Lfence;
    case 0xf8: return SiteOp::Sfence;
    default: return std::nullopt;
  }
}

std::optional<SiteOp> string_op(uint8_t opcode) {
  switch (opcode) {
    case 0xa4: case 0xa5: return SiteOp::Movs;
    case 0xa6: case 0xa7: return SiteOp::Cmps;
    case 0xaa: case 0xab: return SiteOp::Stos;
    case 0xac: case 0xad: return SiteOp::Lods;
    case 0xae: case 0xaf: return SiteOp::Scas;
    default: return std::nullopt;
  }
}

// Instruction length from the encoding alone, for the VEX, EVEX and 0F-map
// instructions: the families capstone 4 has gaps in (AVX-512 forms such as
// EVEX vpbroadcastb from memory, serialize, movdir64b...). Knowing the length
// of an instruction capstone cannot decode keeps decoding in step instead of
// guessing from the next byte; it also catches capstone decoding one of
// these at a different length. nullopt for everything else (the one-byte
// map, whose lengths capstone gets right, XOP, AVX512-FP16 maps) and for
// invalid or truncated encodings.
std::optional<size_t> encoded_length(const uint8_t* b, size_t n) {
  size_t i = 0;
  while (i < n && (b[i] == 0xf0 || b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e ||
                   b[i] == 0x26 || b[i] == 0x64 || b[i] == 0x65 || b[i] == 0x66 || b[i] == 0x67)) {
    ++i;
  }
  bool rex = i < n && (b[i] & 0xf0) == 0x40;
  if (rex) ++i;
  if (i + 1 >= n) return std::nullopt;

  unsigned map = 0;
  bool vex = false;
  switch (b[i]) {
    case 0xc5:  // 2-byte VEX: map 0F
      map = 1;
      vex = true;
      i += 2;
      break;
    case 0xc4:  // 3-byte VEX: map in the low 5 bits of the first payload byte
      map = b[i + 1] & 0x1f;
      vex = true;
      i += 3;
      break;
    case 0x62:  // EVEX (64-bit mode has no BOUND): map in P0[2:0], P0[3] reserved 0, P1[2] fixed 1
      if (i + 3 >= n || (b[i + 1] & 0x08) != 0 || (b[i + 2] & 0x04) == 0) return std::nullopt;
      map = b[i + 1] & 0x07;
      vex = true;
      i += 4;
      break;
    case 0x0f:
      if (b[i + 1] == 0x38) {
        map = 2;
        i += 2;
      } else if (b[i + 1] == 0x3a) {
        map = 3;
        i += 2;
      } else if (b[i + 1] == 0x0f) {
        map = 0x0f;  // 3DNow!: ModR/M, then the opcode as a trailing imm8
        i += 2;
      } else {
        map = 1;
        i += 1;
      }
      break;
    default:
      return std::nullopt;
  }
  if (vex && rex) return std::nullopt;  // #UD
  if (map < 1 || (map > 3 && map != 0x0f)) return std::nullopt;
  if (i >= n) return std::nullopt;
  const uint8_t opcode = map == 0x0f ? 0 : b[i++];

  bool modrm = true;
  size_t imm = 0;
  if (map == 3 || map == 0x0f) {
    imm = 1;
  } else if (map == 1) {
    switch (opcode) {
      case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4: case 0xac: case 0xba:
      case 0xc2: case 0xc4: case 0xc5: case 0xc6:
        imm = 1;
        break;
      case 0x78: case 0x79:  // vmread/vmwrite vs. SSE4a extrq/insertq: lengths differ
        return std::nullopt;
      default: break;
    }
    if (vex) {
      if (opcode == 0x77) modrm = false;  // vzeroupper/vzeroall
    } else {
      if ((opcode >= 0x80 && opcode <= 0x8f)) {
        modrm = false;  // jcc rel32
        imm = 4;
      }
      switch (opcode) {
        case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b: case 0x0e: case 0x30: case 0x31:
        case 0x32: case 0x33: case 0x34: case 0x35: case 0x36: case 0x37: case 0x77: case 0xa0: case 0xa1:
        case 0xa2: case 0xa8: case 0xa9: case 0xaa: case 0xc8: case 0xc9: case 0xca: case 0xcb: case 0xcc:
        case 0xcd: case 0xce: case 0xcf:
          modrm = false;
          break;
        default: break;
      }
    }
  }
  if (modrm) {
    if (i >= n) return std::nullopt;
    const uint8_t m = b[i++];
    const unsigned mod = m >> 6, rm = m & 7;
    if (mod != 3 && rm == 4) {
      if (i >= n) return std::nullopt;
      const uint8_t sib = b[i++];
      if (mod == 0 && (sib & 7) == 5) i += 4;
    }
    if (mod == 0 && rm == 5) i += 4;
    else if (mod == 1) i += 1;
    else if (mod == 2) i += 4;
  }
  i += imm;
  if (i > n || i > 15) return std::nullopt;
  return i;
}

enum InsnProp : uint8_t {
  kExcluded = 1,   // has a memory operand but is never a site
  kReadOnly = 2,   // memory operand first in Intel order, yet only read
  kMovLike = 4,    // a store of this writes exactly its (single) source
  kRmwName = 8,    // memory operand first means read-modify-write
  kStringName = 16,
};

class Classifier {
 public:
  Classifier() {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle_) != CS_ERR_OK)
      throw InternalError("capstone: cannot open an x86-64 disassembler");
    cs_option(handle_, CS_OPT_DETAIL, CS_OPT_ON);
    insn_ = cs_malloc(handle_);
    scratch_ = cs_malloc(handle_);
    if (!insn_ || !scratch_) {
      cs_close(&handle_);
      throw InternalError("capstone: out of memory");
    }
    build_tables();
  }
  ~Classifier() {
    cs_free(scratch_, 1);
    cs_free(insn_, 1);
    cs_close(&handle_);
  }
  Classifier(const Classifier&) = delete;
  Classifier& operator=(const Classifier&) = delete;

  // Decodes one instruction at `code` (at most `size` bytes) into insn().
  // False also when capstone's length contradicts encoded_length().
  bool decode(const uint8_t* code, size_t size, uint64_t addr) {
    const uint8_t* start = code;
    const size_t avail = size;
    if (!cs_disasm_iter(handle_, &code, &size, &addr, insn_)) return false;
    auto expected = encoded_length(start, avail);
    return !expected || *expected == insn_->size;
  }
  const cs_insn& insn() const { return *insn_; }

  bool classify(const cs_insn& insn, Site& s) const;
  // Site::dead for the instruction at `code` (at most `size` bytes, at
  // `addr`). Leaves insn() alone.
  uint16_t dead_registers(const uint8_t* code, size_t size, uint64_t addr) const;

 private:
  void build_tables();
  uint8_t prop(unsigned id) const { return id < props_.size() ? props_[id] : 0; }
  SiteOp rmw_op(unsigned id) const { return id < ops_.size() ? ops_[id] : SiteOp::Other; }

  csh handle_ = 0;
  cs_insn* insn_ = nullptr;
  cs_insn* scratch_ = nullptr;
  std::vector<uint8_t> props_;
  std::vector<SiteOp> ops_;
};

void Classifier::build_tables() {
  props_.assign(X86_INS_ENDING, 0);
  ops_.assign(X86_INS_ENDING, SiteOp::Other);
  // By name rather than by enum constant: capstone splits families into
  // many ids (xsaveopt64, vgatherpf0dps, ...) that the names cover at once.
  static const std::pair<std::string_view, SiteOp> kOps[] = {
      {"add", SiteOp::Add},         {"sub", SiteOp::Sub},
      {"and", SiteOp::And},         {"or", SiteOp::Or},
      {"xor", SiteOp::Xor},         {"adc", SiteOp::Adc},
      {"sbb", SiteOp::Sbb},         {"inc", SiteOp::Inc},
      {"dec", SiteOp::Dec},         {"neg", SiteOp::Neg},
      {"not", SiteOp::Not},         {"xadd", SiteOp::Xadd},
      {"xchg", SiteOp::Xchg},       {"cmpxchg", SiteOp::Cmpxchg},
      {"cmpxchg8b", SiteOp::Cmpxchg8b}, {"cmpxchg16b", SiteOp::Cmpxchg16b},
      {"bts", SiteOp::Bts},         {"btr", SiteOp::Btr},
      {"btc", SiteOp::Btc},
  };
  static const std::initializer_list<std::string_view> kOtherRmw = {
      "shl", "shr", "sal", "sar", "rol", "ror", "rcl", "rcr", "shld", "shrd"};
  static const std::initializer_list<std::string_view> kExcludedNames = {
      "lea", "nop", "call", "jmp", "lcall", "ljmp", "clflush", "clflushopt", "clwb", "invlpg",
      "invlpga", "xlatb", "insb", "insw", "insd", "outsb", "outsw", "outsd", "fnsave", "frstor",
      "fnstenv", "fldenv", "ud0", "monitor", "sgdt", "sidt", "sldt", "str", "smsw", "lgdt", "lidt",
      "lldt", "ltr", "lmsw", "verr", "verw", "invpcid", "invept", "invvpid", "vmptrld", "vmptrst",
      "vmclear", "vmread", "vmwrite"};
  static const std::initializer_list<std::string_view> kExcludedPrefixes = {
      "prefetch", "xsave", "xrstor", "fxsave", "fxrstor", "bnd"};
  static const std::initializer_list<std::string_view> kReadOnlyNames = {
      "cmp",  "test",  "bt",    "push",   "mul",   "imul",   "div",   "idiv",    "ldmxcsr",
      "vldmxcsr", "fld", "fild", "fbld",  "fldcw", "fadd",   "fiadd", "fmul",    "fimul",
      "fsub", "fisub", "fsubr", "fisubr", "fdiv",  "fidiv",  "fdivr", "fidivr",  "fcom",
      "fcomp", "ficom", "ficomp"};
  static const std::initializer_list<std::string_view> kMovNames = {
      "mov",      "movabs",   "movnti",    "movd",      "movq",      "movss",     "movsd",
      "movups",   "movaps",   "movupd",    "movapd",    "movdqu",    "movdqa",    "movntdq",
      "movntps",  "movntpd",  "movlps",    "movlpd",    "vmovd",     "vmovq",     "vmovss",
      "vmovsd",   "vmovups",  "vmovaps",   "vmovupd",   "vmovapd",   "vmovdqu",   "vmovdqa",
      "vmovdqu8", "vmovdqu16", "vmovdqu32", "vmovdqu64", "vmovdqa32", "vmovdqa64", "vmovntdq",
      "vmovntps", "vmovntpd", "vmovlps",   "vmovlpd"};
  static const std::initializer_list<std::string_view> kStringNames = {
      "movsb", "movsw", "movsd", "movsq", "stosb", "stosw", "stosd", "stosq", "lodsb", "lodsw",
      "lodsd", "lodsq", "cmpsb", "cmpsw", "cmpsd", "cmpsq", "scasb", "scasw", "scasd", "scasq"};

  auto in = [](std::string_view name, std::initializer_list<std::string_view> list) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (unsigned id = 1; id < X86_INS_ENDING; ++id) {
    const char* raw = cs_insn_name(handle_, id);
    if (!raw) continue;
    std::string_view name(raw);
    uint8_t p = 0;
    if (in(name, kExcludedNames) || name.find("gather") != std::string_view::npos ||
        name.find("scatter") != std::string_view::npos ||
        std::any_of(kExcludedPrefixes.begin(), kExcludedPrefixes.end(),
                    [&](std::string_view pre) { return name.substr(0, pre.size()) == pre; })) {
      p |= kExcluded;
    }
    if (in(name, kReadOnlyNames)) p |= kReadOnly;
    if (in(name, kMovNames)) p |= kMovLike;
    if (in(name, kOtherRmw)) p |= kRmwName;
    if (in(name, kStringNames)) p |= kStringName;
    for (const auto& [op_name, op] : kOps) {
      if (name == op_name) {
        ops_[id] = op;
        p |= kRmwName;
      }
    }
    props_[id] = p;
  }
}

bool Classifier::classify(const cs_insn& insn, Site& s) const {
  const cs_x86& x = insn.detail->x86;
  s = Site{};
  s.offset = insn.address;
  s.length = static_cast<uint8_t>(insn.size);
  std::memcpy(s.bytes, insn.bytes, std::min<size_t>(insn.size, sizeof s.bytes));
  s.insn_id = static_cast<uint16_t>(insn.id);
  s.scale = 1;

  if (insn.id == X86_INS_SYSCALL) {
    s.kind = SiteKind::Syscall;
    return true;
  }
  const Prefixes pre = scan_prefixes(insn.bytes, insn.size);
  if (auto op = fence_op(insn.bytes, insn.size, pre)) {
    s.kind = SiteKind::Fence;
    s.op = *op;
    return true;
  }

  int mem_index = -1;
  for (int i = 0; i < x.op_count; ++i) {
    if (x.operands[i].type == X86_OP_MEM) {
      mem_index = i;
      break;
    }
  }
  if (mem_index < 0) return false;
  const uint8_t props = prop(insn.id);
  if (props & kExcluded) return false;
  const cs_x86_op& mem = x.operands[mem_index];

  if (props & kStringName) {
    if (auto op = string_op(pre.opcode)) {
      s.kind = SiteKind::StringOp;
      s.op = *op;
      s.size = mem.size;
      s.base = pre.addr32 ? X86_REG_EDI : X86_REG_RDI;
      if (pre.rep) s.flags |= kSiteRep;
      return true;
    }
  }

  const x86_op_mem& m = mem.mem;
  if (!is_address_register(m.base) || !is_address_register(m.index) || m.index == X86_REG_RIP ||
      m.index == X86_REG_EIP) {
    return false;  // vector index (VSIB) or something capstone made up
  }
  s.base = static_cast<uint16_t>(m.base);
  s.index = static_cast<uint16_t>(m.index);
  s.scale = m.index != X86_REG_INVALID ? static_cast<uint8_t>(m.scale) : 1;
  s.disp = m.disp;
  s.size = mem.size;
  s.segment = m.segment == X86_REG_FS ? SiteSegment::Fs
              : m.segment == X86_REG_GS ? SiteSegment::Gs
                                        : SiteSegment::None;

  bool masked = false;
  bool has_imm = false;
  int other_operands = 0;
  for (int i = 0; i < x.op_count; ++i) {
    if (i == mem_index) continue;
    const cs_x86_op& op = x.operands[i];
    ++other_operands;
    if (op.type == X86_OP_REG) {
      if (is_opmask_reg(op.reg)) {
        masked = true;
        continue;
      }
      if (is_vector_reg(op.reg)) s.flags |= kSiteVector;
      if (s.src_reg == 0) s.src_reg = static_cast<uint16_t>(op.reg);
    } else if (op.type == X86_OP_IMM && !has_imm) {
      has_imm = true;
      s.imm = op.imm;
    }
  }
  if (has_imm) s.flags |= kSiteHasImm;

  const bool rsp_based = is_gpr64_stack(s.base) || is_gpr64_stack(s.index);
  const bool locked = pre.lock || insn.id == X86_INS_XCHG;
  if (locked) {
    s.kind = SiteKind::Rmw;
    s.op = rmw_op(insn.id);
    s.flags |= kSiteLocked;
    if (rsp_based && has_imm) {
      const uint64_t mask = size_mask(s.size);
      const uint64_t imm = static_cast<uint64_t>(s.imm) & mask;
      bool unchanged = false;
      switch (s.op) {
        case SiteOp::Or: case SiteOp::Add: case SiteOp::Sub: case SiteOp::Xor: unchanged = imm == 0; break;
        case SiteOp::And: unchanged = imm == mask; break;
        default: break;
      }
      if (unchanged) {
        // The compiler's seq_cst fence on its own stack: only the ordering matters.
        Site fence{};
        fence.offset = s.offset;
        fence.length = s.length;
        std::memcpy(fence.bytes, s.bytes, sizeof fence.bytes);
        fence.insn_id = s.insn_id;
        fence.scale = 1;
        fence.kind = SiteKind::Fence;
        fence.op = SiteOp::Mfence;
        fence.flags = kSiteLocked;
        s = fence;
        return true;
      }
    }
  } else {
    if (rsp_based) return false;
    if (mem_index != 0) {
      s.kind = SiteKind::Load;
    } else if (props & kReadOnly) {
      s.kind = SiteKind::Load;
    } else if (props & kRmwName) {
      s.kind = SiteKind::Rmw;
      s.op = rmw_op(insn.id);
    } else if (mem.access == (CS_AC_READ | CS_AC_WRITE)) {
      s.kind = SiteKind::Rmw;  // something else that capstone knows updates memory
    } else {
      // capstone 4 reports many SSE/AVX, x87 and movbe/movnti stores as reads;
      // a destination memory operand of an instruction not known to read it is written.
      s.kind = SiteKind::Store;
      bool plain_source = other_operands == 1 && !masked &&
                          (has_imm || (s.src_reg != 0 && is_readable_source(s.src_reg)));
      s.op = (props & kMovLike) && plain_source ? SiteOp::Mov : SiteOp::Other;
    }
  }
  if (s.kind == SiteKind::Load) {
    s.src_reg = 0;
    s.imm = 0;
    s.flags &= static_cast<uint8_t>(~kSiteHasImm);
  }

  if (s.base == X86_REG_RIP || s.base == X86_REG_EIP) {
    // mod=00 rm=101 has no SIB byte, so the disp32 follows the ModR/M byte.
    // Cross-checked against the bytes because the agent rewrites it when it
    // moves the instruction: a wrong offset would corrupt the program.
    const unsigned modrm = x.encoding.modrm_offset;
    const unsigned at = modrm + 1;
    if (modrm == 0 || at + 4 > insn.size || (insn.bytes[modrm] & 0xc7) != 0x05) return false;
    int32_t disp32;
    std::memcpy(&disp32, insn.bytes + at, sizeof disp32);
    if (disp32 != m.disp || (x.encoding.disp_offset != 0 && x.encoding.disp_offset != at)) return false;
    s.flags |= kSiteRipRelative;
    s.disp_offset = static_cast<uint8_t>(at);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Ranges

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

// A code range inside one region; merging never joins two regions.
struct Piece {
  uint64_t start;
  uint64_t end;
  size_t region;
};

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

uint16_t dead_registers(const uint8_t* bytes, size_t n, uint64_t addr) {
  thread_local Classifier classifier;
  return classifier.dead_registers(bytes, n, addr);
}

Classification classify(const uint8_t* bytes, size_t n, uint64_t addr, Site& out) {
  thread_local Classifier classifier;
  if (!classifier.decode(bytes, n, addr)) return Classification::kUndecodable;
  return classifier.classify(classifier.insn(), out) ? Classification::kSite : Classification::kNotSite;
}

namespace {

// What the patch planner needs of every decoded instruction.
// The Site::dead bit of a general register (rsp has none: always kept) and
// whether writing `reg` defines the whole register (32- and 64-bit writes
// do; 8- and 16-bit ones keep the other bits). -1: not a general register.
int gpr_bit(unsigned reg, bool& whole) {
  static const unsigned kFamilies[][4] = {
      {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL},     {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL},
      {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL},     {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL},
      {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL},    {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL},
      {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL},    {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},
      {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},    {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B},
      {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B}, {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B},
      {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B}, {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B},
      {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B}};
  for (int f = 0; f < 15; ++f)
    for (int w = 0; w < 4; ++w)
      if (kFamilies[f][w] == reg) {
        whole = w < 2;
        return f;
      }
  if (reg == X86_REG_AH || reg == X86_REG_CH || reg == X86_REG_DH || reg == X86_REG_BH) {
    whole = false;
    return reg == X86_REG_AH ? 0 : reg == X86_REG_CH ? 1 : reg == X86_REG_DH ? 2 : 3;
  }
  return -1;
}

bool is_control_flow(unsigned id);

uint16_t Classifier::dead_registers(const uint8_t* code, size_t size, uint64_t addr) const {
  // Forward from the site (itself included) through straight-line code: a
  // register is dead when an instruction defines it whole before any reads
  // it; a read, a partial write, or the end of the scan (a branch, a call,
  // an instruction capstone cannot tell) keeps it. The flags are dead when
  // an instruction sets all six arithmetic flags before any tests one.
  constexpr uint64_t kSixFlags[6][4] = {
      {X86_EFLAGS_MODIFY_CF, X86_EFLAGS_SET_CF, X86_EFLAGS_RESET_CF, X86_EFLAGS_UNDEFINED_CF},
      {X86_EFLAGS_MODIFY_PF, X86_EFLAGS_SET_PF, X86_EFLAGS_RESET_PF, X86_EFLAGS_UNDEFINED_PF},
      {X86_EFLAGS_MODIFY_AF, X86_EFLAGS_SET_AF, X86_EFLAGS_RESET_AF, X86_EFLAGS_UNDEFINED_AF},
      {X86_EFLAGS_MODIFY_ZF, X86_EFLAGS_SET_ZF, X86_EFLAGS_RESET_ZF, X86_EFLAGS_UNDEFINED_ZF},
      {X86_EFLAGS_MODIFY_SF, X86_EFLAGS_SET_SF, X86_EFLAGS_RESET_SF, X86_EFLAGS_UNDEFINED_SF},
      {X86_EFLAGS_MODIFY_OF, X86_EFLAGS_SET_OF, X86_EFLAGS_RESET_OF, X86_EFLAGS_UNDEFINED_OF}};
  constexpr uint64_t kTests = X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF | X86_EFLAGS_TEST_PF |
                              X86_EFLAGS_TEST_CF | X86_EFLAGS_TEST_NT | X86_EFLAGS_TEST_DF | X86_EFLAGS_TEST_RF |
                              X86_EFLAGS_TEST_TF | X86_EFLAGS_TEST_IF | X86_EFLAGS_TEST_AF;
  uint16_t decided = 0, dead = 0;
  for (int n = 0; n < 16 && size > 0; ++n) {
    if (!cs_disasm_iter(handle_, &code, &size, &addr, scratch_)) break;
    cs_regs read, write;
    uint8_t reads = 0, writes = 0;
    if (cs_regs_access(handle_, scratch_, read, &reads, write, &writes) != CS_ERR_OK) break;
    uint16_t live = 0, defined = 0;
    bool flags_read = false, flags_written = false;
    for (uint8_t i = 0; i < reads; ++i) {
      bool whole;
      int b = gpr_bit(read[i], whole);
      if (b >= 0) live |= uint16_t(1u << b);
      if (read[i] == X86_REG_EFLAGS) flags_read = true;
    }
    for (uint8_t i = 0; i < writes; ++i) {
      bool whole = false;
      int b = gpr_bit(write[i], whole);
      if (b >= 0) (whole ? defined : live) |= uint16_t(1u << b);
      if (write[i] == X86_REG_EFLAGS) flags_written = true;
    }
    const uint64_t eflags = scratch_->detail->x86.eflags;
    if (eflags & kTests) flags_read = true;
    if (flags_written) {
      bool all = true;
      for (const auto& f : kSixFlags) all = all && (eflags & (f[0] | f[1] | f[2] | f[3]));
      if (all)
        defined |= kDeadFlags;
      else
        live |= kDeadFlags;  // some flags kept: the rest may be read later
    }
    if (flags_read) live |= kDeadFlags;
    // Reads come before writes within an instruction.
    decided |= live;
    dead |= defined & ~decided;
    decided |= defined;
    if (is_control_flow(scratch_->id)) break;
  }
  return dead;
}

struct InsnInfo {
  uint64_t addr;
  const uint8_t* bytes;
  uint8_t size;
  bool in_step;
  bool movable;       // no control flow, nothing position-dependent but a rip-relative displacement
  int8_t rip_disp;    // offset of a rip-relative disp32, or -1
};

bool is_control_flow(unsigned id) {
  switch (id) {
    case X86_INS_JMP: case X86_INS_LJMP: case X86_INS_CALL: case X86_INS_LCALL:
    case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET: case X86_INS_IRETD:
    case X86_INS_IRETQ: case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE: case X86_INS_JCXZ:
    case X86_INS_JECXZ: case X86_INS_JRCXZ: case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE:
    case X86_INS_JB: case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL:
    case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP:
    case X86_INS_JS: case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT: case X86_INS_INT1:
    case X86_INS_INT3: case X86_INS_INTO: case X86_INS_UD2: case X86_INS_HLT: case X86_INS_ENDBR64:
    case X86_INS_ENDBR32: case X86_INS_XBEGIN: case X86_INS_XABORT: case X86_INS_XEND:
      return true;
    default:
      return false;
  }
}

// The jump planner: a site of 5 bytes or more takes a jmp alone; a shorter
// one only with the instructions right after it, and only when every one of
// those is in step, movable, not a site, not a branch target or function
// start, and the function has no indirect jump (a jump table could land on
// any of them).
void plan_patches(DecodedModule& result, const std::vector<InsnInfo>& insns, std::vector<uint64_t>& targets,
                  const std::vector<uint64_t>& starts, const std::vector<uint64_t>& indirect_jumps) {
  std::sort(targets.begin(), targets.end());
  auto is_target = [&](uint64_t a) { return std::binary_search(targets.begin(), targets.end(), a); };
  auto function_of = [&](uint64_t a) -> uint64_t {
    auto it = std::upper_bound(starts.begin(), starts.end(), a);
    return it == starts.begin() ? 0 : *(it - 1);
  };
  std::vector<uint64_t> dangerous;  // functions with an indirect jump
  for (uint64_t a : indirect_jumps) dangerous.push_back(function_of(a));
  std::sort(dangerous.begin(), dangerous.end());
  std::vector<uint64_t> site_addrs;
  for (const Site& st : result.sites) site_addrs.push_back(st.offset);

  result.patches.assign(result.sites.size(), SitePatch{});
  for (size_t i = 0; i < result.sites.size(); ++i) {
    const Site& site = result.sites[i];
    SitePatch& patch = result.patches[i];
    // The agent performs a system call site's call itself, in its SIGTRAP
    // handler: it never runs from a trampoline.
    if (site.kind == SiteKind::Syscall) continue;
    if (site.length >= 5) {
      patch.length = site.length;
      ++result.jump_sites;
      continue;
    }
    if (std::binary_search(dangerous.begin(), dangerous.end(), function_of(site.offset))) continue;
    auto it = std::lower_bound(insns.begin(), insns.end(), site.offset,
                               [](const InsnInfo& x, uint64_t a) { return x.addr < a; });
    if (it == insns.end() || it->addr != site.offset) continue;
    uint64_t end = site.offset + site.length;
    SitePatch p{};
    bool ok = false;
    for (auto n = it + 1; n != insns.end(); ++n) {
      if (n->addr != end || !n->in_step || !n->movable || is_target(n->addr) ||
          std::binary_search(starts.begin(), starts.end(), n->addr) ||
          std::binary_search(site_addrs.begin(), site_addrs.end(), n->addr))
        break;
      if (p.extra_len + n->size > sizeof p.extra) break;
      if (n->rip_disp >= 0) {
        if (p.fixup_count == sizeof p.fixups) break;
        p.fixups[p.fixup_count++] = uint8_t(p.extra_len + n->rip_disp);
      }
      std::memcpy(p.extra + p.extra_len, n->bytes, n->size);
      p.extra_len = uint8_t(p.extra_len + n->size);
      end += n->size;
      if (end - site.offset >= 5) {
        ok = true;
        break;
      }
    }
    if (!ok) continue;
    p.length = uint8_t(end - site.offset);
    patch = p;
    ++result.jump_sites;
  }
}

}  // namespace

DecodedModule decode_sites(const std::string& path, uint8_t module, bool syscalls_only) {
  MappedFile file(path);
  ElfLayout elf = read_layout(file, path);

  DecodedModule result;
  result.path = path;
  result.file_size = file.size();

  std::vector<Range> holes;
  for (const Section& sec : elf.sections) {
    if (is_plt(sec.name) && sec.hdr.sh_size > 0) holes.push_back({sec.hdr.sh_addr, sec.hdr.sh_addr + sec.hdr.sh_size});
  }

  const std::vector<ExecSegment> regions = code_regions(elf);
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

  std::vector<uint64_t> starts;
  starts.reserve(pieces.size());
  for (const Piece& p : pieces) starts.push_back(p.start);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  result.functions = starts.size();

  if (syscalls_only) {
    // Only the code ranges that hold the bytes of a `syscall` at all (in
    // step or not: decoding tells); a library's other functions are not
    // decoded, which keeps this cheap for big libraries.
    std::erase_if(pieces, [&](const Piece& p) {
      const ExecSegment& seg = regions[p.region];
      const uint8_t* code = file.at(seg.offset + (p.start - seg.vaddr), p.end - p.start);
      if (!code) return true;
      for (uint64_t k = 0; k + 1 < p.end - p.start; ++k)
        if (code[k] == 0x0f && code[k + 1] == 0x05) return false;
      return true;
    });
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return a.region != b.region ? a.region < b.region : a.start < b.start;
  });
  std::vector<Piece> merged;
  for (const Piece& p : pieces) {
    if (!merged.empty() && merged.back().region == p.region && p.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, p.end);
    } else {
      merged.push_back(p);
    }
  }

  Classifier classifier;
  std::vector<InsnInfo> insns;
  std::vector<uint64_t> targets, indirect_jumps;
  for (const Piece& piece : merged) {
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
      {
        // For the jump planner: branch targets, indirect jumps, and whether
        // this instruction could run from a trampoline.
        const cs_x86& x = insn.detail->x86;
        bool flow = is_control_flow(insn.id);
        int8_t rip_disp = -1;
        bool movable = !flow;
        for (uint8_t k = 0; k < x.op_count; ++k) {
          const cs_x86_op& op = x.operands[k];
          if (flow && op.type == X86_OP_IMM) targets.push_back(uint64_t(op.imm));
          if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP) {
            if (x.encoding.disp_offset == 0 || x.encoding.disp_size != 4) movable = false;
            rip_disp = int8_t(x.encoding.disp_offset);
          }
        }
        if ((insn.id == X86_INS_JMP || insn.id == X86_INS_LJMP) && x.op_count == 1 && x.operands[0].type != X86_OP_IMM)
          indirect_jumps.push_back(pos);
        insns.push_back(InsnInfo{pos, code, uint8_t(insn.size), in_step, movable, rip_disp});
      }
      Site site;
      if (classifier.classify(insn, site) && (!syscalls_only || site.kind == SiteKind::Syscall)) {
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

  std::sort(result.sites.begin(), result.sites.end(),
            [](const Site& a, const Site& b) { return a.offset < b.offset; });
  result.sites.erase(std::unique(result.sites.begin(), result.sites.end(),
                                 [](const Site& a, const Site& b) { return a.offset == b.offset; }),
                     result.sites.end());
  std::sort(insns.begin(), insns.end(), [](const InsnInfo& a, const InsnInfo& b) { return a.addr < b.addr; });
  plan_patches(result, insns, targets, starts, indirect_jumps);
  return result;
}

}  // namespace ctrl
