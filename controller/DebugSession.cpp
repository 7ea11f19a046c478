#include "DebugSession.h"

#include <sys/uio.h>
#include <ucontext.h>

#include <cstddef>

#include <algorithm>
#include <csignal>
#include <utility>
#include <charconv>

#include <fmt/format.h>

#include "Backtracer.h"
#include "ExitStatus.h"
#include "Explorer.h"
#include "LiveCheckpoints.h"
#include "NumberText.h"
#include "ProgramFrames.h"
#include "Report.h"
#include "Session.h"
#include "SharedMemory.h"
#include "Symbolizer.h"
#include "TraceFile.h"

namespace ctrl {

namespace {

constexpr uint64_t kNoSignature = UINT64_MAX;

// Instruction sites are exact addresses; interposed calls log the call's
// return address, whose line is the one of the call itself at site - 1.
bool exact_site(OpKind kind) {
  return kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::Rmw || kind == OpKind::ThreadStart ||
         kind == OpKind::ThreadExit || kind == OpKind::ProcessExit;
}


std::string thread_label(uint32_t t) {
  if (t >= shm::kFlushActorBase && t < shm::kMaxThreads) return fmt::format("F{}", t - shm::kFlushActorBase);
  return fmt::format("T{}", t);
}

}  // namespace

struct DebugSession::Impl {
  DebugSession* owner = nullptr;
  Session& session;
  std::optional<proto::Trace> recording;
  proto::Trace trace_template;

  // The known path: decisions and their events, possibly past position
  // (after going back); events[k] is what decision k did.
  std::vector<uint32_t> path;
  std::vector<shm::Event> events;
  uint64_t position = 0;
  bool on_recording = false;  // path agrees with the recording so far
  bool live = false;          // an execution is paused at `position`
  bool ended = false;         // the execution ended at `position`
  ExecutionResult end;        // how (when ended)
  uint64_t execution = 0;     // index of the latest execution started
  std::vector<Breakpoint> breakpoints;
  int next_breakpoint = 1;
  // Live checkpoints along the paths visited (LiveCheckpoints.h): going back
  // restores the nearest one and re-runs the rest. Automatic ones are taken
  // on long moves, densest just before where the move ends.
  std::unique_ptr<LiveCheckpoints> checkpoints;
  bool use_checkpoints = true;
  // SIGINT or SIGTERM that came during the latest step (Session defers them
  // while stepping): SIGINT stops a step or continue loop, SIGTERM ends
  // the session.
  int pending_signal = 0;
  // The user's checkpoints: their numbers (1, 2, ...) and LiveCheckpoints ids.
  std::vector<std::pair<int, int>> manual;
  static constexpr uint64_t kAutomaticFrom = 4096;    // no automatic checkpoint on shorter moves
  static constexpr uint64_t kBand = 16384;            // and one every kBand steps along the way
  static constexpr size_t kMaxAutomatic = 24;

  Impl(Session& s, std::optional<proto::Trace> rec, proto::Trace tmpl)
      : session(s), recording(std::move(rec)), trace_template(std::move(tmpl)) {
    on_recording = recording.has_value();
  }

  shm::Header& header() { return session.region().header(); }

  std::optional<uint32_t> recorded(uint64_t step) const {
    if (!on_recording || !recording || step >= uint64_t(recording->decisions_size())) return std::nullopt;
    return recording->decisions(int(step));
  }

