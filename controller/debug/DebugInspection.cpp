// Reading the paused execution (DebugSession.h): its threads and their
// pending operations, store buffers, memory, and a thread's registers and
// frames: from the ucontext its slot points to when it is parked at an
// instruction site (site_context), else from the unwinder over the kernel's
// view of it.
#include <fmt/format.h>
#include <sys/uio.h>
#include <ucontext.h>

#include <algorithm>
#include <cstddef>

#include "binary/Backtracer.h"
#include "debug/DebugSession.h"
#include "debug/DebugSessionImpl.h"
#include "cli/ExitStatus.h"
#include "sites/OperationSite.h"
#include "binary/ProgramFrames.h"
#include "session/SharedMemory.h"
#include "binary/Symbolizer.h"

namespace ctrl {

std::vector<ThreadView> DebugSession::threads() {
  Impl& s = *impl_;
  std::vector<ThreadView> out;
  if (!s.live) return out;
  const shm::Header& h = s.header();
  Symbolizer& symbols = s.session.symbolizer();
  for (uint32_t t = 0; t < std::min(h.nthreads, shm::kMaxThreads); ++t) {
    const shm::ThreadSlot& slot = h.threads[t];
    if (slot.status == shm::ThreadStatus::Unused) continue;
    ThreadView v;
    v.index = t;
    v.tid = slot.tid;
    v.pending = OpKind(slot.pending_kind);
    v.pending_addr = slot.pending_addr;
    v.pending_site = slot.pending_site;
    std::string op = op_name(v.pending);
    if (slot.pending_addr && v.pending != OpKind::ThreadJoin) op += " " + symbols.describe_data(slot.pending_addr);
    if (v.pending == OpKind::ThreadJoin && slot.waits_for_thread < shm::kMaxThreads)
      op += fmt::format(" T{}", slot.waits_for_thread);
    v.operation = op;
    if (slot.status == shm::ThreadStatus::Finished) {
      v.state = ThreadView::State::Finished;
      v.description = "finished";
    } else if ((h.ask_enabled >> t) & 1) {
      v.state = t == h.current ? ThreadView::State::Running : ThreadView::State::Enabled;
      v.description = "enabled: " + op;
    } else {
      v.state = ThreadView::State::Blocked;
      v.description = "blocked in " + op;
      if (slot.waits_for_thread < shm::kMaxThreads && v.pending != OpKind::ThreadJoin)
        v.description += fmt::format(" (waits for T{})", slot.waits_for_thread);
      else if (slot.await_addr)
        v.description += " (spinning until another thread writes it)";
    }
    if (v.state != ThreadView::State::Finished && slot.pending_site) {
      uint64_t at = exact_site(v.pending) ? slot.pending_site : slot.pending_site - 1;
      v.where = symbols.describe_code(at);
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<std::string> DebugSession::buffers() {
  Impl& s = *impl_;
  std::vector<std::string> out;
  if (!s.live) return out;
  const shm::Header& h = s.header();
  Symbolizer& symbols = s.session.symbolizer();
  std::vector<std::string> per_thread(shm::kFlushActorBase);
  for (uint32_t i = 0; i < std::min(h.nbuffered, shm::kMaxShownStores); ++i) {
    const shm::BufferedStore& b = h.buffered[i];
    if (b.thread >= shm::kFlushActorBase) continue;
    std::string& line = per_thread[b.thread];
    bool can_flush = (h.ask_enabled >> (shm::kFlushActorBase + b.actor)) & 1;
    line += fmt::format("{}{} <- {} ({} bytes, step {}{})", line.empty() ? "" : ", ", symbols.describe_data(b.addr),
                        b.value, b.size, b.step + 1, can_flush ? fmt::format(", F{} may flush", b.actor) : "");
  }
  for (uint32_t t = 0; t < shm::kFlushActorBase; ++t)
    if (!per_thread[t].empty()) out.push_back(fmt::format("T{}: {}", t, per_thread[t]));
  return out;
}

bool DebugSession::read_memory(uint64_t addr, void* buffer, size_t size) {
  pid_t p = pid();
  if (p <= 0) return false;
  iovec local{buffer, size};
  iovec remote{reinterpret_cast<void*>(addr), size};
  return process_vm_readv(p, &local, 1, &remote, 1, 0) == ssize_t(size);
}

namespace {

struct ProgramFrame {
  pid_t tid = 0;
  std::vector<uint64_t> frames;  // everything unwind() saw
  size_t first = 0;              // the innermost program frame
  // Parked at an instruction site: its exact registers there.
  std::optional<user_regs_struct> site;
};

// The registers a thread parked at an instruction site saved there (its
// slot's site_context: a ucontext_t in its memory), over the kernel's view
// of it for what the site does not save (segments, fs/gs bases).
std::optional<user_regs_struct> site_registers(DebugSession& debug, Session& session, pid_t tid, uint64_t context) {
  greg_t g[NGREG];
  uint64_t at = context + offsetof(ucontext_t, uc_mcontext) + offsetof(mcontext_t, gregs);
  if (!debug.read_memory(at, g, sizeof g)) return std::nullopt;
  user_regs_struct r{};
  uint64_t known = 0;
  if (!session.backtracer().registers_at(tid, 0, r, known)) return std::nullopt;
  r.r8 = uint64_t(g[REG_R8]), r.r9 = uint64_t(g[REG_R9]), r.r10 = uint64_t(g[REG_R10]);
  r.r11 = uint64_t(g[REG_R11]), r.r12 = uint64_t(g[REG_R12]), r.r13 = uint64_t(g[REG_R13]);
  r.r14 = uint64_t(g[REG_R14]), r.r15 = uint64_t(g[REG_R15]), r.rdi = uint64_t(g[REG_RDI]);
  r.rsi = uint64_t(g[REG_RSI]), r.rbp = uint64_t(g[REG_RBP]), r.rbx = uint64_t(g[REG_RBX]);
  r.rdx = uint64_t(g[REG_RDX]), r.rax = uint64_t(g[REG_RAX]), r.rcx = uint64_t(g[REG_RCX]);
  r.rsp = uint64_t(g[REG_RSP]), r.rip = uint64_t(g[REG_RIP]), r.eflags = uint64_t(g[REG_EFL]);
  r.orig_rax = uint64_t(-1);
  return r;
}

ProgramFrame locate(DebugSession& debug, Session& session, uint32_t thread) {
  ProgramFrame f;
  const shm::Header& h = session.region().header();
  if (thread >= std::min(h.nthreads, shm::kMaxThreads)) throw UsageError(fmt::format("no thread T{}", thread));
  if (h.threads[thread].status == shm::ThreadStatus::Finished)
    throw UsageError(fmt::format("T{} has finished", thread));
  f.tid = h.threads[thread].tid;
  session.inspect();
  if (uint64_t context = h.threads[thread].site_context) {
    f.site = site_registers(debug, session, f.tid, context);
    if (f.site) {
      f.frames = session.backtracer().unwind_from(f.tid, *f.site);
      f.first = 0;
      return f;
    }
  }
  f.frames = session.backtracer().unwind(f.tid);
  f.first = first_program_frame(f.frames, session.symbolizer());
  return f;
}

}  // namespace

std::optional<ThreadRegisters> DebugSession::registers(uint32_t thread) {
  impl_->require_process("read registers");
  ProgramFrame f = locate(*this, impl_->session, thread);
  ThreadRegisters r;
  if (f.site) {
    r.regs = *f.site;
    r.known = (uint64_t(1) << (sizeof(user_regs_struct) / 8)) - 1;
    return r;
  }
  if (f.first >= f.frames.size()) return std::nullopt;
  if (!impl_->session.backtracer().registers_at(f.tid, f.first, r.regs, r.known)) return std::nullopt;
  return r;
}

std::vector<uint64_t> DebugSession::backtrace(uint32_t thread) {
  impl_->require_process("unwind a thread");
  ProgramFrame f = locate(*this, impl_->session, thread);
  return program_frames(f.frames, impl_->session.symbolizer());
}

uint64_t DebugSession::thread_pointer(uint32_t thread) {
  impl_->require_process("read a thread's registers");
  ProgramFrame f = locate(*this, impl_->session, thread);
  user_regs_struct regs{};
  uint64_t known = 0;
  if (!impl_->session.backtracer().registers_at(f.tid, 0, regs, known)) return 0;
  return regs.fs_base;
}

}  // namespace ctrl
