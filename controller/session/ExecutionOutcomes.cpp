// How an execution that ended or was stopped becomes an ExecutionResult:
// the agent's outcome (a bug, a bound, a divergence), a hang or an
// interruption. A bug's result carries the events, symbolised messages and
// every thread's backtrace, taken while the execution is still alive; the
// execution is killed afterwards, unless its runner rolls back to run the
// next one (agent/Rollback.h).
#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <csignal>

#include "binary/Backtracer.h"
#include "binary/PointerNames.h"
#include "binary/Symbolizer.h"
#include "cli/ExitStatus.h"
#include "reports/CalledNames.h"
#include "reports/SignalDescription.h"
#include "session/Session.h"

namespace ctrl {

// The unfinished threads' pending operations, when the agent recorded them
// for this execution: it ended by a process exit or was cut.
void Session::take_pending(const shm::Header& h, ExecutionResult& r) {
  bool exited = !r.events.empty() && OpKind(r.events.back().kind) == OpKind::ProcessExit;
  if (!exited && r.end != ExecutionResult::End::StepBound) return;
  r.pending.assign(h.pending, h.pending + std::min(h.npending, shm::kMaxThreads));
}

ExecutionResult Session::outcome_from_agent(pid_t tid) {
  const shm::Header& h = region_.header();
  ExecutionResult r;
  r.thread = h.outcome_thread;
  r.site = h.outcome_site;
  r.message = h.message;
  r.stopped_tid = tid;
  switch (h.outcome) {
    case shm::Outcome::Assertion:
      r.kind = BugKind::Assertion;
      r.facts.signal = SIGABRT;  // assert() ends in abort()
      r.facts.at_return_address = true;
      return finish_with_bug(std::move(r), tid);
    case shm::Outcome::Abort:
      r.kind = BugKind::Crash;
      r.facts.signal = SIGABRT;
      r.facts.at_return_address = true;
      r.message = "SIGABRT: abort() called";
      // panic=abort: the panic is the bug, abort() only its end.
      if (std::string panic = panic_message(); !panic.empty()) {
        r.kind = BugKind::Panic;
        r.facts.signal = 0;
        r.message = fmt::format("{} (then abort() in T{})", panic, r.thread);
        r.thread = h.panic_thread;
      }
      return finish_with_bug(std::move(r), tid);
    case shm::Outcome::Sanitizer:
      // The report's first lines, as the sanitizer wrote them.
      r.kind = BugKind::Sanitizer;
      return finish_with_bug(std::move(r), tid);
    case shm::Outcome::Crash: {
      r.kind = BugKind::Crash;
      r.facts.signal = h.signal;
      r.facts.fault_addr = h.fault_addr;
      r.message = fault_description(h.signal, h.fault_addr);
      if (r.thread < shm::kMaxThreads) r.message += fmt::format(" in T{}", r.thread);
      return finish_with_bug(std::move(r), tid);
    }
    case shm::Outcome::Deadlock: {
      r.kind = BugKind::Deadlock;
      name_heap_blocks(r);
      // Rebuild the message with symbols: who waits on what.
      std::string msg = "no thread can proceed:";
      for (uint32_t t = 0; t < std::min(h.nthreads, shm::kMaxThreads); ++t) {
        const shm::ThreadSlot& slot = h.threads[t];
        if (slot.status == shm::ThreadStatus::Finished) continue;
        msg += fmt::format(" T{} {};", t, thread_state(t));
        r.facts.waits.push_back(BugWait{t, slot.pending_kind, slot.pending_addr,
                                        slot.waits_for_thread < shm::kMaxThreads ? slot.waits_for_thread : UINT32_MAX});
        if (h.threads[t].status != shm::ThreadStatus::Blocked) continue;
        shm::Event op{};
        op.thread = uint16_t(t);
        op.kind = h.threads[t].pending_kind;
        op.addr = h.threads[t].pending_addr;
        op.site = h.threads[t].pending_site;
        if (OpKind(op.kind) == OpKind::ThreadJoin) op.aux = h.threads[t].waits_for_thread;
        r.blocked.push_back(op);
      }
      msg.pop_back();
      r.message = msg;
      return finish_with_bug(std::move(r), tid);
    }
    case shm::Outcome::Hang: {
      r.kind = BugKind::Hang;
      name_heap_blocks(r);
      const shm::ThreadSlot& slot = h.threads[std::min(r.thread, shm::kMaxThreads - 1)];
      r.site = slot.await_site;
      r.facts.address = slot.await_addr;
      r.message =
          fmt::format("T{} spins forever: it keeps re-reading {} at {}, and no other thread can write it", r.thread,
                      symbolizer().describe_data(slot.await_addr), symbolizer().describe_code(slot.await_site));
      return finish_with_bug(std::move(r), tid);
    }
    case shm::Outcome::StepBound:
      r.end = ExecutionResult::End::StepBound;
      break;
    case shm::Outcome::SleepBlocked:
      r.end = ExecutionResult::End::Blocked;
      break;
    case shm::Outcome::Diverged:
      r.end = ExecutionResult::End::Diverged;
      break;
    case shm::Outcome::Unsupported:
      r.end = ExecutionResult::End::Unsupported;
      break;
    default:
      throw InternalError(fmt::format("agent stopped with outcome {}: {}", int(h.outcome), h.message));
  }
  take_events(r, std::min(h.steps.load(), region_.capacity()));
  take_pending(h, r);
  if (attention_rolled_back_) {
    // The runner is putting itself back (agent/Rollback.h): it runs the
    // next execution.
    ended_ = true;
    runner_pid_ = current_pid_;
    ++runner_stats_.rolled_back;
    return r;
  }
  kill_execution();
  return r;
}

std::string Session::panic_message() const {
  const shm::Header& h = *region_.view().header;
  if (h.panic_tid.load(std::memory_order_acquire) == 0) return "";
  std::string text(h.panic_text, std::min(h.panic_len, shm::kPanicTextSize - 1));
  // One line: "thread 'main' panicked at src/main.rs:4:5: MESSAGE", without
  // the thread's kernel id (Rust 1.8x: "thread 'main' (1234) panicked"),
  // which differs between executions and would make each panic a new bug.
  while (!text.empty() && text.front() == '\n') text.erase(0, 1);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (size_t tid = text.find("' ("); tid != std::string::npos) {
    size_t close = text.find(") panicked at ", tid);
    if (close != std::string::npos && text.find_first_not_of("0123456789", tid + 3) == close)
      text.erase(tid + 1, close + 1 - (tid + 1));
  }
  if (size_t at = text.find("' panicked at "); at != std::string::npos)
    if (size_t colon = text.find(":\n", at); colon != std::string::npos) text.replace(colon, 2, ": ");
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void Session::judge_exit(ExecutionResult& r) {
  if (r.end != ExecutionResult::End::Complete) return;
  const shm::Header& h = *region_.view().header;
  int status = r.exit_status & 0xff;
  // The thread that ended the process, and where: its exit step.
  uint32_t thread = 0;
  uint64_t site = 0;
  if (!r.events.empty() && OpKind(r.events.back().kind) == OpKind::ProcessExit) {
    thread = r.events.back().thread;
    site = r.events.back().site;
  }
  std::string panic = panic_message();
  if (!panic.empty() && status == kRustPanicStatus) {
    r.kind = BugKind::Panic;
    r.thread = h.panic_thread;
    r.site = 0;
    r.message = fmt::format("{} (then T{} exited with status {})", panic, thread, status);
  } else if (config_.fail_on_exit.test(size_t(status))) {
    r.kind = BugKind::ExitStatus;
    r.thread = thread;
    r.site = site;
    r.message = fmt::format("T{} exited with status {}, a failure by --fail-on-exit{}", thread, status,
                            panic.empty() ? "" : fmt::format(" (after a panic: {})", panic));
  } else {
    return;
  }
  // The process is gone: no backtraces, the interleaving says it all.
  r.end = ExecutionResult::End::Bug;
  found_bug_ = true;
}

void Session::name_heap_blocks(ExecutionResult& r) {
  const shm::Header& h = region_.header();
  take_events(r, std::min(h.steps.load(), region_.capacity()));
  learn_pointer_names(r.events, symbolizer());
}

ExecutionResult Session::finish_with_bug(ExecutionResult r, pid_t stopped_tid) {
  r.end = ExecutionResult::End::Bug;
  found_bug_ = true;
  // The threads' states ("blocked in pthread_cond_wait on p->work") name
  // heap blocks through the pointers this execution's code used.
  name_heap_blocks(r);
  collect_backtraces(r, stopped_tid);
  kill_execution();
  return r;
}

ExecutionResult Session::hang_result(const std::string& message, uint32_t thread) {
  ExecutionResult r;
  r.kind = BugKind::Hang;
  r.thread = thread;
  r.message = message;
  r = finish_with_bug(std::move(r), 0);
  for (const auto& bt : r.backtraces)
    if (bt.thread == r.thread && !bt.frames.empty()) r.site = bt.frames.front() & ~Backtracer::kExactIp;
  return r;
}

ExecutionResult Session::interrupted_result() {
  const shm::Header& h = region_.header();
  ExecutionResult r;
  r.end = ExecutionResult::End::Interrupted;
  // Only counted: nobody analyses a half execution, and copying a long
  // one's events (128 MB for 2,000,000) took seconds of page faults on a
  // machine where faults are slow, after the user asked ctrl to stop.
  r.steps = std::min(h.steps.load(), region_.capacity());
  kill_execution();
  return r;
}

void Session::take_events(ExecutionResult& r, uint64_t n) {
  r.user_handoffs = region_.header().user_handoffs;
  r.user_thread_starts = region_.header().user_thread_starts;
  r.user_thread_ends = region_.header().user_thread_ends;
  const shm::Event* events = region_.view().events;
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (n * sizeof(shm::Event) >= 4 * kHuge) {
    r.events.clear();
    r.events.reserve(n);
    // malloc maps a block this large afresh: its pages are untouched, and
    // the part aligned to 2 MB can be backed by huge pages (the kernel's
    // "madvise" mode; without it this does nothing).
    auto begin = (reinterpret_cast<uintptr_t>(r.events.data()) + kHuge - 1) & ~(kHuge - 1);
    auto end = (reinterpret_cast<uintptr_t>(r.events.data() + n)) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    // The region's pages were written by the target: this process maps
    // them on first read, 16 at a time. One call maps them all (Linux
    // 5.14; an older kernel says EINVAL and the copy faults them in).
    auto from = reinterpret_cast<uintptr_t>(events) & ~uintptr_t(4095);
    auto to = reinterpret_cast<uintptr_t>(events + n);
    madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_READ);
  }
  r.events.assign(events, events + n);
}

void Session::collect_backtraces(ExecutionResult& r, pid_t stopped_tid) {
  pid_t pid = current_pid_;
  // In a traced process the thread that reported the bug already sits in a
  // ptrace stop; in a just-seized execution every thread must be stopped.
  bool already_stopped = traced_execution_;
  seize_execution();
  auto tids = threads_of(pid);
  auto needs_stop = [&](pid_t t) { return !already_stopped || t != stopped_tid; };
  for (pid_t t : tids)
    if (needs_stop(t)) tracer_.interrupt(t);
  // Any stop will do; a pending signal may come first. One bound for all
  // threads: a zombie leader (the process is exiting: a signal handler's
  // _exit, a kill from outside) never stops, and the backtraces of the
  // threads that did are still worth having.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(Tracer::kThreadWaitMs);
  for (pid_t t : tids) {
    if (!needs_stop(t)) continue;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || tracer_.interrupted()) break;
    tracer_.wait_for(t, int(left.count()));
  }
  // Before the checkpoint (a crash or hang in start-up) there is no
  // symbolizer yet: the template is the process to describe.
  symbolizer().snapshot_regions(pid);
  for (pid_t t : tids) {
    ThreadBacktrace bt;
    bt.tid = t;
    bt.thread = thread_index(t);
    bool at_bug = r.thread < shm::kMaxThreads ? bt.thread == r.thread : t == stopped_tid;
    bt.state = at_bug ? "at the bug" : thread_state(bt.thread);
    bt.frames = backtracer_->unwind(t);
    r.backtraces.push_back(std::move(bt));
  }
  std::sort(r.backtraces.begin(), r.backtraces.end(),
            [](const ThreadBacktrace& a, const ThreadBacktrace& b) { return a.thread < b.thread; });
}

