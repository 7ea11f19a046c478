// Supervising a running execution. Executions run untraced: the session
// waits on the control channel (the agent's Paused, Attention and Finished,
// the fork server's Started and Ended) and on ptrace stops, which after the
// checkpoint come only from a fork server that stays traced (its new
// executions, auto-attached, are let go) and from threads the session
// seized (to inspect a paused execution, or to capture a bug). Between
// messages it checks for SIGINT, SIGTERM, the time limit and hangs; it
// never sits on the target's hot path. kill_execution ends the current
// execution and waits until it is gone, so that none outlives its
// supervision.
#include <fmt/format.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include "binary/Backtracer.h"
#include "binary/Symbolizer.h"
#include "cli/ExitStatus.h"
#include "control.pb.h"
#include "reports/SignalDescription.h"
#include "session/HangWatch.h"
#include "session/Session.h"

namespace ctrl {

namespace {

pid_t tgid_of(pid_t tid) {
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Tgid:", 0) == 0) return pid_t(std::stol(line.substr(5)));
  return 0;
}

pid_t ppid_of(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("PPid:", 0) == 0) return pid_t(std::stol(line.substr(5)));
  return 0;
}

}  // namespace

ExecutionResult Session::supervise_execution() {
  const shm::Header& h = region_.header();
  HangWatch watch(config_.hang_timeout);
  // Stepping: when a SIGINT asked the execution to pause early.
  std::optional<std::chrono::steady_clock::time_point> pause_asked;
  constexpr auto kPauseGrace = std::chrono::milliseconds(300);

  for (;;) {
    auto stop = tracer_.wait(pause_asked ? 20 : 100, control_fd_);
    if (stop) {
      handle_ptrace_stop(*stop);
      continue;
    }
    // The first read needs no poll when the wait ended on the channel (a
    // system call per message saved).
    bool ready = tracer_.also_fd_ready();
    while (auto m = read_message(std::exchange(ready, false))) {
      // Earlier executions may still be exiting: their ExecutionEnded comes
      // late and is not this execution's. This one's own messages can come
      // before the fork server's ExecutionStarted for it.
      if (m->has_started()) {
        uint32_t ticket = uint32_t(m->started().execution());
        if (ticket == ticket_ && current_pid_ == 0) current_pid_ = m->started().pid();
        if (ticket > ticket_) spares_.emplace_back(ticket, m->started().pid());
      } else if (m->has_paused()) {
        if (current_pid_ == 0) current_pid_ = m->paused().pid();
        paused_ = true;
        ExecutionResult r;
        r.end = ExecutionResult::End::Paused;
        r.steps = std::min(h.steps.load(), region_.capacity());
        if (copy_paused_events_) take_events(r, r.steps);
        return r;
      } else if (m->has_attention()) {
        if (current_pid_ == 0) current_pid_ = m->attention().pid();
        attention_rolled_back_ = m->attention().rolled_back();
        return outcome_from_agent(h.outcome_tid);
      } else if (m->has_finished()) {
        if (current_pid_ == 0) current_pid_ = m->finished().pid();
        ended_ = true;
        if (m->finished().rolled_back()) {
          runner_pid_ = m->finished().pid();
          ++runner_stats_.rolled_back;
        } else if (!m->finished().refusal().empty()) {
          ++runner_stats_.refusals[m->finished().refusal()];
        }
        // From now on a process per execution, forked in advance.
        if (m->finished().runners_unusable()) config_.in_place = false;
        ExecutionResult r;
        take_events(r, std::min(h.steps.load(), region_.capacity()));
        take_pending(h, r);
        r.exit_status = m->finished().exit_status();
        judge_exit(r);
        return r;
      } else if (m->has_rollback_failed()) {
        // Counted as rolled back when it said ExecutionFinished: it was not.
        if (runner_stats_.rolled_back) --runner_stats_.rolled_back;
        ++runner_stats_.refusals["the rollback failed: " + m->rollback_failed().reason()];
      } else if (m->has_ended() && reused_runner_ && m->ended().pid() == current_pid_ &&
                 h.started.load(std::memory_order_acquire) == 0) {
        // The runner could not put itself back after the previous execution
        // (agent/Rollback.h, RollbackFailed said why): this one gets a new
        // runner. (One killed from outside meanwhile: read_message threw.)
        reused_runner_ = false;
        current_pid_ = 0;
        send_run(execution_);
      } else if (m->has_ended() && current_pid_ != 0 && m->ended().pid() == current_pid_) {
        ended_ = true;
        end_status_ = m->ended().status();
        ExecutionResult r;
        take_events(r, std::min(h.steps.load(), region_.capacity()));
        // Only the kernel and other processes send SIGKILL (ctrl's own kills
        // do not come here): not the program's bug.
        if (WIFSIGNALED(end_status_) && WTERMSIG(end_status_) == SIGKILL)
          throw TargetLost(killed_from_outside(fmt::format("execution {}", execution_ + 1)));
        if (WIFSIGNALED(end_status_)) {
          // A fatal signal the agent did not see (its handler was bypassed).
          r.end = ExecutionResult::End::Bug;
          r.kind = BugKind::Crash;
          r.facts.signal = WTERMSIG(end_status_);
          r.message = fmt::format("killed by {}", signal_name(WTERMSIG(end_status_)));
        } else {
          r.exit_status = WEXITSTATUS(end_status_);
          take_pending(h, r);
          judge_exit(r);
        }
        return r;
      }
    }
    // Stepping: a SIGINT makes the execution pause at its next decision
    // (pause_at lowered: a goto of 300,000 steps went on to its end), the
    // session looks at the signal itself (take_signal) and goes on from
    // there. A SIGTERM ends the session anyway, and an execution that does
    // not get to a decision soon (a long computation) is not waited for:
    // both end as interrupted at once. A hang still ends it below.
    if (!defer_interrupts_) {
      if (should_stop()) return interrupted_result();
    } else if (tracer_.poll_signals()) {
      auto now = std::chrono::steady_clock::now();
      if (!pause_asked) {
        pause_asked = now;
        std::atomic_ref<uint64_t>(region_.header().pause_at).store(0, std::memory_order_relaxed);
      }
      // A checkpoint being taken pauses again right after its fork: waited for.
      bool checkpointing = region_.header().command == shm::StepCommand::Checkpoint;
      if (!checkpointing && (tracer_.interrupted_by() != SIGINT || now - *pause_asked >= kPauseGrace))
        return interrupted_result();
    }
    if (current_pid_ <= 0) continue;
    // The thread holding the token is the one that must make progress.
    uint32_t current = h.current;
    pid_t tid = current < shm::kMaxThreads ? h.threads[current].tid : 0;
    // (Moved by a user-level hand-off: the kernel thread that runs it.)
    if (h.current_tid > 0) tid = h.current_tid;
    if (tid <= 0) tid = current_pid_;
    if (auto hang = watch.check(current_pid_, current, tid, h.steps.load())) return hang_result(*hang, current);
  }
}

