// The session's core: its life (built once per target, and at its end it
// leaves no process of the target behind) and the calls that ask for an
// execution (run, resume, abandon) or read the control channel. The rest of
// Session's members are defined by concept: SessionStartup.cpp (launch to
// the checkpoint), ForkServerLifecycle.cpp, RunnerPlacement.cpp,
// SessionCheckpoints.cpp (live checkpoints), ExecutionSupervision.cpp and
// ExecutionOutcomes.cpp.
#include "session/Session.h"

#include <fmt/format.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "Framing.h"
#include "binary/Backtracer.h"
#include "binary/Symbolizer.h"
#include "cli/ExitStatus.h"
#include "control.pb.h"
#include "exploration/SharedSet.h"
#include "reports/SignalDescription.h"

namespace ctrl {

Session::Session(SessionConfig config)
    : config_(std::move(config)), region_(config_.max_steps + 1), backtracer_(std::make_unique<Backtracer>()) {
  write_shared(region_.header(), config_.own_memory, config_.shared);
}

void Session::set_shared(const std::vector<shm::Header::Range>& shared, bool own_memory) {
  config_.shared = shared;
  config_.own_memory = own_memory;
  write_shared(region_.header(), config_.own_memory, config_.shared);
}

void Session::take_discovered(ExecutionResult& r) const {
  const shm::Header& h = region_.header();
  uint32_t n = std::min(h.ndiscovered, shm::kMaxDiscovered);
  r.discovered.assign(h.discovered, h.discovered + n);
  r.discovered_more = h.discovered_overflow != 0;
}

Session::~Session() {
  if (template_pid_ > 0) {
    release_inspection();
    if (current_pid_ > 0 && current_pid_ != template_pid_) {
      killed_here_.insert(current_pid_);
      kill(current_pid_, SIGKILL);
    }
    stop_fork_server();
    kill(template_pid_, SIGKILL);
    // Reap what is left so nothing outlives the session (bounded: EXITKILL
    // ends whatever a lost wait leaves when ctrl exits).
    tracer_.reap_killed(template_pid_);
  }
  if (control_fd_ >= 0) close(control_fd_);
}

Symbolizer& Session::symbolizer() {
  if (!symbolizer_) symbolizer_ = std::make_unique<Symbolizer>(template_pid_);
  return *symbolizer_;
}

ExecutionResult Session::run(const ExecutionPlan& plan, uint64_t index, const std::vector<shm::Signature>& expected) {
  region_.prepare(plan, index, config_.max_steps, expected, config_.show_output, config_.model);
  backtracer_->flush();
  execution_ = index;
  traced_execution_ = false;
  ended_ = false;
  // Release the next spare (forked in advance; see control.proto). Its
  // ExecutionStarted may come later, even after its own messages.
  auto& released = region_.header().released;
  ticket_ = released.fetch_add(1, std::memory_order_release) + 1;
  current_pid_ = 0;
  while (!spares_.empty() && spares_.front().first < ticket_) spares_.pop_front();
  if (!spares_.empty() && spares_.front().first == ticket_) current_pid_ = spares_.front().second;
  // A runner that rolled back waits for exactly this ticket: no message.
  reused_runner_ = config_.in_place && runner_pid_ > 0;
  if (reused_runner_) current_pid_ = runner_pid_;
  runner_pid_ = 0;
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&released), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
  if (!reused_runner_) send_run(index);
  ExecutionResult r = supervise_execution();
  r.execution = index;
  take_discovered(r);
  note_end(r);
  if (r.end != ExecutionResult::End::Paused) current_pid_ = 0;
  return r;
}

ExecutionResult Session::resume(shm::StepCommand command) {
  if (!paused_) throw InternalError("no paused execution to resume");
  release_inspection();
  paused_ = false;
  shm::Header& h = region_.header();
  h.command = command;
  h.reply.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&h.reply), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
  ExecutionResult r = supervise_execution();
  r.execution = execution_;
  take_discovered(r);
  note_end(r);
  if (r.end != ExecutionResult::End::Paused) current_pid_ = 0;
  return r;
}

void Session::abandon() {
  if (!paused_ || current_pid_ <= 0) return;
  paused_ = false;
  // Threads seized for inspection die with the process; their exits are
  // reaped by kill_execution's wait loop.
  inspected_.clear();
  kill_execution();
  current_pid_ = 0;
}