uint32_t Session::thread_index(pid_t tid) const {
  const shm::Header& h = region_.header();
  // A kernel thread running another thread than its own (agent/Runtime.h,
  // user-level hand-offs): the one running now.
  if (h.current_tid > 0 && tid == h.current_tid) return h.current;
  for (uint32_t t = 0; t < std::min(h.nthreads, shm::kMaxThreads); ++t)
    if (h.threads[t].tid == tid) return t;
  // The main thread is T0, also before the checkpoint, when no tid is
  // published yet.
  if (tid == current_pid_) return 0;
  return UINT32_MAX;
}

std::string Session::thread_state(uint32_t t) const {
  const shm::Header& h = region_.header();
  if (t >= shm::kMaxThreads) return "not controlled by ctrl";
  const shm::ThreadSlot& s = h.threads[t];
  auto kind = OpKind(s.pending_kind);
  switch (s.status) {
    case shm::ThreadStatus::Finished:
      return "finished";
    case shm::ThreadStatus::Blocked: {
      std::string what = fmt::format("blocked in {}", called_name(kind));
      if (s.pending_addr) what += " on " + symbolizer_->describe_data(s.pending_addr);
      if (s.waits_for_thread < shm::kMaxThreads) what += fmt::format(" (waits for T{})", s.waits_for_thread);
      return what;
    }
    default:
      if (t == h.current) return "running";
      return fmt::format("parked before {}", called_name(kind));
  }
}

}  // namespace ctrl