void Session::handle_ptrace_stop(const Stop& s) {
  if (s.exited()) {
    if (s.tid == template_pid_ && current_pid_ != template_pid_) {
      template_pid_ = 0;
      throw TargetLost(killed_from_outside("the program's fork server"));
    }
    return;
  }
  int event = s.event();
  if (event == PTRACE_EVENT_STOP && s.tid != template_pid_ && !is_execution_thread(s.tid)) {
    pid_t tg = tgid_of(s.tid);
    if (tg == s.tid && ppid_of(tg) == template_pid_ && template_pid_ != current_pid_) {
      // A new execution, auto-attached by TRACEFORK: let it go untraced.
      ptrace(PTRACE_DETACH, s.tid, nullptr, nullptr);
      if (current_pid_ == 0) current_pid_ = tg;
      return;
    }
  }
  if (event != 0 || !s.signal_stop()) {
    tracer_.resume(s.tid);
    return;
  }
  tracer_.resume(s.tid, s.signal());
}

void Session::resume_other(const Stop& s) {
  if (s.exited()) return;
  int sig = 0;
  if (s.signal_stop()) sig = s.signal();
  tracer_.resume(s.tid, sig);
}

bool Session::is_execution_thread(pid_t tid) const { return current_pid_ > 0 && tgid_of(tid) == current_pid_; }

