// Finds the instruction sites of one ELF file on disk: every instruction that
// accesses memory or fences, classified into a Site record (protocol/
// SiteTable.h) that the agent can act on without a disassembler.
//
// Decoding never sweeps blindly. It starts only at known instruction
// boundaries -- function symbols with a size (.symtab, .dynsym) and .eh_frame
// FDE ranges -- and walks each merged range linearly. When capstone cannot
// decode an instruction (capstone 4 lacks many AVX-512 forms), a VEX/EVEX/0F-
// map instruction is skipped whole, its length taken from the encoding;
// anything else is skipped one byte at a time, and from then on decoding is
// "out of step" until the next known boundary: instructions found there may
// be the tails of others, so they yield no sites (an int3 inside a real
// instruction would corrupt it). An instruction that would straddle a known
// boundary is dropped and decoding restarts at the boundary. PLT sections
// are left out: their indirect jumps and GOT pushes belong to the dynamic
// linker, not to the program.
//
// Classification (what is and is not a site) is documented on classify().
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
// `syscalls_only`: only `syscall` instructions, and only code ranges whose
// bytes contain 0f 05 are decoded (the program's other libraries).
DecodedModule decode_sites(const std::string& path, uint8_t module, bool syscalls_only = false);

enum class Classification : uint8_t {
  kUndecodable,  // capstone 4 cannot decode the bytes (including its "0 insns, CS_ERR_OK" gaps)
  kNotSite,      // a valid instruction that is not a site
  kSite,         // `out` holds the site
};

// Decodes the one instruction at bytes[0, n) as if it were at address `addr`
// and classifies it. On kSite, `out` is fully written (offset = addr,
// module = 0); otherwise `out` is left unspecified. Uses a capstone handle of
// the calling thread.
//
// Sites:
//  - LOCK-prefixed instructions with a memory operand: Rmw + kSiteLocked, the
//    operand taken as read+write whatever capstone reports (capstone 4 marks
//    cmpxchg* read-only), op from the mnemonic (Add ... Btc, else Other).
//  - xchg with a memory operand (either operand order): Rmw, Xchg, kSiteLocked.
//  - mfence/lfence/sfence, recognised by their exact bytes 0f ae f0/e8/f8 with
//    no legacy prefix (capstone 4 also calls f2/f3/66 0f ae f0 -- umwait,
//    umonitor, tpause -- "mfence"); an optional REX byte is allowed. Fence,
//    size 0, no memory operand.
//  - The seq_cst fence idiom: a locked or/add/sub/xor with 0, or and with all
//    ones, on an rsp-based operand leaves memory unchanged, so it becomes
//    Fence/Mfence (flags kSiteLocked, no memory operand).
//  - Any other locked instruction or xchg on an rsp-based operand stays a
//    locked Rmw site with base rsp: a stack atomic may be shared with other
//    threads, and a locked access is a synchronisation point either way.
//  - Every other instruction with an explicit memory operand not based on or
//    indexed by rsp: Load (memory is only read), Store (only written: op Mov
//    with src_reg or imm for plain moves of a general or xmm/ymm/zmm
//    register or immediate, Other for setcc, x87/movbe/extract/masked stores
//    ...) or unlocked Rmw (op as for locked, Other for shifts/rotates).
//    push/pop with an explicit memory operand (push [rdi]) are a Load/Store
//    of that operand; their stack half is not a site.
//  - movs/stos/lods/cmps/scas (by opcode byte, so SSE movsd/cmpsd are not
//    mistaken for them): StringOp, size = element size, kSiteRep when
//    f3/f2-prefixed, base = rdi (or edi under an address-size prefix, which
//    string_access() honours), no other operand fields.
//  - kSiteVector when an operand is an xmm/ymm/zmm register; src_reg is that
//    register for vector stores.
//  - `syscall`: Syscall, no operand fields; always patched with an int3
//    (the agent performs the call, KernelWaits.h).
//
// Not sites: instructions without an explicit memory operand, rsp-addressed
// accesses other than the locked ones above, lea, nop, prefetch*, clflush*,
// clwb, call/jmp (also through memory: those are GOT/vtable loads the agent
// cannot usefully stop on), MPX bnd*, ins/outs, xlat, descriptor-table and
// VMX instructions (sgdt, lidt, verr, vmread...), the fxsave/xsave/xrstor
// families and x87 fnsave/frstor/fnstenv/fldenv (state images of hundreds of
// bytes, used by the dynamic linker and signal code on private buffers),
// gathers/scatters (VSIB addressing has a vector index; capstone 4 also
// misreports the scatter index as a general register), and rip-relative
// instructions whose disp32 position cannot be confirmed from the bytes (the
// agent must relocate it).
//
// Known gaps: instructions capstone 4 cannot decode are never sites -- in
// glibc these are AVX-512 mask instructions and EVEX compares into masks
// (vpcmpeqb k1, zmm0, [rdi]) of the *_evex string functions. bt [m], reg is
// a Load at the operand's address; the bit-offset displacement of the
// register form is applied only for bts/btr/btc (SiteMath.h).
Classification classify(const uint8_t* bytes, size_t n, uint64_t addr, Site& out);

// Site::dead of the instruction at bytes[0, n) (at `addr`) and the
// straight-line code after it: the registers defined whole before they are
// read. decode_sites() fills it in for every site.
uint16_t dead_registers(const uint8_t* bytes, size_t n, uint64_t addr);

}  // namespace ctrl
