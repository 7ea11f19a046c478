#include "Runtime.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "CheckpointClaim.h"
#include "DeferredSignals.h"
#include "Dependence.h"
#include "FileJournal.h"
#include "FileState.h"
#include "Framing.h"
#include "InstructionSites.h"
#include "KernelWaits.h"
#include "LiveCheckpoint.h"
#include "OwnCalls.h"
#include "OwnMemory.h"
#include "OwnPid.h"
#include "ParkContext.h"
#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Signals.h"
#include "TailChooser.h"
#include "ThreadLocalStorage.h"
#include "ThreadPool.h"
#include "VirtualClock.h"
#include "control.pb.h"

namespace ctrl::agent {

thread_local uint32_t t_me = kNoThread;
thread_local bool t_in_agent = false;
thread_local uint64_t t_program_sp = 0;
namespace {
// Constructed before agent_init (a plain constructor function) runs, and never
// destroyed: the agent is finalised before every library loaded after it (each
// one the program links), and their destructors still call the interposers
// (a library that signals and joins its worker at exit, libGLX's clean-up under
// `ffmpeg -version`): they must find the model as the execution left it.
union RuntimeStorage {
  Runtime runtime;
  RuntimeStorage() : runtime() {}
  ~RuntimeStorage() {}
};
RuntimeStorage runtime_storage __attribute__((init_priority(101)));
}  // namespace
Runtime& rt = runtime_storage.runtime;

namespace {

using own::sys;

pid_t gettid_raw() { return pid_t(sys(SYS_gettid)); }

// Zeroes the registers a call may leave anything in (rax aside, set by the
// interposer's return): see Runtime::log.
inline void clear_scratch_registers() {
  asm volatile(
      "xor %%ecx, %%ecx\n\txor %%edx, %%edx\n\txor %%esi, %%esi\n\txor %%edi, %%edi\n\t"
      "xor %%r8d, %%r8d\n\txor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d\n\t"
      "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
      "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\tpxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
      "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
      "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
      :
      :
      : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
        "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc");
}

int* own_tid_word(int offset) { return reinterpret_cast<int*>(reinterpret_cast<char*>(pthread_self()) + offset); }

}  // namespace

void Runtime::find_tid_word() {
  tid_candidates_ = tid_word::find(reinterpret_cast<const char*>(pthread_self()), int(gettid_raw()));
  tid_offset_ = tid_candidates_.count > 0 ? tid_candidates_.offset[0] : -1;
}

void Runtime::confirm_tid_word(const char* const* pds, const int* tids, int n) {
  tid_offset_ = tid_word::confirm(tid_candidates_, pds, tids, n);
}

void Runtime::publish(uint32_t t) {
  shm::ThreadSlot& s = region.header->threads[t];
  const ThreadModel& th = model.thread(t);
  s.status = th.finished ? shm::ThreadStatus::Finished
                         : (model.enabled(t) ? shm::ThreadStatus::Runnable : shm::ThreadStatus::Blocked);
  s.pending_kind = uint16_t(th.pending.kind);
  s.pending_addr = th.pending.addr;
  s.pending_site = th.pending.site;
  s.waits_for_thread = model.blocker(t);
  bool spinning = model.awaiting(t) || th.probe;
  s.await_addr = spinning ? th.pending.addr : 0;
  s.await_site = spinning ? th.pending.site : 0;
}

void Runtime::publish_tid(uint32_t t, pid_t tid) {
  region.header->threads[t].tid = tid ? tid : gettid_raw();
  TlsSpan tls = own_static_tls();
  region.header->threads[t].tls_lo = tls.lo;
  region.header->threads[t].tls_hi = tls.hi;
  if (region.header->nthreads < t + 1) region.header->nthreads = t + 1;
}

void Runtime::take_turn(uint32_t me, const PendingOp& op) {
  uint64_t live = t_program_sp;
  t_program_sp = 0;
  // A sharing of a thread's own memory (OwnMemory.h), found by a step.
  if (region.header && region.header->own_memory) own_memory::note_op(*region.header, op);
  for (;;) {
    model.set_pending(me, op);
    if (!active || ended) return;
    memory->stack_at(me, live);
    uint32_t next = decide(me);
    if (next == me) return;
    if (step_ >= spread_at_) spread();
    publish(me);
    memory->switched_out(me);
    // Signals sent while switched out wait for this turn (DeferredSignals.h),
    // but those a signal wait waits for: it is performed after this turn,
    // and pause() would sleep for good after the handler ran here.
    bool user = carriers_ && me < shm::kMaxThreads && next < shm::kMaxThreads && home_of_[me] != kNoCarrier &&
                !deferred_signals::program_handlers();
    // A thread waits by a kernel hand-off only at home (a handler the program
    // installed since its last switch stops them): held signals are its
    // own kernel thread's, and a carrier waiting on a thread's word could
    // not be woken to resume its own.
    if (!user) go_home(me);
    uint64_t held = op.kind == OpKind::SignalWait ? 0 : deferred_signals::hold();
    if (user) {
      switch_turn(me, next);
    } else {
      hand_to(next);
      wait_turn(me, last_enabled_ == ((uint64_t(1) << me) | (uint64_t(1) << next)));
    }
    memory->switched_in(me);
    uint64_t at = step_;
    deferred_signals::release(held);
    // A handler that ran took steps of its own: `op` is decided again.
    if (step_ == at) return;
  }
}

void Runtime::first_turn(uint32_t me) {
  // A slot's thread: the kernel wrote its tid where libc keeps it when it
  // was created in this process (ThreadPool.h).
  bool slot = tid_offset_ >= 0 && thread_pool::my_slot() != thread_pool::kNoSlot;
  pid_t tid = slot ? pid_t(*own_tid_word(tid_offset_)) : gettid_raw();
  publish_tid(me, tid);
  live_checkpoint::thread_started(me, prepare_thread_signals(me, thread_pool::started_unblocked()));
  if (me < shm::kMaxThreads) {
    // Its home carrier: a slot's kernel thread (ThreadPool.h), not another one.
    uint32_t slot = thread_pool::my_slot();
    uint32_t c = slot < thread_pool::kSlots ? 1 + slot : kNoCarrier;
    home_of_[me] = uint8_t(c);
    // (Started on another kernel thread: run_here named that carrier.)
    if (carrier_of_[me] == kNoCarrier) carrier_of_[me] = uint8_t(c);
    if (c != kNoCarrier) {
      carrier_fs_[c] = uint64_t(pthread_self());
      carrier_tid_[c] = tid;
    }
  }
  wait_turn(me);
  // The offset found in the main thread must hold in every thread.
  if (tid_offset_ >= 0 && *own_tid_word(tid_offset_) != tid) tid_offset_ = -1;
  log(me, OpKind::ThreadStart, 0, model.thread(me).pending.site);
}

uint32_t Runtime::decide(uint32_t me) {
  for (;;) {
    uint32_t next = choose(me);
    // A program thread (under SC up to 64; a model with extra actors numbers
    // them from shm::kFlushActorBase and supports fewer threads).
    if (next == kNoThread || next < memory->max_threads()) return next;
    actor_step(me, next - shm::kFlushActorBase);
  }
}

void Runtime::actor_step(uint32_t me, uint32_t actor) {
  MemoryModel::ActorStep s = memory->step_actor(actor, me);
  flush_owner_ = s.owner;
  log(shm::kFlushActorBase + actor, s.kind, s.addr, 0, 0, s.written, s.aux, s.size);
  flush_owner_ = 0;
}

uint32_t Runtime::choose(uint32_t me) {
  shm::Header* h = region.header;
  if (step_ >= h->max_steps) {
    // Cut: nobody ran what they were about to do, and that still races.
    record_pending(kNoThread);
    end_execution(shm::Outcome::StepBound, me, model.thread(me).pending.site, "");
  }
  uint64_t actors = memory->ready_actors(model);
  probe_kernel_waits();
  uint64_t mask = model.enabled_mask() | (actors << shm::kFlushActorBase);
  if (memory->follows_choices() && step_ < h->prefix_len) [[unlikely]] {
    // c11/rc11: a thread that seems to spin on memory nobody writes may be
    // given another store's value by the plan's Choice: the plan decides.
    uint32_t planned = region.prefix[step_];
    if (planned < model.thread_count() && model.awaiting(planned)) mask |= uint64_t(1) << planned;
  }
  if (mask == 0) {
    if (model.all_finished()) return kNoThread;
    // Nothing can run but a thread waits in a system call for something
    // outside the program (a read of stdin, a child's exit): the oldest
    // such call blocks in the kernel for real, keeping the token.
    uint32_t outside = model.oldest_kernel_waiter();
    if (outside != kNoThread) {
      model.set_external(outside);
      mask = model.enabled_mask();
    }
  }
  if (mask == 0) {
    // Only spinning threads could still run: let them, to see whether they
    // really spin (a hang) or were re-reading in a bounded loop.
    if (model.start_spin_probe()) mask = model.enabled_mask();
    if (mask == 0) {
      uint32_t spinner = model.confirmed_spinner();
      if (spinner != kNoThread) spin_hang(spinner);
      // Stepping: the controller sees the deadlock while every thread still
      // waits where it is; its Finish ends the execution as one.
      if (stepping_) ask(me, 0);
      deadlock(me, model.thread(me).pending.site);
    }
  }
  last_enabled_ = mask;
  uint64_t fair = fair_.allowed(mask);
  if (step_ == checkpoint_at_) take_checkpoint(me);
  if (stepping_ && (step_ >= h->prefix_len || step_ >= h->pause_at)) ask(me, mask);
  uint32_t next;
  if (step_ < h->prefix_len && !alone_) {
    next = region.prefix[step_];
    if (next >= shm::kMaxThreads || !(mask & (uint64_t(1) << next))) {
      char why[shm::kMessageSize];
      snprintf(why, sizeof why, "the thread the trace chose is not enabled (step %lu: T%u %s)",
               (unsigned long)step_ + 1, next,
               next < model.thread_count() ? model.describe_wait(next).c_str() : "does not exist");
      diverged(me, model.thread(me).pending.site, why);
    }
    if (step_ == h->sleep_from) sleep_ = h->sleep_mask & ~(uint64_t(1) << next);
  } else {
    uint64_t awake = mask & ~sleep_;
    if (awake == 0) end_execution(shm::Outcome::SleepBlocked, me, model.thread(me).pending.site, "");
    // Only threads that gave way after yielding are awake: every fair
    // continuation starts with a sleeper, so this one adds nothing fair.
    if (!(awake & fair)) end_execution(shm::Outcome::SleepBlocked, me, model.thread(me).pending.site, kFairBlocked);
    awake &= fair;
    if ((h->policy == shm::TailPolicy::Sticky || h->policy == shm::TailPolicy::Pct ||
         h->policy == shm::TailPolicy::Pos) &&
        (awake & yielding_) && (awake & ~yielding_))
      awake &= ~yielding_;
    shm::TailPolicy policy = h->policy == shm::TailPolicy::Ask ? shm::TailPolicy::Sticky : h->policy;
    // PCT's write points: the threads whose next operation writes.
    uint64_t writing = 0;
    if (policy == shm::TailPolicy::Pct && pct_.writes_only)
      for (uint64_t m = awake; m; m &= m - 1) {
        uint32_t t = uint32_t(__builtin_ctzll(m));
        if (t >= model.thread_count() || pct_write_step(model.thread(t).pending.kind)) writing |= uint64_t(1) << t;
      }
    next = policy == shm::TailPolicy::Pct   ? pct_.choose(awake, step_, rng_, writing)
           : policy == shm::TailPolicy::Pos ? pos_.choose(awake)
                                            : choose_tail(policy, awake, me, last_, rng_);
  }
  last_ = next;
  return next;
}

void Runtime::ask(uint32_t me, uint64_t mask) {
  AgentScope scope;
  shm::Header* h = region.header;
  // Every other thread asleep at its park (a new one may still be on its
  // way to its first turn, its slot not yet published): what the
  // controller reads and unwinds is then exact. A thread that never parks
  // within a second is shown as it is.
  int64_t start = virtual_clock::real_monotonic_ns();
  for (;;) {
    bool all = true;
    for (uint32_t t = 0; t < model.thread_count() && t < shm::kMaxThreads && all; ++t)
      if (t != me && model.thread(t).used && !model.thread(t).finished && !parked_asleep(t)) all = false;
    if (all) break;
    if (virtual_clock::real_monotonic_ns() - start >= 2000000000) break;
    real.sched_yield();
  }
  for (;;) {
    for (uint32_t t = 0; t < model.thread_count(); ++t) publish(t);
    h->current = me;
    h->ask_step = step_;
    h->ask_enabled = mask;
    h->nbuffered = memory->shown_stores(h->buffered, shm::kMaxShownStores);
    uint32_t seen = h->reply.load(std::memory_order_acquire);
    h->asking.fetch_add(1, std::memory_order_release);
    framing::write_all(control_fd, paused_frame_, paused_len_);
    // A shared futex: the controller wakes it through its own mapping.
    auto* word = reinterpret_cast<uint32_t*>(&h->reply);
    while (h->reply.load(std::memory_order_acquire) == seen)
      sys(SYS_futex, word, FUTEX_WAIT, seen, nullptr, nullptr, 0);
    if (h->command == shm::StepCommand::Finish) {
      stepping_ = false;
      return;
    }
    // Taken (or restored from) here, the execution pauses again.
    if (h->command == shm::StepCommand::Checkpoint) {
      take_checkpoint(me);
      continue;
    }
    // Go: the plan now holds the next decision (the controller checked it
    // against ask_enabled); anything else is asked again.
    if (h->command == shm::StepCommand::Go && step_ < h->prefix_len && step_ < h->pause_at) return;
  }
}

void Runtime::log(uint32_t me, OpKind kind, uint64_t addr, uint64_t site, uint64_t read, uint64_t written, uint64_t aux,
                  uint32_t size, MemOrder order, RmwOp rmw, uint8_t flags) {
  if (!active || ended) return;
  if (me < shm::kMaxThreads) {
    uint64_t bit = uint64_t(1) << me;
    bool yields = (flags & shm::kTimedOut) || kind == OpKind::CondTimedWait;
    yielding_ = yields ? yielding_ | bit : yielding_ & ~bit;
    fair_.ran(me, kind == OpKind::Yield, last_enabled_);
  }
  shm::Header* h = region.header;
  shm::Event& e = region.events[step_];
  e.step = uint32_t(step_);
  e.thread = uint16_t(me);
  e.kind = uint16_t(kind);
  e.addr = addr;
  e.site = site;
  e.value_read = read;
  e.value_written = written;
  e.aux = aux;
  e.size = size;
  e.order = uint8_t(order);
  e.rmw = uint8_t(rmw);
  e.flags = flags;
  e.owner = flush_owner_;
  e.enabled = last_enabled_;
  if (sleep_) wake_sleepers(e);
  if (pos_on_) pos_after(e);
  if (step_ < h->checked_steps && !alone_) {
    const shm::Signature& x = region.expected[step_];
    if (x.thread != me || x.kind != uint16_t(kind) || x.site != site || x.addr != addr) {
      alone_ = x.thread == me && alone_to_the_end(me);
    }
    if (!alone_ && (x.thread != me || x.kind != uint16_t(kind) || x.site != site || x.addr != addr)) {
      ++step_;
      h->steps.store(step_, std::memory_order_release);
      diverged(me, site, "the event differs from the trace");
    }
  }
  ++step_;
  h->steps.store(step_, std::memory_order_release);
  note_memory(me, e);
  // The interposer returns to the program soon after: what this code (which
  // takes another path in the plan's prefix than in the tail) left in the
  // scratch registers would reach the program's registers, which spin
  // detection fingerprints, and a replayed plan would see another state.
  clear_scratch_registers();
}

void Runtime::pos_after(const shm::Event& e) {
  pos_.redraw(e.thread, rng_);
  Access done = access_of(e);
  for (uint32_t t = 0; t < model.thread_count() && t < shm::kMaxThreads; ++t) {
    const ThreadModel& th = model.thread(t);
    if (t == e.thread || !th.used || th.finished) continue;
    const PendingOp& op = th.pending;
    Access next = access_of(op.kind, op.addr, op.size, op.addr2, false, op.target, false);
    if (conflicts(done, next)) pos_.redraw(t, rng_);
  }
}

void Runtime::wake_sleepers(const shm::Event& e) {
  Access done = access_of(e);
  // The controller says what each sleeper would do (it saw it do that): the
  // same relation on both sides, or sleepers would wake too early.
  for (uint64_t m = sleep_; m; m &= m - 1) {
    uint32_t t = uint32_t(__builtin_ctzll(m));
    Access next = from_record(region.header->sleepers[t]);
    // The model's own exceptions (a flush and its thread's sleeper).
    if (memory->keeps_asleep(e, t, next)) continue;
    if (conflicts(done, next)) sleep_ &= ~(uint64_t(1) << t);
  }
}

void Runtime::note_memory(uint32_t me, const shm::Event& e) {
  auto kind = OpKind(e.kind);
  bool failed = e.flags & shm::kFailed;
  if (op_only_reads(kind)) {
    model.memory_loaded(me, e.site, e.addr, e.size);
    model.check_probe(me);
  } else if (op_is_rmw(kind)) {
    // A read-modify-write that leaves memory as it was (a failed compare-
    // exchange, a test-and-set of a held lock) is, for spinning, a re-read.
    // (Only where the written value is known: rmw says which operation.)
    if (failed || (e.rmw != uint8_t(RmwOp::None) && e.value_written == e.value_read)) {
      model.memory_loaded(me, e.site, e.addr, e.size);
      model.check_probe(me);
    } else
      model.memory_written(e.addr, e.size, me);
  } else if (op_only_writes(kind)) {
    // A store (a string move writes `size` bytes at addr) of what memory
    // already held is no progress of its thread (a loop storing the same
    // value and re-reading can still be a spin), but it wakes the others:
    // whether a store changes memory depends on the interleaving, and
    // waking a spinner costs only a re-read. Other threads cannot see a
    // buffered store: its flush wakes them; its own thread sees it at once.
    model.memory_written(e.addr, e.size, (e.flags & shm::kUnchanged) ? kNoThread : me, !(e.flags & shm::kBuffered));
  } else if (kind == OpKind::Flush) {
    model.memory_written(e.addr, e.size, kNoThread);
  }
}

bool Runtime::thread_exit(uint32_t me, uint64_t site, void (*finish)()) {
  if (!active || ended) {
    model.thread_finished(me);
    if (finish) {
      t_me = kNoThread;
      finish();
    }
    return false;
  }
  // A pool slot's thread ends on whichever kernel thread runs it (its own
  // idles for the rollback, ThreadPool.h): no going home first, which would
  // cost a kernel hand-off.
  uint32_t home = me < shm::kMaxThreads ? home_of_[me] : kNoCarrier;
  bool anywhere = finish && carriers_ && home != kNoCarrier && home > 0 && thread_pool::ends_away(home - 1);
  PendingOp op{OpKind::ThreadExit, 0, 0, site};
  if (anywhere) {
    ends_anywhere_ |= uint64_t(1) << me;
    take_turn(me, op);
  } else {
    begin(me, op);
  }
  log(me, OpKind::ThreadExit, 0, site);
  model.thread_finished(me);
  publish(me);
  uint32_t next = decide(me);
  if (finish) {
    // Uncontrolled from here, as libc's exit path is for a real thread.
    t_me = kNoThread;
    finish();
  }
  if (next == kNoThread) {
    // Last thread: the process ends by itself when this thread is gone.
    region.header->outcome = shm::Outcome::Complete;
    ended = true;
    go_home(me);
    return true;
  }
  if (anywhere) leave_ended(me, next);
  // It ends on its own kernel thread (a pool thread's parks there).
  go_home(me);
  if (!finish && tid_offset_ >= 0) exiting_tid_ = own_tid_word(tid_offset_);
  hand_to(next);
  return false;
}

void Runtime::record_pending(uint32_t exiting) {
  shm::Header* h = region.header;
  uint32_t n = 0;
  for (uint32_t t = 0; t < model.thread_count() && t < shm::kMaxThreads; ++t) {
    const ThreadModel& th = model.thread(t);
    if (!th.used || th.finished || t == exiting) continue;
    const PendingOp& op = th.pending;
    shm::Event& e = h->pending[n++];
    e = shm::Event{};
    e.step = uint32_t(step_);
    e.thread = uint16_t(t);
    e.kind = uint16_t(op.kind);
    e.addr = op.addr;
    e.site = op.site;
    e.size = op.size;
    e.enabled = model.enabled(t) ? uint64_t(1) << t : 0;
    // The fields access_of reads, laid out as the event would be logged.
    switch (op.kind) {
      case OpKind::ThreadJoin:
        e.aux = op.target;
        break;
      case OpKind::BarrierWait:
        e.value_read = model.barrier_phase(op.addr);
        break;
      case OpKind::BarrierLeave:
        e.value_read = op.phase;
        break;
      case OpKind::Store:  // a string move reads its source
        e.aux = op.addr2;
        if (op.addr2) e.flags = shm::kInstruction;
        break;
      default:
        e.aux = op.addr2;
        break;
    }
  }
  // Store buffers that could flush: a flush could have come instead of the
  // exit, and a thread whose next operation waits for its buffer to drain
  // (a lock, an exit of its own) can run only after it. (No access: it
  // races with the exit alone.)
  for (uint64_t actors = memory->ready_actors(model); actors && n < shm::kMaxThreads; actors &= actors - 1) {
    uint32_t a = shm::kFlushActorBase + uint32_t(__builtin_ctzll(actors));
    shm::Event& e = h->pending[n++];
    e = shm::Event{};
    e.step = uint32_t(step_);
    e.thread = uint16_t(a);
    e.kind = uint16_t(OpKind::Flush);
    e.enabled = uint64_t(1) << a;
  }
  h->npending = n;
}

void Runtime::process_exit(uint32_t me, int status, uint64_t site) {
  if (!active || ended) return;
  begin(me, PendingOp{OpKind::ProcessExit, 0, 0, site});
  log(me, OpKind::ProcessExit, 0, site, 0, uint64_t(status));
  // The other threads end here, wherever they are: no more events. What
  // each was about to do races with the exit (DporStrategy).
  record_pending(me);
  region.header->exit_status = status;
  region.header->outcome = shm::Outcome::Complete;
  ended = true;
}

void Runtime::end_execution(shm::Outcome outcome, uint32_t thread, uint64_t site, const char* message) {
  // The controller has moved on to the next execution: the region is its.
  if (finished_) real._exit(112);
  shm::Header* h = region.header;
  h->outcome = outcome;
  h->outcome_thread = thread;
  h->outcome_site = site;
  h->outcome_tid = gettid_raw();
  snprintf(h->message, sizeof h->message, "%s", message);
  for (uint32_t t = 0; t < model.thread_count(); ++t) publish(t);
  h->attention.store(1, std::memory_order_release);
  ended = true;
  bool quiet =
      outcome == shm::Outcome::SleepBlocked || outcome == shm::Outcome::StepBound || outcome == shm::Outcome::Diverged;
  // The rollback needs each thread on its own kernel thread, and so does
  // the controller's look at a bug (each thread's stack, by its tid).
  if (active && quiet) go_home(t_me);
  if (active && !quiet && t_me < shm::kMaxThreads) {
    pose_carried(t_me);
    h->outcome_tid = gettid_raw();
  }
  if (active && quiet && roll_back_after_attention(t_me)) {
    // This thread is not the runner's main thread: that one rolls back.
    if (thread_pool::my_slot() != thread_pool::kNoSlot) thread_pool::park_for_rollback(thread_pool::my_slot());
    for (;;) raw_syscall(SYS_exit, 0);
  }
  if (active && attention_len_ > 0) {
    // An execution: tell the controller over the channel, then wait to be
    // inspected and killed.
    framing::write_all(control_fd, attention_frame_, attention_len_);
    for (;;) pause();
  }
  // Before the checkpoint the process is traced: stop for the tracer.
  for (;;) {
    sys(SYS_tgkill, getpid(), gettid_raw(), SIGSTOP);
    pause();
  }
}

void Runtime::spin_hang(uint32_t t) {
  char msg[shm::kMessageSize];
  snprintf(msg, sizeof msg, "T%u %s", t, model.describe_wait(t).c_str());
  end_execution(shm::Outcome::Hang, t, model.thread(t).pending.site, msg);
}

void Runtime::deadlock(uint32_t me, uint64_t site) {
  char msg[shm::kMessageSize];
  size_t n = 0;
  msg[0] = 0;
  for (uint32_t t = 0; t < model.thread_count() && n < sizeof msg; ++t) {
    if (model.thread(t).finished) continue;
    n += size_t(snprintf(msg + n, sizeof msg - n, "%sT%u %s", n ? "; " : "", t, model.describe_wait(t).c_str()));
  }
  end_execution(shm::Outcome::Deadlock, me, site, msg);
}

bool Runtime::alone_to_the_end(uint32_t me) const {
  for (uint32_t t = 0; t < model.thread_count(); ++t)
    if (t != me && !model.thread(t).finished) return false;
  const shm::Header* h = region.header;
  for (uint64_t i = step_; i < h->prefix_len; ++i)
    if (region.prefix[i] != me) return false;
  return true;
}

void Runtime::diverged(uint32_t me, uint64_t site, const char* why) {
  end_execution(shm::Outcome::Diverged, me, site, why);
}

void Runtime::build_frames() {
  // Frames a crash handler or a paused thread sends without allocating
  // (the program's heap must not depend on what the agent says).
  auto frame = [](const proto::ControlMessage& m, char* out, size_t& out_len) {
    std::string bytes = m.SerializeAsString();
    uint32_t len = uint32_t(bytes.size());
    out[0] = char(len);
    out[1] = char(len >> 8);
    out[2] = char(len >> 16);
    out[3] = char(len >> 24);
    memcpy(out + 4, bytes.data(), bytes.size());
    out_len = 4 + bytes.size();
  };
  {
    proto::ControlMessage m;
    m.mutable_attention()->set_pid(own_pid());
    frame(m, attention_frame_, attention_len_);
    m.mutable_attention()->set_rolled_back(true);
    frame(m, attention_rolled_back_frame_, attention_rolled_back_len_);
    proto::ControlMessage p;
    p.mutable_paused()->set_pid(own_pid());
    frame(p, paused_frame_, paused_len_);
  }
}

}  // namespace ctrl::agent