void Session::seize_execution() {
  if (traced_execution_) return;
  // Attach to every thread; threads cannot appear meanwhile: all are parked.
  for (pid_t t : threads_of(current_pid_)) {
    if (ptrace(PTRACE_SEIZE, t, nullptr, PTRACE_O_EXITKILL) != 0) continue;
  }
  traced_execution_ = true;
}

void Session::kill_execution() {
  pid_t pid = current_pid_;
  if (pid <= 0 || ended_) return;
  killed_here_.insert(pid);
  kill(pid, SIGKILL);
  if (pid == template_pid_) {
    // The template is our child and traced: reap it here.
    tracer_.reap_killed(pid);
    template_pid_ = 0;
    ended_ = true;
    return;
  }
  // An execution is the fork server's child: the fork server reaps it and
  // says so. Meanwhile the exits of threads we seized come to us. Bounded:
  // an end that never comes (a process that is not ours, or a zombie whose
  // threads another thread traces) must end ctrl with an error, not hang it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kKillWaitMs);
  while (!ended_) {
    if (std::chrono::steady_clock::now() >= deadline)
      throw InternalError(
          fmt::format("the killed execution (pid {}) did not end within {} s", pid, kKillWaitMs / 1000));
    // Reaped already (its ExecutionEnded read by an earlier loop that was
    // not waiting for it), or dead with only its parent's wait missing (a
    // child the program forked before its threads, whose parent exited, is
    // reaped by init, late): nothing is left to wait for.
    if ((::kill(pid, 0) != 0 && errno == ESRCH) || is_zombie(pid)) {
      ended_ = true;
      break;
    }
    auto stop = tracer_.wait(100, control_fd_);
    if (stop) {
      if (!stop->exited() && tgid_of(stop->tid) != pid)
        resume_other(*stop);
      else if (stop->exited() && stop->tid == template_pid_)
        throw TargetLost(killed_from_outside("the program's fork server"));
      continue;
    }
    while (auto m = read_message()) {
      if (m->has_ended() && m->ended().pid() == pid) {
        ended_ = true;
        end_status_ = m->ended().status();
      }
      // A spare forked meanwhile: the next execution needs its pid (one that
      // ends by a raw exit says nothing but the fork server's ExecutionEnded).
      if (m->has_started() && uint32_t(m->started().execution()) > ticket_)
        spares_.emplace_back(uint32_t(m->started().execution()), m->started().pid());
    }
  }
}

void Session::inspect() {
  if (!paused_ || !inspected_.empty()) return;
  // Bounded per thread (Tracer::wait_for): a thread that does not stop is
  // left out of the inspection.
  for (pid_t t : threads_of(current_pid_)) {
    if (ptrace(PTRACE_SEIZE, t, nullptr, PTRACE_O_EXITKILL) != 0) continue;
    if (!tracer_.interrupt(t)) continue;
    auto s = tracer_.wait_for(t);
    if (!s || s->exited()) continue;
    inspected_.push_back(t);
  }
  backtracer_->flush();
  symbolizer().snapshot_regions(current_pid_);
}

void Session::release_inspection() {
  // A thread interrupted in a futex wait restarts it when detached.
  for (pid_t t : inspected_) ptrace(PTRACE_DETACH, t, nullptr, nullptr);
  inspected_.clear();
}

}  // namespace ctrl
