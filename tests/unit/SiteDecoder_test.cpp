#include "sites/SiteDecoder.h"

#include <capstone/x86.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <initializer_list>

#include "cli/ExitStatus.h"
#include "sites/RegisterLiveness.h"
#include "sites/SiteClassifier.h"

namespace ctrl {
namespace {

// ---------------------------------------------------------------------------
// One instruction at a time

struct Case {
  const char* what;
  std::vector<uint8_t> bytes;
  Classification result;
  SiteKind kind = SiteKind::Load;
  SiteOp op = SiteOp::Other;
  uint8_t flags = 0;
  uint8_t size = 0;
  uint16_t base = 0;
  uint16_t index = 0;
  uint8_t scale = 1;
  int64_t disp = 0;
  SiteSegment segment = SiteSegment::None;
  uint16_t src_reg = 0;
  int64_t imm = 0;
  uint8_t disp_offset = 0;
};

constexpr auto kSite = Classification::kSite;
constexpr auto kNotSite = Classification::kNotSite;
constexpr auto kUndecodable = Classification::kUndecodable;
using K = SiteKind;
using O = SiteOp;

// Encodings as the GNU assembler emits them (checked with objdump).
const Case kCases[] = {
    // LOCK-prefixed read-modify-writes: the operand is read+write whatever capstone says.
    {.what = "lock add dword [rdi], eax", .bytes = {0xf0, 0x01, 0x07}, .result = kSite, .kind = K::Rmw,
     .op = O::Add, .flags = kSiteLocked, .size = 4, .base = X86_REG_RDI, .src_reg = X86_REG_EAX},
    {.what = "lock xadd dword [rip+0x1234], eax", .bytes = {0xf0, 0x0f, 0xc1, 0x05, 0x34, 0x12, 0x00, 0x00},
     .result = kSite, .kind = K::Rmw, .op = O::Xadd, .flags = kSiteLocked | kSiteRipRelative, .size = 4,
     .base = X86_REG_RIP, .disp = 0x1234, .src_reg = X86_REG_EAX, .disp_offset = 4},
    {.what = "lock cmpxchg qword [rdi+8], rcx", .bytes = {0xf0, 0x48, 0x0f, 0xb1, 0x4f, 0x08}, .result = kSite,
     .kind = K::Rmw, .op = O::Cmpxchg, .flags = kSiteLocked, .size = 8, .base = X86_REG_RDI, .disp = 8,
     .src_reg = X86_REG_RCX},
    {.what = "lock cmpxchg8b qword [rdi]", .bytes = {0xf0, 0x0f, 0xc7, 0x0f}, .result = kSite, .kind = K::Rmw,
     .op = O::Cmpxchg8b, .flags = kSiteLocked, .size = 8, .base = X86_REG_RDI},
    {.what = "lock cmpxchg16b xmmword [rdi]", .bytes = {0xf0, 0x48, 0x0f, 0xc7, 0x0f}, .result = kSite,
     .kind = K::Rmw, .op = O::Cmpxchg16b, .flags = kSiteLocked, .size = 16, .base = X86_REG_RDI},
    {.what = "lock inc dword [rdi]", .bytes = {0xf0, 0xff, 0x07}, .result = kSite, .kind = K::Rmw, .op = O::Inc,
     .flags = kSiteLocked, .size = 4, .base = X86_REG_RDI},
    {.what = "lock bts dword [rdi], 3", .bytes = {0xf0, 0x0f, 0xba, 0x2f, 0x03}, .result = kSite, .kind = K::Rmw,
     .op = O::Bts, .flags = kSiteLocked | kSiteHasImm, .size = 4, .base = X86_REG_RDI, .imm = 3},
    {.what = "lock bts qword [rdi], rax", .bytes = {0xf0, 0x48, 0x0f, 0xab, 0x07}, .result = kSite, .kind = K::Rmw,
     .op = O::Bts, .flags = kSiteLocked, .size = 8, .base = X86_REG_RDI, .src_reg = X86_REG_RAX},
    {.what = "xacquire lock add dword [rdi], 1", .bytes = {0xf2, 0xf0, 0x83, 0x07, 0x01}, .result = kSite,
     .kind = K::Rmw, .op = O::Add, .flags = kSiteLocked | kSiteHasImm, .size = 4, .base = X86_REG_RDI, .imm = 1},
    {.what = "lock or dword fs:[0x10], 1", .bytes = {0x64, 0xf0, 0x83, 0x0c, 0x25, 0x10, 0x00, 0x00, 0x00, 0x01},
     .result = kSite, .kind = K::Rmw, .op = O::Or, .flags = kSiteLocked | kSiteHasImm, .size = 4, .disp = 0x10,
     .segment = SiteSegment::Fs, .imm = 1},

    // xchg with memory is implicitly locked. The assembler encodes both
    // `xchg [rdi], rax` and `xchg rax, [rdi]` as 87 /r; capstone lists the
    // memory operand first either way.
    {.what = "xchg qword [rdi], rax / xchg rax, qword [rdi]", .bytes = {0x48, 0x87, 0x07}, .result = kSite,
     .kind = K::Rmw, .op = O::Xchg, .flags = kSiteLocked, .size = 8, .base = X86_REG_RDI, .src_reg = X86_REG_RAX},
    {.what = "xchg byte [rdi], al", .bytes = {0x86, 0x07}, .result = kSite, .kind = K::Rmw, .op = O::Xchg,
     .flags = kSiteLocked, .size = 1, .base = X86_REG_RDI, .src_reg = X86_REG_AL},
    {.what = "xchg dword [rdi+rsi*2+0x10], ecx", .bytes = {0x87, 0x4c, 0x77, 0x10}, .result = kSite,
     .kind = K::Rmw, .op = O::Xchg, .flags = kSiteLocked, .size = 4, .base = X86_REG_RDI, .index = X86_REG_RSI,
     .scale = 2, .disp = 0x10, .src_reg = X86_REG_ECX},
    {.what = "xchg rax, rbx", .bytes = {0x48, 0x93}, .result = kNotSite},
    {.what = "xchg eax, eax (modrm form)", .bytes = {0x87, 0xc0}, .result = kNotSite},

    // Fences by their exact bytes.
    {.what = "mfence", .bytes = {0x0f, 0xae, 0xf0}, .result = kSite, .kind = K::Fence, .op = O::Mfence},
    {.what = "lfence", .bytes = {0x0f, 0xae, 0xe8}, .result = kSite, .kind = K::Fence, .op = O::Lfence},
    {.what = "sfence", .bytes = {0x0f, 0xae, 0xf8}, .result = kSite, .kind = K::Fence, .op = O::Sfence},
    {.what = "rex.w mfence", .bytes = {0x48, 0x0f, 0xae, 0xf0}, .result = kSite, .kind = K::Fence,
     .op = O::Mfence},
    {.what = "umwait eax (capstone 4: mfence)", .bytes = {0xf2, 0x0f, 0xae, 0xf0}, .result = kNotSite},
    {.what = "tpause eax (capstone 4: mfence)", .bytes = {0x66, 0x0f, 0xae, 0xf0}, .result = kNotSite},
    {.what = "umonitor rax (capstone 4: mfence)", .bytes = {0xf3, 0x0f, 0xae, 0xf0}, .result = kNotSite},

    // The seq_cst fence idiom on the stack, and real atomics on the stack.
    {.what = "lock or qword [rsp], 0", .bytes = {0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00}, .result = kSite,
     .kind = K::Fence, .op = O::Mfence, .flags = kSiteLocked},
    {.what = "lock or dword [rsp-0x40], 0", .bytes = {0xf0, 0x83, 0x4c, 0x24, 0xc0, 0x00}, .result = kSite,
     .kind = K::Fence, .op = O::Mfence, .flags = kSiteLocked},
    {.what = "lock add dword [rsp], 0", .bytes = {0xf0, 0x83, 0x04, 0x24, 0x00}, .result = kSite,
     .kind = K::Fence, .op = O::Mfence, .flags = kSiteLocked},
    {.what = "lock and qword [rsp], -1", .bytes = {0xf0, 0x48, 0x83, 0x24, 0x24, 0xff}, .result = kSite,
     .kind = K::Fence, .op = O::Mfence, .flags = kSiteLocked},
    {.what = "lock add dword [rsp], 1", .bytes = {0xf0, 0x83, 0x04, 0x24, 0x01}, .result = kSite, .kind = K::Rmw,
     .op = O::Add, .flags = kSiteLocked | kSiteHasImm, .size = 4, .base = X86_REG_RSP, .imm = 1},
    {.what = "lock xadd qword [rsp+8], rax", .bytes = {0xf0, 0x48, 0x0f, 0xc1, 0x44, 0x24, 0x08}, .result = kSite,
     .kind = K::Rmw, .op = O::Xadd, .flags = kSiteLocked, .size = 8, .base = X86_REG_RSP, .disp = 8,
     .src_reg = X86_REG_RAX},
    {.what = "xchg qword [rsp+8], rax", .bytes = {0x48, 0x87, 0x44, 0x24, 0x08}, .result = kSite, .kind = K::Rmw,
     .op = O::Xchg, .flags = kSiteLocked, .size = 8, .base = X86_REG_RSP, .disp = 8, .src_reg = X86_REG_RAX},

    // rip-relative, with the disp32 position the agent relocates.
    {.what = "mov eax, dword [rip+0x100]", .bytes = {0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}, .result = kSite,
     .kind = K::Load, .flags = kSiteRipRelative, .size = 4, .base = X86_REG_RIP, .disp = 0x100, .disp_offset = 2},
    {.what = "mov dword [rip+0x100], 5", .bytes = {0xc7, 0x05, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00},
     .result = kSite, .kind = K::Store, .op = O::Mov, .flags = kSiteRipRelative | kSiteHasImm, .size = 4,
     .base = X86_REG_RIP, .disp = 0x100, .imm = 5, .disp_offset = 2},
    {.what = "sub qword [rip+0x200], 7", .bytes = {0x48, 0x83, 0x2d, 0x00, 0x02, 0x00, 0x00, 0x07}, .result = kSite,
     .kind = K::Rmw, .op = O::Sub, .flags = kSiteRipRelative | kSiteHasImm, .size = 8, .base = X86_REG_RIP,
     .disp = 0x200, .imm = 7, .disp_offset = 3},
    {.what = "mov al, byte [rip-4]", .bytes = {0x8a, 0x05, 0xfc, 0xff, 0xff, 0xff}, .result = kSite,
     .kind = K::Load, .flags = kSiteRipRelative, .size = 1, .base = X86_REG_RIP, .disp = -4, .disp_offset = 2},
    {.what = "vmovdqu ymm0, ymmword [rip+0x300]", .bytes = {0xc5, 0xfe, 0x6f, 0x05, 0x00, 0x03, 0x00, 0x00},
     .result = kSite, .kind = K::Load, .flags = kSiteRipRelative | kSiteVector, .size = 32, .base = X86_REG_RIP,
     .disp = 0x300, .disp_offset = 4},
    {.what = "vmovdqa64 zmm3, zmmword [rip+0x100]",
     .bytes = {0x62, 0xf1, 0xfd, 0x48, 0x6f, 0x1d, 0x00, 0x01, 0x00, 0x00}, .result = kSite, .kind = K::Load,
     .flags = kSiteRipRelative | kSiteVector, .size = 64, .base = X86_REG_RIP, .disp = 0x100, .disp_offset = 6},

    // Segments.
    {.what = "mov rax, qword fs:[0x28]", .bytes = {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00},
     .result = kSite, .kind = K::Load, .size = 8, .disp = 0x28, .segment = SiteSegment::Fs},
    {.what = "mov dword gs:[rax+8], 1", .bytes = {0x65, 0xc7, 0x40, 0x08, 0x01, 0x00, 0x00, 0x00}, .result = kSite,
     .kind = K::Store, .op = O::Mov, .flags = kSiteHasImm, .size = 4, .base = X86_REG_RAX, .disp = 8,
     .segment = SiteSegment::Gs, .imm = 1},

    // SSE/AVX loads and stores.
    {.what = "movdqu xmm1, [rdi]", .bytes = {0xf3, 0x0f, 0x6f, 0x0f}, .result = kSite, .kind = K::Load,
     .flags = kSiteVector, .size = 16, .base = X86_REG_RDI},
    {.what = "movdqu [rdi], xmm2", .bytes = {0xf3, 0x0f, 0x7f, 0x17}, .result = kSite, .kind = K::Store,
     .op = O::Mov, .flags = kSiteVector, .size = 16, .base = X86_REG_RDI, .src_reg = X86_REG_XMM2},
    {.what = "movaps [rip+0x40], xmm3", .bytes = {0x0f, 0x29, 0x1d, 0x40, 0x00, 0x00, 0x00}, .result = kSite,
     .kind = K::Store, .op = O::Mov, .flags = kSiteVector | kSiteRipRelative, .size = 16, .base = X86_REG_RIP,
     .disp = 0x40, .src_reg = X86_REG_XMM3, .disp_offset = 3},
    {.what = "vmovdqu ymm4, [rdi+rcx*4+0x10]", .bytes = {0xc5, 0xfe, 0x6f, 0x64, 0x8f, 0x10}, .result = kSite,
     .kind = K::Load, .flags = kSiteVector, .size = 32, .base = X86_REG_RDI, .index = X86_REG_RCX, .scale = 4,
     .disp = 0x10},
    {.what = "vmovdqu [rdi], ymm5 (capstone 4: read)", .bytes = {0xc5, 0xfe, 0x7f, 0x2f}, .result = kSite,
     .kind = K::Store, .op = O::Mov, .flags = kSiteVector, .size = 32, .base = X86_REG_RDI,
     .src_reg = X86_REG_YMM5},
    {.what = "movsd xmm0, qword [rdi] (SSE, not the string op)", .bytes = {0xf2, 0x0f, 0x10, 0x07},
     .result = kSite, .kind = K::Load, .flags = kSiteVector, .size = 8, .base = X86_REG_RDI},
    {.what = "movsd qword [rdi], xmm0", .bytes = {0xf2, 0x0f, 0x11, 0x07}, .result = kSite, .kind = K::Store,
     .op = O::Mov, .flags = kSiteVector, .size = 8, .base = X86_REG_RDI, .src_reg = X86_REG_XMM0},
    {.what = "movhps qword [rdi], xmm1 (high half: value unknown)", .bytes = {0x0f, 0x17, 0x0f}, .result = kSite,
     .kind = K::Store, .op = O::Other, .flags = kSiteVector, .size = 8, .base = X86_REG_RDI,
     .src_reg = X86_REG_XMM1},
    {.what = "vmovdqu8 zmmword [rdi]{k1}, zmm1 (masked)", .bytes = {0x62, 0xf1, 0x7f, 0x49, 0x7f, 0x0f},
     .result = kSite, .kind = K::Store, .op = O::Other, .flags = kSiteVector, .size = 64, .base = X86_REG_RDI,
     .src_reg = X86_REG_ZMM1},

    // String instructions.
    {.what = "rep movsb", .bytes = {0xf3, 0xa4}, .result = kSite, .kind = K::StringOp, .op = O::Movs,
     .flags = kSiteRep, .size = 1, .base = X86_REG_RDI},
    {.what = "rep stosq", .bytes = {0xf3, 0x48, 0xab}, .result = kSite, .kind = K::StringOp, .op = O::Stos,
     .flags = kSiteRep, .size = 8, .base = X86_REG_RDI},
    {.what = "movsd (string, no rep)", .bytes = {0xa5}, .result = kSite, .kind = K::StringOp, .op = O::Movs,
     .size = 4, .base = X86_REG_RDI},
    {.what = "repe cmpsb", .bytes = {0xf3, 0xa6}, .result = kSite, .kind = K::StringOp, .op = O::Cmps,
     .flags = kSiteRep, .size = 1, .base = X86_REG_RDI},
    {.what = "repne scasb", .bytes = {0xf2, 0xae}, .result = kSite, .kind = K::StringOp, .op = O::Scas,
     .flags = kSiteRep, .size = 1, .base = X86_REG_RDI},
    {.what = "lodsq", .bytes = {0x48, 0xad}, .result = kSite, .kind = K::StringOp, .op = O::Lods, .size = 8,
     .base = X86_REG_RDI},
    {.what = "addr32 rep stosb", .bytes = {0x67, 0xf3, 0xaa}, .result = kSite, .kind = K::StringOp, .op = O::Stos,
     .flags = kSiteRep, .size = 1, .base = X86_REG_EDI},

    // Plain loads, stores and unlocked read-modify-writes.
    {.what = "mov qword [rbp-8], rax", .bytes = {0x48, 0x89, 0x45, 0xf8}, .result = kSite, .kind = K::Store,
     .op = O::Mov, .size = 8, .base = X86_REG_RBP, .disp = -8, .src_reg = X86_REG_RAX},
    {.what = "mov qword [rdi], -1", .bytes = {0x48, 0xc7, 0x07, 0xff, 0xff, 0xff, 0xff}, .result = kSite,
     .kind = K::Store, .op = O::Mov, .flags = kSiteHasImm, .size = 8, .base = X86_REG_RDI, .imm = -1},
    {.what = "mov byte [rdi], ah", .bytes = {0x88, 0x27}, .result = kSite, .kind = K::Store, .op = O::Mov,
     .size = 1, .base = X86_REG_RDI, .src_reg = X86_REG_AH},
    {.what = "mov word [rdi], fs (segment source: value unknown)", .bytes = {0x8c, 0x27}, .result = kSite,
     .kind = K::Store, .op = O::Other, .size = 2, .base = X86_REG_RDI, .src_reg = X86_REG_FS},
    {.what = "movnti dword [rdi], eax", .bytes = {0x0f, 0xc3, 0x07}, .result = kSite, .kind = K::Store,
     .op = O::Mov, .size = 4, .base = X86_REG_RDI, .src_reg = X86_REG_EAX},
    {.what = "movbe dword [rdi], eax", .bytes = {0x0f, 0x38, 0xf1, 0x07}, .result = kSite, .kind = K::Store,
     .op = O::Other, .size = 4, .base = X86_REG_RDI, .src_reg = X86_REG_EAX},
    {.what = "movabs eax, dword [0x1122334455667788]",
     .bytes = {0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}, .result = kSite, .kind = K::Load, .size = 4,
     .disp = 0x1122334455667788},
    {.what = "mov eax, dword [eax+4] (addr32)", .bytes = {0x67, 0x8b, 0x40, 0x04}, .result = kSite,
     .kind = K::Load, .size = 4, .base = X86_REG_EAX, .disp = 4},
    {.what = "add dword [rdi], eax", .bytes = {0x01, 0x07}, .result = kSite, .kind = K::Rmw, .op = O::Add,
     .size = 4, .base = X86_REG_RDI, .src_reg = X86_REG_EAX},
    {.what = "xadd dword [rdi], eax (unlocked)", .bytes = {0x0f, 0xc1, 0x07}, .result = kSite, .kind = K::Rmw,
     .op = O::Xadd, .size = 4, .base = X86_REG_RDI, .src_reg = X86_REG_EAX},
    {.what = "cmpxchg dword [rdi], ecx (unlocked; capstone 4: read)", .bytes = {0x0f, 0xb1, 0x0f},
     .result = kSite, .kind = K::Rmw, .op = O::Cmpxchg, .size = 4, .base = X86_REG_RDI, .src_reg = X86_REG_ECX},
    {.what = "shl dword [rdi], 1", .bytes = {0xd1, 0x27}, .result = kSite, .kind = K::Rmw, .op = O::Other,
     .flags = kSiteHasImm, .size = 4, .base = X86_REG_RDI, .imm = 1},
    {.what = "cmp dword [rdi], 0", .bytes = {0x83, 0x3f, 0x00}, .result = kSite, .kind = K::Load, .size = 4,
     .base = X86_REG_RDI},
    {.what = "test byte [rdi], 1 (capstone 4: read+write)", .bytes = {0xf6, 0x07, 0x01}, .result = kSite,
     .kind = K::Load, .size = 1, .base = X86_REG_RDI},
    {.what = "bt dword [rdi], eax", .bytes = {0x0f, 0xa3, 0x07}, .result = kSite, .kind = K::Load, .size = 4,
     .base = X86_REG_RDI},
    {.what = "movzx eax, byte [rdi]", .bytes = {0x0f, 0xb6, 0x07}, .result = kSite, .kind = K::Load, .size = 1,
     .base = X86_REG_RDI},
    {.what = "setne byte [rdi]", .bytes = {0x0f, 0x95, 0x07}, .result = kSite, .kind = K::Store, .op = O::Other,
     .size = 1, .base = X86_REG_RDI},
    {.what = "fstp qword [rdi]", .bytes = {0xdd, 0x1f}, .result = kSite, .kind = K::Store, .op = O::Other,
     .size = 8, .base = X86_REG_RDI},
    {.what = "fld dword [rdi]", .bytes = {0xd9, 0x07}, .result = kSite, .kind = K::Load, .size = 4,
     .base = X86_REG_RDI},
    {.what = "push qword [rdi]", .bytes = {0xff, 0x37}, .result = kSite, .kind = K::Load, .size = 8,
     .base = X86_REG_RDI},
    {.what = "pop qword [rdi]", .bytes = {0x8f, 0x07}, .result = kSite, .kind = K::Store, .op = O::Other,
     .size = 8, .base = X86_REG_RDI},

    // Not sites.
    {.what = "mov qword [rsp+8], rax", .bytes = {0x48, 0x89, 0x44, 0x24, 0x08}, .result = kNotSite},
    {.what = "mov eax, dword [rsp+rdi]", .bytes = {0x8b, 0x04, 0x3c}, .result = kNotSite},
    {.what = "push qword [rsp+8]", .bytes = {0xff, 0x74, 0x24, 0x08}, .result = kNotSite},
    {.what = "push rax", .bytes = {0x50}, .result = kNotSite},
    {.what = "pop rbx", .bytes = {0x5b}, .result = kNotSite},
    {.what = "lea rax, [rdi+8]", .bytes = {0x48, 0x8d, 0x47, 0x08}, .result = kNotSite},
    {.what = "nop dword [rax]", .bytes = {0x0f, 0x1f, 0x00}, .result = kNotSite},
    {.what = "nop word cs:[rax+rax]", .bytes = {0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
     .result = kNotSite},
    {.what = "call qword [rip+0x10]", .bytes = {0xff, 0x15, 0x10, 0x00, 0x00, 0x00}, .result = kNotSite},
    {.what = "jmp qword [rax*8+0x1000]", .bytes = {0xff, 0x24, 0xc5, 0x00, 0x10, 0x00, 0x00}, .result = kNotSite},
    {.what = "notrack jmp qword [rax]", .bytes = {0x3e, 0xff, 0x20}, .result = kNotSite},
    {.what = "prefetcht0 byte [rdi]", .bytes = {0x0f, 0x18, 0x0f}, .result = kNotSite},
    {.what = "prefetchw byte [rdi]", .bytes = {0x0f, 0x0d, 0x0f}, .result = kNotSite},
    {.what = "clflush byte [rdi]", .bytes = {0x0f, 0xae, 0x3f}, .result = kNotSite},
    {.what = "clflushopt byte [rdi]", .bytes = {0x66, 0x0f, 0xae, 0x3f}, .result = kNotSite},
    {.what = "fxsave [rdi]", .bytes = {0x0f, 0xae, 0x07}, .result = kNotSite},
    {.what = "xsave [rdi]", .bytes = {0x0f, 0xae, 0x27}, .result = kNotSite},
    {.what = "xrstor [rdi]", .bytes = {0x0f, 0xae, 0x2f}, .result = kNotSite},
    {.what = "xsavec [rdi]", .bytes = {0x0f, 0xc7, 0x27}, .result = kNotSite},
    {.what = "fnstenv [rdi]", .bytes = {0xd9, 0x37}, .result = kNotSite},
    {.what = "vpgatherdd ymm0, [rdi+ymm1*4], ymm2", .bytes = {0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x8f},
     .result = kNotSite},
    {.what = "vpscatterdd [rdi+zmm1*4]{k1}, zmm2 (capstone 4: index rcx)",
     .bytes = {0x62, 0xf2, 0x7d, 0x49, 0xa0, 0x14, 0x8f}, .result = kNotSite},
    {.what = "ret", .bytes = {0xc3}, .result = kNotSite},
    {.what = "add eax, ebx", .bytes = {0x01, 0xd8}, .result = kNotSite},

    // capstone 4 gaps: decoded as nothing, reported as such.
    {.what = "serialize (capstone 4: 0 insns, CS_ERR_OK)", .bytes = {0x0f, 0x01, 0xe8}, .result = kUndecodable},
    {.what = "lock mov (invalid)", .bytes = {0xf0, 0x89, 0x07}, .result = kUndecodable},
};

std::string hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (uint8_t b : bytes) {
    static const char digits[] = "0123456789abcdef";
    if (!out.empty()) out += ' ';
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

TEST(SiteClassifyTest, Table) {
  constexpr uint64_t kAddr = 0x401000;
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.what) + " [" + hex(c.bytes) + "]");
    Site s{};
    ASSERT_EQ(classify(c.bytes.data(), c.bytes.size(), kAddr, s), c.result);
    if (c.result != kSite) continue;
    EXPECT_EQ(s.kind, c.kind);
    EXPECT_EQ(s.op, c.op);
    EXPECT_EQ(s.flags, c.flags);
    EXPECT_EQ(s.size, c.size);
    EXPECT_EQ(s.base, c.base);
    EXPECT_EQ(s.index, c.index);
    EXPECT_EQ(s.scale, c.scale);
    EXPECT_EQ(s.disp, c.disp);
    EXPECT_EQ(s.segment, c.segment);
    EXPECT_EQ(s.src_reg, c.src_reg);
    EXPECT_EQ(s.imm, c.imm);
    EXPECT_EQ(s.disp_offset, c.disp_offset);
    // Common to every site.
    EXPECT_EQ(s.offset, kAddr);
    EXPECT_EQ(s.length, c.bytes.size());
    EXPECT_EQ(std::memcmp(s.bytes, c.bytes.data(), c.bytes.size()), 0);
    EXPECT_NE(s.insn_id, X86_INS_INVALID);
    EXPECT_EQ(s.module, 0);
    if (s.flags & kSiteRipRelative) {
      int32_t disp32;
      std::memcpy(&disp32, s.bytes + s.disp_offset, sizeof disp32);
      EXPECT_EQ(disp32, s.disp);
    }
  }
}

TEST(SiteClassifyTest, DecodesOnlyTheFirstInstruction) {
  // mov eax, [rdi] followed by mfence: the site is the load, length 2.
  const uint8_t bytes[] = {0x8b, 0x07, 0x0f, 0xae, 0xf0};
  Site s{};
  ASSERT_EQ(classify(bytes, sizeof bytes, 0x1000, s), kSite);
  EXPECT_EQ(s.kind, SiteKind::Load);
  EXPECT_EQ(s.length, 2);
  EXPECT_EQ(s.insn_id, X86_INS_MOV);
}

TEST(SiteClassifyTest, ASyscallInstructionIsASyscallSite) {
  // syscall; then (not part of the site) mov eax, [rdi].
  const uint8_t bytes[] = {0x0f, 0x05, 0x8b, 0x07};
  Site s{};
  ASSERT_EQ(classify(bytes, sizeof bytes, 0x1000, s), kSite);
  EXPECT_EQ(s.kind, SiteKind::Syscall);
  EXPECT_EQ(s.length, 2);
  EXPECT_EQ(s.size, 0);
  // sysenter and int 0x80 are not (32-bit entries, not used by x86-64 code).
  const uint8_t sysenter[] = {0x0f, 0x34};
  EXPECT_EQ(classify(sysenter, sizeof sysenter, 0x1000, s), kNotSite);
}

TEST(SiteClassifyTest, RdtscAndRdtscpAreTscSites) {
  // rdtsc; then (not part of the site) mov eax, [rdi].
  const uint8_t rdtsc[] = {0x0f, 0x31, 0x8b, 0x07};
  Site s{};
  ASSERT_EQ(classify(rdtsc, sizeof rdtsc, 0x1000, s), kSite);
  EXPECT_EQ(s.kind, SiteKind::Tsc);
  EXPECT_EQ(s.length, 2);
  EXPECT_EQ(s.size, 0);
  const uint8_t rdtscp[] = {0x0f, 0x01, 0xf9};
  ASSERT_EQ(classify(rdtscp, sizeof rdtscp, 0x1000, s), kSite);
  EXPECT_EQ(s.kind, SiteKind::Tsc);
  EXPECT_EQ(s.length, 3);
  // A prefixed form is no site: the agent steps over the exact bytes only.
  const uint8_t prefixed[] = {0x66, 0x0f, 0x31};
  EXPECT_NE(classify(prefixed, sizeof prefixed, 0x1000, s), kSite);
  // rdpid, rdrand: other reads, not the TSC.
  const uint8_t rdrand[] = {0x0f, 0xc7, 0xf0};
  EXPECT_NE(classify(rdrand, sizeof rdrand, 0x1000, s), kSite);
}

// Spin detection leaves out of a thread's state what the code overwrites
// before it reads it (Site::dead).
uint16_t dead_of(std::initializer_list<uint8_t> code) {
  std::vector<uint8_t> v(code);
  return dead_registers(v.data(), v.size(), 0x1000);
}
constexpr uint16_t kRax = 1, kRdx = 4, kRbx = 8, kRdi = 64;

TEST(SiteDeadRegistersTest, ALoadIntoARegisterTestedAndBranchedOn) {
  // mov edx, [rip+16]; test edx, edx; je back: edx and the flags are dead.
  EXPECT_EQ(dead_of({0x8b, 0x15, 0x10, 0, 0, 0, 0x85, 0xd2, 0x74, 0xf8}), kRdx | kDeadFlags);
}

TEST(SiteDeadRegistersTest, APartialWriteKeepsTheRegister) {
  // mov dl, [rip+16]; test dl, dl; je back: the rest of rdx is kept.
  EXPECT_EQ(dead_of({0x8a, 0x15, 0x10, 0, 0, 0, 0x84, 0xd2, 0x74, 0xf8}), kDeadFlags);
}

TEST(SiteDeadRegistersTest, ACompareWithMemoryDefinesTheFlags) {
  // cmp dword [rip+16], 0; jne back
  EXPECT_EQ(dead_of({0x83, 0x3d, 0x10, 0, 0, 0, 0x00, 0x75, 0xf7}), kDeadFlags);
}

TEST(SiteDeadRegistersTest, IncrementKeepsTheCarryFlag) {
  // inc dword [rip+16]; jc back: inc leaves CF, which jc reads.
  EXPECT_EQ(dead_of({0xff, 0x05, 0x10, 0, 0, 0, 0x72, 0xf8}), 0);
}

TEST(SiteDeadRegistersTest, AddressAndSourceRegistersAreLive) {
  // mov rax, [rdi]; add eax, ebx; ret: rax is defined first (the add reads
  // what the load wrote); rdi and rbx are read; the scan stops at ret.
  uint16_t dead = dead_of({0x48, 0x8b, 0x07, 0x01, 0xd8, 0xc3});
  EXPECT_EQ(dead & (kRax | kRdi | kRbx), kRax);
}

TEST(SiteDeadRegistersTest, NothingIsDeadPastABranch) {
  // jmp +0; mov edx, 1: the branch ends the scan before edx is defined.
  EXPECT_EQ(dead_of({0xeb, 0x00, 0xba, 1, 0, 0, 0}), 0);
}

TEST(SiteClassifyTest, TruncatedInstructionIsUndecodable) {
  const uint8_t bytes[] = {0xf0, 0x0f, 0xc1, 0x05, 0x34};  // lock xadd [rip+disp32] cut short
  Site s{};
  EXPECT_EQ(classify(bytes, sizeof bytes, 0x1000, s), kUndecodable);
}

// ---------------------------------------------------------------------------
// Synthetic files: one executable segment of hand-written code, function
// symbols, and optionally other named sections over parts of it.

constexpr uint64_t kTextAddr = 0x401000;
constexpr uint64_t kTextOffset = 0x1000;

struct TinyFunction {
  uint64_t start;  // offset into the code
  uint64_t size;
};

struct TinySection {
  std::string name;
  uint64_t start;  // offset into the code
  uint64_t size;
};

std::vector<char> tiny_elf(const std::vector<uint8_t>& code, const std::vector<TinyFunction>& functions,
                           const std::vector<TinySection>& extra = {}) {
  std::vector<char> file(kTextOffset + code.size());
  std::memcpy(file.data() + kTextOffset, code.data(), code.size());
  auto append = [&file](const void* p, size_t n) {
    size_t at = file.size();
    file.resize(at + n);
    std::memcpy(file.data() + at, p, n);
    return static_cast<uint64_t>(at);
  };

  std::vector<Elf64_Sym> syms(1 + functions.size());
  for (size_t i = 0; i < functions.size(); ++i) {
    syms[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    syms[i + 1].st_shndx = 1;
    syms[i + 1].st_value = kTextAddr + functions[i].start;
    syms[i + 1].st_size = functions[i].size;
  }
  const uint64_t symtab = append(syms.data(), syms.size() * sizeof(Elf64_Sym));
  const uint64_t strtab = append("", 1);
  std::string names("\0.text\0.symtab\0.strtab\0.shstrtab\0", 33);
  std::vector<uint32_t> extra_names;
  for (const TinySection& sec : extra) {
    extra_names.push_back(static_cast<uint32_t>(names.size()));
    names += sec.name;
    names += '\0';
  }
  const uint64_t shstrtab = append(names.data(), names.size());

  std::vector<Elf64_Shdr> sh(5);
  sh[1] = {1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, kTextAddr, kTextOffset, code.size(), 0, 0, 16, 0};
  sh[2] = {7, SHT_SYMTAB, 0, 0, symtab, syms.size() * sizeof(Elf64_Sym), 3, 1, 8, sizeof(Elf64_Sym)};
  sh[3] = {15, SHT_STRTAB, 0, 0, strtab, 1, 0, 0, 1, 0};
  sh[4] = {23, SHT_STRTAB, 0, 0, shstrtab, names.size(), 0, 0, 1, 0};
  for (size_t i = 0; i < extra.size(); ++i) {
    sh.push_back({extra_names[i], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, kTextAddr + extra[i].start,
                  kTextOffset + extra[i].start, extra[i].size, 0, 0, 16, 0});
  }
  const uint64_t shoff = append(sh.data(), sh.size() * sizeof(Elf64_Shdr));

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_entry = kTextAddr;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_shoff = shoff;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(sh.size());
  eh.e_shstrndx = 4;
  std::memcpy(file.data(), &eh, sizeof eh);
  Elf64_Phdr ph{PT_LOAD, PF_R | PF_X, kTextOffset, kTextAddr, kTextAddr, code.size(), code.size(), 0x1000};
  std::memcpy(file.data() + sizeof eh, &ph, sizeof ph);
  return file;
}

class TinyElfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "ctrl-tiny-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  DecodedModule decode(const std::vector<char>& file) {
    std::string p = (dir_ / "tiny").string();
    std::ofstream(p, std::ios::binary).write(file.data(), static_cast<std::streamsize>(file.size()));
    return decode_sites(p, 7);
  }

