// The session's side of live checkpoints (agent/LiveCheckpoint.h; the
// search's bookkeeping is LiveCheckpoints.h). A checkpoint is a process the
// agent forks from an execution at a decision (a paused one, or at its
// plan's checkpoint_at) that waits on its slot of the region's table; the
// session commands it through the slot (a shared futex), never through the
// control channel, and a restored process is then supervised like any
// execution.
#include <fmt/format.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "binary/Backtracer.h"
#include "cli/ExitStatus.h"
#include "session/Session.h"

namespace ctrl {

int Session::take_checkpoint(std::string& error) {
  if (!paused_) throw InternalError("no paused execution to take a checkpoint of");
  shm::Header& h = region_.header();
  h.checkpoint_result = -1;
  h.checkpoint_error[0] = 0;
  // The agent takes it where it waits and pauses again (StepCommand::Checkpoint).
  ExecutionResult r = resume(shm::StepCommand::Checkpoint);
  if (r.end != ExecutionResult::End::Paused)
    throw InternalError("the paused execution ended while it took a checkpoint");
  if (h.checkpoint_result < 0) error = h.checkpoint_error;
  return h.checkpoint_result;
}

ExecutionResult Session::restore_checkpoint(int slot, const ExecutionPlan& plan, uint64_t index,
                                            const std::vector<shm::Event>& events,
                                            const std::vector<shm::Signature>& expected) {
  return restore_checkpoint(slot, plan, index, events.data(), events.size(), expected);
}

ExecutionResult Session::restore_checkpoint(int slot, const ExecutionPlan& plan, uint64_t index,
                                            const shm::Event* events, uint64_t count,
                                            const std::vector<shm::Signature>& expected) {
  shm::Header& h = region_.header();
  if (slot < 0 || slot >= int(shm::kMaxCheckpoints) ||
      h.checkpoints[slot].state.load() != uint32_t(shm::CheckpointState::Taken) || h.checkpoints[slot].pid <= 0)
    throw InternalError(fmt::format("no live checkpoint in slot {}", slot));
  shm::CheckpointSlot& s = h.checkpoints[slot];
  abandon();
  region_.prepare(plan, index, config_.max_steps, expected, config_.show_output, config_.model);
  uint64_t n = std::min<uint64_t>(count, region_.capacity());
  std::copy_n(events, n, region_.view().events);
  h.steps.store(n);
  backtracer_->flush();
  execution_ = index;
  traced_execution_ = false;
  ended_ = false;
  current_pid_ = 0;
  s.restored_pid.store(0);
  s.command.store(uint32_t(shm::CheckpointCommand::Restore), std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&s.command), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
  // The checkpoint process answers with the new process's pid (a shared futex).
  for (;;) {
    int32_t pid = s.restored_pid.load(std::memory_order_acquire);
    if (pid < 0) throw InternalError(fmt::format("the live checkpoint in slot {} could not fork", slot));
    if (pid > 0) {
      current_pid_ = pid;
      break;
    }
    timespec wait{0, 100 * 1000 * 1000};
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&s.restored_pid), FUTEX_WAIT, 0, &wait, nullptr, 0);
    if (should_stop()) {
      ExecutionResult stopped = interrupted_result();
      note_end(stopped);
      return stopped;
    }
    if (kill(s.pid, 0) != 0) throw TargetLost(killed_from_outside(fmt::format("the live checkpoint in slot {}", slot)));
  }
  ExecutionResult r = supervise_execution();
  r.execution = index;
  take_discovered(r);
  note_end(r);
  if (r.end != ExecutionResult::End::Paused) current_pid_ = 0;
  return r;
}

void Session::drop_checkpoint(int slot) {
  if (slot < 0 || slot >= int(shm::kMaxCheckpoints)) return;
  shm::CheckpointSlot& s = region_.header().checkpoints[slot];
  if (s.state.load() != uint32_t(shm::CheckpointState::Taken)) return;
  s.command.store(uint32_t(shm::CheckpointCommand::Drop), std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&s.command), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

}  // namespace ctrl
