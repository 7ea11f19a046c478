// How an execution ends in a runner (Rollback.h): the other threads end or
// park, and the process is put back to the checkpoint instead of exiting.
#include <sys/syscall.h>
#include <unistd.h>

#include "Framing.h"
#include "OwnCalls.h"
#include "OwnPid.h"
#include "RawSyscall.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "ThreadPool.h"
#include "control.pb.h"

namespace ctrl::agent {

using own::futex_wake;

bool Runtime::end_other_threads(uint32_t me) {
  if (tid_offset_ < 0) return false;
  for (uint32_t t = 0; t < model.thread_count() && t < shm::kMaxThreads; ++t) {
    const ThreadModel& th = model.thread(t);
    if (t == me || !th.used) continue;
    if (!th.finished && park_[t].go.exchange(kExit, std::memory_order_acq_rel) == kSleeping) futex_wake(&park_[t].go);
    // A carried thread's home carrier idles: it ends (or parks) itself.
    if (!th.finished && t < shm::kMaxThreads && ((carried_ >> t) & 1)) {
      home_[home_of_[t]].store(kHomeEnd, std::memory_order_release);
      futex_wake(&home_[home_of_[t]]);
    }
    // Never chosen: it stays where it waits (idle, or parked since the
    // last rollback), which the rollback leaves as it is.
    unstarted_ &= ~(uint64_t(1) << t);
  }
  for (uint32_t t = 0; t < model.thread_count() && t < shm::kMaxThreads; ++t) {
    const ThreadModel& th = model.thread(t);
    if (t == me || !th.used || th.handle == 0 || thread_pool::slot_of(th.handle) != thread_pool::kNoSlot) continue;
    // The kernel clears it (and wakes it, as pthread_join waits) once the
    // thread is gone.
    int* w = reinterpret_cast<int*>(th.handle + uint64_t(tid_offset_));
    for (int v; (v = __atomic_load_n(w, __ATOMIC_ACQUIRE)) != 0;)
      raw_syscall(SYS_futex, reinterpret_cast<long>(w), FUTEX_WAIT, v, 0, 0, 0);
  }
  // The pool's threads that ran wait on stacks of their own (ThreadPool.h).
  return thread_pool::all_parked();
}

bool Runtime::roll_back_after_attention(uint32_t me) {
  if (!in_place_ || !rollback::is_runner() || tid_offset_ < 0 || attention_rolled_back_len_ == 0) return false;
  if (rollback::refusal(true)) return false;
  // The main thread (T0) holds the checkpoint's stack: it must be the one
  // that rolls back, parked (not finished) if it is not this thread.
  bool main_thread = rollback::in_main_thread();
  if (!main_thread && (me == 0 || model.thread_count() == 0 || model.thread(0).finished)) return false;
  finished_ = true;
  framing::write_all(control_fd, attention_rolled_back_frame_, attention_rolled_back_len_);
  if (main_thread) {
    if (!end_other_threads(me)) rollback::abandon("a thread of the execution could not be ended", 0);
    rollback::roll_back(0);
  }
  if (carried_ & 1)
    wake_carried(0, kRollBack);
  else if (park_[0].go.exchange(kRollBack, std::memory_order_acq_rel) == kSleeping)
    futex_wake(&park_[0].go);
  return true;
}

void Runtime::execution_finished() {
  shm::Header* h = region.header;
  if (!active || !ended || finished_ || attention_len_ == 0 || h->outcome != shm::Outcome::Complete) return;
  // The target's own output still to be flushed must come out before the
  // next execution's: then the fork server's report of the exit is awaited.
  if (h->target_output) return;
  finished_ = true;
  // The program's own exit handlers and destructors have run; what is left
  // is the libraries' clean-up, a cost per execution that nobody can see
  // (the output goes to /dev/null). Buffered stdio still reaches its files,
  // before the next execution puts the files back (it starts once the
  // controller has this message).
  fflush(nullptr);
  // A runner puts itself back to the checkpoint instead (Rollback.h).
  // (A process restored from a live checkpoint is not the runner: it exits.)
  bool runner = in_place_ && rollback::is_runner();
  const char* refusal = runner ? rollback::refusal() : nullptr;
  if (runner && !refusal && tid_offset_ < 0) refusal = "libc's thread descriptor is not understood";
  bool reuse = runner && !refusal;
  proto::ControlMessage m;
  m.mutable_finished()->set_pid(own_pid());
  m.mutable_finished()->set_exit_status(h->exit_status);
  m.mutable_finished()->set_rolled_back(reuse);
  if (refusal) m.mutable_finished()->set_refusal(refusal);
  if (runner && rollback::unusable()) m.mutable_finished()->set_runners_unusable(true);
  framing::send_message(control_fd, m);
  if (!reuse) real._exit(h->exit_status);
  if (!end_other_threads(t_me)) rollback::abandon("a thread of the execution could not be ended", h->exit_status);
  rollback::roll_back(h->exit_status);
}

}  // namespace ctrl::agent