  static std::vector<uint64_t> offsets(const DecodedModule& m) {
    std::vector<uint64_t> out;
    for (const Site& s : m.sites) out.push_back(s.offset - kTextAddr);
    return out;
  }

  std::filesystem::path dir_;
};

TEST_F(TinyElfTest, DecodesFromFunctionStarts) {
  const std::vector<uint8_t> code = {
      0x8b, 0x07,        // 0: mov eax, [rdi]
      0x89, 0x06,        // 2: mov [rsi], eax
      0xc3,              // 4: ret
      0xcc, 0xcc, 0xcc,  // 5: padding, in no function
      0xf0, 0x01, 0x07,  // 8: lock add [rdi], eax
      0xc3,              // 11: ret
  };
  DecodedModule m = decode(tiny_elf(code, {{0, 5}, {8, 4}}));
  EXPECT_EQ(offsets(m), (std::vector<uint64_t>{0, 2, 8}));
  EXPECT_EQ(m.functions, 2u);
  EXPECT_EQ(m.bytes_decoded, 9u);
  EXPECT_EQ(m.resyncs, 0u);
  EXPECT_EQ(m.sites[2].kind, SiteKind::Rmw);
  for (const Site& s : m.sites) EXPECT_EQ(s.module, 7);
}

TEST_F(TinyElfTest, SkipsAnInstructionCapstoneCannotDecodeByItsLength) {
  const std::vector<uint8_t> code = {
      0x62, 0xf1, 0x7d, 0x48, 0x74, 0x0f,  // 0: vpcmpeqb k1, zmm0, [rdi] (not in capstone 4)
      0xc5, 0xfb, 0x92, 0xc8,              // 6: kmovd k1, eax (not in capstone 4)
      0x8b, 0x07,                          // 10: mov eax, [rdi]
      0xc3,                                // 12: ret
  };
  DecodedModule m = decode(tiny_elf(code, {{0, code.size()}}));
  EXPECT_EQ(offsets(m), (std::vector<uint64_t>{10}));
  EXPECT_EQ(m.resyncs, 2u);
  EXPECT_EQ(m.sites_out_of_step, 0u);
}

