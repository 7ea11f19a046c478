#include "exploration/PartitionedSampling.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <exception>

#include "exploration/HelperSession.h"
#include "session/Tracer.h"

namespace ctrl {

namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

}  // namespace

PartitionedSampling::PartitionedSampling(const SessionConfig& config, unsigned helpers, clock::time_point deadline,
                                         std::vector<shm::Signature> expected, ExecutionPlan first,
                                         ExecutionResult first_result, PlanAt plan_at, Limits limits)
    : config_(config),
      deadline_(deadline),
      expected_(std::move(expected)),
      first_(std::move(first)),
      first_result_(std::move(first_result)),
      plan_at_(std::move(plan_at)),
      limits_(limits),
      // Enough claimed ahead that no session waits for the explorer's turn
      // to move while another finishes its range.
      window_(std::max<uint64_t>(limits.chunk, 1) * (uint64_t(helpers) + 1 + limits.remote_sessions) * 3) {
  next_ = turn_ = std::max<uint64_t>(limits_.first, 1);
  limits_.chunk = std::max<uint64_t>(limits_.chunk, 1);
  stats_.jobs = helpers + 1;
  stats_.mode = "seed-ranges";
  stats_.workers.resize(helpers + 1);
  idle_.assign(helpers + 1, 0);
  began_.assign(helpers + 1, clock::now());
  ended_.assign(helpers + 1, clock::time_point::max());
  start_helper_threads(helpers_, helpers, [this](size_t k) { helper(k); });
}

PartitionedSampling::~PartitionedSampling() {
  stop();
  join_helper_threads(helpers_);
}

void PartitionedSampling::stop() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
}

SpeculationStats PartitionedSampling::stats() const {
  std::lock_guard lock(mutex_);
  SpeculationStats s = stats_;
  auto now = clock::now();
  for (size_t k = 0; k < s.workers.size(); ++k) {
    // A helper that never got a usable session has no lifetime.
    auto end = ended_[k] == clock::time_point::max() ? now : ended_[k];
    double life = std::chrono::duration<double>(end - began_[k]).count();
    s.workers[k].idle_fraction = life > 0 ? std::min(1.0, idle_[k] / life) : 0;
  }
  return s;
}

std::optional<std::pair<uint64_t, uint64_t>> PartitionedSampling::claim_remote() {
  std::lock_guard lock(mutex_);
  return claim(false);
}

void PartitionedSampling::deliver(uint64_t m, ExecutionPlan plan, ExecutionResult r, bool outside) {
  std::lock_guard lock(mutex_);
  ++stats_.speculative;
  if (outside) return turn_off("an execution changed a file or waited on a descriptor or a child process");
  if (quit_ || !stats_.off.empty() || m < turn_) return;
  if (r.end == ExecutionResult::End::Bug && !limits_.keep_going) cutoff_ = std::min(cutoff_, m);
  results_.emplace(m, Done{std::move(plan), std::move(r)});
  changed_.notify_all();
}

void PartitionedSampling::give_back_remote(uint64_t first, uint64_t last) {
  std::lock_guard lock(mutex_);
  give_back({first, last});
}

bool PartitionedSampling::active() const {
  std::lock_guard lock(mutex_);
  return !quit_ && stats_.off.empty();
}

std::optional<ExecutionPlan> PartitionedSampling::plan_of(uint64_t m) {
  // Without strategy_mutex_: a seeded strategy's plan_at may run while the
  // explorer teaches it (Strategy.h), so no session waits for the explorer
  // to draw its next plan.
  return plan_at_(m);
}

std::optional<PartitionedSampling::Range> PartitionedSampling::claim(bool by_explorer) {
  if (quit_ || !stats_.off.empty()) return std::nullopt;
  if (!returned_.empty()) {
    Range r = *returned_.begin();
    if (r.first > cutoff_) return std::nullopt;
    returned_.erase(returned_.begin());
    return r;
  }
  uint64_t from = next_;
  if (from >= limits_.limit || from > cutoff_) return std::nullopt;
  // The explorer, which also takes the results, may run further ahead, but
  // not without bound: a stalled helper would leave every later result
  // waiting in memory.
  if (from >= turn_ + (by_explorer ? 2 * window_ : window_)) return std::nullopt;
  next_ = std::min(from + limits_.chunk, limits_.limit);
  ++stats_.ranges;
  return Range{from, next_};
}

void PartitionedSampling::give_back(Range r) {
  if (r.first < r.second) returned_.insert(r);
  changed_.notify_all();
}

void PartitionedSampling::turn_off(const std::string& why) {
  if (stats_.off.empty()) stats_.off = why;
  results_.clear();
  own_.clear();
  changed_.notify_all();
}

void PartitionedSampling::check_own(const ExecutionResult& r, bool files_changed) {
  if (!touches_outside(r, files_changed)) return;
  std::lock_guard lock(mutex_);
  turn_off("an execution changed a file or waited on a descriptor or a child process");
}

