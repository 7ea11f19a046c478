// Instruction sites: the memory-accessing instructions of instrumented code
// that become visible operations. The controller decodes them from the ELF
// files on disk before the target starts (SiteDecoder) and hands the table to
// the agent in a memfd; the agent patches an int3 at each site and takes the
// trap in-process.
//
// Register numbers are capstone 4's x86_reg values; the agent reads them from
// the signal context (SiteMath.h) without linking capstone.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ctrl {

enum class SiteKind : uint8_t {
  Load = 1,      // reads memory
  Store = 2,     // writes memory without reading it
  Rmw = 3,       // reads and writes (locked or not: see kSiteLocked)
  Fence = 4,     // mfence/lfence/sfence, no memory operand
  StringOp = 5,  // movs/stos/lods/cmps/scas, possibly rep-prefixed
  // A `syscall` instruction (always an int3 site): the agent performs the
  // call itself, modelling the ones a thread would block in (KernelWaits.h).
  Syscall = 6,
  // rdtsc (0f 31) or rdtscp (0f 01 f9), those exact bytes (always an int3
  // site): not a visible operation; the agent answers it with the virtual
  // TSC (agent/VirtualTsc.h), where the kernel's TSC trap cannot be relied on.
  Tsc = 7,
};

// What the instruction computes, so the agent can tell the value it is about
// to write before it runs (values of Load and Fence sites need no op).
enum class SiteOp : uint8_t {
  Other = 0,  // value written unknown (logged as 0)
  Mov,        // store of src_reg or imm
  Add, Sub, And, Or, Xor, Adc, Sbb,
  Inc, Dec, Neg, Not,
  Xadd,       // writes old + src, src gets old
  Xchg,       // writes src
  Cmpxchg,    // writes src when memory == rax (sized), else only reads
  Cmpxchg8b,  // edx:eax / ecx:ebx
  Cmpxchg16b, // rdx:rax / rcx:rbx
  Bts, Btr, Btc,
  Mfence, Lfence, Sfence,
  Movs, Stos, Lods, Cmps, Scas,
};

enum SiteFlag : uint8_t {
  kSiteLocked = 1,       // LOCK prefix, or xchg with memory (implicitly locked)
  kSiteRipRelative = 2,  // disp is relative to the next instruction; relocate it
  kSiteRep = 4,          // rep/repe/repne prefix (string ops)
  kSiteVector = 8,       // SSE/AVX operand (src_reg is an xmm/ymm/zmm register)
  kSiteHasImm = 16,      // imm is the source operand
};

enum class SiteSegment : uint8_t { None = 0, Fs = 1, Gs = 2 };

// Site::dead: the arithmetic flags (CF PF AF ZF SF OF).
inline constexpr uint16_t kDeadFlags = uint16_t(1) << 15;

struct Site {
  uint64_t offset;    // link-time virtual address in its module (load bias added at run time)
  int64_t disp;       // memory operand displacement
  int64_t imm;        // immediate source operand, when kSiteHasImm
  uint16_t base;      // x86_reg of the base register, 0 if none; X86_REG_RIP for rip-relative
  uint16_t index;     // x86_reg of the index register, 0 if none
  uint16_t src_reg;   // x86_reg of the register source (stores, RMW), 0 if none
  uint16_t insn_id;   // capstone x86_insn, for reports
  uint8_t length;     // instruction length in bytes
  uint8_t bytes[15];  // the original instruction
  uint8_t scale;      // 1, 2, 4, 8
  uint8_t size;       // bytes accessed (element size for string ops), 0 for fences
  uint8_t disp_offset;  // offset of the 32-bit displacement inside `bytes`, for kSiteRipRelative
  SiteKind kind;
  SiteOp op;
  uint8_t flags;      // SiteFlag bits
  SiteSegment segment;
  uint8_t module;     // index into SiteTableHeader::modules
  // Registers the code from here on defines before it reads them (bits:
  // kDeadFlags and rax rcx rdx rbx rbp rsi rdi r8..r15 as 0..14): their values
  // at the site cannot matter, so spin detection leaves them out of the
  // thread's state (agent/LoopState.h). Conservative: 0 is always right.
  uint16_t dead;
};
static_assert(sizeof(Site) == 64);

// How a site is patched. A 5-byte jmp covers `pre_len` bytes before the site
// and `length` from it: the site itself and, for a site shorter than 5
// bytes, the instructions right after it (or, when those cannot move, right
// before it), which the trampoline runs before and after the site (the
// decoder checked that nothing branches into the covered bytes after the
// jmp's first, and that none is control flow). length 0: too short and no
// room, an int3 instead.
struct SitePatch {
  uint8_t length;
  uint8_t pre_len;      // bytes of the instructions before the site: extra[0, pre_len)
  uint8_t extra_len;    // bytes in `extra`: those before, then those after the site
  uint8_t fixup_count;  // rip-relative 32-bit displacements inside `extra`
  uint8_t fixups[4];    // their offsets within `extra`
  uint8_t extra[56];
};
static_assert(sizeof(SitePatch) == 64);

// Whether the site takes a jmp (no signal) rather than an int3.
inline bool takes_jump(const SitePatch& p) { return p.length > 0 && p.pre_len + p.length >= 5; }

inline constexpr uint32_t kSiteTableMagic = 0x53545243;  // "CRTS"
inline constexpr uint32_t kSiteTableVersion = 6;
inline constexpr uint32_t kMaxSiteModules = 16;

// SiteModule::flags: a library of the program that was not asked for with
// --instrument, decoded only for its `syscall`, rdtsc and rdtscp
// instructions; the agent drops its sites when the loader did not load that
// file.
inline constexpr uint64_t kModuleSyscallsOnly = 1;

struct SiteModule {
  char path[240];      // the file the sites were decoded from
  uint64_t file_size;  // to refuse a table decoded from another file
  uint64_t flags;      // kModule* bits
};

// Layout of the memfd: header, then `count` sites sorted by (module,
// offset), then their `count` SitePatch records in the same order.
struct SiteTableHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t module_count;
  uint32_t pad;
  uint64_t count;
  uint64_t visible_policy;  // 0: all sites, 1: only locked/xchg/fence sites (see controller)
  SiteModule modules[kMaxSiteModules];
};

inline size_t site_table_size(uint64_t count) {
  return sizeof(SiteTableHeader) + count * (sizeof(Site) + sizeof(SitePatch));
}

}  // namespace ctrl