TEST_F(TinyElfTest, SitesOutOfStepAreLeftOutUntilTheNextFunction) {
  const std::vector<uint8_t> code = {
      0xf0, 0x89, 0x07,  // 0: "lock mov" -- invalid, length unknown: skip one byte
      0x89, 0x07,        // 3: mov [rdi], eax, but decoding is out of step
      0xc3,              // 5: ret
      0x89, 0x06,        // 6: next function: mov [rsi], eax
      0xc3,              // 8: ret
  };
  DecodedModule m = decode(tiny_elf(code, {{0, 6}, {6, 3}}));
  // From byte 1: 89 07 (mov [rdi], eax), 89 07 again, c3: two sites out of step.
  EXPECT_EQ(offsets(m), (std::vector<uint64_t>{6}));
  EXPECT_EQ(m.sites_out_of_step, 2u);
  EXPECT_EQ(m.resyncs, 1u);
}

TEST_F(TinyElfTest, AKnownStartWinsOverAnInstructionAcrossIt) {
  const std::vector<uint8_t> code = {
      0xb8, 0x00, 0x00, 0x8b, 0x07,  // 0: mov eax, 0x078b0000 -- but a function starts at 3
      0xc3,                          // 5: ret
  };
  DecodedModule m = decode(tiny_elf(code, {{0, 6}, {3, 3}}));
  ASSERT_EQ(offsets(m), (std::vector<uint64_t>{3}));  // mov eax, [rdi] at the known start
  EXPECT_EQ(m.sites[0].kind, SiteKind::Load);
  EXPECT_EQ(m.resyncs, 1u);
}