std::optional<proto::ControlMessage> Session::read_message(bool known_ready) {
  pollfd pfd{control_fd_, POLLIN, 0};
  if (!known_ready && (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & (POLLIN | POLLHUP)))) return std::nullopt;
  proto::ControlMessage m;
  if (!framing::receive_message(control_fd_, m)) {
    if (template_pid_ == 0 || current_pid_ == template_pid_) return std::nullopt;  // the template is exiting
    throw TargetLost(killed_from_outside("the program's fork server"));
  }
  if (m.has_error()) throw InternalError("agent: " + m.error().message());
  if (m.has_notice()) {
    fmt::print(stderr, "ctrl: warning: {}\n", m.notice().text());
    return read_message();
  }
  if (m.has_ended()) {
    pid_t pid = m.ended().pid();
    int status = m.ended().status();
    bool ours = killed_here_.erase(pid) > 0;
    if (!ours && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      throw TargetLost(killed_from_outside(process_name(pid)));
  }
  return m;
}

std::string Session::process_name(pid_t pid) const {
  if (pid == current_pid_ || (current_pid_ == 0 && pid == runner_pid_))
    return fmt::format("execution {}", execution_ + 1);
  if (pid == runner_pid_) return fmt::format("the program's runner (pid {}, between executions)", pid);
  const shm::Header& h = *region_.view().header;
  for (uint32_t slot = 0; slot < shm::kMaxCheckpoints; ++slot)
    if (h.checkpoints[slot].pid == pid) return fmt::format("the live checkpoint in slot {}", slot);
  for (const auto& [ticket, spare] : spares_)
    if (spare == pid) return fmt::format("a process of the program forked for a next execution (pid {})", pid);
  return fmt::format("a process of the program (pid {})", pid);
}

bool Session::should_stop() {
  return tracer_.poll_signals() || (deadline_ && std::chrono::steady_clock::now() >= *deadline_);
}

std::string Session::stop_reason() const {
  if (tracer_.interrupted()) return signal_name(tracer_.interrupted_by());
  return "the time limit";
}

void Session::note_end(const ExecutionResult& r) {
  ran_execution_ = true;
  stopped_half_way_ = r.end == ExecutionResult::End::Interrupted;
  switch (r.end) {
    case ExecutionResult::End::Complete:
    case ExecutionResult::End::Bug:
      half_way_.clear();
      break;
    case ExecutionResult::End::StepBound:
      half_way_ = fmt::format("was cut by --max-steps {}", config_.max_steps);
      break;
    case ExecutionResult::End::Blocked:
      half_way_ = "was abandoned (blocked)";
      break;
    case ExecutionResult::End::Interrupted:
      half_way_ = fmt::format("was stopped half-way by {}", stop_reason());
      break;
    case ExecutionResult::End::Paused:
      half_way_ = "was left paused";
      break;
    case ExecutionResult::End::Diverged:
    case ExecutionResult::End::Unsupported:
      half_way_ = "did not run to its end";
      break;
  }
}

Session::FilesLeft Session::files_left() const {
  FilesLeft f;
  f.started = ran_execution_;
  f.execution = execution_;
  f.half_way = half_way_;
  f.stopped = stopped_half_way_;
  if (!ran_execution_) return f;
  const shm::Header& h = *region_.view().header;
  f.touched = h.files_changed.load(std::memory_order_acquire) != 0 || h.files_written_at_checkpoint != 0;
  if (found_bug_) {
    f.checkpoint = true;
    f.why = "a bug was found";
  } else if (!half_way_.empty() && config_.files_back_after_half_way) {
    f.checkpoint = true;
    f.why = fmt::format("execution {} {}", execution_ + 1, half_way_);
  }
  return f;
}

bool Session::initialised_unseen(uint64_t addr) const {
  const shm::Header& h = *region_.view().header;
  for (uint32_t t = 0; t < std::min(h.nthreads, shm::kMaxThreads); t++)
    if (addr >= h.threads[t].tls_lo && addr < h.threads[t].tls_hi) return true;
  if (h.initialised_overflow) return true;
  uint32_t n = std::min(h.ninitialised, shm::kMaxInitialised);
  for (uint32_t k = 0; k < n; k++)
    if (addr >= h.initialised[k].addr && addr - h.initialised[k].addr < h.initialised[k].size) return true;
  return false;
}

}  // namespace ctrl
