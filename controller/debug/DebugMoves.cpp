// Moving through the paused execution (DebugSession.h): step, continue,
// goto, back and restart, and the re-running they are made of: forward
// along the known path, from the start or from the nearest live checkpoint
// (StepCheckpoints.h), leaving automatic checkpoints on long moves.
#include <fmt/format.h>

#include <csignal>
#include <utility>

#include "binary/Symbolizer.h"
#include "cli/ExitStatus.h"
#include "debug/DebugSession.h"
#include "debug/DebugSessionImpl.h"
#include "reports/Report.h"
#include "session/SharedMemory.h"
#include "sites/OperationSite.h"

namespace ctrl {

namespace {

std::string thread_label(uint32_t t) {
  if (t >= shm::kFlushActorBase && t < shm::kMaxThreads) return fmt::format("F{}", t - shm::kFlushActorBase);
  return fmt::format("T{}", t);
}

}  // namespace

void DebugSession::Impl::take_automatic() {
  if (!live || ended) return;
  checkpoints.take_automatic(path, events, position);
}

StopInfo DebugSession::Impl::advance_to(uint64_t target) {
  StopInfo stop;
  uint64_t from = position;
  // A signal ends the move where the execution paused for it (Session
  // lowers pause_at): no further leg, no checkpoint to take on the way out.
  if (checkpoints.enabled())
    for (uint64_t p : StepCheckpoints::stops_between(position, target)) {
      stop = forward_to(p);
      if (stop.reason != StopReason::Step || !live || pending_signal) return stop;
      take_automatic();
    }
  stop = forward_to(target);
  if (checkpoints.enabled() && stop.reason == StopReason::Step && live && !pending_signal &&
      target - from >= StepCheckpoints::kAutomaticFrom)
    take_automatic();
  return stop;
}

StopInfo DebugSession::Impl::cut_short(StopInfo stop) {
  if (stop.reason != StopReason::Step || pending_signal != SIGINT) return stop;
  pending_signal = 0;
  stop.message = fmt::format("interrupted by Ctrl-C at step {}", position);
  stop.ctrl_c = true;
  return stop;
}

StopInfo DebugSession::Impl::reach(uint64_t target) {
  const LiveCheckpoints::Checkpoint* c =
      checkpoints.any() ? checkpoints.nearest(decisions_to(target), target) : nullptr;
  StopInfo stop;
  if (c && c->step > 0)
    stop = restore_to(*c, c->step);
  else if (checkpoints.enabled() && target >= StepCheckpoints::kAutomaticFrom)
    stop = run_to(0);  // then forward, leaving checkpoints
  else
    return run_to(target);
  if (stop.reason != StopReason::Step || !live || ended || position == target || pending_signal) return stop;
  return advance_to(target);
}

ExecutionPlan DebugSession::Impl::leave_for(uint64_t at) {
  if (live) session.abandon();
  live = false;
  ended = false;
  ExecutionPlan plan;
  plan.policy = shm::TailPolicy::Ask;
  plan.pause_at = at;
  return plan;
}

StopInfo DebugSession::Impl::restore_to(const LiveCheckpoints::Checkpoint& c, uint64_t at) {
  ExecutionPlan plan = leave_for(at);
  plan.prefix = decisions_to(at);
  ExecutionResult r = checkpoints.restore(c, std::move(plan), ++execution, events.data());
  StopInfo stop = absorb(std::move(r), at);
  if (live) header().checked_steps = position;
  return stop;
}

StopInfo DebugSession::Impl::run_to(uint64_t target) {
  ExecutionPlan plan = leave_for(target);
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

StopInfo DebugSession::Impl::forward_to(uint64_t target) {
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

StopInfo DebugSession::Impl::perform(uint32_t thread) {
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

uint32_t DebugSession::Impl::default_thread() {
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

bool DebugSession::Impl::interrupt_requested() {
  if (pending_signal == SIGINT) {
    pending_signal = 0;
    return true;
  }
  return interrupt_check && interrupt_check();
}

std::optional<StopInfo> DebugSession::Impl::watch_stop() {
  if (position == 0 || position > events.size()) return std::nullopt;
  const shm::Event& e = events[position - 1];
  Breakpoint* w = breakpoints.watch_hit(e);
  if (!w) return std::nullopt;
  w->hits++;
  auto kind = OpKind(e.kind);
  // A flush writes for the thread whose buffer it drains.
  uint32_t who = kind == OpKind::Flush ? e.owner : e.thread;
  bool wrote = kind == OpKind::Flush || (op_writes_memory(kind) && !(e.flags & shm::kBuffered));
  Symbolizer& symbols = session.symbolizer();
  StopInfo stop;
  stop.reason = StopReason::Watchpoint;
  stop.thread = who;
  stop.breakpoint = w->number;
  std::string where = kind == OpKind::Flush ? "its store buffer's flush"
                                            : symbols.describe_code(exact_site(kind) ? e.site : e.site - 1);
  stop.message = fmt::format("Watchpoint {}: T{} {} {} ({} bytes at {:#x}) at {}, step {}", w->number, who,
                             wrote ? "wrote" : "read", symbols.describe_data(e.addr), e.size ? e.size : 1, e.addr,
                             where, position);
  return stop;
}

StopInfo DebugSession::step(std::optional<uint32_t> thread, uint64_t n,
                            const std::function<void(const std::string&)>& on_step, bool others_may_run) {
  Impl& s = *impl_;
  s.require_running("step");
  StopInfo stop;
  auto interrupted = [&] {
    stop.message = fmt::format("interrupted by Ctrl-C at step {}", s.position);
    stop.ctrl_c = true;
    return stop;
  };
  for (uint64_t i = 0; i < n; ++i) {
    if (s.ended) break;
    uint32_t t = thread ? *thread : s.default_thread();
    uint64_t enabled = s.header().ask_enabled;
    if (t >= shm::kMaxThreads || !((enabled >> t) & 1)) {
      std::string why = "it does not exist";
      bool can_wait = false;
      for (const ThreadView& v : threads())
        if (v.index == t) {
          why = v.description;
          can_wait = v.state != ThreadView::State::Finished && t < shm::kFlushActorBase;
        }
      if (!can_wait || !thread || !others_may_run)
        throw UsageError(fmt::format("{} cannot perform step {}: {}{}", thread_label(t), s.position + 1, why,
                                     can_wait ? " (and the other threads may not run for it)" : ""));
      // The others go until T can: as `continue` would choose them.
      if (on_step)
        on_step(fmt::format("({} cannot go yet: {}; the other threads run until it can)", thread_label(t), why));
      while (!((s.header().ask_enabled >> t) & 1)) {
        stop = s.perform(s.default_thread());
        if (on_step) on_step(describe_step(s.position - 1));
        if (stop.reason != StopReason::Step) {
          stop.message += fmt::format(" ({} never could go)", thread_label(t));
          return s.settle(stop);
        }
        if (s.interrupt_requested()) return interrupted();
        if (s.pending_signal == SIGTERM) return s.settle(stop);
      }
    }
    bool was_on = s.on_recording;
    auto recorded = s.recorded(s.position);
    stop = s.perform(t);
    if (was_on && recorded && *recorded != t && on_step)
      on_step(fmt::format("(left the recorded schedule at step {}: it runs T{} there; the schedule is yours from here)",
                          s.position, *recorded));
    if (on_step) on_step(describe_step(s.position - 1));
    if (stop.reason != StopReason::Step) return s.settle(stop);
    if (s.interrupt_requested()) return interrupted();
  }
  return s.settle(stop);
}

StopInfo DebugSession::cont(const std::function<void(const std::string&)>& on_step) {
  Impl& s = *impl_;
  s.require_running("continue");
  for (bool first = true;; first = false) {
    uint32_t t = s.default_thread();
    if (!first) {
      Breakpoint* b = t < shm::kFlushActorBase ? s.breakpoints.hit(s.header().threads[t]) : nullptr;
      if (b) {
        b->hits++;
        StopInfo stop;
        stop.reason = StopReason::Breakpoint;
        stop.thread = t;
        stop.breakpoint = b->number;
        const shm::ThreadSlot& slot = s.header().threads[t];
        auto kind = OpKind(slot.pending_kind);
        std::string op = op_name(kind);
        if (slot.pending_addr) op += " " + s.session.symbolizer().describe_data(slot.pending_addr);
        stop.message = fmt::format(
            "Breakpoint {}, T{} is about to perform step {}: {} at {}", b->number, t, s.position + 1, op,
            s.session.symbolizer().describe_code(exact_site(kind) ? slot.pending_site : slot.pending_site - 1));
        return stop;
      }
    }
    StopInfo stop = s.perform(t);
    if (on_step) on_step(describe_step(s.position - 1));
    if (stop.reason != StopReason::Step) return s.settle(stop);
    if (auto watched = s.watch_stop()) return *watched;
    if (s.interrupt_requested()) {
      stop.message = fmt::format("interrupted by Ctrl-C at step {}", s.position);
      stop.ctrl_c = true;
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
        s.checkpoints.any() ? s.checkpoints.nearest(s.decisions_to(target), target) : nullptr;
    if (!c || c->step < s.position + StepCheckpoints::kAutomaticFrom)
      return s.settle(s.cut_short(s.advance_to(target)));
  }
  return s.settle(s.cut_short(s.reach(target)));
}

StopInfo DebugSession::back(uint64_t n) {
  Impl& s = *impl_;
  if (n > s.position) throw UsageError(fmt::format("cannot go back {} steps from step {}", n, s.position));
  return go_to(s.position - n);
}

StopInfo DebugSession::restart(int number) {
  Impl& s = *impl_;
  const LiveCheckpoints::Checkpoint* c = s.checkpoints.numbered(number);
  if (!c) throw UsageError(fmt::format("no checkpoint {} (info checkpoints lists them)", number));
  // Back at the checkpoint, the future is open again: the recording's, if
  // the checkpoint is on it.
  s.path = c->schedule;
  s.events.assign(c->events.begin(), c->events.end());
  s.on_recording = s.recording.has_value();
  for (uint64_t k = 0; k < s.path.size() && s.on_recording; ++k)
    if (s.recording->decisions_size() <= int(k) || s.recording->decisions(int(k)) != s.path[k]) s.on_recording = false;
  return s.settle(s.cut_short(s.restore_to(*c, c->step)));
}

}  // namespace ctrl