TEST_F(TinyElfTest, LeavesPltSectionsOut) {
  const std::vector<uint8_t> code = {
      0xff, 0x35, 0x00, 0x20, 0x00, 0x00,  // 0: push [rip+0x2000] -- a Load, were it not in .plt
      0xff, 0x25, 0x00, 0x20, 0x00, 0x00,  // 6: jmp [rip+0x2000]
      0xff, 0x37,                          // 12: push [rdi] in .text: a Load
      0xc3,                                // 14: ret
  };
  DecodedModule m = decode(tiny_elf(code, {{0, 12}, {12, 3}}, {{".plt", 0, 12}}));
  EXPECT_EQ(offsets(m), (std::vector<uint64_t>{12}));
  // Without the .plt section the push is a site.
  DecodedModule all = decode(tiny_elf(code, {{0, 12}, {12, 3}}));
  EXPECT_EQ(offsets(all), (std::vector<uint64_t>{0, 12}));
}

// ---------------------------------------------------------------------------
// Whole files

// Known code in this very binary, for decode_sites() to find.
int g_counter;
int g_flag;

__attribute__((noinline)) void bump_counter() { __atomic_fetch_add(&g_counter, 1, __ATOMIC_SEQ_CST); }
__attribute__((noinline)) void publish_flag(int v) { __atomic_store_n(&g_flag, v, __ATOMIC_SEQ_CST); }
__attribute__((noinline)) void full_fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Bound on the size of the tiny functions above, to attribute sites to them.
constexpr uint64_t kSmallFunction = 64;

