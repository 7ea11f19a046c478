// Stack unwinding of a traced thread, through libunwind-ptrace.
//
// Invariants:
//  - Only threads in a ptrace stop of the calling thread (the tracer) can be
//    unwound: every register and memory read is a ptrace request.
//  - One libunwind address space serves the whole session, with global
//    caching of unwind tables. The cache is keyed by address, so it is only
//    right while the mappings it was filled from are; call flush() whenever
//    the target's mappings may have changed (a new execution process, a
//    dlopen/dlclose seen by the caller).
//  - Not thread-safe; one Backtracer belongs to the tracer thread.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstddef>
#include <cstdint>
#include <vector>

struct unw_addr_space;

namespace ctrl {

class Backtracer {
 public:
  Backtracer();  // throws InternalError if libunwind cannot create an address space
  ~Backtracer();
  Backtracer(const Backtracer&) = delete;
  Backtracer& operator=(const Backtracer&) = delete;

  // Instruction pointers, innermost first, at most max_frames. The first is
  // the exact stop address; the others are return addresses, so look up
  // ip - 1 for their source line. Empty when the thread cannot be unwound
  // at all (not stopped, not ours, gone). Never throws.
  // Frames that are the exact instruction a thread is at (the innermost one,
  // and one interrupted by a signal) carry kExactIp; the others are return
  // addresses. Signal trampolines are left out.
  static constexpr uint64_t kExactIp = uint64_t(1) << 63;
  std::vector<uint64_t> unwind(pid_t tid, size_t max_frames = 48);
  // The same from registers the caller knows better than ptrace does (a
  // thread parked at an instruction site, whose kernel registers are the
  // agent's): the innermost frame is regs.rip, exact.
  std::vector<uint64_t> unwind_from(pid_t tid, const user_regs_struct& regs, size_t max_frames = 48);

  // The registers of frame `frame` of a stopped thread (an index into
  // unwind()'s frames): all of them for the innermost frame; further out
  // the ones unwinding recovers (rip, rsp, rbx, rbp, r12-r15, and the
  // segment and fs/gs bases, which no call changes). Bit i of `known`: the
  // i-th 8-byte field of user_regs_struct is known. False when the thread
  // cannot be read or has fewer frames.
  bool registers_at(pid_t tid, size_t frame, user_regs_struct& regs, uint64_t& known);
  // Drops every cached unwind table.
  void flush();

 private:
  std::vector<uint64_t> walk(unw_addr_space* space, pid_t tid, size_t max_frames);

  unw_addr_space* space_;
  unw_addr_space* given_space_;  // its initial registers come from unwind_from's caller
};

}  // namespace ctrl