std::optional<ExecutionResult> PartitionedSampling::take(uint64_t n, const ExecutionPlan& plan, const RunOwn& run_own) {
  std::unique_lock lock(mutex_);
  turn_ = n;
  // The window moved: a helper waiting for it may claim now. Only then: a
  // wake-up on another CPU costs more than an execution's own work here.
  if (helpers_waiting_ > 0 && (next_ < n + window_ || !returned_.empty())) changed_.notify_all();
  for (;;) {
    if (!stats_.off.empty()) return std::nullopt;
    if (auto it = results_.find(n); it != results_.end()) {
      Done done = std::move(it->second);
      results_.erase(it);
      if (!same_plan(done.plan, plan)) {
        ++stats_.replanned;
        return std::nullopt;
      }
      if (!handed_over(done.result.end)) return std::nullopt;
      ++stats_.taken;
      return std::move(done.result);
    }
    if (own_.erase(n)) {
      ++stats_.workers[0].executions;  // the explorer runs it now
      return std::nullopt;
    }
    // Unclaimed: the explorer claims the range that begins with it.
    auto back =
        std::find_if(returned_.begin(), returned_.end(), [&](const Range& r) { return r.first <= n && n < r.second; });
    if (back != returned_.end() || n >= next_) {
      Range r;
      if (back != returned_.end()) {
        r = *back;
        returned_.erase(back);
      } else {
        r = {n, std::max(n + 1, std::min(n + limits_.chunk, limits_.limit))};
        next_ = r.second;
        ++stats_.ranges;
      }
      for (uint64_t m = r.first; m < r.second; ++m)
        if (m > n) own_.insert(m);
      ++stats_.workers[0].executions;
      return std::nullopt;
    }
    // A helper's: meanwhile the explorer's session runs plans of its own.
    if (!own_.empty() && *own_.begin() <= cutoff_) {
      uint64_t m = *own_.begin();
      own_.erase(own_.begin());
      lock.unlock();
      std::optional<ExecutionPlan> p = plan_of(m);
      std::optional<ExecutionResult> r;
      if (p) r = run_own(*p, limits_.index_base + m);
      lock.lock();
      if (!r) {
        turn_off(fmt::format("the strategy has no plan numbered {}", m));
        continue;
      }
      ++stats_.speculative;
      ++stats_.workers[0].executions;
      if (r->end == ExecutionResult::End::Interrupted) return std::nullopt;  // the explorer sees the stop itself
      if (!stats_.off.empty()) continue;                                     // run_own called check_own
      if (r->end == ExecutionResult::End::Bug && !limits_.keep_going) cutoff_ = std::min(cutoff_, m);
      results_.emplace(m, Done{std::move(*p), std::move(*r)});
      continue;
    }
    if (auto r = claim(true)) {
      for (uint64_t m = r->first; m < r->second; ++m) own_.insert(m);
      continue;
    }
    auto t0 = clock::now();
    explorer_waiting_ = true;
    changed_.wait(lock);
    explorer_waiting_ = false;
    idle_[0] += seconds_since(t0);
  }
}

void PartitionedSampling::helper(size_t k) {
  Tracer::set_helper_thread();
  const size_t w = k + 1;  // this helper's slot in the statistics
  Range running{0, 0};     // the rest of the range this helper holds
  auto finish = [&] {      // lock held
    give_back(running);
    ended_[w] = clock::now();
  };
  try {
    {
      std::lock_guard lock(mutex_);
      if (quit_ || !stats_.off.empty()) return;
    }
    HelperStart start = start_helper_session(config_, k, deadline_, expected_, first_, first_result_);
    if (!start.session) {
      std::lock_guard lock(mutex_);
      began_[w] = ended_[w] = clock::now();
      if (!quit_ && !start.interrupted) turn_off(start.failed);
      return;
    }
    Session& session = *start.session;
    {
      std::lock_guard lock(mutex_);
      began_[w] = clock::now();
    }
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        auto t0 = clock::now();
        std::optional<Range> got;
        ++helpers_waiting_;
        changed_.wait(lock, [&] { return quit_ || !stats_.off.empty() || (got = claim(false)).has_value(); });
        --helpers_waiting_;
        idle_[w] += seconds_since(t0);
        if (!got) return finish();
        running = *got;
      }
      // One critical section per execution: a claimed range starts at or
      // before the cutoff while the partition is on (claim), and each later
      // plan of it is checked when the result before it is handed in.
      while (running.first < running.second) {
        uint64_t m = running.first;
        std::optional<ExecutionPlan> plan = plan_of(m);
        if (!plan) {
          std::lock_guard lock(mutex_);
          turn_off(fmt::format("the strategy has no plan numbered {}", m));
          return finish();
        }
        ExecutionResult r = session.run(*plan, limits_.index_base + m, expected_);
        bool outside = touches_outside(r, session.region().header().files_changed.load() != 0);
        std::lock_guard lock(mutex_);
        if (r.end == ExecutionResult::End::Interrupted) return finish();
        ++running.first;
        ++stats_.speculative;
        ++stats_.workers[w].executions;
        if (outside) {
          turn_off("an execution changed a file or waited on a descriptor or a child process");
          return finish();
        }
        if (!stats_.off.empty()) return finish();
        if (r.end == ExecutionResult::End::Bug && !limits_.keep_going) cutoff_ = std::min(cutoff_, m);
        results_.emplace_hint(results_.end(), m, Done{std::move(*plan), std::move(r)});
        // The explorer waits only for its turn's result (or for what
        // give_back, turn_off and stop announce themselves).
        if (explorer_waiting_ && m == turn_) changed_.notify_all();
        // Stopped, or past a bug that ends the exploration: the rest is
        // given back (the explorer runs what it still needs itself).
        if (quit_) return finish();
        if (running.first < running.second && running.first > cutoff_) {
          give_back(running);
          running = {0, 0};
        }
      }
    }
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    finish();
    if (!quit_) turn_off(fmt::format("helper {} failed: {}", k + 1, e.what()));
  }
}

}  // namespace ctrl
