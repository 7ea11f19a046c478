#include "binary/Backtracer.h"

#include <sys/ptrace.h>

#include <sys/uio.h>

#include <cstring>

#include <libunwind-ptrace.h>

#include <new>

#include "cli/ExitStatus.h"

namespace ctrl {

namespace {

// unwind_from's initial registers: libunwind asks for registers only to set
// up the innermost frame; later frames come from memory.
thread_local const user_regs_struct* t_given = nullptr;

int access_given_reg(unw_addr_space_t space, unw_regnum_t reg, unw_word_t* value, int write, void* arg) {
  const user_regs_struct* r = t_given;
  if (!r || write) return _UPT_accessors.access_reg(space, reg, value, write, arg);
  switch (reg) {
    case UNW_X86_64_RAX: *value = r->rax; return 0;
    case UNW_X86_64_RDX: *value = r->rdx; return 0;
    case UNW_X86_64_RCX: *value = r->rcx; return 0;
    case UNW_X86_64_RBX: *value = r->rbx; return 0;
    case UNW_X86_64_RSI: *value = r->rsi; return 0;
    case UNW_X86_64_RDI: *value = r->rdi; return 0;
    case UNW_X86_64_RBP: *value = r->rbp; return 0;
    case UNW_X86_64_RSP: *value = r->rsp; return 0;
    case UNW_X86_64_R8: *value = r->r8; return 0;
    case UNW_X86_64_R9: *value = r->r9; return 0;
    case UNW_X86_64_R10: *value = r->r10; return 0;
    case UNW_X86_64_R11: *value = r->r11; return 0;
    case UNW_X86_64_R12: *value = r->r12; return 0;
    case UNW_X86_64_R13: *value = r->r13; return 0;
    case UNW_X86_64_R14: *value = r->r14; return 0;
    case UNW_X86_64_R15: *value = r->r15; return 0;
    case UNW_X86_64_RIP: *value = r->rip; return 0;
    default: return _UPT_accessors.access_reg(space, reg, value, write, arg);
  }
}

unw_accessors_t given_accessors() {
  unw_accessors_t a = _UPT_accessors;
  a.access_reg = access_given_reg;
  return a;
}

}  // namespace

Backtracer::Backtracer() : space_(unw_create_addr_space(&_UPT_accessors, 0)) {
  if (!space_) throw InternalError("libunwind cannot create an address space for the target");
  unw_set_caching_policy(space_, UNW_CACHE_GLOBAL);
  static unw_accessors_t given = given_accessors();
  given_space_ = unw_create_addr_space(&given, 0);
  if (!given_space_) throw InternalError("libunwind cannot create an address space for the target");
  unw_set_caching_policy(given_space_, UNW_CACHE_GLOBAL);
}

Backtracer::~Backtracer() {
  unw_destroy_addr_space(given_space_);
  unw_destroy_addr_space(space_);
}

namespace {

// x86-64 Linux signal handlers return to a trampoline that is exactly
// `mov $15, %rax; syscall` (rt_sigreturn); libunwind's own flag for signal
// frames is set one frame late, so look at the code.
bool is_sigreturn_trampoline(pid_t tid, uint64_t ip) {
  static const unsigned char kCode[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  unsigned char code[sizeof kCode];
  iovec local{code, sizeof code};
  iovec remote{reinterpret_cast<void*>(ip), sizeof code};
  if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != ssize_t(sizeof code)) return false;
  return memcmp(code, kCode, sizeof code) == 0;
}

}  // namespace

std::vector<uint64_t> Backtracer::unwind(pid_t tid, size_t max_frames) { return walk(space_, tid, max_frames); }

std::vector<uint64_t> Backtracer::unwind_from(pid_t tid, const user_regs_struct& regs, size_t max_frames) {
  t_given = &regs;
  std::vector<uint64_t> ips = walk(given_space_, tid, max_frames);
  t_given = nullptr;
  return ips;
}

std::vector<uint64_t> Backtracer::walk(unw_addr_space* space, pid_t tid, size_t max_frames) {
  std::vector<uint64_t> ips;
  // Reserving everything up front means nothing below can throw while the
  // ptrace context is alive.
  try {
    ips.reserve(max_frames);
  } catch (const std::exception&) {
    return ips;
  }
  if (max_frames == 0) return ips;

  // The ptrace context is per call rather than cached per tid: it holds the
  // ELF image last used for unwinding, and a tid can be reused by a thread
  // of another execution process with other mappings.
  void* context = _UPT_create(tid);
  if (!context) return ips;
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, space, context) == 0) {
    bool exact = true;  // the innermost frame is where the thread is
    while (ips.size() < max_frames) {
      unw_word_t ip = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
      // A signal trampoline says nothing; the frame it interrupted is at the
      // faulting instruction itself, not at a return address.
      bool trampoline = is_sigreturn_trampoline(tid, ip);
      if (!trampoline) ips.push_back(ip | (exact ? kExactIp : 0));
      exact = trampoline;
      if (unw_step(&cursor) <= 0) break;
    }
  }
  _UPT_destroy(context);
  return ips;
}

bool Backtracer::registers_at(pid_t tid, size_t frame, user_regs_struct& regs, uint64_t& known) {
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return false;
  constexpr size_t kFields = sizeof(user_regs_struct) / 8;
  known = (uint64_t(1) << kFields) - 1;
  if (frame == 0) return true;
  void* context = _UPT_create(tid);
  if (!context) return false;
  bool found = false;
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, space_, context) == 0) {
    size_t index = 0;
    for (;;) {
      unw_word_t ip = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
      if (!is_sigreturn_trampoline(tid, ip)) {
        if (index == frame) {
          found = true;
          break;
        }
        ++index;
      }
      if (unw_step(&cursor) <= 0) break;
    }
    if (found) {
      struct Recovered {
        int reg;
        unsigned long long* field;
      };
      const Recovered recovered[] = {
          {UNW_X86_64_RIP, &regs.rip}, {UNW_X86_64_RSP, &regs.rsp}, {UNW_X86_64_RBX, &regs.rbx},
          {UNW_X86_64_RBP, &regs.rbp}, {UNW_X86_64_R12, &regs.r12}, {UNW_X86_64_R13, &regs.r13},
          {UNW_X86_64_R14, &regs.r14}, {UNW_X86_64_R15, &regs.r15}};
      uint64_t keep = 0;
      auto bit = [&](const void* field) {
        return uint64_t(1) << ((static_cast<const char*>(field) - reinterpret_cast<const char*>(&regs)) / 8);
      };
      for (const auto& r : recovered) {
        unw_word_t v = 0;
        if (unw_get_reg(&cursor, r.reg, &v) != 0) continue;
        *r.field = v;
        keep |= bit(r.field);
      }
      for (const void* f : {static_cast<const void*>(&regs.cs), static_cast<const void*>(&regs.ss),
                            static_cast<const void*>(&regs.fs_base), static_cast<const void*>(&regs.gs_base),
                            static_cast<const void*>(&regs.ds), static_cast<const void*>(&regs.es),
                            static_cast<const void*>(&regs.fs), static_cast<const void*>(&regs.gs)})
        keep |= bit(f);
      known = keep;
    }
  }
  _UPT_destroy(context);
  return found;
}

void Backtracer::flush() {
  unw_flush_cache(space_, 0, 0);
  unw_flush_cache(given_space_, 0, 0);
}

}  // namespace ctrl