struct LoadedObject {
  std::string path;
  uint64_t bias = 0;
};

// The main program (first in dl_iterate_phdr order) or the first object
// whose path contains `name`.
LoadedObject find_loaded(const char* name) {
  struct Query {
    const char* name;
    LoadedObject found;
    bool done;
  } q{name, {}, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* q = static_cast<Query*>(data);
        if (q->done) return 0;
        const char* n = info->dlpi_name ? info->dlpi_name : "";
        if (q->name == nullptr ? true : std::strstr(n, q->name) != nullptr) {
          q->found = {n, info->dlpi_addr};
          q->done = true;
        }
        return 0;
      },
      &q);
  return q.found;
}

uint64_t link_address(const void* p, uint64_t bias) { return reinterpret_cast<uintptr_t>(p) - bias; }

std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct NamedSection {
  std::string name;
  Elf64_Shdr hdr;
  uint64_t header_offset;  // of the Elf64_Shdr in the file
};

std::vector<NamedSection> sections_of(const std::vector<char>& file) {
  std::vector<NamedSection> out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  std::vector<Elf64_Shdr> headers(eh.e_shnum);
  for (unsigned i = 0; i < eh.e_shnum; ++i)
    std::memcpy(&headers[i], file.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof(Elf64_Shdr));
  const char* names = file.data() + headers[eh.e_shstrndx].sh_offset;
  for (unsigned i = 0; i < eh.e_shnum; ++i)
    out.push_back({names + headers[i].sh_name, headers[i], eh.e_shoff + i * sizeof(Elf64_Shdr)});
  return out;
}

