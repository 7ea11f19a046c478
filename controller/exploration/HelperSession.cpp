#include "exploration/HelperSession.h"

#include <fmt/format.h>

#include <signal.h>

#include <algorithm>
#include <cstring>

#include "Operation.h"
#include "session/Tracer.h"

namespace ctrl {

namespace {

// The same schedule of the same operations. Values are left out: what a
// program reads of its threads' stack addresses (a pthread_t) can differ
// between processes forked from one fork server at different times (its own
// mappings change them), so they differ between the executions of one
// session too; what the strategies decide on is in the rest (the flags say
// whether a write changed memory, a compare-exchange failed).
bool same_events(const std::vector<shm::Event>& a, const std::vector<shm::Event>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    shm::Event x = a[k], y = b[k];
    x.value_read = y.value_read = 0;
    x.value_written = y.value_written = 0;
    if (std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

}  // namespace

bool touches_outside(const ExecutionResult& r, bool files_changed) {
  if (files_changed) return true;
  return std::any_of(r.events.begin(), r.events.end(), [](const shm::Event& e) {
    auto kind = OpKind(e.kind);
    return kind == OpKind::FdWait || kind == OpKind::ChildWait;
  });
}

bool handed_over(ExecutionResult::End end) {
  return end == ExecutionResult::End::Complete || end == ExecutionResult::End::Blocked ||
         end == ExecutionResult::End::StepBound;
}

HelperStart start_helper_session(const SessionConfig& explorer, size_t k,
                                 std::chrono::steady_clock::time_point deadline,
                                 const std::vector<shm::Signature>& expected, const ExecutionPlan& first,
                                 const ExecutionResult& first_result) {
  HelperStart out;
  // Each helper session and its runner on a CPU of their own, after the
  // explorer's (runner_cpu: the explorer session's CPU).
  SessionConfig config = explorer;
  config.files_back_after_half_way = false;  // the explorer's session decides
  const std::vector<int>& cpus = Session::usable_cpus();
  if (config.runner_cpu >= 0 && !cpus.empty()) {
    size_t at = 0;
    while (at < cpus.size() && cpus[at] != config.runner_cpu) ++at;
    config.runner_cpu = cpus[(at + k + 1) % cpus.size()];
  }
  auto session = std::make_unique<Session>(config);
  if (deadline != std::chrono::steady_clock::time_point::max()) session->set_deadline(deadline);
  if (session->start()) {
    out.failed = fmt::format("helper {} ended before its first thread", k + 1);
    return out;
  }
  // The same plan must give the same execution here as in the explorer's
  // session, or no result of this one may stand for it.
  ExecutionResult check = session->run(first, 0, expected);
  if (check.end == ExecutionResult::End::Interrupted) {
    out.interrupted = true;
    return out;
  }
  bool outside = touches_outside(check, session->region().header().files_changed.load() != 0);
  if (outside || check.end != first_result.end || !same_events(check.events, first_result.events)) {
    out.failed = fmt::format("helper {} did not repeat the first execution", k + 1);
    return out;
  }
  out.session = std::move(session);
  return out;
}

void start_helper_threads(std::vector<std::thread>& threads, size_t n, const std::function<void(size_t)>& body) {
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, Tracer::kStopSignal);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  for (size_t k = 0; k < n; ++k) threads.emplace_back([body, k] { body(k); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void join_helper_threads(std::vector<std::thread>& threads) {
  for (auto& t : threads) pthread_kill(t.native_handle(), Tracer::kStopSignal);
  for (auto& t : threads) t.join();
  threads.clear();
}

}  // namespace ctrl