  // The signature step `step` must have when it is re-run, if known.
  std::optional<shm::Signature> signature(uint64_t step) const {
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

  // The decision at `step` along the known path (or the recording).
  std::optional<uint32_t> known_decision(uint64_t step) const {
    if (step < path.size()) return path[step];
    return recorded(step);
  }

  uint64_t known_length() const {
    uint64_t n = path.size();
    if (on_recording && recording) n = std::max<uint64_t>(n, uint64_t(recording->decisions_size()));
    return n;
  }

  // Takes in what an execution did since `from` and where it stopped.
  // After a command: SIGTERM ends the session; a SIGINT that came while a
  // command ran to its end is forgotten.
  StopInfo settle(StopInfo stop) {
    int sig = std::exchange(pending_signal, 0);
    if (sig == SIGTERM && stop.reason != StopReason::Interrupted) {
      stop.reason = StopReason::Interrupted;
      stop.message = "interrupted by SIGTERM: the stepping session ends";
    }
    return stop;
  }

  StopInfo absorb(ExecutionResult r, uint64_t from) {
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
      stop.message = fmt::format("interrupted by {}: the stepping session ends", session.stop_reason());
      return stop;
    }
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
      end.kind = "deadlock";
      end.thread = header().current;
      end.events.assign(events.begin(), events.begin() + long(position));
      std::string msg = "no thread can proceed:";
      for (const ThreadView& v : owner->threads())
        if (v.state != ThreadView::State::Finished) msg += fmt::format(" T{} {};", v.index, v.description);
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
      stop.message = fmt::format("{}: {}", end.kind, end.message);
    } else if (end.end == ExecutionResult::End::StepBound) {
      stop.reason = StopReason::Exited;
      stop.message = fmt::format("the execution reached --max-steps ({} steps)", steps);
    } else {
      stop.reason = StopReason::Exited;
      stop.message = fmt::format("the program exited with status {}", end.exit_status);
    }
    return stop;
  }

  std::vector<uint32_t> decisions_to(uint64_t target) const {
    std::vector<uint32_t> out;
    for (uint64_t k = 0; k < target; ++k) {
      auto d = known_decision(k);
      if (!d) break;
      out.push_back(*d);
    }
    return out;
  }

  LiveCheckpoints& cps() {
    if (!checkpoints) checkpoints = std::make_unique<LiveCheckpoints>(session, false);
    return *checkpoints;
  }

  // A checkpoint of the paused execution, unless one of this path is at
  // this step already.
  void take_automatic() {
    if (!use_checkpoints || !live || ended) return;
    std::vector<uint32_t> here(path.begin(), path.begin() + long(position));
    if (const auto* c = cps().nearest(here, position); c && c->step == position) return;
    // Room first: the automatic checkpoints farthest from here go.
    std::vector<const LiveCheckpoints::Checkpoint*> automatic;
    for (const auto& c : cps().all())
      if (c.automatic) automatic.push_back(&c);
    if (automatic.size() >= kMaxAutomatic) {
      auto far = std::max_element(automatic.begin(), automatic.end(), [&](auto* a, auto* b) {
        auto dist = [&](uint64_t step) { return step > position ? step - position : position - step; };
        return dist(a->step) < dist(b->step);
      });
      cps().drop((*far)->id);
    }
    try {
      cps().take(events.data(), position, true);
    } catch (const UsageError&) {
      // The agent refused (a thread it does not control, no slot): going
      // back re-runs from further away, nothing else changes.
    }
  }

  // The steps between `from` and `target` where a long move leaves
  // automatic checkpoints: target - 2^k, and every kBand steps.
  static std::vector<uint64_t> stops_between(uint64_t from, uint64_t target) {
    std::vector<uint64_t> stops;
    if (target - from < kAutomaticFrom) return stops;
    for (uint64_t d = 1024; d < target - from; d *= 2) stops.push_back(target - d);
    for (uint64_t p = (from / kBand + 1) * kBand; p < target; p += kBand) stops.push_back(p);
    std::sort(stops.begin(), stops.end());
    stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
    stops.erase(std::remove_if(stops.begin(), stops.end(), [&](uint64_t p) { return p <= from + 64; }), stops.end());
    return stops;
  }

  // Moves the paused execution forward to `target` along the known path,
  // leaving automatic checkpoints on the way when the move is long.
  StopInfo advance_to(uint64_t target) {
    StopInfo stop;
    uint64_t from = position;
    if (use_checkpoints)
      for (uint64_t p : stops_between(position, target)) {
        stop = forward_to(p);
        if (stop.reason != StopReason::Step || !live) return stop;
        take_automatic();
      }
    stop = forward_to(target);
    if (use_checkpoints && stop.reason == StopReason::Step && live && target - from >= kAutomaticFrom) take_automatic();
    return stop;
  }

  // The execution at `target` of the known path: from the nearest live
  // checkpoint when there is one, else from the start.
  StopInfo reach(uint64_t target) {
    const LiveCheckpoints::Checkpoint* c =
        use_checkpoints && checkpoints ? checkpoints->nearest(decisions_to(target), target) : nullptr;
    StopInfo stop;
    if (c && c->step > 0)
      stop = restore_to(*c, c->step);
    else if (use_checkpoints && target >= kAutomaticFrom)
      stop = run_to(0);  // then forward, leaving checkpoints
    else
      return run_to(target);
    if (stop.reason != StopReason::Step || !live || ended || position == target) return stop;
    return advance_to(target);
  }