// Field by field: Site has tail padding that copies need not preserve.
bool same_site(const Site& a, const Site& b) {
  return a.offset == b.offset && a.disp == b.disp && a.imm == b.imm && a.base == b.base && a.index == b.index &&
         a.src_reg == b.src_reg && a.insn_id == b.insn_id && a.length == b.length &&
         std::memcmp(a.bytes, b.bytes, sizeof a.bytes) == 0 && a.scale == b.scale && a.size == b.size &&
         a.disp_offset == b.disp_offset && a.kind == b.kind && a.op == b.op && a.flags == b.flags &&
         a.segment == b.segment && a.module == b.module;
}

class DecodeSitesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    self_ = new LoadedObject{"/proc/self/exe", find_loaded(nullptr).bias};
    decoded_ = new DecodedModule(decode_sites(self_->path, 3));
  }
  static void TearDownTestSuite() {
    delete decoded_;
    delete self_;
  }

  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "ctrl-sites-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write_file(const std::string& name, const std::vector<char>& bytes) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  // Sites of `m` inside the function at runtime address `fn`.
  static std::vector<Site> sites_in(const DecodedModule& m, const void* fn) {
    const uint64_t start = link_address(fn, self_->bias);
    std::vector<Site> out;
    for (const Site& s : m.sites)
      if (s.offset >= start && s.offset < start + kSmallFunction) out.push_back(s);
    return out;
  }

  static bool targets(const Site& s, const void* object) {
    return (s.flags & kSiteRipRelative) && s.base == X86_REG_RIP &&
           s.offset + s.length + static_cast<uint64_t>(s.disp) == link_address(object, self_->bias);
  }

  static void expect_well_formed(const DecodedModule& m, uint8_t module) {
    ASSERT_FALSE(m.sites.empty());
    EXPECT_GT(m.functions, 0u);
    EXPECT_GT(m.bytes_decoded, 0u);
    for (size_t i = 0; i < m.sites.size(); ++i) {
      const Site& s = m.sites[i];
      ASSERT_EQ(s.module, module);
      if (i > 0) {
        ASSERT_LT(m.sites[i - 1].offset, s.offset) << "sorted, no duplicates";
      }
      ASSERT_GE(s.length, 1);
      ASSERT_LE(s.length, 15);
      if (s.kind == SiteKind::Fence) {
        ASSERT_EQ(s.size, 0);
      }
      if (s.flags & kSiteRipRelative) {
        int32_t disp32;
        std::memcpy(&disp32, s.bytes + s.disp_offset, sizeof disp32);
        ASSERT_EQ(disp32, s.disp) << "at 0x" << std::hex << s.offset;
      }
    }
  }

  // The sites whose first instruction byte lies in a PLT section.
  static size_t sites_in_plt(const DecodedModule& m, const std::vector<NamedSection>& sections) {
    size_t n = 0;
    for (const NamedSection& sec : sections) {
      if (sec.name != ".plt" && sec.name != ".plt.got" && sec.name != ".plt.sec") continue;
      for (const Site& s : m.sites)
        if (s.offset >= sec.hdr.sh_addr && s.offset < sec.hdr.sh_addr + sec.hdr.sh_size) ++n;
    }
    return n;
  }

  static LoadedObject* self_;
  static DecodedModule* decoded_;
  std::filesystem::path dir_;
};

