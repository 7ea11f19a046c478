// The stepping session's core (DebugSession.h): its construction, the
// known path (the schedule and events so far, and the recording ahead),
// taking in where each execution stopped, and its results (save, explore).
// Moving is in DebugMoves.cpp, reading the paused execution in
// DebugInspection.cpp, breakpoints in BreakpointSet and checkpoints in
// StepCheckpoints.
#include "debug/DebugSession.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <utility>

#include "binary/Symbolizer.h"
#include "cli/ExitStatus.h"
#include "debug/DebugSessionImpl.h"
#include "exploration/Explorer.h"
#include "reports/Report.h"
#include "reports/SignalDescription.h"
#include "reports/TraceFile.h"
#include "session/Session.h"
#include "session/SharedMemory.h"

namespace ctrl {

DebugSession::Impl::Impl(Session& s, std::optional<proto::Trace> rec, proto::Trace tmpl)
    : session(s), recording(std::move(rec)), trace_template(std::move(tmpl)), breakpoints(s), checkpoints(s) {
  on_recording = recording.has_value();
}

std::optional<uint32_t> DebugSession::Impl::recorded(uint64_t step) const {
  if (!on_recording || !recording || step >= uint64_t(recording->decisions_size())) return std::nullopt;
  return recording->decisions(int(step));
}

std::optional<shm::Signature> DebugSession::Impl::signature(uint64_t step) const {
  if (step < events.size() && step < path.size()) {
    const shm::Event& e = events[step];
    return shm::Signature{e.thread, e.kind, 0, e.site, e.addr};
  }
  if (on_recording && recording && step < uint64_t(recording->signatures_size())) {
    const auto& s = recording->signatures(int(step));
    return shm::Signature{s.thread(), uint16_t(s.kind()), 0, s.site(), s.addr()};
  }
  return std::nullopt;
}

std::optional<uint32_t> DebugSession::Impl::known_decision(uint64_t step) const {
  if (step < path.size()) return path[step];
  return recorded(step);
}

uint64_t DebugSession::Impl::known_length() const {
  uint64_t n = path.size();
  if (on_recording && recording) n = std::max<uint64_t>(n, uint64_t(recording->decisions_size()));
  return n;
}

std::vector<uint32_t> DebugSession::Impl::decisions_to(uint64_t target) const {
  std::vector<uint32_t> out;
  for (uint64_t k = 0; k < target; ++k) {
    auto d = known_decision(k);
    if (!d) break;
    out.push_back(*d);
  }
  return out;
}

StopInfo DebugSession::Impl::settle(StopInfo stop) {
  int sig = std::exchange(pending_signal, 0);
  if (sig == SIGTERM && stop.reason != StopReason::Interrupted) {
    stop.reason = StopReason::Interrupted;
    stop.message = "interrupted by SIGTERM: the stepping session ends";
  }
  return stop;
}

StopInfo DebugSession::Impl::absorb(ExecutionResult r, uint64_t from) {
  if (int sig = session.take_signal(); sig && pending_signal != SIGTERM) pending_signal = sig;
  // A pause leaves the events in the region (only the new ones are read).
  bool paused = r.end == ExecutionResult::End::Paused;
  uint64_t steps = paused ? r.steps : r.events.size();
  const shm::Event* logged = paused ? session.region().view().events : r.events.data();
  if (r.end == ExecutionResult::End::Interrupted) {
    // The execution is gone, and every later supervision would stop at
    // once too: the session ends.
    live = false;
    ended = false;
    StopInfo stop;
    stop.reason = StopReason::Interrupted;
    // take_signal above took the signal from the session: its name is ours.
    stop.message = fmt::format("interrupted by {}: the stepping session ends",
                               pending_signal ? signal_name(pending_signal) : session.stop_reason());
    return stop;
  }
  // Following a trace, a divergence is the trace's (bad input, as in `ctrl
  // replay`: Replayer.h); off it, the schedule is ctrl's own.
  if (r.end == ExecutionResult::End::Diverged && recording && on_recording)
    throw UsageError(
        fmt::format("the replay diverged from the trace: {}: the program did not do what the trace says "
                    "(an edited trace, or files, environment or input other than the recording's)",
                    r.message));
  if (r.end == ExecutionResult::End::Diverged)
    throw InternalError(fmt::format("the execution diverged from the schedule: {}", r.message));
  if (r.end == ExecutionResult::End::Unsupported) throw UsageError(r.message);
  for (uint64_t k = from; k < steps; ++k) {
    const shm::Event& e = logged[k];
    if (k < events.size() && k < path.size() && path[k] == e.thread) {
      events[k] = e;
      continue;
    }
    // A new step: the known future from here on is another one.
    path.resize(k);
    events.resize(k);
    path.push_back(e.thread);
    events.push_back(e);
    if (on_recording && (!recorded(k) || *recorded(k) != e.thread)) on_recording = false;
  }
  position = steps;
  StopInfo stop;
  if (r.end == ExecutionResult::End::Paused) {
    live = true;
    ended = false;
    if (header().ask_enabled != 0) return stop;
    // No thread can go on: a deadlock, shown while every thread still
    // waits where it is.
    ended = true;
    end = ExecutionResult{};
    end.end = ExecutionResult::End::Bug;
    end.kind = BugKind::Deadlock;
    end.thread = header().current;
    end.events.assign(events.begin(), events.begin() + long(position));
    std::string msg = "no thread can proceed:";
    for (const ThreadView& v : owner->threads())
      if (v.state != ThreadView::State::Finished) {
        msg += fmt::format(" T{} {};", v.index, v.description);
        const shm::ThreadSlot& slot = header().threads[std::min(v.index, shm::kMaxThreads - 1)];
        end.facts.waits.push_back(
            BugWait{v.index, slot.pending_kind, slot.pending_addr,
                    slot.waits_for_thread < shm::kMaxThreads ? slot.waits_for_thread : UINT32_MAX});
      }
    msg.pop_back();
    end.message = msg;
    end.site = header().threads[end.thread < shm::kMaxThreads ? end.thread : 0].pending_site;
    stop.reason = StopReason::Bug;
    stop.thread = end.thread;
    stop.message = "deadlock: " + msg;
    return stop;
  }
  live = false;
  ended = true;
  end = std::move(r);
  if (end.end == ExecutionResult::End::Bug) {
    stop.reason = StopReason::Bug;
    stop.thread = end.thread;
    stop.message = fmt::format("{}: {}", end.kind_name(), end.message);
  } else if (end.end == ExecutionResult::End::StepBound) {
    stop.reason = StopReason::Exited;
    stop.message = fmt::format("the execution reached --max-steps ({} steps)", steps);
  } else {
    stop.reason = StopReason::Exited;
    stop.message = fmt::format("the program exited with status {}", end.exit_status);
  }
  return stop;
}

void DebugSession::Impl::require_running(const char* what) {
  if (ended) throw UsageError(fmt::format("the execution has ended: cannot {} (use back or goto)", what));
  if (!live) throw UsageError("no execution is paused");
}

void DebugSession::Impl::require_process(const char* what) {
  if (!live)
    throw UsageError(fmt::format("cannot {}: the execution's process is gone ({}); go back to inspect it", what,
                                 ended ? "it ended" : "none is paused"));
}

DebugSession::DebugSession(Session& session, std::optional<proto::Trace> recording, proto::Trace trace_template)
    : impl_(std::make_unique<Impl>(session, std::move(recording), std::move(trace_template))) {
  impl_->owner = this;
  session.set_copy_paused_events(false);
  session.set_defer_interrupts(true);
}

DebugSession::~DebugSession() {
  impl_->session.set_defer_interrupts(false);
  // A destructor must not throw (std::terminate: ctrl aborted when the
  // fork server had been killed from outside, found by tests/fuzz); the
  // error that ends the session is already on its way or was said.
  try {
    if (impl_->live) impl_->session.abandon();
  } catch (const std::exception&) {
  }
  impl_->checkpoints.clear();
}

StopInfo DebugSession::start() {
  Impl& s = *impl_;
  if (auto early = s.session.start()) {
    // Stopped during start-up (SIGINT, SIGTERM): the session ends at once.
    if (early->end == ExecutionResult::End::Interrupted) return s.absorb(std::move(*early), 0);
    // The program ended before its first thread: nothing to step.
    early->end = early->end == ExecutionResult::End::Bug ? early->end : ExecutionResult::End::Complete;
    return s.absorb(std::move(*early), 0);
  }
  StopInfo stop = s.run_to(0);
  // A Ctrl-C while the first execution came up ends the session too, as in
  // the rest of start-up (StopSignals.h).
  if (stop.reason == StopReason::Step && s.pending_signal) {
    stop.reason = StopReason::Interrupted;
    stop.message = fmt::format("interrupted by {}: the stepping session ends", signal_name(s.pending_signal));
    s.pending_signal = 0;
  }
  return stop;
}

uint64_t DebugSession::position() const { return impl_->position; }
const std::vector<uint32_t>& DebugSession::schedule() const { return impl_->path; }
const std::vector<shm::Event>& DebugSession::events() const { return impl_->events; }
bool DebugSession::following_recording() const { return impl_->on_recording; }
std::optional<uint32_t> DebugSession::recorded_next() const { return impl_->recorded(impl_->position); }
uint64_t DebugSession::enabled() const { return impl_->live ? impl_->session.region().header().ask_enabled : 0; }
bool DebugSession::ended() const { return impl_->ended; }
const ExecutionResult* DebugSession::bug() const {
  return impl_->ended && impl_->end.end == ExecutionResult::End::Bug ? &impl_->end : nullptr;
}
pid_t DebugSession::pid() const { return impl_->live ? impl_->session.execution_pid() : 0; }
Symbolizer& DebugSession::symbolizer() { return impl_->session.symbolizer(); }
const std::string& DebugSession::program() const { return impl_->session.config().program; }
int DebugSession::signal_fd() const { return impl_->session.signal_fd(); }
int DebugSession::take_signal() { return impl_->session.take_signal(); }

std::string DebugSession::describe_step(uint64_t step) const {
  if (step >= impl_->events.size()) return "";
  return fmt::format("{:>5}  {}", step + 1, describe_event(impl_->events[step], impl_->session.symbolizer()));
}

const Breakpoint& DebugSession::add_breakpoint(const std::string& location) { return impl_->breakpoints.add(location); }
const Breakpoint& DebugSession::add_address_breakpoint(uint64_t address) {
  return impl_->breakpoints.add_address(address);
}
const Breakpoint& DebugSession::add_watch(const std::string& target) { return impl_->breakpoints.add_watch(target); }
const Breakpoint& DebugSession::add_watch(uint64_t address, uint64_t size, Breakpoint::Access access,
                                          std::string spec) {
  return impl_->breakpoints.add_watch(address, size, access, std::move(spec));
}
void DebugSession::set_interrupt_check(std::function<bool()> check) { impl_->interrupt_check = std::move(check); }
bool DebugSession::remove_breakpoint(int number) { return impl_->breakpoints.remove(number); }
void DebugSession::remove_address_breakpoint(uint64_t address) { impl_->breakpoints.remove_address(address); }
void DebugSession::clear_breakpoints() { impl_->breakpoints.clear(); }
const std::vector<Breakpoint>& DebugSession::breakpoints() const { return impl_->breakpoints.all(); }

int DebugSession::checkpoint() {
  Impl& s = *impl_;
  if (!s.live) throw UsageError("no paused execution to checkpoint (go back to a step first)");
  return s.checkpoints.take_numbered(s.events, s.position);
}

std::vector<CheckpointInfo> DebugSession::checkpoints() const { return impl_->checkpoints.list(); }

void DebugSession::set_checkpoints(bool enabled) { impl_->checkpoints.set_enabled(enabled); }

void DebugSession::save(const std::string& path) {
  Impl& s = *impl_;
  ExecutionResult r;
  if (s.ended) {
    r = s.end;
  } else {
    // Not a bug: the schedule so far, which a replay follows and then
    // finishes by the sticky policy (Replayer).
    r.end = ExecutionResult::End::Complete;
    r.events.assign(s.events.begin(), s.events.begin() + long(s.position));
  }
  r.execution = s.execution;
  try {
    save_new_trace(path, make_trace(s.trace_template, r));
  } catch (const UsageError& e) {
    // A file the user named that cannot be written (a missing directory, no
    // permission, one that exists) is the user's to fix: one error line, and
    // the session goes on (the prompt, --batch and `monitor save` come here).
    throw UsageError(fmt::format("save: {}", e.what()));
  }
}

ExplorationReport DebugSession::explore(const ExploreOptions& given) {
  Impl& s = *impl_;
  if (!s.live && !s.ended) throw UsageError("no execution is paused");
  ExploreOptions options = given;
  uint64_t here = s.position;
  options.prefix.assign(s.path.begin(), s.path.begin() + long(here));
  options.prefix_signatures.clear();
  for (uint64_t k = 0; k < here; ++k) {
    const shm::Event& e = s.events[k];
    options.prefix_signatures.push_back(shm::Signature{e.thread, e.kind, 0, e.site, e.addr});
  }
  options.session_started = true;
  options.first_execution = s.execution + 1;
  // The session runs one execution at a time: the paused one goes, and is
  // made again at the same step afterwards.
  if (s.live) s.session.abandon();
  s.live = false;
  bool was_ended = s.ended;
  ExecutionResult end = s.end;
  ExplorationReport report;
  {
    // The exploration stops on Ctrl-C as ctrl attach does.
    s.session.set_defer_interrupts(false);
    Explorer explorer(s.session, options, s.trace_template);
    report = explorer.run();
    s.session.set_defer_interrupts(true);
  }
  s.execution = options.first_execution + report.total;
  if (was_ended && here == s.events.size() && end.end != ExecutionResult::End::Bug) {
    s.ended = true;
    s.end = std::move(end);
  } else {
    s.run_to(here);
  }
  return report;
}

}  // namespace ctrl