  // A restored checkpoint, paused at its own step. Its steps are the
  // path's (the schedule it was taken on): only later ones are checked.
  StopInfo restore_to(const LiveCheckpoints::Checkpoint& c, uint64_t at) {
    if (live) session.abandon();
    live = false;
    ended = false;
    ExecutionPlan plan;
    plan.policy = shm::TailPolicy::Ask;
    plan.pause_at = at;
    plan.prefix = decisions_to(at);
    ExecutionResult r = checkpoints->restore(c.id, plan, ++execution, {}, events.data());
    StopInfo stop = absorb(std::move(r), at);
    if (live) header().checked_steps = position;
    return stop;
  }

  // A new execution from the checkpoint, paused at `target` along the
  // known path.
  StopInfo run_to(uint64_t target) {
    if (live) session.abandon();
    live = false;
    ended = false;
    ExecutionPlan plan;
    plan.policy = shm::TailPolicy::Ask;
    plan.pause_at = target;
    std::vector<shm::Signature> expected;
    bool checked = true;
    for (uint64_t k = 0; k < target; ++k) {
      auto d = known_decision(k);
      if (!d) throw InternalError(fmt::format("no decision known for step {}", k + 1));
      plan.prefix.push_back(*d);
      auto sig = signature(k);
      if (!sig) checked = false;
      if (checked) expected.push_back(*sig);
    }
    if (!checked) expected.clear();
    ExecutionResult r = session.run(plan, ++execution, expected);
    return absorb(std::move(r), 0);
  }

  // From the paused `position`, follows the known path to `target`
  // without stopping on the way.
  StopInfo forward_to(uint64_t target) {
    shm::Header& h = header();
    const shm::View& v = session.region().view();
    // Signatures are checked up to the first step whose is not known.
    bool checked = h.checked_steps == position;
    for (uint64_t k = position; k < target; ++k) {
      auto d = known_decision(k);
      if (!d) throw UsageError(fmt::format("step {} is past the known schedule ({} steps)", target, known_length()));
      v.prefix[k] = *d;
      auto sig = signature(k);
      if (sig && checked) {
        v.expected[k] = *sig;
        h.checked_steps = k + 1;
      } else {
        checked = false;
      }
    }
    h.prefix_len = target;
    h.pause_at = target;
    uint64_t from = position;
    return absorb(session.resume(shm::StepCommand::Go), from);
  }

  // Performs one step by `thread` from the paused position.
  StopInfo perform(uint32_t thread) {
    shm::Header& h = header();
    const shm::View& v = session.region().view();
    if (position < path.size() && path[position] != thread) {
      path.resize(position);
      events.resize(position);
    }
    v.prefix[position] = thread;
    auto sig = position < path.size() ? signature(position) : std::nullopt;
    if (!sig && on_recording && recorded(position) == thread) sig = signature(position);
    if (sig && h.checked_steps == position) {
      v.expected[position] = *sig;
      h.checked_steps = position + 1;
    }
    h.prefix_len = position + 1;
    h.pause_at = position + 1;
    return absorb(session.resume(shm::StepCommand::Go), position);
  }

  uint32_t default_thread() {
    uint64_t enabled = live ? header().ask_enabled : 0;
    if (auto d = known_decision(position); d && (enabled >> *d) & 1) return *d;
    if (position > 0) {
      uint32_t last = path[position - 1];
      if (last < shm::kMaxThreads && ((enabled >> last) & 1)) return last;
    }
    uint64_t threads = enabled & ((uint64_t(1) << shm::kFlushActorBase) - 1);
    if (threads) return uint32_t(__builtin_ctzll(threads));
    return enabled ? uint32_t(__builtin_ctzll(enabled)) : 0;
  }

  std::string site_line(uint64_t site, OpKind kind) {
    if (!site) return "";
    return session.symbolizer().source_line(exact_site(kind) ? site : site - 1);
  }