LoadedObject* DecodeSitesTest::self_ = nullptr;
DecodedModule* DecodeSitesTest::decoded_ = nullptr;

TEST_F(DecodeSitesTest, FindsTheLockedIncrementOfAGlobal) {
  bump_counter();
  EXPECT_EQ(g_counter, 1);
  expect_well_formed(*decoded_, 3);
  EXPECT_EQ(decoded_->path, "/proc/self/exe");
  EXPECT_EQ(decoded_->file_size, std::filesystem::file_size("/proc/self/exe"));

  std::vector<Site> found;
  for (const Site& s : sites_in(*decoded_, reinterpret_cast<const void*>(&bump_counter)))
    if (targets(s, &g_counter)) found.push_back(s);
  ASSERT_EQ(found.size(), 1u) << "one access to g_counter in bump_counter";
  const Site& s = found[0];
  EXPECT_EQ(s.kind, SiteKind::Rmw);
  EXPECT_TRUE(s.flags & kSiteLocked);
  EXPECT_TRUE(s.op == SiteOp::Add || s.op == SiteOp::Xadd || s.op == SiteOp::Inc);
  EXPECT_EQ(s.size, 4);
  // The recorded bytes are those the loader mapped at that offset.
  EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(self_->bias + s.offset), s.bytes, s.length), 0);
}

TEST_F(DecodeSitesTest, FindsTheSeqCstStoreAndFence) {
  publish_flag(7);
  full_fence();
  EXPECT_EQ(g_flag, 7);

  // gcc: mov [g_flag], edi; mfence.  clang: xchg [g_flag], edi.
  bool store = false;
  for (const Site& s : sites_in(*decoded_, reinterpret_cast<const void*>(&publish_flag))) {
    if (!targets(s, &g_flag)) continue;
    store = (s.kind == SiteKind::Store && s.op == SiteOp::Mov) ||
            (s.kind == SiteKind::Rmw && s.op == SiteOp::Xchg && (s.flags & kSiteLocked));
    EXPECT_NE(s.src_reg, X86_REG_INVALID);  // edi when optimised
  }
  EXPECT_TRUE(store);

  bool fence = false;
  for (const Site& s : sites_in(*decoded_, reinterpret_cast<const void*>(&full_fence)))
    fence |= s.kind == SiteKind::Fence && s.op == SiteOp::Mfence;
  EXPECT_TRUE(fence);
}

TEST_F(DecodeSitesTest, LeavesPltSectionsOut) {
  auto sections = sections_of(read_file("/proc/self/exe"));
  EXPECT_EQ(sites_in_plt(*decoded_, sections), 0u);
}

TEST_F(DecodeSitesTest, EhFrameAloneFindsFunctions) {
  // Hide .symtab (and .dynsym) so that only .eh_frame marks function starts.
  std::vector<char> file = read_file("/proc/self/exe");
  for (const NamedSection& sec : sections_of(file)) {
    if (sec.hdr.sh_type != SHT_SYMTAB && sec.hdr.sh_type != SHT_DYNSYM) continue;
    Elf64_Shdr hidden = sec.hdr;
    hidden.sh_type = SHT_NULL;
    std::memcpy(file.data() + sec.header_offset, &hidden, sizeof hidden);
  }
  DecodedModule m = decode_sites(write_file("nosyms", file), 1);
  expect_well_formed(m, 1);
  bool found = false;
  for (const Site& s : sites_in(m, reinterpret_cast<const void*>(&bump_counter)))
    found |= targets(s, &g_counter) && (s.flags & kSiteLocked);
  EXPECT_TRUE(found);
  // Near-identical coverage: the same code is reached from FDE starts, not
  // from the section-start fallback.
  EXPECT_GT(m.functions, decoded_->functions / 2);
  EXPECT_GT(m.sites.size(), decoded_->sites.size() * 9 / 10);
}

TEST_F(DecodeSitesTest, SymbolsAloneFindFunctions) {
  std::vector<char> file = read_file("/proc/self/exe");
  for (const NamedSection& sec : sections_of(file)) {
    if (sec.name != ".eh_frame") continue;
    Elf64_Shdr hidden = sec.hdr;
    hidden.sh_type = SHT_NULL;
    std::memcpy(file.data() + sec.header_offset, &hidden, sizeof hidden);
  }
  DecodedModule m = decode_sites(write_file("noehframe", file), 2);
  expect_well_formed(m, 2);
  EXPECT_GT(m.functions, decoded_->functions / 2);
  bool found = false;
  for (const Site& s : sites_in(m, reinterpret_cast<const void*>(&bump_counter)))
    found |= targets(s, &g_counter) && (s.flags & kSiteLocked);
  EXPECT_TRUE(found);
}

