// The fork server's life seen from the controller: the process that said
// CheckpointReady is adopted as the fork server, released from ptrace once
// the checkpoint is reached (it forks executions untraced, yet still dies
// with ctrl), asked for one runner per execution that needs a new process,
// and at the end asked to stop, so that it can put the checkpoint's files
// back (FileJournal.h) rather than be killed.
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>

#include <chrono>
#include <optional>

#include "Framing.h"
#include "cli/ExitStatus.h"
#include "control.pb.h"
#include "session/Session.h"

namespace ctrl {

void Session::adopt_fork_server(pid_t pid) {
  if (pid <= 0 || pid == template_pid_) return;
  // Not the launched process: a child it forked (see follow_forked_child).
  template_pid_ = pid;
  adopted_fork_server_ = true;
}

void Session::release_fork_server() {
  // From here the fork server only forks executions: untraced, it costs no
  // ptrace stop per execution (fork event, the child's first stop, SIGCHLD).
  // It still dies with ctrl (PR_SET_PDEATHSIG from its launch survives exec)
  // and its executions die with it (they set it too).
  if (ptrace(PTRACE_INTERRUPT, template_pid_, nullptr, nullptr) != 0) return;
  // Bounded (Tracer::wait_for): a fork server whose main thread is a zombie
  // (killed from outside, or an _exit racing the checkpoint) never stops.
  // A SIGINT or SIGTERM meanwhile is noted and acted on by the caller.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(Tracer::kThreadWaitMs);
  std::optional<Stop> s;
  while (!(s = tracer_.wait_for(template_pid_, 100)) && std::chrono::steady_clock::now() < deadline &&
         ::kill(template_pid_, 0) == 0) {
  }
  if (!s || s->exited()) throw TargetLost(killed_from_outside("the program's fork server"));
  // A signal on its way in is delivered with the detach.
  int signal = s->event() == 0 && s->signal_stop() ? s->signal() : 0;
  if (adopted_fork_server_) {
    // A forked child has no parent-death signal tied to ctrl (its parent
    // may be gone): it stays traced, with EXITKILL only, so that it dies
    // with ctrl yet stops for nothing it does (its executions are not
    // attached; SIGCHLD is read from a signalfd, never delivered).
    ptrace(PTRACE_SETOPTIONS, template_pid_, nullptr, reinterpret_cast<void*>(long(PTRACE_O_EXITKILL)));
    tracer_.resume(template_pid_, signal);
    return;
  }
  ptrace(PTRACE_DETACH, template_pid_, nullptr, reinterpret_cast<void*>(long(signal)));
}

void Session::send_run(uint64_t index) {
  proto::ControlMessage m;
  m.mutable_run()->set_execution(index);
  m.mutable_run()->set_ticket(ticket_);
  m.mutable_run()->set_in_place(config_.in_place);
  m.mutable_run()->set_cpu(config_.in_place ? runner_cpu_ : -1);
  m.mutable_run()->set_spread(config_.in_place && config_.spread);
  if (!framing::send_message(control_fd_, m)) throw TargetLost(killed_from_outside("the program's fork server"));
  ++runner_stats_.runners;
}

void Session::stop_fork_server() {
  // Asked to stop, the fork server removes the links it kept to undo the
  // last execution's file changes (FileJournal.h), or after a bug undoes
  // them, so that a replay starts from the checkpoint's files, and after
  // an execution that stopped half-way, so that no half-written file stays
  // (files_left); killed, it could do neither.
  if (control_fd_ < 0 || current_pid_ == template_pid_) return;
  proto::ControlMessage m;
  m.mutable_stop()->set_restore_files(files_left().checkpoint);
  if (!framing::send_message(control_fd_, m)) return;
  // Its end of the channel closes when it (and its spare, which dies with
  // it) exits; what it still says meanwhile is of no interest.
  for (int i = 0; i < 100; ++i) {
    pollfd pfd{control_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 10) <= 0) continue;
    if (pfd.revents & (POLLHUP | POLLERR)) return;
    char buf[256];
    if (recv(control_fd_, buf, sizeof buf, MSG_DONTWAIT) == 0) return;
  }
}

}  // namespace ctrl