  // The breakpoint `thread`'s pending operation is at, if any.
  const Breakpoint* hit(uint32_t thread) {
    if (thread >= shm::kFlushActorBase) return nullptr;
    const shm::ThreadSlot& slot = header().threads[thread];
    auto kind = OpKind(slot.pending_kind);
    uint64_t site = slot.pending_site;
    for (Breakpoint& b : breakpoints) {
      if (b.kind == Breakpoint::Kind::Watch) {
        uint64_t addr = slot.pending_addr;
        if (addr && addr < b.address + b.size && b.address < addr + 8) return &b;
        continue;
      }
      if (!site) continue;
      // A call's site is its return address, which may start the next
      // line: only an exact site (an instruction) matches by address.
      bool instruction = kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::Rmw;
      if (instruction && site == b.address) return &b;
      // A thread's start is at its function's entry, before any of its
      // lines: only a function breakpoint (below) stops it.
      if (kind == OpKind::ThreadStart && b.line > 0) continue;
      uint64_t at = exact_site(kind) ? site : site - 1;
      if (b.function_end && (at < b.function_start || at >= b.function_end)) continue;
      if (!b.lines.empty()) {
        std::string line = session.symbolizer().source_line(at);
        if (std::find(b.lines.begin(), b.lines.end(), line) != b.lines.end()) return &b;
      } else if (b.line > 0) {
        std::string line = session.symbolizer().source_line(at);
        if (line == fmt::format("{}:{}", b.file, b.line)) return &b;
      } else if (b.function_end) {
        return &b;
      }
    }
    return nullptr;
  }

  // Stepping needs a paused execution that can go on.
  void require_running(const char* what) {
    if (ended) throw UsageError(fmt::format("the execution has ended: cannot {} (use back or goto)", what));
    if (!live) throw UsageError("no execution is paused");
  }
  // Inspection needs the process (kept at a deadlock, gone after a crash).
  void require_process(const char* what) {
    if (!live)
      throw UsageError(fmt::format("cannot {}: the execution's process is gone ({}); go back to inspect it", what,
                                   ended ? "it ended" : "none is paused"));
  }
};

DebugSession::DebugSession(Session& session, std::optional<proto::Trace> recording, proto::Trace trace_template)
    : impl_(std::make_unique<Impl>(session, std::move(recording), std::move(trace_template))) {
  impl_->owner = this;
  session.set_copy_paused_events(false);
  session.set_defer_interrupts(true);
}

DebugSession::~DebugSession() {
  impl_->session.set_defer_interrupts(false);
  if (impl_->live) impl_->session.abandon();
  impl_->checkpoints.reset();
}