TEST_F(DecodeSitesTest, WithoutSymbolsOrUnwindTablesFallsBackToSections) {
  std::vector<char> file = read_file("/proc/self/exe");
  auto sections = sections_of(file);
  for (const NamedSection& sec : sections) {
    if (sec.hdr.sh_type != SHT_SYMTAB && sec.hdr.sh_type != SHT_DYNSYM && sec.name != ".eh_frame") continue;
    Elf64_Shdr hidden = sec.hdr;
    hidden.sh_type = SHT_NULL;
    std::memcpy(file.data() + sec.header_offset, &hidden, sizeof hidden);
  }
  DecodedModule m = decode_sites(write_file("bare", file), 0);
  expect_well_formed(m, 0);
  EXPECT_LT(m.functions, 10u);  // .init, .text, .fini...
  bool found = false;
  for (const Site& s : sites_in(m, reinterpret_cast<const void*>(&bump_counter)))
    found |= targets(s, &g_counter) && (s.flags & kSiteLocked);
  EXPECT_TRUE(found);
  EXPECT_EQ(sites_in_plt(m, sections), 0u);
}

TEST_F(DecodeSitesTest, SharedLibraryMatchesWhatIsLoaded) {
  LoadedObject libc = find_loaded("libc.so");
  ASSERT_FALSE(libc.path.empty());
  DecodedModule m = decode_sites(libc.path, 5);
  expect_well_formed(m, 5);
  EXPECT_GT(m.functions, 1000u);
  // capstone 4 lacks some AVX-512 forms (kmovd, EVEX vpcmpeqb...), but
  // their lengths keep decoding in step: skipping is rare and out-of-step
  // decoding rarer.
  EXPECT_LT(m.resyncs * 100, m.bytes_decoded);
  EXPECT_LT(m.sites_out_of_step * 100, m.sites.size());
  EXPECT_EQ(sites_in_plt(m, sections_of(read_file(libc.path))), 0u);

  size_t locked = 0;
  for (const Site& s : m.sites) {
    locked += (s.flags & kSiteLocked) != 0;
    // Every site's bytes are in the mapped library at its offset, and
    // classify() agrees with the whole-file pass.
    const auto* code = reinterpret_cast<const uint8_t*>(libc.bias + s.offset);
    ASSERT_EQ(std::memcmp(code, s.bytes, s.length), 0) << "at 0x" << std::hex << s.offset;
    Site again{};
    ASSERT_EQ(classify(s.bytes, s.length, s.offset, again), Classification::kSite);
    again.module = s.module;
    ASSERT_TRUE(same_site(again, s)) << "at 0x" << std::hex << s.offset;
  }
  EXPECT_GT(locked, 50u);
}

TEST_F(DecodeSitesTest, RefusesWhatIsNotAnX8664Elf) {
  auto expect_usage_error = [&](const std::string& path) {
    try {
      decode_sites(path, 0);
      ADD_FAILURE() << "no error for " << path;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  };
  expect_usage_error((dir_ / "missing").string());
  expect_usage_error(dir_.string());
  expect_usage_error(write_file("text", {'h', 'e', 'l', 'l', 'o', '\n'}));
  expect_usage_error(write_file("empty", {}));
  expect_usage_error(write_file("short", {0x7f, 'E', 'L', 'F', 2, 1}));

  std::vector<char> header = read_file("/proc/self/exe");
  header.resize(sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  std::memcpy(&eh, header.data(), sizeof eh);
  eh.e_machine = EM_AARCH64;
  std::memcpy(header.data(), &eh, sizeof eh);
  expect_usage_error(write_file("arm", header));
  eh.e_machine = EM_X86_64;
  eh.e_type = ET_REL;
  std::memcpy(header.data(), &eh, sizeof eh);
  expect_usage_error(write_file("object", header));
}

TEST_F(DecodeSitesTest, SurvivesTruncatedFiles) {
  // Headers that point past the end of the file are refused or ignored,
  // never read past.
  std::vector<char> file = read_file("/proc/self/exe");
  for (size_t size : {sizeof(Elf64_Ehdr), size_t{4096}, file.size() / 2}) {
    std::vector<char> part(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size));
    try {
      DecodedModule m = decode_sites(write_file("part", part), 0);
      for (const Site& s : m.sites) ASSERT_LE(s.length, 15);
    } catch (const UsageError&) {
    }
  }
}

}  // namespace
}  // namespace ctrl

namespace ctrl {
namespace {

// The jump planner, on a real library: what a jmp covers is exactly the site
// followed by the recorded instructions, as they are in memory; no other site
// starts inside it; and a site shorter than 5 bytes only gets a jmp with
// following instructions.
TEST(SitePatchPlanTest, CoveredBytesAreTheSiteAndItsRecordedNeighbours) {
  for (const char* name : {"libc.so", "libstdc++.so"}) {
    std::string path;
    uint64_t bias = 0;
    struct Look {
      const char* name;
      std::string* path;
      uint64_t* bias;
    } look{name, &path, &bias};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
          auto* l = static_cast<Look*>(data);
          if (info->dlpi_name && std::strstr(info->dlpi_name, l->name)) {
            *l->path = info->dlpi_name;
            *l->bias = info->dlpi_addr;
          }
          return 0;
        },
        &look);
    if (path.empty()) continue;
    DecodedModule m = decode_sites(path, 1);
    ASSERT_EQ(m.patches.size(), m.sites.size());
    size_t with_neighbours = 0, with_before = 0;
    for (size_t i = 0; i < m.sites.size(); ++i) {
      const Site& s = m.sites[i];
      const SitePatch& p = m.patches[i];
      if (p.length == 0) {
        EXPECT_LT(s.length, 5) << "a long site always takes a jmp";
        continue;
      }
      ASSERT_TRUE(takes_jump(p));
      ASSERT_EQ(p.pre_len + p.length, s.length + p.extra_len) << "at 0x" << std::hex << s.offset;
      if (s.length >= 5) {
        EXPECT_EQ(p.extra_len, 0);
        EXPECT_EQ(p.pre_len, 0);
        continue;
      }
      ++with_neighbours;
      with_before += p.pre_len > 0;
      // Before the site or after it, never both.
      if (p.pre_len > 0) {
        EXPECT_EQ(p.length, s.length);
      }
      const auto* code = reinterpret_cast<const uint8_t*>(bias + s.offset);
      ASSERT_EQ(std::memcmp(code - p.pre_len, p.extra, p.pre_len), 0) << "at 0x" << std::hex << s.offset;
      ASSERT_EQ(std::memcmp(code + s.length, p.extra + p.pre_len, p.extra_len - p.pre_len), 0)
          << "at 0x" << std::hex << s.offset;
      if (i + 1 < m.sites.size()) {
        const SitePatch& next = m.patches[i + 1];
        EXPECT_GE(m.sites[i + 1].offset - (takes_jump(next) ? next.pre_len : 0), s.offset + p.length)
            << "covers another site or its jmp";
      }
      for (uint8_t f = 0; f < p.fixup_count; ++f) EXPECT_LE(p.fixups[f] + 4, p.extra_len);
    }
    EXPECT_GT(with_neighbours, 100u) << path << ": short sites should usually find room";
    EXPECT_GT(with_before, 0u) << path << ": some short sites find room only before them";
    EXPECT_GT(m.jump_sites * 2, m.sites.size()) << path << ": most sites should take a jmp";
  }
}

}  // namespace
}  // namespace ctrl