StopInfo DebugSession::start() {
  Impl& s = *impl_;
  if (auto early = s.session.start()) {
    // The program ended before its first thread: nothing to step.
    early->end = early->end == ExecutionResult::End::Bug ? early->end : ExecutionResult::End::Complete;
    return s.absorb(std::move(*early), 0);
  }
  return s.run_to(0);
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
      else if (slot.await_addr) v.description += " (spinning until another thread writes it)";
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

StopInfo DebugSession::step(std::optional<uint32_t> thread, uint64_t n,
                            const std::function<void(const std::string&)>& on_step) {
  Impl& s = *impl_;
  s.require_running("step");
  StopInfo stop;
  for (uint64_t i = 0; i < n; ++i) {
    if (s.ended) break;
    uint32_t t = thread ? *thread : s.default_thread();
    uint64_t enabled = s.header().ask_enabled;
    if (t >= shm::kMaxThreads || !((enabled >> t) & 1)) {
      std::string why = "it does not exist";
      for (const ThreadView& v : threads())
        if (v.index == t) why = v.description;
      throw UsageError(fmt::format("{} cannot perform step {}: {}", thread_label(t), s.position + 1, why));
    }
    bool was_on = s.on_recording;
    auto recorded = s.recorded(s.position);
    stop = s.perform(t);
    if (was_on && recorded && *recorded != t && on_step)
      on_step(fmt::format("(left the recorded schedule at step {}: it runs T{} there; the schedule is yours from here)",
                          s.position, *recorded));
    if (on_step) on_step(describe_step(s.position - 1));
    if (stop.reason != StopReason::Step) return s.settle(stop);
    if (s.pending_signal == SIGINT) {
      s.pending_signal = 0;
      stop.message = fmt::format("interrupted by Ctrl-C at step {}", s.position);
      return stop;
    }
  }
  return s.settle(stop);
}

StopInfo DebugSession::cont(const std::function<void(const std::string&)>& on_step) {
  Impl& s = *impl_;
  s.require_running("continue");
  for (bool first = true;; first = false) {
    uint32_t t = s.default_thread();
    if (!first) {
      if (const Breakpoint* b = s.hit(t)) {
        const_cast<Breakpoint*>(b)->hits++;
        StopInfo stop;
        stop.reason = b->kind == Breakpoint::Kind::Watch ? StopReason::Watchpoint : StopReason::Breakpoint;
        stop.thread = t;
        stop.breakpoint = b->number;
        const shm::ThreadSlot& slot = s.header().threads[t];
        auto kind = OpKind(slot.pending_kind);
        std::string op = op_name(kind);
        if (slot.pending_addr) op += " " + s.session.symbolizer().describe_data(slot.pending_addr);
        stop.message = fmt::format("{} {}, T{} is about to perform step {}: {} at {}",
                                   b->kind == Breakpoint::Kind::Watch ? "Watchpoint" : "Breakpoint", b->number, t,
                                   s.position + 1, op,
                                   s.session.symbolizer().describe_code(exact_site(kind) ? slot.pending_site
                                                                                         : slot.pending_site - 1));
        return stop;
      }
    }
    StopInfo stop = s.perform(t);
    if (on_step) on_step(describe_step(s.position - 1));
    if (stop.reason != StopReason::Step) return s.settle(stop);
    if (s.pending_signal == SIGINT) {
      s.pending_signal = 0;
      stop.message = fmt::format("interrupted by Ctrl-C at step {}", s.position);
      return stop;
    }
    if (s.pending_signal == SIGTERM) return s.settle(stop);
  }
}

StopInfo DebugSession::go_to(uint64_t target) {
  Impl& s = *impl_;
  if (target > s.known_length())
    throw UsageError(fmt::format("step {} is past the known schedule ({} steps)", target, s.known_length()));
  if (target == s.position && (s.live || s.ended)) return StopInfo{};
  if (target > s.position && s.live && !s.ended) {
    // Forward: on from here, unless a checkpoint of the path is much closer.
    const LiveCheckpoints::Checkpoint* c =
        s.use_checkpoints && s.checkpoints ? s.checkpoints->nearest(s.decisions_to(target), target) : nullptr;
    if (!c || c->step < s.position + Impl::kAutomaticFrom) return s.settle(s.advance_to(target));
  }
  return s.settle(s.reach(target));
}

StopInfo DebugSession::back(uint64_t n) {
  Impl& s = *impl_;
  if (n > s.position) throw UsageError(fmt::format("cannot go back {} steps from step {}", n, s.position));
  return go_to(s.position - n);
}

const Breakpoint& DebugSession::add_breakpoint(const std::string& location) {
  Impl& s = *impl_;
  Symbolizer& symbols = s.session.symbolizer();
  Breakpoint b;
  b.spec = location;
  if (auto addr = parse_number(location)) {
    return add_address_breakpoint(*addr);
  } else if (size_t colon = location.rfind(':'); colon != std::string::npos) {
    auto line = parse_number(location.substr(colon + 1));
    std::string file = location.substr(0, colon);
    if (!line || file.empty()) throw UsageError(fmt::format("break: '{}' is not FILE:LINE", location));
    if (symbols.line_addresses(file, int(*line)).empty())
      throw UsageError(fmt::format("break: no code at {} in the program", location));
    size_t slash = file.rfind('/');
    b.file = slash == std::string::npos ? file : file.substr(slash + 1);
    b.line = int(*line);
  } else {
    auto range = symbols.find_symbol(location, true);
    if (!range) throw UsageError(fmt::format("break: no function \"{}\" in the program", location));
    b.function_start = range->first;
    b.function_end = range->second;
  }
  b.number = s.next_breakpoint++;
  s.breakpoints.push_back(b);
  return s.breakpoints.back();
}

const Breakpoint& DebugSession::add_address_breakpoint(uint64_t address) {
  Impl& s = *impl_;
  Symbolizer& symbols = s.session.symbolizer();
  Breakpoint b;
  b.spec = fmt::format("{:#x}", address);
  b.address = address;
  // An operation on the same line of the same function matches too: a
  // breakpoint address is where a line's code starts, an operation's site
  // is somewhere in it.
  b.lines = symbols.lines_at(address);
  std::string line = symbols.source_line(address);
  if (b.lines.empty() && !line.empty()) b.lines.push_back(line);
  if (size_t colon = line.rfind(':'); colon != std::string::npos) {
    b.file = line.substr(0, colon);
    b.line = std::atoi(line.c_str() + colon + 1);
    std::string fn = symbols.function_name(address);
    if (!fn.empty())
      if (auto range = symbols.find_symbol(fn, true); range && address >= range->first && address < range->second) {
        b.function_start = range->first;
        b.function_end = range->second;
      }
  }
  b.number = s.next_breakpoint++;
  s.breakpoints.push_back(b);
  return s.breakpoints.back();
}

const Breakpoint& DebugSession::add_watch(const std::string& target) {
  Impl& s = *impl_;
  Breakpoint b;
  b.kind = Breakpoint::Kind::Watch;
  b.spec = target;
  std::string name = target.starts_with("&") ? target.substr(1) : target;
  if (auto addr = parse_number(name)) {
    b.address = *addr;
    b.size = 1;
  } else if (auto range = s.session.symbolizer().find_symbol(name, false)) {
    b.address = range->first;
    b.size = range->second - range->first;
  } else {
    throw UsageError(fmt::format("watch: no variable \"{}\" in the program (give an address: watch 0x...)", name));
  }
  b.number = s.next_breakpoint++;
  s.breakpoints.push_back(b);
  return s.breakpoints.back();
}

bool DebugSession::remove_breakpoint(int number) {
  auto& bps = impl_->breakpoints;
  auto it = std::find_if(bps.begin(), bps.end(), [&](const Breakpoint& b) { return b.number == number; });
  if (it == bps.end()) return false;
  bps.erase(it);
  return true;
}

void DebugSession::remove_address_breakpoint(uint64_t address) {
  auto& bps = impl_->breakpoints;
  bps.erase(std::remove_if(bps.begin(), bps.end(),
                           [&](const Breakpoint& b) {
                             return b.kind == Breakpoint::Kind::Code && b.address == address && b.spec.starts_with("0x");
                           }),
            bps.end());
}

void DebugSession::clear_breakpoints() { impl_->breakpoints.clear(); }
const std::vector<Breakpoint>& DebugSession::breakpoints() const { return impl_->breakpoints; }

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

int DebugSession::checkpoint() {
  Impl& s = *impl_;
  if (!s.live) throw UsageError("no paused execution to checkpoint (go back to a step first)");
  if (!s.use_checkpoints) throw UsageError("live checkpoints are off (--no-checkpoints)");
  const auto& c = s.cps().take(s.events.data(), s.position);
  int number = s.manual.empty() ? 1 : s.manual.back().first + 1;
  s.manual.emplace_back(number, c.id);
  return number;
}

std::vector<CheckpointInfo> DebugSession::checkpoints() const {
  std::vector<CheckpointInfo> out;
  if (!impl_->checkpoints) return out;
  for (const auto& c : impl_->checkpoints->all()) {
    int number = 0;
    for (const auto& [n, id] : impl_->manual)
      if (id == c.id) number = n;
    out.push_back(CheckpointInfo{number, c.step, c.automatic});
  }
  std::sort(out.begin(), out.end(), [](const CheckpointInfo& a, const CheckpointInfo& b) { return a.step < b.step; });
  return out;
}

StopInfo DebugSession::restart(int number) {
  Impl& s = *impl_;
  const LiveCheckpoints::Checkpoint* c = nullptr;
  for (const auto& [n, id] : s.manual)
    if (n == number && s.checkpoints) c = s.checkpoints->find(id);
  if (!c) throw UsageError(fmt::format("no checkpoint {} (info checkpoints lists them)", number));
  // Back at the checkpoint, the future is open again: the recording's, if
  // the checkpoint is on it.
  s.path = c->schedule;
  s.events.assign(c->events.begin(), c->events.end());
  s.on_recording = s.recording.has_value();
  for (uint64_t k = 0; k < s.path.size() && s.on_recording; ++k)
    if (s.recording->decisions_size() <= int(k) || s.recording->decisions(int(k)) != s.path[k]) s.on_recording = false;
  return s.restore_to(*c, c->step);
}

void DebugSession::set_checkpoints(bool enabled) {
  impl_->use_checkpoints = enabled;
  if (!enabled) impl_->checkpoints.reset();
}

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
  save_trace(path, make_trace(s.trace_template, r));
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
